"""What the exhaustive configuration graph of one sentence length says about a system.

The graph comes from the interpreter (:func:`~tsdsl.verify.space.explore`) or, much faster,
from a compiled kernel's ``explore`` (an object with the interface of
``tsdsl.kernels.compiled.CompiledSystem``, passed in by the caller: verify sits beside the
kernels, not above them).  Both number nodes breadth-first in the spec's action order, so
the facts and counterexamples read here are the same either way.

Outputs are checked as one array (numpy) rather than one by one: the soundness of every
distinct terminal output, and which of them are trees of the class completeness is
checked against, whose number is compared with the size of that class.  The class is
enumerated only to name a missing tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Optional

import numpy as np

from .. import ir
from ..interp import Interpreter
from .classes import class_trees, dag_problem, tree_problem
from .shared_classes import ClassClash, actions_of_length, first_clash, first_clash_arrays, shared_classes
from .space import SpaceTooLarge, explore, find_cycle, longest_derivation

OK, MISSING, CYCLE, NO_ROOT, CROSSING = 0, 1, 2, 3, 4


@dataclass
class SizeFacts:
    """The facts of one sentence length (node ids of the breadth-first graph)."""

    n: int
    configurations: int
    terminals: int
    dead_ends: int
    class_trees: int
    derivable_class_trees: int
    unsound: Optional[tuple[list[str], list, str]] = None  # (actions, output heads, why)
    dead_end: Optional[list[str]] = None                     # actions to the first dead end
    missing: Optional[tuple[int, ...]] = None                # the first class tree not derived
    cycle: Optional[tuple[list[str], list[str]]] = None      # (actions to the loop, the loop)
    longest: Optional[int] = None
    class_clash: Optional[ClassClash] = None                 # two members of a class legal together
    applied: frozenset = frozenset()                         # the actions (families) that apply somewhere


def class_size(tree_class: str, n: int) -> int:
    """How many trees :func:`~tsdsl.verify.classes.class_trees` enumerates: single-root trees over
    n words, n^(n-1) of them, of which C(3n-2, n-1)/n are projective."""
    if n == 0:
        return 1
    if tree_class in ("projective", "projective-dag"):
        return comb(3 * n - 2, n - 1) // n
    return n ** (n - 1)


def problems(heads: np.ndarray, tree_class: str, root_pos: int) -> np.ndarray:
    """Per row of output heads (CoNLL-U numbering, -1 none): the first of OK, MISSING,
    CYCLE, NO_ROOT, CROSSING that applies, in the order of :func:`tree_problem`."""
    rows, n = heads.shape
    out = np.zeros(rows, dtype=np.int8)
    if rows == 0 or n == 0:
        return out
    missing = (heads < 0).any(axis=1)
    h = np.where(heads < 0, 0, heads)
    cur = np.broadcast_to(np.arange(1, n + 1), (rows, n)).copy()
    r = np.arange(rows)[:, None]
    for _ in range(n):
        cur = np.where(cur > 0, h[r, np.maximum(cur - 1, 0)], 0)
    cycle = (cur > 0).any(axis=1)
    no_root = ~(heads == 0).any(axis=1)
    cross = np.zeros(rows, dtype=bool)
    if tree_class in ("projective", "projective-dag"):
        cross = crossing_rows(heads, root_pos)
    out[cross] = CROSSING
    out[no_root] = NO_ROOT
    out[cycle] = CYCLE
    out[missing] = MISSING
    return out


def crossing_rows(heads: np.ndarray, root_pos: int) -> np.ndarray:
    """Rows with two crossing arcs (root at ``root_pos``; headless words have no arc)."""
    rows, n = heads.shape
    d = np.arange(1, n + 1)
    h = np.where(heads == 0, root_pos, heads)
    has = heads >= 0
    lo = np.where(has, np.minimum(h, d), -10)
    hi = np.where(has, np.maximum(h, d), -5)
    a, b = lo[:, :, None], hi[:, :, None]
    c, e = lo[:, None, :], hi[:, None, :]
    both = has[:, :, None] & has[:, None, :]
    return ((a < c) & (c < b) & (b < e) & both).any(axis=(1, 2))


def _root_pos(system: ir.System, n: int) -> int:
    return n + 1 if system.root == "right" else 0


def head_sets(tree) -> list[int]:
    """A multihead output as the compiled exploration gives it: per word, the bit set of its
    heads (bit 0 the root)."""
    masks = [0] * len(tree.heads)
    arcs = tree.arcs if tree.arcs is not None else [(h, d, None) for d, h in enumerate(tree.heads, 1)
                                                    if h is not None]
    for h, d, _ in arcs:
        masks[d - 1] |= 1 << h
    return masks


def _arcs_of(row) -> frozenset:
    """The arcs (head, dependent, None) of an output row of head bit sets."""
    return frozenset((h, d, None) for d, mask in enumerate(row, 1) for h in range(int(mask).bit_length())
                     if mask >> h & 1)


class _Interpreted:
    """The interpreter's graph with the compiled graph's interface."""

    def __init__(self, it: Interpreter, n: int, limit: int):
        self.g = g = explore(it, n, limit=limit)
        self.size = g.size
        self.terminal = np.array(g.terminal, dtype=bool)
        self.out_degree = np.array([len(e) for e in g.edges], dtype=np.int64)
        self.out_node = np.flatnonzero(self.terminal).astype(np.int32)
        if it.system.multihead:
            rows = [head_sets(it.output(g.configs[k])) for k in self.out_node]
        else:
            rows = [[-1 if h is None else h for h in it.output(g.configs[k]).heads] for k in self.out_node]
        self.out_heads = np.array(rows, dtype=np.int32).reshape(len(self.out_node), n)
        self.path_to = g.path_to

    def clash(self, shared: dict[str, str]):
        return first_clash(([a for a, _ in out] for out in self.g.edges), shared)

    def applied(self) -> set[str]:
        return {a for out in self.g.edges for a, _ in out}

    def cycle(self):
        return find_cycle(self.g)

    def action_between(self, a: int, b: int) -> str:
        return next(act for act, child in self.g.edges[a] if child == b)

    def longest(self) -> tuple[int, int]:
        return longest_derivation(self.g)


class _Compiled:
    def __init__(self, cs, n: int, limit: int):
        self.cs = cs
        self.g = g = cs.explore(n, limit=limit)
        if g is None:
            raise SpaceTooLarge(f"more than {limit} configurations for n = {n}")
        self.size = g.size
        self.terminal = g.terminal
        self.out_degree = np.diff(g.edge_at)
        self.out_node = g.out_node
        self.out_heads = g.out_heads
        self.path_to = g.path_to
        self.action_between = g.action_between

    def clash(self, shared: dict[str, str]):
        return first_clash_arrays(self.g.edge_at, self.g.edge_action, self.g.actions, shared)

    def applied(self) -> set[str]:
        return {self.g.actions[a] for a in np.unique(self.g.edge_action)}

    def cycle(self):
        return self.cs.graph_cycle(self.g)

    def longest(self) -> tuple[int, int]:
        return tuple(self.cs.graph_longest(self.g))


def size_facts(it: Interpreter, n: int, *, limit: int, compiled=None) -> SizeFacts:
    """Explore every configuration of ``n`` words and read the facts off the graph.

    Raises:
        SpaceTooLarge: more than ``limit`` configurations.
    """
    system = it.system
    graph = _Compiled(compiled, n, limit) if compiled is not None and (not system.multihead or n <= 30) else None
    if graph is None:
        graph = _Interpreted(it, n, limit)
    dead = np.flatnonzero(~graph.terminal & (graph.out_degree == 0))
    facts = SizeFacts(n, graph.size, int(graph.terminal.sum()), len(dead), 0, 0)
    if len(dead):
        facts.dead_end = graph.path_to(int(dead[0]))
    if system.multihead:
        _multihead(it, n, graph, facts)
    else:
        outs, first = _distinct_outputs(graph.out_heads, graph.out_node)
        _soundness(system, n, graph, outs, first, facts)
        if system.covers != "any":
            _completeness(system, n, outs, facts)
    _actions(system, n, graph, facts)
    cycle = graph.cycle()
    if cycle is not None:
        loop = [graph.action_between(a, b) for a, b in zip(cycle, cycle[1:])]
        facts.cycle = (graph.path_to(cycle[0]), loop)
    else:
        facts.longest = int(graph.longest()[0])
    return facts


def _actions(system: ir.System, n: int, graph, facts: SizeFacts) -> None:
    """The first configuration where two members of a class are legal, and the actions that
    apply somewhere (instances of a family count for the family)."""
    hit = graph.clash(shared_classes(system, n))
    if hit is not None:
        node, cls, members = hit
        facts.class_clash = ClassClash(n, tuple(graph.path_to(node)), cls, members)
    family = {a.name: a.family or a.name for a in actions_of_length(system, n)}
    facts.applied = frozenset(family.get(a, a) for a in graph.applied())


def dag_rows_bad(rows: np.ndarray, n: int, tree_class: str, root_pos: int) -> np.ndarray:
    """Per row of head bit sets (bit 0 the root): whether :func:`dag_problem` finds a problem
    (a word without a head, a cycle, crossing arcs for ``projective-dag``), as arrays."""
    rows = rows.astype(np.int64)
    k = len(rows)
    bad = (rows == 0).any(axis=1) if n else np.zeros(k, dtype=bool)
    above = rows & ~np.int64(1)  # heads that are words: the ancestors, closed below
    for _ in range(n):
        grown = above.copy()
        for h in range(1, n + 1):
            has = (above >> h) & 1 == 1
            grown |= np.where(has, above[:, h - 1:h], 0)
        if (grown == above).all():
            break
        above = grown
    bits = np.int64(1) << np.arange(1, n + 1, dtype=np.int64)
    bad |= ((above & bits) != 0).any(axis=1)
    if tree_class == "projective-dag":
        pairs = [(h, d) for d in range(1, n + 1) for h in range(0, n + 1) if h != d]
        span = [(min(root_pos if h == 0 else h, d), max(root_pos if h == 0 else h, d)) for h, d in pairs]
        present = [(rows[:, d - 1] >> h) & 1 == 1 for h, d in pairs]
        for i, (a, b) in enumerate(span):
            for j, (c, e) in enumerate(span):
                if a < c < b < e:
                    bad |= present[i] & present[j]
    return bad


def _multihead(it: Interpreter, n: int, graph, facts: SizeFacts) -> None:
    """Outputs as arc sets (rows of head bit sets), each distinct one checked once (DAG
    classes as arrays, the first failing one named by :func:`dag_problem`)."""
    system = it.system
    root_pos = _root_pos(system, n)
    outs, first = _distinct_outputs(graph.out_heads, graph.out_node)
    if system.produces != "any":
        bad = []
        candidates = zip(outs, first)
        if system.produces in ("dag", "projective-dag") and len(outs):
            failing = np.flatnonzero(dag_rows_bad(outs, n, system.produces, root_pos))
            candidates = [(outs[k], first[k]) for k in failing]
        for row, node in candidates:
            arcs = _arcs_of(row)
            if system.produces in ("dag", "projective-dag"):
                why = dag_problem(arcs, n, system.produces, root_pos)
            else:
                heads = tuple(next((h for h, dd, _ in arcs if dd == d), None) for d in range(1, n + 1))
                why = tree_problem(heads, system.produces, root_pos)
            if why:
                bad.append((int(node), why))
        if bad:
            node, why = min(bad)
            heads = [None if not m else (int(m) & -int(m)).bit_length() - 1 for m in graph.out_heads[
                int(np.flatnonzero(graph.out_node == node)[0])]]
            facts.unsound = (graph.path_to(node), heads, f"the output has {why}")
    if system.covers != "any":
        _multihead_completeness(system, n, outs, facts)


def _multihead_completeness(system: ir.System, n: int, outs: np.ndarray, facts: SizeFacts) -> None:
    """How many class trees are among the outputs (rows of head bit sets): the rows with one
    head per word that are trees of the class, counted as arrays; the class is enumerated only
    to name a missing tree."""
    facts.class_trees = class_size(system.covers, n)
    if len(outs):
        rows = outs.astype(np.int64)
        single = ((rows & (rows - 1)) == 0).all(axis=1) & (rows != 0).all(axis=1)
        heads = np.zeros(rows.shape, dtype=np.int32)
        for b in range(1, n + 1):
            heads[rows == (1 << b)] = b
        heads, rows = heads[single], rows[single]
        if len(heads):
            codes = problems(heads, "projective" if system.covers in ("projective", "projective-dag") else "tree", 0)
            one_root = (heads == 0).sum(axis=1) == 1 if n else np.ones(len(heads), dtype=bool)
            facts.derivable_class_trees = int(((codes == OK) & one_root).sum())
    if facts.derivable_class_trees < facts.class_trees:
        derived = {tuple(int(m) for m in row) for row in outs}
        facts.missing = next(t for t in class_trees(system.covers, n) if tuple(1 << h for h in t) not in derived)


def _distinct_outputs(heads: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct output rows and, for each, the first terminal node that has it."""
    if len(heads) == 0:
        return heads, nodes
    outs, index = np.unique(heads, axis=0, return_index=True)
    return outs, nodes[index]


def _soundness(system: ir.System, n: int, graph, outs: np.ndarray, first: np.ndarray, facts: SizeFacts) -> None:
    if system.produces == "any" or len(outs) == 0:
        return
    root_pos = _root_pos(system, n)
    if system.multihead or system.produces in ("dag", "projective-dag"):
        bad = []
        for row, node in zip(outs, first):
            heads = tuple(None if h < 0 else int(h) for h in row)
            why = _python_problem(system, heads, n, root_pos)
            if why:
                bad.append((int(node), heads, why))
        if bad:
            node, heads, why = min(bad)
            facts.unsound = (graph.path_to(node), list(heads), f"the output has {why}")
        return
    codes = problems(outs, system.produces, root_pos)
    failing = np.flatnonzero(codes != OK)
    if len(failing):
        k = failing[np.argmin(first[failing])]
        heads = tuple(None if h < 0 else int(h) for h in outs[k])
        why = tree_problem(heads, system.produces, root_pos)
        facts.unsound = (graph.path_to(int(first[k])), list(heads), f"the output has {why}")


def _python_problem(system: ir.System, heads: tuple, n: int, root_pos: int) -> Optional[str]:
    if system.produces in ("dag", "projective-dag"):
        arcs = frozenset((h, d, None) for d, h in enumerate(heads, 1) if h is not None)
        return dag_problem(arcs, n, system.produces, root_pos)
    return tree_problem(heads, system.produces, root_pos)


def _completeness(system: ir.System, n: int, outs: np.ndarray, facts: SizeFacts) -> None:
    """How many class trees are among the outputs; the first missing one, if any.

    A multihead system's outputs are compared as head sets by the caller's interpreter
    path; here (single-head outputs) a class tree is derived iff it is an output row."""
    facts.class_trees = class_size(system.covers, n)
    if len(outs):
        codes = problems(outs, "projective" if system.covers in ("projective", "projective-dag") else "tree", 0)
        single = (outs == 0).sum(axis=1) == 1 if n else np.ones(len(outs), dtype=bool)
        facts.derivable_class_trees = int(((codes == OK) & single).sum())
    if facts.derivable_class_trees < facts.class_trees:
        derived = {tuple(int(h) for h in row) for row in outs}
        facts.missing = next(t for t in class_trees(system.covers, n) if tuple(t) not in derived)
