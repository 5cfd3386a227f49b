"""Step tables of a derivation: what `tsdsl trace` prints (SLP3 Figs. 18.7, 18.9 style)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from .errors import UsageError
from .interp import Config, Interpreter


@dataclass(frozen=True)
class Step:
    """One row: the configuration before ``action`` and the arcs it added/removed.

    ``lists``, ``added`` and ``removed`` are the printed forms; ``tokens`` (token ids per
    list), ``arcs`` (every arc before the action), ``added_arcs`` and ``removed_arcs`` (as
    ``(head, dep, label)`` token ids) are what pictures (``trace --html``) are drawn from."""

    index: int
    lists: tuple[tuple[str, ...], ...]
    action: Optional[str]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    costs: Optional[dict] = None
    tokens: tuple[tuple[int, ...], ...] = ()
    arcs: tuple[tuple[int, int, Optional[str]], ...] = ()
    added_arcs: tuple[tuple[int, int, Optional[str]], ...] = ()
    removed_arcs: tuple[tuple[int, int, Optional[str]], ...] = ()


class TraceError(UsageError):
    """An action in the sequence is illegal; carries the steps done so far."""

    def __init__(self, message: str, steps: list[Step], list_names: Sequence[str]):
        super().__init__(message)
        self.steps = steps
        self.list_names = tuple(list_names)


def run_trace(it: Interpreter, words: Sequence[str], actions: Sequence[str]) -> tuple[list[Step], Config]:
    """Apply ``actions`` to the initial configuration of ``words``, recording each step.

    Raises:
        TraceError: an action is unknown or not legal where it is used.
    """
    c = it.initial(len(words))
    steps: list[Step] = []
    names = [d.name for d in it.system.lists]
    for k, action in enumerate(actions):
        view = _lists_view(it, c, words)
        legal = it.legal(c)
        base = action.split(":", 1)[0]
        known = [a.name for a in it.actions(c)]
        if base not in known:
            steps.append(Step(k, view, None, (), (), tokens=_token_ids(c), arcs=_sorted(_labeled_arcs(it, c))))
            raise TraceError(f"step {k}: {unknown_action(base, known)}", steps, names)
        problem = label_problem(action, next(a for a in it.actions(c) if a.name == base))
        if problem:
            steps.append(Step(k, view, None, (), (), tokens=_token_ids(c), arcs=_sorted(_labeled_arcs(it, c))))
            raise TraceError(f"step {k}: {problem}", steps, names)
        if base not in legal:
            steps.append(Step(k, view, None, (), (), tokens=_token_ids(c), arcs=_sorted(_labeled_arcs(it, c))))
            why = "the configuration is terminal" if it.is_terminal(c) else (
                "legal here: " + (", ".join(legal) if legal else "nothing (dead end)"))
            raise TraceError(f"step {k}: {action} is not legal ({why})", steps, names)
        steps.append(apply_recorded(it, c, words, k, action))
    steps.append(final_step(it, c, words, len(actions)))
    return steps, c


def label_problem(given: str, action) -> Optional[str]:
    """What is wrong with the label of ``given`` (``NAME:label``) for ``action``, or None: a
    label on an action that builds no arc (``SHIFT:det``) or an empty one (``RIGHT-ARC:``)
    would otherwise show in the table as if it were used."""
    if ":" not in given:
        return None
    label = given.split(":", 1)[1]
    if not any(case.arcs for case in action.cases):
        return f"{action.name} builds no arc, so it takes no label ({given!r})"
    if not label.strip():
        return f"empty label after ':' in {given!r} (write {action.name} alone for no label)"
    return None


def unknown_action(name: str, known: Sequence[str]) -> str:
    """``unknown action 'FOO' (the actions are SHIFT, ...; did you mean ...?)``: a name the
    spec does not declare is a typo, not an illegal move, and "not legal here" would send the
    user looking at the configuration instead of at the spelling.  Near misses are matched
    case-insensitively (``shift`` finds ``SHIFT``)."""
    import difflib

    instances = [k for k in known if k.upper().startswith(name.upper() + "(")]
    if instances:  # a family named without its indexes (easy-first's LEFT-ARC)
        return (f"{name} needs its indexes: one of {', '.join(instances)} here "
                "(the instances depend on the sentence length)")
    by_upper = {k.upper(): k for k in known}
    close = difflib.get_close_matches(name.upper(), list(by_upper), n=1, cutoff=0.6)
    hint = f"; did you mean {by_upper[close[0]]}?" if close else ""
    return f"unknown action {name!r} (the actions are {', '.join(known)}{hint})"


def apply_recorded(it: Interpreter, c: Config, words, index: int, action: str, costs: Optional[dict] = None) -> Step:
    """Apply ``action`` to ``c`` and return the step row describing it."""
    view = _lists_view(it, c, words)
    tokens = _token_ids(c)
    before = _labeled_arcs(it, c)
    it.apply(c, action)
    after = _labeled_arcs(it, c)
    return Step(index, view, action, _arc_strs(it, c, words, after - before),
                _arc_strs(it, c, words, before - after), costs, tokens=tokens, arcs=_sorted(before),
                added_arcs=_sorted(after - before), removed_arcs=_sorted(before - after))


def final_step(it: Interpreter, c: Config, words, index: int) -> Step:
    """The last row: the configuration reached, with no action."""
    return Step(index, _lists_view(it, c, words), None, (), (), tokens=_token_ids(c),
                arcs=_sorted(_labeled_arcs(it, c)))


def _token_ids(c: Config) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(lst) for lst in c.lists)


def _sorted(arcs) -> tuple[tuple[int, int, Optional[str]], ...]:
    return tuple(sorted(arcs, key=lambda a: (a[1], a[0], a[2] or "")))


def _labeled_arcs(it: Interpreter, c: Config) -> set[tuple[int, int, Optional[str]]]:
    if c.multi is not None:
        return {(h, d, c.arc_labels.get((h, d))) for d in range(len(c.multi)) for h in c.multi[d]}
    return {(h, d, c.labels[d]) for d, h in enumerate(c.heads) if h >= 0}


def _arc_strs(it: Interpreter, c: Config, words, arcs) -> tuple[str, ...]:
    out = []
    for h, d, lab in sorted(arcs, key=lambda a: (a[1], a[0])):
        arrow = f" -{lab}-> " if lab else " -> "
        out.append(f"{it.token_name(c, h, words)}{arrow}{it.token_name(c, d, words)}")
    return tuple(out)


def _lists_view(it: Interpreter, c: Config, words) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(it.token_name(c, t, words) for t in lst) for lst in c.lists)


def render_steps(steps: Sequence[Step], list_names: Sequence[str], *, terminal: bool = False) -> str:
    """A fixed-width table: step, one column per list, action, arcs added (and removed)."""
    header = ["step", *list_names, "action", "arc added"]
    rows = []
    for s in steps:
        arcs = ", ".join(s.added) + ("".join(f" (removed {r})" for r in s.removed))
        action = s.action or ("(terminal)" if terminal and s is steps[-1] else "")
        row = [str(s.index), *("[" + ", ".join(lst) + "]" for lst in s.lists), action, arcs]
        if s.costs is not None:
            row.append(" ".join(f"{k}={v}" for k, v in s.costs.items()))
        rows.append(row)
    if any(s.costs is not None for s in steps):
        header.append("costs")
    width = [max(len(r[k]) if k < len(r) else 0 for r in rows + [header]) for k in range(len(header))]
    fmt = lambda r: "  ".join(cell.ljust(width[k]) for k, cell in enumerate(r)).rstrip()
    return "\n".join([fmt(header)] + [fmt(r) for r in rows])
