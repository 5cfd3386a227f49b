"""The state half of the kernel: the initial configuration, the terminal test, binding
a case's pattern to list positions, and rebuilding the lists after a case applies."""

from __future__ import annotations

from typing import Optional

from .. import ir
from ..errors import KernelBuildError


class StateEmitter:
    """Mixin of :class:`~tsdsl.kernels.codegen.KernelGen`: configurations and list moves."""

    def _initial(self) -> None:
        s = self.sys
        self.emit("cdef int st_init(St* s, int n) noexcept nogil:")
        self.emit('"""The initial configuration for n words (-1: out of memory; -2: too long)."""', 1)
        self.emit("if st_alloc(s, n) < 0:", 1)
        self.emit("return -1", 2)
        self.emit("st_start(s, n)", 1)
        self.emit("return 0", 1)
        self.emit()
        self.emit("cdef void st_start(St* s, int n) noexcept nogil:")
        self.emit('"""Fill the placed state s with the initial configuration for n words."""', 1)
        self.emit("cdef int t, m, k", 1)
        root = {"left": "0", "right": "n + 1", "none": "-1"}[s.root]
        self.emit(f"s.root = {root}", 1)
        self.emit("memset(s.head, 0xFF, s.ntok * sizeof(int))  # every byte 0xFF: -1", 1)
        self.emit("memset(s.lab, 0xFF, s.ntok * sizeof(int))", 1)
        self.emit("memset(s.where, 0xFF, s.ntok)", 1)
        if s.multihead:  # a reused state (replayed, restarted) must not keep the arcs of the last
            self.emit("memset(s.adj, 0, s.ntok * s.ntok)", 1)
        for k, (name, default) in enumerate(s.token_flags):
            self.emit(f"memset(s.tflag + {k} * s.ntok, {int(bool(default))}, s.ntok)", 1)
        for k, (name, default) in enumerate(s.global_flags):
            self.emit(f"s.gflag[{k}] = {int(bool(default))}", 1)
        for k in range(len(s.lists)):
            self.emit(f"st_clear(s, {k})", 1)

        def fill(items) -> None:
            for it in items:
                if it == "words":
                    self.emit("for t in range(1, n + 1):", 1)
                    self.emit("s.scratch[m] = t", 2)
                    self.emit("m += 1", 2)
                elif it == "root" and s.root != "none":
                    self.emit("s.scratch[m] = s.root", 1)
                    self.emit("m += 1", 1)

        if s.initial.split is None:
            for k, items in enumerate(s.initial.lists):
                self.emit("m = 0", 1)
                fill(items)
                self.emit(f"st_place(s, {k}, s.scratch, m)", 1)
        else:
            self.emit("m = 0", 1)
            for items in s.initial.lists:
                fill(items)
            split = int(s.initial.split)
            self.emit(f"k = {split} if m > {split} else m", 1)
            self.emit("st_place(s, 0, s.scratch, k)", 1)
            self.emit("st_place(s, 1, s.scratch + k, m - k)", 1)
        self.emit("pass", 1)
        self.emit()

    def _bind(self, match: tuple[ir.ListMatch, ...], names: dict[str, str], indent: int,
              check_lengths: bool = True, fail: str = "return 0", nest: bool = False,
              nonempty: frozenset = frozenset()) -> int:
        """Length checks (returning ``fail``; with ``nest``, opening an ``if`` per check
        instead; none that a list in ``nonempty`` has a word), then bound tokens and block
        starts; the indent the binding ends at."""
        v = self.view
        for m in match:
            k = self.list_index[m.list]
            op = ">=" if m.has_rest else "=="
            if check_lengths and (not m.has_rest or not isinstance(m.min_len, int) or m.min_len > 0):
                if k in nonempty and m.has_rest and m.min_len == 1:
                    continue
                if nest:
                    self.emit(f"if {v.length(k)} {op} {m.min_len}:", indent)
                    indent += 1
                else:
                    self.emit(f"if not ({v.length(k)} {op} {m.min_len}):", indent)
                    self.emit(fail, indent + 1)
        for m in match:
            k = self.list_index[m.list]
            for var, (side, off, width) in m.positions().items():
                item = next(i for i in m.items if not isinstance(i, ir.Rest) and i.var == var)
                if isinstance(item, ir.Tok):
                    self.emit(f"{names[var]} = {v.at(k, side, off)}", indent)
                else:
                    v.struct_only("a block's start")
                    start = f"s.lo[{k}] + {off}" if side == "L" else f"s.hi[{k}] - {off + 1}"
                    self.emit(f"{names['#' + var]} = {start}", indent)
        return indent

    def _case_names(self, case: ir.Case) -> dict[str, str]:
        names: dict[str, str] = {}
        for m in case.match:
            for it in m.items:
                if isinstance(it, ir.Tok):
                    names[it.var] = f"v{len(names)}"
                elif isinstance(it, ir.Block):
                    names["#" + it.var] = f"b{len(names)}"
        return names

    def _declare(self, names: dict[str, str], indent: int, extra: str = "") -> None:
        decl = ", ".join(sorted(names.values(), key=lambda x: (x[0], int(x[1:]))))
        parts = [p for p in (decl, extra) if p]
        if parts:
            self.emit(f"cdef int {', '.join(parts)}", indent)

    def _terminal(self) -> None:
        t = self.sys.terminal
        names = {}
        for m in t.match:
            for it in m.items:
                if isinstance(it, ir.Tok):
                    names[it.var] = f"v{len(names)}"
                elif isinstance(it, ir.Block):
                    names["#" + it.var] = f"b{len(names)}"
        self.emit("cdef inline bint st_terminal(St* s) noexcept nogil:")
        self.origin_comment(t.origin, 1)
        self._declare(names, 1)
        self.emit("if s.n == 0:", 1)
        self.emit("return 1", 2)
        self._bind(t.match, names, 1)
        self.emit(f"return {self.expr(names).pred(t.guard)}", 1)
        self.emit()

    def _rebuild(self, case: ir.Case, names: dict[str, str]) -> None:
        """Lists after the case: pieces saved to scratch, ends trimmed, results pushed.

        Items next to a kept rest that stay where they are (``σ|s`` in ``σ|s|b``) are
        left in place.
        """
        lists = [m.list for m in case.match]
        if lists != [d.name for d in self.sys.lists]:
            raise KernelBuildError(f"internal: a case must match every list in order ({lists})")
        used: dict[ir.Item, int] = {}
        for items in case.result:
            for it in items:
                used[it] = used.get(it, 0) + 1
        if any(v > 1 for v in used.values()):
            raise KernelBuildError("a case's result uses one piece twice; the kernel cannot duplicate tokens")
        # per list: (rest index in match, rest index in result, kept left, kept right) or None
        plan: dict[int, Optional[tuple[int, int, int, int]]] = {}
        for k, m in enumerate(case.match):
            r = next((j for j, i in enumerate(m.items) if isinstance(i, ir.Rest)), None)
            res = case.result[k]
            r2 = next((j for j, i in enumerate(res) if r is not None and i == m.items[r]), None)
            if r is None or r2 is None:
                plan[k] = None
                continue
            left = 0
            while left < r and left < r2 and m.items[r - 1 - left] == res[r2 - 1 - left]:
                left += 1
            right = 0
            while r + 1 + right < len(m.items) and r2 + 1 + right < len(res) \
                    and m.items[r + 1 + right] == res[r2 + 1 + right]:
                right += 1
            plan[k] = (r, r2, left, right)

        def stays(k: int, it: ir.Item) -> bool:
            p = plan[k]
            if p is None:
                return False
            r, _, left, right = p
            items = case.match[k].items
            return it in items[r - left:r] or it in items[r + 1:r + 1 + right]

        v = self.view
        # 1. save moving blocks and rests of cleared lists to scratch
        saved: dict[ir.Item, int] = {}
        if not v.records:
            self.emit("sp = 0", 1)
        for k, m in enumerate(case.match):
            for it in m.items:
                moving_block = isinstance(it, ir.Block) and it in used and not stays(k, it)
                foreign_rest = isinstance(it, ir.Rest) and plan[k] is None and it in used
                if not (moving_block or foreign_rest):
                    continue
                v.struct_only("a saved block or rest")
                j = len(saved)
                if isinstance(it, ir.Block):
                    src, width = names["#" + it.var], str(it.length)
                else:
                    rest_lo, rest_hi = self._rest_bounds(k, m)
                    src, width = rest_lo, f"({rest_hi} - {rest_lo})"
                self.emit(f"m = {width}", 1)
                self.emit("for i in range(m):", 1)
                self.emit(f"s.scratch[sp + i] = s.buf[{k} * s.cap + {src} + i]", 2)
                self.emit(f"cdef int sp{j}_at = sp, sp{j}_n = m", 1)
                self.emit("sp += m", 1)
                saved[it] = j
        # 2. tokens that leave every list lose their place (pushed ones get a new one)
        for k, m in enumerate(case.match):
            for it in m.items:
                if stays(k, it):
                    continue
                if isinstance(it, ir.Tok):
                    if it not in used:
                        for line in v.leave(names[it.var]):
                            self.emit(line, 1)
                elif isinstance(it, ir.Block):
                    v.struct_only("a block leaving its list")
                    b = names["#" + it.var]
                    self.emit(f"for i in range({b}, {b} + {it.length}):", 1)
                    self.emit(f"s.where[s.buf[{k} * s.cap + i]] = -1", 2)
                elif plan[k] is None:
                    v.struct_only("a rest leaving its list")
                    rest_lo, rest_hi = self._rest_bounds(k, m)
                    self.emit(f"for i in range({rest_lo}, {rest_hi}):", 1)
                    self.emit(f"s.where[s.buf[{k} * s.cap + i]] = -1", 2)
        # 3. trim moving ends, clear lists that do not keep their rest
        for k, m in enumerate(case.match):
            if plan[k] is None:
                v.struct_only("a list cleared")
                self.emit(f"st_clear(s, {k})", 1)
                continue
            r, _, left_keep, right_keep = plan[k]
            left = sum(ir.item_width(i) for i in m.items[:r - left_keep])
            right = sum(ir.item_width(i) for i in m.items[r + 1 + right_keep:])
            for side, j in (("L", left), ("R", right)):
                if j:
                    for line in v.trim(k, side, j):
                        self.emit(line, 1)

        # 4. push the results around what stayed
        def push(k: int, it: ir.Item, front: bool) -> None:
            fn = "st_push_front" if front else "st_push_back"
            if isinstance(it, ir.Tok):
                for line in v.push(k, "L" if front else "R", names[it.var]):
                    self.emit(line, 1)
                return
            j = saved[it]
            rng = f"range(sp{j}_n - 1, -1, -1)" if front else f"range(sp{j}_n)"
            self.emit(f"for i in {rng}:", 1)
            self.emit(f"{fn}(s, {k}, s.scratch[sp{j}_at + i])", 2)

        for k, items in enumerate(case.result):
            if plan[k] is None:
                for it in items:
                    push(k, it, False)
                continue
            _, r2, left_keep, right_keep = plan[k]
            for it in reversed(items[:r2 - left_keep]):
                push(k, it, True)
            for it in items[r2 + 1 + right_keep:]:
                push(k, it, False)

    def _rest_bounds(self, k: int, m: ir.ListMatch) -> tuple[str, str]:
        rest_at = next(j for j, i in enumerate(m.items) if isinstance(i, ir.Rest))
        left = sum(ir.item_width(i) for i in m.items[:rest_at])
        right = sum(ir.item_width(i) for i in m.items[rest_at + 1:])
        return f"(s.lo[{k}] + {left})", f"(s.hi[{k}] - {right})"
