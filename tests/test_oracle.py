"""Fast oracles declared in specs (tsdsl.oracle.FastOracle) and `tsdsl trace --gold --costs`.

The cost tables are in the style of spaCy's arc-eager oracle tests: a sentence,
a gold tree, and at each step the cost of every legal action, worked out by hand
from Goldberg & Nivre (2012): in arc-eager a gold arc (h, d) missing from the
configuration is lost when it can no longer be built, and an action's cost is the
number of gold arcs it loses.

    SHIFT b      loses (k, b) and (b, k) for k on the stack (b's head or headless
                 dependents there; b can never meet them again);
    RIGHT-ARC s->b  loses b's other gold head (in σ or β) and b's gold dependents
                 left on the stack;
    LEFT-ARC b->s   loses s's gold head (if not b) and s's dependents in β;
    REDUCE s     loses s's gold dependents in β.

"Book the flight through Houston", gold heads 0 3 1 5 3 (SLP3 Fig. 18.2):
root -> Book, Book -> flight, flight -> the, flight -> Houston, Houston -> through.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.cli import main
from tsdsl.errors import OracleError
from tsdsl.interp import Interpreter
from tsdsl.oracle import FastOracle, find_oracle
from tsdsl.verify.loss import LossSearch

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"

BOOK = """\
# text = Book the flight through Houston
1\tBook\tbook\tVERB\t_\t_\t0\troot\t_\t_
2\tthe\tthe\tDET\t_\t_\t3\tdet\t_\t_
3\tflight\tflight\tNOUN\t_\t_\t1\tobj\t_\t_
4\tthrough\tthrough\tADP\t_\t_\t5\tcase\t_\t_
5\tHouston\tHouston\tPROPN\t_\t_\t3\tnmod\t_\t_

"""
BOOK_GOLD = (0, 3, 1, 5, 3)

# Gold derivation of arc-eager (root left, terminal once the buffer is empty) with the
# cost of every legal action at each step.  LEFT-ARC is illegal on the root or on a
# word with a head, REDUCE on a word without one.
BOOK_TABLE = [
    # σ = [root], β = [Book the flight through Houston]
    ("RIGHT-ARC", {"SHIFT": 1,      # Book on the stack: root -> Book lost
                   "RIGHT-ARC": 0}),
    # σ = [root Book], β = [the flight through Houston]
    ("SHIFT", {"SHIFT": 0,          # the's head flight is in β, it has no dependents
               "RIGHT-ARC": 1,      # Book -> the: flight -> the lost
               "REDUCE": 1}),       # Book leaves: Book -> flight lost
    # σ = [root Book the], β = [flight through Houston]
    ("LEFT-ARC", {"SHIFT": 2,       # flight meets neither Book (its head) nor the (its dependent)
                  "LEFT-ARC": 0,    # flight -> the
                  "RIGHT-ARC": 2}), # the -> flight: Book -> flight and flight -> the lost
    # σ = [root Book], β = [flight through Houston]
    ("RIGHT-ARC", {"SHIFT": 1,      # Book -> flight lost
                   "RIGHT-ARC": 0,  # Book -> flight
                   "REDUCE": 1}),   # Book -> flight lost
    # σ = [root Book flight], β = [through Houston]
    ("SHIFT", {"SHIFT": 0,          # through's head Houston is in β
               "RIGHT-ARC": 1,      # flight -> through: Houston -> through lost
               "REDUCE": 1}),       # flight -> Houston lost
    # σ = [root Book flight through], β = [Houston]
    ("LEFT-ARC", {"SHIFT": 2,       # flight -> Houston and Houston -> through lost
                  "LEFT-ARC": 0,    # Houston -> through
                  "RIGHT-ARC": 2}), # through -> Houston: the same two lost
    # σ = [root Book flight], β = [Houston]
    ("RIGHT-ARC", {"SHIFT": 1,      # flight -> Houston lost
                   "RIGHT-ARC": 0,  # flight -> Houston
                   "REDUCE": 1}),   # flight -> Houston lost
]


def arc_eager():
    return Interpreter(load_system(SYSTEMS / "arc-eager.ts"))


def test_book_cost_table_fast_oracle_and_exact_search():
    it = arc_eager()
    fast = FastOracle(it, "goldberg_nivre_2012", BOOK_GOLD)
    search = LossSearch(it, BOOK_GOLD)
    c = it.initial(5)
    for step, (action, costs) in enumerate(BOOK_TABLE):
        assert set(it.legal(c)) == set(costs), step
        assert fast.costs(c) == costs, step
        assert {a: int(v) for a, v in search.costs(c).items()} == costs, step
        assert fast.zero_cost(c) == [action], step
        assert fast.loss(c) == search.loss(c) == 0, step
        it.apply(c, action)
    assert it.is_terminal(c)
    assert it.output(c).heads == BOOK_GOLD


def test_book_off_gold_costs():
    """After a wrong SHIFT (root -> Book lost), and two more (Book -> flight and flight ->
    the lost: Book, the and flight are all on the stack)."""
    it = arc_eager()
    fast = FastOracle(it, find_oracle(it.system), BOOK_GOLD)
    c = it.initial(5)
    it.apply(c, "SHIFT")
    assert fast.unreachable(c) == [(0, 1)]
    assert fast.loss(c) == 1
    # SHIFT the: 0; LEFT-ARC the -> Book: Book -> flight lost; RIGHT-ARC Book -> the: flight -> the lost
    assert fast.costs(c) == {"SHIFT": 0, "LEFT-ARC": 1, "RIGHT-ARC": 1}
    it.apply(c, "SHIFT")
    it.apply(c, "SHIFT")
    assert sorted(fast.unreachable(c)) == [(0, 1), (1, 3), (3, 2)]
    assert fast.loss(c) == LossSearch(it, BOOK_GOLD).loss(c) == 3
    # σ = [root Book the flight], β = [through Houston]: SHIFT through 0; LEFT-ARC
    # through -> flight loses flight -> Houston; RIGHT-ARC flight -> through loses Houston -> through
    assert fast.costs(c) == {"SHIFT": 0, "LEFT-ARC": 1, "RIGHT-ARC": 1}


def test_arc_hybrid_costs_on_book():
    """Goldberg & Nivre 2013 for arc-hybrid, O = [.. s1, s0, b0], root on the right."""
    it = Interpreter(load_system(SYSTEMS / "arc-hybrid.ts"))
    fast = FastOracle(it, find_oracle(it.system), BOOK_GOLD)
    search = LossSearch(it, BOOK_GOLD)
    c = it.initial(5)
    seen = 0
    while not it.is_terminal(c):
        costs = fast.costs(c)
        assert costs == {a: int(v) for a, v in search.costs(c).items()}
        zero = [a for a, v in costs.items() if v == 0]
        it.apply(c, zero[0])
        seen += 1
    assert it.output(c).heads == BOOK_GOLD
    assert seen == 10  # 2n: every word shifted once and reduced once


# ---- FastOracle API ----------------------------------------------------------------------


def test_find_oracle_errors():
    system = load_system(SYSTEMS / "attardi.ts")
    with pytest.raises(OracleError, match="declares no fast oracle .*`tsdsl derive-oracle .*attardi.ts`"):
        find_oracle(system)
    eager = load_system(SYSTEMS / "arc-eager.ts")
    assert find_oracle(eager).name == "goldberg_nivre_2012"
    with pytest.raises(OracleError, match="has no oracle 'nope'; it declares goldberg_nivre_2012"):
        find_oracle(eager, "nope")
    with pytest.raises(OracleError, match="has no loss 'upper'"):
        FastOracle(Interpreter(eager), "goldberg_nivre_2012", BOOK_GOLD).loss(Interpreter(eager).initial(5), "upper")


def test_covington_nm_three_losses_bracket():
    """The three losses of Algorithm 2 on one configuration: lower <= exact <= pc_upper <= upper.

    Gold 2 0 6 6 3 1 after w2 -> w1, w3 -> w2.  The exact loss is 0: ... w6 -> w3,
    then RIGHT-ARC w2 -> w6 closes the cycle 2 -> 6 -> 3 -> 2 and removes w3 -> w2, and
    RIGHT-ARC w1 -> w6 replaces w2 -> w6, leaving w2 headless (the root).  The upper
    bounds count w2's wrong head as lost and the cycle 1 -> 6 -> 3 -> 2 -> 1 (problematic:
    breaking it at its last arc 1 -> 6 removes the gold 2 -> 1), so both say 2.
    """
    it = Interpreter(load_system(SYSTEMS / "covington-nm.ts"))
    gold = (2, 0, 6, 6, 3, 1)
    fast = FastOracle(it, find_oracle(it.system), gold)
    c = it.initial(6)
    for a in ["SHIFT", "LEFT-ARC", "SHIFT", "LEFT-ARC"]:  # w2 -> w1, w3 -> w2
        it.apply(c, a)
    lower, pc, upper = (fast.loss(c, name) for name in ("lower", "pc_upper", "upper"))
    exact = LossSearch(it, gold).loss(c)
    assert lower <= exact <= pc <= upper
    assert (lower, exact, pc, upper) == (0, 0, 2, 2)
    assert fast.unreachable(c, "lower") == [] and fast.unreachable(c, "upper") == [(-1, 2)]


def test_covington_cycle_term():
    """Covington (monotonic): gold 2 0 6 6 3 1 after w2 -> w1, w3 -> w2: w2's gold arc
    (root) is lost since w2 has a head, and the gold arcs still reachable close the
    cycle 1 -> 6 -> 3 -> 2 -> 1 with the built ones, so one more is lost."""
    it = Interpreter(load_system(SYSTEMS / "covington.ts"))
    gold = (2, 0, 6, 6, 3, 1)
    fast = FastOracle(it, find_oracle(it.system), gold)
    c = it.initial(6)
    for a in ["SHIFT", "LEFT-ARC", "SHIFT", "LEFT-ARC"]:
        it.apply(c, a)
    assert fast.unreachable(c) == [(-1, 2)]
    assert fast._cycles(c, fast.unreachable(c)) == [[1, 6, 3, 2]]
    assert fast.loss(c) == LossSearch(it, gold).loss(c) == 2


def test_honnibal_johnson_penalties():
    """arc-eager-unshift, gold 0 3 1: after SHIFT, RIGHT-ARC (w1 -> w2, but w2's gold
    head w3 is in the buffer) REDUCE is penalised; LEFT-ARC of a headless word whose
    gold head is on the stack is penalised."""
    it = Interpreter(load_system(SYSTEMS / "arc-eager-unshift.ts"))
    fast = FastOracle(it, find_oracle(it.system), (0, 3, 1))
    c = it.initial(3)
    it.apply(c, "SHIFT")
    it.apply(c, "RIGHT-ARC")
    assert {a: fast.penalty(c, a) for a in it.legal(c)} == {"SHIFT": 0, "RIGHT-ARC": 0, "REDUCE": 1, "LEFT-ARC": 0}
    # REDUCE loses 3 -> 2 (w2 leaves every list); a penalised move costs at least 1 (not
    # loss change + 1), so the fast cost agrees with the exact one
    assert fast.costs(c)["REDUCE"] == 1
    assert LossSearch(it, (0, 3, 1)).costs(c)["REDUCE"] == 1
    fast2 = FastOracle(it, find_oracle(it.system), (2, 0, 2))
    c = it.initial(3)
    it.apply(c, "SHIFT")
    it.apply(c, "SHIFT")  # σ = [w1 w2]: w2 headless, gold head of w2 is the root
    assert fast2.penalty(c, "LEFT-ARC") == 0
    fast3 = FastOracle(it, find_oracle(it.system), (0, 1, 1))
    assert fast3.penalty(c, "LEFT-ARC") == 1  # w2's gold head w1 is on the stack


# ---- CLI: trace --gold --costs ----------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cost_rows(out: str) -> list[tuple[str, dict[str, int]]]:
    """(action, costs) of every row of a `trace --costs` table."""
    rows = []
    for line in out.splitlines()[1:]:
        costs = dict((a, int(v)) for a, v in re.findall(r"([A-Z][A-Z-]*)=(-?\d+)", line))
        if costs:
            action = next(w for w in line.split() if w in costs)
            rows.append((action, costs))
    return rows


@pytest.fixture
def book(tmp_path) -> Path:
    p = tmp_path / "book.conllu"
    p.write_text(BOOK, encoding="utf-8")
    return p


def test_cli_trace_gold_costs_arc_eager(capsys, book):
    code, out, err = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--gold", str(book), "--costs")
    assert code == 0, err
    assert out.splitlines()[0].split()[-1] == "costs"
    assert cost_rows(out) == BOOK_TABLE
    for arc in ("root -> Book", "flight -> the", "Book -> flight", "Houston -> through", "flight -> Houston"):
        assert arc in out
    assert "(terminal)" in out
    assert out.rstrip().endswith("oracle: fast oracle goldberg_nivre_2012; 0 of 5 heads differ from gold")


def test_cli_trace_gold_without_costs(capsys, book):
    code, out, _ = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--gold", str(book))
    assert code == 0
    assert "costs" not in out.splitlines()[0]
    assert out.splitlines()[1].split()[-3:] == ["root", "->", "Book"]
    assert "0 of 5 heads differ" in out


def test_cli_trace_gold_exact_search_without_oracle(capsys, book):
    """arc-standard-slp declares no oracle: the costs come from exact loss search."""
    code, out, err = run(capsys, "trace", str(SYSTEMS / "arc-standard-slp.ts"), "--gold", str(book), "--costs")
    assert code == 0, err
    assert "oracle: canonical derivation (static, by search); costs: exact loss search; 0 of 5 heads differ from gold" in out
    rows = cost_rows(out)
    assert len(rows) == 10  # 2n: arc-standard-slp ends with only the root, so root -> Book is an arc
    assert all(costs[action] == 0 for action, costs in rows)
    # first step: σ = [root], β = [Book ...]: only SHIFT is legal
    assert rows[0] == ("SHIFT", {"SHIFT": 0})


def test_cli_trace_gold_second_sentence(capsys, tmp_path):
    p = tmp_path / "two.conllu"
    p.write_text(BOOK + "1\ta\t_\t_\t_\t_\t2\t_\t_\t_\n2\tb\t_\t_\t_\t_\t0\t_\t_\t_\n\n", encoding="utf-8")
    code, out, _ = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--gold", str(p), "--sentence", "2", "--costs")
    assert code == 0
    # [root] [a b]: RIGHT-ARC root -> a loses b -> a.  [root a] [b] (REDUCE illegal, a is
    # headless): SHIFT b and RIGHT-ARC a -> b both lose root -> b and b -> a.
    # [root] [b]: SHIFT loses root -> b.
    assert cost_rows(out) == [("SHIFT", {"SHIFT": 0, "RIGHT-ARC": 1}),
                              ("LEFT-ARC", {"SHIFT": 2, "LEFT-ARC": 0, "RIGHT-ARC": 2}),
                              ("RIGHT-ARC", {"SHIFT": 1, "RIGHT-ARC": 0})]
    code, out, err = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--gold", str(p), "--sentence", "3")
    assert code != 0
    assert "--sentence must be between 1 and 2" in err
