"""The backend-neutral intermediate representation of a transition system.

Every spec, whether written with control parameters or rewrite rules, lowers to
the same small vocabulary: a configuration is a tuple of token lists plus arcs
and flags; an action is one or more *cases*, each a list-shape match, a guard
over a fixed set of predicates, arc operations, flag assignments and the lists'
new shapes.  The interpreter, code generator, checker and learner read only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import re
from typing import Callable, ClassVar, Optional, Union, get_args

from .errors import Span

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
    """A fixed-length run of tokens moved as a unit (index-instantiated actions)."""

    var: str
    length: int


Item = Union[Tok, Rest, Block]


def item_width(item: Item) -> int:
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
    value: int


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
    penalties: tuple[tuple[str, Pred], ...]
    origin: Span


LOSS_TERMS = ("unreachable", "cycles", "problematic_cycles")

TREE_CLASSES = ("projective", "nonprojective", "dag", "projective-dag", "any")


@dataclass(frozen=True)
class System:
    """A checked, lowered transition system (see module docstring)."""

    name: str
    title: str
    cite: str
    produces: str
    covers: str
    root: str  # "left" | "right" | "none"
    lists: tuple[ListDecl, ...]
    token_flags: tuple[tuple[str, bool], ...]
    global_flags: tuple[tuple[str, bool], ...]
    multihead: bool
    initial: Initial
    terminal: Terminal
    attach_headless_to_root: bool
    params: tuple[tuple[str, Optional[int]], ...]
    source_file: str
    source_hash: str
    style: str  # "control-parameters" | "rewrite"
    settings: tuple[tuple[str, object], ...] = ()
    claim: str = ""
    oracles: tuple[Oracle, ...] = ()
    fixed_actions: Optional[tuple[Action, ...]] = None
    instantiate: Optional[Callable[[int], tuple[Action, ...]]] = field(default=None, compare=False, repr=False)
    sources: tuple[str, ...] = ()

    @property
    def unbounded(self) -> bool:
        """True when the action set grows with the sentence (capacity ``inf`` with indexes)."""
        return self.fixed_actions is None

    def actions_for(self, n_tokens: int) -> tuple[Action, ...]:
        """The concrete actions for a configuration with ``n_tokens`` tokens (root included)."""
        if self.fixed_actions is not None:
            return self.fixed_actions
        return self.instantiate(max(n_tokens, 1))

    @property
    def actions(self) -> tuple[Action, ...]:
        if self.fixed_actions is None:
            raise ValueError(f"{self.name}: capacity is unbounded; use actions_for(n)")
        return self.fixed_actions

    def list_index(self, name: str) -> int:
        for k, decl in enumerate(self.lists):
            if decl.name == name:
                return k
        raise KeyError(name)

    def is_monotonic(self, n_tokens: int = 8) -> bool:
        """True when no action can change or remove an existing arc."""
        return not any(op.overwrite or op.break_cycle
                       for a in self.actions_for(n_tokens) for c in a.cases for op in c.arcs)

    @property
    def param_dict(self) -> dict[str, Optional[int]]:
        return dict(self.params)

    def finish(self, heads: list, labels: list, root_label: str = "root") -> None:
        """Apply the system's end-of-parse rule to an output (CoNLL-U numbering, None or a
        negative head for none), in place: with ``finally attach headless to root`` every
        headless word, and in a rootless system a single headless word, gets head 0."""
        headless = [k for k, h in enumerate(heads) if h is None or h < 0]
        if (self.root == "none" and len(headless) == 1) or self.attach_headless_to_root:
            for k in headless:
                heads[k], labels[k] = 0, root_label


# ---- walking the IR -------------------------------------------------------------------
#
# Code that reads predicates, terms, list items or effects subclasses one of the walkers
# below and writes one ``visit_<kind>`` method per kind.  A walker that forgets a kind is
# refused when its class is defined, so adding a kind to ``Pred`` (or ``Term`` …) makes
# every walker that must learn it fail at import, and ``tests/test_walkers.py`` checks that
# the kind lists below are exactly the members of the unions.

PRED_KINDS: tuple[type, ...] = get_args(Pred)
TERM_KINDS: tuple[type, ...] = get_args(Term)
ITEM_KINDS: tuple[type, ...] = get_args(Item)
EFFECT_KINDS: tuple[type, ...] = (ArcOp, SetFlag)


def visit_method(kind: type) -> str:
    """The method a walker defines for ``kind``: ``HasHead`` -> ``visit_has_head``,
    ``Any_`` -> ``visit_any``, ``TVar`` -> ``visit_tvar``."""
    name = kind.__name__.rstrip("_")
    if name[0] == "T" and kind in TERM_KINDS:  # term kinds: TVar, TFirst, ... read as one word
        return "visit_" + name.lower()
    return "visit_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_METHODS: dict[type, str] = {k: visit_method(k) for k in PRED_KINDS + TERM_KINDS + ITEM_KINDS + EFFECT_KINDS}


class Walker:
    """Dispatch on the kind of an IR node: ``visit(node, *args)`` calls ``visit_<kind>``.

    Subclasses name the kinds they walk in ``walks``; unless declared with
    ``partial=True`` (an intermediate base class), a subclass must define a method for
    every one of them, or its definition raises ``TypeError``.
    """

    walks: ClassVar[tuple[type, ...]] = ()
    partial: ClassVar[bool] = True

    def __init_subclass__(cls, partial: bool = False, **kw):
        super().__init_subclass__(**kw)
        cls.partial = partial
        missing = cls.missing()
        if missing and not partial:
            raise TypeError(f"{cls.__qualname__} does not handle {', '.join(missing)}")

    @classmethod
    def missing(cls) -> list[str]:
        """The ``visit_<kind>`` methods this walker lacks."""
        return [_METHODS[k] for k in cls.walks if not callable(getattr(cls, _METHODS[k], None))]

    def visit(self, node, *args):
        try:
            method = _METHODS[type(node)]
        except KeyError:
            raise TypeError(f"{type(self).__name__}: not an IR node: {node!r}") from None
        return getattr(self, method)(node, *args)


class PredWalker(Walker, partial=True):
    """Walks predicates only (terms inside comparisons are the walker's own business)."""

    walks = PRED_KINDS


class TermWalker(Walker, partial=True):
    """Walks token terms."""

    walks = TERM_KINDS


class ExprWalker(Walker, partial=True):
    """Walks predicates and the token terms inside them."""

    walks = PRED_KINDS + TERM_KINDS


class ItemWalker(Walker, partial=True):
    """Walks the items of a list shape (``Tok``, ``Rest``, ``Block``)."""

    walks = ITEM_KINDS


class EffectWalker(Walker, partial=True):
    """Walks the effects of a case (arc operations and flag assignments)."""

    walks = EFFECT_KINDS


class _Text(ExprWalker):
    """Predicates and terms in spec syntax."""

    def visit_has_head(self, p): return f"has_head({p.var})"
    def visit_is_root(self, p): return f"is_root({p.var})"
    def visit_token_flag(self, p): return f"{p.flag}[{p.var}]"
    def visit_global_flag(self, p): return p.flag
    def visit_path(self, p): return f"{p.ancestor} ->* {p.descendant}"
    def visit_arc_exists(self, p): return f"{p.head} -> {p.dep}"
    def visit_length(self, p): return f"len({p.list}) {p.op} {p.value}"
    def visit_cmp(self, p): return f"{self.visit(p.left)} {p.op} {self.visit(p.right)}"
    def visit_in_list(self, p): return f"{self.visit(p.term)} in {p.list}"
    def visit_connected(self, p): return f"connected({p.a}, {p.b})"

    def visit_not(self, p):
        inner = self.visit(p.item)
        return f"not ({inner})" if isinstance(p.item, (All, Any_)) else f"not {inner}"

    def visit_all(self, p): return " and ".join(self._paren(i) for i in p.items)
    def visit_any(self, p): return " or ".join(self._paren(i) for i in p.items)
    def visit_const(self, p): return "true" if p.value else "false"

    def _paren(self, p) -> str:
        return f"({self.visit(p)})" if isinstance(p, (All, Any_)) else self.visit(p)

    def visit_tvar(self, t): return t.var
    def visit_tint(self, t): return str(t.value)
    def visit_tfirst(self, t): return f"first({t.list})"
    def visit_tlast(self, t): return f"last({t.list})"
    def visit_tlen(self, t): return f"len({t.list})"
    def visit_tpos(self, t): return f"pos({self.visit(t.term)})"
    def visit_tgold(self, t): return f"gold_head({self.visit(t.term)})"

    def visit_tfunc(self, t):
        if t.op in ("max", "min"):
            return f"{t.op}({self.visit(t.left)}, {self.visit(t.right)})"
        return f"{self.visit(t.left)} {t.op} {self.visit(t.right)}"


class _Json(PredWalker):
    """Predicates as JSON-ready trees ``[op, args...]`` (terms as spec text)."""

    def visit_has_head(self, p): return ["has_head", p.var]
    def visit_is_root(self, p): return ["is_root", p.var]
    def visit_token_flag(self, p): return ["token_flag", p.flag, p.var]
    def visit_global_flag(self, p): return ["global_flag", p.flag]
    def visit_path(self, p): return ["path", p.ancestor, p.descendant]
    def visit_arc_exists(self, p): return ["arc", p.head, p.dep]
    def visit_length(self, p): return ["len", p.list, p.op, p.value]
    def visit_cmp(self, p): return ["cmp", p.op, term_text(p.left), term_text(p.right)]
    def visit_in_list(self, p): return ["in", term_text(p.term), p.list]
    def visit_connected(self, p): return ["connected", p.a, p.b]
    def visit_not(self, p): return ["not", self.visit(p.item)]
    def visit_all(self, p): return ["and", *[self.visit(i) for i in p.items]]
    def visit_any(self, p): return ["or", *[self.visit(i) for i in p.items]]
    def visit_const(self, p): return p.value


_TEXT, _JSON = _Text(), _Json()


def pred_text(p: Pred) -> str:
    """A readable rendering in spec syntax."""
    return _TEXT.visit(p)


def term_text(t: Term) -> str:
    """A token term in spec syntax."""
    return _TEXT.visit(t)


def pred_json(p: Pred):
    """A JSON-ready tree: ``[op, args...]``."""
    return _JSON.visit(p)



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
