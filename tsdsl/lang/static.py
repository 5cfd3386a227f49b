"""Static "can never apply" detection: a case whose guard and list shapes contradict
each other is reported (TS208) instead of silently never firing."""

from __future__ import annotations

from typing import Optional

from .. import ir


def never_applies(case: ir.Case, root: str) -> Optional[str]:
    """A reason why ``case`` can never fire, found from its guard and shape alone."""
    lits = _literals(case.full_guard)
    for atom, positive in lits:
        if (atom, not positive) in lits:
            return f"it requires both {ir.pred_text(atom)} and not {ir.pred_text(atom)}"
        if positive and atom == ir.Const(False):
            return "its guard is false"
        if positive and isinstance(atom, ir.IsRoot) and root == "none":
            return f"it requires is_root({atom.var}) but the system has no root"
    for m in case.match:
        lo, hi = m.min_len, (None if m.has_rest else m.min_len)
        for atom, positive in lits:
            if not isinstance(atom, ir.Length) or atom.list != m.list:
                continue
            lo, hi = _narrow(lo, hi, atom.op, atom.value, positive)
        if hi is not None and lo > hi:
            return f"list {m.list} cannot have the length the pattern and guard require"
    return None


class _Literals(ir.PredWalker):
    """The literals a predicate conjoins, as (atom, polarity) pairs; a disjunction or a
    negated compound contributes none (it constrains nothing on its own)."""

    def visit_all(self, p: ir.All) -> set:
        return set().union(*(self.visit(i) for i in p.items))

    def visit_not(self, p: ir.Not) -> set:
        return set() if isinstance(p.item, (ir.All, ir.Any_, ir.Not)) else {(p.item, False)}

    def visit_any(self, p: ir.Any_) -> set:
        return set()

    def visit_const(self, p: ir.Const) -> set:
        return {(ir.Const(False), True)} if not p.value else set()

    def _atom(self, p: ir.Pred) -> set:
        return {(p, True)}

    visit_has_head = visit_is_root = visit_token_flag = visit_global_flag = visit_path = _atom
    visit_arc_exists = visit_length = visit_cmp = visit_in_list = visit_connected = _atom


def _literals(p: ir.Pred) -> set[tuple[ir.Pred, bool]]:
    return _Literals().visit(p)


def _narrow(lo: int, hi: Optional[int], op: str, v: int, positive: bool):
    if not positive:
        op = {"==": "!=", "!=": "==", ">=": "<", "<=": ">", ">": "<=", "<": ">="}[op]
    if op == "==":
        return max(lo, v), v if hi is None else min(hi, v)
    if op == ">=":
        return max(lo, v), hi
    if op == ">":
        return max(lo, v + 1), hi
    if op == "<=":
        return lo, v if hi is None else min(hi, v)
    if op == "<":
        return lo, v - 1 if hi is None else min(hi, v - 1)
    return lo, hi
