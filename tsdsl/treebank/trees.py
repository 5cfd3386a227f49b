"""Dependency trees as produced by a parser, and their structural properties.

Heads use CoNLL-U numbering: words are 1..n, 0 is the artificial root, and
``None`` marks a word left unattached (a fragment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np


@dataclass(frozen=True)
class Tree:
    """The output of a parse: ``heads[d-1]`` and ``labels[d-1]`` for word ``d``.

    For DAG systems ``arcs`` holds every (head, dependent, label) and ``heads``
    the first head of each word.
    """

    heads: tuple[Optional[int], ...]
    labels: tuple[Optional[str], ...]
    arcs: Optional[frozenset[tuple[int, int, Optional[str]]]] = None

    @property
    def n(self) -> int:
        return len(self.heads)

    @property
    def unattached(self) -> tuple[int, ...]:
        return tuple(d for d, h in enumerate(self.heads, 1) if h is None)


def is_tree(heads: Sequence[Optional[int]], *, single_root: bool = True) -> bool:
    """Every word headed, no cycle, and (if asked) exactly one word attached to 0."""
    n = len(heads)
    if any(h is None or not 0 <= h <= n for h in heads):
        return False
    if single_root and sum(1 for h in heads if h == 0) != 1:
        return False
    return not has_cycle(heads)


def has_cycle(heads: Sequence[Optional[int]]) -> bool:
    return cycle_word(heads) is not None


def cycle_word(heads: Sequence[Optional[int]]) -> Optional[int]:
    """The smallest word on a cycle, or None (``None`` heads and 0 end a path)."""
    n = len(heads)
    state = [0] * (n + 1)  # 0 new, 1 on the current path, 2 done
    found: Optional[int] = None
    for start in range(1, n + 1):
        path = []
        d = start
        while d and state[d] == 0:
            state[d] = 1
            path.append(d)
            h = heads[d - 1]
            d = h if h is not None else 0
        if d and state[d] == 1:
            m = min(path[path.index(d):])
            found = m if found is None else min(found, m)
        for p in path:
            state[p] = 2
    return found


def reaches_root(heads: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """bool per word of many sentences at once (sentence i's heads, CoNLL-U numbering, are
    ``heads[offsets[i]:offsets[i + 1]]``): whether following heads from the word ends at the
    root 0.  A word does not when its path meets a missing (negative) or out-of-range head or
    a cycle.  Pointer jumping in numpy, O(words log n), for whole treebanks and batches."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    total = int(offsets[-1]) if len(offsets) else 0
    heads = np.asarray(heads[:total], dtype=np.int64)
    start = np.repeat(offsets[:-1], lengths)
    n = np.repeat(lengths, lengths)
    ROOT, NONE = total, total + 1  # sinks: the root, and "no head" (or out of range)
    parent = np.where(heads == 0, ROOT, np.where((heads >= 1) & (heads <= n), start + heads - 1, NONE))
    parent = np.concatenate([parent, [ROOT, NONE]])
    longest = int(lengths.max()) if total else 0
    for _ in range(max(1, longest).bit_length() + 1):  # 2^k >= the longest path
        parent = parent[parent]
    return parent[:total] == ROOT


def is_projective(heads: Sequence[Optional[int]]) -> bool:
    """No two arcs cross (the root arc included, root at position 0)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1) if h is not None]
    for a, b in arcs:
        for c, d in arcs:
            if a < c < b < d:
                return False
    return True
