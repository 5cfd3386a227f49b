"""The oracle half of the kernel: declared losses, per-action costs, and the incremental
tier (token classes, tables and per-case deltas) where the oracle's rule is local.

When the reachability rule only looks at the two ends of an arc (which lists hold them,
whether they have heads, token flags, is_root, their order) the kernel keeps a small
"class" per token and an action's cost is computed from the tokens it touches and their
gold neighbours (O(degree)).  Otherwise the cost is the loss after applying the action to a
scratch copy minus the loss before (O(n) per action), as :class:`tsdsl.oracle.FastOracle`
defines it.
"""

from __future__ import annotations

from typing import Optional

from .. import ir
from .classes import Classes, local_features
from .emit_delta import GeneralDelta
from .emit_expr import comment


class CostEmitter(GeneralDelta):
    """Mixin of :class:`~tsdsl.kernels.codegen.KernelGen`: losses and costs."""

    def _incremental_classes(self) -> Optional[Classes]:
        """Classes for the first oracle when its rule is local and every case keeps rests in place."""
        if not self.losses or self.sys.multihead or self.sys.unbounded:
            return None
        oracle = self.losses[0][0]
        positive, hv, dv, pred = oracle.reach
        acc: dict = {}
        if not local_features(pred, hv, dv, acc):
            return None
        flags = tuple(sorted(acc.get("flags", ())))
        for a in self.actions:
            for case in a.cases:
                if not self._rests_stay(case):
                    return None
                for st in case.sets:
                    if st.var is not None and st.flag in flags and not isinstance(st.value, ir.Const):
                        return None
        cl = Classes(len(self.sys.lists), flags, bool(acc.get("root")), bool(acc.get("order")),
                     ends=tuple(sorted(acc.get("ends", ()))), adj=tuple(sorted(acc.get("adj", ()))))
        if cl.general and not self._general_ok(cl, positive, pred, hv, dv):
            return None
        return cl

    @staticmethod
    def _rests_stay(case: ir.Case) -> bool:
        lists = [m.list for m in case.match]
        for k, items in enumerate(case.result):
            for it in items:
                if isinstance(it, ir.Rest) and it.list != lists[k]:
                    return False
                if isinstance(it, ir.Block):
                    src = next(m.list for m in case.match if it in m.items)
                    if src != lists[k]:
                        return False
        for k, m in enumerate(case.match):
            for it in m.items:
                if isinstance(it, (ir.Rest, ir.Block)) and it not in case.result[k]:
                    return False
        return True

    def _u_table(self, positive: bool, pred: ir.Pred, hv: str, dv: str) -> list[int]:
        """U[(ch * NC + cd) * ND + dir]: 1 when a missing gold arc ch -> cd is lost (the words
        not adjacent, when the rule reads adjacency: see emit_delta)."""
        cl = self.classes
        return [self._lost(cl, positive, pred, hv, dv, self.list_index, ch, cd, dr, None)
                for ch in range(cl.count) for cd in range(cl.count) for dr in range(cl.n_dir)]

    def _root_table(self, bound: str) -> list[int]:
        """UR[c]: the gold root word (root none) counts as lost (see FastOracle.unreachable)."""
        cl = self.classes
        out = []
        for c in range(cl.count):
            where, hs, _, _ = cl.decode(c)
            out.append(int(hs != 0 and (self.monotonic or bound == "upper" or where == -1)))
        return out

    def _classes_and_losses(self) -> None:
        """Class tables (incremental oracles) and the loss functions; before the actions use them."""
        if self.classes is not None:
            self._class_function()
        else:
            self.emit("cdef inline int cls_of(const St* s, int t) noexcept nogil:")
            self.emit("return 0", 1)
            self.emit()
            self.emit("cdef inline int grp_of(int c) noexcept nogil:")
            self.emit("return 0", 1)
            self.emit()
            self.emit("cdef inline void st_reclass(St* s, int t) noexcept nogil:")
            self.emit("pass", 1)
            self.emit()
            self.emit("cdef inline void st_reclass_to(St* s, int t, int new) noexcept nogil:")
            self.emit("pass", 1)
            self.emit()
        for ol, (oracle, loss) in enumerate(self.losses):
            self._loss_function(ol, oracle, loss)
        self.emit("cdef int loss_of(St* s, int ol) noexcept nogil:")
        for ol in range(len(self.losses)):
            self.emit(f"if ol == {ol}:", 1)
            self.emit(f"return loss_{ol}(s)", 2)
        self.emit("return 0", 1)
        self.emit()

    def _uses_pos(self) -> bool:
        """Whether any guard, flag value or oracle rule reads ``pos(...)`` (else slots go unkept)."""
        preds: list = [self.sys.terminal.guard]
        for a in self.actions:
            for c in a.cases:
                preds.append(c.full_guard)
                preds.extend(st.value for st in c.sets)
        for o in self.sys.oracles:
            if o.reach is not None:
                preds.append(o.reach[3])
            preds.extend(p for _, p in o.penalties)
        return any("pos(" in ir.pred_text(p) for p in preds)

    def _all_incremental_losses(self) -> bool:
        return all(self._is_incremental(k) for k in range(len(self.losses)))

    def _is_incremental(self, ol: int) -> bool:
        oracle, loss = self.losses[ol]
        return self.classes is not None and oracle is self.losses[0][0] and loss.terms == ("unreachable",)

    def _cost_functions(self) -> None:
        """Per loss: every action's cost (unrolled for fixed action sets); ``all_costs_nt`` dispatches."""
        reach_oracles = [o for o in self.sys.oracles if o.reach is not None]
        args = "i0, i1"
        for ol, (oracle, loss) in enumerate(self.losses):
            o_ix = reach_oracles.index(oracle)
            inc = self._is_incremental(ol)
            for u, (action, _) in enumerate(self.units):
                penalised = any(ir.penalty_applies(name, action) for name, _ in oracle.penalties)
                self.emit(f"cdef inline int cost_{ol}_{u}(St* s, St* tmp, int base, int i0, int i1) noexcept nogil:")
                self.emit("cdef int c", 1)
                for c_ix in range(len(action.cases)):
                    self.emit(f"if valid_{u}_{c_ix}(s, {args}):", 1)
                    self._case_cost(ol, o_ix, u, c_ix, penalised, args, 2)
                    self.emit("return c", 2)
                self.emit("return ILLEGAL", 1)
                self.emit()
            self._oracle_step(ol, o_ix, oracle.penalties)
            self.emit(f"cdef inline void all_costs_{ol}(St* s, St* tmp, int* out) noexcept nogil:")
            self.emit(f"cdef int base = {'0' if inc else f'loss_{ol}(s)'}", 1)
            if self.sys.unbounded:
                self._each_instance_cost(ol, "out[a]")
            else:
                # locals first: a store through out could alias the state and force reloads
                n = len(self.units)
                self.emit("cdef int " + ", ".join(f"c{a} = cost_{ol}_{a}(s, tmp, base, 0, 0)" for a in range(n)), 1)
                for a_ix in range(n):
                    self.emit(f"out[{a_ix}] = c{a_ix}", 1)
            self.emit()
        self.emit("cdef inline int oracle_step_nt(St* s, St* tmp, int ol, int base) noexcept nogil:")
        self.emit('"""Apply the first legal action of zero cost, unlabeled (s not terminal); its index, or -1.', 1)
        self.emit("", 0)
        self.emit("``base``: loss_of(s, ol), unchanged by the step when an action is taken.", 1)
        self.emit('"""', 1)
        for ol in range(len(self.losses)):
            self.emit(f"if ol == {ol}:", 1)
            self.emit(f"return oracle_step_{ol}(s, tmp, base)", 2)
        self.emit("return -1", 1)
        self.emit()
        self.emit("cdef inline void all_costs_nt(St* s, St* tmp, int ol, int* out) noexcept nogil:")
        self.emit('"""Cost of every action under the attached gold tree (s not terminal; ILLEGAL: not legal)."""', 1)
        for ol in range(len(self.losses)):
            self.emit(f"if ol == {ol}:", 1)
            self.emit(f"all_costs_{ol}(s, tmp, out)", 2)
        self.emit("pass", 1)
        self.emit()

    def _each_instance_cost(self, ol: int, target: str) -> None:
        """Capacity inf: a loop over the configuration's action instances (``s.atab``: family,
        and its two token indices) that sets ``target`` (``out[a]``, ``c``) to instance ``a``'s
        cost under loss ``ol``; the loop's body is open for the caller to go on at depth 2."""
        self.emit("cdef int a, g, i0, i1", 1)
        self.emit("for a in range(s.nact):", 1)
        self.emit("g = s.atab[3 * a]", 2)
        self.emit("i0 = s.atab[3 * a + 1]", 2)
        self.emit("i1 = s.atab[3 * a + 2]", 2)
        for u in range(len(self.units)):
            self.emit(f"{'if' if u == 0 else 'elif'} g == {u}:", 2)
            self.emit(f"{target} = cost_{ol}_{u}(s, tmp, base, i0, i1)", 3)

    def _case_cost(self, ol: int, o_ix: int, u: int, c_ix: int, penalised: bool, args: str, indent: int,
                   zero_test: bool = False) -> None:
        """Set ``c`` to the cost of case ``c_ix`` of unit ``u`` (known to apply) under loss ``ol``
        (``zero_test``: exact when at most 0, else some positive value)."""
        if self._is_incremental(ol):
            self.emit(f"c = delta_{u}_{c_ix}(s, {args})", indent)
        else:
            self.emit("st_copy_into(tmp, s)", indent)
            self.emit(f"apply_{u}_{c_ix}(tmp, -1, {args})", indent)
            loss = f"loss_{ol}_above(tmp, base)" if zero_test else f"loss_{ol}(tmp)"
            self.emit(f"c = {loss} - base", indent)
        if penalised:
            self.emit(f"if c < 1 and pen_{o_ix}_{u}_{c_ix}(s, {args}):", indent)
            self.emit("c = 1", indent + 1)

    def _oracle_step(self, ol: int, o_ix: int, penalties: tuple) -> None:
        """``oracle_step_ol``: one step of the oracle pass, fused.

        The pass takes the first legal action of zero cost in the system's order, so the
        costs are evaluated in that order and the first zero applies at once, through the
        case found legal: no cost array, no later action's cost, no dispatch on an action
        number (for fixed action sets).  The choice is the one ``all_costs`` would give.
        """
        inc = self._is_incremental(ol)
        self.emit(f"cdef inline int oracle_step_{ol}(St* s, St* tmp, int base) noexcept nogil:")
        self.emit('"""Apply the first legal action of zero cost (label -1); its index, or -1 when none.', 1)
        self.emit("", 0)
        self.emit("``base`` is loss_ol(s), which the caller carries from step to step: the action", 1)
        self.emit("taken costs 0, so the loss after it is the loss before (ignored when incremental).", 1)
        self.emit('"""', 1)
        self.emit("cdef int c", 1)
        if self.sys.unbounded:
            self._each_instance_cost(ol, "c")
            self.emit("if c == 0:", 2)
            self.emit("apply_legal(s, a, -1)", 3)
            self.emit("return a", 3)
            self.emit("return -1", 1)
            self.emit()
            return
        for u, (action, _) in enumerate(self.units):
            for c_ix in range(len(action.cases)):
                self.emit(f"{'if' if c_ix == 0 else 'elif'} valid_{u}_{c_ix}(s, 0, 0):", 1)
                penalised = any(ir.penalty_applies(name, action) for name, _ in penalties)
                self._case_cost(ol, o_ix, u, c_ix, penalised, "0, 0", 2, zero_test=True)
                self.emit("if c == 0:", 2)
                self.emit(f"apply_{u}_{c_ix}(s, -1, 0, 0)", 3)
                self.emit(f"return {u}", 3)
        self.emit("return -1", 1)
        self.emit()

    def _class_function(self) -> None:
        cl = self.classes
        self.emit("cdef inline int cls_of(const St* s, int t) noexcept nogil:")
        self.emit('"""The token class the incremental oracle reads: list, head status, flags."""', 1)
        self.emit("cdef int h = s.head[t]", 1)
        self.emit("cdef int c = (s.where[t] + 1) * 3 + (0 if h < 0 else (1 if h == s.gold[t] else 2))", 1)
        for f in cl.flags:
            self.emit(f"c = c * 2 + (s.tflag[{self.tflag_index[f]} * s.ntok + t] != 0)", 1)
        for k in range(len(cl.ends)):
            self.emit(f"c = c * 2 + (t == {self._end_expr(k)})", 1)
        if cl.uses_root:
            self.emit("c = c * 2 + (t == s.root)", 1)
        self.emit("return c", 1)
        self.emit()
        grp, ngrp = self._dep_groups()
        if cl.general:
            self.emit(f"cdef unsigned char DGRP[{len(grp)}]")
            self._table_init("DGRP", grp)
            self.emit()
        self.emit("cdef inline int grp_of(int c) noexcept nogil:")
        self.emit('"""The group a class of dependent is counted in (see emit_delta._dep_groups)."""', 1)
        self.emit("return DGRP[c]" if cl.general else "return c", 1)
        self.emit()
        self.emit("cdef inline void st_reclass(St* s, int t) noexcept nogil:")
        self.emit('"""Refresh the class of t and its place in its gold head\'s dependent counts."""', 1)
        self.emit("cdef int old = s.cls[t], new = cls_of(s, t), g = s.gold[t]", 1)
        self.emit("if old != new:", 1)
        self.emit("s.cls[t] = new", 2)
        self.emit("if g >= 0:", 2)
        dr = " + (g < t) * NGRP" if cl.n_dir == 2 else ""
        self.emit(f"s.cnt[g * NCNT{dr} + grp_of(old)] -= 1", 3)
        self.emit(f"s.cnt[g * NCNT{dr} + grp_of(new)] += 1", 3)
        self.emit()
        self.emit("cdef inline void st_reclass_to(St* s, int t, int new) noexcept nogil:")
        self.emit('"""t\'s new class is known (the sentinel count row absorbs tokens without gold head)."""', 1)
        self.emit("cdef int old = s.cls[t], g = s.gpar[t]", 1)
        self.emit("s.cls[t] = new", 1)
        self.emit(f"s.cnt[g * NCNT{dr} + grp_of(old)] -= 1", 1)
        self.emit(f"s.cnt[g * NCNT{dr} + grp_of(new)] += 1", 1)
        self.emit()
        oracle, loss = self.losses[0]
        positive, hv, dv, pred = oracle.reach
        utab = self._u_table(positive, pred, hv, dv)
        # the sentinel head class NCLS: the gold root word's own term, for either order
        rtab = self._root_table(loss.bound)
        utab += [v for v in rtab for _ in range(cl.n_dir)]
        self._utab = utab
        self.emit(f"cdef signed char UTAB[{len(utab)}]")
        self._table_init("UTAB", utab)
        self.emit()
        if cl.general:
            self._general_tables()

    def _table_init(self, name: str, values: list[int]) -> None:
        self.emit(f"{name}[:] = [")
        for start in range(0, len(values), 32):
            self.emit(", ".join(map(str, values[start:start + 32])) + ",", 1)
        self.emit("]")

    def _loss_function(self, ol: int, oracle: ir.Oracle, loss: ir.LossExpr) -> None:
        self._loss_body(ol, oracle, loss, False)
        if not self._is_incremental(ol):
            self._loss_body(ol, oracle, loss, True)

    def _loss_body(self, ol: int, oracle: ir.Oracle, loss: ir.LossExpr, above: bool) -> None:
        """``loss_ol(s)``, or with ``above`` ``loss_ol_above(s, cap)``: the loss when it is at
        most ``cap``, else some value above ``cap``, returned as soon as the count of lost arcs
        passes it (every term of a loss is a count, so the rest can only add).  The fused
        oracle step only asks whether an action's cost is 0, so a scratch copy that has lost
        more arcs than the state had stops scanning there, before any cycle count."""
        positive, hv, dv, pred = oracle.reach
        names = {hv: "h", dv: "d"}
        expr = self.expr(names)
        need_cycles = any(t != "unreachable" for t in loss.terms)
        if above:
            self.emit(f"cdef int loss_{ol}_above(St* s, int cap) noexcept nogil:")
        else:
            self.emit(f"cdef int loss_{ol}(St* s) noexcept nogil:")
        self.emit(f"# oracle {comment(oracle.name)}, loss {comment(loss.name)} "
                  f"({'+'.join(loss.terms)}, bound {loss.bound})", 1)
        self.origin_comment(oracle.origin, 1)
        self.emit("cdef int d, h, g, lost = 0, ok, cyc = 0, prob = 0, foreign = 0", 1)
        self.emit("cdef unsigned char* mark = <unsigned char*>s.scratch", 1)
        if need_cycles:
            self.emit("memset(mark, 0, s.ntok)", 1)
        self.emit("for d in range(1, s.n + 1):", 1)
        self.emit("g = s.gold[d]", 2)
        if need_cycles:
            # built arcs that are not gold: without any, A + I is part of the gold tree
            self.emit("foreign += s.head[d] >= 0 and s.head[d] != g", 2)
        self.emit("if g < 0:", 2)
        gone = "s.where[d] < 0"
        cond = "1" if (self.monotonic or loss.bound == "upper") else gone
        self.emit(f"if st_has_head(s, d) and ({cond}):", 3)
        self.emit("lost += 1", 4)
        if above:
            self.emit("if lost > cap:", 4)
            self.emit("return lost", 5)
        self.emit("continue", 3)
        self.emit("if st_arc(s, g, d):", 2)
        self.emit("continue", 3)
        self.emit("h = g", 2)
        self.emit(f"ok = {expr.pred(pred)}", 2)
        self.emit(f"if {'not ok' if positive else 'ok'}:", 2)
        self.emit("lost += 1", 3)
        if above:
            self.emit("if lost > cap:", 3)
            self.emit("return lost", 4)
        if need_cycles:
            self.emit("mark[d] = 1", 3)
        if need_cycles:
            # a cycle of A + I needs a built arc outside the gold tree (when that is acyclic)
            self.emit("if foreign or not s.gold_acyclic or (s.root >= 0 and s.head[s.root] >= 0):", 1)
            self.emit("st_cycles(s, mark, &cyc, &prob)", 2)
        total = []
        for t in loss.terms:
            total.append({"unreachable": "lost", "cycles": "cyc", "problematic_cycles": "prob"}[t])
        self.emit(f"return {' + '.join(total)}", 1)
        self.emit()

    def _case_delta(self, u: str, c_ix: int, case: ir.Case) -> None:
        """The change of the unreachable count when the case applies, from the touched tokens only.

        For a touched token t the arc from its gold head is read from the class
        table; its gold dependents are counted per class (``cnt``), and the sum over
        them is unrolled per possible class of t before and after.
        """
        cl = self.classes
        if cl.general:
            self._general_delta(u, c_ix, case)
            return
        names = self._case_names(case)
        touched = self._touched(case, names)
        self.emit(f"cdef inline int delta_{u}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self._declare(names, 1, "delta = 0, g, pb, pa, base")
        if touched:
            self.emit("cdef int " + ", ".join(f"cb{j}, ca{j}, hs{j}" for j in range(len(touched))), 1)
        self._bind(case.match, names, 1, check_lengths=False)
        self._delta_body(case, names)
        self.emit("return delta", 1)
        self.emit()

    def _delta_body(self, case: ir.Case, names: dict[str, str]) -> None:
        """Statements at indent 1 adding the case's cost to ``delta`` (its tokens bound)."""
        cl = self.classes
        v = self.view
        touched = self._touched(case, names)
        for j, t in enumerate(touched):
            self.emit(f"cb{j} = {v.cls(t)}", 1)
            shift = self._class_shift(case, names, t)
            if shift is not None:  # only the list changes: a constant step between classes
                self.emit(f"ca{j} = cb{j} + ({shift})", 1)
                continue
            self.emit(f"hs{j} = {self._hs_after(case, names, t)}", 1)
            self.emit(f"ca{j} = {self._class_after(case, names, t, f'hs{j}')}", 1)
        for j, t in enumerate(touched):
            # the arc from the gold head; "no gold head" is the sentinel class NCLS, whose
            # row holds the gold root word's own term (the root token's is always 0)
            self.emit(f"g = {v.gpar(t)}", 1)
            self.emit(f"pb = {v.cls('g')}", 1)
            others = [(jj, vv) for jj, vv in enumerate(touched) if jj != j]
            dr = f" + (g < {t})" if cl.n_dir == 2 else ""
            shift = self._class_shift(case, names, t)
            arc_dep = self._hs_options(case, names, t) == [1, 2] and not any(
                st.var == next(k for k, n in names.items() if n == t) and st.flag in cl.flags for st in case.sets)
            if not others and shift is not None and cl.n_dir == 1:
                # one lookup: the difference is tabulated per (gold head class, class before)
                table = self._shift_table(shift)
                self.emit(f"delta += {table}[pb * NCLS + cb{j}]", 1)
            elif not others and arc_dep and cl.n_dir == 1:
                # the token gets a head: tabulated per (gold head class, class before, gold head or not)
                table = self._arc_table(self._where_after(case, names, t))
                self.emit(f"delta += {table}[(pb * NCLS + cb{j}) * 2 + hs{j} - 1]", 1)
            else:
                self.emit("pa = pb", 1)
                for jj, vv in others:
                    self.emit(f"if g == {vv}:", 1)
                    self.emit(f"pa = ca{jj}", 2)
                self.emit(f"delta += UTAB[(pa * NCLS + ca{j}) * NDIR{dr}] - UTAB[(pb * NCLS + cb{j}) * NDIR{dr}]", 1)
            # gold dependents, by class: unrolled over the classes t can have here
            self.emit(v.counts_of(t), 1)
            self._children_switch(case, names, t, j)
            # a dependent that is touched too was counted with its old class: its own term rules
            for jj, vv in enumerate(touched):
                if jj == j:
                    continue
                dr = f" + ({t} < {vv})" if cl.n_dir == 2 else ""
                self.emit(f"if {v.gold(vv)} == {t}:", 1)
                self.emit(f"delta -= UTAB[(ca{j} * NCLS + cb{jj}) * NDIR{dr}] - "
                          f"UTAB[(cb{j} * NCLS + cb{jj}) * NDIR{dr}]", 2)

    def _case_penalty(self, o_ix: int, u: str, c_ix: int, case: ir.Case, preds: list[ir.Pred]) -> None:
        names = self._case_names(case)
        self.emit(f"cdef inline bint pen_{o_ix}_{u}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self.emit('"""A penalty rule marks the action as not optimal."""', 1)
        # a rule that reads a variable this case does not bind does not apply under it, as in
        # the interpreter (tsdsl/oracle.py, FastOracle.penalty)
        preds = [p for p in preds if ir.pred_vars(p) <= names.keys()]
        if not preds:
            self.emit("return 0", 1)
            self.emit()
            return
        self._declare(names, 1)
        self._bind(case.match, names, 1, check_lengths=False)
        expr = self.expr(names)
        self.emit(f"return {' or '.join('(' + expr.pred(p) + ')' for p in preds)}", 1)
        self.emit()

    def _possible_classes(self, case: ir.Case, names: dict[str, str], v: str) -> list[int]:
        """Classes bound token ``v`` can have before the case (it sits in its matched list)."""
        cl = self.classes
        var = next(k for k, n in names.items() if n == v)
        where = next(k for k, m in enumerate(case.match) for it in m.items if isinstance(it, ir.Tok) and it.var == var)
        return [c for c in range(cl.count) if cl.decode(c)[0] == where]

    def _children_switch(self, case: ir.Case, names: dict[str, str], v: str, j: int) -> None:
        cl = self.classes
        oracle = self.losses[0][0]
        positive, hv, dv, pred = oracle.reach
        utab = self._utab  # made by _class_function, before any action

        def u(ch, cd, dr):
            return utab[(ch * cl.count + cd) * cl.n_dir + dr]

        hs_options = self._hs_options(case, names, v)
        possible = self._possible_classes(case, names, v)
        groups: dict[tuple, list[int]] = {}
        for cb in possible:
            where_b, hs_b, _, _ = cl.decode(cb)
            arms = []
            for hs_a in (hs_options if hs_options is not None else [hs_b]):
                ca = self._class_after_static(case, names, v, cb, hs_a)
                terms = []
                for dr in range(cl.n_dir):
                    for k in range(cl.count):
                        if cl.decode(k)[3]:  # the root is never a dependent
                            continue
                        coef = u(ca, k, dr) - u(cb, k, dr)
                        if coef:
                            cnt = self.view.count(dr * cl.count + k)
                            terms.append(cnt if coef == 1 else f"{coef} * {cnt}")
                arms.append((hs_a, tuple(terms)))
            if len({t for _, t in arms}) == 1:  # the head status after does not matter
                arms = [(None, arms[0][1])]
            if any(t for _, t in arms):
                groups.setdefault(tuple(arms), []).append(cb)

        def value(arms) -> str:
            # branch-free where the head status after the action decides: a conditional expression
            if len(arms) == 1:
                return " + ".join(arms[0][1]) or "0"
            expr = " + ".join(arms[-1][1]) or "0"
            for hs_a, terms in reversed(arms[:-1]):
                expr = f"(({' + '.join(terms) or '0'}) if hs{j} == {hs_a} else ({expr}))"
            return expr

        if len(groups) == 1 and sorted(next(iter(groups.values()))) == sorted(possible):
            # the same terms whatever class t has here: no test at all
            self.emit(f"delta += {value(next(iter(groups)))}", 1)
            return
        for k, (arms, cbs) in enumerate(groups.items()):
            test = " or ".join(f"cb{j} == {cb}" for cb in cbs)
            self.emit(f"{'if' if k == 0 else 'elif'} {test}:", 1)
            self.emit(f"delta += {value(arms)}", 2)

    def _shift_table(self, shift: int) -> str:
        """The name of a table D[pb * NCLS + cb] = U(pb, cb + shift) - U(pb, cb), emitted once."""
        cl = self.classes
        made = self.__dict__.setdefault("_shift_tables", {})
        if shift not in made:
            name = f"DSHIFT{len(made)}"
            made[shift] = name
            values = []
            for pb in range(cl.count + 1):
                for cb in range(cl.count):
                    ca = cb + shift
                    ok = 0 <= ca < cl.count
                    values.append(self._utab[pb * cl.count + ca] - self._utab[pb * cl.count + cb] if ok else 0)
            self._pending_tables.append((name, values))
        return made[shift]

    def _where_after(self, case: ir.Case, names: dict[str, str], v: str) -> int:
        var = next(k for k, n in names.items() if n == v)
        return next((k for k, items in enumerate(case.result) for it in items
                     if isinstance(it, ir.Tok) and it.var == var), -1)

    def _arc_table(self, where_after: int) -> str:
        """D[(pb * NCLS + cb) * 2 + hs - 1]: U(pb, cb') - U(pb, cb) when the token moves to list
        ``where_after`` and gets a head (hs 1: its gold head, 2: another); flags kept."""
        cl = self.classes
        made = self.__dict__.setdefault("_arc_tables", {})
        if where_after not in made:
            name = f"DARC{len(made)}"
            made[where_after] = name
            bits = cl.n_flag_bits
            values = []
            for pb in range(cl.count + 1):
                for cb in range(cl.count):
                    for hs in (1, 2):
                        ca = (((where_after + 1) * 3 + hs) << bits) | (cb & ((1 << bits) - 1))
                        values.append(self._utab[pb * cl.count + ca] - self._utab[pb * cl.count + cb])
            self._pending_tables.append((name, values))
        return made[where_after]

    def _class_shift(self, case: ir.Case, names: dict[str, str], v: str) -> Optional[int]:
        """When only ``v``'s list changes, the constant difference of its class numbers."""
        cl = self.classes
        var = next(k for k, n in names.items() if n == v)
        if self._hs_options(case, names, v) is not None:
            return None
        if any(st.var == var and st.flag in cl.flags for st in case.sets):
            return None
        before = next(k for k, m in enumerate(case.match) for it in m.items if isinstance(it, ir.Tok) and it.var == var)
        after = next((k for k, items in enumerate(case.result) for it in items
                      if isinstance(it, ir.Tok) and it.var == var), -1)
        return (after - before) * 3 * (1 << cl.n_flag_bits)

    def _hs_options(self, case: ir.Case, names: dict[str, str], v: str) -> Optional[list[int]]:
        """Head statuses ``v`` may have after the case (None: unchanged)."""
        var = next(k for k, n in names.items() if n == v)
        if any(op.dep == var for op in case.arcs):
            return [1, 2]
        if any(op.break_cycle and op.head == var for op in case.arcs):
            return [0, 1, 2]
        return None

    def _hs_after(self, case: ir.Case, names: dict[str, str], v: str) -> str:
        var = next(k for k, n in names.items() if n == v)
        head = self.view.head(v)
        for op in case.arcs:
            if op.break_cycle and op.head == var:
                self.view.struct_only("an arc that breaks a cycle")
                head = f"(-1 if st_path(s, {names[op.dep]}, {v}) else {head})"
        for op in case.arcs:
            if op.dep == var:
                head = names[op.head]
        return f"(0 if {head} < 0 else (1 if {head} == {self.view.gold(v)} else 2))"

    def _class_after_static(self, case: ir.Case, names: dict[str, str], v: str, cb: int, hs_a: int) -> int:
        cl = self.classes
        var = next(k for k, n in names.items() if n == v)
        _, _, flags, is_root = cl.decode(cb)
        where = next((k for k, items in enumerate(case.result) for it in items
                      if isinstance(it, ir.Tok) and it.var == var), -1)
        flags = list(flags)
        for st in case.sets:
            if st.var == var and st.flag in cl.flags:
                flags[cl.flags.index(st.flag)] = bool(st.value.value)
        c = (where + 1) * 3 + hs_a
        for f in flags:
            c = c * 2 + int(f)
        if cl.uses_root:
            c = c * 2 + int(is_root)
        return c

    def _class_after(self, case: ir.Case, names: dict[str, str], v: str, hs: str) -> str:
        """A C expression for the class of bound token ``v`` after the case applies (its end
        bits, if the classes have any, compare it with the ends after, ``ea0``...)."""
        cl = self.classes
        var = next(k for k, n in names.items() if n == v)
        where = next((k for k, items in enumerate(case.result) for it in items
                      if isinstance(it, ir.Tok) and it.var == var), -1)
        expr = f"({where + 1} * 3 + {hs})"
        for f in cl.flags:
            self.view.struct_only("a token flag")
            value = f"(s.tflag[{self.tflag_index[f]} * s.ntok + {v}] != 0)"
            for st in case.sets:
                if st.var == var and st.flag == f:
                    value = "1" if st.value.value else "0"
            expr = f"({expr} * 2 + {value})"
        for k in range(len(cl.ends)):
            expr = f"({expr} * 2 + ({v} == ea{k}))"
        if cl.uses_root:
            expr = f"({expr} * 2 + ({v} == {self.view.root()}))"
        return expr
