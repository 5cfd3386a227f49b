"""A trained parser: load a model directory, parse words or CoNLL-U sentences.

Every output is a tree, and every word has a label.  After the search the system's own `finally` rule applies
(Covington attaches headless words to the root; a rootless system's one headless word
becomes the root); then pseudo-projective labels are decoded when the model was
trained with ``--nonproj lift``; whatever is still not a single-rooted tree (fragments
left by a system that can stop early, several roots) is repaired by
:func:`tsdsl.treebank.repair.make_tree`, and the number of words it re-attached is counted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..treebank.conllu import Sentence
from ..treebank.enhanced import Graph, with_graph
from ..errors import UsageError
from ..kernels import compile_system
from ..kernels.graphs import parse_graphs
from ..treebank.projectivize import LIFT_MARK, deprojectivize
from ..treebank.repair import make_tree
from .data import columns_of, make_batch
from .engine import Engine
from .model import Model, ModelError, load
from .outputs import build_outputs, unit_names


UNLABELED_FALLBACK = "dep"
"""The label of a word no rule labeled (an arc a spec builds ``unlabeled``, under beam search):
UD's ``dep``, "unspecified dependency".  Greedy parsing labels such arcs with the label the
model noted for the word (see the kernel's ``parse_greedy``), so this is the last resort."""


@dataclass
class ParseStats:
    sentences: int = 0
    words: int = 0
    transitions: int = 0
    stuck: int = 0                 # sentences whose search stopped before a terminal configuration
    repaired_words: int = 0        # words re-attached by the tree fallback
    repaired_sentences: int = 0
    seconds: float = 0.0
    nonmonotonic: list = field(default_factory=list)  # (sentence, word, overwritten head)

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else 0.0


def bind(model: Model, *, train: bool = False, weights: Optional[np.ndarray] = None) -> Engine:
    """The kernel of the model's system with its features, outputs and weights."""
    kernel = compile_system(model.system, fallback=False)
    outputs = build_outputs(model.system, unit_names(kernel), model.labels)
    if model.outputs and tuple(outputs.names) != tuple(model.outputs):
        raise ModelError("the model's outputs do not match its spec and labels")
    return Engine(kernel, model.features, outputs, model.hash_bits,
                  weights=model.weights if weights is None else weights, train=train,
                  live_rows=model.live_rows if weights is None and not train else None)


class Parser:
    """Parse with a trained model (see :func:`load_parser`)."""

    def __init__(self, model: Model, engine: Optional[Engine] = None):
        self.model = model
        self.engine = engine or bind(model)
        self.beam = int(model.meta.get("beam", 1) or 1)
        self.lifted = model.meta.get("nonproj") == "lift"

    @property
    def labels(self) -> list[str]:
        return self.model.labels

    def parse(self, words: Sequence[str], upos: Optional[Sequence[str]] = None, *,
              lemmas: Optional[Sequence[str]] = None, xpos: Optional[Sequence[str]] = None,
              feats: Optional[Sequence[str]] = None) -> list[tuple[int, str]]:
        """(head, label) per word; heads in CoNLL-U numbering (0: the root)."""
        n = len(words)
        if n == 0:
            return []
        cols = {"form": list(words)}
        for name, vals in (("upos", upos), ("lemma", lemmas), ("xpos", xpos), ("feats", feats)):
            if vals is not None and len(vals) != n:
                raise UsageError(f"parse: {len(vals)} {name} values for {n} words")
            cols[name] = list(vals) if vals is not None else ["_"] * n
        heads, labels, _ = self.parse_columns([cols])
        return list(zip(heads[0], labels[0]))

    def parse_sentences(self, sentences: Sequence[Sentence], *, beam: Optional[int] = None,
                        log_nonmonotonic: bool = False) -> tuple[list[Sentence], ParseStats]:
        """The sentences with predicted HEAD and DEPREL (nothing else changes)."""
        heads, labels, stats = self.parse_columns([columns_of(s) for s in sentences], beam=beam,
                                                  log_nonmonotonic=log_nonmonotonic)
        out = [s.with_heads(h, l) for s, h, l in zip(sentences, heads, labels)]
        return out, stats

    def parse_columns(self, columns, *, beam: Optional[int] = None, log_nonmonotonic: bool = False):
        """Heads and labels (lists per sentence) and :class:`ParseStats` for sentences given
        as column dicts (form, and optionally lemma, upos, xpos, feats)."""
        stats = ParseStats(sentences=len(columns))
        t0 = time.perf_counter()
        batch = make_batch(columns, self.model.features.token_attrs)
        width = self.beam if beam is None else beam
        if log_nonmonotonic and width > 1:
            raise UsageError("the non-monotonic log (--nm-log) is kept by greedy parsing only; use --beam 1")
        h, l, steps, stuck, events = self.engine.parse(batch, beam=width, log_nonmonotonic=log_nonmonotonic)
        stats.transitions, stats.stuck = int(steps), int(stuck)
        heads_out, labels_out = [], []
        names = self.model.labels
        root_label = self.model.root_label
        offs = batch.offsets
        hl, ll = h.tolist(), l.tolist()
        for si in range(batch.sentences):
            a, b = int(offs[si]), int(offs[si + 1])
            hs = hl[a:b]
            ls = [names[x] if 0 <= x < len(names) else None for x in ll[a:b]]
            self.model.system.finish(hs, ls, root_label)
            for i, x in enumerate(hs):
                if x == 0 and ls[i] is None:
                    ls[i] = root_label
            fixed = make_tree(hs, ls, root_label=root_label)
            hs, ls = list(fixed.heads), list(fixed.labels)
            if fixed.fixes:
                stats.repaired_words += fixed.fixes
                stats.repaired_sentences += 1
            if self.lifted and any(LIFT_MARK in x for x in ls if x):
                hs, ls = deprojectivize(hs, ls)
                hs, ls = list(hs), list(ls)
            ls = [UNLABELED_FALLBACK if x is None else x for x in ls]
            heads_out.append(hs)
            labels_out.append(ls)
        stats.words = batch.words
        stats.seconds = time.perf_counter() - t0
        if events is not None:
            stats.nonmonotonic = [tuple(int(x) for x in row) for row in events]
        return heads_out, labels_out, stats


ROOT_LABEL = "root"
"""The label of a multihead model's root arcs in the tree read from a graph."""


class GraphParser:
    """Parse with a trained multihead model (see :mod:`tsdsl.learn.graphs`): the predicted
    graph goes to DEPS; HEAD and DEPREL get a tree read from it, so that the output stays valid
    CoNLL-U: each word's first arc (the first the parser built; its label's first step before
    any ``>``), made a single-rooted tree by :func:`~tsdsl.treebank.repair.make_tree`.  It is
    not a basic-dependency parse.  A word the parser left without any head (on the stack at
    the end) gets the fallback's arc in the graph too, so that every word has a DEPS entry."""

    def __init__(self, model: Model, engine: Optional[Engine] = None):
        self.model = model
        self.engine = engine or bind(model)

    @property
    def labels(self) -> list[str]:
        return self.model.labels

    def predict(self, columns) -> tuple[list[tuple[Graph, list[int], list[str]]], ParseStats]:
        """Per sentence (given as column dicts): its graph, and the tree read from it (heads,
        labels), with :class:`ParseStats`."""
        stats = ParseStats(sentences=len(columns))
        t0 = time.perf_counter()
        batch = make_batch(columns, self.model.features.token_attrs)
        arcs, steps, stuck = parse_graphs(self.engine.kernel.module, self.engine.learner, batch.offsets,
                                          batch.tokens, batch.words)
        stats.transitions, stats.stuck = steps, stuck
        names = self.model.labels
        offs = batch.offsets.tolist()
        per_word: list[list[tuple[int, str, int]]] = [[] for _ in range(batch.words)]
        for w, h, l, first in arcs.tolist():
            per_word[w].append((h, names[l] if 0 <= l < len(names) else UNLABELED_FALLBACK, first))
        out = []
        for si in range(batch.sentences):
            a, b = offs[si], offs[si + 1]
            graph = tuple(tuple(sorted({(h, l) for h, l, _ in per_word[k]})) for k in range(a, b))
            heads: list[Optional[int]] = []
            labs: list[Optional[str]] = []
            for k in range(a, b):
                first = next(((h, l) for h, l, f in per_word[k] if f), None)
                heads.append(None if first is None else first[0])
                labs.append(None if first is None else first[1].split(">")[0])
            fixed = make_tree(heads, labs, root_label=ROOT_LABEL, fallback_label=UNLABELED_FALLBACK)
            if fixed.fixes:
                stats.repaired_words += fixed.fixes
                stats.repaired_sentences += 1
            tree_labels = [UNLABELED_FALLBACK if x is None else x for x in fixed.labels]
            # a word the parser left without any head takes the fallback's arc in the graph too
            graph = tuple(arcs or ((fixed.heads[i], tree_labels[i]),) for i, arcs in enumerate(graph))
            out.append((graph, list(fixed.heads), tree_labels))
        stats.words = batch.words
        stats.seconds = time.perf_counter() - t0
        return out, stats

    def parse_graph(self, words: Sequence[str], upos: Optional[Sequence[str]] = None) -> Graph:
        """The enhanced graph of one sentence: per word, its (head, label) pairs."""
        if upos is not None and len(upos) != len(words):
            raise UsageError(f"parse_graph: {len(upos)} upos values for {len(words)} words")
        if not words:
            return ()
        cols = {"form": list(words), "upos": list(upos) if upos is not None else ["_"] * len(words)}
        for name in ("lemma", "xpos", "feats"):
            cols[name] = ["_"] * len(words)
        return self.predict([cols])[0][0][0]

    def parse_sentences(self, sentences: Sequence[Sentence], *, beam: Optional[int] = None,
                        log_nonmonotonic: bool = False) -> tuple[list[Sentence], ParseStats]:
        """The sentences with the predicted graph in DEPS and the tree read from it in HEAD
        and DEPREL; empty-node lines dropped; nothing else changes."""
        if beam is not None and beam > 1:
            raise UsageError("multihead models parse greedily (--beam 1)")
        if log_nonmonotonic:
            raise UsageError("--nm-log is for single-head models")
        pred, stats = self.predict([columns_of(s) for s in sentences])
        return [with_graph(s, g, h, l) for s, (g, h, l) in zip(sentences, pred)], stats


def load_parser(model_dir: str | Path):
    """Load a model directory written by ``tsdsl train`` (checks versions and hashes): a
    :class:`Parser`, or a :class:`GraphParser` for a multihead (DAG) system."""
    model = load(model_dir)
    return GraphParser(model) if model.system.multihead else Parser(model)

