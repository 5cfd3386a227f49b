"""Hypothesis strategies for trees of a class (used by `tsdsl verify` and the tests).

Trees use CoNLL-U numbering: ``heads[d-1]`` is the head of word ``d`` and 0 is
the artificial root; every tree has exactly one word attached to 0.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .classes import projective_with_root_at


@st.composite
def projective_trees(draw, *, min_n: int = 1, max_n: int = 12) -> tuple[int, ...]:
    """A random projective tree, e.g. ``(2, 0, 2)``.

    Built by splitting spans recursively: a span's head is drawn, and the words on
    each side form sub-spans whose heads attach to it, so no arcs cross.
    Shrinks towards small, flat trees.
    """
    n = draw(st.integers(min_value=min_n, max_value=max_n))
    heads = [0] * n

    def build(lo: int, hi: int, parent: int) -> None:
        if lo > hi:
            return
        h = draw(st.integers(min_value=lo, max_value=hi))
        heads[h - 1] = parent
        for a, b in ((lo, h - 1), (h + 1, hi)):
            start = a
            while start <= b:
                end = draw(st.integers(min_value=start, max_value=b))
                build(start, end, h)
                start = end + 1

    build(1, n, 0)
    return tuple(heads)


@st.composite
def trees(draw, *, min_n: int = 1, max_n: int = 12, projective: bool | None = None) -> tuple[int, ...]:
    """A random tree, e.g. ``(3, 0, 2, 2)``; ``projective`` True/False pins the kind, None varies.

    Attaches words in a random order, each to a word already in the tree.
    """
    if projective:
        return draw(projective_trees(min_n=min_n, max_n=max_n))
    n = draw(st.integers(min_value=min_n, max_value=max_n))
    if n == 0:
        return ()
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    placed = [order[0]]
    for d in order[1:]:
        heads[d - 1] = draw(st.sampled_from(placed))
        placed.append(d)
    result = tuple(heads)
    if projective is False and projective_with_root_at(result, 0):
        # make one crossing deterministically when possible instead of rejecting
        from hypothesis import assume

        assume(False)
    return result


def class_trees_strategy(tree_class: str, *, min_n: int, max_n: int):
    """Trees of the class a system claims to cover."""
    if tree_class in ("projective", "projective-dag"):
        return projective_trees(min_n=min_n, max_n=max_n)
    return trees(min_n=min_n, max_n=max_n)
