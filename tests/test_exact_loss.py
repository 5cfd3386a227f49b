"""The compiled exact loss search (``_loss.pxi``, ``tsdsl.kernels.exact_loss``) against the
interpreter's (``tsdsl.verify.loss.LossSearch``, itself checked against a brute force in
test_loss.py).

Both are exact, so on every single-head system of ``systems/`` and ``systems/readings/`` the
loss of a configuration and the cost of every legal action there must be equal: random gold
trees and random legal action prefixes (Hypothesis), with the bound's arc reachability table
(``reach.reach_table``), without it, and with the blocked-core term that ``trace`` adds where
``planar.search_pruning`` proves an arc gap.  A table that claims no arc can be built any more is
an inadmissible bound: the comparison must then find a difference, which shows it can.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from strategies import legal_action_sequences
from tsdsl import load_system
from tsdsl.interp import Interpreter
from tsdsl.kernels import compile_system
from tsdsl.kernels.exact_loss import CompiledLossSearch, supports
from tsdsl.verify.loss import LossSearch
from tsdsl.verify.planar import search_pruning
from tsdsl.verify.reach import reach_table
from tsdsl.verify.strategies import trees

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"
SPECS = [p for p in sorted(SYSTEMS.glob("*.ts")) + sorted((SYSTEMS / "readings").glob("*.ts")) if p.stem != "dag"]
IDS = [p.stem if p.parent == SYSTEMS else f"readings/{p.stem}" for p in SPECS]
EXAMPLES = max(10, settings.default.max_examples // 10)
BUDGET = 10 ** 7

_CACHE: dict[Path, tuple] = {}


def loaded(spec: Path):
    """The system, its interpreter and its kernel (built once per spec)."""
    if spec not in _CACHE:
        system = load_system(spec)
        _CACHE[spec] = (system, Interpreter(system), compile_system(system, fallback=False))
    return _CACHE[spec]


def n_tokens(system, n: int) -> int:
    return n + (0 if system.root == "none" else 1)


def same(a: dict, b: dict) -> bool:
    """Equal costs, in the same action order (nan, from inf - inf at a dead end, equals nan)."""
    return list(a) == list(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a.values(), b.values()))


@st.composite
def gold_and_prefix(draw, it: Interpreter):
    heads = draw(trees(min_n=1, max_n=6))
    prefix = draw(legal_action_sequences(it, len(heads), max_steps=draw(st.integers(0, 3 * len(heads) + 4))))
    return heads, prefix


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_compiled_costs_are_the_interpreters(spec):
    system, it, kernel = loaded(spec)
    assert supports(kernel)

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(gold_and_prefix(it))
    def check(data):
        heads, prefix = data
        note(f"gold {heads}, prefix {prefix}")
        c = it.initial(len(heads))
        for a in prefix:
            it.apply(c, a)
        if it.is_terminal(c) or not it.legal(c):
            return
        expected = LossSearch(it, heads).costs(c)
        table = reach_table(system, n_tokens(system, len(heads)))
        if not system.unbounded:
            assert table is not None
        for reach, pruning in ((table, None), (None, None), (table, search_pruning(system, len(heads)))):
            search = CompiledLossSearch(kernel, heads, reach, pruning)
            got = search.costs(prefix, BUDGET)
            assert got is not None and same(got, expected), (reach is not None, pruning, got, expected)
            base, after = search.losses(prefix, BUDGET)  # again, from the memo: the same answer
            assert base == LossSearch(it, heads).loss(c)
            assert same({a: v - base for a, v in after.items()}, expected)
        # the same order to the last tie: the same configurations expanded, so a budget
        # runs out alike
        py = LossSearch(it, heads)
        value = py.loss(c)
        search = CompiledLossSearch(kernel, heads, table)
        assert search.loss(prefix, BUDGET) == value
        if table is not None:
            assert search.expanded == py.expanded

    check()


def test_an_inadmissible_reachability_table_changes_the_costs():
    """The comparison above can fail: a table claiming that no arc can be built any more
    lifts the bound above the loss, and the search then cuts the children holding the best
    output, so some cost differs from the interpreter's."""
    spec = SYSTEMS / "covington-nm.ts"
    system, it, kernel = loaded(spec)
    differ = 0
    for heads in ([2, 0, 2], [3, 3, 0, 3], [2, 0, 4, 2, 4]):
        M, open_right, F, table = reach_table(system, n_tokens(system, len(heads)))
        wrong = (M, open_right, F, table * 0)
        c = it.initial(len(heads))
        prefix: list[str] = []
        while not it.is_terminal(c):
            expected = LossSearch(it, heads).costs(c)
            got = CompiledLossSearch(kernel, heads, wrong).costs(prefix, BUDGET)
            differ += not same(got, expected)
            a = min(expected, key=expected.get)
            it.apply(c, a)
            prefix.append(a)
    assert differ > 0


def test_the_budget_is_reported_and_bad_input_refused():
    """Over its budget the search answers None (the trace then shows `?`); a prefix with an
    action that is not legal where it comes is a ValueError; a multihead spec is refused."""
    system, it, kernel = loaded(SYSTEMS / "attardi.ts")
    heads = [2, 0, 2, 5, 3, 5, 2]
    search = CompiledLossSearch(kernel, heads, reach_table(system, n_tokens(system, len(heads))))
    assert search.costs([], 3) is None and search.expanded == 3
    assert search.costs([], BUDGET) == LossSearch(it, heads).costs(it.initial(len(heads)))
    illegal = next(a for a in kernel.action_names if not it.is_legal(it.initial(len(heads)), a))
    with pytest.raises(ValueError, match="not legal"):
        search.costs([illegal], BUDGET)
    dag = load_system(SYSTEMS / "dag.ts")
    dag_kernel = compile_system(dag, fallback=False)
    assert not supports(dag_kernel)
    with pytest.raises(ValueError, match="single-head"):
        CompiledLossSearch(dag_kernel, [0])


@pytest.mark.parametrize("stem", ["covington-nm", "arc-eager-unshift", "easy-first"])
def test_table1_is_the_same_with_the_compiled_search(stem):
    """check-oracle --table1 measures the same with the kernel's search as with the
    interpreter's, a budget that cuts sentences short included (the walks then go on
    elsewhere, so the averages differ from the unbudgeted ones)."""
    from tsdsl.verify.oracle_check import bounds_table

    system, it, kernel = loaded(SYSTEMS / f"{stem}.ts")
    sentences = [[2, 0, 2, 5, 3, 5, 2], [0, 1, 1, 3], [3, 3, 0, 5, 3, 7, 5, 3], [4, 1, 4, 0, 6, 4],
                 [2, 3, 0, 3, 6, 4, 6, 9, 7, 3, 10, 11]]

    def make(gold):
        return CompiledLossSearch(kernel, gold, reach_table(system, n_tokens(system, len(gold))))

    rows = []
    for budget in (12, 200_000):
        want = bounds_table(system, sentences, configs=60, seed=3, budget=budget)
        got = bounds_table(system, sentences, configs=60, seed=3, budget=budget, exact_loss=make)
        assert want.configurations > 0
        assert got == want
        rows.append(want)
    assert rows[0].average != rows[1].average


def test_the_blocked_core_term_prunes():
    """Where an arc gap is proved (Attardi: G = 1), the blocked-core term cuts configurations
    the reachability bound cannot: fewer are expanded, for the same answers."""
    import random

    from tsdsl.verify.oracle_check import random_tree

    system, it, kernel = loaded(SYSTEMS / "attardi.ts")
    rng = random.Random(5)
    plain_total = pruned_total = 0
    for _ in range(40):
        heads = random_tree(rng, 8, projective=False)
        table = reach_table(system, n_tokens(system, len(heads)))
        assert search_pruning(system, len(heads))["gap"] == 1
        c, prefix = it.initial(len(heads)), []
        for _ in range(rng.randint(0, 10)):
            if it.is_terminal(c) or not it.legal(c):
                break
            a = rng.choice(it.legal(c))
            it.apply(c, a)
            prefix.append(a)
        plain = CompiledLossSearch(kernel, heads, table)
        pruned = CompiledLossSearch(kernel, heads, table, search_pruning(system, len(heads)))
        assert pruned.loss(prefix, BUDGET) == plain.loss(prefix, BUDGET)
        plain_total += plain.expanded
        pruned_total += pruned.expanded
    assert pruned_total < plain_total
