"""`tsdsl check-oracle`: every declared fast oracle against the exact loss by search.

Configurations are drawn by random (not gold) action sequences over random gold
trees, projective and non-projective.  An exact loss formula must equal the
exact loss and give the same zero-cost actions; a declared bound must bracket
the exact loss.  The first mismatches are kept as traces.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Optional, Sequence

from .. import ir
from ..interp import Config, Interpreter
from ..oracle import FastOracle, find_oracle
from ..trace import render_steps, run_trace
from ..treebank.trees import is_projective, is_tree
from .loss import BudgetExceeded, LossSearch
from .space import state_key


@dataclass
class Mismatch:
    loss: str
    gold: list[int]
    actions: list[str]
    exact: float
    fast: int
    exact_zero: list[str]
    fast_zero: list[str]
    trace: str = ""


@dataclass
class OracleReport:
    system: str
    oracle: str
    configurations: int = 0
    skipped_dead: int = 0
    skipped_budget: int = 0
    mismatches: dict[str, int] = field(default_factory=dict)
    examples: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(self.mismatches.values())

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def random_tree(rng: random.Random, n: int, projective: bool) -> tuple[int, ...]:
    """A random single-rooted tree, projective or unrestricted."""
    if projective:
        heads = [0] * n

        def build(lo: int, hi: int, parent: int) -> None:
            if lo > hi:
                return
            h = rng.randint(lo, hi)
            heads[h - 1] = parent
            for a, b in ((lo, h - 1), (h + 1, hi)):
                start = a
                while start <= b:
                    end = rng.randint(start, b)
                    build(start, end, h)
                    start = end + 1

        build(1, n, 0)
        return tuple(heads)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [0] * n
    placed = [order[0]]
    for d in order[1:]:
        heads[d - 1] = rng.choice(placed)
        placed.append(d)
    return tuple(heads)


def check_oracle(system: ir.System, oracle_name: Optional[str] = None, *, configs: int = 1000, min_n: int = 1,
                 max_n: int = 8, seed: int = 0, budget: int = 200_000, keep: int = 3) -> OracleReport:
    """Compare a declared oracle with exact loss on ``configs`` random configurations."""
    t0 = time.time()
    oracle = find_oracle(system, oracle_name)
    it = Interpreter(system)
    rng = random.Random(seed)
    report = OracleReport(system.name, oracle.name, mismatches={l.name: 0 for l in oracle.losses})
    exact_losses = [l for l in oracle.losses if l.bound == "exact"]
    while report.configurations < configs:
        n = rng.randint(min_n, max_n)
        # gold trees of the class the system covers: projective ones for projective systems (where
        # arc decomposition is exact), projective and non-projective ones otherwise
        projective = system.covers in ("projective", "projective-dag") or rng.random() < 0.5
        gold = random_tree(rng, n, projective=projective)
        search = LossSearch(it, gold, budget=budget)
        fast = FastOracle(it, oracle, gold)
        c = it.initial(n)
        seq: list[str] = []
        while report.configurations < configs and not it.is_terminal(c):
            legal = it.legal(c)
            if not legal:
                break
            try:
                _compare(it, c, seq, gold, search, fast, oracle, exact_losses, report, keep)
            except BudgetExceeded:
                report.skipped_budget += 1
                search = LossSearch(it, gold, budget=budget)
            a = rng.choice(legal)
            it.apply(c, a)
            seq.append(a)
    report.seconds = round(time.time() - t0, 2)
    return report


def all_trees(n: int, projective: bool):
    """Every single-rooted tree of ``n`` words (``heads[d-1]`` the head of word ``d``), or
    every projective one."""
    for heads in itertools.product(range(n + 1), repeat=n):
        if heads.count(0) == 1 and all(h != d for d, h in enumerate(heads, 1)) and is_tree(list(heads)) \
                and (not projective or is_projective(list(heads))):
            yield heads


def check_oracle_exhaustive(system: ir.System, oracle_name: Optional[str] = None, *, max_n: int = 4,
                            budget: int = 200_000, keep: int = 3) -> OracleReport:
    """Compare a declared oracle with the exact loss on every configuration reachable from the
    initial one, for every gold tree of 1 to ``max_n`` words of the class the system covers
    (projective trees for a projective system, every tree otherwise)."""
    t0 = time.time()
    oracle = find_oracle(system, oracle_name)
    it = Interpreter(system)
    report = OracleReport(system.name, oracle.name, mismatches={l.name: 0 for l in oracle.losses})
    exact_losses = [l for l in oracle.losses if l.bound == "exact"]
    projective = system.covers in ("projective", "projective-dag")
    for n in range(1, max_n + 1):
        for gold in all_trees(n, projective):
            search = LossSearch(it, gold, budget=budget)
            fast = FastOracle(it, oracle, gold)
            start = it.initial(n)
            seen = {state_key(start)}
            todo: list[tuple[Config, list[str]]] = [(start, [])]
            while todo:
                c, seq = todo.pop()
                if it.is_terminal(c):
                    continue
                try:
                    _compare(it, c, seq, gold, search, fast, oracle, exact_losses, report, keep)
                except BudgetExceeded:
                    report.skipped_budget += 1
                    search = LossSearch(it, gold, budget=budget)
                for a in it.legal(c):
                    child = it.copy(c)
                    it.apply(child, a)
                    key = state_key(child)
                    if key not in seen:
                        seen.add(key)
                        todo.append((child, seq + [a]))
    report.seconds = round(time.time() - t0, 2)
    return report


def _compare(it: Interpreter, c: Config, seq, gold, search: LossSearch, fast: FastOracle, oracle: ir.Oracle,
             exact_losses, report: OracleReport, keep: int) -> None:
    exact = search.loss(c)
    if exact == math.inf:
        report.skipped_dead += 1
        return
    report.configurations += 1
    exact_zero = None
    for l in oracle.losses:
        value = fast.loss(c, l.name)
        bad = False
        fast_zero: list[str] = []
        if l.bound == "exact":
            if value != exact:
                bad = True
            else:
                if exact_zero is None:
                    exact_zero = sorted(search.zero_cost(c))
                fast_zero = sorted(fast.zero_cost(c, l.name))
                bad = fast_zero != exact_zero
        elif l.bound == "lower":
            bad = value > exact
        else:
            bad = value < exact
        if bad:
            report.mismatches[l.name] += 1
            if len(report.examples) < keep:
                if exact_zero is None and l.bound == "exact":
                    exact_zero = sorted(search.zero_cost(c))
                words = [f"w{k}" for k in range(1, len(gold) + 1)]
                steps, _ = run_trace(it, words, list(seq))
                report.examples.append(Mismatch(
                    l.name, list(gold), list(seq), exact, value, exact_zero or [], fast_zero,
                    render_steps(steps, [d.name for d in it.system.lists])))


def render_report(r: OracleReport) -> str:
    lines = [f"{r.system}: oracle {r.oracle}: {r.configurations} configurations "
             f"({r.skipped_dead} dead-end configurations and {r.skipped_budget} over the search budget skipped), "
             f"{r.seconds:.1f} s"]
    for name, count in r.mismatches.items():
        lines.append(f"  loss {name}: {'OK' if count == 0 else f'{count} MISMATCHES'}")
    for m in r.examples:
        lines.append(f"  mismatch ({m.loss}): gold heads {' '.join(map(str, m.gold))}; exact loss {m.exact}, "
                     f"fast {m.fast}; zero-cost exact {m.exact_zero} vs fast {m.fast_zero}")
        lines.append(f"    actions: {' '.join(m.actions) or '(initial configuration)'}")
        lines.extend("    " + t for t in m.trace.splitlines())
    return "\n".join(lines)


@dataclass
class BoundsRow:
    configurations: int
    average: dict[str, float]
    relative_difference: dict[str, float]


def bounds_table(system: ir.System, sentences: Sequence[Sequence[int]], oracle_name: Optional[str] = None, *,
                 configs: int = 1000, seed: int = 0, budget: int = 200_000) -> BoundsRow:
    """Table 1 of Fernández-González & Gómez-Rodríguez (2017): average bounds and exact loss over
    configurations reached by random actions on real sentences, and each bound's relative difference
    to the loss (sum of |bound - loss| over sum of loss)."""
    oracle = find_oracle(system, oracle_name)
    it = Interpreter(system)
    rng = random.Random(seed)
    sums = {l.name: 0.0 for l in oracle.losses}
    diffs = {l.name: 0.0 for l in oracle.losses}
    exact_sum = 0.0
    count = 0
    pool = [tuple(s) for s in sentences if s]
    while count < configs and pool:
        gold = rng.choice(pool)
        search = LossSearch(it, gold, budget=budget)
        fast = FastOracle(it, oracle, gold)
        c = it.initial(len(gold))
        while count < configs and not it.is_terminal(c):
            legal = it.legal(c)
            if not legal:
                break
            try:
                exact = search.loss(c)
            except BudgetExceeded:
                break
            if exact != math.inf:
                count += 1
                exact_sum += exact
                for l in oracle.losses:
                    v = fast.loss(c, l.name)
                    sums[l.name] += v
                    diffs[l.name] += abs(v - exact)
            it.apply(c, rng.choice(legal))
    avg = {k: v / max(count, 1) for k, v in sums.items()}
    avg["exact"] = exact_sum / max(count, 1)
    rel = {k: (v / exact_sum if exact_sum else 0.0) for k, v in diffs.items()}
    return BoundsRow(count, avg, rel)
