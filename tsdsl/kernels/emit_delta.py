"""Incremental costs for rules that read list ends and adjacent pairs (the general delta).

The incremental tier (``emit_costs``) keeps a class per token and counts of each token's
gold dependents by class; an action's cost is the change on the arcs at the tokens whose
class changes.  Its fast paths know statically how each bound token's class changes.  Two
kinds of rule atom do not fit them, and are handled here:

- ``x == last(L)`` / ``x == first(L)``: being that end is a class bit ("ends").  It changes
  for tokens the case does not bind: the old end (``SHIFT`` makes the old ``b0`` a stack
  word) and the new one.  Those are added to the touched tokens at run time, without
  duplicates, and every touched token's class after the case is computed (its list, head
  status and flags as the case says, its end bits by comparing it with the ends after).
- ``pos(d) == pos(h) + k`` (k = +-1): adjacency is a property of a pair.  The class tables
  are for non-adjacent pairs; each adjacent pair adds a correction (``ADJ`` tables).  An
  action makes and breaks adjacent pairs only around the items it matches and places, so
  the kernel sums the corrections over a window there (the case's items and the two
  nearest words of the rest), after minus before.  This needs every case to change one
  side of each list at most, which :meth:`GeneralDelta._general_ok` checks (else the
  oracle keeps costs by scratch copy).

The dependents' part uses one table per (class before, class after) pair: the non-zero
(class, coefficient) terms of the change, so a token pays for the few classes whose loss
changes, not for all of them.
"""

from __future__ import annotations

from .. import ir
from .classes import Classes, eval_local

MAX_GENERAL_CLASSES = 96  # beyond this the (before, after) tables grow too large: scratch copy


class GeneralDelta:
    """Mixin of :class:`~tsdsl.kernels.codegen.KernelGen`: the general delta (see module doc)."""

    # ---- generation-time checks and tables ------------------------------------------

    def _general_ok(self, cl: Classes, positive: bool, pred: ir.Pred, hv: str, dv: str) -> bool:
        """Whether the general delta is exact for this system (else costs by scratch copy)."""
        if cl.count > MAX_GENERAL_CLASSES:
            return False
        if not cl.adj:
            return True
        for a in self.actions:
            for case in a.cases:
                for k, m in enumerate(case.match):
                    left, right = self._changed_sides(case, k)
                    if left and right and m.has_rest:
                        return False
        # words in different lists (or in none): the rule must not care whether the
        # positions happen to differ by k there, since the kernel does not track it
        lists = self.list_index
        for ch in range(cl.count):
            for cd in range(cl.count):
                wh, wd = cl.decode(ch)[0], cl.decode(cd)[0]
                if wh == wd and wh >= 0:
                    continue
                for dr in range(cl.n_dir):
                    base = self._lost(cl, positive, pred, hv, dv, lists, ch, cd, dr, None)
                    if any(self._lost(cl, positive, pred, hv, dv, lists, ch, cd, dr, k) != base for k in cl.adj):
                        return False
        return True

    @staticmethod
    def _lost(cl: Classes, positive: bool, pred: ir.Pred, hv: str, dv: str, lists: dict, ch: int, cd: int,
              dr: int, adj) -> int:
        """1 when a missing gold arc ch -> cd (direction dr, adjacency adj) is lost."""
        hw, hhs, hfl, hroot = cl.decode(ch)
        dw, dhs, dfl, droot = cl.decode(cd)
        if dhs == 1:  # the gold arc is present
            return 0
        rank_h, rank_d = (0, 1) if dr == 1 else (1, 0)
        feats = {
            hv: {"where": hw, "hs": hhs, "flags": dict(zip(cl.flags, hfl)), "root": hroot, "rank": rank_h,
                 "ends": dict(zip(cl.ends, cl.end_bits(ch)))},
            dv: {"where": dw, "hs": dhs, "flags": dict(zip(cl.flags, dfl)), "root": droot, "rank": rank_d,
                 "ends": dict(zip(cl.ends, cl.end_bits(cd)))},
            "$lists": lists, "$vars": (hv, dv), "$adj": adj,
        }
        return int(eval_local(pred, feats) != positive)

    def _changed_sides(self, case: ir.Case, k: int) -> tuple[bool, bool]:
        """Whether list k's front (left of its rest) and back (right of it) change in the case."""
        m = case.match[k]
        res = case.result[k]
        if not m.has_rest:
            return True, True
        rest_m = next(i for i, it in enumerate(m.items) if isinstance(it, ir.Rest))
        rest_r = next((i for i, it in enumerate(res) if isinstance(it, ir.Rest)), None)
        if rest_r is None:
            return True, True
        return (rest_m > 0 or rest_r > 0), (rest_m < len(m.items) - 1 or rest_r < len(res) - 1)

    def _dep_groups(self) -> tuple[list[int], int]:
        """Per class, its dependent group, and the number of groups.  Gold dependents are
        counted per group, not per class: classes whose loss column is the same (as a
        dependent, under every head class) are one group, so an action's change on a
        token's dependents adds a term or two, not one per class.  Without ends or
        adjacency every class is its own group, as the fast paths expect."""
        cl = self.classes
        if not cl.general:
            return list(range(cl.count)), cl.count
        cached = self.__dict__.get("_groups")
        if cached is None:
            positive, hv, dv, pred = self.losses[0][0].reach
            utab = self._u_table(positive, pred, hv, dv)
            sigs: dict = {}
            grp = []
            for k in range(cl.count):
                sig = tuple(utab[(c * cl.count + k) * cl.n_dir + dr] for c in range(cl.count) for dr in range(cl.n_dir))
                grp.append(sigs.setdefault(sig, len(sigs)))
            cached = self._groups = (grp, len(sigs))
        return cached

    def _general_tables(self) -> None:
        """ADJ_k (per adjacency offset) and the dependents' change table (DOFF, DK, DC)."""
        cl = self.classes
        oracle = self.losses[0][0]
        positive, hv, dv, pred = oracle.reach
        lists = self.list_index
        self._adj_values = []  # per offset: per list, whether any correction there is non-zero
        for ix, k in enumerate(cl.adj):
            values = []
            for ch in range(cl.count):
                for cd in range(cl.count):
                    for dr in range(cl.n_dir):
                        same = cl.decode(ch)[0] == cl.decode(cd)[0] >= 0
                        values.append(self._lost(cl, positive, pred, hv, dv, lists, ch, cd, dr, k)
                                      - self._lost(cl, positive, pred, hv, dv, lists, ch, cd, dr, None) if same else 0)
            per_list = [any(values[(ch * cl.count + cd) * cl.n_dir + dr]
                            for ch in range(cl.count) for cd in range(cl.count) for dr in range(cl.n_dir)
                            if cl.decode(ch)[0] == kk) for kk in range(cl.n_lists)]
            self._adj_values.append(per_list)
            self.emit(f"cdef signed char ADJ{ix}[{len(values)}]")
            self._table_init(f"ADJ{ix}", values)
            self.emit()
        utab = self._utab
        grp, ngrp = self._dep_groups()
        offs, ks, cs = [0], [], []
        for cb in range(cl.count):
            for ca in range(cl.count):
                terms: dict[int, int] = {}
                for dr in range(cl.n_dir):
                    for k in range(cl.count):
                        if cl.decode(k)[3]:  # the root is never a dependent
                            continue
                        coef = utab[(ca * cl.count + k) * cl.n_dir + dr] - utab[(cb * cl.count + k) * cl.n_dir + dr]
                        if coef:
                            terms[dr * ngrp + grp[k]] = coef  # the same for every class of a group
                ks.extend(terms)
                cs.extend(terms.values())
                offs.append(len(ks))
        self.emit(f"cdef int DOFF[{len(offs)}]")
        self._table_init("DOFF", offs)
        self.emit()
        for name, kind, values in (("DK", "int", ks or [0]), ("DC", "signed char", cs or [0])):
            self.emit(f"cdef {kind} {name}[{len(values)}]")
            self._table_init(name, values)
            self.emit()

    # ---- the class function's end bits, and apply's re-classing ----------------------

    def _end_expr(self, k: int) -> str:
        """The C expression of end k in the current state (st_first / st_last semantics)."""
        lst, side = self.classes.ends[k]
        return f"st_{side}(s, {self.list_index[lst]})"

    def _general_apply_start(self, case: ir.Case, names: dict[str, str]) -> list[str]:
        """In apply, before any change: the end words before and after (the latter read off
        the case), unless the same or a touched word; returns their variables."""
        touched = self._touched(case, names)
        out = []
        for k in range(len(self.classes.ends)):
            before, after = self._end_before_static(case, names, k), self._end_after(case, names, k)
            if before == after:
                continue
            for which, expr in (("eb", before), ("ea", after)):
                if expr not in touched:
                    self.emit(f"cdef int {which}{k} = {expr}", 1)
                    out.append(f"{which}{k}")
        return out

    def _general_apply_end(self, touched: list[str], ends: list[str]) -> None:
        """In apply, after every change: re-class the touched words and the old and new ends."""
        self.emit("if s.gold != NULL:", 1)
        for v in touched:
            self.emit(f"st_reclass(s, {v})", 2)
        for e in ends:
            self.emit(f"if 0 <= {e} < s.ntok:", 2)
            self.emit(f"st_reclass(s, {e})", 3)

    # ---- the delta ---------------------------------------------------------------------

    def _slot_token(self, k: int, slot: str, exists: str) -> str:
        return f"(s.buf[{k} * s.cap + {slot}] if {exists} else -1)"

    def _items_tokens(self, items, names: dict[str, str], case: ir.Case) -> list[str]:
        """C token expressions of non-rest items in order (a block's words one by one)."""
        out = []
        for it in items:
            if isinstance(it, ir.Tok):
                out.append(names[it.var])
            elif isinstance(it, ir.Block):
                src = next(kk for kk, m in enumerate(case.match) if it in m.items)
                start = names["#" + it.var]
                out.extend(f"s.buf[{self.list_index[case.match[src].list]} * s.cap + {start} + {i}]"
                           for i in range(int(it.length)))
        return out

    def _end_before_static(self, case: ir.Case, names: dict[str, str], k_end: int) -> str:
        """End ``k_end`` before the case as a bound token's name when the match says which
        (its outermost item on that side is a token), else the run-time expression."""
        lst, side = self.classes.ends[k_end]
        m = case.match[self.list_index[lst]]
        items = m.items if side == "first" else tuple(reversed(m.items))
        if items and not isinstance(items[0], ir.Rest):
            return self._first_token(items[:1], names, case, side)
        return self._end_expr(k_end)

    def _end_after(self, case: ir.Case, names: dict[str, str], k_end: int) -> str:
        """A C expression of end ``k_end`` after the case (before applying it)."""
        lst, side = self.classes.ends[k_end]
        k = self.list_index[lst]
        m = case.match[k]
        res = case.result[k]
        empty = "0" if side == "last" else "(s.n + 2)"
        seq = list(res) if side == "first" else list(reversed(res))
        for it in seq:
            if isinstance(it, ir.Rest):
                # the rest's own end when it is not empty, else what follows it
                pos = m.positions()
                m_left = sum(w for s_, _, w in pos.values() if s_ == "L")
                m_right = sum(w for s_, _, w in pos.values() if s_ == "R")
                rest_len = f"(s.hi[{k}] - s.lo[{k}] - {m_left + m_right})"
                slot = f"s.lo[{k}] + {m_left}" if side == "first" else f"s.hi[{k}] - {m_right + 1}"
                inner = seq[seq.index(it) + 1:]
                fallback = self._first_token(inner, names, case, side) or empty
                return f"(s.buf[{k} * s.cap + {slot}] if {rest_len} > 0 else {fallback})"
            tok = self._first_token([it], names, case, side)
            if tok is not None:
                return tok
        return empty

    def _first_token(self, items, names: dict[str, str], case: ir.Case, side: str):
        """The outermost token of ``items`` (in the order given, from the list's ``side`` end)."""
        for it in items:
            toks = self._items_tokens([it], names, case)
            if toks:
                return toks[0] if side == "first" else toks[-1]
        return None

    def _windows(self, case: ir.Case, names: dict[str, str]) -> list[tuple[int, list[str], list[str]]]:
        """Per changed side of a list: the list, its window of tokens before and after the case."""
        out = []
        for k, m in enumerate(case.match):
            res = case.result[k]
            left, right = self._changed_sides(case, k)
            if not m.has_rest:
                out.append((k, self._items_tokens(m.items, names, case), self._items_tokens(res, names, case)))
                continue
            pos = m.positions()
            m_left = sum(w for s_, _, w in pos.values() if s_ == "L")
            m_right = sum(w for s_, _, w in pos.values() if s_ == "R")
            rest_len = f"(s.hi[{k}] - s.lo[{k}] - {m_left + m_right})"
            rm = next(i for i, it in enumerate(m.items) if isinstance(it, ir.Rest))
            rr = next(i for i, it in enumerate(res) if isinstance(it, ir.Rest))
            if right:
                edge = [self._slot_token(k, f"s.hi[{k}] - {m_right + 2}", f"{rest_len} > 1"),
                        self._slot_token(k, f"s.hi[{k}] - {m_right + 1}", f"{rest_len} > 0")]
                out.append((k, edge + self._items_tokens(m.items[rm + 1:], names, case),
                            edge + self._items_tokens(res[rr + 1:], names, case)))
            if left:
                edge = [self._slot_token(k, f"s.lo[{k}] + {m_left}", f"{rest_len} > 0"),
                        self._slot_token(k, f"s.lo[{k}] + {m_left + 1}", f"{rest_len} > 1")]
                out.append((k, self._items_tokens(m.items[:rm], names, case) + edge,
                            self._items_tokens(res[:rr], names, case) + edge))
        return out

    def _general_delta(self, u: str, c_ix: int, case: ir.Case) -> None:
        """``delta_u_c``: the change of the unreachable count, for classes with ends or adjacency."""
        cl = self.classes
        names = self._case_names(case)
        bound = self._touched(case, names)
        n_end = len(cl.ends)
        # the end tokens before and after, unless known to be a touched token already
        tok = list(bound)
        for k in range(n_end):
            before, after = self._end_before_static(case, names, k), self._end_after(case, names, k)
            if before == after:  # the same word before and after: no end bit changes
                continue
            for which, static in (("eb", before), ("ea", after)):
                if static not in tok:
                    tok.append(f"{which}{k}")
        nt = len(tok)
        self.emit(f"cdef inline int delta_{u}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self._declare(names, 1, "delta = 0, g, pb, pa, base, i, e, x, y, cx, cy")
        if nt:
            self.emit("cdef int " + ", ".join(f"t{j}, cb{j}, ca{j}, ok{j}" for j in range(nt)), 1)
        if n_end:
            self.emit("cdef int " + ", ".join(f"eb{k}, ea{k}" for k in range(n_end)), 1)
        self._bind(case.match, names, 1, check_lengths=False)
        for k in range(n_end):
            self.emit(f"eb{k} = {self._end_expr(k)}", 1)
            self.emit(f"ea{k} = {self._end_after(case, names, k)}", 1)
        ends_after = " | ".join(f"({cl.end_bit(k)} if T == ea{k} else 0)" for k in range(n_end)) or "0"
        for j, v in enumerate(tok):
            self.emit(f"t{j} = {v}", 1)
            dup = " and ".join(f"t{j} != t{jj}" for jj in range(j)) or "1"
            self.emit(f"ok{j} = 0 <= t{j} < s.ntok and {dup}" if j >= len(bound) else f"ok{j} = {dup}", 1)
            self.emit(f"cb{j} = s.cls[t{j}] if ok{j} else 0", 1)
            if j < len(bound):
                self.emit(f"ca{j} = {self._class_after(case, names, v, self._hs_after(case, names, v))}", 1)
            else:
                self.emit(f"ca{j} = (cb{j} & {~cl.end_mask & 0xFFFF}) | {ends_after.replace('T', f't{j}')}", 1)
        dr_of = (lambda h, d: f" + ({h} < {d})") if cl.n_dir == 2 else (lambda h, d: "")
        for j in range(nt):
            self.emit(f"if ok{j}:", 1)
            # the arc from the gold head
            self.emit(f"g = s.gpar[t{j}]", 2)
            self.emit("pb = s.cls[g]", 2)
            self.emit("pa = pb", 2)
            for jj in range(nt):
                if jj != j:
                    self.emit(f"if ok{jj} and g == t{jj}:", 2)
                    self.emit(f"pa = ca{jj}", 3)
            dr = dr_of("g", f"t{j}")
            self.emit(f"delta += UTAB[(pa * NCLS + ca{j}) * NDIR{dr}] - UTAB[(pb * NCLS + cb{j}) * NDIR{dr}]", 2)
            # the gold dependents, from the counts by class: only the classes whose loss changes
            self.emit(f"if ca{j} != cb{j}:", 2)
            self.emit(f"base = t{j} * NCNT", 3)
            self.emit(f"e = DOFF[cb{j} * NCLS + ca{j} + 1]", 3)
            self.emit(f"for i in range(DOFF[cb{j} * NCLS + ca{j}], e):", 3)
            self.emit("delta += DC[i] * s.cnt[base + DK[i]]", 4)
            # a dependent that is touched too was counted with its old class: its own term rules
            for jj in range(nt):
                if jj != j:
                    dr = dr_of(f"t{j}", f"t{jj}")
                    self.emit(f"if ok{jj} and s.gold[t{jj}] == t{j}:", 3)
                    self.emit(f"delta -= UTAB[(ca{j} * NCLS + cb{jj}) * NDIR{dr}] - "
                              f"UTAB[(cb{j} * NCLS + cb{jj}) * NDIR{dr}]", 4)
        if cl.adj:
            self._adjacency_delta(case, names, tok)
        self.emit("return delta", 1)
        self.emit()

    def _adjacency_delta(self, case: ir.Case, names: dict[str, str], tok: list[str]) -> None:
        """Corrections of the adjacent pairs in the case's windows: after minus before."""
        nt = len(tok)
        cl = self.classes
        blocks = [it for m in case.match for it in m.items if isinstance(it, ir.Block)]
        bound = {v for k, v in names.items() if not k.startswith("#")}
        bound |= set(self._items_tokens(blocks, names, case))  # words bound by the match
        static = all(t in bound for t in tok)  # every touched word is a bound one

        def after_cls(var: str, expr_text: str) -> str:
            if expr_text in tok and expr_text in bound:
                return f"ca{tok.index(expr_text)}"
            if static and expr_text in bound:
                return f"s.cls[{var}]"
            expr = f"s.cls[{var}]"
            for j in reversed(range(nt)):
                expr = f"(ca{j} if ok{j} and {var} == t{j} else {expr})"
            return expr

        for k, before, after in self._windows(case, names):
            if not any(self._adj_values[ix][k] for ix in range(len(cl.adj))):
                continue  # the rule does not care about adjacency in this list
            pairs_b, pairs_a = list(zip(before, before[1:])), list(zip(after, after[1:]))
            if static:
                # a pair adjacent before and after whose words keep their classes: no change
                keep = [p for p in pairs_b if p in pairs_a and not set(p) & set(tok)]
                pairs_b = [p for p in pairs_b if p not in keep]
                pairs_a = [p for p in pairs_a if p not in keep]
            for sign, pairs in ((-1, pairs_b), (1, pairs_a)):
                for a, b in pairs:
                    self.emit(f"x = {a}", 1)
                    self.emit(f"y = {b}", 1)
                    known = a in bound and b in bound
                    self.emit("if 1:" if known else "if x >= 0 and y >= 0:", 1)
                    self.emit(f"cx = {'s.cls[x]' if sign < 0 else after_cls('x', a)}", 2)
                    self.emit(f"cy = {'s.cls[y]' if sign < 0 else after_cls('y', b)}", 2)
                    op = "-=" if sign < 0 else "+="
                    for ix, k in enumerate(cl.adj):
                        # y right after x: pos(y) - pos(x) = 1
                        h, d, ch, cd = ("x", "y", "cx", "cy") if k == 1 else ("y", "x", "cy", "cx")
                        dr = f" + ({h} < {d})" if cl.n_dir == 2 else ""
                        self.emit(f"if s.gold[{d}] == {h}:", 2)
                        self.emit(f"delta {op} ADJ{ix}[({ch} * NCLS + {cd}) * NDIR{dr}]", 3)
