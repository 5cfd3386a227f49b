"""Scoring predicted dependency trees against a gold treebank.

:func:`evaluate` compares two lists of :class:`~tsdsl.treebank.conllu.Sentence` with the
same words (gold tokenization) and returns :class:`Scores`:

* UAS and LAS over every word, punctuation included.  LAS compares the
  *universal* part of DEPREL (before the first ``:``), exactly as the CoNLL 2018
  shared task script ``conll18_ud_eval.py`` does, so on files with the same
  tokenization both give the same counts; ``las_full`` compares whole labels.
* The same three without punctuation: words whose *gold* UPOS is ``PUNCT`` (where the gold
  UPOS is ``_``, whose gold relation is ``punct``).
* CUR, crossing-arc recall: of the gold arcs that cross another gold arc (the
  root arc included, with the root at position 0), the share whose dependent
  gets the gold head.
* Roots: recall (gold roots predicted as roots) and precision (predicted roots
  that are gold roots).
* Precision and recall by arc length ``|head - dependent|`` in the bins
  1, 2, 3-6 and 7+ (root arcs have no length: they are the root row).
* ``extra``: counters supplied by the caller (e.g. non-monotonic repairs counted
  by the parser), reported as given.

Only word lines count: multiword-token lines and empty nodes are ignored.
Files that do not line up (sentence count, word count, a word form) raise
:class:`MismatchError` as ``file:line: message``.  See docs/evaluation.md.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union

from .conllu import ConlluError, Sentence, read_conllu
from ..errors import UsageError

__all__ = [
    "LENGTH_BINS", "MismatchError", "PrecisionRecall", "Ratio", "Scores", "check_aligned", "crossing_arcs", "evaluate",
    "evaluate_files", "length_bin", "universal_label",
]

PUNCT_UPOS = "PUNCT"
PUNCT_RELATION = "punct"


def is_punctuation(word) -> bool:
    """Whether a gold word counts as punctuation: its UPOS is PUNCT; in a gold file without
    UPOS (``_``), its universal relation is ``punct`` instead, so that the "without
    punctuation" scores of an untagged gold file still leave punctuation out."""
    if word.upos == "_":
        return universal_label(word.deprel) == PUNCT_RELATION
    return word.upos == PUNCT_UPOS

LENGTH_BINS: tuple[tuple[str, int, Optional[int]], ...] = (
    ("1", 1, 1), ("2", 2, 2), ("3-6", 3, 6), ("7+", 7, None),
)
"""(name, shortest, longest or None) of each arc-length bin."""


class MismatchError(ConlluError):
    """Gold and predicted files do not line up; ``str()`` is ``file:line: message``."""


@dataclass(frozen=True)
class Ratio:
    """``correct`` out of ``total``; ``score`` is None when ``total`` is 0."""

    correct: int
    total: int

    @property
    def score(self) -> Optional[float]:
        return self.correct / self.total if self.total else None

    def to_dict(self) -> dict:
        return {"correct": self.correct, "total": self.total, "score": self.score}


@dataclass(frozen=True)
class PrecisionRecall:
    """``correct`` items out of ``gold`` ones (recall) and ``predicted`` ones (precision)."""

    correct: int
    gold: int
    predicted: int

    @property
    def precision(self) -> Optional[float]:
        return self.correct / self.predicted if self.predicted else None

    @property
    def recall(self) -> Optional[float]:
        return self.correct / self.gold if self.gold else None

    def to_dict(self) -> dict:
        return {"correct": self.correct, "gold": self.gold, "predicted": self.predicted,
                "precision": self.precision, "recall": self.recall}


@dataclass(frozen=True)
class Scores:
    """Every measure of one evaluation; see the module docstring.

    ``las`` is the CoNLL 2018 LAS (universal labels); ``las_full`` compares whole
    labels.  ``*_no_punct`` leave out the words whose gold UPOS is PUNCT.
    ``crossing`` is CUR (unlabeled).  ``root`` counts words attached to 0.
    ``by_length`` maps each bin of :data:`LENGTH_BINS` to its unlabeled arcs.
    """

    sentences: int
    words: int
    punctuation: int
    uas: Ratio
    las: Ratio
    las_full: Ratio
    uas_no_punct: Ratio
    las_no_punct: Ratio
    las_full_no_punct: Ratio
    crossing: Ratio
    root: PrecisionRecall
    by_length: dict[str, PrecisionRecall]
    extra: dict[str, Union[int, float]] = field(default_factory=dict)
    gold_file: Optional[str] = None
    pred_file: Optional[str] = None

    def to_dict(self) -> dict:
        """A JSON-ready dict; scores are fractions in 0..1 (None when undefined)."""
        out: dict = {"gold": self.gold_file, "pred": self.pred_file, "sentences": self.sentences,
                     "words": self.words, "punctuation": self.punctuation}
        for name in ("uas", "las", "las_full", "uas_no_punct", "las_no_punct", "las_full_no_punct", "crossing"):
            out[name] = getattr(self, name).to_dict()
        out["root"] = self.root.to_dict()
        out["arc_length"] = {k: v.to_dict() for k, v in self.by_length.items()}
        out["extra"] = dict(self.extra)
        return out

    def render_text(self) -> str:
        """A readable report: scores in percent with two decimals, as the CoNLL 2018 script prints."""
        lines = []
        if self.gold_file is not None:
            lines.append(f"gold: {self.gold_file}")
        if self.pred_file is not None:
            lines.append(f"pred: {self.pred_file}")
        lines.append(f"{self.sentences} sentence{'s' * (self.sentences != 1)}, "
                     f"{self.words} word{'s' * (self.words != 1)} ({self.punctuation} punctuation)")
        lines.append("")
        lines.append(f"{'measure':<34}{'correct':>9}{'total':>9}{'%':>9}")
        rows = [
            ("UAS", self.uas),
            ("LAS (universal labels, CoNLL 2018)", self.las),
            ("LAS (full labels)", self.las_full),
            ("UAS without punctuation", self.uas_no_punct),
            ("LAS without punctuation", self.las_no_punct),
            ("LAS (full labels) without punct.", self.las_full_no_punct),
            ("CUR (crossing arcs, recall)", self.crossing),
        ]
        for name, r in rows:
            lines.append(f"{name:<34}{r.correct:>9}{r.total:>9}{_pct(r.score):>9}")
        lines.append("")
        lines.append(f"{'arcs':<12}{'correct':>9}{'gold':>9}{'pred':>9}{'precision':>11}{'recall':>9}")
        for name, pr in [("root", self.root)] + [(f"length {k}", v) for k, v in self.by_length.items()]:
            lines.append(f"{name:<12}{pr.correct:>9}{pr.gold:>9}{pr.predicted:>9}"
                         f"{_pct(pr.precision):>11}{_pct(pr.recall):>9}")
        if self.extra:
            lines.append("")
            lines.append("extra counters")
            width = max(len(k) for k in self.extra)
            for k, v in self.extra.items():
                lines.append(f"  {k:<{width}}  {v}")
        return "\n".join(lines)


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}"


# ---------------------------------------------------------------------------------
# arcs
# ---------------------------------------------------------------------------------


def universal_label(deprel: str) -> str:
    """The universal part of a label: ``"nmod:poss"`` -> ``"nmod"``."""
    return deprel.split(":", 1)[0]


def length_bin(head: int, dependent: int) -> Optional[str]:
    """The :data:`LENGTH_BINS` name of an arc, or None for a root arc (head 0)."""
    if head == 0:
        return None
    n = abs(head - dependent)
    for name, lo, hi in LENGTH_BINS:
        if n >= lo and (hi is None or n <= hi):
            return name
    raise ValueError(f"arc {head} -> {dependent} has no length")


def crossing_arcs(heads: Sequence[Optional[int]]) -> list[int]:
    """The dependents whose arc crosses another arc, root arcs included (root at position 0).

    Two arcs cross when exactly one end of one lies strictly inside the other;
    arcs sharing a word never cross.  ``None`` heads have no arc.
    """
    spans = [(d, min(h, d), max(h, d)) for d, h in enumerate(heads, 1) if h is not None]
    out = []
    for d, a, b in spans:
        if any(a < c < b < e or c < a < e < b for _, c, e in spans):
            out.append(d)
    return out


# ---------------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------------


def evaluate(gold_sentences: Iterable[Sentence], pred_sentences: Iterable[Sentence], *,
             extra: Optional[Mapping[str, Union[int, float]]] = None,
             gold_file: Optional[str] = None, pred_file: Optional[str] = None) -> Scores:
    """Score predicted trees against gold ones, sentence by sentence and word by word.

    Args:
        gold_sentences: the gold treebank (every HEAD given).
        pred_sentences: the same sentences and words with predicted HEAD and
            DEPREL; a ``_`` head (None) is a wrong attachment.
        extra: counters to copy into the report, e.g. ``{"repairs": 12}`` for the
            non-monotonic repairs a parser made; names are strings, values numbers.
        gold_file, pred_file: names for the report and the messages (default:
            the ``file`` of the first sentence).

    Returns:
        The :class:`Scores`.

    Raises:
        MismatchError: the files do not line up (first difference, located).
        UsageError: ``extra`` is not a mapping of names to numbers.
    """
    gold = list(gold_sentences)
    pred = list(pred_sentences)
    gold_name = gold_file if gold_file is not None else (gold[0].file if gold else "<gold>")
    pred_name = pred_file if pred_file is not None else (pred[0].file if pred else "<pred>")
    counters = _check_extra(extra)
    check_aligned(gold, pred, gold_name=gold_name, pred_name=pred_name)

    c: Counter = Counter()
    bins = {name: Counter() for name, _, _ in LENGTH_BINS}
    for g, p in zip(gold, pred):
        crossing = set(crossing_arcs(g.heads))
        for gw, pw in zip(g.words, p.words):
            d, gh, ph = gw.id, gw.head, pw.head
            head_ok = gh == ph
            full_ok = head_ok and gw.deprel == pw.deprel
            univ_ok = head_ok and universal_label(gw.deprel) == universal_label(pw.deprel)
            c["words"] += 1
            c["uas"] += head_ok
            c["las"] += univ_ok
            c["las_full"] += full_ok
            if not is_punctuation(gw):
                c["words_np"] += 1
                c["uas_np"] += head_ok
                c["las_np"] += univ_ok
                c["las_full_np"] += full_ok
            if d in crossing:
                c["crossing"] += 1
                c["crossing_ok"] += head_ok
            c["root_gold"] += gh == 0
            c["root_pred"] += ph == 0
            c["root_ok"] += head_ok and gh == 0
            gb = length_bin(gh, d)
            if gb is not None:
                bins[gb]["gold"] += 1
                bins[gb]["correct"] += head_ok
            if ph is not None:
                pb = length_bin(ph, d)
                if pb is not None:
                    bins[pb]["predicted"] += 1

    words, np_words = c["words"], c["words_np"]
    return Scores(
        sentences=len(gold),
        words=words,
        punctuation=words - np_words,
        uas=Ratio(c["uas"], words),
        las=Ratio(c["las"], words),
        las_full=Ratio(c["las_full"], words),
        uas_no_punct=Ratio(c["uas_np"], np_words),
        las_no_punct=Ratio(c["las_np"], np_words),
        las_full_no_punct=Ratio(c["las_full_np"], np_words),
        crossing=Ratio(c["crossing_ok"], c["crossing"]),
        root=PrecisionRecall(c["root_ok"], c["root_gold"], c["root_pred"]),
        by_length={k: PrecisionRecall(v["correct"], v["gold"], v["predicted"]) for k, v in bins.items()},
        extra=counters,
        gold_file=gold_name,
        pred_file=pred_name,
    )


def evaluate_files(gold_path: Union[str, Path], pred_path: Union[str, Path], *,
                   extra: Optional[Mapping[str, Union[int, float]]] = None) -> Scores:
    """Read two CoNLL-U files and :func:`evaluate` them.

    The gold file must hold trees (every HEAD given, one root per sentence); the
    predicted file may have several roots and ``_`` heads, which count as wrong.

    Raises:
        ConlluError: a file is malformed (``file:line: message``).
        MismatchError: the files do not line up.
        OSError: a file cannot be read.
    """
    gold = read_conllu(gold_path)
    pred = read_conllu(pred_path, require_heads=False, allow_multiple_roots=True)
    return evaluate(gold, pred, extra=extra, gold_file=str(gold_path), pred_file=str(pred_path))


def check_aligned(gold: Sequence[Sentence], pred: Sequence[Sentence], *,
                  gold_name: str, pred_name: str) -> None:
    """Raise :class:`MismatchError` at the first place where the files differ in words.

    Sentences are compared in order, word form by word form, so a missing or an
    extra sentence shows where it happens; only then are the counts compared.  Forms are
    compared in Unicode NFC: the same word typed with combining accents (NFD), which a
    parse keeps as given, is the same word.
    """
    for k, (g, p) in enumerate(zip(gold, pred), 1):
        for gw, pw in zip(g.words, p.words):
            if gw.form != pw.form and unicodedata.normalize("NFC", gw.form) != unicodedata.normalize("NFC", pw.form):
                raise MismatchError(p.file, pw.line,
                                    f"word {pw.id} of sentence {k} is {pw.form!r}, but {gw.form!r} "
                                    f"in the gold file ({g.file}:{gw.line})")
        if len(p.words) > len(g.words):
            pw = p.words[len(g.words)]
            raise MismatchError(p.file, pw.line,
                                f"sentence {k} has {len(p.words)} words, but {len(g.words)} in the gold file "
                                f"({g.file}:{g.line}): word {pw.id} {pw.form!r} is extra")
        if len(p.words) < len(g.words):
            gw = g.words[len(p.words)]
            raise MismatchError(p.file, p.line,
                                f"sentence {k} has {len(p.words)} words, but {len(g.words)} in the gold file "
                                f"({g.file}:{g.line}): word {gw.id} {gw.form!r} is missing")
    if len(pred) > len(gold):
        p = pred[len(gold)]
        raise MismatchError(p.file, p.line, f"{len(pred)} sentences, but {len(gold)} in the gold file "
                                            f"({gold_name}): sentence {len(gold) + 1} is extra")
    if len(pred) < len(gold):
        g = gold[len(pred)]
        raise MismatchError(g.file, g.line, f"{len(gold)} sentences, but {len(pred)} in the predicted file "
                                            f"({pred_name}): sentence {len(pred) + 1} has no prediction")


def _check_extra(extra: Optional[Mapping[str, Union[int, float]]]) -> dict[str, Union[int, float]]:
    if extra is None:
        return {}
    if not isinstance(extra, Mapping):
        raise UsageError(f"extra counters must be a mapping of names to numbers, got {type(extra).__name__}")
    out: dict[str, Union[int, float]] = {}
    for k, v in extra.items():
        if not isinstance(k, str) or not k:
            raise UsageError(f"extra counter name {k!r} is not a non-empty string")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
            raise UsageError(f"extra counter {k!r}: {v!r} is not a finite number")
        out[k] = v
    return out
