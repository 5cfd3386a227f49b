"""Guards and token terms: spec expressions to IR predicates and terms, with the
implicit preconditions of an arc."""

from __future__ import annotations

from .. import ir
from ..errors import Span
from . import codes
from . import syntax as S
from .context import Context
from .hints import close_names


def lower_guard(ctx: Context, g: S.Guard, bound: set[str], root: str, oracle: bool = False) -> ir.Pred:
    """A guard as an IR predicate; ``bound`` are the token variables the pattern binds, and
    ``oracle`` allows ``gold_head`` (oracle rules only)."""
    def var(name: str, span: Span) -> str:
        if name not in bound:
            ctx.err(codes.UNBOUND, f"token variable {name!r} is not bound by the pattern", span)
        return name

    if isinstance(g, S.GAnd):
        return ir.conj(*[lower_guard(ctx, i, bound, root, oracle) for i in g.items])
    if isinstance(g, S.GOr):
        return ir.Any_(tuple(lower_guard(ctx, i, bound, root, oracle) for i in g.items))
    if isinstance(g, S.GNot):
        return ir.Not(lower_guard(ctx, g.item, bound, root, oracle))
    if isinstance(g, S.GConst):
        return ir.Const(g.value)
    if isinstance(g, S.GPath):
        return ir.Path(var(g.ancestor, g.ancestor_span), var(g.descendant, g.descendant_span))
    if isinstance(g, S.GArc):
        return ir.ArcExists(var(g.head, g.head_span), var(g.dep, g.dep_span))
    if isinstance(g, S.GTokenFlag):
        if g.flag not in ctx.token_flags:
            ctx.unknown_flag(g.flag, g.span, indexed=True)
        return ir.TokenFlag(g.flag, var(g.var, g.var_span))
    if isinstance(g, S.GGlobalFlag):
        if g.flag not in ctx.global_flags:
            ctx.unknown_flag(g.flag, g.span, indexed=False)
        return ir.GlobalFlag(g.flag)
    if isinstance(g, S.GMember):
        term = lower_term(ctx, g.term, bound, oracle)
        known = ctx.known_lists()
        if g.list not in known:
            ctx.err(codes.LIST_SHAPE, f"unknown list {g.list!r}; the lists are {', '.join(known)}",
                    g.list_span or g.span)
        return ir.InList(term, g.list)
    if isinstance(g, S.GCompare) and not (isinstance(g.call, S.GCall) and g.call.name == "len"
                                          and not _mentions_vars(g.value, bound)):
        return ir.Cmp(g.op, lower_term(ctx, g.call, bound, oracle), lower_term(ctx, g.value, bound, oracle))
    if isinstance(g, S.GCompare):
        call = g.call
        if len(call.args) != 1:
            ctx.err(codes.FUNCTION, "len takes one list", g.span)
            return ir.TRUE
        lst = ctx.list_arg(call)
        value = ctx.eval_int(g.value)
        if value is None:
            ctx.err(codes.BAD_VALUE, "a length is compared with a finite number", g.span)
            return ir.TRUE
        return ir.Length(lst, g.op, value)
    if isinstance(g, S.GCall):
        arity = {"has_head": 1, "is_root": 1, "empty": 1, "path": 2, "arc": 2, "connected": 2}
        if g.name not in arity:
            hint = " (compare it: len(σ) == 1)" if g.name == "len" else _close(g.name, arity)
            ctx.err(codes.FUNCTION, f"unknown guard function {g.name!r}{hint}; known: has_head(x), is_root(x), "
                    "empty(LIST), len(LIST) OP N, path(x, y), arc(x, y), connected(x, y), "
                    "x in LIST, comparisons of first/last/len/pos/max/min/gold_head", g.span)
            return ir.TRUE
        if len(g.args) != arity[g.name]:
            ctx.err(codes.FUNCTION, f"{g.name} takes {arity[g.name]} argument(s), not {len(g.args)}", g.span)
            return ir.TRUE
        if g.name == "empty":
            return ir.Length(ctx.list_arg(g), "==", 0)
        vs = [var(a, s) for a, s in g.args]
        if g.name == "has_head":
            return ir.HasHead(vs[0])
        if g.name == "is_root":
            return ir.IsRoot(vs[0])
        if g.name == "path":
            return ir.Path(vs[0], vs[1])
        if g.name == "connected":
            return ir.Connected(vs[0], vs[1])
        return ir.ArcExists(vs[0], vs[1])
    raise TypeError(g)


def _close(name: str, known) -> str:
    """`` (did you mean `has_head`?)`` when ``name`` is a near miss of a known function."""
    return close_names(name, known)


_TERM_FUNCS = {"first": 1, "front": 1, "last": 1, "top": 1, "len": 1, "pos": 1, "gold_head": 1, "max": 2,
               "min": 2}

def lower_term(ctx: Context, e, bound: set[str], oracle: bool) -> ir.Term:
    """A token term: a bound variable, a number, or a term function (first, last, len, pos,
    max, min, and gold_head in oracle rules)."""
    if isinstance(e, S.ParamRef):
        if e.name in bound:
            return ir.TVar(e.name)
        if e.name in ctx.env:
            v = ctx.env[e.name]
            return ir.TInt(v if v is not None else 10**9)
        ctx.err(codes.UNBOUND, f"{e.name!r} is neither a bound token variable nor a parameter", e.span)
        return ir.TInt(0)
    if isinstance(e, S.IntLit):
        return ir.TInt(e.value)
    if isinstance(e, S.BinOp):
        if e.op not in ("+", "-"):
            ctx.err(codes.FUNCTION, f"only + and - combine token terms, not {e.op!r}", e.span)
            return ir.TInt(0)
        return ir.TFunc(e.op, lower_term(ctx, e.left, bound, oracle), lower_term(ctx, e.right, bound, oracle))
    if isinstance(e, S.GCall):
        arity = _TERM_FUNCS.get(e.name)
        if arity is None:
            ctx.err(codes.FUNCTION, f"unknown term function {e.name!r}{_close(e.name, _TERM_FUNCS)}; known: "
                    f"{', '.join(sorted(_TERM_FUNCS))}", e.span)
            return ir.TInt(0)
        if len(e.args) != arity:
            ctx.err(codes.FUNCTION, f"{e.name} takes {arity} argument(s), not {len(e.args)}", e.span)
            return ir.TInt(0)
        if e.name in ("first", "front", "last", "top", "len"):
            lst = ctx.list_arg(e)
            return {"first": ir.TFirst, "front": ir.TFirst, "last": ir.TLast, "top": ir.TLast,
                    "len": ir.TLen}[e.name](lst)
        args = [lower_term(ctx, S.ParamRef(a, s), bound, oracle) for a, s in e.args]
        if e.name == "gold_head":
            if not oracle:
                ctx.err(codes.GOLD_HEAD_OUTSIDE, "gold_head is only known to oracle rules", e.span)
            return ir.TGold(args[0])
        if e.name == "pos":
            return ir.TPos(args[0])
        return ir.TFunc(e.name, args[0], args[1])
    ctx.err(codes.FUNCTION, "expected a token term", getattr(e, "span", ctx.m.header_span))
    return ir.TInt(0)


def arc_implicit(op: ir.ArcOp, multihead: bool, root: str) -> ir.Pred:
    """The standard preconditions of an arc: the root is never a dependent; single head
    (unless overwriting or multihead); in DAG systems no duplicate arc and no cycle."""
    parts: list[ir.Pred] = []
    if root != "none":
        parts.append(ir.Not(ir.IsRoot(op.dep)))
    if multihead:
        parts += [ir.Not(ir.ArcExists(op.head, op.dep)), ir.Not(ir.Path(op.dep, op.head))]
    elif not op.overwrite:
        parts.append(ir.Not(ir.HasHead(op.dep)))
    return ir.conj(*parts)


def _mentions_vars(e, bound: set[str]) -> bool:
    """Whether an expression refers to token variables or term functions (not just numbers)."""
    if isinstance(e, S.ParamRef):
        return e.name in bound
    if isinstance(e, S.GCall):
        return True
    if isinstance(e, S.BinOp):
        return _mentions_vars(e.left, bound) or _mentions_vars(e.right, bound)
    return False
