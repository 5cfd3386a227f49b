"""Exhaustive exploration of the configuration graph of a system for one sentence length.

Arcs are explored unlabeled (labels never change what is legal).  The graph is
what soundness, completeness, progress and termination are read from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..interp import Config, Interpreter


def state_key(c: Config) -> tuple:
    """A hashable identity of a configuration (lists, arcs, flags; labels ignored).  A token's
    several heads count as a set: no guard depends on the order they came in (only the
    output's first head does), so two orders are one configuration, as in compiled code."""
    arcs = tuple(tuple(sorted(h)) for h in c.multi) if c.multi is not None else tuple(c.heads)
    return (
        tuple(tuple(l) for l in c.lists),
        arcs,
        tuple(tuple(v) for v in c.tflags.values()),
        tuple(c.gflags.values()),
    )


class SpaceTooLarge(Exception):
    """Exploration stopped at its state limit."""


@dataclass
class StateGraph:
    """Reachable configurations of one sentence length and the moves between them."""

    n: int
    configs: list[Config] = field(default_factory=list)
    edges: list[list[tuple[str, int]]] = field(default_factory=list)
    parent: list[Optional[tuple[int, str]]] = field(default_factory=list)
    terminal: list[bool] = field(default_factory=list)

    def path_to(self, node: int) -> list[str]:
        """The shortest action sequence from the initial configuration to ``node``."""
        seq = []
        while self.parent[node] is not None:
            node, action = self.parent[node]
            seq.append(action)
        return seq[::-1]

    @property
    def size(self) -> int:
        return len(self.configs)


def explore(it: Interpreter, n: int, *, limit: int = 2_000_000) -> StateGraph:
    """Breadth-first exploration of every configuration reachable for ``n`` words.

    Raises:
        SpaceTooLarge: more than ``limit`` configurations.
    """
    g = StateGraph(n)
    index: dict[tuple, int] = {}
    start = it.initial(n)
    index[state_key(start)] = 0
    g.configs.append(start)
    g.parent.append(None)
    head = 0
    while head < len(g.configs):
        c = g.configs[head]
        term = it.is_terminal(c)
        g.terminal.append(term)
        out: list[tuple[str, int]] = []
        if not term:
            for a in it.legal(c):
                child = it.copy(c)
                it.apply(child, a)
                key = state_key(child)
                node = index.get(key)
                if node is None:
                    node = len(g.configs)
                    if node >= limit:
                        raise SpaceTooLarge(f"more than {limit} configurations for n = {n}")
                    index[key] = node
                    g.configs.append(child)
                    g.parent.append((head, a))
                out.append((a, node))
        g.edges.append(out)
        head += 1
    return g


def find_cycle(g: StateGraph) -> Optional[list[int]]:
    """A cycle of configurations (node ids, first repeated at the end), or None."""
    colour = [0] * g.size  # 0 new, 1 on stack, 2 done
    for root in range(g.size):
        if colour[root]:
            continue
        stack = [(root, 0)]
        path = [root]
        colour[root] = 1
        while stack:
            node, k = stack[-1]
            if k < len(g.edges[node]):
                stack[-1] = (node, k + 1)
                child = g.edges[node][k][1]
                if colour[child] == 1:
                    return path[path.index(child):] + [child]
                if colour[child] == 0:
                    colour[child] = 1
                    stack.append((child, 0))
                    path.append(child)
            else:
                colour[node] = 2
                stack.pop()
                path.pop()
    return None


def longest_derivation(g: StateGraph) -> tuple[int, int]:
    """Length of the longest path from the initial configuration (acyclic graphs only),
    and the node where it ends."""
    order = _topological(g)
    best = [-1] * g.size
    best[0] = 0
    for node in order:
        if best[node] < 0:
            continue
        for _, child in g.edges[node]:
            if best[node] + 1 > best[child]:
                best[child] = best[node] + 1
    end = max(range(g.size), key=lambda k: best[k])
    return best[end], end


def longest_path_to(g: StateGraph, end: int) -> list[str]:
    """One longest action sequence from the initial configuration to ``end`` (acyclic graphs)."""
    order = _topological(g)
    best = [-1] * g.size
    back: list[Optional[tuple[int, str]]] = [None] * g.size
    best[0] = 0
    for node in order:
        if best[node] < 0:
            continue
        for a, child in g.edges[node]:
            if best[node] + 1 > best[child]:
                best[child], back[child] = best[node] + 1, (node, a)
    seq = []
    node = end
    while back[node] is not None:
        node, a = back[node]
        seq.append(a)
    return seq[::-1]


def _topological(g: StateGraph) -> list[int]:
    indeg = [0] * g.size
    for out in g.edges:
        for _, child in out:
            indeg[child] += 1
    ready = [k for k in range(g.size) if indeg[k] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for _, child in g.edges[node]:
            indeg[child] -= 1
            if indeg[child] == 0:
                ready.append(child)
    return order
