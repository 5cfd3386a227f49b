"""The spec AST: frozen dataclasses produced by the parser, one per construct.

The AST stays close to the surface text (names as written, unevaluated
expressions, every node with its :class:`~tsdsl.errors.Span`) so that the
checker can point at the exact place of a mistake. :mod:`tsdsl.lang.lower` turns it into
the IR; nothing else reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..errors import Span

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon",
    "λ": "lambda", "μ": "mu", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau",
    "υ": "upsilon", "ω": "omega", "Σ": "Sigma", "Λ": "Lambda", "Β": "Beta",
}


def ascii_name(name: str) -> str:
    """Spell Greek letters in ASCII, so ``λ1`` and ``lambda1`` are one name."""
    return "".join(GREEK.get(ch, ch) for ch in name)


# ---- integer expressions ----------------------------------------------------
@dataclass(frozen=True)
class IntLit:
    value: int
    span: Span


@dataclass(frozen=True)
class InfLit:
    span: Span


@dataclass(frozen=True)
class ParamRef:
    name: str
    span: Span


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    span: Span


Expr = Union[IntLit, InfLit, ParamRef, BinOp]


# ---- guards -----------------------------------------------------------------
@dataclass(frozen=True)
class GCall:
    name: str
    args: tuple[tuple[str, Span], ...]
    span: Span


@dataclass(frozen=True)
class GCompare:
    """``left OP value``: ``len(σ) >= 2``, or token terms such as ``x < max(y, z)``."""

    call: Union[GCall, "ParamRef"]
    op: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class GMember:
    """``term in LIST``: the token (a variable or ``gold_head(x)``) is in the list."""

    term: Union[GCall, "ParamRef"]
    list: str
    span: Span
    list_span: Optional[Span] = None  # the list's name alone (where an unknown list is reported)


@dataclass(frozen=True)
class GPath:
    ancestor: str
    descendant: str
    span: Span
    ancestor_span: Span  # each variable's own place, where an unbound one is reported
    descendant_span: Span


@dataclass(frozen=True)
class GArc:
    head: str
    dep: str
    span: Span
    head_span: Span  # each variable's own place, where an unbound one is reported
    dep_span: Span


@dataclass(frozen=True)
class GTokenFlag:
    flag: str
    var: str
    span: Span
    var_span: Span  # the index variable's own place, where an unbound one is reported


@dataclass(frozen=True)
class GGlobalFlag:
    flag: str
    span: Span


@dataclass(frozen=True)
class GConst:
    value: bool
    span: Span


@dataclass(frozen=True)
class GNot:
    item: "Guard"
    span: Span


@dataclass(frozen=True)
class GAnd:
    items: tuple["Guard", ...]
    span: Span


@dataclass(frozen=True)
class GOr:
    items: tuple["Guard", ...]
    span: Span


Guard = Union[GCall, GCompare, GMember, GPath, GArc, GTokenFlag, GGlobalFlag, GConst, GNot, GAnd, GOr]


# ---- configurations and rules -------------------------------------------------
@dataclass(frozen=True)
class PatItem:
    """A name inside a list pattern: a token variable, a list name, or ``1..n``."""

    name: str
    span: Span


@dataclass(frozen=True)
class ListPat:
    kind: str  # "empty" | "exact" | "open"
    items: tuple[PatItem, ...]
    span: Span


@dataclass(frozen=True)
class ConfigPat:
    lists: tuple[ListPat, ...]
    span: Span


@dataclass(frozen=True)
class ArcClause:
    head: str
    dep: str
    options: tuple[tuple[str, Span], ...]
    span: Span
    head_span: Span  # each variable's own place, where an unbound one is reported
    dep_span: Span


@dataclass(frozen=True)
class AssignClause:
    flag: str
    index: Optional[str]
    value: Guard
    span: Span
    index_span: Optional[Span] = None  # the index variable's own place (None for a global flag)


@dataclass(frozen=True)
class RuleCase:
    lhs: ConfigPat
    rhs: ConfigPat
    guards: tuple[Guard, ...]
    arcs: tuple[ArcClause, ...]
    assigns: tuple[AssignClause, ...]
    classes: tuple[tuple[str, Span], ...]
    span: Span


# ---- statements -------------------------------------------------------------
@dataclass(frozen=True)
class Cite:
    text: str
    span: Span


@dataclass(frozen=True)
class Claim:
    """What the paper claims about the system (free text, shown next to the verdict)."""

    text: str
    span: Span


@dataclass(frozen=True)
class Produces:
    tree_class: str
    covers: Optional[str]
    span: Span


@dataclass(frozen=True)
class RootPos:
    position: str
    span: Span


@dataclass(frozen=True)
class Extends:
    path: str
    span: Span


@dataclass(frozen=True)
class Param:
    name: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class Setting:
    """A global numeric setting: capacity, distance or start."""

    key: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class Periphery:
    reading: str
    span: Span


@dataclass(frozen=True)
class Multihead:
    span: Span


@dataclass(frozen=True)
class FlagDecl:
    name: str
    index: Optional[str]
    default: bool
    span: Span


@dataclass(frozen=True)
class ListsDecl:
    names: tuple[tuple[str, Span], ...]
    span: Span


@dataclass(frozen=True)
class Initial:
    config: ConfigPat
    span: Span


@dataclass(frozen=True)
class Terminal:
    config: ConfigPat
    guard: Optional[Guard]
    span: Span


@dataclass(frozen=True)
class Finally:
    words: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class Drop:
    name: str
    span: Span


@dataclass(frozen=True)
class CPParam:
    key: str
    value: str
    span: Span


@dataclass(frozen=True)
class CPTransition:
    name: str
    base: str
    params: tuple[CPParam, ...]
    classes: tuple[tuple[str, Span], ...]
    span: Span


@dataclass(frozen=True)
class RuleTransition:
    name: str
    cases: tuple[RuleCase, ...]
    span: Span


Statement = Union[
    Cite, Claim, Produces, RootPos, Extends, Param, Setting, Periphery, Multihead, FlagDecl,
    ListsDecl, Initial, Terminal, Finally, Drop, CPTransition, RuleTransition,
]


@dataclass(frozen=True)
class OracleDecl:
    name: str
    title: Optional[str]
    span: Span


@dataclass(frozen=True)
class ReachRule:
    """``reachable h -> d if GUARD`` (positive) or ``unreachable h -> d if GUARD``."""

    positive: bool
    head: str
    dep: str
    guard: Guard
    span: Span


@dataclass(frozen=True)
class LossRule:
    name: Optional[str]
    terms: tuple[str, ...]
    bound: Optional[str]
    span: Span
    term_spans: tuple[Span, ...] = ()  # one per term, for errors that point at the term


@dataclass(frozen=True)
class PenaltyRule:
    """``penalty ACTION if GUARD``; ``action`` is a plain name (an action, or a whole family)
    or one instance as `show` names it (``LEFT-ARC(2,1)``)."""

    action: str
    guard: Guard
    span: Span


OracleRule = Union[OracleDecl, ReachRule, LossRule, PenaltyRule]


@dataclass(frozen=True)
class Spec:
    """One parsed spec file: its header and statements in source order."""

    name: str
    title: Optional[str]
    file: str
    text: str
    statements: tuple[Statement, ...]
    span: Span
