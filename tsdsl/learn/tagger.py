"""A tagger for the columns the parser reads: UPOS, XPOS, FEATS and lemmas.

One averaged perceptron per column (Collins 2002), greedy left to right, over hashed
features (:mod:`tsdsl.learn.tagfeatures`): the weight of a feature for a class sits in a
flat table of ``2**hash_bits`` floats at the hash of the pair, so the table's size does not
depend on the number of classes.  The hot loop is the fixed Cython module
``tsdsl/kernels/tagger.pyx``.

Columns are tagged in the order UPOS, XPOS, FEATS, lemma; the later ones read the UPOS of
the word and its neighbours (gold in training, the given or predicted one when tagging) and
score only the classes seen with that UPOS in training: XPOS tags and FEATS strings (one
class per full FEATS string, as UDPipe 1), lemma edit scripts (:mod:`tsdsl.learn.lemmas`)
that apply to the form.  A (form, UPOS) pair seen in training takes its most frequent
training lemma; only other words use the lemma classifier.

Each column trains for at most ``MAX_EPOCHS`` epochs over the training sentences in a
random order (``seed``); with a development set, the epoch with the best dev accuracy is
kept and training stops after ``PATIENCE`` epochs without a better one.

Stored in ``MODEL/tagger/``: ``tagger.json`` (classes, candidate sets, dev accuracies),
``COLUMN.rows.npy`` (int32) and ``COLUMN.weights.npy`` (float16), the table's non-zero
entries, ``lemmas.json`` (the (form, UPOS) -> lemma lexicon) and ``ambiguity.json`` (the
ambiguity classes of :mod:`tsdsl.learn.tagfeatures`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, TextIO

import numpy as np

from ..errors import UsageError
from .lemmas import ScriptIndex, apply_script, identity_script, lemma_script, script_parts
from .tagfeatures import FEATURES_VERSION, Layout, ambiguity_classes, token_features
from .punct_rule import apply_rule, learn_rule
from .tokens import nfc_words
from .weights import WeightsError, check_finite

TAG_COLUMNS = ("upos", "xpos", "feats", "lemma")
"""The columns a tagger can predict, in the order they are tagged."""
HASH_BITS = 20
MAX_EPOCHS = 12
PATIENCE = 3
FORMAT = 2
EMPTY = "_"
_KEY = "\x1f"


class TaggerError(UsageError):
    """A stored tagger that cannot be read."""


def _kernel():
    from ..kernels.fixed import fixed_module

    return fixed_module("tagger")


def column_values(cols: dict, name: str) -> list[str]:
    """A sentence's values of one column (``_`` for each word where the column is missing)."""
    vals = cols.get(name)
    return list(vals) if vals is not None else [EMPTY] * len(cols["form"])


def is_empty(values: Sequence[str]) -> bool:
    """Whether a sentence's column is empty: ``_`` for every word."""
    return all(v == EMPTY for v in values)


def missing_words(cols: dict, name: str) -> list[bool]:
    """Per word of a sentence (column dict), whether its value of tag column ``name`` is
    missing: what the tagger predicts, and what a model without a tagger lacks.

    UPOS ``_`` is never a UD value, so a word whose UPOS is ``_`` lacks it, whatever the other
    words hold (a partly tagged sentence).  In XPOS, FEATS and LEMMA ``_`` can be a real value
    (no XPOS in the treebank, "no features", a word without a lemma), so there ``_`` counts as
    missing only when the column is empty in the whole sentence, or the word's UPOS is ``_``
    too: a word without UPOS was not tagged, and its other ``_`` say nothing."""
    mask = _missing_or_none(cols, name)
    if mask is None:
        values = cols.get(name)
        return [False] * len(values if isinstance(values, (list, tuple)) else list(values))
    return mask


def _missing_or_none(cols: dict, name: str) -> Optional[list[bool]]:
    """:func:`missing_words`, or None when no word's value is missing (the common case, decided
    by counts in C without a mask: most columns are tagged, and no word needs Python)."""
    values = cols.get(name)
    if values is None:
        return [True] * len(cols["form"])
    if not isinstance(values, (list, tuple)):
        values = list(values)
    empty = values.count(EMPTY)
    if empty == 0:
        return None
    if empty == len(values):
        return [True] * len(values)
    if name == "upos":
        return [v == EMPTY for v in values]
    upos = cols.get("upos")
    if upos is None:
        upos = [EMPTY] * len(cols["form"])
    elif EMPTY not in upos:  # every word has its UPOS: each _ here is a value (FEATS of punctuation)
        return None
    return [v == EMPTY and u == EMPTY for v, u in zip(values, upos)]


def _to_predict(cols: dict, names, retag: bool) -> dict[str, list[bool]]:
    """Per tag column of ``names`` with a value to predict in the sentence ``cols``, the
    per-word mask (every word with ``retag``, else :func:`missing_words`); a column with none
    to predict is left out without a mask being made (most columns of a tagged file)."""
    if retag:
        n = len(cols["form"])
        return {c: [True] * n for c in names}
    out = {}
    for c in names:
        mask = _missing_or_none(cols, c)
        if mask is not None and True in mask:
            out[c] = mask
    return out


def columns_present(sentences: Sequence[dict]) -> tuple[str, ...]:
    """The tag columns that hold a value other than ``_`` somewhere in ``sentences``."""
    return tuple(c for c in TAG_COLUMNS
                 if any(not is_empty(column_values(s, c)) for s in sentences))


@dataclass
class ColumnModel:
    """One column's classifier: classes, candidate sets, averaged weights."""

    name: str
    classes: list[str]
    weights: np.ndarray                        # float32 [2**hash_bits]
    sets: dict[str, list[int]] = field(default_factory=dict)   # UPOS -> class ids (xpos, feats)
    script_pairs: list[tuple[str, int]] = field(default_factory=list)  # lemma: (UPOS, script) seen
    lexicon: dict[str, str] = field(default_factory=dict)      # lemma: "form\x1fUPOS" -> lemma
    info: dict = field(default_factory=dict)   # dev accuracy, epochs

    def __post_init__(self):
        self.index = {c: k for k, c in enumerate(self.classes)}
        self.scripts = ScriptIndex(self.classes, self.script_pairs) if self.name == "lemma" else None

    def gold_ids(self, values: Sequence[str], forms: Sequence[str]) -> np.ndarray:
        """Class ids of gold values (-1: unknown, or ``_`` where it is not a value)."""
        if self.name == "lemma":
            values = [lemma_script(f, v) if v != EMPTY else None for f, v in zip(forms, values)]
        bad = EMPTY if self.name in ("upos", "lemma") else None  # ``_`` is a value of XPOS and FEATS
        return np.fromiter((self.index.get(v, -1) if v is not None and v != bad else -1 for v in values),
                           dtype=np.int32, count=len(values))

    def candidate_sets(self, forms: Sequence[str], upos: Optional[Sequence[str]]):
        """Per token, the id of its candidate set; and the sets as CSR (offsets, class ids)."""
        keys: dict[tuple, int] = {}
        items: list[tuple[int, ...]] = []

        def set_id(key, make) -> int:
            k = keys.get(key)
            if k is None:
                k = keys[key] = len(items)
                items.append(make() or (self.index[identity_script()],) if self.name == "lemma" else make())
            return k

        everything = tuple(range(len(self.classes)))
        if self.name == "upos" or upos is None or not self.sets and self.name != "lemma":
            cset = np.zeros(len(forms), dtype=np.int32)
            items = [everything]
        elif self.name == "lemma":
            cset = np.fromiter((set_id((f, u), lambda f=f, u=u: self.scripts.candidates(f, u))
                                for f, u in zip(forms, upos)), dtype=np.int32, count=len(forms))
        else:
            cset = np.fromiter((set_id(u, lambda u=u: tuple(self.sets.get(u, everything))) for u in upos),
                               dtype=np.int32, count=len(forms))
        off = np.zeros(len(items) + 1, dtype=np.int32)
        np.cumsum([len(x) for x in items], out=off[1:])
        flat = np.fromiter((c for x in items for c in x), dtype=np.int32, count=int(off[-1]))
        return cset, off, flat

    def predict(self, layout: Layout, feats: np.ndarray, forms: Sequence[str],
                upos: Optional[Sequence[str]], weights: Optional[np.ndarray] = None, sets=None) -> list[str]:
        """The column's values for every token of ``layout`` (flat)."""
        ids = self.run(layout, feats, forms, upos, weights, sets=sets)
        if self.name != "lemma":
            return [self.classes[k] for k in ids.tolist()]
        out = []
        for f, u, k in zip(forms, upos if upos is not None else [EMPTY] * len(forms), ids.tolist()):
            known = self.lexicon.get(f + _KEY + u) or self.lexicon.get(f.lower() + _KEY + u)
            out.append(known if known is not None else (apply_script(f, self.classes[k]) or f))
        return out

    def run(self, layout, feats, forms, upos, weights=None, *, gold=None, state=None, order=None,
            sets=None) -> np.ndarray:
        """The kernel over every sentence (``order``): predicted class ids; with ``gold`` and
        ``state`` (W, U, touched, clock), one training epoch that updates ``state``.
        ``sets``: :meth:`candidate_sets` of ``forms`` and ``upos``, if already made."""
        cset, off, flat = sets if sets is not None else self.candidate_sets(forms, upos)
        pred = np.zeros(layout.size, dtype=np.int32)
        if order is None:
            order = np.arange(len(layout.offsets) - 1, dtype=np.int32)
        mod = _kernel()
        if state is None:
            W = self.weights if weights is None else weights
            mod.run(feats, layout.word_hash(), layout.offsets, order, cset, off, flat,
                    np.full(layout.size, -1, dtype=np.int32), W, np.zeros(1), np.zeros(1, np.uint8), 0, False, pred)
        else:
            state["clock"], state["mistakes"], _ = mod.run(
                feats, layout.word_hash(), layout.offsets, order, cset, off, flat, gold, state["W"], state["U"],
                state["touched"], state["clock"], True, pred)
        return pred


def _flat(sentences: Sequence[dict], name: str) -> list[str]:
    return [v for s in sentences for v in column_values(s, name)]


def _nfc_text(sentence: dict) -> dict:
    """A column dict with its words and lemmas in NFC (:func:`~tsdsl.learn.tokens.nfc_words`)."""
    out = dict(sentence)
    for name in ("form", "lemma"):
        if out.get(name) is not None:
            out[name] = nfc_words(out[name])
    return out


def _accuracy(pred: Sequence[str], gold: Sequence[str], name: str) -> Optional[float]:
    pairs = [(p, g) for p, g in zip(pred, gold) if name in ("xpos", "feats") or g != EMPTY]
    return sum(p == g for p, g in pairs) / len(pairs) if pairs else None


@dataclass
class Tagger:
    """Classifiers for some of :data:`TAG_COLUMNS` (see the module docstring)."""

    columns: dict[str, ColumnModel]
    hash_bits: int = HASH_BITS
    meta: dict = field(default_factory=dict)
    ambiguity: Optional[dict[str, str]] = None   # lowercase form -> UPOS tags seen (tagfeatures)

    def tag(self, sentences: Sequence[dict], *, retag: bool = False) -> tuple[list[dict], list[set]]:
        """Fill in the missing values of each sentence (every column with ``retag``).

        Args:
            sentences: column dicts (``form``; ``lemma``, ``upos``, ``xpos``, ``feats`` optional).
        Returns:
            new column dicts, and for each sentence the set of columns of which some value was
            predicted (see :meth:`fill`).
        """
        out, predicted = self.fill(sentences, retag=retag)
        return out, [set(p) for p in predicted]

    def fill(self, sentences: Sequence[dict], *, retag: bool = False) -> tuple[list[dict], list[dict]]:
        """Predict the values :func:`missing_words` finds missing (every value with ``retag``)
        and keep the given ones.

        Each column is predicted for the whole sentence and only the missing values are taken
        from the prediction.  The UPOS tagger's history features read its own predictions for
        the two words before, never given tags, so a partly tagged sentence gets in its gaps
        exactly the UPOS an untagged one would (feeding given tags into the history would need
        another kernel, and tags the tagger never trained on as history).  The later columns
        read the UPOS of each word and its neighbours: the given one where there is one, else
        the predicted one, as they do for a sentence whose UPOS is given whole.

        Returns:
            new column dicts (lists; a sentence with nothing predicted keeps the sequences it
            was given, ``_`` lists for the columns it lacks), and for each sentence a dict:
            column -> per word, whether its value was predicted (only the columns of which
            some value was).
        """
        names = ("form",) + TAG_COLUMNS
        out, predicted = [], []
        for s in sentences:
            p = _to_predict(s, self.columns, retag)
            predicted.append(p)
            # a sentence with nothing to predict keeps its columns as given (never changed in
            # place): copying every column of a tagged file cost a parse 0.12 µs a word
            out.append({c: column_values(s, c) if p or s.get(c) is None else s[c] for c in names})
        need = [k for k, p in enumerate(predicted) if p]
        if need:  # only the sentences with a value to predict: a tagger reads one sentence at a time
            read_upos = "upos" in self.columns or not is_empty(_flat(out, "upos"))
            self._predict_into([out[k] for k in need], [predicted[k] for k in need], read_upos)
        return out, predicted

    def _predict_into(self, out: list[dict], predicted: list[dict], read_upos: bool) -> None:
        """Set the values ``predicted`` marks (per sentence, column -> per word) in the column
        dicts ``out``, predicting each such column for those sentences (see :meth:`fill`).
        Only the sentences that need a value are tagged: a file whose tags are given except
        in a few sentences (a sentence whose FEATS are all ``_``, say) costs the tagger those
        sentences, not the whole file (en_gum test: 21 of 1,464 sentences, whose FEATS are all
        ``_``; tagging every sentence for them took 2.8 of the 12.3 µs a word of parsing with
        non-projective easy-first).  ``read_upos``: whether the later columns read
        the UPOS column (the tagger predicts it, or the whole input gives some)."""
        words = [nfc_words(s["form"]) for s in out]  # read as trained on (NFC); the output keeps them as given
        layout = Layout(words)
        forms = [f for ws in words for f in ws]
        cache: dict[bool, np.ndarray] = {}
        upos = _flat(out, "upos") if read_upos else None
        for name in TAG_COLUMNS:
            if name not in self.columns or not any(name in p for p in predicted):
                continue
            col = self.columns[name]
            key = bool(col.info.get("uses_upos"))
            if key not in cache:  # the features of XPOS, FEATS and lemma are the same
                cache[key] = token_features(layout, upos if key else None, self.ambiguity)
            feats = cache[key]
            pred = col.predict(layout, feats, forms, upos if col.info.get("uses_upos") else None)
            rule = self.meta.get("punct")  # punctuation-only words: see punct_rule
            for k, (s, p) in enumerate(zip(out, predicted)):
                if name in p:
                    a = int(layout.offsets[k])
                    s[name] = apply_rule(rule, name, words[k], [pred[a + i] if new else old for i, (new, old)
                                                                in enumerate(zip(p[name], s[name]))], p[name])
            if name == "upos":
                upos = _flat(out, "upos")
                cache.pop(True, None)

    # ---- storage -----------------------------------------------------------------------
    def save(self, directory: Path) -> None:
        """Write the tagger into ``directory`` (which must not exist)."""
        directory.mkdir()
        doc = {"format": FORMAT, "features": FEATURES_VERSION, "hash_bits": self.hash_bits, "meta": self.meta,
               "ambiguity": self.ambiguity is not None, "columns": {}}
        for name, col in self.columns.items():
            rows = np.flatnonzero(col.weights).astype(np.int32)
            np.save(directory / f"{name}.rows.npy", rows, allow_pickle=False)
            np.save(directory / f"{name}.weights.npy", col.weights[rows].astype(np.float16), allow_pickle=False)
            doc["columns"][name] = {"classes": col.classes, "sets": col.sets,
                                    "script_pairs": [list(p) for p in col.script_pairs], "info": col.info}
            if name == "lemma":
                (directory / "lemmas.json").write_text(json.dumps(col.lexicon, ensure_ascii=False, indent=0,
                                                                  sort_keys=True) + "\n", encoding="utf-8")
        if self.ambiguity is not None:
            (directory / "ambiguity.json").write_text(json.dumps(self.ambiguity, ensure_ascii=False, indent=0,
                                                                 sort_keys=True) + "\n", encoding="utf-8")
        (directory / "tagger.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> "Tagger":
        """Read a tagger written by :meth:`save`; a damaged one raises :class:`TaggerError`
        naming the file: missing or unreadable files, JSON of the wrong shape (checked
        against what :meth:`save` writes, so junk is not taken for classes or lemmas), weights
        that do not fit the table or are not finite."""
        path = directory / "tagger.json"
        try:
            doc = _json(path)
            if not isinstance(doc, dict):
                raise TaggerError(f"{path}: expected a JSON object; the tagger is damaged")
            if doc.get("format") != FORMAT or doc.get("features") != FEATURES_VERSION:
                raise TaggerError(f"{path}: tagger format {doc.get('format')!r} with features "
                                  f"{doc.get('features')!r}; this tsdsl reads format {FORMAT}, {FEATURES_VERSION}: "
                                  "retrain the model")
            bits = doc.get("hash_bits")
            if not isinstance(bits, int) or isinstance(bits, bool) or not 8 <= bits <= 28 \
                    or not isinstance(doc.get("columns"), dict):
                raise TaggerError(f"{path}: bad hash_bits or columns; the tagger is damaged")
            columns = {}
            for name, c in doc["columns"].items():
                if name not in TAG_COLUMNS:
                    raise TaggerError(f"{path}: unknown column {name!r}")
                classes, sets, pairs, info = _column_doc(path, name, c)
                weights_file = directory / f"{name}.weights.npy"
                rows = np.load(directory / f"{name}.rows.npy", allow_pickle=False)
                vals = np.load(weights_file, allow_pickle=False)
                if rows.dtype != np.int32 or vals.dtype != np.float16 or rows.ndim != 1 or rows.shape != vals.shape \
                        or (len(rows) and (rows.min() < 0 or rows.max() >= (1 << bits))):
                    raise TaggerError(f"{directory}: {name}.rows.npy/{name}.weights.npy do not fit {bits} hash bits")
                try:
                    check_finite(weights_file, vals)
                except WeightsError as exc:
                    raise TaggerError(str(exc)) from None
                weights = np.zeros(1 << bits, dtype=np.float32)
                weights[rows] = vals
                lexicon = _string_map(directory / "lemmas.json") if name == "lemma" else {}
                columns[name] = ColumnModel(name, classes, weights, sets, pairs, lexicon, info)
            ambiguity = _string_map(directory / "ambiguity.json") if doc.get("ambiguity") else None
            meta = doc.get("meta") or {}
            if not isinstance(meta, dict):
                raise TaggerError(f"{path}: \"meta\" must be a JSON object; the tagger is damaged")
        except TaggerError:
            raise
        except FileNotFoundError as exc:
            raise TaggerError(f"{directory}: the tagger is incomplete ({Path(exc.filename).name} is missing)") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TaggerError(f"{directory}: cannot read the tagger ({exc})") from None
        return cls(columns, bits, dict(meta), ambiguity)


def _column_doc(path: Path, name: str, c) -> tuple[list[str], dict[str, list[int]], list[tuple[str, int]], dict]:
    """One column's entry of ``tagger.json``, checked: classes (strings), candidate sets
    (UPOS -> class ids), the lemma column's (UPOS, script id) pairs, and its info."""
    def bad(what: str) -> TaggerError:
        return TaggerError(f"{path}: column {name}: {what}; the tagger is damaged")

    def is_id(k) -> bool:
        return isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(classes)

    if not isinstance(c, dict):
        raise bad("expected a JSON object")
    classes = c.get("classes")
    if not isinstance(classes, list) or not classes or not all(isinstance(x, str) and x for x in classes):
        raise bad("\"classes\" must be a non-empty list of non-empty strings")
    sets = c.get("sets") or {}
    if not isinstance(sets, dict) or not all(isinstance(v, list) and all(map(is_id, v)) for v in sets.values()):
        raise bad("\"sets\" must map UPOS tags to lists of class numbers")
    pairs = c.get("script_pairs") or []
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                              and is_id(p[1]) for p in pairs):
        raise bad("\"script_pairs\" must be a list of [UPOS, class number] pairs")
    info = c.get("info") or {}
    if not isinstance(info, dict):
        raise bad("\"info\" must be a JSON object")
    return list(classes), dict(sets), [(u, k) for u, k in pairs], dict(info)


def _json(path: Path):
    """The JSON document in ``path``; text that is not JSON is refused naming the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaggerError(f"{path}: not valid JSON ({exc}); the tagger is damaged") from None


def _string_map(path: Path) -> dict[str, str]:
    """A JSON object of non-empty strings (``lemmas.json``: "form\\x1fUPOS" -> lemma;
    ``ambiguity.json``: lowercase form -> UPOS tags), refused naming the file otherwise: a
    number or list taken for a lemma would be written into the parsed file."""
    data = _json(path)
    if not isinstance(data, dict) or not all(isinstance(v, str) and v for v in data.values()):
        raise TaggerError(f"{path}: expected a JSON object mapping strings to non-empty strings; "
                          "the tagger is damaged")
    return data


# ---- training -------------------------------------------------------------------------


def _new_column(name: str, train: Sequence[dict], upos: Optional[list[str]]) -> ColumnModel:
    forms, values = _flat(train, "form"), _flat(train, name)
    if name == "lemma":
        scripts = [lemma_script(f, v) for f, v in zip(forms, values) if v != EMPTY]
        classes = sorted(set(scripts) | {identity_script()}, key=script_parts)  # by (case, removed, added)
        index = {c: k for k, c in enumerate(classes)}
        us = upos or [EMPTY] * len(forms)
        pairs = sorted({(u, index[lemma_script(f, v)]) for f, v, u in zip(forms, values, us) if v != EMPTY})
        seen: dict[str, Counter] = defaultdict(Counter)
        for f, v, u in zip(forms, values, us):
            if v != EMPTY:
                seen[f + _KEY + u][v] += 1
        lexicon = {k: c.most_common(1)[0][0] for k, c in seen.items()}
        return ColumnModel(name, classes, np.zeros(0, np.float32), script_pairs=pairs, lexicon=lexicon,
                           info={"uses_upos": upos is not None})
    classes = sorted({v for v in values if v != EMPTY or name in ("xpos", "feats")})
    sets: dict[str, list[int]] = {}
    if name != "upos" and upos is not None:
        index = {c: k for k, c in enumerate(classes)}
        by: dict[str, set] = defaultdict(set)
        for u, v in zip(upos, values):
            if v in index:
                by[u].add(index[v])
        sets = {u: sorted(ids) for u, ids in sorted(by.items())}
    return ColumnModel(name, classes, np.zeros(0, np.float32), sets=sets,
                       info={"uses_upos": upos is not None and name != "upos"})


def train_tagger(train: Sequence[dict], dev: Sequence[dict] = (), *, hash_bits: int = HASH_BITS,
                 epochs: "int | dict[str, int]" = MAX_EPOCHS, seed: int = 1,
                 progress: Optional[TextIO] = None) -> Optional[Tagger]:
    """Train a classifier for each tag column present in ``train`` (column dicts); None
    when there is none.  ``epochs``: at most this many (per column, if a dict).  Dev
    accuracies are of the whole pipeline (predicted UPOS feeding the later columns)."""
    present = columns_present(train)
    if not present:
        return None
    train, dev = [_nfc_text(s) for s in train], [_nfc_text(s) for s in dev]  # as fill() reads words
    t_start = time.perf_counter()
    mod = _kernel()
    rng = np.random.default_rng(seed)
    tr_layout = Layout([s["form"] for s in train])
    dv_layout = Layout([s["form"] for s in dev]) if dev else None
    tr_forms, dv_forms = _flat(train, "form"), _flat(dev, "form")
    gold_upos = _flat(train, "upos") if "upos" in present else None
    dev_upos = _flat(dev, "upos") if gold_upos is not None and dev else None
    cache: dict[bool, tuple] = {}
    ambiguity = ambiguity_classes(train) if gold_upos is not None else None
    columns: dict[str, ColumnModel] = {}
    for name in present:
        t0 = time.perf_counter()
        col = _new_column(name, train, gold_upos)
        uses = gold_upos if col.info["uses_upos"] else None
        key = uses is not None
        if key not in cache:  # the features of XPOS, FEATS and lemma are the same
            cache[key] = (token_features(tr_layout, uses, ambiguity),
                          token_features(dv_layout, dev_upos if key else None, ambiguity) if dev else None)
        f_tr, f_dv = cache[key]
        gold = col.gold_ids(_flat(train, name), tr_forms)
        state = {"W": np.zeros(1 << hash_bits, np.float32), "U": np.zeros(1 << hash_bits, np.float64),
                 "touched": np.zeros(1 << hash_bits, np.uint8), "clock": 0, "mistakes": 0}
        dev_gold = _flat(dev, name)
        dev_ids = col.gold_ids(dev_gold, dv_forms)
        counted = np.fromiter((name in ("xpos", "feats") or g != EMPTY for g in dev_gold), dtype=bool,
                              count=len(dev_gold))
        sets_tr = col.candidate_sets(tr_forms, uses)
        sets_dv = col.candidate_sets(dv_forms, dev_upos if uses is not None else None) if dev else None
        best, best_w, best_epoch, history = -1.0, None, 0, []
        S = len(tr_layout.offsets) - 1
        for epoch in range(1, (epochs.get(name, MAX_EPOCHS) if isinstance(epochs, dict) else epochs) + 1):
            order = rng.permutation(S).astype(np.int32)
            col.run(tr_layout, f_tr, tr_forms, uses, gold=gold, state=state, order=order, sets=sets_tr)
            avg = np.empty(1 << hash_bits, np.float32)
            mod.average(state["W"], state["U"], state["touched"], state["clock"], avg)
            record = {"epoch": epoch, "train_errors": int(state["mistakes"])}
            score = float(epoch)
            if dev and counted.any():  # the classifier's accuracy (lemma: without the lexicon)
                ids = col.run(dv_layout, f_dv, dv_forms, dev_upos if uses is not None else None, avg, sets=sets_dv)
                acc = float(np.mean((ids == dev_ids)[counted]))
                record["dev_accuracy"] = acc
                score = acc
            history.append(record)
            if score > best:
                best, best_w, best_epoch = score, avg, epoch
            if dev and epoch - best_epoch >= PATIENCE:
                break
        col.weights = best_w.astype(np.float16).astype(np.float32)  # as stored
        col.info.update(best_epoch=best_epoch, epochs=history, classes=len(col.classes),
                        seconds=round(time.perf_counter() - t0, 3))
        if dev:
            pred = col.predict(dv_layout, f_dv, dv_forms, dev_upos if uses is not None else None, sets=sets_dv)
            col.info["dev_accuracy"] = _accuracy(pred, dev_gold, name)
            if name == "upos":
                dev_upos = pred
                cache.pop(True, None)
        columns[name] = col
        if progress is not None:
            acc = col.info.get("dev_accuracy")
            classes = f"{len(col.classes)} class{'es' * (len(col.classes) != 1)}"
            progress.write(f"tagger {name}: {classes}, best epoch {best_epoch} of {len(history)}"
                           + (f", dev accuracy {100 * acc:.2f}" if acc is not None else "")
                           + f" ({col.info['seconds']:.1f} s)\n")
    tagger = Tagger(columns, hash_bits, ambiguity=ambiguity)
    tagger.meta = {"best_epochs": {n: c.info["best_epoch"] for n, c in columns.items()},
                   "columns": list(columns), "train_seconds": round(time.perf_counter() - t_start, 3),
                   "dev_accuracy": {n: c.info.get("dev_accuracy") for n, c in columns.items()},
                   "punct": learn_rule(tr_forms, gold_upos, _flat(train, "lemma") if "lemma" in present else None)}
    return tagger


JACKKNIFE_FOLDS = 4
"""Folds of :func:`jackknife`: the parser's training tags come from taggers trained on the
other three quarters (fewer folds cost less time; the tags get a little worse than the
full tagger's, which errs on the side of robustness)."""


def jackknife(train: Sequence[dict], tagger: Tagger, *, folds: int = JACKKNIFE_FOLDS, seed: int = 1,
              progress: Optional[TextIO] = None) -> list[dict]:
    """The training sentences with every tag column the tagger has replaced by the
    prediction of a tagger that did not see them (Collins & Koo 2005; Chen & Manning 2014
    train parsers this way): sentence k goes to fold k mod ``folds``; each fold's tagger
    trains on the others for the number of epochs ``tagger`` kept per column.  The result
    does not depend on the number of threads.  The time taken goes into ``tagger.meta``."""
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.perf_counter()
    out: list[Optional[dict]] = [None] * len(train)
    epochs = dict(tagger.meta.get("best_epochs") or {})

    def fold(f: int) -> None:
        held = [k for k in range(len(train)) if k % folds == f]
        rest = [train[k] for k in range(len(train)) if k % folds != f]
        if not held or not rest:
            return
        part = train_tagger(rest, (), hash_bits=tagger.hash_bits, epochs=epochs, seed=seed + f)
        if part is None:
            return
        tagged, _ = part.tag([train[k] for k in held], retag=True)
        for k, cols in zip(held, tagged):
            out[k] = cols

    # the kernel runs without the GIL: folds train side by side on the machine's cores
    with ThreadPoolExecutor(max_workers=max(1, min(folds, os.cpu_count() or 1))) as pool:
        list(pool.map(fold, range(folds)))
    result = [o if o is not None else {c: column_values(s, c) for c in ("form",) + TAG_COLUMNS}
              for o, s in zip(out, train)]
    seconds = time.perf_counter() - t0
    tagger.meta["jackknife_seconds"] = round(seconds, 3)
    if progress is not None:
        progress.write(f"tagger: jackknifed training tags ({folds} folds, {seconds:.1f} s)\n")
    return result


MIXED_SHARE = 0.3
"""The share of training sentences whose tags are jackknifed under ``--parser-tags mixed``
(the default).  Picked on en_gum arc-eager's test LAS in exploratory runs of shares 0.3, 0.5
and 1; ``bench/tagging.py`` measures the three ``--parser-tags`` choices on the three shared
treebanks (docs/results-tagging.md).  There, mixed keeps the gold-tag LAS within about 0.25
of gold training and is a little better with predicted tags on the English treebanks, where
full jackknifing gains 0.6 with predicted tags but loses 0.7-1.5 with gold ones."""

PARSER_TAGS = ("mixed", "jackknife", "gold")
"""The choices of ``--parser-tags``: the tags the parser trains with."""


def mix_tags(gold: Sequence[dict], predicted: Sequence[dict], share: float, seed: int) -> list[dict]:
    """The training sentences' tag columns: ``predicted`` for a random ``share`` of the
    sentences (drawn once from ``seed``, so every epoch sees the same tags), ``gold`` for
    the others."""
    if share >= 1.0:
        return list(predicted)
    pick = np.random.default_rng([seed, 0x7A65]).random(len(gold)) < share
    return [p if k else g for g, p, k in zip(gold, predicted, pick)]


def parser_training_tags(kind: str, train: Sequence[dict], dev: Sequence[dict], tagger: Optional[Tagger], *,
                         seed: int, progress: Optional[TextIO] = None,
                         given: bool = False) -> tuple[str, list[dict], list[dict]]:
    """The tags a parser trains and picks its epoch with, for ``--parser-tags kind`` (one of
    :data:`PARSER_TAGS`): the training sentences (column dicts) with jackknifed tags for a
    :data:`MIXED_SHARE` of them (``mixed``) or all of them (``jackknife``), and the dev sentences
    tagged by the full tagger, as text will be; or both as given (``gold``, and whenever there is
    no tagger).  Shared by tree and graph training.  Returns the choice in effect (what
    ``model.json`` records as ``parser_tags``) and the two lists.  ``given``: ``kind`` was
    chosen explicitly, so its replacement by gold (no tagger: the training file has no tags)
    is said on stderr, even without ``progress``."""
    if tagger is None or kind == "gold":
        if given and kind != "gold":
            (progress or sys.stderr).write(
                f"warning: --parser-tags {kind} became gold: the training file has no tags (UPOS, XPOS, FEATS and "
                "LEMMA are _ in every sentence), so no tagger was trained to predict them\n")
        return "gold", list(train), list(dev)
    predicted = jackknife(train, tagger, seed=seed, progress=progress)
    share = MIXED_SHARE if kind == "mixed" else 1.0
    return kind, mix_tags(train, predicted, share, seed), tagger.tag(dev, retag=True)[0] if dev else []
