"""Hand examples for the tree helpers in ``tsdsl.treebank.trees`` (CoNLL-U numbering:
``heads[d-1]`` is the head of word ``d``, 0 is the root, None is unattached)."""

from __future__ import annotations

import pytest

from tsdsl.treebank.trees import Tree, has_cycle, is_projective, is_tree

# "book the flight through houston" (SLP3 ex. 18.9)
BOOK = (0, 3, 1, 5, 3)


@pytest.mark.parametrize(
    "heads, expected",
    [
        (BOOK, True),
        ((0,), True),
        ((), False),  # no word attached to the root
        ((2, 0, 2), True),
        ((0, 0), False),  # two roots
        ((None, 0), False),  # a fragment
        ((2, 1), False),  # 1 <-> 2, nothing on the root
        ((0, 3, 2), False),  # 2 <-> 3 cycle beside a root
        ((1,), False),  # self loop
        ((0, 5), False),  # head out of range
        ((0, -1), False),
    ],
)
def test_is_tree(heads, expected):
    assert is_tree(heads) is expected


def test_is_tree_without_single_root():
    assert is_tree((0, 0), single_root=False)
    assert is_tree((0, 0, 2), single_root=False)
    assert not is_tree((0, None), single_root=False)
    assert not is_tree((0, 3, 2), single_root=False)


@pytest.mark.parametrize(
    "heads, expected",
    [
        (BOOK, False),
        ((), False),
        ((0,), False),
        ((1,), True),
        ((2, 1), True),
        ((2, 3, 1), True),
        ((0, 3, 4, 2), True),  # 2 -> 4 -> 3 -> 2
        ((None, 1, None), False),  # None counts as no head
        ((2, 0, None, 3), False),
        ((0, 0, 0), False),
    ],
)
def test_has_cycle(heads, expected):
    assert has_cycle(heads) is expected


@pytest.mark.parametrize(
    "heads, expected",
    [
        (BOOK, True),
        ((0,), True),
        ((), True),
        ((2, 0, 2), True),
        ((3, 4, 0, 3), False),  # 3 -> 1 crosses 4 -> 2
        ((3, 0, 2), False),  # 3 -> 1 crosses the root arc 0 -> 2
        ((0, 4, 4, 1), True),  # nested: 1 -> 4 covers 4 -> 2, 4 -> 3
        ((None, 0, 2, 2), True),  # unattached words are ignored
        ((0, 4, 1, 1), False),  # 4 -> 2 crosses 1 -> 3
    ],
)
def test_is_projective(heads, expected):
    assert is_projective(heads) is expected


def test_tree_dataclass():
    t = Tree((0, None, 2), ("root", None, "det"))
    assert t.n == 3
    assert t.unattached == (2,)
    assert t.arcs is None
