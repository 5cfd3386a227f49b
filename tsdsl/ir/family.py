"""Instantiating action families for a sentence length (see :class:`~tsdsl.ir.nodes.Family`)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Optional

from .nodes import (Action, All, Any_, ArcExists, Block, Case, Cmp, Connected, Family, HasHead, InList, IsRoot, Item,
                    Length, ListMatch, Not, Path, SetFlag, TFunc, TGold, Tok, TokenFlag, TPos, TVar, num_at)
from .walk import ExprWalker

# ---- instantiating families --------------------------------------------------------


@functools.lru_cache(maxsize=64)
def instantiate(families: tuple[Family, ...], n: int) -> tuple[Action, ...]:
    """The concrete actions of ``families`` for ``n`` tokens, family by family."""
    out: list[Action] = []
    for fam in families:
        tuples = fam.index_tuples(n)
        indexed = fam.naming == "indexed" or (fam.naming == "if-many" and len(tuples) > 1)
        for values in tuples:
            env = dict(zip(fam.indexes, values), n=n)
            names = {var: f"{prefix}{expr.at(env)}" for var, prefix, expr in fam.renames}
            t = fam.template
            name = f"{t.name}({','.join(map(str, values))})" if indexed else t.name
            sub = _Substitute(env, names)
            cases = tuple(sub.case(c) for c in t.cases)
            out.append(Action(name, t.cls or name, cases, t.origin, t.doc, family=t.name, indexes=values))
    return tuple(out)


class _Substitute(ExprWalker):
    """A template's predicates, items and effects for concrete indexes: numbers evaluated,
    variables renamed, zero-length blocks dropped."""

    def __init__(self, env: dict[str, int], names: dict[str, str]):
        self.env, self.names = env, names

    def v(self, var: Optional[str]) -> Optional[str]:
        return self.names.get(var, var) if var is not None else None

    def items(self, items: tuple[Item, ...]) -> tuple[Item, ...]:
        out: list[Item] = []
        for it in items:
            if isinstance(it, Block):
                length = num_at(it.length, self.env)
                if length:
                    out.append(Block(self.v(it.var), length))
            elif isinstance(it, Tok):
                out.append(Tok(self.v(it.var)))
            else:
                out.append(it)
        return tuple(out)

    def case(self, c: Case) -> Case:
        return Case(
            match=tuple(ListMatch(m.list, self.items(m.items)) for m in c.match),
            guard=self.visit(c.guard), implicit=self.visit(c.implicit),
            arcs=tuple(dataclasses.replace(op, head=self.v(op.head), dep=self.v(op.dep)) for op in c.arcs),
            result=tuple(self.items(r) for r in c.result),
            sets=tuple(SetFlag(s.flag, self.v(s.var), self.visit(s.value)) for s in c.sets),
            origin=c.origin)

    def visit_has_head(self, p): return HasHead(self.v(p.var))
    def visit_is_root(self, p): return IsRoot(self.v(p.var))
    def visit_token_flag(self, p): return TokenFlag(p.flag, self.v(p.var))
    def visit_global_flag(self, p): return p
    def visit_path(self, p): return Path(self.v(p.ancestor), self.v(p.descendant))
    def visit_arc_exists(self, p): return ArcExists(self.v(p.head), self.v(p.dep))
    def visit_length(self, p): return Length(p.list, p.op, num_at(p.value, self.env))
    def visit_cmp(self, p): return Cmp(p.op, self.visit(p.left), self.visit(p.right))
    def visit_in_list(self, p): return InList(self.visit(p.term), p.list)
    def visit_connected(self, p): return Connected(self.v(p.a), self.v(p.b))
    def visit_not(self, p): return Not(self.visit(p.item))
    def visit_all(self, p): return All(tuple(self.visit(i) for i in p.items))
    def visit_any(self, p): return Any_(tuple(self.visit(i) for i in p.items))
    def visit_const(self, p): return p
    def visit_tvar(self, t): return TVar(self.v(t.var))
    def visit_tint(self, t): return t
    def visit_tfirst(self, t): return t
    def visit_tlast(self, t): return t
    def visit_tlen(self, t): return t
    def visit_tpos(self, t): return TPos(self.visit(t.term))
    def visit_tgold(self, t): return TGold(self.visit(t.term))
    def visit_tfunc(self, t): return TFunc(t.op, self.visit(t.left), self.visit(t.right))
