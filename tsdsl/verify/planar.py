"""A proof, read off the IR, that a system cannot build certain sets of arcs (crossing arcs,
when arcs join adjacent tokens).

Take the lists in some order and read them one after another: the *sequence* of a
configuration.  Suppose that

1. the initial sequence is in sentence order (the root at its own position: 0 on the
   left, n+1 on the right), and every case of every action rebuilds the lists so that the
   new sequence is a subsequence of the old one (tokens may leave, never come back or
   change places: the result items are the matched items, in the same order, each at most
   once); and
2. every arc an action builds joins two tokens adjacent in the sequence when it is built
   (the two matched variables sit side by side among the matched items, nothing between).

(More generally, 2'. at most G tokens lie between the two ends of an arc when it is
built: every item between the two matched variables has a fixed width.  G = 0 is 2.
Items that the same case takes out of the lists, and that are no end of an arc it builds,
do not count: arc-swift's ``(σ|t|s, b|β) => (σ, b|β)  arc b -> t`` joins t and b over s,
which leaves with t.  Such an item gains no arc later (tokens never come back), and an
earlier arc at it would have had t or b, both still present, between its own ends when it
was built, where only items that left then may stand.  An item that is an end of another arc
of the same case does count: two arcs built at once over each other would cross.)

Then no two arcs ever built cross.  Let e = h -> d be built at time t, and f = k -> m with
k strictly between h and d and m outside.  If f was built before t, h or d (present at t,
so present earlier: tokens never come back) lay between k and m in the sequence then, so k
and m were not adjacent.  If f was built after t, k was present then, so present at t,
between h and d, which were then not adjacent.  Overwritten or removed arcs change nothing:
the output's arcs are among those built.

The end-of-parse rule adds arcs from the root that no action built (headless words to the
root, or the last headless word of a rootless system), so gold arcs from the root take
part only when the system has neither, or when every case takes tokens out of the lists
only with a head (the dependent of its arc, or ``has_head`` in its guard): then a word the
rule attaches never left the lists, so no built arc spans it, and its root arc (from
position 0, or n+1) crosses nothing either.  A gold tree with two crossing arcs that must
have been built (or count as built) is therefore not derivable: coverage decides it without
a search.

With G > 0 (Attardi's N = G + 1, say) the same facts give a weaker but still sound test.
A token that has left the sequence never gains an arc again, so all its arcs were built
while it was present.  Take any set S of gold arcs that must be built, and its arc e built
first: every token strictly between e's ends that is an end of another arc of S is still
present when e is built (its arc of S comes later), so there are at most G of them.  If
every arc of S has more than G such tokens, no derivation builds S.  The largest such S is
found by peeling off arcs that could come first, as a k-core is found; a non-empty rest is
the proof.  For G = 0 it is exactly "two arcs cross".

When moreover every arc takes its dependent out of the lists (Attardi, easy-first: the
dependent is reduced), arcs are built bottom-up: d leaves when h -> d is built, so every
arc d -> x came before.  Then the first arc e = h -> d of S has no arc of S out of d, and
every gold ancestor a of h is present when e is built (a's arc to its child on the path
to h comes after e, each one before its parent's): S is blocked when each of its arcs
either has an arc of S out of its dependent or spans more than G tokens that are ends of
other arcs of S or ancestors of its head.  The compiled search applies the same test to
every configuration it reaches (the arcs still to build), not just to the first.

In a configuration there is one more fact when some list L *anchors* the arcs (Attardi's
stack): the later end of every arc is the last token of L when the arc is built (the
case's pattern of L ends with it), and no token leaves L for another list.  A token now in
L after an arc's later end must then leave before the arc is built, so all its own arcs come
first: in the core test an arc with an arc of the set at such a token is not first.  At the
start L holds at most the root, so this only helps the compiled search.  Guards are
ignored (they only forbid moves), so the check is sound for any spec; it simply finds no
proof for systems that reorder tokens (SWAP) or join tokens further apart (Covington,
Attardi, non-projective easy-first).

The same sequence also guides the search for the systems that reorder it
(:func:`reordering`): no proof there, only the order in which the compiled search tries
actions (arcs first, then the reorderings that bring the sequence closer to the gold tree's
projective order, ...; ``CompiledSystem.derive(guide=...)``).
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


def _result_positions(system: ir.System, case: ir.Case, order: Sequence[int]):
    """The matched sequence (the items of the lists in ``order``, end to end), each item's
    place in it, and where each item of the case's result stood there; None when a result
    item is not matched or an item appears twice."""
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
        return None
    where = {s: i for i, s in enumerate(before)}
    if any(s not in where for s in after):
        return None
    return before, where, [where[s] for s in after]


def _case_gap(system: ir.System, case: ir.Case, order: Sequence[int]) -> Optional[int]:
    """The most tokens between the ends of an arc this case builds (0 without arcs), when
    the case keeps the sequence order; None when it does not, or a gap is unbounded.  Items
    the case takes out of the lists that are no arc's end do not count (the docstring, 2')."""
    found = _result_positions(system, case, order)
    if found is None or found[2] != sorted(found[2]):
        return None
    before, where, kept_at = found
    kept = {before[i] for i in kept_at}
    ends = {("tok", v) for op in case.arcs for v in (op.head, op.dep)}
    width = {}
    for m in case.match:
        for item in m.items:
            if isinstance(item, ir.Tok):
                width[_symbol(item)] = 1
            elif isinstance(item, ir.Block) and isinstance(item.length, int):
                width[_symbol(item)] = item.length
    gap = 0
    for op in case.arcs:
        a, b = where.get(("tok", op.head)), where.get(("tok", op.dep))
        if a is None or b is None:
            return None
        # an item the case takes out of the lists, and no end of an arc it builds, gains no
        # arc later and crosses none built earlier (see the docstring): it does not count
        between = [sym for sym in before[min(a, b) + 1:max(a, b)] if sym in kept or sym in ends]
        if any(sym not in width for sym in between):
            return None  # a Rest (any number of tokens) between the ends
        gap = max(gap, sum(width[sym] for sym in between))
    return gap


def _leaves_headed(case: ir.Case) -> bool:
    """Whether every token this case takes out of the lists has a head: it is the dependent of
    an arc the case builds, or the guard requires ``has_head`` of it (as a conjunct)."""
    before = {_symbol(i) for m in case.match for i in m.items}
    after = {_symbol(i) for items in case.result for i in items}
    guard = case.full_guard
    conjuncts = guard.items if isinstance(guard, ir.All) else (guard,)
    headed = {c.var for c in conjuncts if isinstance(c, ir.HasHead)} | {op.dep for op in case.arcs}
    for kind, name in before - after:
        if kind != "tok" or name not in headed:
            return False
    return True


@lru_cache(maxsize=256)
def _headless_stay(system: ir.System, n_tokens: int) -> bool:
    return all(_leaves_headed(c) for a in system.actions_for(n_tokens) for c in a.cases)


def _initial_ok(system: ir.System, order: Sequence[int]) -> bool:
    it = Interpreter(system)
    for n in (1, 2, 3):
        c = it.initial(n)
        seq = [t for k in order for t in c.lists[k]]
        if seq != sorted(seq) or len(set(seq)) != len(seq):
            return False
    return True


@lru_cache(maxsize=256)
def _order_for(system: ir.System, n_tokens: int) -> Optional[tuple[tuple[int, ...], int]]:
    cases = [c for a in system.actions_for(n_tokens) for c in a.cases]
    best = None
    for order in itertools.permutations(range(len(system.lists))):
        if not _initial_ok(system, order):
            continue
        gaps = [_case_gap(system, c, order) for c in cases]
        if all(g is not None for g in gaps):
            gap = max(gaps, default=0)
            if best is None or gap < best[1]:
                best = (order, gap)
    return best


def arc_gap(system: ir.System, n_words: int = 8) -> Optional[tuple[tuple[int, ...], int]]:
    """(order of the lists, G) under which the module docstring's conditions 1 and 2' hold for
    the actions of ``n_words``-word sentences (capacity-inf systems instantiate their families
    per length), with the least G; None when no order keeps the sequence and bounds the gaps."""
    n_tokens = n_words + (0 if system.root == "none" else 1)
    return _order_for(system, n_tokens if system.unbounded else 0)


def noncrossing_order(system: ir.System, n_words: int = 8) -> Optional[tuple[int, ...]]:
    """The order of lists that proves built arcs never cross (G = 0), or None."""
    found = arc_gap(system, n_words)
    return found[0] if found is not None and found[1] == 0 else None


def _must_build(system: ir.System, heads: Sequence[int], headless_stay: bool = False) -> list[tuple[int, int]]:
    """Gold arcs (in the system's token positions) that an action must have built, or (with
    ``headless_stay``) that behave as if built: an arc from the root that the end-of-parse rule
    adds goes to a word that never left the lists (a token leaves only with a head), so no
    built arc spans it, as if the root arc were built."""
    n = len(heads)
    root_free = (system.attach_headless_to_root or system.root == "none") and not headless_stay
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


def _ancestors(arcs: Sequence[tuple[int, int]]) -> dict[int, list[int]]:
    """Per token, its ancestors through ``arcs`` (head of each dependent), nearest first."""
    parent = {d: h for h, d in arcs}
    out: dict[int, list[int]] = {}
    for t in {h for h, _ in arcs}:
        chain, x = [], t
        while x in parent and len(chain) <= len(parent):
            x = parent[x]
            chain.append(x)
        out[t] = chain
    return out


def blocked_core(arcs: Sequence[tuple[int, int]], gap: int, bottom_up: bool = False) -> list[tuple[int, int]]:
    """The largest set of ``arcs`` none of which can be built first (empty when there is
    none): each has more than ``gap`` ends of the others of the set strictly between its own
    ends or, with ``bottom_up`` (every arc takes its dependent out of the lists), more than
    ``gap`` such ends and ancestors of its head together, or an arc of the set out of its
    dependent.  See the docstring."""
    core = list(dict.fromkeys(arcs))
    ancestors = _ancestors(core) if bottom_up else {}
    while True:
        ends: dict[int, int] = {}
        heads = {h for h, _ in core}
        for h, d in core:
            ends[h] = ends.get(h, 0) + 1
            ends[d] = ends.get(d, 0) + 1
        keep = []
        for h, d in core:
            lo, hi = min(h, d), max(h, d)
            present = {t for t in ends if lo < t < hi}
            if bottom_up:
                if d in heads:
                    keep.append((h, d))
                    continue
                present |= {a for a in ancestors.get(h, ()) if lo < a < hi}
            if len(present) > gap:
                keep.append((h, d))
        if len(keep) == len(core):
            return core
        core = keep


def _takes_dependent(case: ir.Case) -> bool:
    """Whether every arc the case builds takes its dependent out of the lists."""
    after = {_symbol(i) for items in case.result for i in items}
    return all(("tok", op.dep) not in after for op in case.arcs)


@lru_cache(maxsize=256)
def _bottom_up(system: ir.System, n_tokens: int) -> bool:
    return all(_takes_dependent(c) for a in system.actions_for(n_tokens) for c in a.cases)


def takes_dependents(system: ir.System, n_words: int = 8) -> bool:
    """Whether every arc any action of ``n_words``-word sentences builds takes its dependent
    out of the lists, so that arcs are built bottom-up (see the module docstring)."""
    n_tokens = n_words + (0 if system.root == "none" else 1)
    return _bottom_up(system, n_tokens if system.unbounded else 0)


def _anchors(system: ir.System, case: ir.Case, k: int, order: Sequence[int]) -> bool:
    """Whether list ``k`` anchors the case: every arc's later end (in the sequence ``order``)
    is the last item of the case's pattern of list k, and nothing matched in list k goes to
    another list."""
    names = [d.name for d in system.lists]
    m = next((m for m in case.match if m.list == names[k]), None)
    mine = {_symbol(i) for i in m.items} if m is not None else {("rest", names[k])}
    for j, items in enumerate(case.result):
        if j != k and any(_symbol(i) in mine for i in items):
            return False
    if not case.arcs:
        return True
    if m is None or not m.items or not isinstance(m.items[-1], ir.Tok):
        return False
    last = m.items[-1].var
    rank = {names[j]: r for r, j in enumerate(order)}
    where = {i.var: (rank[mm.list], p) for mm in case.match for p, i in enumerate(mm.items) if isinstance(i, ir.Tok)}
    for op in case.arcs:
        if last not in (op.head, op.dep):
            return False
        other = op.dep if last == op.head else op.head
        if other not in where or where[other] >= where[last]:
            return False
    return True


@lru_cache(maxsize=256)
def _anchor(system: ir.System, n_tokens: int) -> Optional[int]:
    found = _order_for(system, n_tokens)
    if found is None:
        return None
    cases = [c for a in system.actions_for(n_tokens) for c in a.cases]
    return next((k for k in range(len(system.lists)) if all(_anchors(system, c, k, found[0]) for c in cases)), None)


def anchored_list(system: ir.System, n_words: int = 8) -> Optional[int]:
    """The index of the list that anchors every arc of ``n_words``-word sentences (see the
    module docstring), or None; only where :func:`arc_gap` finds an order."""
    n_tokens = n_words + (0 if system.root == "none" else 1)
    return _anchor(system, n_tokens if system.unbounded else 0)


def search_pruning(system: ir.System, n_words: int) -> dict:
    """The keyword arguments of ``CompiledSystem.derive`` that this module's proofs allow for
    sentences of ``n_words`` words: ``gap`` (:func:`arc_gap`), ``bottom_up``
    (:func:`takes_dependents`) and ``anchor`` (:func:`anchored_list`), or none of them where
    no gap is proved.  They drop only configurations that cannot finish the gold tree."""
    found = arc_gap(system, n_words)
    gap = None if found is None else found[1]
    return dict(gap=gap, bottom_up=gap is not None and takes_dependents(system, n_words),
                anchor=None if gap is None else anchored_list(system, n_words))


def nonderivable_by_crossing(system: ir.System, heads: Sequence[int]) -> Optional[str]:
    """Why ``heads`` (CoNLL-U numbering) cannot be derived, when the proof applies: crossing
    gold arcs that would all have to be built (G = 0), or a set of gold arcs none of which can
    be built first (G > 0); None otherwise (no conclusion)."""
    found = arc_gap(system, len(heads))
    if found is None:
        return None
    gap = found[1]
    n_tokens = len(heads) + (0 if system.root == "none" else 1)
    stay = gap == 0 and _headless_stay(system, n_tokens if system.unbounded else 0)
    must = _must_build(system, heads, stay)
    if gap == 0:
        pair = crossing_pair(must)
        if pair is None:
            return None
        (h1, d1), (h2, d2) = pair
        return (f"gold arcs {h1} -> {d1} and {h2} -> {d2} cross, and {system.name} never builds crossing arcs "
                f"(proved on its actions: order-preserving lists, arcs between adjacent tokens)")
    bottom_up = takes_dependents(system, len(heads))
    core = blocked_core(must, gap, bottom_up)
    if not core:
        return None
    shown = ", ".join(f"{h} -> {d}" for h, d in core[:4]) + (", ..." if len(core) > 4 else "")
    if bottom_up:
        return (f"none of the gold arcs {shown} can be built first: each spans more than {gap} tokens that must "
                f"still be there (ends of the others, ancestors of its head) or must wait for an arc of its "
                f"dependent, and {system.name} builds arcs over at most {gap} tokens, bottom-up (proved on its "
                f"actions: order-preserving lists, bounded gaps, dependents reduced)")
    return (f"none of the gold arcs {shown} can be built first: each spans more than {gap} ends of the others, "
            f"and {system.name} builds arcs over at most {gap} tokens (proved on its actions: "
            f"order-preserving lists, bounded gaps)")


def _case_reorders(system: ir.System, case: ir.Case, order: Sequence[int]) -> bool:
    """Whether the case may change the order of the tokens in the sequence ``order`` (the
    result is not the matched items in their order, each at most once; a case this cannot
    tell counts as reordering)."""
    found = _result_positions(system, case, order)
    return found is None or found[2] != sorted(found[2])


@lru_cache(maxsize=256)
def reordering(system: ir.System) -> Optional[tuple[tuple[int, ...], tuple[int, ...]]]:
    """For a bounded system with actions that reorder tokens (SWAP): (the order of the lists
    whose concatenation is in sentence order at the start, per action 1 when it builds an arc,
    2 when it builds none and may reorder that sequence, 0 otherwise), what the compiled
    search takes as its ``guide``.  None when no action reorders the sequence (the guided
    order is then the plain one), when no order of the lists starts in sentence order, or
    for capacity inf."""
    if system.unbounded:
        return None
    order = next((o for o in itertools.permutations(range(len(system.lists))) if _initial_ok(system, o)), None)
    if order is None:
        return None
    kinds = []
    for a in system.actions:
        if any(c.arcs for c in a.cases):
            kinds.append(1)
        elif any(_case_reorders(system, c, order) for c in a.cases):
            kinds.append(2)
        else:
            kinds.append(0)
    if 2 not in kinds:
        return None
    return tuple(order), tuple(kinds)
