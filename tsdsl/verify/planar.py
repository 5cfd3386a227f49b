"""A proof, read off the IR, that a system never builds two crossing arcs.

Take the lists in some order and read them one after another: the *sequence* of a
configuration.  Suppose that

1. the initial sequence is in sentence order (the root at its own position: 0 on the
   left, n+1 on the right), and every case of every action rebuilds the lists so that the
   new sequence is a subsequence of the old one (tokens may leave, never come back or
   change places: the result items are the matched items, in the same order, each at most
   once); and
2. every arc an action builds joins two tokens adjacent in the sequence when it is built
   (the two matched variables sit side by side among the matched items, nothing between).

Then no two arcs ever built cross.  Let e = h -> d be built at time t, and f = k -> m with
k strictly between h and d and m outside.  If f was built before t, h or d (present at t,
so present earlier: tokens never come back) lay between k and m in the sequence then, so k
and m were not adjacent.  If f was built after t, k was present then, so present at t,
between h and d, which were then not adjacent.  Overwritten or removed arcs change nothing:
the output's arcs are among those built.

The end-of-parse rule adds arcs from the root that no action built (headless words to the
root, or the last headless word of a rootless system), so gold arcs from the root take
part only when the system has neither.  A gold tree with two crossing arcs that must have
been built is therefore not derivable: coverage decides it without a search.  Guards are
ignored (they only forbid moves), so the check is sound for any spec; it simply finds no
proof for systems that reorder tokens (SWAP) or join tokens further apart (Covington,
Attardi, non-projective easy-first).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Optional, Sequence

from .. import ir
from ..interp import Interpreter


def _symbol(item: ir.Item) -> tuple[str, str]:
    if isinstance(item, ir.Tok):
        return ("tok", item.var)
    if isinstance(item, ir.Block):
        return ("block", item.var)
    return ("rest", item.list)


def _case_ok(system: ir.System, case: ir.Case, order: Sequence[int]) -> bool:
    names = [d.name for d in system.lists]
    matched = {m.list: m for m in case.match}
    before: list[tuple[str, str]] = []
    for k in order:
        m = matched.get(names[k])
        before.extend(_symbol(i) for i in m.items) if m is not None else before.append(("rest", names[k]))
    after: list[tuple[str, str]] = []
    for k in order:
        items = case.result[k] if k < len(case.result) else (ir.Rest(names[k]),)
        after.extend(_symbol(i) for i in items)
    if len(set(after)) != len(after) or len(set(before)) != len(before):
        return False
    where = {s: i for i, s in enumerate(before)}
    if any(s not in where for s in after):
        return False
    pos = [where[s] for s in after]
    if pos != sorted(pos):
        return False
    for op in case.arcs:
        a, b = where.get(("tok", op.head)), where.get(("tok", op.dep))
        if a is None or b is None or abs(a - b) != 1:
            return False
    return True


def _initial_ok(system: ir.System, order: Sequence[int]) -> bool:
    it = Interpreter(system)
    for n in (1, 2, 3):
        c = it.initial(n)
        seq = [t for k in order for t in c.lists[k]]
        if seq != sorted(seq) or len(set(seq)) != len(seq):
            return False
    return True


@lru_cache(maxsize=256)
def _order_for(system: ir.System, n_tokens: int) -> Optional[tuple[int, ...]]:
    cases = [c for a in system.actions_for(n_tokens) for c in a.cases]
    for order in itertools.permutations(range(len(system.lists))):
        if _initial_ok(system, order) and all(_case_ok(system, c, order) for c in cases):
            return order
    return None


def noncrossing_order(system: ir.System, n_words: int = 8) -> Optional[tuple[int, ...]]:
    """The order of lists under which the module docstring's two conditions hold for the
    actions of ``n_words``-word sentences (capacity-inf systems instantiate their families
    per length), or None when no order proves that built arcs never cross."""
    n_tokens = n_words + (0 if system.root == "none" else 1)
    return _order_for(system, n_tokens if system.unbounded else 0)


def _must_build(system: ir.System, heads: Sequence[int]) -> list[tuple[int, int]]:
    """Gold arcs (in the system's token positions) that an action must have built."""
    n = len(heads)
    root_free = system.attach_headless_to_root or system.root == "none"
    root_pos = n + 1 if system.root == "right" else 0
    out = []
    for d, h in enumerate(heads, 1):
        if h == 0:
            if root_free:
                continue
            out.append((root_pos, d))
        else:
            out.append((h, d))
    return out


def crossing_pair(arcs: Sequence[tuple[int, int]]) -> Optional[tuple[tuple[int, int], tuple[int, int]]]:
    """Two arcs that cross, or None (O(n log n) would do; n is a sentence)."""
    spans = sorted((min(h, d), max(h, d), (h, d)) for h, d in arcs)
    for i, (a, b, e) in enumerate(spans):
        for c, d, f in spans[i + 1:]:
            if c >= b:
                break
            if a < c < b < d:
                return e, f
    return None


def nonderivable_by_crossing(system: ir.System, heads: Sequence[int]) -> Optional[str]:
    """Why ``heads`` (CoNLL-U numbering) cannot be derived, when the proof applies: the two
    crossing gold arcs that would both have to be built; None otherwise (no conclusion)."""
    if noncrossing_order(system, len(heads)) is None:
        return None
    pair = crossing_pair(_must_build(system, heads))
    if pair is None:
        return None
    (h1, d1), (h2, d2) = pair
    return (f"gold arcs {h1} -> {d1} and {h2} -> {d2} cross, and {system.name} never builds crossing arcs "
            f"(proved on its actions: order-preserving lists, arcs between adjacent tokens)")
