"""Pseudo-projective parsing (Nivre & Nilsson 2005): lift a tree to a projective one, and back.

A projective transition system cannot build crossing arcs.  ``tsdsl train --nonproj lift``
therefore trains it on *lifted* gold trees, whose labels record where each lifted arc
belongs, and :func:`deprojectivize` moves the parser's lifted arcs back after parsing.

Encoding, the "Head" scheme of Nivre & Nilsson (2005): a lifted word's label becomes
``DEPREL↑HEADREL``, where HEADREL is the label of the arc entering its original
(syntactic) head.  Deprojectivization looks below the word's head for a word labelled
HEADREL.  Heads use CoNLL-U numbering (``heads[d-1]`` is the head of word ``d``, 0 is
the root).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple, Optional, Sequence

from .trees import is_tree

LIFT_MARK = "\u2191"
"""Separates DEPREL from HEADREL in a lifted word's label (``nsubj↑obj``)."""


class Lifted(NamedTuple):
    """A projective tree from :func:`lift`; ``lifted`` counts the words whose arc was lifted."""

    heads: list[int]
    labels: list[str]
    lifted: int


def is_lifted_label(label: Optional[str]) -> bool:
    """Whether ``label`` carries a lift encoding (``DEPREL↑HEADREL``)."""
    return label is not None and LIFT_MARK in label


def decode_label(label: Optional[str]) -> Optional[str]:
    """The DEPREL part of a label: ``"obj↑xcomp"`` -> ``"obj"``; other labels are returned as is."""
    return label.partition(LIFT_MARK)[0] if is_lifted_label(label) else label


def lift(heads: Sequence[int], labels: Sequence[str]) -> Lifted:
    """Lift non-projective arcs until the tree is projective, encoding each lifted word's label.

    An arc ``h -> d`` is non-projective when some word strictly between ``h`` and ``d`` is
    not a descendant of ``h`` (root arcs never are).  While one exists, the shortest one
    (ties: the one whose left end is leftmost) is lifted: ``d`` is attached to the head of
    ``h``.  A lifted word's label then becomes ``DEPREL↑HEADREL``, HEADREL being the input
    label of its input head; a word lifted several times is encoded once, the same way.

    Args:
        heads: a tree (every word headed, no cycle; several roots are allowed).
        labels: one label per word; none may contain :data:`LIFT_MARK`.

    Returns:
        The projective tree (it passes :func:`tsdsl.treebank.trees.is_projective`), its encoded
        labels, and how many words were lifted.

    Raises:
        ValueError: ``heads`` is not a tree, the lengths differ, or a label contains
            :data:`LIFT_MARK` (decoding would be ambiguous).
    """
    _check_input(heads, labels)
    for d, label in enumerate(labels, 1):
        if LIFT_MARK in label:
            raise ValueError(f"label {label!r} of word {d} contains {LIFT_MARK!r}, which --nonproj lift "
                             f"uses to encode lifted arcs")
    out = list(heads)
    while (d := _shortest_nonprojective(out)) is not None:
        out[d - 1] = out[out[d - 1] - 1]
    new_labels = [label if h == g else f"{label}{LIFT_MARK}{labels[g - 1]}"
                  for label, h, g in zip(labels, out, heads)]
    return Lifted(out, new_labels, sum(1 for h, g in zip(out, heads) if h != g))


def deprojectivize(heads: Sequence[Optional[int]],
                   labels: Sequence[Optional[str]]) -> tuple[list[Optional[int]], list[Optional[str]]]:
    """Move every word labelled ``D↑H`` back under a word labelled ``H``; the label becomes ``D``.

    Words are handled in order of increasing depth in the *current* tree, recomputed after
    each move (ties: left to right), so a word's syntactic head is back in place before the
    word itself is handled.  For each word ``d`` labelled ``D↑H``, the subtree of its
    current head is searched breadth-first, children left to right, leaving out ``d``'s own
    subtree, for the first word whose decoded label is ``H``; ``d`` is reattached to it.
    If there is none, ``d`` keeps its head.  Words not connected to the root (``None``
    heads, cycles) keep their heads.

    ``deprojectivize(*lift(heads, labels)[:2])`` gives back ``(heads, labels)`` whenever
    the syntactic head of every lifted word is the only word with its label (in
    particular when all labels differ).  Why: each lifted arc points to an ancestor of
    the syntactic head, and any lifted word that still bypasses ``d``'s current head
    on the way up from the syntactic head hangs no deeper than that head, so it has
    been put back already and the syntactic head is in the searched subtree.  Depths taken once from the input tree do not ensure this (heads
    ``[5, 4, 0, 1, 3]`` with distinct labels are then not recovered).

    Returns:
        New heads and decoded labels.  A tree stays a tree: a word only moves to a node
        outside its own subtree.

    Raises:
        ValueError: the lengths differ.
    """
    if len(heads) != len(labels):
        raise ValueError(f"{len(heads)} heads but {len(labels)} labels")
    out = list(heads)
    new_labels = [decode_label(label) for label in labels]
    pending = {d for d, label in enumerate(labels, 1) if is_lifted_label(label)}
    while pending:
        depth = _depths(out)
        ready = [(depth[d - 1], d) for d in pending if depth[d - 1] is not None]
        if not ready:
            break
        _depth, d = min(ready)
        pending.discard(d)
        found = _search(out, new_labels, d, labels[d - 1].partition(LIFT_MARK)[2])
        if found is not None:
            out[d - 1] = found
    return out, new_labels


def _check_input(heads: Sequence[int], labels: Sequence[str]) -> None:
    if len(heads) != len(labels):
        raise ValueError(f"{len(heads)} heads but {len(labels)} labels")
    if not is_tree(heads, single_root=False):
        raise ValueError(f"not a tree: heads {list(heads)}")


def _children(heads: Sequence[Optional[int]]) -> list[list[int]]:
    """``children[h]``: the dependents of ``h`` (0 = root) in increasing order."""
    children: list[list[int]] = [[] for _ in range(len(heads) + 1)]
    for d, h in enumerate(heads, 1):
        if h is not None and 0 <= h <= len(heads):
            children[h].append(d)
    return children


def _shortest_nonprojective(heads: Sequence[int]) -> Optional[int]:
    """The dependent of the shortest non-projective arc (ties: leftmost), or None.

    Descendants are tested with pre-order intervals: ``w`` is below ``h`` iff
    ``first[h] <= first[w] < last[h]``.
    """
    n = len(heads)
    children = _children(heads)
    first, last = [0] * (n + 1), [0] * (n + 1)
    clock = 0
    stack = [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            last[node] = clock
            continue
        first[node] = clock
        clock += 1
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children[node]))
    best: Optional[tuple[int, int, int]] = None
    for d, h in enumerate(heads, 1):
        if h == 0:
            continue
        lo, hi = min(h, d), max(h, d)
        if best is not None and (hi - lo, lo) >= best[:2]:
            continue
        if any(not first[h] <= first[w] < last[h] for w in range(lo + 1, hi)):
            best = (hi - lo, lo, d)
    return None if best is None else best[2]


def _depths(heads: Sequence[Optional[int]]) -> list[Optional[int]]:
    """Each word's distance from the root (1 for words on 0); None when no path reaches 0."""
    n = len(heads)
    depth: list[Optional[int]] = [0] + [None] * n  # indexed by word, 0 = root
    for start in range(1, n + 1):
        path: list[int] = []
        d = start
        while d > 0 and depth[d] is None and d not in path:
            path.append(d)
            h = heads[d - 1]
            d = h if h is not None and 0 <= h <= n else -1
        if d < 0 or depth[d] is None:  # headless, or a cycle: nothing on the path is connected
            continue
        for k, w in enumerate(reversed(path), 1):
            depth[w] = depth[d] + k
    return depth[1:]


def _search(heads: Sequence[Optional[int]], labels: Sequence[Optional[str]], d: int,
            target: str) -> Optional[int]:
    """Breadth-first below ``d``'s head, left to right, skipping ``d``'s subtree: the first word labelled ``target``."""
    children = _children(heads)
    queue = deque(c for c in children[heads[d - 1]] if c != d)
    while queue:
        w = queue.popleft()
        if labels[w - 1] == target:
            return w
        queue.extend(c for c in children[w] if c != d)
    return None
