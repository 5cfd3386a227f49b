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
from typing import Any, Callable, Optional, Sequence

from .. import ir
from ..errors import UsageError
from ..interp import Config, Interpreter
from ..oracle import FastOracle, find_oracle
from ..trace import render_steps, run_trace
from ..treebank.trees import is_projective, is_tree
from .loss import BudgetExceeded, LossSearch
from .space import state_key

ATTEMPTS_PER_CONFIG = 10
"""A random check stops after this many attempts (configurations compared or skipped) per
configuration asked for: configurations from which no output is reachable (dead ends) or whose
search runs over the budget are skipped, and a spec made of them must still end the check."""
GIVE_UP_AFTER = 50
"""...and after this many attempts when not one of them could be compared (every configuration
sampled is a dead end or over the budget): the spec cannot derive the trees, and more samples
would only cost time."""
NOTHING_CHECKABLE = ("no sampled configuration can still reach its gold tree: the spec cannot derive these "
                     "trees (see `tsdsl verify`)")
"""What a check that compared no configuration says, in the report and in training's notes."""


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
    bound: str = "exact"      # the loss formula's kind: exact, lower or upper


@dataclass
class OracleReport:
    system: str
    oracle: str
    configurations: int = 0
    skipped_dead: int = 0
    skipped_budget: int = 0
    asked: int = 0            # configurations asked for (0: every reachable one, exhaustive check)
    mismatches: dict[str, int] = field(default_factory=dict)
    examples: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    bounds: dict[str, str] = field(default_factory=dict)  # loss name -> exact, lower or upper: what was checked

    @property
    def attempts(self) -> int:
        """Configurations compared or skipped so far (what bounds a random check)."""
        return self.configurations + self.skipped_dead + self.skipped_budget

    @property
    def checked(self) -> bool:
        """Whether any configuration was compared: a check of none says nothing about the oracle."""
        return self.configurations > 0

    @property
    def ok(self) -> bool:
        """No mismatch, on at least one configuration compared."""
        return self.checked and not any(self.mismatches.values())

    def shortfall(self) -> str:
        """Why fewer configurations were compared than asked for ("" when none is missing)."""
        if not self.checked:
            return NOTHING_CHECKABLE
        if self.asked and self.configurations < self.asked:
            return (f"only {self.configurations} of the {self.asked} configurations asked for could be compared: "
                    f"the others sampled were dead ends or over the search budget (stopped after "
                    f"{self.attempts} attempts)")
        return ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        d["checked"] = self.checked
        d["shortfall"] = self.shortfall()
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
    """Compare a declared oracle with exact loss on ``configs`` random configurations.

    Bounded however the spec behaves: at most :data:`ATTEMPTS_PER_CONFIG` attempts per
    configuration asked for, :data:`GIVE_UP_AFTER` when none is comparable, and a walk ends at
    its first dead end (every configuration after one is a dead end too), so a spec that
    cannot derive the trees ends the check with a report saying so (:meth:`OracleReport.shortfall`)."""
    if configs < 1 or not 1 <= min_n <= max_n:
        raise UsageError(f"configs must be at least 1 and 1 <= min_n <= max_n, not configs={configs}, "
                         f"min_n={min_n}, max_n={max_n}")
    t0 = time.time()
    oracle = find_oracle(system, oracle_name)
    it = Interpreter(system)
    rng = random.Random(seed)
    report = OracleReport(system.name, oracle.name, asked=configs, mismatches={l.name: 0 for l in oracle.losses},
                          bounds={l.name: l.bound for l in oracle.losses})
    exact_losses = [l for l in oracle.losses if l.bound == "exact"]
    dead_start: set[int] = set()  # lengths whose initial configuration is a dead end (whatever the gold tree)
    over_start: set[int] = set()  # lengths whose initial configuration's search ran over the budget
    while report.configurations < configs and not _give_up(report, configs):
        n = rng.randint(min_n, max_n)
        # gold trees of the class the system covers: projective ones for projective systems (where
        # arc decomposition is exact), projective and non-projective ones otherwise
        projective = system.covers in ("projective", "projective-dag") or rng.random() < 0.5
        gold = random_tree(rng, n, projective=projective)
        if n in dead_start:
            report.skipped_dead += 1  # no output is reachable: known without a new search
            continue
        if n in over_start and not report.checked:
            report.skipped_budget += 1  # while nothing compares, one search over the budget per length
            continue
        search = LossSearch(it, gold, budget=budget)
        start = _start_state(it, search, n, report)
        if start == "dead":
            dead_start.add(n)
            continue
        if start == "over":
            over_start.add(n)
            if not report.checked:
                continue
            search = LossSearch(it, gold, budget=budget)
        fast = FastOracle(it, oracle, gold)
        c = it.initial(n)
        seq: list[str] = []
        while report.configurations < configs and not it.is_terminal(c) and not _give_up(report, configs):
            legal = it.legal(c)
            if not legal:
                break
            try:
                if not _compare(it, c, seq, gold, search, fast, oracle, exact_losses, report, keep):
                    break  # a dead end: so is every configuration after it
            except BudgetExceeded:
                report.skipped_budget += 1
                search = LossSearch(it, gold, budget=budget)
            a = rng.choice(legal)
            it.apply(c, a)
            seq.append(a)
    report.seconds = round(time.time() - t0, 2)
    return report


def _start_state(it: Interpreter, search: LossSearch, n: int, report: OracleReport) -> str:
    """``"dead"`` when no output is reachable from the initial configuration of ``n`` words
    (counted as skipped; it holds for every gold tree of ``n`` words, so a check sampling a
    dead-end spec searches each length once, not once a tree), ``"over"`` when that search
    runs over the budget (counted), else ``"ok"``."""
    try:
        dead = search.loss(it.initial(n)) == math.inf
    except BudgetExceeded:
        report.skipped_budget += 1
        return "over"
    if dead:
        report.skipped_dead += 1
    return "dead" if dead else "ok"


def _give_up(report: OracleReport, configs: int) -> bool:
    """Whether a random check has spent its attempts (see :data:`ATTEMPTS_PER_CONFIG`)."""
    if report.attempts >= ATTEMPTS_PER_CONFIG * max(configs, 1):
        return True
    return not report.checked and report.attempts >= GIVE_UP_AFTER


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
    report = OracleReport(system.name, oracle.name, mismatches={l.name: 0 for l in oracle.losses},
                          bounds={l.name: l.bound for l in oracle.losses})
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
             exact_losses, report: OracleReport, keep: int) -> bool:
    """Compare the oracle with the exact loss at ``c`` and record the result in ``report``;
    False (and counted as skipped) when ``c`` is a dead end, whose loss is infinite."""
    exact = search.loss(c)
    if exact == math.inf:
        report.skipped_dead += 1
        return False
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
                    render_steps(steps, [d.name for d in it.system.lists]), l.bound))
    return True


CHECKED = {
    "exact": ("exact", "equals the exact loss, with the same zero-cost actions",
              "a different value or different zero-cost actions"),
    "lower": ("lower bound", "never above the exact loss", "above the exact loss"),
    "upper": ("upper bound", "never below the exact loss", "below the exact loss"),
}
"""Per kind of loss formula: its name, what check-oracle found when it holds, and when not."""


def loss_text(value: float) -> str:
    """A loss as printed: ``5``, not ``5.0`` (the exact search counts in floats, to hold ``inf``:
    no terminal configuration is reachable)."""
    if math.isinf(value):
        return "inf"
    return str(int(value)) if value == int(value) else str(value)


def render_report(r: OracleReport) -> str:
    lines = [f"{r.system}: oracle {r.oracle}: {r.configurations} configurations "
             f"({r.skipped_dead} dead-end configurations and {r.skipped_budget} over the search budget skipped), "
             f"{r.seconds:.1f} s"]
    for name, count in r.mismatches.items():
        kind, holds, fails = CHECKED[r.bounds.get(name, "exact")]
        verdict = ("not checked" if not r.checked else f"OK, {holds}" if count == 0
                   else f"{count} MISMATCHES, {fails}")
        lines.append(f'  loss "{name}" (declared {kind}): {verdict}')
    for m in r.examples:
        if m.bound == "exact":
            detail = (f"exact loss {loss_text(m.exact)}, fast {m.fast}; zero-cost exact {m.exact_zero} vs fast "
                      f"{m.fast_zero}")
        else:
            detail = f"exact loss {loss_text(m.exact)}, {CHECKED[m.bound][0]} {m.fast} ({CHECKED[m.bound][2]})"
        lines.append(f"  mismatch ({m.loss}): gold heads {' '.join(map(str, m.gold))}; {detail}")
        lines.append(f"    actions: {' '.join(m.actions) or '(initial configuration)'}")
        lines.extend("    " + t for t in m.trace.splitlines())
    if r.shortfall():
        lines.append(f"  {'NOT CHECKED' if not r.checked else 'note'}: {r.shortfall()}")
    return "\n".join(lines)


@dataclass
class BoundsRow:
    """``bounds_table``'s measurement: per loss (and ``exact``) its average over the
    configurations measured, and each bound's relative difference to the exact loss; both
    empty when no configuration could be measured."""

    configurations: int
    average: dict[str, float]
    relative_difference: dict[str, float]


def bounds_table(system: ir.System, sentences: Sequence[Sequence[int]], oracle_name: Optional[str] = None, *,
                 configs: int = 1000, seed: int = 0, budget: int = 200_000,
                 exact_loss: Optional[Callable[[Sequence[int]], Any]] = None) -> BoundsRow:
    """Table 1 of Fernández-González & Gómez-Rodríguez (2017): average bounds and exact loss over
    configurations reached by random actions on real sentences, and each bound's relative difference
    to the loss (sum of |bound - loss| over sum of loss).  ``exact_loss(gold)``: a search with
    ``loss(prefix, budget)`` (the action names that reach a configuration; None over the
    budget) and ``expanded``, such as the kernel's (``tsdsl.kernels.exact_loss``); default
    the interpreter's LossSearch.  Either way ``budget`` counts per sentence, and the
    measurement is the same."""
    oracle = find_oracle(system, oracle_name)
    it = Interpreter(system)
    rng = random.Random(seed)
    sums = {l.name: 0.0 for l in oracle.losses}
    diffs = {l.name: 0.0 for l in oracle.losses}
    exact_sum = 0.0
    count = attempts = 0
    pool = [tuple(s) for s in sentences if s]
    # bounded like check_oracle: dead ends and searches over the budget count as attempts
    limit = ATTEMPTS_PER_CONFIG * max(configs, 1)
    while count < configs and pool and attempts < limit and (count or attempts < GIVE_UP_AFTER):
        gold = rng.choice(pool)
        search = LossSearch(it, gold, budget=budget) if exact_loss is None else None
        compiled = exact_loss(gold) if exact_loss is not None else None
        used = 0
        prefix: list[str] = []
        fast = FastOracle(it, oracle, gold)
        c = it.initial(len(gold))
        while count < configs and not it.is_terminal(c):
            legal = it.legal(c)
            if not legal:
                break
            attempts += 1
            if compiled is not None:
                found = compiled.loss(prefix, budget - used)
                used += compiled.expanded
                if found is None:
                    break
                exact = found
            else:
                try:
                    exact = search.loss(c)
                except BudgetExceeded:
                    break
            if exact == math.inf:
                break  # a dead end: so is every configuration after it
            count += 1
            exact_sum += exact
            for l in oracle.losses:
                v = fast.loss(c, l.name)
                sums[l.name] += v
                diffs[l.name] += abs(v - exact)
            a = rng.choice(legal)
            it.apply(c, a)
            prefix.append(a)
    if not count:  # every configuration reached was a dead end or over the budget: nothing measured
        return BoundsRow(0, {}, {})
    avg = {k: v / count for k, v in sums.items()}
    avg["exact"] = exact_sum / count
    rel = {k: (v / exact_sum if exact_sum else 0.0) for k, v in diffs.items()}
    return BoundsRow(count, avg, rel)
