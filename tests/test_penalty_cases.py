"""A penalty of a multi-case action reads the variables of the case that applies
(language.md §7.4): a rule that reads a variable that case does not bind does not apply under
it.  The interpreter's fast oracle and the generated kernel must agree on this (trial 32: the
kernel build failed with ``variable 't' is not bound``)."""

from __future__ import annotations

import random

import pytest

from tsdsl.interp import Interpreter
from tsdsl.lang import load_system_text
from tsdsl.oracle import FastOracle, find_oracle

# arc-eager without a root token; REDUCE's second case pops a lone word and binds no t
SPEC = """system pc "two-case REDUCE, penalties reading t and s"
  produces projective
  root     none
  lists    σ, β
  initial  ([], [1..n])
  terminal (σ, [])
  SHIFT     : (σ, b|β)   => (σ|b, β)
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)     arc b -> s
  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)   arc s -> b
  REDUCE    : (σ|t|s, β) => (σ|t, β)     if has_head(s)
            | ([s], β)   => ([], β)
  oracle   gn
  reachable h -> d if h in σ and d in β or h in β and d in β or h in β and d in σ and not has_head(d)
  penalty  REDUCE if gold_head(t) == s
  penalty  REDUCE if gold_head(s) in β
"""

GOLDS = [(0, 1, 2, 3), (2, 0, 2, 3, 2), (3, 3, 0, 3), (0, 3, 1, 3, 4, 5), (2, 0, 4, 2), (4, 1, 1, 0, 4, 5)]


@pytest.fixture(scope="module")
def system():
    return load_system_text(SPEC, "pc.ts")


def test_a_penalty_reading_an_unbound_variable_does_not_apply_under_that_case(system):
    it = Interpreter(system)
    gold = (2, 0, 3)  # w2 is the root; w1 and w3 hang from it
    fast = FastOracle(it, find_oracle(system), gold)
    c = it.initial(3)
    it.apply(c, "SHIFT")  # σ = [w1]: REDUCE by its second case, which binds s only
    assert "REDUCE" in it.legal(c)
    # gold_head(t) == s cannot be read (no t): only gold_head(s) in β counts, and w1's head is in β
    assert fast.penalty(c, "REDUCE") == 1
    assert fast.costs(c)["REDUCE"] >= 1
    it.apply(c, "RIGHT-ARC")  # σ = [w1 w2], w2's head w1: the first case, t = w1, s = w2
    assert fast.penalty(c, "REDUCE") == 1  # gold_head(w1) == w2


def test_the_compiled_kernel_agrees_with_the_interpreter(system, tmp_path):
    """Kernel costs against the fast oracle along random derivations that use both cases."""
    from tsdsl.kernels import compile_system

    ks = compile_system(system, cache_dir=tmp_path / "cache", fallback=False)
    it = Interpreter(system)
    rng = random.Random(11)
    penalised = {1: 0, 2: 0}  # REDUCE penalised under the first and the second case
    for gold in GOLDS:
        for _ in range(8):
            c, k = it.initial(len(gold)), ks.initial(len(gold))
            ks.attach_gold(k, list(gold))
            fast = FastOracle(it, find_oracle(system), gold)
            while not it.is_terminal(c) and it.legal(c):
                assert ks.costs_dict(k) == fast.costs(c), (gold, c.lists, c.heads)
                if "REDUCE" in it.legal(c) and fast.penalty(c, "REDUCE"):
                    penalised[1 if len(c.lists[0]) > 1 else 2] += 1
                a = rng.choice(it.legal(c))
                it.apply(c, a)
                ks.apply(k, a, None)
    assert penalised[1] > 0 and penalised[2] > 0
