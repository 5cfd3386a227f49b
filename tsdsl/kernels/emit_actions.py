"""The action half of the kernel: one unit per action (or per capacity-inf family), each
case's ``valid``/``apply``/``arcof`` functions, and the functions dispatching on an action."""

from __future__ import annotations

from typing import Optional

from .. import ir
from ..errors import KernelBuildError
from .emit_expr import comment


class ActionEmitter:
    """Mixin of :class:`~tsdsl.kernels.codegen.KernelGen`: actions and their dispatch."""

    def _units(self) -> list[tuple[ir.Action, Optional[ir.Family]]]:
        """The generated action functions: one unit per action, or for capacity-inf systems one
        unit per action family, generated from its template: every number in it is an
        :class:`~tsdsl.ir.Affine` of the indexes, printed as a C expression over the unit's
        ``i0``, ``i1`` (a zero-length block is an empty range)."""
        if not self.sys.unbounded:
            return [(a, None) for a in self.actions]
        for fam in self.sys.families:
            if len(fam.indexes) > 2:
                raise KernelBuildError(f"{fam.template.name}: families with more than two indexes are not supported")
        if any(o.penalties for o in self.sys.oracles):
            raise KernelBuildError(f"{self.sys.name}: penalties name single instances of a family; the kernel of a "
                                   "capacity-inf system cannot compile them")
        return [(fam.template, fam) for fam in self.sys.families]

    def _unit_functions(self, u: str, action: ir.Action) -> None:
        """Per case: valid, apply, and where needed delta (incremental cost), penalties, arc_of."""
        reach_oracles = [o for o in self.sys.oracles if o.reach is not None]
        for c_ix, case in enumerate(action.cases):
            self._case_valid(u, c_ix, case)
            self._case_apply(u, c_ix, case)
            if self.classes is not None:
                self._case_delta(u, c_ix, case)
            for o_ix, oracle in enumerate(reach_oracles):
                preds = [p for name, p in oracle.penalties if ir.penalty_applies(name, action)]
                if preds:
                    self._case_penalty(o_ix, u, c_ix, case, preds)
            op = next((o for o in case.arcs if o.labeled), None)
            if op is not None:
                names = self._case_names(case)
                self.emit(f"cdef inline void arcof_{u}_{c_ix}(St* s, int* h, int* d, int i0, int i1) noexcept nogil:")
                self._declare(names, 1)
                self._bind(case.match, names, 1, check_lengths=False)
                self.emit(f"h[0] = {names[op.head]}", 1)
                self.emit(f"d[0] = {names[op.dep]}", 1)
                self.emit()

    def _emit_units(self) -> None:
        for u, (action, fam) in enumerate(self.units):
            if fam is None:
                self.emit(f"# ---- action {u}: {comment(action.name)} ----")
            else:
                indexes = f"indexes {', '.join(fam.indexes)}" if fam.indexes else "no indexes"
                self.emit(f"# ---- family {u}: {comment(action.name)}, {indexes} ----")
            self.origin_comment(action.origin, 0)
            self._unit_functions(str(u), action)

    def _dispatch(self, header: str, doc: str, arms, tail: str) -> None:
        """A function switching on the action: ``arms(u, action, args)`` emits one unit's body."""
        self.emit(header)
        self.emit(f'"""{doc}"""', 1)
        if self.sys.unbounded:
            self.emit("cdef int g = s.atab[3 * a], i0 = s.atab[3 * a + 1], i1 = s.atab[3 * a + 2]", 1)
            var, args = "g", "i0, i1"
        else:
            var, args = "a", "0, 0"
        first = True
        for u, (action, _) in enumerate(self.units):
            self.emit(f"{'if' if first else 'elif'} {var} == {u}:", 1)
            first = False
            arms(u, action, args)
        if tail:
            self.emit(tail, 1)
        self.emit()

    def _actions(self) -> None:
        self._emit_units()

        def valid(u, action, args):
            self.emit("return " + " or ".join(f"valid_{u}_{c}(s, {args})" for c in range(len(action.cases))), 2)

        def apply(u, action, args):
            for c in range(len(action.cases)):
                self.emit(f"if valid_{u}_{c}(s, {args}):", 2)
                self.emit(f"apply_{u}_{c}(s, label, {args})", 3)
                self.emit("return 0", 3)

        def apply_legal(u, action, args):
            if len(action.cases) == 1:
                self.emit(f"apply_{u}_0(s, label, {args})", 2)
                return
            for c in range(len(action.cases)):
                self.emit(f"{'if' if c == 0 else 'elif'} valid_{u}_{c}(s, {args}):", 2)
                self.emit(f"apply_{u}_{c}(s, label, {args})", 3)

        def arc_of(u, action, args):
            for c, case in enumerate(action.cases):
                if any(o.labeled for o in case.arcs):
                    self.emit(f"if valid_{u}_{c}(s, {args}):", 2)
                    self.emit(f"arcof_{u}_{c}(s, h, d, {args})", 3)
                    self.emit("return 1", 3)
            self.emit("return 0", 2)

        self._dispatch("cdef bint valid_nt(St* s, int a) noexcept nogil:", "Whether action a applies (s not terminal).",
                       valid, "return 0")
        self._dispatch("cdef int apply_nt(St* s, int a, int label) noexcept nogil:",
                       "Apply action a (s not terminal); -1 when it does not apply.", apply, "return -1")
        self._dispatch("cdef void apply_legal(St* s, int a, int label) noexcept nogil:",
                       "Apply action a, known to be legal (single-case actions skip the checks).", apply_legal, "")
        def arc_of_legal(u, action, args):
            if len(action.cases) == 1:
                if any(o.labeled for o in action.cases[0].arcs):
                    self.emit(f"arcof_{u}_0(s, h, d, {args})", 2)
                    self.emit("return 1", 2)
                else:
                    self.emit("return 0", 2)
                return
            arc_of(u, action, args)

        self._dispatch("cdef int arc_of(St* s, int a, int* h, int* d) noexcept nogil:",
                       "The labeled arc action a would build (1), or 0 (s not terminal).", arc_of, "return 0")
        self._dispatch("cdef int arc_of_legal(St* s, int a, int* h, int* d) noexcept nogil:",
                       "arc_of for an action known to be legal (single-case actions skip the checks).",
                       arc_of_legal, "return 0")
        labeled = [int(a.labeled) for a, _ in self.units]
        self.emit(f"cdef unsigned char LABELED[{len(labeled)}]")
        self._table_init("LABELED", labeled)
        self.emit()
        self.emit("cdef inline bint labeled_of(St* s, int a) noexcept nogil:")
        self.emit(f"return LABELED[{'s.atab[3 * a]' if self.sys.unbounded else 'a'}]", 1)
        self.emit()

    def _case_valid(self, a_ix: str, c_ix: int, case: ir.Case) -> None:
        names = self._case_names(case)
        self.emit(f"cdef inline bint valid_{a_ix}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self.origin_comment(case.origin, 1)
        self._declare(names, 1)
        self._bind(case.match, names, 1)
        self.emit(f"return {self.expr(names).pred(case.full_guard)}", 1)
        self.emit()

    def _case_apply(self, a_ix: str, c_ix: int, case: ir.Case) -> None:
        names = self._case_names(case)
        self.emit(f"cdef inline void apply_{a_ix}_{c_ix}(St* s, int label, int i0, int i1) noexcept nogil:")
        self._declare(names, 1, "i, sp, m")
        self._bind(case.match, names, 1, check_lengths=False)
        self._apply_body(case, names)
        self.emit("pass", 1)
        self.emit()

    def _apply_body(self, case: ir.Case, names: dict[str, str]) -> None:
        """The case's effect at indent 1, its tokens bound: arcs, lists, flags, class upkeep."""
        s = self.sys
        v = self.view
        general = self.classes is not None and self.classes.general
        ends = self._general_apply_start(case, names) if general else []
        expr = self.expr(names)
        if self.classes is not None and not general:
            for line in v.effects_begin(self._touched(case, names)):
                self.emit(line, 1)
        # arcs first, as the interpreter does
        for op in case.arcs:
            h, d = names[op.head], names[op.dep]
            lab = "label" if op.labeled else "-1"
            if s.multihead:
                v.struct_only("a multihead arc")
                self.emit(f"s.adj[{h} * s.ntok + {d}] = 1", 1)
                self.emit(f"s.adjlab[{h} * s.ntok + {d}] = {lab}", 1)
                self.emit(f"if s.head[{d}] < 0:", 1)
                self.emit(f"s.head[{d}] = {h}", 2)
                self.emit(f"s.lab[{d}] = {lab}", 2)
                continue
            if op.break_cycle:
                v.struct_only("an arc that breaks a cycle")
                self.emit(f"if st_path(s, {d}, {h}):", 1)
                self.emit(f"s.head[{h}] = -1", 2)
                self.emit(f"s.lab[{h}] = -1", 2)
            for line in v.set_arc(d, h, lab):
                self.emit(line, 1)
        self._rebuild(case, names)
        for st in case.sets:
            value = expr.pred(st.value)
            v.struct_only("a flag set")
            if st.var is None:
                self.emit(f"s.gflag[{self.gflag_index[st.flag]}] = {value}", 1)
            else:
                self.emit(f"s.tflag[{self.tflag_index[st.flag]} * s.ntok + {names[st.var]}] = {value}", 1)
        if general:
            v.struct_only("the general delta's classes")
            self._general_apply_end(self._touched(case, names), ends)
        elif self.classes is not None:
            touched = self._touched(case, names)
            if touched:
                self.emit(f"if {v.gold_test()}:", 1)
                bits = self.classes.n_flag_bits
                for t in touched:
                    shift = self._class_shift(case, names, t)
                    var = next(k for k, n in names.items() if n == t)
                    flags_set = any(st.var == var and st.flag in self.classes.flags for st in case.sets)
                    if shift is not None:
                        new = f"{v.cls(t)} + ({shift})"
                    elif self._hs_options(case, names, t) == [1, 2] and not flags_set:
                        # it got a head: gold (1) or not (2); list known, flags unchanged
                        w = self._where_after(case, names, t) + 1
                        hs = f"(1 if {v.head(t)} == {v.gold(t)} else 2)"
                        mask = (1 << bits) - 1
                        new = f"((({w} * 3 + {hs}) << {bits}) | ({v.cls(t)} & {mask}))"
                    else:
                        v.struct_only("a class worked out from the state")
                        self.emit(f"st_reclass(s, {t})", 2)
                        continue
                    for line in v.reclass_to(t, new):
                        self.emit(line, 2)
        v.effects_end()

    def _touched(self, case: ir.Case, names: dict[str, str]) -> list[str]:
        """C names of the bound tokens whose class can change in this case."""
        out: list[str] = []

        def add(var: str) -> None:
            if names[var] not in out:
                out.append(names[var])

        where_before = {it.var: k for k, m in enumerate(case.match) for it in m.items if isinstance(it, ir.Tok)}
        where_after = {it.var: k for k, items in enumerate(case.result) for it in items if isinstance(it, ir.Tok)}
        for var, k in where_before.items():
            if where_after.get(var) != k:
                add(var)
        for op in case.arcs:
            add(op.dep)
            if op.break_cycle:
                add(op.head)
        for st in case.sets:
            if st.var is not None and self.classes is not None and st.flag in self.classes.flags:
                add(st.var)
        return out
