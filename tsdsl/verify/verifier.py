"""`tsdsl verify`: soundness, completeness, progress and termination of a system.

Exhaustive for every sentence length up to ``max_n`` (all configurations, all
trees of the class), then Hypothesis-driven up to ``random_max_n`` (random
trees of the class must be derivable; random derivations must end in a
well-formed output without dead ends).  Every failure carries the smallest
counterexample found, rendered as a trace.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Optional

from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis import strategies as st

from .. import ir
from ..interp import Config, Interpreter
from ..trace import render_steps, run_trace
from .shared_classes import actions_of_length, shared_classes
from .classes import dag_problem, tree_problem
from .coverage import DERIVABLE, UNDECIDED, VERIFY_COMPILED_FACTOR, compiled_search
from .exhaustive import size_facts
from .loss import BudgetExceeded, find_derivation, static_oracle, LossSearch
from .space import SpaceTooLarge
from .strategies import class_trees_strategy

PROPERTIES = ("soundness", "completeness", "progress", "termination")


@dataclass
class Counterexample:
    """The smallest failing case found: sentence length, gold tree, actions, trace."""

    n: int
    actions: list[str]
    gold: Optional[list[int]] = None
    output: Optional[list] = None
    note: str = ""
    trace: str = ""


@dataclass
class PropertyResult:
    """One property's verdict and what it rests on.

    ``basis`` (None when skipped): ``exhaustive_n``, the sentence length up to which every
    configuration (and every tree of the class) was checked (-1: none); ``random``, the
    random check beyond it or None (``examples`` cases drawn for lengths ``n`` = [lo, hi],
    and for completeness ``undecided``, the trees whose search ran out of budget; for
    termination ``step_limit``, the actions a random derivation may take); ``proved``, always
    False: no property is proved for every sentence length.  ``skipped``: why the property was
    not checked (``holds`` is then None)."""

    name: str
    holds: Optional[bool]  # None: not decided (limits reached), or skipped
    detail: str = ""
    counterexample: Optional[Counterexample] = None
    basis: Optional[dict] = None
    skipped: Optional[str] = None

    @property
    def status(self) -> str:
        """holds, fails, undecided or skipped."""
        if self.skipped is not None:
            return "skipped"
        return {True: "holds", False: "fails", None: "undecided"}[self.holds]


@dataclass
class SizeStats:
    n: int
    configurations: int
    terminals: int
    dead_ends: int
    class_trees: int
    derivable_class_trees: int
    longest: Optional[int]


@dataclass
class Verdict:
    system: str
    file: str
    produces: str
    covers: str
    max_n: int
    exhaustive_up_to: int
    sizes: list[SizeStats] = field(default_factory=list)
    properties: dict[str, PropertyResult] = field(default_factory=dict)
    longest_ratio: Optional[float] = None  # the largest measured longest derivation / n (a measurement)
    longest_fit: Optional[dict] = None  # {"formula": "2n", "n": [lo, hi]}: fits the measured lengths lo..hi
    random_examples: int = 0  # random cases of both checks together: random_trees + random_derivations
    random_trees: int = 0  # random trees of the class searched for (completeness)
    random_derivations: int = 0  # random derivations walked (soundness, progress, termination)
    random_undecided: int = 0
    random_max_n: int = 0
    seconds: float = 0.0
    kernel_build_seconds: float = 0.0  # building the compiled kernel first (the caller's), not in seconds
    shared_classes: list = field(default_factory=list)  # classes with several members (see shared_classes)
    class_clash: Optional[Counterexample] = None  # two members of one class legal together: the spec fails
    never_applied: list = field(default_factory=list)  # actions (families) no configuration up to n applies

    @property
    def ok(self) -> bool:
        return all(p.holds is not False for p in self.properties.values()) and self.class_clash is None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        for p, r in self.properties.items():
            d["properties"][p]["status"] = r.status
        return d


def _root_pos(system: ir.System, n: int) -> int:
    return n + 1 if system.root == "right" else 0


def output_problem(it: Interpreter, c: Config) -> Optional[str]:
    """Why the output of terminal ``c`` is not in the class the system produces."""
    s = it.system
    tree = it.output(c)
    if s.produces == "any":
        return None
    if tree.arcs is not None or s.produces in ("dag", "projective-dag"):
        arcs = tree.arcs if tree.arcs is not None else frozenset(
            (h, d, None) for d, h in enumerate(tree.heads, 1) if h is not None)
        return dag_problem(arcs, c.n, s.produces, _root_pos(s, c.n))
    return tree_problem(tree.heads, s.produces, _root_pos(s, c.n))


def _trace_text(it: Interpreter, n: int, actions: list[str]) -> str:
    words = [f"w{k}" for k in range(1, n + 1)]
    try:
        steps, final = run_trace(it, words, actions)
    except Exception as exc:  # the trace is an illustration; report what happened
        return f"(trace failed: {exc})"
    return render_steps(steps, [d.name for d in it.system.lists], terminal=it.is_terminal(final))


STATE_LIMIT = 6_000_000
"""Configurations one sentence length may have in the compiled exploration: enough for n = 7
of every shipped spec (the largest, arc-standard + SWAP, has 4.8 million there and peaks
at 0.63 GB; dag.ts 3.5 million)."""

INTERPRETED_STATE_LIMIT = 2_000_000
"""The same in the interpreter, whose configurations are Python objects (about 1 kB each)."""


def verify_system(system: ir.System, *, max_n: int = 7, random_max_n: int = 30, examples: int = 100,
                  state_limit: Optional[int] = None, search_budget: int = 20_000, seed: int = 0,
                  compiled=None) -> Verdict:
    """Check the four properties; see the module docstring.

    Args:
        max_n: exhaustive up to this many words.
        random_max_n: random checks on sentences of max_n+1 .. random_max_n words.
        examples: Hypothesis examples per random check (0 disables them).
        state_limit: stop exhaustive exploration of one length beyond this many configurations
            (None: ``STATE_LIMIT`` compiled, ``INTERPRETED_STATE_LIMIT`` in the interpreter).
        search_budget: configurations a derivation search may expand before "undecided"
            (the compiled search gets 100 times as many: it is that much faster).
        compiled: the system's compiled kernel (``tsdsl.kernels.compile_system(system)``):
            exhaustive exploration and the random derivation searches then run in compiled
            code.  Without it everything runs in the interpreter (same verdicts, slower).
    """
    t0 = time.time()
    if state_limit is None:
        state_limit = STATE_LIMIT if compiled is not None else INTERPRETED_STATE_LIMIT
    it = Interpreter(system)
    v = Verdict(system.name, system.source_file, system.produces, system.covers, max_n, -1,
                random_max_n=random_max_n)
    found: dict[str, Optional[Counterexample]] = {p: None for p in PROPERTIES}
    ratios = []
    applied: set[str] = set()
    v.shared_classes = sorted({c for c in shared_classes(system, max(max_n, 1)).values()})
    for n in range(0, max_n + 1):
        try:
            f = size_facts(it, n, limit=state_limit, compiled=compiled)
        except SpaceTooLarge:
            break
        v.exhaustive_up_to = n
        if f.unsound is not None and found["soundness"] is None:
            seq, output, note = f.unsound
            found["soundness"] = Counterexample(n, seq, output=output, note=note, trace=_trace_text(it, n, seq))
        if f.dead_end is not None and found["progress"] is None:
            found["progress"] = Counterexample(n, f.dead_end, note="no legal action in a non-terminal configuration",
                                               trace=_trace_text(it, n, f.dead_end))
        if f.missing is not None and found["completeness"] is None:
            found["completeness"] = _completeness_counterexample(it, n, f.missing, search_budget)
        if f.cycle is not None:
            if found["termination"] is None:
                seq, loop = f.cycle
                found["termination"] = Counterexample(
                    n, seq + loop, note=f"the configuration after {len(seq)} actions repeats after "
                                        f"{' '.join(loop)}", trace=_trace_text(it, n, seq + loop))
        elif n > 0:
            ratios.append(f.longest / n)
        applied |= f.applied
        if f.class_clash is not None and v.class_clash is None:
            clash = f.class_clash
            v.class_clash = Counterexample(n, list(clash.actions), note=clash.describe(),
                                           trace=_trace_text(it, n, list(clash.actions)))
        v.sizes.append(SizeStats(n, f.configurations, f.terminals, f.dead_ends, f.class_trees,
                                 f.derivable_class_trees, f.longest))
    if ratios:
        v.longest_ratio = max(ratios)
    if v.exhaustive_up_to >= 1:
        names = [a.family or a.name for a in actions_of_length(system, v.exhaustive_up_to)]
        v.never_applied = [a for a in dict.fromkeys(names) if a not in applied]
    if examples > 0 and random_max_n > max(v.exhaustive_up_to, 0):
        _random_checks(it, v, found, max(v.exhaustive_up_to + 1, 1), random_max_n, examples, search_budget, seed,
                       compiled)
    v.longest_fit = longest_fit(v.sizes)
    for p in PROPERTIES:
        v.properties[p] = _result(p, v, found[p])
    v.seconds = round(time.time() - t0, 2)
    return v


def _completeness_counterexample(it: Interpreter, n: int, gold: tuple, budget: int) -> Counterexample:
    """The missing tree, with the derivation of the closest reachable output when the search finds it."""
    note = "no derivation yields this tree"
    seq: list[str] = []
    try:
        best = static_oracle(it, gold, budget=budget * 10)
    except BudgetExceeded:
        best = None
    if best is not None:
        seq = best
        loss = LossSearch(it, gold).loss(it.initial(n))
        note += f"; the closest reachable output misses {int(loss)} arc(s), derived by the actions shown"
    return Counterexample(n, seq, gold=list(gold), note=note, trace=_trace_text(it, n, seq) if seq else "")


CLASS_TEXT = {"projective": "a projective tree", "nonprojective": "a tree (crossing arcs allowed)",
              "dag": "a DAG", "projective-dag": "a projective DAG", "any": "anything"}


SKIPPED_CLASS = {"soundness": "the spec produces any: there is no class to check the outputs against",
                 "completeness": "the spec covers any: it names no class of trees that must be derivable"}
"""Why a property is not checked, for a spec whose class (``produces``, ``covers``) is ``any``."""


def _result(p: str, v: Verdict, cx: Optional[Counterexample]) -> PropertyResult:
    """Property ``p``'s verdict: skipped where its class is ``any``, else held or failed with
    what it rests on (:class:`PropertyResult`'s ``basis``)."""
    if p in SKIPPED_CLASS and (v.produces if p == "soundness" else v.covers) == "any":
        return PropertyResult(p, None, f"not checked: {SKIPPED_CLASS[p]}", None, None, SKIPPED_CLASS[p])
    basis = _basis(p, v)
    return PropertyResult(p, cx is None, _detail(p, v, cx, basis), cx, basis)


def _basis(p: str, v: Verdict) -> dict:
    """What property ``p``'s verdict rests on: the exhaustive bound and the random check beyond it."""
    count = v.random_trees if p == "completeness" else v.random_derivations
    rnd = None
    if count:
        rnd = {"examples": count, "n": [v.exhaustive_up_to + 1, v.random_max_n]}
        if p == "completeness":
            rnd["undecided"] = v.random_undecided
        if p == "termination":
            rnd["step_limit"] = RANDOM_STEP_LIMIT
    return {"exhaustive_n": v.exhaustive_up_to, "random": rnd, "proved": False}


def basis_words(p: str, basis: dict) -> str:
    """``basis`` in words: "n <= 7 exhaustively; 50 random trees for n = 8..30, not a proof"."""
    upto = basis["exhaustive_n"]
    text = f"n <= {upto} exhaustively" if upto >= 0 else "no length checked exhaustively"
    rnd = basis["random"]
    if rnd is None:
        return text + f"; not proved for n > {max(upto, 0)}"
    what = "tree" if p == "completeness" else "derivation"
    lo, hi = rnd["n"]
    text += f"; {rnd['examples']} random {what}{'' if rnd['examples'] == 1 else 's'} for n = {lo}..{hi}"
    if rnd.get("undecided"):
        text += f" ({rnd['undecided']} undecided within the search budget)"
    if p == "termination":
        text += f" ended within {rnd['step_limit']} actions"
    return text + ", not a proof"


RANDOM_STEP_LIMIT = "4n^2 + 4n + 20"
"""The actions a random derivation may take before it counts as not terminating."""


def _detail(p: str, v: Verdict, cx: Optional[Counterexample], basis: dict) -> str:
    if cx is not None:
        return f"fails at n = {cx.n}: {cx.note}"
    on = f"({basis_words(p, basis)})"
    if p == "soundness":
        return f"every terminal output is {CLASS_TEXT[v.produces]} {on}"
    if p == "completeness":
        covered = CLASS_TEXT[v.covers].replace("a ", "every ", 1)
        return f"{covered} is derivable {on}"
    if p == "progress":
        return f"no dead ends {on}"
    lengths = ", ".join(f"{s.n}:{s.longest}" for s in v.sizes if s.longest is not None and s.n > 0)
    if not lengths:
        return f"no cycles {on}"
    fit = v.longest_fit
    fits = f", fits {fit['formula']} for n = {fit['n'][0]}..{fit['n'][1]}" if fit else ""
    return f"no cycles {on}; longest derivation measured (n:longest {lengths}){fits}"


def longest_fit(sizes: list[SizeStats]) -> Optional[dict]:
    """The polynomial of degree <= 2 through the last three measured longest derivations, with
    the longest run of measured lengths (n = lo..hi, the last one included) it fits exactly,
    when that run holds at least four lengths (three always fit): ``{"formula": "4n - 6",
    "n": [3, 7]}``, or None.  A fit to measurements, not a bound: nothing says the next
    length follows it."""
    pts = [(s.n, s.longest) for s in sizes if s.longest is not None and s.n > 0]
    if len(pts) < 4:
        return None
    from fractions import Fraction as F

    (x1, y1), (x2, y2), (x3, y3) = pts[-3:]
    d = F((x1 - x2) * (x1 - x3) * (x2 - x3))
    a = F(x3 * (y2 - y1) + x2 * (y1 - y3) + x1 * (y3 - y2)) / d
    b = F(x3 * x3 * (y1 - y2) + x2 * x2 * (y3 - y1) + x1 * x1 * (y2 - y3)) / d
    c = F(x2 * x3 * (x2 - x3) * y1 + x3 * x1 * (x3 - x1) * y2 + x1 * x2 * (x1 - x2) * y3) / d
    start = len(pts)
    while start > 0 and a * pts[start - 1][0] ** 2 + b * pts[start - 1][0] + c == pts[start - 1][1]:
        start -= 1
    if len(pts) - start < 4:
        return None
    return {"formula": _polynomial(a, b, c), "n": [pts[start][0], pts[-1][0]]}


def _polynomial(a, b, c) -> str:
    """a n^2 + b n + c (Fractions) as text: "2n - 1", "(1/2)n^2 + (1/2)n"."""
    text = ""
    for coef, unit in ((a, "n^2"), (b, "n"), (c, "")):
        if coef == 0:
            continue
        mag = abs(coef)
        num = f"({mag})" if mag.denominator != 1 and unit else str(mag)
        body = (num if (mag != 1 or not unit) else "") + unit
        if not text:
            text = ("-" if coef < 0 else "") + body
        else:
            text += (" - " if coef < 0 else " + ") + body
    return text or "0"


def _random_checks(it: Interpreter, v: Verdict, found: dict, lo: int, hi: int, examples: int, budget: int,
                   seed: int, compiled=None) -> None:
    system = it.system
    cfg = settings(max_examples=examples, deadline=None, database=None, derandomize=True, report_multiple_bugs=False,
                   suppress_health_check=list(HealthCheck), print_blob=False,
                   verbosity=Verbosity.quiet)
    undecided = [0]
    trees, walks = [0], [0]  # cases drawn per check, up to its first failure (not Hypothesis's shrinking)
    failed = [False]

    if system.covers != "any" and found["completeness"] is None:
        @cfg
        @given(class_trees_strategy(system.covers, min_n=lo, max_n=hi))
        def derivable(gold):
            trees[0] += not failed[0]
            if compiled is not None and not system.multihead:
                status = compiled_search(system, compiled, list(gold), VERIFY_COMPILED_FACTOR * budget)
                if status == UNDECIDED:
                    undecided[0] += 1
                    return
                failed[0] = failed[0] or status != DERIVABLE
                assert status == DERIVABLE, gold
                return
            try:
                seq = find_derivation(it, gold, budget=budget)
            except BudgetExceeded:
                undecided[0] += 1
                return
            failed[0] = failed[0] or seq is None
            assert seq is not None, gold

        try:
            derivable()
        except AssertionError as exc:
            gold = list(exc.args[0]) if exc.args and isinstance(exc.args[0], tuple) else None
            if gold is not None:
                found["completeness"] = Counterexample(len(gold), [], gold=gold,
                                                       note="no derivation yields this tree (random check)")

    failed[0] = False

    @cfg
    @given(st.integers(min_value=lo, max_value=hi), st.randoms(use_true_random=False))
    def derivations(n, rnd):
        walks[0] += not failed[0]
        c = it.initial(n)
        seq: list[str] = []
        limit = 4 * n * n + 4 * n + 20  # RANDOM_STEP_LIMIT
        while not it.is_terminal(c):
            legal = it.legal(c)
            if not legal:
                failed[0] = True
                raise _Failure("progress", n, seq, "no legal action in a non-terminal configuration")
            if len(seq) > limit:
                failed[0] = True
                raise _Failure("termination", n, seq, f"no terminal configuration after {limit} actions")
            a = rnd.choice(legal)
            it.apply(c, a)
            seq.append(a)
        why = output_problem(it, c)
        if why:
            failed[0] = True
            raise _Failure("soundness", n, seq, f"the output has {why}")

    try:
        derivations()
    except _Failure as f:
        if found[f.prop] is None:
            found[f.prop] = Counterexample(f.n, f.seq, note=f.note + " (random check)",
                                           trace=_trace_text(it, f.n, f.seq))
    v.random_trees, v.random_derivations = trees[0], walks[0]
    v.random_examples = trees[0] + walks[0]
    v.random_undecided = undecided[0]


def counterexample_facts(cx: Counterexample) -> list[tuple[str, str]]:
    """The (label, value) facts of a counterexample that both renderings show."""
    facts = []
    if cx.gold is not None:
        facts.append(("gold heads", " ".join(map(str, cx.gold))))
    if cx.output is not None:
        facts.append(("output heads", " ".join("_" if h is None else str(h) for h in cx.output)))
    if cx.actions:
        facts.append(("actions", " ".join(cx.actions)))
    return facts


class _Failure(Exception):
    def __init__(self, prop: str, n: int, seq: list[str], note: str):
        super().__init__(f"{prop}: {note}")
        self.prop, self.n, self.seq, self.note = prop, n, list(seq), note


def render_verdict(v: Verdict) -> str:
    """The text report of one system."""
    lines = [f"{v.file}: {v.system} (produces {v.produces}" +
             (f", covers {v.covers}" if v.covers != v.produces else "") + ")"]
    for p in PROPERTIES:
        r = v.properties[p]
        mark = {"holds": "holds", "fails": "FAILS", "undecided": "undecided", "skipped": "skipped"}[r.status]
        lines.append(f"  {p:<13} {mark:<9} {r.detail}")
    if v.shared_classes:
        if v.class_clash is None:
            lines.append(f"  {'classes':<13} {'hold':<9} at most one member of {', '.join(v.shared_classes)} is legal "
                         f"in every configuration (n <= {v.exhaustive_up_to})")
        else:
            lines.append(f"  {'classes':<13} {'FAIL':<9} {v.class_clash.note}")
    if v.never_applied:
        lines.append(f"  note: {', '.join(v.never_applied)} never appl{'ies' if len(v.never_applied) == 1 else 'y'} "
                     f"in any configuration up to n = {v.exhaustive_up_to} (a guard that cannot hold?)")
    sizes = "  ".join(f"n={s.n}:{s.configurations}" for s in v.sizes)
    lines.append(f"  configurations explored: {sizes}")
    for p in PROPERTIES:
        cx = v.properties[p].counterexample
        if cx is None:
            continue
        lines.append(f"  counterexample ({p}), n = {cx.n}:")
        lines.extend(f"    {label}: {value}" for label, value in counterexample_facts(cx))
        lines.append(f"    {cx.note}")
        if cx.trace:
            lines.extend("    " + t for t in cx.trace.splitlines())
    if v.class_clash is not None and v.class_clash.trace:
        where = f"after {' '.join(v.class_clash.actions)}" if v.class_clash.actions else "the initial configuration"
        lines.append(f"  counterexample (classes), n = {v.class_clash.n}: {where}")
        lines.extend("    " + t for t in v.class_clash.trace.splitlines())
    build = f" + {v.kernel_build_seconds:.1f} s kernel build" if v.kernel_build_seconds else ""
    lines.append(f"  ({v.seconds:.1f} s{build})")
    return "\n".join(lines)
