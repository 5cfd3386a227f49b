"""Token tables: each word's attributes (form, UPOS, FEATS, one morphological feature ...)
as 64-bit hashes, laid out for the kernel's feature extractor.

Hashes are stable across processes and machines (BLAKE2b of the UTF-8 text), so a saved
model needs no vocabulary file.
"""

from __future__ import annotations

import hashlib
import unicodedata
from itertools import chain
from typing import Sequence

import numpy as np

from ..errors import KernelBuildError

_CACHE: dict[str, int] = {}


def _hash_text(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                          "little", signed=True)


def stable_hash(text: str) -> int:
    """A signed 64-bit hash of ``text``, the same in every process."""
    h = _CACHE.get(text)
    if h is None:
        h = _hash_text(text)
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


def nfc_words(words: Sequence[str]) -> list[str]:
    """The words in Unicode NFC, the form UD text is in.  The same word typed as a base
    letter and combining accents (NFD: text copied from macOS file names, some PDFs and web
    pages) would otherwise hash as a word never seen in training: on el_gdt dev such text
    parsed 28 LAS points worse.  Features and the tagger read the NFC form; the words
    written out stay as given."""
    if all(w.isascii() for w in words):
        return list(words)
    return [w if unicodedata.is_normalized("NFC", w) else unicodedata.normalize("NFC", w) for w in words]


_TEXT_ATTRS = ("form", "lemma")
"""The attributes whose values are text to normalise (:func:`nfc_words`); ``lower`` is
derived from ``form``."""


def attribute_values(attr: str, words: dict[str, Sequence[str]]) -> list[str]:
    """The values of one token attribute (canonical name, see tsdsl.learn.features) for a
    sentence; the text attributes in NFC (:func:`nfc_words`)."""
    if attr == "lower":
        return [w.lower() for w in nfc_words(words["form"])]
    if attr.startswith("feat:"):
        name = attr[5:]
        return [_feat_value(f, name) for f in words["feats"]]
    if attr in _TEXT_ATTRS:
        return nfc_words(words[attr])
    return list(words[attr])


_COLUMN_HASHES: dict[str, dict[str, int]] = {}
"""Per token attribute: the hash of the attribute's value for each column value seen (the
value of ``lower`` is derived from FORM, that of ``feat:X`` from FEATS), so that a token
table hashes each distinct value once and looks the rest up at C speed."""

_COLUMN_HASHES_LIMIT = 2_000_000


def _column_of(attr: str) -> str:
    """The CoNLL-U column an attribute's value is derived from."""
    if attr == "lower":
        return "form"
    if attr.startswith("feat:"):
        return "feats"
    return attr


def _value_hashes(attr: str, values) -> dict[str, int]:
    """The column-value -> hash dict of ``attr``, completed for ``values``."""
    cache = _COLUMN_HASHES.setdefault(attr, {})
    missing = set(values).difference(cache)
    if missing:
        if len(cache) + len(missing) > _COLUMN_HASHES_LIMIT:
            cache.clear()
            missing = set(values)
        salt = attr + "\x1f"
        derived = attribute_values(attr, {_column_of(attr): list(missing)})
        cache.update(zip(missing, (_hash_text(salt + v) for v in derived)))
    return cache


_COMPILED: list = []


def compiled_helpers():
    """The compiled per-word helpers (``tsdsl/kernels/conllu_fast.pyx``: token table rows,
    word columns, rewritten CoNLL-U lines), built once a process, or None where they cannot
    be built (no C compiler): the callers then do the same in Python."""
    if not _COMPILED:
        from ..kernels.fixed import fixed_module  # (the kernels' layer, imported when first asked)

        try:
            _COMPILED.append(fixed_module("conllu_fast"))
        except KernelBuildError:
            _COMPILED.append(None)
    return _COMPILED[0]


def token_table(attrs: Sequence[str], sentences: Sequence[dict[str, Sequence[str]]]) -> np.ndarray:
    """int64 [len(attrs), total words]: row r holds attribute attrs[r] of every word of every
    sentence, sentences one after another (a sentence is a dict of column name -> values,
    with keys form, lemma, upos, xpos, feats).

    Row r is ``stable_hash(attrs[r] + "\x1f" + value)`` of each word's value
    (:func:`attribute_values`); each distinct column value is hashed once (and remembered),
    the rest is dict look-ups over the whole batch."""
    total = sum(len(s["form"]) for s in sentences)
    table = np.zeros((max(len(attrs), 1), total), dtype=np.int64)
    if not total:
        return table
    flat: dict[str, list] = {}
    fast = compiled_helpers()
    for r, attr in enumerate(attrs):
        column = _column_of(attr)
        known = _COLUMN_HASHES.get(attr)
        if fast is not None and known is not None and fast.fill_hashes(table[r], sentences, column, known):
            continue  # every value seen before: looked up word by word in C
        values = flat.get(column)
        if values is None:
            values = flat[column] = list(chain.from_iterable(s[column] for s in sentences))
        try:  # every value seen before: look-ups only
            table[r] = np.fromiter(map(known.__getitem__, values), dtype=np.int64, count=total)
        except (AttributeError, KeyError):
            lookup = _value_hashes(attr, values).__getitem__
            table[r] = np.fromiter(map(lookup, values), dtype=np.int64, count=total)
    return table
