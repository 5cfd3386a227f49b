"""Token tables: each word's attributes (form, UPOS, FEATS, one morphological feature ...)
as 64-bit hashes, laid out for the kernel's feature extractor.

Hashes are stable across processes and machines (BLAKE2b of the UTF-8 text), so a saved
model needs no vocabulary file.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

_CACHE: dict[str, int] = {}


def stable_hash(text: str) -> int:
    """A signed 64-bit hash of ``text``, the same in every process."""
    h = _CACHE.get(text)
    if h is None:
        h = int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                           "little", signed=True)
        if len(_CACHE) < 2_000_000:
            _CACHE[text] = h
    return h


def _feat_value(feats: str, name: str) -> str:
    if feats and feats != "_":
        for item in feats.split("|"):
            key, _, value = item.partition("=")
            if key == name:
                return value
    return "_"


def attribute_values(attr: str, words: dict[str, Sequence[str]]) -> list[str]:
    """The values of one token attribute (canonical name, see tsdsl.learn.features) for a sentence."""
    if attr == "lower":
        return [w.lower() for w in words["form"]]
    if attr.startswith("feat:"):
        name = attr[5:]
        return [_feat_value(f, name) for f in words["feats"]]
    return list(words[attr])


def token_table(attrs: Sequence[str], sentences: Sequence[dict[str, Sequence[str]]]) -> np.ndarray:
    """int64 [len(attrs), total words]: row r holds attribute attrs[r] of every word of every
    sentence, sentences one after another (a sentence is a dict of column name -> values,
    with keys form, lemma, upos, xpos, feats)."""
    total = sum(len(s["form"]) for s in sentences)
    table = np.zeros((max(len(attrs), 1), total), dtype=np.int64)
    for r, attr in enumerate(attrs):
        salt = attr + "\x1f"
        values = [stable_hash(salt + v) for s in sentences for v in attribute_values(attr, s)]
        if values:
            table[r] = values
    return table
