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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# ---- the abstraction itself, on random rules (no compiler needed) ----------------------

_ATOMS = ["h in O", "d in O", "h in U", "d in U", "has_head(h)", "has_head(d)", "h < d", "d < h",
          "h == last(O)", "d == last(O)", "h == first(U)", "d == first(U)", "d != last(O)",
          "pos(d) == pos(h) + 1", "pos(d) == pos(h) - 1", "pos(h) == pos(d) + 1"]


@st.composite
def _rules(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        atom = draw(st.sampled_from(_ATOMS))
        return f"not ({atom})" if draw(st.booleans()) else atom
    op = draw(st.sampled_from(["and", "or"]))
    return f"({draw(_rules(depth - 1))} {op} {draw(_rules(depth - 1))})"


def _class_of(cl, gen, c, t: int, hs: int) -> int:
    """A token's class in the interpreter's configuration ``c``, as the kernel's cls_of."""
    where = next((k for k, lst in enumerate(c.lists) if t in lst), -1)
    code = (where + 1) * 3 + hs
    for lst, side in cl.ends:
        items = c.lists[gen.list_index[lst]]
        end = (items[0] if items else c.n + 2) if side == "first" else (items[-1] if items else 0)
        code = code * 2 + (t == end)
    return code * 2 + (t == c.root) if cl.uses_root else code


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule=_rules(), data=st.data())
def test_classes_and_adjacency_decide_the_rule(rule, data):
    """Whenever the generator accepts a rule for the general delta, the classes of a gold
    arc's two words and their adjacency (in one list) decide the rule exactly, in every
    configuration: what the kernel's tables assume.  Checked against the interpreter's
    evaluation of the rule, on random rules over arc-hybrid's lists and random states."""
    system = load_system_text(HYBRID_ENDS.replace(
        "(d in O or d in U) and (h in O or h in U) and (d == first(U) or h == last(O) or d in O and h in O and "
        "pos(d) == pos(h) + 1 or d in U and h in U and pos(d) == pos(h) - 1 and not has_head(h))", rule),
        file="rule.ts")
    gen = KernelGen(system)
    cl = gen.classes
    if cl is None or not cl.general:
        return  # the scratch copy, or the classic tables (their own tests)
    it = Interpreter(system)
    positive, hv, dv, pred = system.oracles[0].reach
    evaluate = it._pred(pred)
    n = data.draw(st.integers(1, 7), label="n")
    c = it.initial(n)
    for _ in range(data.draw(st.integers(0, 3 * n), label="steps")):
        legal = sorted(it.legal(c))
        if it.is_terminal(c) or not legal:
            break
        it.apply(c, data.draw(st.sampled_from(legal), label="action"))
    tokens = [t for t in range(n + 2) if t == c.root or 1 <= t <= n]
    for h in tokens:
        for d in range(1, n + 1):
            if d == h or c.heads[d] == h:
                continue  # only missing arcs are asked about
            ch = _class_of(cl, gen, c, h, data.draw(st.integers(1, 2), label="hs of h") if c.heads[h] >= 0 else 0)
            cd = _class_of(cl, gen, c, d, 2 if c.heads[d] >= 0 else 0)
            wh = next((k for k, lst in enumerate(c.lists) if h in lst), -1)
            wd = next((k for k, lst in enumerate(c.lists) if d in lst), -1)
            adj = None
            if wh == wd >= 0 and abs(c.lists[wh].index(d) - c.lists[wh].index(h)) == 1:
                adj = c.lists[wh].index(d) - c.lists[wh].index(h)
            want = int(evaluate(c, {hv: h, dv: d, "$gold": [-1] * (n + 2)}) != positive)
            got = gen._lost(cl, positive, pred, hv, dv, gen.list_index, ch, cd, int(h < d) if cl.n_dir == 2 else 0,
                            adj)
            assert got == want, (rule, c, h, d)
