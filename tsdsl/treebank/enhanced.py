"""Enhanced dependencies (the DEPS column): read them as graphs, write them, score them.

A :data:`Graph` holds, for each word of a sentence, its enhanced heads as ``(head, label)``
pairs in CoNLL-U numbering (0 = the root), sorted by head then label.

Empty nodes (``8.1``) are collapsed as the IWPT 2020/2021 shared tasks do before scoring
(UD's ``enhanced_collapse_empty_nodes.pl``): a word attached to an empty node gets, for every
path into that empty node from a word or the root, one arc from the path's start whose label
joins the labels along the path with ``>`` (``3:conj>nsubj``).  The graphs that tsdsl reads,
trains on and scores are these collapsed graphs, over the words only.  Written
(:func:`with_graph`), a collapsed path becomes an empty node again (:func:`expanded_deps`):
UD's enhanced labels cannot hold ``>``.  :func:`valid_graph` and :func:`basic_label` hold the
rules that make a parser's graph and the tree read from it valid enhanced UD.

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

__all__ = ["EmptyNode", "Graph", "GraphScores", "basic_label", "empty_node_count", "enhanced_arcs", "expanded_deps",
           "graph_of", "graphs_of", "has_deps", "score_graphs", "universal_steps", "valid_graph", "with_graph", "DEPS_COL", "UD_RELATIONS"]

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


def _parse_deps(value: str, file: str, line: int, n: int, empties: set[str], node: str) -> list[tuple[str, str]]:
    """The (head ID, label) pairs of the DEPS value of word or empty node ``node``; heads stay
    strings (``5`` or ``5.1``).  Refused, as UD's validator refuses them: an item that is not
    HEAD:LABEL, a head that is not a node of the sentence or is ``node`` itself, a label with
    an empty ``:``-part or white space, head 0 with a label other than ``root`` (and ``root``
    from another head), an item given twice.  Items in any order are accepted (UD wants them
    sorted by head; the graph is a set, and tsdsl writes them sorted)."""
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
        if head == node:
            raise ConlluError(file, line, f"DEPS item {item!r}: {node} is its own head (UD allows no self-loop)")
        if any(c.isspace() for c in label) or "" in label.split(":"):
            raise ConlluError(file, line, f"DEPS label {label!r} is malformed (an empty part or white space)")
        if (head == "0") != (label.split(":")[0] == "root"):
            raise ConlluError(file, line, f"DEPS item {item!r}: UD puts the label root on head 0 and on no "
                                          "other head")
        if (head, label) in out:
            raise ConlluError(file, line, f"DEPS item {item!r} is given twice")
        out.append((head, label))
    return out


def _check_complete(s: Sentence, empties: dict[str, tuple[int, str]]) -> None:
    """Refuse a sentence in which some words or empty nodes (``empties``: ID -> (line, DEPS))
    have DEPS and others ``_``: UD annotates every node of a sentence with enhanced
    dependencies, and a node left out would silently lose its gold arcs (training searches in
    vain for the graph, scoring counts fewer gold arcs).  A sentence with ``_`` everywhere
    has no enhanced annotation and is fine (training skips it)."""
    nodes = [(w.line, str(w.id), "word", w.deps) for w in s.words]
    nodes += [(ln, e, "empty node", v) for e, (ln, v) in empties.items()]
    given = [x for x in nodes if x[3] != "_"]
    if given and len(given) < len(nodes):
        line, node, kind, _ = min(x for x in nodes if x[3] == "_")
        raise ConlluError(s.file, line, f"{kind} {node} has DEPS _ while its sentence has enhanced dependencies "
                                        "(UD gives every word and empty node of such a sentence DEPS)")


def empty_node_count(s: Sentence) -> int:
    """How many empty-node lines (``8.1``) the sentence has (those :func:`with_graph` drops)."""
    return len(_empty_node_lines(s))


def _empty_node_lines(s: Sentence) -> dict[str, tuple[int, tuple[str, ...]]]:
    """The empty nodes of a sentence in file order: ID -> (file line, its 10 fields)."""
    lines = _line_numbers(s)
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for k, raw in enumerate(s.lines):
        text = _content(raw)
        if text.startswith("#") or not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) == 10 and _EMPTY_ID.match(fields[0]):
            out[fields[0]] = (lines[k], tuple(fields))
    return out


@dataclass(frozen=True)
class EmptyNode:
    """An empty node (``8.1``) as written: its ID, FORM and file line."""

    id: str
    form: str
    line: int


def enhanced_arcs(s: Sentence) -> tuple[list[EmptyNode], list[tuple[str, str, str]]]:
    """The DEPS of one sentence as written, empty nodes *not* collapsed (``tsdsl draw --deps``):
    its empty nodes in file order, and every ``head:label`` item of every word and empty node
    as a (head ID, dependent ID, label) triple of ID strings (``0``, ``5``, ``8.1``), in file
    order.  Malformed DEPS raise :class:`ConlluError` as :func:`graph_of` does."""
    found = _empty_node_lines(s)
    empties = set(found)
    nodes = [EmptyNode(e, fields[1], ln) for e, (ln, fields) in found.items()]
    arcs: list[tuple[str, str, str]] = []
    for w in s.words:
        arcs.extend((h, str(w.id), lab) for h, lab in _parse_deps(w.deps, s.file, w.line, s.n, empties, str(w.id)))
    for e, (ln, fields) in found.items():
        arcs.extend((h, e, lab) for h, lab in _parse_deps(fields[DEPS_COL], s.file, ln, s.n, empties, e))
    _check_complete(s, {e: (ln, fields[DEPS_COL]) for e, (ln, fields) in found.items()})
    return nodes, arcs


def graph_of(s: Sentence) -> Graph:
    """The enhanced graph of one sentence, empty nodes collapsed (see the module docstring)."""
    n = s.n
    empty_deps = {e: (ln, fields[DEPS_COL]) for e, (ln, fields) in _empty_node_lines(s).items()}
    empties = set(empty_deps)
    parsed_empty = {e: _parse_deps(v, s.file, ln, n, empties, e) for e, (ln, v) in empty_deps.items()}
    parsed = [_parse_deps(w.deps, s.file, w.line, n, empties, str(w.id)) for w in s.words]
    _check_complete(s, empty_deps)

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
    for items in parsed:
        arcs = set()
        for h, lab in items:
            if "." in h:
                arcs.update((st, ">".join(labs + (lab,))) for st, labs in paths(h, frozenset()))
            else:
                arcs.add((int(h), lab))
        graph.append(tuple(sorted(arcs)))
    return tuple(graph)


def graphs_of(sentences: Sequence[Sentence]) -> list[Graph]:
    """:func:`graph_of` for every sentence."""
    return [graph_of(s) for s in sentences]


def empty_node_line(node_id: str, deps: str) -> str:
    """The CoNLL-U line of an empty node written by :func:`with_graph`: its ID and DEPS, ``_``
    elsewhere (UD: HEAD and DEPREL of an empty node are ``_``; its word is not known)."""
    return "\t".join((node_id, "_", "_", "_", "_", "_", "_", "_", deps, "_"))


def with_graph(s: Sentence, graph: Graph, heads: Sequence[int], labels: Sequence[str]) -> Sentence:
    """A copy of ``s`` whose DEPS column is ``graph`` and HEAD, DEPREL are ``heads``,
    ``labels``.  The input's empty-node lines are dropped (the graph is over the words: they
    would only carry its gold structure into the output); collapsed paths (``>`` labels) are
    written as empty nodes of their own (:func:`expanded_deps`).  Nothing else changes."""
    if len(graph) != s.n:
        raise ValueError(f"with_graph: {len(graph)} words in the graph, {s.n} in the sentence")
    base = s.with_heads(heads, labels)
    deps, empties = expanded_deps(graph)
    after: dict[int, list[tuple[str, str]]] = {}
    for x, node_id, value in empties:
        after.setdefault(x, []).append((node_id, value))
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
            new = w.fields[:DEPS_COL] + (deps[i],) + w.fields[DEPS_COL + 1:]
            end = raw[len(raw.rstrip("\r\n")):]
            raw = ("\ufeff" if raw.startswith("\ufeff") else "") + "\t".join(new) + end
            index.append(len(keep_lines))
            words.append(Word(w.id, new, w.line))
            nodes = [empty_node_line(node_id, value) for node_id, value in after.get(i + 1, ())]
            if nodes:   # after the word, with its line end (the word's line gets one if it had none)
                raw = raw if end else raw + "\n"
                nodes = [line + (end or "\n") for line in nodes[:-1]] + [nodes[-1] + end]
            keep_lines.append(raw)
            keep_lines.extend(nodes)
            continue
        keep_lines.append(raw)
    return Sentence(tuple(keep_lines), tuple(words), tuple(index), s.file, s.line)


UD_RELATIONS = frozenset(
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det discourse dislocated expl "
    "fixed flat goeswith iobj list mark nmod nsubj nummod obj obl orphan parataxis punct reparandum root vocative "
    "xcomp".split())
"""UD's 37 universal relations: the basic labels :func:`basic_label` falls back on when the
basic labels of the training file are not known (models written before they were recorded)."""


def basic_label(label: str, basic: "Iterable[str] | None" = None) -> str:
    """The basic-dependency label (DEPREL) for an enhanced label: its first ``>``-step cut to
    the longest ``:``-prefix that is a basic label of ``basic`` (the DEPREL values of the
    training file; default :data:`UD_RELATIONS`), else ``dep``.  So case and conjunction
    subtypes, which UD adds in DEPS only, leave DEPREL (``nmod:of`` -> ``nmod``, ``conj:and``
    -> ``conj``, ``conj:and>nsubj`` -> ``conj``) while the subtypes the treebank uses in its
    basic trees stay (``nsubj:pass``, ``acl:relcl``; ``nsubj:pass:xsubj`` -> ``nsubj:pass``),
    and an enhanced-only relation becomes ``dep`` (``ref``)."""
    known = UD_RELATIONS if basic is None else basic
    parts = label.split(">", 1)[0].split(":")
    for k in range(len(parts), 0, -1):
        cand = ":".join(parts[:k])
        if cand in known:
            return cand
    return "dep"


def valid_graph(graph: Graph, heads: Sequence[int], labels: Sequence[str]) -> Graph:
    """A parser's graph made valid enhanced UD against its tree (``heads``, ``labels``: a
    single-rooted tree, HEAD and DEPREL, read from the graph), by three rules:

    1. One root: the arcs from 0 are dropped, and the tree's root word gets ``0:root``; a
       ``root`` step of a label on any other arc becomes ``dep`` (UD: head 0 if and only
       if ``root``).
    2. The tree in the graph: a word whose DEPS have no arc from its HEAD gets HEAD:DEPREL
       (a word the parser left without a head, one whose only arc came from 0 but not chosen
       as the root, one re-attached to break a cycle).  So every word has a DEPS entry and
       every word is reachable from 0 (the graph contains a spanning tree).
    3. Nothing else changes: the other arcs keep their heads and labels.
    """
    out = []
    for arcs, h, l in zip(graph, heads, labels):
        kept = {(a, _no_root_step(b)) for a, b in arcs if a != 0}
        if h == 0:
            kept.add((0, "root"))
        elif all(a != h for a, _ in kept):
            kept.add((h, l))
        out.append(tuple(sorted(kept)))
    return tuple(out)


def _no_root_step(label: str) -> str:
    """``label`` with every ``>``-step whose universal part is ``root`` replaced by ``dep``."""
    if "root" not in label:
        return label
    return ">".join("dep" if step.split(":")[0] == "root" else step for step in label.split(">"))


def _id_key(head: str) -> tuple[int, int]:
    """Sort key of a DEPS head: a word ID, 0, or an empty node ID (``5.1`` after 5, before 6)."""
    whole, _, sub = head.partition(".")
    return int(whole), int(sub or 0)


def expanded_deps(graph: Graph) -> tuple[list[str], list[tuple[int, str, str]]]:
    """The DEPS values of a collapsed graph with its collapsed paths (labels joined by ``>``)
    expanded back into empty nodes, the inverse of the collapse (:func:`graph_of` reads the
    result back as ``graph``): UD's enhanced labels cannot hold ``>``.  A word's arc
    ``h:conj>obl`` becomes an empty node E with DEPS ``h:conj`` and the arc ``E:obl``; the
    paths from one head with the same leading steps share their empty nodes (``h:conj>nsubj``
    and ``h:conj>obj``: one elided predicate with two dependents).  An empty node is numbered
    after the first word that hangs from it (``4.1``, ``4.2``, in the order of head and path).

    Returns the DEPS value of each word, and the empty nodes as (the word they follow, ID, DEPS).
    """
    paths: dict[tuple[int, tuple[str, ...]], int] = {}   # (head, leading steps) -> first word through it
    for d, arcs in enumerate(graph, 1):
        for h, label in arcs:
            steps = tuple(label.split(">"))
            for j in range(1, len(steps)):
                key = (h, steps[:j])
                paths[key] = min(paths.get(key, d), d)
    ids: dict[tuple[int, tuple[str, ...]], str] = {}
    per_word: dict[int, int] = {}
    for key in sorted(paths, key=lambda k: (paths[k], k)):
        x = paths[key]
        per_word[x] = per_word.get(x, 0) + 1
        ids[key] = f"{x}.{per_word[x]}"

    def item(h: int, steps: tuple[str, ...]) -> tuple[str, str]:
        """The DEPS item of the last step of a path from ``h``: from the empty node of the
        steps before it, or from ``h`` itself."""
        return (ids[(h, steps[:-1])] if len(steps) > 1 else str(h)), steps[-1]

    def value(items) -> str:
        return "|".join(f"{a}:{b}" for a, b in sorted(set(items), key=lambda i: (_id_key(i[0]), i[1]))) or "_"

    words = [value(item(h, tuple(l.split(">"))) for h, l in arcs) for arcs in graph]
    empties = [(paths[key], ids[key], value([item(key[0], key[1])])) for key in sorted(ids, key=lambda k: _id_key(ids[k]))]
    return words, empties


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
        """Precision, recall and F1 of ``c`` correct arcs of ``g`` gold and ``p`` predicted.
        A ratio with nothing to count (0/0) is None (printed ``n/a``, ``null`` in JSON), as the
        basic scores do: precision when nothing was predicted, recall when gold has no arc, F1
        when neither has one.  F1 = 2c / (g + p) is 0 for a predicted file without DEPS
        against gold arcs, as documented."""
        return {"precision": c / p if p else None, "recall": c / g if g else None,
                "f1": 2 * c / (g + p) if g + p else None, "correct": c}

    @property
    def elas(self) -> float:
        """ELAS F1 as a number for model selection (0.0 when neither side has an arc)."""
        return self._prf(self.correct, self.gold, self.predicted)["f1"] or 0.0

    @property
    def eulas(self) -> float:
        """EULAS F1 as a number (0.0 when neither side has an arc); see :attr:`elas`."""
        return self._prf(self.correct_universal, self.gold, self.predicted)["f1"] or 0.0

    def to_dict(self) -> dict:
        return {"sentences": self.sentences, "words": self.words, "gold_arcs": self.gold,
                "predicted_arcs": self.predicted,
                "elas": self._prf(self.correct, self.gold, self.predicted),
                "eulas": self._prf(self.correct_universal, self.gold, self.predicted)}

    def render_text(self) -> str:
        rows = [f"enhanced dependencies (IWPT 2021 ELAS/EULAS; empty nodes collapsed): "
                f"{self.gold} gold arcs, {self.predicted} predicted"]
        for name, c in (("ELAS", self.correct), ("EULAS", self.correct_universal)):
            ratios = self._prf(c, self.gold, self.predicted)
            d = {k: "n/a" if ratios[k] is None else f"{100 * ratios[k]:.2f}" for k in ("precision", "recall", "f1")}
            rows.append(f"{name + ':':<8}{d['f1']:>6}   (precision {d['precision']}, "
                        f"recall {d['recall']}; {c} correct)")
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
