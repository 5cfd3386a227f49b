"""A proof, read off the IR, that a system builds no arc longer than L words: the arc-length
limit of a window-bounded system (Covington restricted to a window, ``if j <= i + 3``).

A token is its position in the sentence (the root 0 on the left, n+1 on the right), so a
guard's comparison of two token variables bounds the distance between them.  For every case
that builds an arc ``h -> d`` the facts that must hold when it is built are collected as
difference constraints ``x - y <= c`` over the case's variables:

1. from its guard: every conjunct at the top of the case's full guard (the action's guard and
   the case's) that compares two tokens, each plus or minus a constant (``j <= i + 3``,
   ``i + 1 == j``, ``j - i < 4``): ``<=``, ``<``, ``>=``, ``>``, ``==``; anything else
   is left out (leaving out a conjunct only loses facts, never adds a wrong one);
2. from the order of its lists, where one is proved: when the lists, read one after another
   in some order, start in sentence order and every case keeps that order (tokens may leave,
   never come back or change places: :mod:`.planar`'s condition 1), a token matched before
   another in that reading lies before it in the sentence: ``x - y <= -1``.

Closing the constraints under addition (shortest paths) gives the largest ``d - h`` and
``h - d`` the facts allow.  When both are bounded for every arc of every case, the largest
is the limit L: an arc is only ever built by an action, so every arc of every output spans
at most L words.  The end-of-parse rule adds arcs from the root that no action built; a gold
arc from the root then does not count when the system has such a rule (or no root token).

A gold tree with an arc longer than L is then not derivable, and coverage says so without a
search (:func:`nonderivable_by_arc_length`).  A limit that no fact supports (a guard that
bounds one direction only, lists whose order is not proved) gives no proof: None.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Optional, Sequence

from .. import ir
from .planar import _initial_ok, _must_build, _result_positions

INF = float("inf")


def _affine(t: ir.Term) -> Optional[tuple[str, int]]:
    """(variable, constant) when ``t`` is a token variable plus or minus a number, else None."""
    if isinstance(t, ir.TVar):
        return t.var, 0
    if isinstance(t, ir.TFunc) and t.op in ("+", "-"):
        left, right = t.left, t.right
        if isinstance(right, ir.TInt):
            inner = _affine(left)
            if inner is not None:
                return inner[0], inner[1] + (right.value if t.op == "+" else -right.value)
        if t.op == "+" and isinstance(left, ir.TInt):
            inner = _affine(right)
            if inner is not None:
                return inner[0], inner[1] + left.value
    return None


def guard_differences(guard: ir.Pred) -> list[tuple[str, str, int]]:
    """The difference constraints ``(x, y, c)``, meaning ``x - y <= c``, that the top-level
    conjuncts of ``guard`` state (the module docstring, 1)."""
    conjuncts = guard.items if isinstance(guard, ir.All) else (guard,)
    out = []
    for p in conjuncts:
        if not isinstance(p, ir.Cmp):
            continue
        a, b = _affine(p.left), _affine(p.right)
        if a is None or b is None or a[0] == b[0]:
            continue
        (x, cx), (y, cy) = a, b  # x + cx  op  y + cy
        if p.op in ("<=", "<", "=="):   # x - y <= cy - cx (- 1 when strict)
            out.append((x, y, cy - cx - (1 if p.op == "<" else 0)))
        if p.op in (">=", ">", "=="):   # y - x <= cx - cy (- 1 when strict)
            out.append((y, x, cx - cy - (1 if p.op == ">" else 0)))
    return out


def _order_differences(system: ir.System, case: ir.Case, order: Optional[Sequence[int]]):
    """``x - y <= -1`` for every two token variables matched in that order in the reading of
    the lists in ``order`` (the module docstring, 2); none without an order."""
    if order is None:
        return []
    found = _result_positions(system, case, order)
    if found is None:
        return []
    before = found[0]
    toks = [name for kind, name in before if kind == "tok"]
    return [(x, y, -1) for x, y in itertools.combinations(toks, 2)]


def _closure(variables: set[str], constraints: list[tuple[str, str, int]]) -> dict:
    """The tightest ``x - y <= c`` for every pair (Floyd-Warshall over the constraint graph)."""
    best = {(x, y): (0 if x == y else INF) for x in variables for y in variables}
    for x, y, c in constraints:
        best[x, y] = min(best[x, y], c)
    for k in variables:
        for x in variables:
            for y in variables:
                if best[x, k] + best[k, y] < best[x, y]:
                    best[x, y] = best[x, k] + best[k, y]
    return best


def _keeps_order(system: ir.System, cases: Sequence[ir.Case], order: Sequence[int]) -> bool:
    for case in cases:
        found = _result_positions(system, case, order)
        if found is None or found[2] != sorted(found[2]):
            return False
    return True


def sequence_order(system: ir.System, cases: Sequence[ir.Case]) -> Optional[tuple[int, ...]]:
    """An order of the lists in which the reading starts in sentence order and every case
    keeps it (tokens leave, never come back or change places), or None."""
    for order in itertools.permutations(range(len(system.lists))):
        if _initial_ok(system, order) and _keeps_order(system, cases, order):
            return order
    return None


def _case_limit(system: ir.System, case: ir.Case, order) -> float:
    """The longest arc this case can build (0 when it builds none; inf when unbounded)."""
    if not case.arcs:
        return 0
    constraints = guard_differences(case.full_guard) + _order_differences(system, case, order)
    variables = {op.head for op in case.arcs} | {op.dep for op in case.arcs}
    variables |= {v for x, y, _ in constraints for v in (x, y)}
    best = _closure(variables, constraints)
    return max(max(best[op.dep, op.head], best[op.head, op.dep]) for op in case.arcs)


@lru_cache(maxsize=256)
def _limit_for(system: ir.System, n_tokens: int) -> Optional[int]:
    cases = [c for a in system.actions_for(n_tokens) for c in a.cases]
    if not any(c.arcs for c in cases):
        return None
    order = sequence_order(system, cases)
    limit = max(_case_limit(system, c, order) for c in cases)
    return None if limit == INF else int(limit)


def arc_length_limit(system: ir.System, n_words: int = 8) -> Optional[int]:
    """The most words an arc the system builds spans (``|h - d|``), proved from its guards and
    the order of its lists (the module docstring); None when no limit is proved.  Capacity-inf
    systems instantiate their families for ``n_words``-word sentences."""
    n_tokens = n_words + (0 if system.root == "none" else 1)
    return _limit_for(system, n_tokens if system.unbounded else 0)


def nonderivable_by_arc_length(system: ir.System, heads: Sequence[int]) -> Optional[str]:
    """Why ``heads`` (CoNLL-U numbering) cannot be derived, when a gold arc that an action
    must build is longer than :func:`arc_length_limit`; None otherwise (no conclusion)."""
    if system.multihead:
        return None
    limit = arc_length_limit(system, len(heads))
    if limit is None:
        return None
    for h, d in _must_build(system, heads):
        if abs(h - d) > limit:
            return (f"gold arc {h} -> {d} spans {abs(h - d)} words, and {system.name} builds no arc longer than "
                    f"{limit} (proved from its guards and the order of its lists)")
    return None
