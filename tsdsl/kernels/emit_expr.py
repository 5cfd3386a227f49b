"""Predicates and token terms as C expressions of the generated kernel.

One walker over the IR's expression kinds (:class:`tsdsl.ir.ExprWalker`): a kind added to
the IR without a ``visit_`` method here refuses to load.  Numbers of an action family's
template (:class:`tsdsl.ir.Affine`) print as C expressions over the unit's ``i0``, ``i1``.
"""

from __future__ import annotations

from .. import ir
from ..errors import KernelBuildError
from .emit_view import StructView


def comment(text: str) -> str:
    """Spec text made inert for a ``#`` comment: one line of printable ASCII.

    Non-ASCII and control characters become ``\\xNN``/``\\uNNNN`` escapes (so no
    newline, carriage return or Unicode line separator can end the comment), and
    ``*/`` and ``??`` are broken up because Cython copies source lines into C comments.
    """
    out = ascii(text)[1:-1] if text else ""
    return out.replace("*/", "* /").replace("/*", "/ *").replace("??", "?\\?")


class CExpr(ir.ExprWalker):
    """Predicates and terms as C expressions over ``s`` (a ``St*``) and the bound names.

    ``indexes`` maps list, token-flag and global-flag names to their slots in the state;
    ``view`` (:mod:`.emit_view`) renders the reads of the configuration.
    """

    def __init__(self, list_index: dict[str, int], tflag_index: dict[str, int], gflag_index: dict[str, int],
                 names: dict[str, str], view=None):
        self.list_index, self.tflag_index, self.gflag_index = list_index, tflag_index, gflag_index
        self.names = names
        self.view = view if view is not None else StructView()

    def pred(self, p: ir.Pred) -> str:
        return self.visit(p)

    def term(self, t: ir.Term) -> str:
        return self.visit(t)

    def var(self, v: str) -> str:
        try:
            return self.names[v]
        except KeyError:
            raise KernelBuildError(f"internal: variable {v!r} is not bound in generated code") from None

    # ---- predicates ----
    def visit_const(self, p: ir.Const) -> str:
        return "1" if p.value else "0"

    def visit_has_head(self, p: ir.HasHead) -> str:
        return self.view.has_head(self.var(p.var))

    def visit_is_root(self, p: ir.IsRoot) -> str:
        return f"({self.var(p.var)} == {self.view.root()})"

    def visit_token_flag(self, p: ir.TokenFlag) -> str:
        self.view.struct_only("a token flag")
        return f"(s.tflag[{self.tflag_index[p.flag]} * s.ntok + {self.var(p.var)}] != 0)"

    def visit_global_flag(self, p: ir.GlobalFlag) -> str:
        self.view.struct_only("a global flag")
        return f"(s.gflag[{self.gflag_index[p.flag]}] != 0)"

    def visit_path(self, p: ir.Path) -> str:
        self.view.struct_only("a path")
        return f"st_path(s, {self.var(p.ancestor)}, {self.var(p.descendant)})"

    def visit_arc_exists(self, p: ir.ArcExists) -> str:
        self.view.struct_only("an arc test")
        return f"st_arc(s, {self.var(p.head)}, {self.var(p.dep)})"

    def visit_length(self, p: ir.Length) -> str:
        return f"({self.view.length(self.list_index[p.list])} {p.op} {p.value})"  # an int, or an Affine over i0, i1

    def visit_cmp(self, p: ir.Cmp) -> str:
        return f"({self.visit(p.left)} {p.op} {self.visit(p.right)})"

    def visit_in_list(self, p: ir.InList) -> str:
        self.view.struct_only("membership of a list")
        return f"st_in(s, {self.visit(p.term)}, {self.list_index[p.list]})"

    def visit_connected(self, p: ir.Connected) -> str:
        self.view.struct_only("connectedness")
        return f"st_connected(s, {self.var(p.a)}, {self.var(p.b)})"

    def visit_not(self, p: ir.Not) -> str:
        return f"(not {self.visit(p.item)})"

    def visit_all(self, p: ir.All) -> str:
        return "(" + " and ".join(self.visit(i) for i in p.items) + ")"

    def visit_any(self, p: ir.Any_) -> str:
        return "(" + " or ".join(self.visit(i) for i in p.items) + ")"

    # ---- terms ----
    def visit_tvar(self, t: ir.TVar) -> str:
        return self.var(t.var)

    def visit_tint(self, t: ir.TInt) -> str:
        return f"({int(t.value)})"

    def visit_tfirst(self, t: ir.TFirst) -> str:
        self.view.struct_only("first(L)")
        return f"st_first(s, {self.list_index[t.list]})"

    def visit_tlast(self, t: ir.TLast) -> str:
        self.view.struct_only("last(L)")
        return f"st_last(s, {self.list_index[t.list]})"

    def visit_tlen(self, t: ir.TLen) -> str:
        return self.view.length(self.list_index[t.list])

    def visit_tpos(self, t: ir.TPos) -> str:
        self.view.struct_only("a position")
        return f"st_pos(s, {self.visit(t.term)})"

    def visit_tgold(self, t: ir.TGold) -> str:
        self.view.struct_only("gold_head(x)")
        return f"st_gold(s, {self.visit(t.term)})"

    def visit_tfunc(self, t: ir.TFunc) -> str:
        a, b = self.visit(t.left), self.visit(t.right)
        if t.op == "max":
            return f"imax({a}, {b})"
        if t.op == "min":
            return f"imin({a}, {b})"
        if t.op in ("+", "-"):
            return f"({a} {t.op} {b})"
        raise KernelBuildError(f"internal: no code for term function {t.op!r}")
