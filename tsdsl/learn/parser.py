"""A trained parser: load a model directory, parse words or CoNLL-U sentences.

Every output is a tree, and every word has a label.  After the search the system's own `finally` rule applies
(Covington attaches headless words to the root; a rootless system's one headless word
becomes the root); then pseudo-projective labels are decoded when the model was
trained with ``--nonproj lift``; whatever is still not a single-rooted tree (fragments
left by a system that can stop early, several roots) is repaired by
:func:`tsdsl.treebank.repair.make_tree`, and the number of words it re-attached is counted.

Before parsing, the model's tagger (if it has one, see :mod:`tsdsl.learn.tagger`) fills in
the missing tag values (:func:`~tsdsl.learn.tagger.missing_words`: UPOS ``_`` on any word; the
other columns where they are empty in the whole sentence, or the word has no UPOS), or all of
them with ``retag``.  Without a tagger, input lacking UPOS on some word is refused
(:meth:`Parser.complete_tags`): parsing it would give garbage.  Tag columns the model's
training file did not have (model meta ``ignored_columns``) are read as empty.
"""

from __future__ import annotations

import sys
from collections import Counter
import time
import warnings
from itertools import chain
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, TextIO

import numpy as np

from ..treebank.conllu import Sentence, writable_label
from ..treebank.enhanced import (Graph, basic_label, empty_node_count, empty_node_line, expanded_deps, valid_graph,
                                 with_graph)
from ..errors import UsageError
from ..gcpause import cyclic_gc_paused
from ..kernels import compile_system
from ..kernels.fixed import prebuild
from ..kernels.graphs import parse_graphs
from ..treebank.projectivize import LIFT_MARK, deprojectivize
from ..treebank.repair import make_tree
from ..treebank.trees import reaches_root
from ..treebank.tokenize import comment_text, spacing, words_of
from .data import columns_of_all, make_batch
from .engine import Engine, check_beam
from .inputs import input_sentences
from .model import Model, ModelError, load
from .outputs import build_outputs, unit_names
from .known_tags import UnknownTags, known_upos, unknown_upos
from .tagger import EMPTY, TAG_COLUMNS, column_values, columns_present, is_empty
from .tokens import compiled_helpers


UNLABELED_FALLBACK = "dep"

FALLBACK_LABELS = "fallback_labels"
"""The model meta key mapping each UPOS to the commonest label of the training file's words
with that UPOS (not on the root): the label of a word the tree fallback attaches.  ``dep``
for every such word was a sure error on treebanks that never use it (el_gdt: 65 to 75 words of
a Covington parse of the test set); most are punctuation, whose label the table gets right."""


def fallback_labels(trees, columns) -> dict[str, str]:
    """:data:`FALLBACK_LABELS` of training trees ((heads, labels) per sentence; lifted labels
    read plain) and their column dicts."""
    counts: dict[str, Counter] = {}
    for (hs, ls), c in zip(trees, columns):
        for h, lab, u in zip(hs, ls, column_values(c, "upos")):
            if h != 0 and u != EMPTY and lab:
                counts.setdefault(u, Counter())[lab.split(LIFT_MARK)[0]] += 1
    return {u: cnt.most_common(1)[0][0] for u, cnt in sorted(counts.items())}
"""The label of a word no rule labeled (an arc a spec builds ``unlabeled``, under beam search):
UD's ``dep``, "unspecified dependency".  Greedy parsing labels such arcs with the label the
model noted for the word (see the kernel's ``parse_greedy``), so this is the last resort."""


@dataclass
class ParseStats:
    sentences: int = 0
    words: int = 0
    transitions: int = 0           # applied (greedy parsing skips runs every choice of which ends alike)
    stuck: int = 0                 # sentences whose search stopped before a terminal configuration
    repaired_words: int = 0        # words re-attached by the tree fallback
    repaired_sentences: int = 0
    seconds: float = 0.0
    tagged_sentences: int = 0      # sentences of which the tagger filled in some tag value
    tagged_words: int = 0          # words of which the tagger filled in some tag value
    missing_columns: list = field(default_factory=list)  # read by the parser, empty everywhere, not tagged
    nonmonotonic: list = field(default_factory=list)  # (sentence, word, overwritten head)
    unknown_upos: Optional[UnknownTags] = None  # given UPOS values the model never saw (see known_tags)
    dropped_empty_nodes: int = 0   # multihead models: the input's empty-node lines, not written

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else 0.0


class ParsedSentence(list):
    """What :meth:`Parser.parse` returns: a list of (head, label) per word (heads in CoNLL-U
    numbering, 0: the root), which also carries the words (``forms``; for a string, as
    tokenised) and their tag columns (``lemmas``, ``upos``, ``xpos``, ``feats``: given or
    predicted)."""

    def __init__(self, pairs, columns: dict, given: "str | Sequence[str]" = ()):
        super().__init__(pairs)
        self.forms = list(columns["form"])
        self.lemmas = list(columns["lemma"])
        self.upos = list(columns["upos"])
        self.xpos = list(columns["xpos"])
        self.feats = list(columns["feats"])
        self.text: Optional[str] = comment_text(given) if isinstance(given, str) else None
        """The sentence as given in a string, whitespace collapsed (its ``# text``); None for a
        list of words, whose spacing is not known."""
        self.space_after: list[bool] = spacing(self.text) if self.text is not None else [True] * len(self.forms)
        """Per word, whether a space follows it in ``text`` (always, for a list of words)."""

    def _head_lines(self) -> str:
        """``# text = ...`` for a sentence given as a string, as `tsdsl parse --text` writes it."""
        return "" if self.text is None else f"# text = {self.text}\n"

    def _misc(self) -> list[str]:
        """The MISC column: ``SpaceAfter=No`` on a word followed directly by the next one."""
        return ["_" if space else "SpaceAfter=No" for space in self.space_after]

    def to_conllu(self) -> str:
        """The sentence as a CoNLL-U block, as `tsdsl parse --text` writes it for a string
        (``# text`` and ``SpaceAfter=No``; no ``# sent_id``: it is one sentence), without
        comments for a list of words."""
        rows = [f"{k}\t{f}\t{l}\t{u}\t{x}\t{m}\t{h}\t{d}\t_\t{misc}\n" for k, (f, l, u, x, m, (h, d), misc) in
                enumerate(zip(self.forms, self.lemmas, self.upos, self.xpos, self.feats, self, self._misc()),
                          start=1)]
        return self._head_lines() + "".join(rows) + "\n"


def _column_of(attr: str) -> Optional[str]:
    """The CoNLL-U tag column a token attribute of the feature templates reads, if any."""
    if attr == "feats" or attr.startswith("feat:"):
        return "feats"
    return attr if attr in TAG_COLUMNS else None


def columns_read(features) -> set[str]:
    """The CoNLL-U tag columns the feature templates read (through any token attribute)."""
    return {_column_of(a) for a in features.token_attrs} - {None}


IGNORED_COLUMNS = "ignored_columns"
"""The model meta key naming the tag columns the features read but the training file left
empty: the parser never saw a value of them, so it reads them as empty (dev scoring and
parsing alike).  Models written before the key existed read every column, as they did."""


def without_columns(columns: Sequence[dict], names: Sequence[str]) -> Sequence[dict]:
    """The sentences (column dicts) with the columns ``names`` read as empty (``_`` for every
    word): how a model reads the columns its training file did not have (:data:`IGNORED_COLUMNS`)."""
    if not names:
        return columns
    return [dict(c, **{n: (EMPTY,) * len(c["form"]) for n in names}) for c in columns]


def absent_columns(features, train_columns) -> list[str]:
    """The tag columns the features read that the training sentences (column dicts) leave
    empty, ``_`` for every word: no tagger can be trained for them and the parser never sees
    a value of them, so the model ignores them (:data:`IGNORED_COLUMNS`)."""
    reads, present = columns_read(features), columns_present(train_columns)
    return [c for c in TAG_COLUMNS if c in reads and c not in present]


def warn_absent_columns(train_file, absent: list[str], progress: Optional[TextIO]) -> None:
    """Say on stderr (even with ``--quiet``) which columns the model will ignore and why:
    training on a file without tags would otherwise pass silently, and the dev score,
    given tags the parser never saw, would mean nothing."""
    if absent:
        names, them = ", ".join(c.upper() for c in absent), "it" if len(absent) == 1 else "them"
        (progress or sys.stderr).write(
            f"warning: {train_file}: {names} empty in every sentence (_ for every word) although the features "
            f"read {them}: no tagger can be trained for {them}, and the model ignores {them} (reads {them} as _ in "
            "the dev set and in parsed files)\n")


def _word_list(columns: dict, words: Sequence[int], shown: int = 5) -> str:
    """Words (0-based indices of a sentence) for a message: CoNLL-U ID and form, the first
    ``shown`` of them."""
    forms = columns["form"]
    text = ", ".join(f"{i + 1} {forms[i]!r}" for i in words[:shown])
    return text + (f" (and {len(words) - shown} more)" if len(words) > shown else "")


def sentence_columns(what: str, words: "str | Sequence[str]", *, upos: Optional[Sequence[str]] = None,
                     lemmas: Optional[Sequence[str]] = None, xpos: Optional[Sequence[str]] = None,
                     feats: Optional[Sequence[str]] = None) -> dict:
    """The column dict of one sentence given from Python (``what``: the method, for messages):
    a list of words, or a string tokenised by the rule of :mod:`tsdsl.treebank.tokenize` (never
    read as a list of characters), and the tag columns given, ``_`` for those not given (the
    tagger fills them in).  Shared by :meth:`Parser.parse` and the :class:`GraphParser`
    methods, so that both read their input alike.

    Raises:
        UsageError: bytes, an empty or non-string word, a tag column given as a string, or one
            whose length is not the number of words.
    """
    if isinstance(words, str):
        words = words_of(words)
    elif isinstance(words, (bytes, bytearray)):
        raise UsageError(f"{what}: words must be a string or a list of strings, not bytes")
    words = list(words)
    if not all(isinstance(w, str) and w for w in words):
        raise UsageError(f"{what}: every word must be a non-empty string")
    _refuse_breaks(what, "word", words)
    n = len(words)
    cols = {"form": words}
    for name, vals in (("upos", upos), ("lemma", lemmas), ("xpos", xpos), ("feats", feats)):
        if isinstance(vals, str):
            raise UsageError(f"{what}: {name} must be a list with one value per word, not a string")
        if vals is not None and len(vals) != n:
            raise UsageError(f"{what}: {len(vals)} {name} values for {n} words")
        if vals is not None:
            if not all(isinstance(v, str) and v for v in vals):
                raise UsageError(f"{what}: every {name} value must be a non-empty string (_ when unknown)")
            _refuse_breaks(what, f"{name} value", vals)
        cols[name] = list(vals) if vals is not None else [EMPTY] * n
    return cols


def _refuse_breaks(what: str, kind: str, values: Sequence[str]) -> None:
    """Refuse a value holding a tab or a line break: it would break the CoNLL-U line it is
    written to (``to_conllu``, ``tsdsl parse``), and no reader could take it back."""
    for i, v in enumerate(values, 1):
        if "\t" in v or "\n" in v or "\r" in v:
            raise UsageError(f"{what}: {kind} {i} ({v!r}) contains a tab or a line break, which CoNLL-U cannot hold")


def bind(model: Model, *, train: bool = False, weights: Optional[np.ndarray] = None) -> Engine:
    """The kernel of the model's system with its features, outputs and weights."""
    prebuild(["conllu_fast"] + (["tagger"] if model.tagger is not None else []))  # beside the kernel's build
    kernel = compile_system(model.system, fallback=False)
    outputs = build_outputs(model.system, unit_names(kernel), model.labels)
    if model.outputs and tuple(outputs.names) != tuple(model.outputs):
        where = f"{model.path}: " if model.path is not None else ""
        raise ModelError(f"{where}the model's outputs (model.json) do not match its spec and labels "
                         "(labels.json); the model is damaged: retrain it")
    table = model.parse_table() if weights is None and not train else None
    if table is not None:  # parsing a loaded model: from the sparse table (same parses, faster)
        return Engine(kernel, model.features, outputs, model.hash_bits, table=table,
                      feature_hash=model.feature_hash)
    return Engine(kernel, model.features, outputs, model.hash_bits,
                  weights=model.dense_weights() if weights is None else weights, train=train,
                  live_rows=model.live_rows if weights is None and not train else None,
                  feature_hash=model.feature_hash)


class _TagColumns:
    """What a parser does with the tag columns before parsing (shared by :class:`Parser` and
    :class:`GraphParser`): fill in the empty ones with the model's tagger, or refuse input
    whose UPOS is empty when there is none."""

    def _init_tags(self, model: Model) -> None:
        self.tagger = model.tagger
        trained = model.meta.get("tag_columns")
        reads = columns_read(model.features)
        self.reads = tuple(c for c in TAG_COLUMNS if c in reads and (trained is None or c in trained))
        """The tag columns the parser's features read (and training had)."""
        self.ignored = tuple(c for c in TAG_COLUMNS if c in (model.meta.get(IGNORED_COLUMNS) or ()))
        """The tag columns read as empty: the training file had none (:data:`IGNORED_COLUMNS`)."""
        self.known_upos = known_upos(model.meta, model.tagger) if "upos" in self.reads else None
        """The UPOS values the model saw in training (None: not known, or UPOS not read)."""

    def _warn_unknown_upos(self, columns: Sequence[dict], predicted: Sequence[dict]) -> None:
        """Python API: a UserWarning when given UPOS values are outside the model's set."""
        found = unknown_upos(columns, predicted, self.known_upos)
        if found.words:
            warnings.warn(found.message(sum(len(c["form"]) for c in columns)), UserWarning, stacklevel=3)

    def complete_tags(self, columns: Sequence[dict], *, retag: bool = False,
                      where: Optional[Sequence[tuple[str, int]]] = None) -> tuple[list[dict], list[dict]]:
        """The sentences (column dicts) with their missing tag values predicted (all with
        ``retag``; see :meth:`~tsdsl.learn.tagger.Tagger.fill`), and per sentence a dict:
        column -> per word, whether its value was predicted (the columns of which some was).

        Without a tagger for it, a sentence with a word whose UPOS is ``_`` is refused, be it
        every word or some: the parser's features lean on UPOS, and parsing without it gives
        garbage.  Other columns the parser reads (XPOS, FEATS, LEMMA) are then left as they
        are; :meth:`missing_columns` names those empty in every sentence.

        Raises:
            UsageError: UPOS is ``_`` on a word and the model has no tagger for it; ``where``
                gives each sentence's (file, line) for the message.
        """
        if retag and self.tagger is None:
            raise UsageError("retag: this model has no tagger (it was trained with --no-tagger, or its training "
                             "file had no tags)")
        if self.needs_given_upos:
            self._refuse_missing_upos(columns, where)
        if self.tagger is None:
            return [dict(c) for c in columns], [{} for _ in columns]
        return self.tagger.fill(columns, retag=retag)

    @property
    def needs_given_upos(self) -> bool:
        """Whether the input must bring its own UPOS: the features read it and the model has no
        tagger for it (trained with ``--no-tagger``), so untagged input (plain text) is refused."""
        return "upos" in self.reads and (self.tagger is None or "upos" not in self.tagger.columns)

    @staticmethod
    def _refuse_missing_upos(columns: Sequence[dict], where: Optional[Sequence[tuple[str, int]]]) -> None:
        """Raise UsageError for the first sentence with a word whose UPOS is ``_``, naming the
        sentence (its file:line from ``where``) and the words: a model without a UPOS tagger
        cannot parse it (UPOS ``_`` is never a UD value, so no word of it is legitimately so)."""
        for k, c in enumerate(columns):
            given = c.get("upos")
            if given is not None and EMPTY not in given:  # the common case, decided in C
                continue
            upos = column_values(c, "upos")
            gaps = [i for i, u in enumerate(upos) if u == EMPTY]
            if not gaps:
                continue
            whole = len(gaps) == len(upos)
            if where:
                what = (f"{where[k][0]}:{where[k][1]}: UPOS is empty " +
                        ("(_ for every word of the sentence)" if whole else
                         f"(_) for {len(gaps)} of the sentence's {len(upos)} words: {_word_list(c, gaps)}"))
            else:
                what = "parse: no UPOS given" + ("" if whole else f" for words {_word_list(c, gaps)}")
            raise UsageError(f"{what}, and this model has no tagger to predict it: give tagged input, or "
                             "train the model with its tagger (the default of `tsdsl train`)")

    def _input_columns(self, sentences: Sequence[Sentence], retag: bool):
        """The sentences' word columns with the tags completed (:meth:`complete_tags`), the
        per-sentence masks of the predicted values, and the checks that read every word's
        columns (:meth:`missing_columns`, :func:`unknown_upos`), made now, before the search:
        after it the words' objects are out of the caches (the search streams tens of
        megabytes of rows) and the same checks cost about four times as much."""
        where = [(s.file, s.line) for s in sentences]
        columns, predicted = self.complete_tags(columns_of_all(sentences), retag=retag, where=where)
        return (columns, predicted, self.missing_columns(columns),
                unknown_upos(columns, predicted, self.known_upos, where))

    def missing_columns(self, columns: Sequence[dict]) -> list[str]:
        """The tag columns the parser reads, its tagger cannot predict, and every sentence
        of ``columns`` leaves empty (parsing goes on without them, less accurately)."""
        can = set(self.tagger.columns) if self.tagger is not None else set()
        return [c for c in self.reads if c not in can and columns
                and all(is_empty(column_values(x, c)) for x in columns)]


class Parser(_TagColumns):
    """Parse with a trained model (see :func:`load_parser`)."""

    def __init__(self, model: Model, engine: Optional[Engine] = None):
        self.model = model
        self.engine = engine or bind(model)
        if model.root_label_strict and model.root_label in model.labels:
            # the root label on the arcs from the root and on no other, as in training
            self.engine.learner.set_root_label(model.labels.index(model.root_label))
        self.beam = int(model.meta.get("beam", 1) or 1)
        self.lifted = model.meta.get("nonproj") == "lift"
        table = model.meta.get(FALLBACK_LABELS)
        self.fallback_labels = {u: x for u, x in table.items() if isinstance(u, str) and isinstance(x, str)
                                and writable_label(x)} if isinstance(table, dict) else {}
        """UPOS -> the label a word the tree fallback attaches gets (models before it: ``dep``)."""
        self._init_tags(model)

    @property
    def labels(self) -> list[str]:
        return self.model.labels

    def _fallbacks(self, labels: list, columns: dict) -> list[str]:
        """``labels`` with each None (an arc no action labeled: the tree fallback's, a spec's
        unlabeled arc) given the training file's commonest label of a word with that UPOS
        (:data:`FALLBACK_LABELS`), else ``dep``."""
        upos = columns.get("upos") or ()
        table = self.fallback_labels
        return [x if x is not None else table.get(upos[i] if i < len(upos) else "", UNLABELED_FALLBACK)
                for i, x in enumerate(labels)]

    def parse(self, words: "str | Sequence[str]", upos: Optional[Sequence[str]] = None, *,
              lemmas: Optional[Sequence[str]] = None, xpos: Optional[Sequence[str]] = None,
              feats: Optional[Sequence[str]] = None, retag: bool = False) -> ParsedSentence:
        """Parse one sentence: a list of words, or a string, tokenised by the rule of
        :mod:`tsdsl.treebank.tokenize` (never read as a list of characters; a line break in
        it is a space, so the string is one sentence: :meth:`parse_sentences` parses a list of
        them, strings, lists of words or Sentences).  Tag columns
        not given are predicted by the model's tagger (all of them with ``retag``); a model
        without a tagger needs the columns its features read (UsageError otherwise).
        Returns (head, label) per word, with the words and tags (:class:`ParsedSentence`)."""
        cols = sentence_columns("parse", words, upos=upos, lemmas=lemmas, xpos=xpos, feats=feats)
        if not cols["form"]:
            return ParsedSentence([], cols)
        (done,), predicted = self.complete_tags([cols], retag=retag)
        self._warn_unknown_upos([done], predicted)
        heads, labels, _ = self.parse_columns([done])
        return ParsedSentence(zip(heads[0], labels[0]), done, words)

    def parse_sentences(self, sentences: "Sequence[Sentence | str | Sequence[str]]", *, beam: Optional[int] = None,
                        log_nonmonotonic: bool = False, retag: bool = False) -> tuple[list[Sentence], ParseStats]:
        """Parse many sentences at once: a list whose items are each a :class:`Sentence` (as
        :func:`~tsdsl.treebank.conllu.read_conllu` reads them), a string (one sentence,
        tokenised as :meth:`parse` tokenises a string) or a list of words; kinds may be mixed.
        Returns the sentences, in order, with predicted HEAD and DEPREL and the tag columns the
        tagger predicted (see :meth:`complete_tags`); nothing else of a Sentence changes.  A
        string or list of words comes back as the Sentence :meth:`parse`'s ``to_conllu``
        writes for it (``# text`` and ``SpaceAfter=No`` for a string; no ``# sent_id``), with
        the same parse.  Also a :class:`ParseStats`.

        Raises:
            TypeError: one string or Sentence instead of a list, or an item of another type
                (the message names its index and what is accepted).
            UsageError: a string or list without a word, or a bad word (named by index)."""
        sentences = input_sentences("parse_sentences", sentences)
        with cyclic_gc_paused():
            return self._parse_sentences(sentences, beam=beam, log_nonmonotonic=log_nonmonotonic, retag=retag)

    def _parse_sentences(self, sentences, *, beam, log_nonmonotonic, retag):
        columns, predicted, missing, unknown = self._input_columns(sentences, retag)
        heads, labels, stats = self.parse_columns(columns, beam=beam, log_nonmonotonic=log_nonmonotonic)
        stats.missing_columns, stats.unknown_upos = missing, unknown
        count_tagged(stats, predicted)
        # every head is an int in 0..n (a tree); the labels are checked once per distinct label,
        # so the lines are rewritten without with_heads's per-sentence checks (same text)
        trusted = all(map(writable_label, set(chain.from_iterable(labels)))) and \
            set(map(type, chain.from_iterable(heads))) <= {int}
        tagged = [s.with_columns({name: c[name] for name in TAG_COLUMNS if name in p}) if p else s
                  for s, c, p in zip(sentences, columns, predicted)]
        fast = compiled_helpers() if trusted else None
        # each word line rewritten in C where it can be (the same text), else in Python
        rewritten = fast.rewrite_heads(tagged, heads, labels) if fast is not None else [None] * len(tagged)
        out = []
        for s, h, l, r in zip(tagged, heads, labels, rewritten):
            if r is not None:
                out.append(s._with_lines(r[0], r[1], l))
            elif trusted and len(h) == s.n:
                out.append(s._with_head_texts(list(map(str, h)), l))
            else:
                out.append(s.with_heads(h, l))
        return out, stats

    def parse_columns(self, columns, *, beam: Optional[int] = None, log_nonmonotonic: bool = False):
        """Heads and labels (lists per sentence) and :class:`ParseStats` for sentences given
        as column dicts (form, and optionally lemma, upos, xpos, feats)."""
        stats = ParseStats(sentences=len(columns))
        t0 = time.perf_counter()
        batch = make_batch(without_columns(columns, self.ignored), self.model.features.token_attrs)
        width = self.beam if beam is None else beam
        check_beam(width)
        if log_nonmonotonic and width > 1:
            raise UsageError("the non-monotonic log (--nm-log) is kept by greedy parsing only; use --beam 1")
        h, l, steps, stuck, events = self.engine.parse(batch, beam=width, log_nonmonotonic=log_nonmonotonic)
        stats.transitions, stats.stuck = int(steps), int(stuck)
        heads_out, labels_out = [], []
        names = self.model.labels
        root_label = self.model.root_label
        offs = batch.offsets
        total = batch.words
        h = finished_heads(self.model.system.headless_rule, h[:total], offs)
        whole = already_trees(h, offs).tolist()
        hl, ll = h.tolist(), l[:total].tolist()
        n_names = len(names)
        # the labels of a sentence that is a tree already, for the whole batch at once: the
        # model's name, else the root label on a root arc, else the fallback
        lab = np.asarray(l[:total], dtype=np.int64)
        known = (lab >= 0) & (lab < n_names)
        pick = np.where(known, lab, np.where(np.asarray(h[:total]) == 0, n_names, n_names + 1))
        tree_labels = np.array(list(names) + [root_label, None], dtype=object)[pick].tolist()
        bounds = offs.tolist()
        # labels a pseudo-projective model decodes (a tree holding one goes the long way)
        lift_marked = {x for x in (*names, root_label, UNLABELED_FALLBACK) if LIFT_MARK in x} if self.lifted else set()
        for si in range(batch.sentences):
            a, b = bounds[si], bounds[si + 1]
            hs = hl[a:b]
            if whole[si]:  # a single-rooted tree already: `finally` and make_tree would leave it as it is
                ls = tree_labels[a:b]
                if not lift_marked or lift_marked.isdisjoint(ls):
                    heads_out.append(hs)
                    labels_out.append(self._fallbacks(ls, columns[si]) if None in ls else ls)
                    continue
            ls = [names[x] if 0 <= x < len(names) else None for x in ll[a:b]]
            self.model.system.finish(hs, ls, root_label)
            for i, x in enumerate(hs):
                if x == 0 and ls[i] is None:
                    ls[i] = root_label
            fixed = make_tree(hs, ls, root_label=root_label, fallback_label=None)
            hs, ls = list(fixed.heads), list(fixed.labels)
            if fixed.fixes:
                stats.repaired_words += fixed.fixes
                stats.repaired_sentences += 1
            if self.lifted and any(LIFT_MARK in x for x in ls if x):
                hs, ls = deprojectivize(hs, ls)
                hs, ls = list(hs), list(ls)
            heads_out.append(hs)
            labels_out.append(self._fallbacks(ls, columns[si]))
        stats.words = batch.words
        stats.seconds = time.perf_counter() - t0
        if events is not None:
            stats.nonmonotonic = [tuple(int(x) for x in row) for row in events]
        return heads_out, labels_out, stats


def count_tagged(stats: ParseStats, predicted: Sequence[dict]) -> None:
    """Count into ``stats`` the sentences and words of which the tagger predicted some tag value
    (``predicted``: per sentence, column -> per-word mask, as :meth:`_TagColumns.complete_tags`
    returns), for the summary of `tsdsl parse`."""
    stats.tagged_sentences = sum(1 for p in predicted if p)
    stats.tagged_words = sum(sum(map(any, zip(*p.values()))) for p in predicted if p)


def finished_heads(rule: Optional[str], heads: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The heads of a parsed batch (CoNLL-U numbering, -1: none; sentence i is
    heads[offsets[i]:offsets[i + 1]]) after the system's end-of-parse rule
    (:meth:`~tsdsl.ir.System.finish`; ``rule`` is its :attr:`~tsdsl.ir.System.headless_rule`),
    for the whole batch at once: so that a sentence the rule makes a tree takes the fast path
    of :meth:`Parser.parse_columns`.  The words it attaches have no label yet; they get the
    root label there, as ``finish`` gives them."""
    heads = np.array(heads, dtype=np.int64)
    headless = heads < 0
    if rule == "all":
        heads[headless] = 0
    elif rule == "single" and len(heads):
        lengths = np.diff(offsets)
        full = lengths > 0
        count = np.zeros(len(lengths), dtype=np.int64)
        count[full] = np.add.reduceat(headless.astype(np.int64), offsets[:-1][full])
        heads[headless & np.repeat(count == 1, lengths)] = 0
    return heads


def already_trees(heads: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per sentence of a parsed batch (heads in CoNLL-U numbering, -1: none; sentence i is
    heads[offsets[i]:offsets[i + 1]]): whether it is a single-rooted tree already, every
    word reaching the root without a cycle.  Found for the whole batch at once by pointer
    jumping, so that :meth:`Parser.parse_columns` repairs only the other sentences."""
    n_sent = len(offsets) - 1
    total = int(offsets[-1])
    if n_sent == 0:
        return np.zeros(0, dtype=bool)
    heads = np.asarray(heads[:total], dtype=np.int64)
    to_root = reaches_root(heads, offsets)
    empty = np.diff(offsets) == 0
    ok = np.zeros(n_sent, dtype=bool)
    full = ~empty
    starts = offsets[:-1][full]
    ok[full] = (np.add.reduceat((heads == 0).astype(np.int64), starts) == 1) & \
        (np.add.reduceat((~to_root).astype(np.int64), starts) == 0)
    return ok


ROOT_LABEL = "root"
"""The label of a multihead model's root arcs in the tree read from a graph."""

BASIC_LABELS = "basic_labels"
"""The model meta key of a multihead model listing the DEPREL values of its training file: the
labels the tree read from a predicted graph may use (:func:`~tsdsl.treebank.enhanced.basic_label`)."""


class GraphParser(_TagColumns):
    """Parse with a trained multihead model (see :mod:`tsdsl.learn.graphs`): the predicted
    graph goes to DEPS; HEAD and DEPREL get a tree read from it, so that the output stays valid
    CoNLL-U.  It is not a basic-dependency parse.  The tree: each word's first arc (the first
    the parser built), made a single-rooted tree by :func:`~tsdsl.treebank.repair.make_tree`
    (the first word on the root is the root; other words on the root, and words the parser
    left without a head, hang from it as ``dep``); its labels are basic labels
    (:func:`~tsdsl.treebank.enhanced.basic_label`: ``root`` on the arc from 0 only; otherwise
    the enhanced label's first step cut to a DEPREL of the training file, ``nmod:of`` ->
    ``nmod``; ``dep`` if none).  The graph is then made valid enhanced UD against the tree
    (:func:`~tsdsl.treebank.enhanced.valid_graph`: one ``0:root``, on the tree's root; every
    word's HEAD among its DEPS heads), and its collapsed paths (``>`` labels) are written as
    empty nodes (:func:`~tsdsl.treebank.enhanced.expanded_deps`)."""

    def __init__(self, model: Model, engine: Optional[Engine] = None):
        self.model = model
        self.engine = engine or bind(model)
        self._init_tags(model)
        basic = model.meta.get(BASIC_LABELS)
        self.basic_labels = frozenset(basic) if basic else None
        """The DEPREL values of the training file (None for models written before they were
        recorded: UD's universal relations stand in)."""

    @property
    def labels(self) -> list[str]:
        return self.model.labels

    def predict(self, columns) -> tuple[list[tuple[Graph, list[int], list[str]]], ParseStats]:
        """Per sentence (given as column dicts): its graph, and the tree read from it (heads,
        labels), with :class:`ParseStats` (see the class docstring)."""
        stats = ParseStats(sentences=len(columns))
        t0 = time.perf_counter()
        batch = make_batch(without_columns(columns, self.ignored), self.model.features.token_attrs)
        arcs, steps, stuck = parse_graphs(self.engine.kernel.module, self.engine.learner, batch.offsets,
                                          batch.tokens, batch.words)
        stats.transitions, stats.stuck = steps, stuck
        names = self.model.labels
        offs = batch.offsets.tolist()
        per_word: list[list[tuple[int, str, int]]] = [[] for _ in range(batch.words)]
        for w, h, l, first in arcs.tolist():
            per_word[w].append((h, names[l] if 0 <= l < len(names) else UNLABELED_FALLBACK, first))
        basic = {}   # enhanced label -> basic label, once per label
        out = []
        for si in range(batch.sentences):
            a, b = offs[si], offs[si + 1]
            graph = tuple(tuple(sorted({(h, l) for h, l, _ in per_word[k]})) for k in range(a, b))
            heads: list[Optional[int]] = []
            labs: list[Optional[str]] = []
            for k in range(a, b):
                first = next(((h, l) for h, l, f in per_word[k] if f), None)
                heads.append(None if first is None else first[0])
                if first is None:
                    labs.append(None)
                elif first[0] == 0:
                    labs.append(ROOT_LABEL)
                else:
                    if first[1] not in basic:
                        x = basic_label(first[1], self.basic_labels)
                        basic[first[1]] = UNLABELED_FALLBACK if x == ROOT_LABEL else x
                    labs.append(basic[first[1]])
            fixed = make_tree(heads, labs, root_label=ROOT_LABEL, fallback_label=UNLABELED_FALLBACK)
            if fixed.fixes:
                stats.repaired_words += fixed.fixes
                stats.repaired_sentences += 1
            tree_labels = [UNLABELED_FALLBACK if x is None else x for x in fixed.labels]
            out.append((valid_graph(graph, fixed.heads, tree_labels), list(fixed.heads), tree_labels))
        stats.words = batch.words
        stats.seconds = time.perf_counter() - t0
        return out, stats

    def parse_graph(self, words: "str | Sequence[str]", upos: Optional[Sequence[str]] = None, *,
                    lemmas: Optional[Sequence[str]] = None, xpos: Optional[Sequence[str]] = None,
                    feats: Optional[Sequence[str]] = None, retag: bool = False) -> Graph:
        """The enhanced graph of one sentence: per word, its (head, label) pairs (heads in
        CoNLL-U numbering, 0: the root; the graph :meth:`parse` returns as ``.graph``).  The
        input is read as by :meth:`Parser.parse`: a list of words or a string (tokenised,
        never read as characters); tag columns not given are predicted by the model's tagger,
        as `tsdsl parse` does."""
        return self.parse(words, upos, lemmas=lemmas, xpos=xpos, feats=feats, retag=retag).graph

    def parse(self, words: "str | Sequence[str]", upos: Optional[Sequence[str]] = None, *,
              lemmas: Optional[Sequence[str]] = None, xpos: Optional[Sequence[str]] = None,
              feats: Optional[Sequence[str]] = None, retag: bool = False) -> "ParsedGraph":
        """Parse one sentence as :meth:`Parser.parse` does (same input, tags completed by
        the tagger), into a :class:`ParsedGraph`: (head, label) per word of the tree read from
        the graph (what `tsdsl parse` writes to HEAD and DEPREL; not a basic-dependency parse),
        the words and tags, and the predicted enhanced graph as ``.graph`` (what it writes to
        DEPS), so that ``load_parser(DIR).parse(...)`` works for every model."""
        cols = sentence_columns("parse", words, upos=upos, lemmas=lemmas, xpos=xpos, feats=feats)
        if not cols["form"]:
            return ParsedGraph([], cols, ())
        (done,), predicted = self.complete_tags([cols], retag=retag)
        self._warn_unknown_upos([done], predicted)
        ((graph, heads, labels),), _ = self.predict([done])
        return ParsedGraph(zip(heads, labels), done, graph, words)

    def parse_sentences(self, sentences: "Sequence[Sentence | str | Sequence[str]]", *, beam: Optional[int] = None,
                        log_nonmonotonic: bool = False, retag: bool = False) -> tuple[list[Sentence], ParseStats]:
        """The sentences with the predicted graph in DEPS and the tree read from it in HEAD
        and DEPREL, and the tag columns the tagger predicted (see :meth:`complete_tags`), as
        :meth:`Parser.parse_sentences` writes them; empty-node lines of the input dropped;
        nothing else changes.  The items are read as :meth:`Parser.parse_sentences` reads
        them: Sentences, strings (one sentence each) or lists of words."""
        sentences = input_sentences("parse_sentences", sentences)
        if beam is not None and beam > 1:
            raise UsageError("multihead models parse greedily (--beam 1)")
        if log_nonmonotonic:
            raise UsageError("--nm-log is for single-head models")
        columns, predicted, missing, unknown = self._input_columns(sentences, retag)
        pred, stats = self.predict(columns)
        stats.missing_columns, stats.unknown_upos = missing, unknown
        count_tagged(stats, predicted)
        stats.dropped_empty_nodes = sum(map(empty_node_count, sentences))
        out = []
        for s, c, p, (g, h, l) in zip(sentences, columns, predicted, pred):
            if p:
                s = s.with_columns({name: c[name] for name in TAG_COLUMNS if name in p})
            out.append(with_graph(s, g, h, l))
        return out, stats


class ParsedGraph(ParsedSentence):
    """What :meth:`GraphParser.parse` returns: a :class:`ParsedSentence` whose (head, label)
    pairs are the tree read from the predicted graph (HEAD and DEPREL of `tsdsl parse`), and
    the graph itself as ``graph``: per word, its (head, label) pairs (DEPS)."""

    def __init__(self, pairs, columns: dict, graph: Graph, given: "str | Sequence[str]" = ()):
        super().__init__(pairs, columns, given)
        self.graph = graph

    def to_conllu(self) -> str:
        """The sentence as a CoNLL-U block, the graph in DEPS, as `tsdsl parse` writes it
        (collapsed paths as empty nodes; ``# text`` and ``SpaceAfter=No`` for a string, as
        :meth:`ParsedSentence.to_conllu`)."""
        deps, empties = expanded_deps(self.graph)
        after: dict[int, list[str]] = {}
        for x, node_id, value in empties:
            after.setdefault(x, []).append(empty_node_line(node_id, value) + "\n")
        rows = [f"{k}\t{f}\t{l}\t{u}\t{x}\t{m}\t{h}\t{d}\t{e}\t{misc}\n" + "".join(after.get(k, ()))
                for k, (f, l, u, x, m, (h, d), e, misc) in
                enumerate(zip(self.forms, self.lemmas, self.upos, self.xpos, self.feats, self, deps, self._misc()),
                          start=1)]
        return self._head_lines() + "".join(rows) + "\n"


def load_parser(model_dir: str | Path):
    """Load a model directory written by ``tsdsl train`` (checks versions and hashes): a
    :class:`Parser`, or a :class:`GraphParser` for a multihead (DAG) system."""
    model = load(model_dir)
    return GraphParser(model) if model.system.multihead else Parser(model)

