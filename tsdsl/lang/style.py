"""Which of the two styles a spec is written in: control parameters (``NAME = ...``) or
rewrite rules (``NAME : ...``).  A spec that mixes them is lowered in the style most of it
uses, and each transition in the other style is the error, so the diagnostic points at the
line that breaks the style instead of at the statements that agree with each other."""

from __future__ import annotations

from . import codes
from . import syntax as S
from .chain import Merged

CP_STATEMENTS = ("capacity", "distance", "start", "periphery")
REWRITE_STATEMENTS = ("lists", "initial")

_WRITTEN = {"cp": "written in control parameters (NAME = ...)", "rewrite": "a rewrite rule (NAME : ...)"}
_SYSTEM = {"cp": "control-parameter transitions (NAME = ...)", "rewrite": "rewrite rules (NAME : ...)"}


def _style_of(t) -> str:
    return "cp" if isinstance(t, S.CPTransition) else "rewrite"


def spec_style(m: Merged) -> str:
    """``"cp"`` or ``"rewrite"``.  With transitions of one style only, that one; with none,
    the style of the style-only statements (``lists``, ``initial`` against ``capacity``...),
    control parameters when there are none either.  With both, the style with more transitions and
    style-only statements (``capacity``... against ``lists``, ``initial``); on a tie, the
    first transition's."""
    styles = [_style_of(t) for t in m.transitions.values()]
    if not styles:  # none (an error of its own): the style statements say which was meant
        cp = sum(k in m.singles for k in CP_STATEMENTS)
        rw = sum(k in m.singles for k in REWRITE_STATEMENTS)
        return "rewrite" if rw > cp else "cp"
    if "cp" not in styles or "rewrite" not in styles:
        return styles[0]
    cp = styles.count("cp") + sum(k in m.singles for k in CP_STATEMENTS)
    rw = styles.count("rewrite") + sum(k in m.singles for k in REWRITE_STATEMENTS)
    return "cp" if cp > rw else "rewrite" if rw > cp else styles[0]


def report_off_style(ctx, style: str) -> None:
    """One TS214 per transition not written in ``style``, at that transition."""
    for t in ctx.m.transitions.values():
        own = _style_of(t)
        if own != style:
            ctx.err(codes.MIXED_STYLES, f"transition {t.name!r} is {_WRITTEN[own]}, but this system uses "
                    f"{_SYSTEM[style]}; the two styles cannot be mixed in one system", t.span)


def in_style(m: Merged, style: str) -> list:
    """The transitions written in ``style``, in order."""
    return [t for t in m.transitions.values() if _style_of(t) == style]
