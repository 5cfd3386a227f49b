"""The tagger's features, as 64-bit hashes laid out for the tagger kernel
(``tsdsl/kernels/tagger.pyx``).

The features are those of the usual averaged-perceptron tagger (Collins 2002; Honnibal's
"perceptron tagger"; Ratnaparkhi 1996 for the affixes and shapes):

- of the word itself: its form, lowercase form, prefixes and suffixes of 1 to 4 characters,
  and its shape (``Xxxx``, ``dd.d``: letters by case, digits, other characters as they are,
  runs cut at 3), and a bias;
- of its neighbours: the lowercase forms of the words at -2, -1, +1, +2, the 3-character
  suffixes and shapes of those at -1 and +1;
- for the columns tagged after UPOS (XPOS, FEATS, lemma): the UPOS of the words at -1, 0, +1,
  their trigram, and UPOS joined with the lowercase form and with the 2, 3 and 4-character
  suffixes;
- ambiguity classes (the set of UPOS tags a word had in training, for words seen at least
  twice, else unknown; as SVMTool and Morče use them) of the words at -1, 0, +1, +2, the
  pair at 0 and +1, and the word with the class at +1: a greedy left-to-right tagger
  otherwise knows nothing about the tags to its right (``to`` + verb or noun);
- and, made in the kernel from the classes it already predicted: the previous class, the two
  previous classes, the previous class with the word.

Word-internal features are hashed once per distinct form (BLAKE2b, as the parser's token
tables: see :mod:`tsdsl.learn.tokens`), then spread over the tokens and their neighbours
with numpy.  Words outside the sentence have a boundary value of their own.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .tokens import stable_hash

TYPE_TEMPLATES = ("form", "lower", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape")
_T = {name: k for k, name in enumerate(TYPE_TEMPLATES)}
CONTEXT_TEMPLATES = ((-2, "lower"), (-1, "lower"), (1, "lower"), (2, "lower"),
                     (-1, "s3"), (1, "s3"), (-1, "shape"), (1, "shape"))
UPOS_TEMPLATES = ("u0", "u-1", "u+1", "u-1 u0 u+1", "u0 lower", "u0 s2", "u0 s3", "u0 s4")
AMBIGUITY_TEMPLATES = ("a-1", "a0", "a+1", "a+2", "a0 a+1", "w0 a+1")
AMBIGUITY_MIN_COUNT = 2
FEATURES_VERSION = "tagger-features-2"
"""Names the templates above; stored with a tagger so that a changed feature set is noticed."""

_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _C1
        x = (x ^ (x >> np.uint64(27))) * _C2
    return x ^ (x >> np.uint64(31))


def _salt(name: str) -> np.uint64:
    return np.uint64(stable_hash("tagger\x1f" + name) & 0xFFFFFFFFFFFFFFFF)


def shape(form: str) -> str:
    """``Xxxx`` for ``Table``, ``dd.d`` for ``12.5``: letters by case, digits as ``d``, other
    characters as they are; a run of one symbol is cut at 3."""
    out: list[str] = []
    run = 0
    for ch in form:
        s = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        run = run + 1 if out and out[-1] == s else 1
        if run <= 3:
            out.append(s)
    return "".join(out)


def type_values(form: str) -> list[str]:
    """The word-internal values of one form, in :data:`TYPE_TEMPLATES` order."""
    low = form.lower()
    return [form, low, low[:1], low[:2], low[:3], low[:4], low[-1:], low[-2:], low[-3:], low[-4:], shape(form)]


class Layout:
    """Sentences' words as form ids, with each distinct form's hashed word-internal features."""

    def __init__(self, forms: Sequence[Sequence[str]]):
        ids: dict[str, int] = {}
        flat: list[int] = []
        for sent in forms:
            for f in sent:
                k = ids.get(f)
                if k is None:
                    k = ids[f] = len(ids)
                flat.append(k)
        self.forms = list(ids)
        self.form_id = np.asarray(flat, dtype=np.int64)
        lengths = np.fromiter((len(s) for s in forms), dtype=np.int64, count=len(forms))
        self.offsets = np.zeros(len(forms) + 1, dtype=np.int32)
        np.cumsum(lengths, out=self.offsets[1:])
        n = len(flat)
        self.sentence = np.repeat(np.arange(len(forms), dtype=np.int64), lengths)
        self.position = np.arange(n, dtype=np.int64) - self.offsets[:-1][self.sentence]
        self.length = lengths[self.sentence] if n else np.zeros(0, dtype=np.int64)
        table = np.empty((max(len(ids), 1), len(TYPE_TEMPLATES)), dtype=np.uint64)
        for k, f in enumerate(self.forms):
            table[k] = [stable_hash(name + "\x1f" + v) & 0xFFFFFFFFFFFFFFFF
                        for name, v in zip(TYPE_TEMPLATES, type_values(f))]
        self.types = table

    @property
    def size(self) -> int:
        return len(self.form_id)

    def of(self, template: str, shift: int = 0) -> np.ndarray:
        """The hash of a word-internal feature of the word ``shift`` places away from each
        token (a boundary value outside the sentence)."""
        col = self.types[:, _T[template]][self.form_id] if self.size else np.zeros(0, np.uint64)
        if shift == 0:
            return col
        return self.shifted(col, shift, "boundary " + template)

    def shifted(self, values: np.ndarray, shift: int, boundary: str) -> np.ndarray:
        """``values`` of the token ``shift`` places away, or the boundary value ``boundary``."""
        idx = np.arange(self.size, dtype=np.int64) + shift
        inside = (self.position + shift >= 0) & (self.position + shift < self.length)
        out = np.full(self.size, _salt(boundary), dtype=np.uint64)
        out[inside] = values[idx[inside]]
        return out

    def word_hash(self) -> np.ndarray:
        """Each token's lowercase-form hash, for the kernel's class-history-with-word feature."""
        return self.of("lower").view(np.int64)


def ambiguity_classes(sentences: Sequence[dict]) -> dict[str, str]:
    """Lowercase form -> the UPOS tags it had (sorted, ``|``-joined), for the forms seen at
    least :data:`AMBIGUITY_MIN_COUNT` times in ``sentences`` (column dicts)."""
    seen: dict[str, set] = {}
    count: dict[str, int] = {}
    for s in sentences:
        for f, u in zip(s["form"], s["upos"]):
            if u != "_":
                low = f.lower()
                seen.setdefault(low, set()).add(u)
                count[low] = count.get(low, 0) + 1
    return {f: "|".join(sorted(tags)) for f, tags in seen.items() if count[f] >= AMBIGUITY_MIN_COUNT}


def token_features(layout: Layout, upos: Optional[Sequence[str]] = None,
                   ambiguity: Optional[dict[str, str]] = None) -> np.ndarray:
    """int64 [tokens, features]: the static features of every token (see the module
    docstring); with ``upos`` (one value per token, flat), also the UPOS features; with
    ``ambiguity`` (:func:`ambiguity_classes`), the ambiguity-class features."""
    cols: list[np.ndarray] = [np.full(layout.size, _salt("bias"), dtype=np.uint64)]
    for k, name in enumerate(TYPE_TEMPLATES):
        cols.append(mix(layout.of(name) ^ _salt(f"w0 {name}")))
    for shift, name in CONTEXT_TEMPLATES:
        cols.append(mix(layout.of(name, shift) ^ _salt(f"w{shift:+d} {name}")))
    if ambiguity is not None and layout.size:
        by_form = np.fromiter((stable_hash("amb\x1f" + ambiguity.get(f.lower(), "?")) & 0xFFFFFFFFFFFFFFFF
                               for f in layout.forms), dtype=np.uint64, count=len(layout.forms))
        a0 = by_form[layout.form_id]
        amb = {k: layout.shifted(a0, k, "boundary amb") if k else a0 for k in (-1, 1, 2)} | {0: a0}
        with np.errstate(over="ignore"):
            parts = {"a-1": amb[-1], "a0": a0, "a+1": amb[1], "a+2": amb[2], "a0 a+1": mix(a0) + amb[1],
                     "w0 a+1": mix(layout.of("lower")) + amb[1]}
        for name in AMBIGUITY_TEMPLATES:
            cols.append(mix(parts[name] ^ _salt(name)))
    if upos is not None:
        if len(upos) != layout.size:
            raise ValueError(f"{len(upos)} UPOS values for {layout.size} tokens")
        u0 = np.fromiter((stable_hash("upos\x1f" + u) & 0xFFFFFFFFFFFFFFFF for u in upos),
                         dtype=np.uint64, count=layout.size)
        um = layout.shifted(u0, -1, "boundary upos")
        up = layout.shifted(u0, 1, "boundary upos")
        with np.errstate(over="ignore"):
            parts = {"u0": u0, "u-1": um, "u+1": up,
                     "u-1 u0 u+1": mix(um) ^ mix(mix(u0) + up),
                     "u0 lower": mix(u0) ^ layout.of("lower"), "u0 s2": mix(u0) ^ layout.of("s2"),
                     "u0 s3": mix(u0) ^ layout.of("s3"), "u0 s4": mix(u0) ^ layout.of("s4")}
        for name in UPOS_TEMPLATES:
            cols.append(mix(parts[name] ^ _salt(name)))
    return np.ascontiguousarray(np.stack(cols, axis=1).view(np.int64)) if layout.size else \
        np.zeros((0, len(cols)), dtype=np.int64)
