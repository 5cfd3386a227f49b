"""The IR's records: numbers of families, list shapes, predicates, token terms, effects,
cases, actions, families, oracles.  Plain frozen data; see :mod:`tsdsl.ir`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..errors import Span

# ---- numbers of action families ---------------------------------------------------


@dataclass(frozen=True)
class Affine:
    """``const + Σ coef·index``: a number in an action family's template that depends on
    the family's indexes (``i0``, ``i1``) or on the sentence size ``n``.

    It renders (``str``) as an expression that is valid both as Python and as C, so the
    kernel generator prints it where an instance would print a number.
    """

    const: int = 0
    coefs: tuple[tuple[str, int], ...] = ()  # sorted by name, no zero coefficient

    @staticmethod
    def of(name: str) -> "Affine":
        return Affine(0, ((name, 1),))

    def _combine(self, other: "Num", sign: int) -> "Affine":
        other = other if isinstance(other, Affine) else Affine(int(other))
        merged = dict(self.coefs)
        for name, c in other.coefs:
            merged[name] = merged.get(name, 0) + sign * c
        return Affine(self.const + sign * other.const, tuple(sorted((n, c) for n, c in merged.items() if c)))

    def __add__(self, other: "Num") -> "Affine":
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: "Num") -> "Affine":
        return self._combine(other, -1)

    def __rsub__(self, other: "Num") -> "Affine":
        return Affine(int(other))._combine(self, -1)

    def at(self, env: dict[str, int]) -> int:
        """The value for concrete indexes."""
        return self.const + sum(c * env[name] for name, c in self.coefs)

    def __str__(self) -> str:
        parts = []
        for name, c in self.coefs:
            sign = "-" if c < 0 else "+"
            term = name if abs(c) == 1 else f"{abs(c)} * {name}"
            parts.append((sign, term))
        if self.const or not parts:
            parts.append(("-" if self.const < 0 else "+", str(abs(self.const))))
        first_sign, first = parts[0]
        text = ("-" if first_sign == "-" else "") + first
        for sign, term in parts[1:]:
            text += f" {sign} {term}"
        return f"({text})" if len(parts) > 1 or first_sign == "-" else text


Num = Union[int, Affine]


def num_at(x: Num, env: dict[str, int]) -> int:
    """A template number for concrete indexes."""
    return x.at(env) if isinstance(x, Affine) else x


# ---- list shapes ----------------------------------------------------------------


@dataclass(frozen=True)
class Tok:
    """One token bound to a variable."""

    var: str


@dataclass(frozen=True)
class Rest:
    """Whatever else the named list held (the σ in ``σ|s``)."""

    list: str


@dataclass(frozen=True)
class Block:
    """A fixed-length run of tokens moved as a unit (index-instantiated actions); in a
    family's template the length may depend on the indexes (and be 0 for some)."""

    var: str
    length: Num


Item = Union[Tok, Rest, Block]


def item_width(item: Item) -> Num:
    return item.length if isinstance(item, Block) else (0 if isinstance(item, Rest) else 1)


@dataclass(frozen=True)
class ListMatch:
    """The shape a list must have: items around at most one Rest; no Rest = exact length."""

    list: str
    items: tuple[Item, ...]

    @property
    def has_rest(self) -> bool:
        return any(isinstance(i, Rest) for i in self.items)

    @property
    def min_len(self) -> int:
        return sum(item_width(i) for i in self.items)

    def positions(self) -> dict[str, tuple[str, int, int]]:
        """var -> (side, offset, width): side "L" counts from the front, "R" from the end."""
        out: dict[str, tuple[str, int, int]] = {}
        rest_at = next((k for k, i in enumerate(self.items) if isinstance(i, Rest)), len(self.items))
        off = 0
        for item in self.items[:rest_at]:
            if not isinstance(item, Rest):
                out[item.var] = ("L", off, item_width(item))
                off += item_width(item)
        off = 0
        for item in reversed(self.items[rest_at + 1:]):
            out[item.var] = ("R", off + item_width(item) - 1, item_width(item))
            off += item_width(item)
        return out


# ---- predicates -------------------------------------------------------------------


@dataclass(frozen=True)
class HasHead:
    var: str


@dataclass(frozen=True)
class IsRoot:
    var: str


@dataclass(frozen=True)
class TokenFlag:
    flag: str
    var: str


@dataclass(frozen=True)
class GlobalFlag:
    flag: str


@dataclass(frozen=True)
class Path:
    """``ancestor ->* descendant`` (reflexive)."""

    ancestor: str
    descendant: str


@dataclass(frozen=True)
class ArcExists:
    head: str
    dep: str


@dataclass(frozen=True)
class Length:
    list: str
    op: str
    value: Num


# ---- token terms (in comparisons and membership) ----


@dataclass(frozen=True)
class TVar:
    var: str


@dataclass(frozen=True)
class TInt:
    value: int


@dataclass(frozen=True)
class TFirst:
    """The first token of a list in reading order (past the end, n+2, when empty)."""

    list: str


@dataclass(frozen=True)
class TLast:
    """The last token of a list in reading order (0 when empty)."""

    list: str


@dataclass(frozen=True)
class TLen:
    list: str


@dataclass(frozen=True)
class TPos:
    """The index of a token in the list that holds it (-1 when in none)."""

    term: "Term"


@dataclass(frozen=True)
class TGold:
    """The gold head of a token (oracle rules only; the root token for the root)."""

    term: "Term"


@dataclass(frozen=True)
class TFunc:
    """``max``, ``min``, ``+`` or ``-`` of two terms."""

    op: str
    left: "Term"
    right: "Term"


Term = Union[TVar, TInt, TFirst, TLast, TLen, TPos, TGold, TFunc]


@dataclass(frozen=True)
class Cmp:
    op: str
    left: Term
    right: Term


@dataclass(frozen=True)
class InList:
    term: Term
    list: str


@dataclass(frozen=True)
class Connected:
    """The two tokens are in one weakly connected component of the arcs."""

    a: str
    b: str


@dataclass(frozen=True)
class Not:
    item: "Pred"


@dataclass(frozen=True)
class All:
    items: tuple["Pred", ...]


@dataclass(frozen=True)
class Any_:
    items: tuple["Pred", ...]


@dataclass(frozen=True)
class Const:
    value: bool


Pred = Union[HasHead, IsRoot, TokenFlag, GlobalFlag, Path, ArcExists, Length, Cmp, InList, Connected, Not, All,
             Any_, Const]

TRUE = Const(True)


def conj(*preds: Pred) -> Pred:
    """A flattened conjunction without redundant ``true``."""
    items: list[Pred] = []
    for p in preds:
        if isinstance(p, All):
            items.extend(p.items)
        elif p != TRUE:
            items.append(p)
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else All(tuple(items))


# ---- effects ------------------------------------------------------------------------


@dataclass(frozen=True)
class ArcOp:
    """Add ``head -> dep``.

    ``overwrite``: replace an existing head of ``dep`` (otherwise ``dep`` must be
    headless, an implicit guard).  ``break_cycle``: when ``dep ->* head`` already
    holds, the arc into ``head`` is removed first, so no cycle closes.
    """

    head: str
    dep: str
    labeled: bool = True
    overwrite: bool = False
    break_cycle: bool = False


@dataclass(frozen=True)
class SetFlag:
    """Assign a flag after the lists are rebuilt; ``var`` None for a global flag."""

    flag: str
    var: Optional[str]
    value: Pred


@dataclass(frozen=True)
class Case:
    """One rewrite: if the lists match and the guard holds, do arcs, rebuild, set flags."""

    match: tuple[ListMatch, ...]
    guard: Pred
    implicit: Pred
    arcs: tuple[ArcOp, ...]
    result: tuple[tuple[Item, ...], ...]
    sets: tuple[SetFlag, ...]
    origin: Span

    @property
    def full_guard(self) -> Pred:
        return conj(self.guard, self.implicit)


@dataclass(frozen=True)
class Action:
    """A transition the parser chooses: its first matching case applies."""

    name: str
    cls: str
    cases: tuple[Case, ...]
    origin: Span
    doc: str = ""
    family: str = ""
    indexes: tuple[int, ...] = ()

    @property
    def labeled(self) -> bool:
        return any(a.labeled for c in self.cases for a in c.arcs)


@dataclass(frozen=True)
class Family:
    """Actions that differ only in numbers, kept as data (capacity ∞: one ``LEFT-ARC(i,j)``
    per pair of positions, as many as the sentence allows).

    ``template`` is an action whose numbers (block lengths, length guards) are
    :class:`Affine` in the indexes (``i0``, ``i1`` …).  For a sentence of ``n`` tokens the
    instances are the index tuples with ``lo <= i_k <= hi`` for each index in turn (bounds
    affine in earlier indexes and ``n``) and every ``limit <= value``, in lexicographic
    order.  An instance drops its zero-length blocks, and the template variables named in
    ``renames`` take their instance names (``("o1", "o", i0)`` turns ``o1`` into ``o3`` when
    i0 = 3).  ``naming``: ``indexed`` names every instance ``NAME(i,j)``, ``if-many`` only when
    there is more than one, ``plain`` never.  The template's empty ``cls`` means that each
    instance is its own class.  Instantiation: :func:`instantiate`.
    """

    template: Action
    indexes: tuple[str, ...] = ()
    bounds: tuple[tuple[Num, Num], ...] = ()
    limits: tuple[tuple[Affine, int], ...] = ()
    renames: tuple[tuple[str, str, Affine], ...] = ()
    naming: str = "plain"

    def index_tuples(self, n: int) -> list[tuple[int, ...]]:
        """The index values of the instances for ``n`` tokens, in order."""
        out: list[tuple[int, ...]] = []

        def extend(prefix: tuple[int, ...]) -> None:
            k = len(prefix)
            env = dict(zip(self.indexes, prefix), n=n)
            if k == len(self.indexes):
                if all(lim.at(env) <= v for lim, v in self.limits):
                    out.append(prefix)
                return
            lo, hi = self.bounds[k]
            for v in range(num_at(lo, env), num_at(hi, env) + 1):
                extend(prefix + (v,))

        extend(())
        return out


@dataclass(frozen=True)
class Terminal:
    match: tuple[ListMatch, ...]
    guard: Pred
    origin: Span


@dataclass(frozen=True)
class Initial:
    """Initial lists as items ``root`` and ``words``; ``split`` re-cuts the sequence after N tokens."""

    lists: tuple[tuple[str, ...], ...]
    split: Optional[int] = None


@dataclass(frozen=True)
class ListDecl:
    name: str
    open_end: str  # "R" (stack-like: the top is the last element) or "L" (buffer-like)


@dataclass(frozen=True)
class LossExpr:
    """A loss formula: a sum of named terms; ``bound`` says whether it is exact, a lower or an upper bound."""

    name: str
    terms: tuple[str, ...]
    bound: str  # "exact" | "lower" | "upper"


@dataclass(frozen=True)
class Oracle:
    """A fast, declared oracle: which gold arcs are still reachable, loss formulas, penalties.

    ``reach`` is (positive, head var, dep var, predicate): with positive=True the
    predicate says when a missing gold arc head -> dep can still be built, else
    when it cannot.  A gold arc already present always counts as reachable.
    """

    name: str
    title: str
    reach: Optional[tuple[bool, str, str, Pred]]
    losses: tuple[LossExpr, ...]
    penalties: tuple[tuple[str, Pred], ...]  # (action, instance or family name as written; guard)
    origin: Span


def penalty_applies(name: str, action: Action) -> bool:
    """Whether a penalty written for ``name`` covers ``action``: its own name (an instance is
    named as `show` names it, ``LEFT-ARC(2,1)``) or its family's (every instance)."""
    return name == action.name or (bool(action.family) and name == action.family)


LOSS_TERMS = ("unreachable", "cycles", "problematic_cycles")

TREE_CLASSES = ("projective", "nonprojective", "dag", "projective-dag", "any")



def items_text(items: tuple[Item, ...], open_end: str = "R") -> str:
    if not items:
        return "[]"
    parts = []
    for it in items:
        if isinstance(it, Tok):
            parts.append(it.var)
        elif isinstance(it, Rest):
            parts.append(it.list)
        else:
            parts.append(f"{it.var}{{{it.length}}}")
    body = "|".join(parts)
    return body if any(isinstance(i, Rest) for i in items) else f"[{body}]"
