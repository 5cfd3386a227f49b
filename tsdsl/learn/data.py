"""Treebanks laid out for the kernel: heads, label ids, sentence offsets and token tables."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Optional, Sequence

import numpy as np

from ..treebank.conllu import Sentence
from .tokens import compiled_helpers, token_table


def columns_of(sentence: Sentence) -> dict[str, tuple[str, ...]]:
    """The word columns a parser reads (as :attr:`Sentence.forms` etc.), in one pass."""
    if not sentence.words:
        return {"form": (), "lemma": (), "upos": (), "xpos": (), "feats": ()}
    # the first six columns only: zip makes each column's tuple as it is asked for
    _, form, lemma, upos, xpos, feats = islice(zip(*[w.fields for w in sentence.words]), 6)
    return {"form": form, "lemma": lemma, "upos": upos, "xpos": xpos, "feats": feats}


def columns_of_all(sentences: Sequence[Sentence]) -> list[dict[str, tuple[str, ...]]]:
    """:func:`columns_of` of each sentence (word by word in compiled code where it can be)."""
    fast = compiled_helpers()
    if fast is None:
        return [columns_of(s) for s in sentences]
    sentences = list(sentences)
    return [c if c is not None else columns_of(s) for s, c in zip(sentences, fast.word_columns(sentences))]


@dataclass
class Batch:
    """Sentences as flat int32 arrays (CoNLL-U head numbering; label ids, -1 unknown)."""

    offsets: np.ndarray
    tokens: np.ndarray           # int64 [attributes, words]
    heads: Optional[np.ndarray]
    labels: Optional[np.ndarray]

    @property
    def sentences(self) -> int:
        return len(self.offsets) - 1

    @property
    def words(self) -> int:
        return int(self.offsets[-1])


def make_batch(columns: Sequence[dict[str, Sequence[str]]], attrs: Sequence[str],
               trees: Optional[Sequence[tuple[Sequence[int], Sequence[str]]]] = None,
               label_ids: Optional[dict[str, int]] = None) -> Batch:
    """Lay out sentences (column dicts) and, for training, their gold trees."""
    lengths = np.fromiter((len(c["form"]) for c in columns), dtype=np.int64, count=len(columns))
    offsets = np.zeros(len(columns) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    tokens = np.ascontiguousarray(token_table(attrs, columns))
    heads = labels = None
    if trees is not None:
        total = int(offsets[-1])
        heads = np.empty(total + 1, dtype=np.int32)
        labels = np.empty(total + 1, dtype=np.int32)
        k = 0
        for hs, ls in trees:
            m = len(hs)
            heads[k:k + m] = hs
            labels[k:k + m] = [label_ids.get(l, -1) for l in ls]
            k += m
    return Batch(offsets, tokens, heads, labels)
