"""Turn any head vector into a single-rooted tree, by a fixed and documented rule.

A parser built from an arbitrary spec may stop with headless words (fragments),
several words on the root, or, for a buggy spec, a cycle.  Evaluation and CoNLL-U
output need a tree, and the fix must not depend on the parser, so every output goes
through :func:`make_tree`.  The rule is the "Fallback" section of docs/nonprojective.md.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

from .trees import cycle_word


class Repaired(NamedTuple):
    """A single-rooted tree from :func:`make_tree`; ``fixes`` counts the words whose head changed."""

    heads: list[int]
    labels: list[Optional[str]]
    fixes: int


def make_tree(heads: Sequence[Optional[int]], labels: Sequence[Optional[str]], *,
              root_label: str = "root", fallback_label: Optional[str] = "dep") -> Repaired:
    """Repair ``heads`` into a tree with exactly one word attached to 0.

    ``None`` and ``-1`` mark a headless word.  The rule:

    1. Break cycles: for each cycle, in order of its smallest word, that word is detached
       (it becomes headless).
    2. Choose the sentence root: the first word attached to 0, else the first headless
       word, which gets head 0 and label ``root_label``.
    3. Every other headless word and every other word attached to 0 is attached to the
       chosen root.  It keeps its label unless that is empty, None or ``root_label``,
       in which case it gets ``fallback_label``.

    A valid single-rooted tree passes through unchanged, with ``fixes == 0``.

    Args:
        heads: ``heads[d-1]`` is the head of word ``d`` (0 = root; None or -1 = none).
        labels: one label per word; None or ``""`` for none.
        root_label: the label of a root chosen in step 2 among headless words.
        fallback_label: the label of a reattached word that has no usable one (None: left
            None, for the caller to choose one per word).

    Returns:
        The tree, its labels, and how many words got a different head in steps 1-3.

    Raises:
        ValueError: the lengths differ, or a head is outside ``None``, -1 and 0..n.
    """
    n = len(heads)
    if len(labels) != n:
        raise ValueError(f"{n} heads but {len(labels)} labels")
    for d, h in enumerate(heads, 1):
        if h is not None and not -1 <= h <= n:
            raise ValueError(f"head {h} of word {d} is out of range (words are 1..{n})")
    out: list[Optional[int]] = [None if h == -1 else h for h in heads]
    new_labels = list(labels)
    while (d := cycle_word(out)) is not None:  # step 1
        out[d - 1] = None
    on_root = [d for d in range(1, n + 1) if out[d - 1] == 0]
    headless = [d for d in range(1, n + 1) if out[d - 1] is None]
    if on_root:  # step 2
        root = on_root[0]
    elif headless:
        root = headless[0]
        out[root - 1] = 0
        new_labels[root - 1] = root_label
    else:  # only when n == 0
        return Repaired([], new_labels, 0)
    for d in on_root + headless:  # step 3
        if d == root:
            continue
        label = new_labels[d - 1]
        if not label or label == root_label:
            new_labels[d - 1] = fallback_label
        out[d - 1] = root
    fixes = sum(1 for h, g in zip(out, heads) if h != g)
    return Repaired(out, new_labels, fixes)
