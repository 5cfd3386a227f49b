"""How deep into each list a system's actions look: the positions, counted from a list's open
end (0 is a stack's top or a buffer's front), that some action's pattern binds to a token.
Guards and arcs name only the tokens a pattern binds, so these are also every position an
action's guard reads or an arc attaches; a guard's ``first(L)`` / ``last(L)`` at the open end
reads position 0.  The default feature templates are checked against them
(:mod:`tsdsl.learn.feature_reach`)."""

from __future__ import annotations

import dataclasses
from typing import Iterator

from .nodes import Case, ListMatch, TFirst, TLast
from .system import System


def reached_positions(system: System) -> dict[str, int]:
    """List name -> the deepest position (0-based from the open end) that an action binds,
    reads or attaches, for each list some action looks into.

    A token bound at the closed end of a list whose pattern has a rest (the stack's bottom
    in ``[r]|σ``) has no fixed position from the open end and is left out, as are the
    tokens inside a block (moved as a unit, never named one by one).  Capacity ``inf``
    systems give ``{}``: their features start at each family instance's own tokens, not at
    list positions."""
    if system.unbounded:
        return {}
    open_end = {d.name: d.open_end for d in system.lists}
    deepest: dict[str, int] = {}
    for action in system.actions:
        for case in action.cases:
            for name, pos in _case_positions(case, open_end):
                deepest[name] = max(pos, deepest.get(name, 0))
    return {d.name: deepest[d.name] for d in system.lists if d.name in deepest}


def _case_positions(case: Case, open_end: dict[str, str]) -> Iterator[tuple[str, int]]:
    """(list, position from the open end) of each token ``case`` binds, and position 0 of a
    list whose open-end token its guard names with ``first``/``last``."""
    for m in case.match:
        for pos in _match_positions(m, open_end[m.list]):
            yield m.list, pos
    for term in _terms(case.guard):
        if isinstance(term, TFirst) and open_end.get(term.list) == "L":
            yield term.list, 0
        elif isinstance(term, TLast) and open_end.get(term.list) == "R":
            yield term.list, 0


def _match_positions(m: ListMatch, open_end: str) -> Iterator[int]:
    """Positions from the open end of the single tokens a list pattern binds."""
    for side, offset, width in m.positions().values():
        if width != 1:
            continue
        if side == open_end:
            yield offset
        elif not m.has_rest:  # an exact-length pattern: counted from the other end
            yield m.min_len - 1 - offset


def _terms(node) -> Iterator[object]:
    """Every ``first``/``last`` term inside a guard, at any depth."""
    if isinstance(node, (TFirst, TLast)):
        yield node
    elif dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _terms(getattr(node, f.name))
    elif isinstance(node, tuple):
        for item in node:
            yield from _terms(item)
