"""Lists that always hold the last tokens of the sentence, in order (a buffer read from its
front): then the word at position k of such a list is its first word's k-th successor,
which lets a feature program read ``b1`` as ``b0.next`` (see
:func:`tsdsl.learn.scoring.program_for`)."""

from __future__ import annotations

from .nodes import Block, Rest, Tok
from .system import System

_SIZES = range(0, 7)
"""The sentence lengths the initial configuration is laid out for (the rule is the same
for every length; several lengths catch a ``split`` that cuts a short sentence short)."""


def initial_token_lists(system: System, n: int) -> list[list[int]]:
    """The token numbers of each list in the initial configuration for ``n`` words (the
    interpreter's, and the kernel's ``st_start``): words 1..n, the root 0 (on the left) or
    n + 1 (on the right); with a ``split``, the concatenation cut after that many tokens."""
    root = {"left": 0, "right": n + 1}.get(system.root)

    def tokens(items) -> list[int]:
        out: list[int] = []
        for it in items:
            if it == "words":
                out.extend(range(1, n + 1))
            elif it == "root" and root is not None:
                out.append(root)
        return out

    lists = [tokens(items) for items in system.initial.lists]
    if system.initial.split is not None:
        whole = [t for lst in lists for t in lst]
        k = min(int(system.initial.split), len(whole))
        lists = [whole[:k], whole[k:]] + [[] for _ in lists[2:]]
    return lists


def last_token(system: System, n: int) -> int:
    """The greatest token number for ``n`` words: the root's when it is on the right."""
    return n + 1 if system.root == "right" else n


def _is_suffix_run(tokens: list[int], last: int) -> bool:
    return not tokens or tokens == list(range(tokens[0], last + 1))


def suffix_lists(system: System) -> frozenset[str]:
    """The lists read from their front (buffer-like, open end ``L``) that hold, in every
    reachable configuration, the tokens ``j, j+1, ..., last`` in reading order (or nothing),
    ``last`` the greatest token (:func:`last_token`).

    By induction over the transitions: the initial configuration holds such a run
    (:func:`initial_token_lists`), and every case of every action rebuilds the list as a
    suffix of its own pattern (``j|β => β`` drops the first word, ``j|β => j|β`` keeps it):
    the rest of a run without its first tokens is a run ending at the same token.  A case
    that moves any other token into the list, drops its last one or reorders it is not
    proved, and the list is left out.  Capacity ``inf`` systems are left out altogether.
    A sound rule, not a complete one: ``tests/test_runs.py`` checks the claim along random
    derivations of every seed system, and that systems that push words back (SWAP, arc-standard
    after Nivre 2004) are left out."""
    if system.unbounded:
        return frozenset()
    proved = []
    for k, decl in enumerate(system.lists):
        if decl.open_end != "L":
            continue
        if not all(_is_suffix_run(initial_token_lists(system, n)[k], last_token(system, n)) for n in _SIZES):
            continue
        if all(_keeps_suffix(case, decl.name, k) for action in system.actions for case in action.cases):
            proved.append(decl.name)
    return frozenset(proved)


def _keeps_suffix(case, name: str, k: int) -> bool:
    """Whether ``case`` rebuilds list ``name`` (number ``k``) as a suffix of its own pattern."""
    match = next((m for m in case.match if m.list == name), None)
    if match is None or k >= len(case.result):
        return False
    items, result = match.items, tuple(case.result[k])
    if not all(isinstance(it, (Tok, Rest, Block)) for it in items):
        return False
    return any(result == items[i:] for i in range(len(items) + 1))
