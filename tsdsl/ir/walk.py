"""Walking the IR: one method per kind of predicate, term, list item or effect."""

from __future__ import annotations

import re
from typing import ClassVar, get_args

from .nodes import (All, Any_, ArcOp, Item, Pred, SetFlag, Term)

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


class _Vars(ExprWalker):
    """The pattern variables a predicate reads (its terms included), as a set."""

    def visit_has_head(self, p): return {p.var}
    def visit_is_root(self, p): return {p.var}
    def visit_token_flag(self, p): return {p.var}
    def visit_global_flag(self, p): return set()
    def visit_path(self, p): return {p.ancestor, p.descendant}
    def visit_arc_exists(self, p): return {p.head, p.dep}
    def visit_length(self, p): return set()
    def visit_cmp(self, p): return self.visit(p.left) | self.visit(p.right)
    def visit_in_list(self, p): return self.visit(p.term)
    def visit_connected(self, p): return {p.a, p.b}
    def visit_not(self, p): return self.visit(p.item)
    def visit_all(self, p): return set().union(*(self.visit(i) for i in p.items))
    def visit_any(self, p): return set().union(*(self.visit(i) for i in p.items))
    def visit_const(self, p): return set()
    def visit_tvar(self, t): return {t.var}
    def visit_tint(self, t): return set()
    def visit_tfirst(self, t): return set()
    def visit_tlast(self, t): return set()
    def visit_tlen(self, t): return set()
    def visit_tpos(self, t): return self.visit(t.term)
    def visit_tgold(self, t): return self.visit(t.term)
    def visit_tfunc(self, t): return self.visit(t.left) | self.visit(t.right)


_TEXT, _JSON, _VARS = _Text(), _Json(), _Vars()


def pred_vars(p: Pred) -> frozenset[str]:
    """The pattern variables ``p`` reads: a penalty applies under a case only when that
    case binds them all (docs/language.md §7.4), in the interpreter and the kernel alike."""
    return frozenset(_VARS.visit(p))


def pred_text(p: Pred) -> str:
    """A readable rendering in spec syntax."""
    return _TEXT.visit(p)


def term_text(t: Term) -> str:
    """A token term in spec syntax."""
    return _TEXT.visit(t)


def pred_json(p: Pred):
    """A JSON-ready tree: ``[op, args...]``."""
    return _JSON.visit(p)
