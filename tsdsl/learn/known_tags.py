"""UPOS values a model never saw in training, found in the input of a parse.

A parser's features lean on UPOS.  A tag outside the training tag set (lowercase UD tags,
Penn Treebank tags pasted into the UPOS column, a tagset of another treebank) hashes as a
feature value the model has no weight for, and the parse collapses: on en_lines dev, a model
scoring 83 LAS on the file's own tags scored 3 to 6 with the same tags lowercased, with no
word said.  Only ``_`` counted as missing.  So training records the UPOS values it saw
(:data:`UPOS_VALUES` in model.json) and a parse counts the given values outside them, for a
warning that names them and where the first one is (``--retag`` predicts them instead).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .tagger import EMPTY, column_values

UPOS_VALUES = "upos_values"
"""The model meta key holding the sorted UPOS values of the training file (``_`` left out).
Models written before it existed fall back to their UPOS tagger's classes, or check nothing."""


def training_upos(columns: Sequence[dict]) -> list[str]:
    """The UPOS values of training sentences (column dicts), sorted, ``_`` left out."""
    return sorted({u for c in columns for u in column_values(c, "upos")} - {EMPTY})


def known_upos(meta: dict, tagger) -> Optional[frozenset]:
    """The UPOS values a model knows: those of its training file, else its UPOS tagger's
    classes; None when it knows none (a model without UPOS, or an old one without a tagger)."""
    values = meta.get(UPOS_VALUES)
    if values:
        return frozenset(values)
    if tagger is not None and "upos" in tagger.columns:
        return frozenset(tagger.columns["upos"].classes) - {EMPTY}
    return None


@dataclass
class UnknownTags:
    """The given UPOS values outside the model's set: how many words have each, and where the
    first such word is (file and line when known, else sentence index and word number)."""

    counts: Counter = field(default_factory=Counter)
    first: Optional[str] = None

    @property
    def words(self) -> int:
        return sum(self.counts.values())

    def _values(self) -> str:
        shown = ", ".join(repr(v) for v, _ in self.counts.most_common(5))
        more = f" and {len(self.counts) - 5} more" if len(self.counts) > 5 else ""
        return f"{shown}{more}; first at {self.first}"

    def message(self, total_words: int) -> str:
        return (f"{self.words} of {total_words} words have a UPOS value this model never saw in training "
                f"({self._values()}): the parser has no weights for them and parses those sentences badly; check "
                "the tagset of the UPOS column, or predict UPOS instead (--retag; retag=True in Python)")

    def dev_message(self, total_words: int) -> str:
        """The same, said of the dev file given to ``tsdsl train``."""
        return (f"{self.words} of {total_words} dev words have a UPOS value the training file does not have "
                f"({self._values()}): the dev scores that choose the best epoch are those of input the parser has "
                "no weights for; check the tagset of the dev file's UPOS column")


def unknown_upos(columns: Sequence[dict], predicted: Sequence[dict], known: Optional[frozenset],
                 where: Optional[Sequence[tuple[str, int]]] = None) -> UnknownTags:
    """Count the given (not predicted) UPOS values of ``columns`` outside ``known`` (nothing
    when ``known`` is None).  ``predicted``: per sentence, column -> per-word mask of the
    values the tagger filled in; ``where``: per sentence, its (file, first line)."""
    out = UnknownTags()
    if not known:
        return out
    values = set(chain.from_iterable(c.get("upos") or () for c in columns))  # (no column: every word _)
    if values <= known | {EMPTY}:  # the common case, at C speed: every value known
        return out
    for k, (c, p) in enumerate(zip(columns, predicted)):
        filled = p.get("upos")
        for i, u in enumerate(column_values(c, "upos")):
            if u == EMPTY or u in known or (filled is not None and filled[i]):
                continue
            out.counts[u] += 1
            if out.first is None:
                out.first = (f"{where[k][0]}, the sentence at line {where[k][1]}, word {i + 1}" if where
                             else f"sentence {k + 1}, word {i + 1}")
    return out
