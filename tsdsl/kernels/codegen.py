"""Generate a Cython kernel (`.pyx` text) from a system's IR.

The generated module holds a C state struct (fixed arrays for lists, heads,
labels, flags, in the style of spaCy's ``_state.pxd``), and per action
``valid``/``apply`` functions and, where the spec declares a fast oracle, its
loss and per-action ``cost`` — all ``noexcept nogil``.  Nothing from the spec's
text reaches the code except numbers, generated identifiers and comments that
are escaped to inert ASCII (:func:`comment`).  Output is deterministic.

Costs come in two tiers.  When the oracle's reachability rule only looks at the
two ends of an arc (which lists hold them, whether they have heads, token
flags, is_root, their order) the kernel keeps a small "class" per token and an
action's cost is computed incrementally from the tokens it touches and their
gold neighbours (O(degree)).  Otherwise the cost is the loss after applying
the action to a scratch copy minus the loss before (O(n) per action), exactly
as :class:`tsdsl.oracle.FastOracle` defines it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Optional

from .. import ir
from .._version import __version__
from ..errors import KernelBuildError
from .classes import Classes, eval_local, local_features
from .families import INT, affine, skeleton

GENERATOR_VERSION = "2"

PROBE_TOKENS = 9  # capacity-inf systems: families are fitted on the actions for this many tokens
CHECK_TOKENS = 14  # ... and checked on the actions for this many


def comment(text: str) -> str:
    """Spec text made inert for a ``#`` comment: one line of printable ASCII.

    Non-ASCII and control characters become ``\\xNN``/``\\uNNNN`` escapes (so no
    newline, carriage return or Unicode line separator can end the comment), and
    ``*/`` and ``??`` are broken up because Cython copies source lines into C comments.
    """
    out = ascii(text)[1:-1] if text else ""
    return out.replace("*/", "* /").replace("/*", "/ *").replace("??", "?\\?")


@dataclass(frozen=True)
class Generated:
    """A generated kernel: its source, a digest of it, and what the wrapper needs to know."""

    source: str
    digest: str
    action_names: tuple[str, ...]
    losses: tuple[tuple[str, str], ...]  # (oracle name, loss name) per loss index
    incremental: tuple[bool, ...]  # per loss index: cost computed incrementally
    unit_keys: tuple = ()  # capacity-inf systems: the skeleton of each family unit (see ``skeleton``)


class _Env:
    """C names of a case's bound variables."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def name(self, var: str) -> str:
        if var not in self.names:
            self.names[var] = f"v{len(self.names)}"
        return self.names[var]


# ---- expressions ---------------------------------------------------------------------


class _Expr:
    """Predicates and terms as C expressions over ``s`` (a ``St*``) and bound names."""

    def __init__(self, gen: "KernelGen", names: dict[str, str]):
        self.g = gen
        self.names = names

    def var(self, v: str) -> str:
        try:
            return self.names[v]
        except KeyError:
            raise KernelBuildError(f"internal: variable {v!r} is not bound in generated code") from None

    def pred(self, p: ir.Pred) -> str:
        g = self.g
        if isinstance(p, ir.Const):
            return "1" if p.value else "0"
        if isinstance(p, ir.HasHead):
            return f"st_has_head(s, {self.var(p.var)})"
        if isinstance(p, ir.IsRoot):
            return f"({self.var(p.var)} == s.root)"
        if isinstance(p, ir.TokenFlag):
            return f"(s.tflag[{g.tflag_index[p.flag]} * s.ntok + {self.var(p.var)}] != 0)"
        if isinstance(p, ir.GlobalFlag):
            return f"(s.gflag[{g.gflag_index[p.flag]}] != 0)"
        if isinstance(p, ir.Path):
            return f"st_path(s, {self.var(p.ancestor)}, {self.var(p.descendant)})"
        if isinstance(p, ir.ArcExists):
            return f"st_arc(s, {self.var(p.head)}, {self.var(p.dep)})"
        if isinstance(p, ir.Length):
            k = g.list_index[p.list]
            return f"(s.hi[{k}] - s.lo[{k}] {p.op} {int(p.value)})"
        if isinstance(p, ir.Cmp):
            return f"({self.term(p.left)} {p.op} {self.term(p.right)})"
        if isinstance(p, ir.InList):
            return f"st_in(s, {self.term(p.term)}, {g.list_index[p.list]})"
        if isinstance(p, ir.Connected):
            return f"st_connected(s, {self.var(p.a)}, {self.var(p.b)})"
        if isinstance(p, ir.Not):
            return f"(not {self.pred(p.item)})"
        if isinstance(p, ir.All):
            return "(" + " and ".join(self.pred(i) for i in p.items) + ")"
        if isinstance(p, ir.Any_):
            return "(" + " or ".join(self.pred(i) for i in p.items) + ")"
        raise KernelBuildError(f"internal: no code for predicate {type(p).__name__}")

    def term(self, t: ir.Term) -> str:
        g = self.g
        if isinstance(t, ir.TVar):
            return self.var(t.var)
        if isinstance(t, ir.TInt):
            return f"({int(t.value)})"
        if isinstance(t, ir.TFirst):
            return f"st_first(s, {g.list_index[t.list]})"
        if isinstance(t, ir.TLast):
            return f"st_last(s, {g.list_index[t.list]})"
        if isinstance(t, ir.TLen):
            k = g.list_index[t.list]
            return f"(s.hi[{k}] - s.lo[{k}])"
        if isinstance(t, ir.TPos):
            return f"st_pos(s, {self.term(t.term)})"
        if isinstance(t, ir.TGold):
            return f"st_gold(s, {self.term(t.term)})"
        if isinstance(t, ir.TFunc):
            a, b = self.term(t.left), self.term(t.right)
            if t.op == "max":
                return f"imax({a}, {b})"
            if t.op == "min":
                return f"imin({a}, {b})"
            if t.op in ("+", "-"):
                return f"({a} {t.op} {b})"
        raise KernelBuildError(f"internal: no code for term {type(t).__name__}")


# ---- the generator -------------------------------------------------------------------


class KernelGen:
    """Generates the kernel source of one system (see module docstring)."""

    def __init__(self, system: ir.System):
        self.sys = system
        if system.unbounded:
            # families of actions parameterised by position: learnt on one size, checked on another
            self.actions = system.actions_for(PROBE_TOKENS)
        else:
            self.actions = system.actions
        self.list_index = {d.name: k for k, d in enumerate(system.lists)}
        self.tflag_index = {name: k for k, (name, _) in enumerate(system.token_flags)}
        self.gflag_index = {name: k for k, (name, _) in enumerate(system.global_flags)}
        self.monotonic = system.is_monotonic(8)
        self.losses = [(o, l) for o in system.oracles if o.reach is not None for l in o.losses]
        self.uses_cycles = any(t != "unreachable" for _, l in self.losses for t in l.terms)
        if system.multihead and self.uses_cycles:
            raise KernelBuildError(f"{system.name}: cycle terms of a loss are not supported with multihead")
        self.classes = self._incremental_classes()
        self.out: list[str] = []
        self.units, self.unit_of = self._units()

    # ---- small helpers -------------------------------------------------------------
    def emit(self, line: str = "", indent: int = 0) -> None:
        self.out.append("    " * indent + line if line else "")

    def origin_comment(self, span, indent: int) -> None:
        """Quote the spec lines an action or case comes from (escaped, see :func:`comment`)."""
        if span is None:
            return
        file = span.file
        # the base name only: the same spec copied elsewhere (a model directory) hits the cache
        self.emit(f"# {comment(Path(file).name)}:{int(span.line)}", indent)
        text = self._source_line(file, span.line)
        if text is not None:
            self.emit(f"#   {comment(text.strip())}", indent)

    def _source_line(self, file: str, line: int) -> Optional[str]:
        texts = getattr(self, "_texts", None)
        if texts is None:
            texts = self._texts = {}
        if file not in texts:
            try:
                with open(file, encoding="utf-8") as fh:
                    texts[file] = fh.read().split("\n")  # line numbers count \n only, as the parser does
            except OSError:
                texts[file] = None
        lines = texts[file]
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    # ---- incremental oracle analysis -------------------------------------------------
    def _incremental_classes(self) -> Optional[Classes]:
        """Classes for the first oracle when its rule is local and every case keeps rests in place."""
        if not self.losses or self.sys.multihead:
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
        return Classes(len(self.sys.lists), flags, bool(acc.get("root")), bool(acc.get("order")))

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
        """U[(ch * NC + cd) * ND + dir]: 1 when a missing gold arc ch -> cd is lost."""
        cl = self.classes
        lists = self.list_index
        table = []
        for ch in range(cl.count):
            for cd in range(cl.count):
                for dr in range(cl.n_dir):
                    hw, hhs, hfl, hroot = cl.decode(ch)
                    dw, dhs, dfl, droot = cl.decode(cd)
                    if dhs == 1:  # the gold arc is present
                        table.append(0)
                        continue
                    rank_h, rank_d = (0, 1) if dr == 1 else (1, 0)
                    feats = {
                        hv: {"where": hw, "hs": hhs, "flags": dict(zip(cl.flags, hfl)), "root": hroot,
                             "rank": rank_h},
                        dv: {"where": dw, "hs": dhs, "flags": dict(zip(cl.flags, dfl)), "root": droot,
                             "rank": rank_d},
                        "$lists": lists,
                    }
                    ok = eval_local(pred, feats)
                    table.append(int(ok != positive))
        return table

    def _root_table(self, bound: str) -> list[int]:
        """UR[c]: the gold root word (root none) counts as lost (see FastOracle.unreachable)."""
        cl = self.classes
        out = []
        for c in range(cl.count):
            where, hs, _, _ = cl.decode(c)
            out.append(int(hs != 0 and (self.monotonic or bound == "upper" or where == -1)))
        return out

    # ---- generation -------------------------------------------------------------------
    def generate(self) -> Generated:
        s = self.sys
        self.out = []
        self.emit("# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True")
        self.emit("# cython: initializedcheck=False, nonecheck=False")
        self.emit(f"# tsdsl kernel for system {comment(s.name)} ({comment(Path(s.source_file).name)})")
        self.emit(f"# spec hash {s.source_hash[:64] if _is_hex(s.source_hash) else 'unknown'}; "
                  f"tsdsl {comment(__version__)}, generator {GENERATOR_VERSION}")
        if s.unbounded:
            self.emit("# capacity inf: one unit per family of actions, its numbers affine in the indexes i0, i1")
        self.emit("# Generated code: do not edit.  `tsdsl compile --emit-pyx SPEC` writes it out.")
        self.emit()
        nl = len(s.lists)
        cl = self.classes
        self.emit("cdef enum:")
        for name, value in (
            ("NLX", max(nl, 1)), ("NGFX", max(len(s.global_flags), 1)), ("NTFX", max(len(s.token_flags), 1)),
            ("MULTI", int(s.multihead)), ("WORK_PER_TOKEN", 7), ("N_ACTIONS", len(self.units)),
            ("UNBOUNDED", int(s.unbounded)), ("USES_POS", int(self._uses_pos())),
            ("N_LOSSES", len(self.losses)), ("INCREMENTAL", int(cl is not None)),
            ("NCLS", cl.count if cl else 1), ("NDIR", cl.n_dir if cl else 1),
            ("NCNT", cl.count * cl.n_dir if cl else 0),
            ("NEEDS_SCRATCH_STATE", int(not self._all_incremental_losses())),
            ("ATTACH_HEADLESS", int(s.attach_headless_to_root)), ("HAS_ROOT", int(s.root != "none")),
            ("ILLEGAL", -1_000_000_000),
            ("ROOT_KIND", {"left": 0, "right": 1, "none": 2}[s.root]),
        ):
            self.emit(f"{name} = {int(value)}", 1)
        self.emit()
        self.out.append(resources.files("tsdsl.kernels").joinpath("_runtime.pyx.in").read_text("utf-8"))
        self.emit()
        self._initial()
        self._terminal()
        self._classes_and_losses()
        self._pending_tables: list[tuple[str, list[int]]] = []
        self._actions()
        for name, values in self._pending_tables:
            self.emit(f"cdef signed char {name}[{len(values)}]")
            self._table_init(name, values)
            self.emit()
        self._cost_functions()
        self.out.append(resources.files("tsdsl.kernels").joinpath("_api.pyx.in").read_text("utf-8"))
        self.out.append(resources.files("tsdsl.kernels").joinpath("_learn.pyx.in").read_text("utf-8"))
        source = "\n".join(self.out).rstrip() + "\n"
        digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
        return Generated(
            source=source, digest=digest,
            action_names=() if s.unbounded else tuple(a.name for a in self.actions),
            losses=tuple((o.name, l.name) for o, l in self.losses),
            incremental=tuple(self._is_incremental(k) for k in range(len(self.losses))),
            unit_keys=tuple(key for _, key in self.units) if s.unbounded else (),
        )

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

    # ---- matching --------------------------------------------------------------------
    def _bind(self, match: tuple[ir.ListMatch, ...], names: dict[str, str], indent: int,
              check_lengths: bool = True, fail: str = "return 0") -> None:
        """Length checks (returning ``fail``), then bound tokens and block starts."""
        for m in match:
            k = self.list_index[m.list]
            op = ">=" if m.has_rest else "=="
            if check_lengths and (m.min_len > 0 or not m.has_rest):
                self.emit(f"if not (s.hi[{k}] - s.lo[{k}] {op} {m.min_len}):", indent)
                self.emit(fail, indent + 1)
        for m in match:
            k = self.list_index[m.list]
            for var, (side, off, width) in m.positions().items():
                item = next(i for i in m.items if not isinstance(i, ir.Rest) and i.var == var)
                if isinstance(item, ir.Tok):
                    slot = f"s.lo[{k}] + {off}" if side == "L" else f"s.hi[{k}] - {1 + off}"
                    self.emit(f"{names[var]} = s.buf[{k} * s.cap + {slot}]", indent)
                else:
                    start = f"s.lo[{k}] + {off}" if side == "L" else f"s.hi[{k}] - {off + 1}"
                    self.emit(f"{names['#' + var]} = {start}", indent)

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
        self.emit(f"return {_Expr(self, names).pred(t.guard)}", 1)
        self.emit()

    # ---- units: actions, or families of actions parameterised by position ---------------
    def _units(self):
        """The generated action functions: one unit per action, or for capacity-inf systems
        one unit per family shape (``skeleton``) whose numbers are affine in the indexes."""
        if not self.sys.unbounded:
            return [(a, None) for a in self.actions], None
        units, index = [], {}
        for a in self.actions:
            if len(a.indexes) > 2:
                raise KernelBuildError(f"{a.name}: families with more than two indexes are not supported")
            key = skeleton(a)
            if key not in index:
                index[key] = len(units)
                units.append((a, key))
        big = self.sys.actions_for(CHECK_TOKENS)
        for n in range(1, CHECK_TOKENS + 1):
            want = [a.name for a in big if max(a.indexes, default=0) <= n]
            if [a.name for a in self.sys.actions_for(n)] != want:
                raise KernelBuildError(f"{self.sys.name}: the actions for {n} tokens are not those of longer "
                                       "sentences that fit; the kernel cannot parameterise them")
        for a in big:
            if skeleton(a) not in index:
                raise KernelBuildError(f"{self.sys.name}: action {a.name} has a shape not seen on short sentences")
        return units, index

    def _unit_functions(self, u: str, action: ir.Action) -> None:
        """Per case: valid, apply, and where needed delta (incremental cost), penalties, arc_of."""
        reach_oracles = [o for o in self.sys.oracles if o.reach is not None]
        for c_ix, case in enumerate(action.cases):
            self._case_valid(u, c_ix, case)
            self._case_apply(u, c_ix, case)
            if self.classes is not None:
                self._case_delta(u, c_ix, case)
            for o_ix, oracle in enumerate(reach_oracles):
                preds = [p for name, p in oracle.penalties if name == action.name]
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
        if not self.sys.unbounded:
            for u, (action, _) in enumerate(self.units):
                self.emit(f"# ---- action {u}: {comment(action.name)} ----")
                self.origin_comment(action.origin, 0)
                self._unit_functions(str(u), action)
            return
        big = self.sys.actions_for(CHECK_TOKENS)
        for u, (action, key) in enumerate(self.units):
            members = [a for a in big if skeleton(a) == key]
            self.emit(f"# ---- family {u}: {comment(action.family or action.name)}, "
                      f"{'indexes ' + ', '.join(f'i{k}' for k in range(len(action.indexes))) if action.indexes else 'no indexes'} ----")
            self.origin_comment(action.origin, 0)
            self.out.extend(self._fitted_unit(str(u), members))

    def _fitted_unit(self, u: str, members: list[ir.Action]) -> list[str]:
        """The unit's functions with every number written as an affine function of the indexes."""
        texts = []
        for a in members:
            saved, self.out = self.out, []
            self._unit_functions(u, a)
            texts.append(self.out)
            self.out = saved
        shapes = {tuple(INT.sub("#", line) for line in t) for t in texts}
        if len(shapes) != 1:
            raise KernelBuildError(f"{self.sys.name}: the actions of family {members[0].family} differ in shape")
        shape = texts[0]
        numbers = [[[int(m.group()) for m in INT.finditer(line)] for line in t] for t in texts]
        idx = [a.indexes for a in members]
        out = []
        for li, line in enumerate(shape):
            pieces, last = [], 0
            for k, m in enumerate(INT.finditer(line)):
                values = [numbers[j][li][k] for j in range(len(members))]
                pieces.append(line[last:m.start()])
                pieces.append(affine(values, idx, self.sys.name))
                last = m.end()
            pieces.append(line[last:])
            out.append("".join(pieces))
        return out

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
        self._dispatch("cdef int arc_of(St* s, int a, int* h, int* d) noexcept nogil:",
                       "The labeled arc action a would build (1), or 0 (s not terminal).", arc_of, "return 0")
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
        self.emit(f"return {_Expr(self, names).pred(case.full_guard)}", 1)
        self.emit()

    def _case_apply(self, a_ix: str, c_ix: int, case: ir.Case) -> None:
        names = self._case_names(case)
        s = self.sys
        self.emit(f"cdef inline void apply_{a_ix}_{c_ix}(St* s, int label, int i0, int i1) noexcept nogil:")
        self._declare(names, 1, "i, sp, m")
        self._bind(case.match, names, 1, check_lengths=False)
        expr = _Expr(self, names)
        # arcs first, as the interpreter does
        for op in case.arcs:
            h, d = names[op.head], names[op.dep]
            lab = "label" if op.labeled else "-1"
            if s.multihead:
                self.emit(f"s.adj[{h} * s.ntok + {d}] = 1", 1)
                self.emit(f"s.adjlab[{h} * s.ntok + {d}] = {lab}", 1)
                self.emit(f"if s.head[{d}] < 0:", 1)
                self.emit(f"s.head[{d}] = {h}", 2)
                self.emit(f"s.lab[{d}] = {lab}", 2)
                continue
            if op.break_cycle:
                self.emit(f"if st_path(s, {d}, {h}):", 1)
                self.emit(f"s.head[{h}] = -1", 2)
                self.emit(f"s.lab[{h}] = -1", 2)
            self.emit(f"s.head[{d}] = {h}", 1)
            self.emit(f"s.lab[{d}] = {lab}", 1)
        self._rebuild(case, names)
        for st in case.sets:
            value = expr.pred(st.value)
            if st.var is None:
                self.emit(f"s.gflag[{self.gflag_index[st.flag]}] = {value}", 1)
            else:
                self.emit(f"s.tflag[{self.tflag_index[st.flag]} * s.ntok + {names[st.var]}] = {value}", 1)
        if self.classes is not None:
            touched = self._touched(case, names)
            if touched:
                self.emit("if s.gold != NULL:", 1)
                bits = self.classes.n_flag_bits
                for v in touched:
                    shift = self._class_shift(case, names, v)
                    var = next(k for k, n in names.items() if n == v)
                    flags_set = any(st.var == var and st.flag in self.classes.flags for st in case.sets)
                    if shift is not None:
                        self.emit(f"st_reclass_to(s, {v}, s.cls[{v}] + ({shift}))", 2)
                    elif self._hs_options(case, names, v) == [1, 2] and not flags_set:
                        # it got a head: gold (1) or not (2); list known, flags unchanged
                        w = self._where_after(case, names, v) + 1
                        hs = f"(1 if s.head[{v}] == s.gold[{v}] else 2)"
                        mask = (1 << bits) - 1
                        self.emit(f"st_reclass_to(s, {v}, ((({w} * 3 + {hs}) << {bits}) | (s.cls[{v}] & {mask})))",
                                  2)
                    else:
                        self.emit(f"st_reclass(s, {v})", 2)
        self.emit("pass", 1)
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

        # 1. save moving blocks and rests of cleared lists to scratch
        saved: dict[ir.Item, int] = {}
        self.emit("sp = 0", 1)
        for k, m in enumerate(case.match):
            for it in m.items:
                moving_block = isinstance(it, ir.Block) and it in used and not stays(k, it)
                foreign_rest = isinstance(it, ir.Rest) and plan[k] is None and it in used
                if not (moving_block or foreign_rest):
                    continue
                j = len(saved)
                if isinstance(it, ir.Block):
                    src, width = names["#" + it.var], str(int(it.length))
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
                        self.emit(f"s.where[{names[it.var]}] = -1", 1)
                elif isinstance(it, ir.Block):
                    b = names["#" + it.var]
                    self.emit(f"for i in range({b}, {b} + {int(it.length)}):", 1)
                    self.emit(f"s.where[s.buf[{k} * s.cap + i]] = -1", 2)
                elif plan[k] is None:
                    rest_lo, rest_hi = self._rest_bounds(k, m)
                    self.emit(f"for i in range({rest_lo}, {rest_hi}):", 1)
                    self.emit(f"s.where[s.buf[{k} * s.cap + i]] = -1", 2)
        # 3. trim moving ends, clear lists that do not keep their rest
        for k, m in enumerate(case.match):
            if plan[k] is None:
                self.emit(f"st_clear(s, {k})", 1)
                continue
            r, _, left_keep, right_keep = plan[k]
            left = sum(ir.item_width(i) for i in m.items[:r - left_keep])
            right = sum(ir.item_width(i) for i in m.items[r + 1 + right_keep:])
            if left:
                self.emit(f"s.lo[{k}] += {left}", 1)
            if right:
                self.emit(f"s.hi[{k}] -= {right}", 1)

        # 4. push the results around what stayed
        def push(k: int, it: ir.Item, front: bool) -> None:
            fn = "st_push_front" if front else "st_push_back"
            if isinstance(it, ir.Tok):
                self.emit(f"{fn}(s, {k}, {names[it.var]})", 1)
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

    # ---- oracles -------------------------------------------------------------------
    def _classes_and_losses(self) -> None:
        """Class tables (incremental oracles) and the loss functions; before the actions use them."""
        if self.classes is not None:
            self._class_function()
        else:
            self.emit("cdef inline int cls_of(const St* s, int t) noexcept nogil:")
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
            penalised = {name for name, _ in oracle.penalties}
            inc = self._is_incremental(ol)
            for u, (action, _) in enumerate(self.units):
                self.emit(f"cdef inline int cost_{ol}_{u}(St* s, St* tmp, int base, int i0, int i1) noexcept nogil:")
                self.emit("cdef int c", 1)
                for c_ix in range(len(action.cases)):
                    self.emit(f"if valid_{u}_{c_ix}(s, {args}):", 1)
                    if inc:
                        self.emit(f"c = delta_{u}_{c_ix}(s, {args})", 2)
                    else:
                        self.emit("st_copy_into(tmp, s)", 2)
                        self.emit(f"apply_{u}_{c_ix}(tmp, -1, {args})", 2)
                        self.emit(f"c = loss_{ol}(tmp) - base", 2)
                    if action.name in penalised:
                        self.emit(f"if c < 1 and pen_{o_ix}_{u}_{c_ix}(s, {args}):", 2)
                        self.emit("c = 1", 3)
                    self.emit("return c", 2)
                self.emit("return ILLEGAL", 1)
                self.emit()
            self.emit(f"cdef inline void all_costs_{ol}(St* s, St* tmp, int* out) noexcept nogil:")
            self.emit(f"cdef int base = {'0' if inc else f'loss_{ol}(s)'}", 1)
            if self.sys.unbounded:
                self.emit("cdef int a, g, i0, i1", 1)
                self.emit("for a in range(s.nact):", 1)
                self.emit("g = s.atab[3 * a]", 2)
                self.emit("i0 = s.atab[3 * a + 1]", 2)
                self.emit("i1 = s.atab[3 * a + 2]", 2)
                for u in range(len(self.units)):
                    self.emit(f"{'if' if u == 0 else 'elif'} g == {u}:", 2)
                    self.emit(f"out[a] = cost_{ol}_{u}(s, tmp, base, i0, i1)", 3)
            else:
                # locals first: a store through out could alias the state and force reloads
                n = len(self.units)
                self.emit("cdef int " + ", ".join(f"c{a} = cost_{ol}_{a}(s, tmp, base, 0, 0)" for a in range(n)), 1)
                for a_ix in range(n):
                    self.emit(f"out[{a_ix}] = c{a_ix}", 1)
            self.emit()
        self.emit("cdef inline void all_costs_nt(St* s, St* tmp, int ol, int* out) noexcept nogil:")
        self.emit('"""Cost of every action under the attached gold tree (s not terminal; ILLEGAL: not legal)."""', 1)
        for ol in range(len(self.losses)):
            self.emit(f"if ol == {ol}:", 1)
            self.emit(f"all_costs_{ol}(s, tmp, out)", 2)
        self.emit("pass", 1)
        self.emit()

    def _class_function(self) -> None:
        cl = self.classes
        self.emit("cdef inline int cls_of(const St* s, int t) noexcept nogil:")
        self.emit('"""The token class the incremental oracle reads: list, head status, flags."""', 1)
        self.emit("cdef int h = s.head[t]", 1)
        self.emit("cdef int c = (s.where[t] + 1) * 3 + (0 if h < 0 else (1 if h == s.gold[t] else 2))", 1)
        for f in cl.flags:
            self.emit(f"c = c * 2 + (s.tflag[{self.tflag_index[f]} * s.ntok + t] != 0)", 1)
        if cl.uses_root:
            self.emit("c = c * 2 + (t == s.root)", 1)
        self.emit("return c", 1)
        self.emit()
        self.emit("cdef inline void st_reclass(St* s, int t) noexcept nogil:")
        self.emit('"""Refresh the class of t and its place in its gold head\'s dependent counts."""', 1)
        self.emit("cdef int old = s.cls[t], new = cls_of(s, t), g = s.gold[t]", 1)
        self.emit("if old != new:", 1)
        self.emit("s.cls[t] = new", 2)
        self.emit("if g >= 0:", 2)
        dr = " + (g < t) * NCLS" if cl.n_dir == 2 else ""
        self.emit(f"s.cnt[g * NCNT{dr} + old] -= 1", 3)
        self.emit(f"s.cnt[g * NCNT{dr} + new] += 1", 3)
        self.emit()
        self.emit("cdef inline void st_reclass_to(St* s, int t, int new) noexcept nogil:")
        self.emit('"""t\'s new class is known (the sentinel count row absorbs tokens without gold head)."""', 1)
        self.emit("cdef int old = s.cls[t], g = s.gpar[t]", 1)
        self.emit("s.cls[t] = new", 1)
        self.emit(f"s.cnt[g * NCNT{dr} + old] -= 1", 1)
        self.emit(f"s.cnt[g * NCNT{dr} + new] += 1", 1)
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

    def _table_init(self, name: str, values: list[int]) -> None:
        self.emit(f"{name}[:] = [")
        for start in range(0, len(values), 32):
            self.emit(", ".join(map(str, values[start:start + 32])) + ",", 1)
        self.emit("]")

    def _loss_function(self, ol: int, oracle: ir.Oracle, loss: ir.LossExpr) -> None:
        positive, hv, dv, pred = oracle.reach
        names = {hv: "h", dv: "d"}
        expr = _Expr(self, names)
        need_cycles = any(t != "unreachable" for t in loss.terms)
        self.emit(f"cdef int loss_{ol}(St* s) noexcept nogil:")
        self.emit(f"# oracle {comment(oracle.name)}, loss {comment(loss.name)} "
                  f"({'+'.join(loss.terms)}, bound {loss.bound})", 1)
        self.origin_comment(oracle.origin, 1)
        self.emit("cdef int d, h, g, lost = 0, ok, cyc = 0, prob = 0", 1)
        self.emit("cdef unsigned char* mark = <unsigned char*>s.scratch", 1)
        if need_cycles:
            self.emit("memset(mark, 0, s.ntok)", 1)
        self.emit("for d in range(1, s.n + 1):", 1)
        self.emit("g = s.gold[d]", 2)
        self.emit("if g < 0:", 2)
        gone = "s.where[d] < 0"
        cond = "1" if (self.monotonic or loss.bound == "upper") else gone
        self.emit(f"if st_has_head(s, d) and ({cond}):", 3)
        self.emit("lost += 1", 4)
        self.emit("continue", 3)
        self.emit("if st_arc(s, g, d):", 2)
        self.emit("continue", 3)
        self.emit("h = g", 2)
        self.emit(f"ok = {expr.pred(pred)}", 2)
        self.emit(f"if {'not ok' if positive else 'ok'}:", 2)
        self.emit("lost += 1", 3)
        if need_cycles:
            self.emit("mark[d] = 1", 3)
        if need_cycles:
            self.emit("st_cycles(s, mark, &cyc, &prob)", 1)
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
        names = self._case_names(case)
        touched = self._touched(case, names)
        self.emit(f"cdef inline int delta_{u}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self._declare(names, 1, "delta = 0, g, pb, pa, base")
        if touched:
            self.emit("cdef int " + ", ".join(f"cb{j}, ca{j}, hs{j}" for j in range(len(touched))), 1)
        self._bind(case.match, names, 1, check_lengths=False)
        for j, v in enumerate(touched):
            self.emit(f"cb{j} = s.cls[{v}]", 1)
            shift = self._class_shift(case, names, v)
            if shift is not None:  # only the list changes: a constant step between classes
                self.emit(f"ca{j} = cb{j} + ({shift})", 1)
                continue
            self.emit(f"hs{j} = {self._hs_after(case, names, v)}", 1)
            self.emit(f"ca{j} = {self._class_after(case, names, v, f'hs{j}')}", 1)
        for j, v in enumerate(touched):
            # the arc from the gold head; "no gold head" is the sentinel class NCLS, whose
            # row holds the gold root word's own term (the root token's is always 0)
            self.emit(f"g = s.gpar[{v}]", 1)
            self.emit("pb = s.cls[g]", 1)
            others = [(jj, vv) for jj, vv in enumerate(touched) if jj != j]
            dr = f" + (g < {v})" if cl.n_dir == 2 else ""
            shift = self._class_shift(case, names, v)
            arc_dep = self._hs_options(case, names, v) == [1, 2] and not any(
                st.var == next(k for k, n in names.items() if n == v) and st.flag in cl.flags for st in case.sets)
            if not others and shift is not None and cl.n_dir == 1:
                # one lookup: the difference is tabulated per (gold head class, class before)
                table = self._shift_table(shift)
                self.emit(f"delta += {table}[pb * NCLS + cb{j}]", 1)
            elif not others and arc_dep and cl.n_dir == 1:
                # the token gets a head: tabulated per (gold head class, class before, gold head or not)
                table = self._arc_table(self._where_after(case, names, v))
                self.emit(f"delta += {table}[(pb * NCLS + cb{j}) * 2 + hs{j} - 1]", 1)
            else:
                self.emit("pa = pb", 1)
                for jj, vv in others:
                    self.emit(f"if g == {vv}:", 1)
                    self.emit(f"pa = ca{jj}", 2)
                self.emit(f"delta += UTAB[(pa * NCLS + ca{j}) * NDIR{dr}] - UTAB[(pb * NCLS + cb{j}) * NDIR{dr}]", 1)
            # gold dependents, by class: unrolled over the classes t can have here
            self.emit(f"base = {v} * NCNT", 1)
            self._children_switch(case, names, v, j)
            # a dependent that is touched too was counted with its old class: its own term rules
            for jj, vv in enumerate(touched):
                if jj == j:
                    continue
                dr = f" + ({v} < {vv})" if cl.n_dir == 2 else ""
                self.emit(f"if s.gold[{vv}] == {v}:", 1)
                self.emit(f"delta -= UTAB[(ca{j} * NCLS + cb{jj}) * NDIR{dr}] - "
                          f"UTAB[(cb{j} * NCLS + cb{jj}) * NDIR{dr}]", 2)
        self.emit("return delta", 1)
        self.emit()

    def _case_penalty(self, o_ix: int, u: str, c_ix: int, case: ir.Case, preds: list[ir.Pred]) -> None:
        names = self._case_names(case)
        self.emit(f"cdef inline bint pen_{o_ix}_{u}_{c_ix}(St* s, int i0, int i1) noexcept nogil:")
        self.emit('"""A penalty rule marks the action as not optimal."""', 1)
        self._declare(names, 1)
        self._bind(case.match, names, 1, check_lengths=False)
        expr = _Expr(self, names)
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
                            idx = f"base + {dr * cl.count + k}"
                            terms.append(f"s.cnt[{idx}]" if coef == 1 else f"{coef} * s.cnt[{idx}]")
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
        head = f"s.head[{v}]"
        for op in case.arcs:
            if op.break_cycle and op.head == var:
                head = f"(-1 if st_path(s, {names[op.dep]}, {v}) else {head})"
        for op in case.arcs:
            if op.dep == var:
                head = names[op.head]
        return f"(0 if {head} < 0 else (1 if {head} == s.gold[{v}] else 2))"

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
        """A C expression for the class of bound token ``v`` after the case applies."""
        cl = self.classes
        var = next(k for k, n in names.items() if n == v)
        where = next((k for k, items in enumerate(case.result) for it in items
                      if isinstance(it, ir.Tok) and it.var == var), -1)
        expr = f"({where + 1} * 3 + {hs})"
        for f in cl.flags:
            value = f"(s.tflag[{self.tflag_index[f]} * s.ntok + {v}] != 0)"
            for st in case.sets:
                if st.var == var and st.flag == f:
                    value = "1" if st.value.value else "0"
            expr = f"({expr} * 2 + {value})"
        if cl.uses_root:
            expr = f"({expr} * 2 + ({v} == s.root))"
        return expr


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text.lower())


def generate(system: ir.System) -> Generated:
    """The kernel source for ``system`` (see :class:`KernelGen`)."""
    return KernelGen(system).generate()
