"""Compiled oracle costs against the exact loss, for the systems whose cost code the oracle
pass runs fastest: arc-eager (incremental tier), arc-hybrid (incremental, with the general
delta for list ends and adjacent pairs) and Covington (scratch tier).

Two paths compute costs in a kernel, and both are checked against the interpreter's exact
loss found by search (:class:`tsdsl.verify.loss.LossSearch`, the ``tsdsl check-oracle``
machinery), not against the fast oracle that generated them:

- ``costs``: every legal action's cost, after a random legal prefix; the cost of an action
  must be the exact loss after it minus the exact loss before it;
- the fused step of ``oracle_pass`` (costs in action order, the first zero applied at once,
  the loss carried from step to step): every action it takes must be the first action, in
  the system's order, whose exact cost is 0.

The three oracles are exact for the gold trees drawn (projective trees for the projective
systems), so equality is the claim.  Set ``TSDSL_KERNEL_EXAMPLES`` to change the examples.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import legal_action_sequences, trees
from tsdsl import Interpreter, load_system
from tsdsl.kernels import compile_system
from tsdsl.verify.loss import LossSearch

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"
STEMS = ["arc-eager", "arc-hybrid", "covington"]
EXAMPLES = int(os.environ.get("TSDSL_KERNEL_EXAMPLES", "40"))
MAX_N = 6  # the exact loss is a search over every reachable configuration


@pytest.fixture(scope="module")
def systems():
    out = {}
    for stem in STEMS:
        system = load_system(SYSTEMS / f"{stem}.ts")
        out[stem] = (Interpreter(system), compile_system(system, fallback=False))
    return out


def _projective(it: Interpreter) -> bool:
    return it.system.covers in ("projective", "projective-dag")


def _exact_costs(it: Interpreter, search: LossSearch, c) -> dict[str, float]:
    before = search.loss(c)
    out = {}
    for a in it.legal(c):
        c2 = it.copy(c)
        it.apply(c2, a)
        out[a] = search.loss(c2) - before
    return out


@st.composite
def sentences(draw, it: Interpreter):
    """A gold tree the system covers and a random legal prefix from the initial state."""
    n = draw(st.integers(1, MAX_N), label="n")
    gold = list(draw(trees(min_n=n, max_n=n, projective=True if _projective(it) else None), label="gold"))
    prefix = draw(legal_action_sequences(it, n), label="actions")
    cut = draw(st.integers(0, len(prefix)), label="cut")
    return gold, prefix[:cut]


_SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("stem", STEMS)
def test_costs_are_exact_loss_differences(systems, stem):
    it, ks = systems[stem]

    @_SETTINGS
    @given(data=st.data())
    def check(data):
        gold, prefix = data.draw(sentences(it))
        c, k = it.initial(len(gold)), ks.initial(len(gold))
        for a in prefix:
            it.apply(c, a)
            ks.apply(k, a)
        if it.is_terminal(c):
            return
        search = LossSearch(it, gold)
        if search.loss(c) == float("inf"):  # a dead end: no cost is defined
            return
        ks.attach_gold(k, gold)
        exact = {a: v for a, v in _exact_costs(it, search, c).items() if v != float("inf")}
        got = ks.costs_dict(k)
        assert {a: got[a] for a in exact} == exact, (gold, prefix)

    check()


@pytest.mark.parametrize("stem", STEMS)
def test_oracle_pass_takes_the_first_exact_zero_cost_action(systems, stem):
    it, ks = systems[stem]

    @_SETTINGS
    @given(golds=st.lists(trees(min_n=1, max_n=MAX_N, projective=True if _projective(it) else None),
                          min_size=1, max_size=4))
    def check(golds):
        golds = [list(g) for g in golds]
        res = ks.oracle_pass(golds)
        assert res.stuck_sentences == 0
        for i, gold in enumerate(golds):
            search = LossSearch(it, gold)
            c = it.initial(len(gold))
            taken = [ks.action_names[a] for a in res.sequence(i)[0]]
            for a in taken:
                exact = _exact_costs(it, search, c)
                first_zero = next(b for b in ks.action_names if exact.get(b) == 0)  # the system's order
                assert a == first_zero, (gold, taken)
                it.apply(c, a)
            assert it.is_terminal(c), (gold, taken)
            assert search.loss(c) == 0  # every gold tree here is reachable: the pass builds it

    check()
