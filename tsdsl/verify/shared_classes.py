"""Classifier classes whose members are legal together, and actions that never apply.

``class NAME`` makes transitions one output of the learner: the parser scores the class and
applies its legal member (language.md, "class").  That is sound only when at most one member
is legal in any configuration, as REDUCE and UNSHIFT of Honnibal & Johnson's system are
(``has_head(s)`` against ``not has_head(s)``).  Nothing in a spec's syntax guarantees it: a new
user's arc-swift with SHIFT and RIGHT-ARC in one class checked, verified and trained, and
the parser never built a right arc (dev LAS 18 points down, no word said).  Guards make it
undecidable in general, so it is read off the exhaustive configuration graph, as soundness
is: the first configuration (breadth-first, the shortest derivation to it) where two members
of a class are legal.

The same graph says which actions never apply up to the lengths explored: an action whose
guard can never hold (``if is_root(b)`` with the root at the left) is a likely mistake that
nothing else reports.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from .. import ir
from ..interp import Interpreter
from .space import SpaceTooLarge, explore


@dataclass(frozen=True)
class ClassClash:
    """Two or more members of class ``cls`` are legal after ``actions`` (from the initial
    configuration of ``n`` words)."""

    n: int
    actions: tuple[str, ...]
    cls: str
    members: tuple[str, ...]

    def describe(self) -> str:
        where = f"after {' '.join(self.actions)}" if self.actions else "in the initial configuration"
        return (f"class {self.cls}: {' and '.join(self.members)} are legal in the same configuration "
                f"(n = {self.n}, {where}); the learner scores a class as one output and applies one legal "
                f"member, so the other would never be applied there: give them different classes, or guards "
                f"that exclude each other")


def actions_of_length(system: ir.System, n: int) -> list[ir.Action]:
    """The actions of sentences of ``n`` words (capacity inf: the instances that fit)."""
    if not system.unbounded:
        return list(system.actions)
    return list(system.actions_for(max(n + (0 if system.root == "none" else 1), 1)))


def shared_classes(system: ir.System, n: int) -> dict[str, str]:
    """action name -> class, for the actions whose class has another member (empty: no class
    is shared, and nothing needs checking)."""
    members: dict[str, list[str]] = defaultdict(list)
    for a in actions_of_length(system, n):
        members[a.cls].append(a.name)
    return {name: cls for cls, names in members.items() if len(set(names)) > 1 for name in names}


def first_clash(edges: Iterable[Iterable[str]], shared: dict[str, str]) -> Optional[tuple[int, str, tuple[str, ...]]]:
    """The first node (of ``edges``: per node, the names of its legal actions) where two
    actions of one shared class are legal: (node, class, members), or None."""
    if not shared:
        return None
    for node, names in enumerate(edges):
        seen: dict[str, list[str]] = {}
        for a in names:
            cls = shared.get(a)
            if cls is not None and a not in seen.setdefault(cls, []):
                seen[cls].append(a)
        for cls, legal in seen.items():
            if len(legal) > 1:
                return node, cls, tuple(legal)
    return None


def first_clash_arrays(edge_at: np.ndarray, edge_action: np.ndarray, names: tuple[str, ...],
                       shared: dict[str, str]) -> Optional[tuple[int, str, tuple[str, ...]]]:
    """:func:`first_clash` over a compiled graph's edge arrays (node k's edges are
    ``edge_at[k]:edge_at[k + 1]``, action ids naming ``names``), with numpy."""
    if not shared or len(edge_action) == 0:
        return None
    cls_names = sorted(set(shared.values()))
    cls_id = np.array([cls_names.index(shared[a]) if a in shared else -1 for a in names], dtype=np.int64)
    node = np.repeat(np.arange(len(edge_at) - 1, dtype=np.int64), np.diff(edge_at))
    cls = cls_id[edge_action]
    keep = cls >= 0
    if not keep.any():
        return None
    key = node[keep] * len(cls_names) + cls[keep]
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if not (counts > 1).any():
        return None
    k = int(key[first[counts > 1]].min())
    at, c = divmod(k, len(cls_names))
    lo, hi = int(edge_at[at]), int(edge_at[at + 1])
    legal = [names[a] for a in edge_action[lo:hi] if shared.get(names[a]) == cls_names[c]]
    return at, cls_names[c], tuple(dict.fromkeys(legal))


def class_clash(system: ir.System, max_n: int, *, limit: int = 200_000) -> Optional[ClassClash]:
    """The first clash for sentences of 1..max_n words, explored in the interpreter (the
    check before training: short sentences, a class's members are usually few); None when
    there is none, or when a length has more than ``limit`` configurations."""
    it = Interpreter(system)
    for n in range(1, max_n + 1):
        shared = shared_classes(system, n)
        if not shared:
            continue
        try:
            g = explore(it, n, limit=limit)
        except SpaceTooLarge:
            return None
        hit = first_clash(([a for a, _ in out] for out in g.edges), shared)
        if hit is not None:
            node, cls, members = hit
            return ClassClash(n, tuple(g.path_to(node)), cls, members)
    return None
