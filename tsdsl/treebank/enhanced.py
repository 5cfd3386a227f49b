"""Enhanced dependencies (the DEPS column): read them as graphs, write them, score them.

A :data:`Graph` holds, for each word of a sentence, its enhanced heads as ``(head, label)``
pairs in CoNLL-U numbering (0 = the root), sorted by head then label.

Empty nodes (``8.1``) are collapsed as the IWPT 2020/2021 shared tasks do before scoring
(UD's ``enhanced_collapse_empty_nodes.pl``): a word attached to an empty node gets, for every
path into that empty node from a word or the root, one arc from the path's start whose label
joins the labels along the path with ``>`` (``3:conj>nsubj``).  The graphs that tsdsl reads,
trains on and scores are these collapsed graphs, over the words only.

Scores (:func:`score_graphs`) are those of ``iwpt21_xud_eval.py`` on files with the same
words: ELAS is the F1 over (dependent, head, label) triples with whole labels (case
information such as ``obl:in`` included); EULAS compares only the universal part of every
step of a label (before its first ``:``: ``obl:in`` counts as ``obl``, ``conj:and>nsubj``
as ``conj>nsubj``).  Precision and recall are reported too.

Malformed DEPS raise :class:`~tsdsl.treebank.conllu.ConlluError` as ``file:line: message``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from .conllu import ConlluError, Sentence, Word, _content
from .evaluate import check_aligned

__all__ = ["Graph", "GraphScores", "graph_of", "graphs_of", "has_deps", "score_graphs", "universal_steps",
           "with_graph", "DEPS_COL"]

DEPS_COL = 8
Graph = tuple[tuple[tuple[int, str], ...], ...]
"""Per word, its enhanced (head, label) pairs (CoNLL-U numbering), sorted."""

_EMPTY_ID = re.compile(r"([0-9]+)\.([0-9]+)\Z")
_HEAD = re.compile(r"(0|[1-9][0-9]*)(\.[1-9][0-9]*)?\Z")


def has_deps(sentences: Iterable[Sentence]) -> bool:
    """Whether any word of ``sentences`` has a DEPS value other than ``_``."""
    return any(w.deps != "_" for s in sentences for w in s.words)


def _line_numbers(s: Sentence) -> list[int]:
    """The file line of each raw line of a sentence block."""
    lead = 0
    for raw in s.lines:
        if _content(raw).strip():
            break
        lead += 1
    first = s.line - lead
    return [first + k for k in range(len(s.lines))]


def _parse_deps(value: str, file: str, line: int, n: int, empties: set[str]) -> list[tuple[str, str]]:
    """The (head ID, label) pairs of one DEPS value; heads stay strings (``5`` or ``5.1``)."""
    if value == "_":
        return []
    out = []
    for item in value.split("|"):
        head, sep, label = item.partition(":")
        if not sep or not label:
            raise ConlluError(file, line, f"DEPS item {item!r} is not HEAD:LABEL")
        if not _HEAD.match(head):
            raise ConlluError(file, line, f"DEPS head {head!r} is not a word ID, 0 or an empty node ID")
        if "." in head:
            if head not in empties:
                raise ConlluError(file, line, f"DEPS head {head} is not an empty node of this sentence")
        elif int(head) > n:
            raise ConlluError(file, line, f"DEPS head {head} out of range 0..{n}")
        if any(c in label for c in "\t\n\r|") or label.strip() != label:
            raise ConlluError(file, line, f"DEPS label {label!r} is malformed")
        out.append((head, label))
    return out


def graph_of(s: Sentence) -> Graph:
    """The enhanced graph of one sentence, empty nodes collapsed (see the module docstring)."""
    n = s.n
    lines = _line_numbers(s)
    empty_deps: dict[str, tuple[int, str]] = {}   # empty node ID -> (line, DEPS value)
    for k, raw in enumerate(s.lines):
        text = _content(raw)
        if text.startswith("#") or not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) == 10 and _EMPTY_ID.match(fields[0]):
            empty_deps[fields[0]] = (lines[k], fields[DEPS_COL])
    empties = set(empty_deps)
    parsed_empty = {e: _parse_deps(v, s.file, ln, n, empties) for e, (ln, v) in empty_deps.items()}

    def paths(e: str, seen: frozenset) -> list[tuple[int, tuple[str, ...]]]:
        """(start word or 0, labels) of every path into the empty node ``e``."""
        if e in seen:
            raise ConlluError(s.file, empty_deps[e][0], f"empty node {e} is on a cycle of empty nodes")
        out = []
        for h, lab in parsed_empty[e]:
            if "." in h:
                out.extend((st, labs + (lab,)) for st, labs in paths(h, seen | {e}))
            else:
                out.append((int(h), (lab,)))
        return out

    graph = []
    for w in s.words:
        arcs = set()
        for h, lab in _parse_deps(w.deps, s.file, w.line, n, empties):
            if "." in h:
                arcs.update((st, ">".join(labs + (lab,))) for st, labs in paths(h, frozenset()))
            else:
                arcs.add((int(h), lab))
        graph.append(tuple(sorted(arcs)))
    return tuple(graph)


def graphs_of(sentences: Sequence[Sentence]) -> list[Graph]:
    """:func:`graph_of` for every sentence."""
    return [graph_of(s) for s in sentences]


def with_graph(s: Sentence, graph: Graph, heads: Sequence[int], labels: Sequence[str]) -> Sentence:
    """A copy of ``s`` whose DEPS column is ``graph`` and HEAD, DEPREL are ``heads``,
    ``labels``; empty-node lines are dropped (the graph is over the words: empty nodes of
    the input would only carry its gold structure into the output).  Nothing else changes."""
    if len(graph) != s.n:
        raise ValueError(f"with_graph: {len(graph)} words in the graph, {s.n} in the sentence")
    base = s.with_heads(heads, labels)
    keep_lines: list[str] = []
    index: list[int] = []
    words: list[Word] = []
    word_at = dict(zip(base.word_index, range(s.n)))
    for k, raw in enumerate(base.lines):
        text = _content(raw)
        fields = text.split("\t")
        if len(fields) == 10 and _EMPTY_ID.match(fields[0]):
            continue
        if k in word_at:
            i = word_at[k]
            w = base.words[i]
            deps = "|".join(f"{h}:{lab}" for h, lab in sorted(graph[i])) or "_"
            new = w.fields[:DEPS_COL] + (deps,) + w.fields[DEPS_COL + 1:]
            end = raw[len(raw.rstrip("\r\n")):]
            raw = ("\ufeff" if raw.startswith("\ufeff") else "") + "\t".join(new) + end
            index.append(len(keep_lines))
            words.append(Word(w.id, new, w.line))
        keep_lines.append(raw)
    return Sentence(tuple(keep_lines), tuple(words), tuple(index), s.file, s.line)


def universal_steps(label: str) -> str:
    """Every ``>``-step of an enhanced label cut at its first ``:`` (IWPT's EULAS)."""
    return ">".join(step.split(":")[0] for step in label.split(">"))


@dataclass(frozen=True)
class GraphScores:
    """Enhanced-dependency scores (IWPT 2021): triples in gold and predicted graphs, and
    those that match with whole labels (ELAS) and with universal label steps (EULAS)."""

    sentences: int
    words: int
    gold: int
    predicted: int
    correct: int
    correct_universal: int

    @staticmethod
    def _prf(c: int, g: int, p: int) -> dict:
        return {"precision": c / p if p else 0.0, "recall": c / g if g else 0.0,
                "f1": 2 * c / (g + p) if g and p else 0.0, "correct": c}

    @property
    def elas(self) -> float:
        return self._prf(self.correct, self.gold, self.predicted)["f1"]

    @property
    def eulas(self) -> float:
        return self._prf(self.correct_universal, self.gold, self.predicted)["f1"]

    def to_dict(self) -> dict:
        return {"sentences": self.sentences, "words": self.words, "gold_arcs": self.gold,
                "predicted_arcs": self.predicted,
                "elas": self._prf(self.correct, self.gold, self.predicted),
                "eulas": self._prf(self.correct_universal, self.gold, self.predicted)}

    def render_text(self) -> str:
        rows = [f"enhanced dependencies (IWPT 2021 ELAS/EULAS; empty nodes collapsed): "
                f"{self.gold} gold arcs, {self.predicted} predicted"]
        for name, c in (("ELAS", self.correct), ("EULAS", self.correct_universal)):
            d = self._prf(c, self.gold, self.predicted)
            rows.append(f"{name + ':':<8}{100 * d['f1']:6.2f}   (precision {100 * d['precision']:.2f}, "
                        f"recall {100 * d['recall']:.2f}; {c} correct)")
        return "\n".join(rows)


def score_graphs(gold: Sequence[Sentence], pred: Sequence[Sentence], *, gold_graphs: Optional[Sequence[Graph]] = None,
                 pred_graphs: Optional[Sequence[Graph]] = None, gold_name: str = "<gold>",
                 pred_name: str = "<pred>") -> GraphScores:
    """ELAS and EULAS of predicted graphs against gold ones (same words; see the module
    docstring).  Graphs are read from the sentences' DEPS unless given."""
    check_aligned(gold, pred, gold_name=gold_name, pred_name=pred_name)
    gg = gold_graphs if gold_graphs is not None else graphs_of(gold)
    pg = pred_graphs if pred_graphs is not None else graphs_of(pred)
    g_total = p_total = correct = correct_u = words = 0
    for ga, pa in zip(gg, pg):
        for gw, pw in zip(ga, pa):
            words += 1
            g_total += len(gw)
            p_total += len(pw)
            pset = set(pw)
            correct += sum(1 for a in gw if a in pset)
            pu = [(h, universal_steps(l)) for h, l in pw]
            for h, l in gw:   # IWPT counts every matching system arc of each gold arc
                ul = universal_steps(l)
                correct_u += sum(1 for ph, pl in pu if ph == h and pl == ul)
    return GraphScores(len(gg), words, g_total, p_total, correct, correct_u)
