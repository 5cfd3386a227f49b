"""Treebank coverage: which gold trees can a system derive exactly?

Every sentence is decided in three steps, cheapest first:

1. a proof of non-derivability read off the IR (:mod:`~tsdsl.verify.planar`): a system whose
   actions never build crossing arcs cannot derive a gold tree two of whose arcs cross (and
   its generalisation to arcs over at most G tokens, built bottom-up); a system whose guards
   bound the length of the arcs it builds (:mod:`~tsdsl.verify.arc_length`: a window,
   ``if j <= i + 3``) cannot derive a gold tree with a longer arc;
2. the compiled derivation search (``CompiledSystem.derive``, iterative, pruned by finished
   tokens, when monotonic wrong arcs and, where step 1's proof applies, configurations whose
   arcs still to build fail the same test), first restricted to derivations without a
   wrong arc (which finds the derivable trees at once), then, when that proves nothing
   (non-monotonic systems), over every derivation;
3. without a compiled kernel, the interpreter's search
   (:func:`~tsdsl.verify.loss.find_derivation`, iterative as well).

The share of derivable sentences is what Bohnet et al. (2016) report as coverage.  A
sentence whose search runs out of budget is *undecided*: reported as such, never guessed.

Non-projective arcs (gold arcs crossing another gold arc, the root arc included,
with the root at position 0) are counted separately, with how many of them the
best reachable derivation builds: all of them for a derivable sentence,
otherwise those in the output of the static oracle's derivation
(:func:`~tsdsl.verify.loss.static_oracle`, the least-loss reachable tree).
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Optional, Sequence

from .. import ir
from ..errors import UsageError
from ..interp import Interpreter
from ..treebank.trees import is_projective
from .arc_length import nonderivable_by_arc_length
from .loss import BudgetExceeded, find_derivation, static_oracle
from .planar import nonderivable_by_crossing, reordering, search_pruning

log = logging.getLogger("tsdsl.coverage")

DEFAULT_BUDGET = 20_000
"""Configurations one search may expand per sentence (about 10 s of pure Python); the
compiled search may expand ``COMPILED_FACTOR`` times as many (about as long)."""

COMPILED_FACTOR = 1000
"""The compiled search's budget per sentence is this many times ``budget`` (``--budget``)."""

VERIFY_COMPILED_FACTOR = 100
"""``tsdsl verify``'s random completeness check gives the compiled search this many times its
``--budget`` per tree (:mod:`.verifier`)."""

REACH_BUDGET = 2_000
"""Configurations the exact-loss search may expand to count the non-projective arcs reached
in a sentence that is not derivable (a secondary figure: beyond it they are undecided)."""

DERIVABLE, NOT_DERIVABLE, UNDECIDED, SKIPPED = "derivable", "not derivable", "undecided", "skipped"


def nonprojective_arcs(heads: Sequence[int]) -> list[tuple[int, int]]:
    """The gold arcs ``(head, dependent)`` that cross another arc (root at position 0)."""
    arcs = [(h, d) for d, h in enumerate(heads, 1)]
    spans = [(min(h, d), max(h, d)) for h, d in arcs]
    out = []
    for (h, d), (a, b) in zip(arcs, spans):
        if any(a < c < b < e or c < a < e < b for c, e in spans):
            out.append((h, d))
    return out


@dataclass
class SentenceCoverage:
    """The verdict on one sentence."""

    index: int  # 0-based position in the input
    line: int  # where its block starts (0 when not read from a file)
    sent_id: Optional[str]
    words: int
    projective: bool
    status: str  # derivable, not derivable, undecided, skipped
    nonprojective_arcs: int = 0
    reached_arcs: Optional[int] = None  # of its non-projective arcs; None = undecided
    seconds: float = 0.0
    reason: Optional[str] = None  # why undecided: "budget"
    proof: Optional[str] = None  # why not derivable, when proved without a search


@dataclass
class CoverageReport:
    """Totals over a treebank (skipped sentences are excluded from every share)."""

    system: str
    file: Optional[str]
    budget: Optional[int]
    max_len: Optional[int]
    sentences: int = 0  # evaluated (not skipped)
    skipped: int = 0  # longer than max_len
    words: int = 0  # in evaluated sentences
    projective: int = 0
    derivable: int = 0
    not_derivable: int = 0
    not_derivable_by_proof: int = 0  # of not_derivable: decided by proof from the spec
    undecided: int = 0
    nonprojective_arcs: int = 0
    nonprojective_arcs_reached: int = 0
    nonprojective_arcs_undecided: int = 0  # in sentences whose best derivation was not found in budget
    seconds: float = 0.0
    kernel_build_seconds: float = 0.0  # building the compiled kernel first (the caller's), not in seconds
    per_sentence: list[SentenceCoverage] = field(default_factory=list)
    compiled: bool = False  # searched by the compiled kernel, with COMPILED_FACTOR times the budget
    reach_budget: Optional[int] = REACH_BUDGET  # the exact-loss search's per sentence for the arcs reached
    interrupted: bool = False  # stopped (Ctrl-C) before the last sentence: the figures are for those before

    @property
    def nps_share(self) -> Optional[float]:
        """Derivable sentences / evaluated sentences (undecided ones count as not derivable)."""
        return self.derivable / self.sentences if self.sentences else None

    @property
    def nps_share_upper(self) -> Optional[float]:
        """The share if every undecided sentence were derivable."""
        return (self.derivable + self.undecided) / self.sentences if self.sentences else None

    @property
    def projective_share(self) -> Optional[float]:
        return self.projective / self.sentences if self.sentences else None

    @property
    def reached_share(self) -> Optional[float]:
        """Reached / decided non-projective arcs."""
        decided = self.nonprojective_arcs - self.nonprojective_arcs_undecided
        return self.nonprojective_arcs_reached / decided if decided else None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["nps_share"] = self.nps_share
        d["nps_share_upper"] = self.nps_share_upper
        d["projective_share"] = self.projective_share
        d["reached_share"] = self.reached_share
        return d

    def render_text(self, *, show_undecided: int = 20) -> str:
        def pct(x: Optional[float]) -> str:
            return "n/a" if x is None else f"{100 * x:.2f}%"

        n = self.sentences
        if self.budget is None:
            budget = "no search budget: --budget inf"
        elif self.compiled:
            budget = (f"budget {COMPILED_FACTOR * self.budget} configurations per sentence: the compiled search's, "
                      f"{COMPILED_FACTOR} x --budget {self.budget}")
        else:
            budget = f"budget {self.budget} configurations per sentence, interpreted search"
        lines = [f"system:               {self.system}"]
        if self.file:
            lines.append(f"file:                 {self.file}")
        skipped = f" ({self.skipped} longer than {self.max_len} words skipped)" if self.skipped else ""
        lines += [
            f"sentences:            {n}{skipped}",
            f"words:                {self.words}",
            f"projective:           {self.projective} / {n} ({pct(self.projective_share)})",
            f"derivable:            {self.derivable} / {n} ({pct(self.nps_share)})",
            f"not derivable:        {self.not_derivable}"
            + ((" (all by proof from the spec)" if self.not_derivable_by_proof == self.not_derivable else
                f" ({self.not_derivable_by_proof} by proof from the spec, the rest by search)")
               if self.not_derivable_by_proof else ""),
            f"undecided:            {self.undecided} ({budget})",
        ]
        if self.undecided:
            lines.append(f"derivable at most:    {self.derivable + self.undecided} / {n} "
                         f"({pct(self.nps_share_upper)})")
        arcs = f"non-projective arcs:  {self.nonprojective_arcs}, reached {self.nonprojective_arcs_reached}"
        if self.reached_share is not None:
            arcs += f" ({pct(self.reached_share)} of decided)"
        if self.nonprojective_arcs_undecided:
            arcs += (f", not counted {self.nonprojective_arcs_undecided} (in sentences not derivable: their best "
                     f"derivation was not found within --reach-budget {self.reach_budget} configurations; "
                     "raise it to count them, 0 to skip)")
        lines.append(arcs)
        build = f" (+ {self.kernel_build_seconds:.2f} s kernel build)" if self.kernel_build_seconds else ""
        lines.append(f"time:                 {self.seconds:.2f} s{build}")
        if self.interrupted:
            lines.append(f"interrupted:          after {len(self.per_sentence)} sentence"
                         f"{'s' * (len(self.per_sentence) != 1)} (Ctrl-C): every figure above is for those")
        und = [s for s in self.per_sentence if s.status == UNDECIDED]
        for s in und[:show_undecided]:
            where = f"line {s.line}" if s.line else f"sentence {s.index + 1}"
            sid = f" ({s.sent_id})" if s.sent_id else ""
            lines.append(f"  undecided: {where}{sid}, {s.words} words, {s.seconds:.2f} s")
        if len(und) > show_undecided:
            lines.append(f"  ... and {len(und) - show_undecided} more undecided")
        return "\n".join(lines)


class CoverageInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`coverage`; ``report`` holds the sentences decided before it."""

    def __init__(self, report: CoverageReport):
        super().__init__("coverage interrupted")
        self.report = report


def _gold_of(item) -> tuple[tuple[int, ...], int, Optional[str]]:
    """(heads, line, sent_id) of a :class:`~tsdsl.treebank.conllu.Sentence` or a plain head sequence."""
    heads = getattr(item, "heads", item)
    heads = tuple(heads)
    if any(h is None for h in heads):
        raise UsageError("coverage needs gold heads for every word (HEAD is _ somewhere)")
    return heads, getattr(item, "line", 0), getattr(item, "sent_id", None)


def coverage(system: ir.System, sentences: Iterable, *, budget: Optional[int] = DEFAULT_BUDGET,
             max_len: Optional[int] = None, file: Optional[str] = None,
             progress: Optional[Callable[[SentenceCoverage], None]] = None, compiled=None,
             reach_budget: Optional[int] = REACH_BUDGET,
             starting: Optional[Callable[[int, int, int], None]] = None) -> CoverageReport:
    """How many gold trees ``system`` derives exactly, and which non-projective arcs it reaches.

    Args:
        system: the lowered system.
        sentences: :class:`~tsdsl.treebank.conllu.Sentence` objects, or head sequences in
            CoNLL-U numbering.
        budget: configurations each search may expand per sentence (None: unlimited; the
            compiled search, about as many times faster, gets ``COMPILED_FACTOR`` times as
            many); a sentence that exceeds it is undecided.
        max_len: skip (and count) sentences with more words.
        file: recorded in the report.
        progress: called with each sentence's verdict.
        starting: called with (index, line, words) before each sentence is decided.
        compiled: the system's compiled kernel (``tsdsl.kernels.compile_system(system)``),
            for the compiled search; None: the interpreter's search only.
        reach_budget: configurations the exact-loss search may expand per non-derivable
            sentence to count the non-projective arcs reached (None: ``budget``; 0: they
            are not counted, and reported undecided).

    Raises:
        UsageError: a sentence has a word without a gold head.
        CoverageInterrupted: Ctrl-C; its report holds the sentences decided before it
            (``interrupted`` set), the sentence being decided left out.
    """
    it = Interpreter(system)
    report = CoverageReport(system.name, file, budget, max_len)
    if compiled is not None and system.multihead:
        compiled = None
    report.compiled = compiled is not None
    report.reach_budget = budget if reach_budget is None else reach_budget
    start = time.perf_counter()
    try:
        for index, item in enumerate(sentences):
            heads, line, sent_id = _gold_of(item)
            n = len(heads)
            if starting is not None:
                starting(index, line, n)
            if max_len is not None and n > max_len:
                verdict = SentenceCoverage(index, line, sent_id, n, is_projective(heads), SKIPPED)
            else:
                verdict = _one(it, heads, budget, index, line, sent_id, compiled,
                               budget if reach_budget is None else reach_budget)
            _count(report, verdict)
            log.debug("sentence %d (%d words): %s in %.2f s", index + 1, n, verdict.status, verdict.seconds)
            if progress is not None:
                progress(verdict)
    except KeyboardInterrupt:
        report.interrupted = True
        report.seconds = time.perf_counter() - start
        raise CoverageInterrupted(report) from None
    report.seconds = time.perf_counter() - start
    return report


def _count(report: CoverageReport, verdict: SentenceCoverage) -> None:
    """Add one sentence's verdict to the report's totals."""
    report.per_sentence.append(verdict)
    if verdict.status == SKIPPED:
        report.skipped += 1
        return
    report.sentences += 1
    report.words += verdict.words
    report.projective += verdict.projective
    if verdict.status == DERIVABLE:
        report.derivable += 1
    elif verdict.status == NOT_DERIVABLE:
        report.not_derivable += 1
        report.not_derivable_by_proof += verdict.proof is not None
    else:
        report.undecided += 1
    report.nonprojective_arcs += verdict.nonprojective_arcs
    if verdict.reached_arcs is None:
        report.nonprojective_arcs_undecided += verdict.nonprojective_arcs
    else:
        report.nonprojective_arcs_reached += verdict.reached_arcs


def decide(it: Interpreter, heads: Sequence[int], budget: Optional[int], compiled=None) -> tuple[str, Optional[str]]:
    """(DERIVABLE, NOT_DERIVABLE or UNDECIDED, the proof when not derivable without a search)
    for one gold tree: the steps of the module docstring."""
    why = nonderivable_by_crossing(it.system, heads) or nonderivable_by_arc_length(it.system, heads)
    if why is not None:
        return NOT_DERIVABLE, why
    if compiled is not None:
        limit = None if budget is None else COMPILED_FACTOR * budget
        return compiled_search(it.system, compiled, list(heads), limit), None
    try:
        path = find_derivation(it, heads, budget=budget)
    except BudgetExceeded:
        return UNDECIDED, None
    return (DERIVABLE if path is not None else NOT_DERIVABLE), None


def compiled_search(system: ir.System, compiled, heads: list, limit: Optional[int]) -> str:
    """DERIVABLE, NOT_DERIVABLE or UNDECIDED by the compiled search, in steps of at most
    ``limit`` expanded configurations (None: no limit): derivations without a wrong arc, found by trying the actions in the kernel's
    canonical order and then with the actions that build no arc in the reverse order, each
    with a hundredth of the budget (a derivable tree is almost always found this way, quickly),
    then in the canonical order with the whole budget; for a non-monotonic system, where the
    restriction proves nothing, a last search over every derivation.  For a system whose
    actions reorder tokens (:func:`~tsdsl.verify.planar.reordering`: SWAP) the canonical
    searches are guided towards the gold tree's projective order (``CompiledSystem.derive``'s
    ``guide``); the search stays exhaustive, so the answers are as exact."""
    limit = (2 ** 62) if limit is None else limit
    prune = search_pruning(system, len(heads))
    guide = reordering(system)
    canonical = compiled.canonical_order()
    orders: list = ["canonical"]
    if canonical is not None:
        arcs = [k for k in canonical if any(c.arcs for c in system.actions[k].cases)]
        alternative = arcs + [k for k in reversed(canonical) if k not in arcs]
        if alternative != canonical:
            orders.append(alternative)
    for order in orders:
        status = int(compiled.derive([heads], budget=max(limit // 100, 1), order=order, strict=True,
                                     guide=guide if order == "canonical" else None, **prune).status[0])
        if status == 1:
            return DERIVABLE
    status = int(compiled.derive([heads], budget=limit, strict=True, guide=guide, **prune).status[0])
    if status == 1:
        return DERIVABLE
    monotonic = system.is_monotonic(len(heads) + 1)
    if status == 0 and monotonic:  # the strict and the full search are the same search
        return NOT_DERIVABLE
    if not monotonic:
        status = int(compiled.derive([heads], budget=limit, guide=guide, **prune).status[0])
    if status < -1:
        raise MemoryError("the compiled derivation search ran out of memory")
    return {1: DERIVABLE, 0: NOT_DERIVABLE}.get(status, UNDECIDED)


def _one(it: Interpreter, heads: tuple[int, ...], budget: Optional[int], index: int, line: int,
         sent_id: Optional[str], compiled, reach_budget: Optional[int]) -> SentenceCoverage:
    t0 = time.perf_counter()
    nonproj = nonprojective_arcs(heads)
    verdict = SentenceCoverage(index, line, sent_id, len(heads), not nonproj, UNDECIDED, len(nonproj))
    verdict.status, verdict.proof = decide(it, heads, budget, compiled)
    if verdict.status == UNDECIDED:
        verdict.reason = "budget"
    if verdict.status == DERIVABLE:
        verdict.reached_arcs = len(nonproj)
    elif verdict.status == NOT_DERIVABLE:
        if not nonproj:
            verdict.reached_arcs = 0
        elif reach_budget != 0:  # 0: not counted (the arcs are then reported undecided)
            verdict.reached_arcs = _reached(it, heads, nonproj, reach_budget)
    elif not nonproj:
        verdict.reached_arcs = 0
    verdict.seconds = time.perf_counter() - t0
    return verdict


def _reached(it: Interpreter, heads: tuple[int, ...], arcs: list[tuple[int, int]],
             budget: Optional[int]) -> Optional[int]:
    """How many of ``arcs`` the best reachable derivation builds (None: out of budget)."""
    try:
        seq = static_oracle(it, heads, budget=budget)
    except BudgetExceeded:
        return None
    if seq is None:
        return 0
    c = it.initial(len(heads))
    for a in seq:
        it.apply(c, a)
    tree = it.output(c)
    if tree.arcs is not None:
        built = {(h, d) for h, d, _ in tree.arcs}
    else:
        built = {(h, d) for d, h in enumerate(tree.heads, 1) if h is not None}
    return sum(1 for arc in arcs if arc in built)
