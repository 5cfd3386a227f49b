"""Tree classes: membership of a parser output, and enumeration of every tree of a class.

Outputs are checked on the system's own token numbering, with the artificial root
where the system puts it (position 0 or n+1), so projectivity means what it means
for that system.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterator, Optional, Sequence

from ..treebank.trees import has_cycle

Heads = tuple[Optional[int], ...]


def crossing(arcs: Sequence[tuple[int, int]]) -> bool:
    spans = [(min(h, d), max(h, d)) for h, d in arcs]
    for a, b in spans:
        for c, d in spans:
            if a < c < b < d:
                return True
    return False


def projective_with_root_at(heads: Heads, root_pos: int) -> bool:
    """No crossing arcs when the root (head 0) sits at position ``root_pos``."""
    arcs = [((root_pos if h == 0 else h), d) for d, h in enumerate(heads, 1) if h is not None]
    return not crossing(arcs)


def tree_problem(heads: Heads, tree_class: str, root_pos: int) -> Optional[str]:
    """Why ``heads`` is not a well-formed output of ``tree_class`` (None when it is)."""
    n = len(heads)
    missing = [d for d, h in enumerate(heads, 1) if h is None]
    if missing:
        return f"word(s) {', '.join(map(str, missing))} without a head"
    if has_cycle(heads):
        return "a cycle"
    if not any(h == 0 for h in heads) and n:
        return "no root"
    if tree_class == "projective" and not projective_with_root_at(heads, root_pos):
        return "crossing arcs (not projective)"
    return None


def dag_problem(arcs: frozenset, n: int, tree_class: str, root_pos: int) -> Optional[str]:
    """Why an arc set is not a DAG of the class: every word headed, acyclic, (projective)."""
    heads_of: dict[int, list[int]] = {d: [] for d in range(1, n + 1)}
    for h, d, _ in arcs:
        heads_of[d].append(h)
    missing = [d for d, hs in heads_of.items() if not hs]
    if missing:
        return f"word(s) {', '.join(map(str, missing))} without a head"
    if _dag_cycle(heads_of):
        return "a cycle"
    if tree_class == "projective-dag" and crossing([((root_pos if h == 0 else h), d) for h, d, _ in arcs]):
        return "crossing arcs (not projective)"
    return None


def _dag_cycle(heads_of: dict[int, list[int]]) -> bool:
    """Whether the head relation has a cycle (iterative depth-first search)."""
    state: dict[int, int] = {}
    for start in heads_of:
        if state.get(start):
            continue
        state[start] = 1
        stack = [(start, iter(heads_of.get(start, ())))]
        while stack:
            d, hs = stack[-1]
            h = next(hs, None)
            if h is None:
                state[d] = 2
                stack.pop()
            elif h != 0:
                s = state.get(h, 0)
                if s == 1:
                    return True
                if s == 0:
                    state[h] = 1
                    stack.append((h, iter(heads_of.get(h, ()))))
    return False


@lru_cache(maxsize=32)
def single_root_trees(n: int, projective: bool) -> tuple[Heads, ...]:
    """Every tree over words 1..n with exactly one word attached to the root 0."""
    if n == 0:
        return ((),)
    out = []
    for root in range(1, n + 1):
        others = [d for d in range(1, n + 1) if d != root]
        for choice in itertools.product(range(1, n + 1), repeat=n - 1):
            heads = [0] * n
            ok = True
            for d, h in zip(others, choice):
                if h == d:
                    ok = False
                    break
                heads[d - 1] = h
            if not ok:
                continue
            t = tuple(heads)
            if has_cycle(t):
                continue
            if projective and not projective_with_root_at(t, 0):
                continue
            out.append(t)
    return tuple(sorted(out))


def class_trees(tree_class: str, n: int) -> Iterator[Heads]:
    """The trees completeness is checked against (DAG classes: their tree subset)."""
    projective = tree_class in ("projective", "projective-dag")
    return iter(single_root_trees(n, projective))
