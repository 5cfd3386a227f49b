"""Incremental costs for rules that read list ends and adjacent pairs (kernels/emit_delta.py).

Arc-hybrid's oracle reads ``last(O)`` and ``pos(d) == pos(h) + 1``, Honnibal et al. 2013's
reads ``pos(d) == pos(h) + 1``: both used to cost every action by a scratch copy and now
get incremental costs.  The claim checked here is the one every kernel makes: the cost of
each legal action equals the fast oracle's loss difference in the interpreter
(:class:`tsdsl.oracle.FastOracle`), on random gold trees and random legal action
sequences.  Besides the seed specs, rules written to reach the corners: both list ends,
both adjacency directions, ``last`` of an empty stack (token 0, the root, in a root-left
system), and a rule whose truth depends on positions in different lists, which the
general delta cannot track and must leave to the scratch copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from test_kernels import EXAMPLES, _Agreement
from tsdsl import Interpreter, load_system, load_system_text
from tsdsl.kernels import compile_system
from tsdsl.kernels.codegen import KernelGen

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"

HYBRID_ENDS = """
system hybrid_ends "arc-hybrid with a rule reading both ends and both neighbours"
  produces projective
  root     right
  capacity 3
  distance 1
  start    1
  periphery capacity
  LEFT-ARC  = \u2190 {P: right}
  RIGHT-ARC = \u2192 {P: left}
  SHIFT     = +
  oracle   ends_and_neighbours "a rule for the test, not an oracle of any paper"
  reachable h -> d if (d in O or d in U) and (h in O or h in U) and (d == first(U) or h == last(O) or d in O and h in O and pos(d) == pos(h) + 1 or d in U and h in U and pos(d) == pos(h) - 1 and not has_head(h))
"""

EAGER_ENDS = """
system eager_ends "arc-eager with a rule reading last(\u03c3), first(\u03b2) and a left neighbour"
  produces projective
  root     left
  lists    \u03c3, \u03b2
  initial  ([root], [1..n])
  terminal (\u03c3, [])
  SHIFT     : (\u03c3, b|\u03b2)   => (\u03c3|b, \u03b2)
  LEFT-ARC  : (\u03c3|s, b|\u03b2) => (\u03c3, b|\u03b2)     arc b -> s
  RIGHT-ARC : (\u03c3|s, b|\u03b2) => (\u03c3|s|b, \u03b2)   arc s -> b
  REDUCE    : (\u03c3|s, \u03b2)   => (\u03c3, \u03b2)       if has_head(s)
  oracle   ends "a rule for the test, not an oracle of any paper"
  reachable h -> d if h in \u03b2 and d in \u03b2 or h == first(\u03b2) and d == last(\u03c3) or d in \u03c3 and h in \u03c3 and pos(d) == pos(h) - 1 and not has_head(d) or h in \u03c3 and d in \u03b2
"""

# pos(d) == pos(h) + 1 decides here for h in U and d in O: a coincidence of positions in two
# lists, which no class of the two words says
CROSS_LISTS = HYBRID_ENDS.replace(
    "(d in O or d in U) and (h in O or h in U) and (d == first(U) or h == last(O) or d in O and h in O and "
    "pos(d) == pos(h) + 1 or d in U and h in U and pos(d) == pos(h) - 1 and not has_head(h))",
    "d in O and (h in U and pos(d) == pos(h) + 1 or h in O)").replace("hybrid_ends", "cross_lists")

TEXTS = {"hybrid-ends": HYBRID_ENDS, "eager-ends": EAGER_ENDS, "cross-lists": CROSS_LISTS}


def _system(name: str):
    if name in TEXTS:
        return load_system_text(TEXTS[name], file=f"{name}.ts")
    return load_system(SYSTEMS / f"{name}.ts")


@pytest.mark.parametrize("name, general", [("arc-hybrid", True), ("arc-eager-nm-2013", True),
                                           ("hybrid-ends", True), ("eager-ends", True), ("arc-eager", False)])
def test_rules_with_ends_or_adjacency_get_incremental_costs(name, general):
    gen = KernelGen(_system(name))
    out = gen.generate()
    assert out.incremental == (True,)
    assert gen.classes.general is general
    if name == "hybrid-ends":
        assert gen.classes.ends == (("O", "last"), ("U", "first")) and gen.classes.adj == (-1, 1)


def test_a_rule_reading_positions_across_lists_keeps_the_scratch_copy():
    gen = KernelGen(_system("cross-lists"))
    assert gen.generate().incremental == (False,)


@pytest.fixture(scope="module")
def kernels():
    out = {}
    for name in ("arc-hybrid", "arc-eager-nm-2013", *TEXTS):
        system = _system(name)
        out[name] = (Interpreter(system), compile_system(system, fallback=False))
    return out


@pytest.mark.parametrize("name", ["arc-hybrid", "arc-eager-nm-2013", *TEXTS])
def test_costs_equal_the_fast_oracles_loss_differences(kernels, name):
    it, ks = kernels[name]
    machine = type("Agreement", (_Agreement,), {"it": it, "ks": ks})
    machine.TestCase.settings = settings(max_examples=3 * EXAMPLES, stateful_step_count=40, deadline=None,
                                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    machine.TestCase().runTest()
