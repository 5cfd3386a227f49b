"""The unlabeled oracle pass on a record per token, rendered from the IR (``FAST_OPASS``).

``oracle_pass`` spends its time in the step: the generic one (``oracle_step_0``) reads the
state struct's parallel arrays and its list bounds through ``s``, and the C compiler keeps
half of them on the stack.  For incremental kernels this module renders a second pass,
``fast_sentence``, private to ``oracle_pass``: one record per token (head, gold head
``gpar``, class, int16 dependent counts), the list ends as pointers in locals, the
end tokens the rules read cached in locals, and one step budget (steps left to the limit,
log slots left, free slots at every growing list end) checked once per refill instead of
three checks a step.  The struct and every other path are unchanged.

The step is the generic step's: the same actions in the same order, each case's binding,
guard, cost and effect rendered by the same emitters (:mod:`.emit_state`,
:mod:`.emit_actions`, :mod:`.emit_costs`) through :class:`~.emit_view.RecordView` instead
of the struct's view.  What the record layout does not hold (reads inside a list,
positions, flags, paths, saved blocks, penalties, the general delta, two count directions,
multi-case actions) raises :class:`~.emit_view.NotOnRecords` on the way, and the kernel
keeps the generic pass only (``FAST_OPASS = 0``).  ``tests/test_fast_oracle_pass.py``
compares the two passes on random trees for every packaged system that gets this one.
"""

from __future__ import annotations

from .. import ir
from .emit_view import NotOnRecords, RecordView

__all__ = ["fast_opass"]


def fast_opass(gen) -> list[str]:
    """Cython lines for the kernel of ``gen`` (a :class:`~.codegen.KernelGen` that has
    rendered its actions and costs): ``FAST_OPASS`` and the functions ``oracle_pass`` calls."""
    try:
        _kind(gen)
        # twice: the first rendering finds which list ends grow, which the second needs
        view = RecordView()
        _render(gen, view)
        view.growth_front_possible = view.growth.get((0, "L"), 0) > 0
        steps, growth, terminal = _render(gen, view)
        return _loop(gen, steps, growth, terminal)
    except NotOnRecords:
        return _stub()


def _kind(gen) -> None:
    """The kernels this pass is for: incremental costs on plain classes, fixed actions."""
    s = gen.sys
    cl = gen.classes
    if cl is None or cl.general or not gen._is_incremental(0) or s.unbounded or s.multihead:
        raise NotOnRecords("the kernel's kind")
    if gen._uses_pos() or cl.n_dir != 1 or cl.count >= 255:
        raise NotOnRecords("positions, count directions or many classes")
    if gen.losses[0][0].penalties:
        raise NotOnRecords("penalties")
    if any(len(a.cases) != 1 for a, _ in gen.units):
        raise NotOnRecords("an action of several cases")


def _terminal_nonempty(gen, view: RecordView) -> tuple[str, frozenset]:
    """The terminal test on records, and the lists it proves non-empty while it fails."""
    t = gen.sys.terminal
    if ir.pred_vars(t.guard):  # a loop test has no place to bind them
        raise NotOnRecords("a terminal guard reading tokens")
    conds, tested = [], []
    for m in t.match:
        k = gen.list_index[m.list]
        op = ">=" if m.has_rest else "=="
        if not m.has_rest or not isinstance(m.min_len, int) or m.min_len > 0:
            conds.append(f"{view.length(k)} {op} {m.min_len}")
            tested.append(m)
    guard = gen.expr({}).pred(t.guard)
    if guard != "1":
        conds.append(guard)
    if not conds:
        raise NotOnRecords("a terminal rule that always holds")
    nonempty = frozenset()
    if len(conds) == 1 and guard == "1" and not tested[0].has_rest and not tested[0].items:
        # terminal exactly when that list is empty: inside the loop it is not
        nonempty = frozenset({gen.list_index[tested[0].list]})
    return " and ".join(f"({c})" for c in conds), nonempty


def _render(gen, view: RecordView) -> tuple[list[str], dict, str]:
    """The step (every action tried in order until one costs 0, applied; ``best`` its index,
    -1 when none), the growth of each list end a step can make, and the terminal test.  (A
    ``continue`` after each action instead of the ``best`` tests measured 4% slower.)"""
    saved = gen.out, gen.view, gen.indent_base
    gen.out, gen.view = [], view
    growth: dict[tuple[int, str], int] = {}
    try:
        terminal, nonempty = _terminal_nonempty(gen, view)
        gen.emit("best = -1")
        for u, (action, _) in enumerate(gen.units):
            case = action.cases[0]
            names = gen._case_names(case)
            gen.emit(f"# action {u}: the generic step's valid_{u}_0, delta_{u}_0, apply_{u}_0")
            gen.emit("if best < 0:")
            ind = gen._bind(case.match, names, 1, nest=True, nonempty=nonempty)
            guard = gen.expr(names).pred(case.full_guard)
            if guard != "1":
                gen.emit(f"if {guard}:", ind)
                ind += 1
            gen.emit("delta = 0", ind)
            gen.indent_base = ind - 1
            gen._delta_body(case, names)
            gen.indent_base = 0
            gen.emit("if delta == 0:", ind)
            view.growth = {}
            gen.indent_base = ind
            gen._apply_body(case, names)
            gen.indent_base = 0
            for key, n in view.growth.items():
                growth[key] = max(growth.get(key, 0), n)
            gen.emit(f"best = {u}", ind + 1)
        return gen.out, growth, terminal
    finally:
        gen.out, gen.view, gen.indent_base = saved


def _setup(gen, e) -> None:
    """The initial configuration (as ``st_start``) and the gold tree's classes and counts (as
    ``gold_fill`` and ``gold_attach``), in records and the struct's list buffers: a token's
    class at the start follows from its list alone (no head yet, no flags, no ends)."""
    s = gen.sys
    cl = gen.classes

    def cls(where: int, is_root: bool) -> int:
        c = (where + 1) * 3  # head status 0: no head
        return c * 2 + int(is_root) if cl.uses_root else c

    root = {"left": "0", "right": "n + 1", "none": "-1"}[s.root]
    e(f"    cdef int root = {root}")
    e("    cdef int groot = root, i = 0")
    e("    stp.root = root")
    assert cls(-1, False) == 0  # the class of a token in no list, as memset leaves it
    e("    memset(R, 0, (ntok + 1) * sizeof(FRec))  # the counts; every token in no list")
    for t in ("0", "n + 1", "ntok"):  # no head, no gold head; the words get theirs below
        e(f"    R[{t}].head = -1")
        e(f"    R[{t}].gpar = ntok")
    e("    R[ntok].cls = NCLS")
    e("    R[ntok].gpar = ntok")
    if s.root != "none":
        e(f"    R[root].cls = {cls(-1, True)}")

    def size(items) -> str:
        roots = sum(1 for it in items if it == "root") if s.root != "none" else 0
        return f"({'n' if 'words' in items else '0'} + {roots})"

    def place(items, k_of) -> None:
        """Push the items' tokens in order; ``k_of(ind)`` emits the list choice at ``ind``."""
        for it in items:
            if it == "words":
                e("    for t in range(1, n + 1):")
                k_of("t", False, "        ")
            elif it == "root" and s.root != "none":
                k_of("root", True, "    ")

    def push(k: int, tok: str, is_root: bool, ind: str) -> None:
        e(f"{ind}hi{k}[0] = {tok}")
        e(f"{ind}hi{k} += 1")
        e(f"{ind}R[{tok}].cls = {cls(k, is_root)}")

    if s.initial.split is None:  # each list as st_place: centred in its buffer
        for k, items in enumerate(s.initial.lists):
            e(f"    cdef int* lo{k} = stp.buf + {k} * stp.cap + (stp.cap - {size(items)}) // 2")
            e(f"    cdef int* hi{k} = lo{k}")
            place(items, lambda tok, r, ind, k=k: push(k, tok, r, ind))
    else:  # the whole sequence, its first ``split`` tokens in list 0 and the rest in list 1
        seq = [it for items in s.initial.lists for it in items]
        split = int(s.initial.split)
        e(f"    cdef int m = {size(seq)}")
        e(f"    cdef int k0 = {split} if m > {split} else m")
        e("    cdef int* lo0 = stp.buf + (stp.cap - k0) // 2")
        e("    cdef int* hi0 = lo0")
        e("    cdef int* lo1 = stp.buf + stp.cap + (stp.cap - (m - k0)) // 2")
        e("    cdef int* hi1 = lo1")

        def either(tok: str, is_root: bool, ind: str) -> None:
            e(f"{ind}if i < k0:")
            push(0, tok, is_root, ind + "    ")
            e(f"{ind}else:")
            push(1, tok, is_root, ind + "    ")
            e(f"{ind}i += 1")

        place(seq, either)
    placed = 2 if s.initial.split is not None else len(s.initial.lists)
    for k in range(placed, max(len(s.lists), 1)):
        e(f"    cdef int* lo{k} = stp.buf + {k} * stp.cap + stp.cap // 2")
        e(f"    cdef int* hi{k} = lo{k}")
    e("    for t in range(1, n + 1):  # no head; the gold heads (as gold_fill), counted by class")
    e("        R[t].head = -1")
    e("        h = gh[t - 1]")
    e("        if h < 0 or h > n:")
    e("            return -1")
    e("        g = groot if h == 0 else h")
    e("        if g >= 0:")
    e("            R[t].gpar = g")
    e("            R[g].cnt[grp_of(R[t].cls)] += 1")
    e("        else:")
    e("            R[t].gpar = ntok")
    for k in range(max(len(s.lists), 1)):
        e(f"    cdef int* b{k} = stp.buf + {k} * stp.cap")
        e(f"    cdef int* end{k} = b{k} + stp.cap")
        e(f"    cdef int top{k} = (hi{k} - 1)[0] if hi{k} > lo{k} else -1")
        e(f"    cdef int front{k} = lo{k}[0] if lo{k} < hi{k} else -1")


def _stub() -> list[str]:
    return [
        "cdef enum:",
        "    FAST_OPASS = 0",
        "",
        "cdef inline int fast_head(void* rmem, int t) noexcept nogil:",
        "    return -1",
        "",
        "cdef size_t fast_rec_size(int n) noexcept nogil:",
        "    return 0",
        "",
        "cdef Py_ssize_t fast_sentence(St* stp, void* rmem, int n, const int* gh, int limit,",
        "                              int* log, Py_ssize_t T, Py_ssize_t cap, int* stuck) noexcept nogil:",
        "    return T",
        "",
    ]


def _loop(gen, steps: list[str], growth: dict, terminal: str) -> list[str]:
    nl = max(len(gen.sys.lists), 1)
    ncnt = gen._dep_groups()[1]
    n_names = max((len(gen._case_names(a.cases[0])) for a, _ in gen.units), default=0)
    n_touched = max((len(gen._touched(a.cases[0], gen._case_names(a.cases[0]))) for a, _ in gen.units), default=0)
    o: list[str] = []
    e = o.append
    e("# ---- the unlabeled oracle pass on a record per token (see emit_opass) ----")
    e("cdef enum:")
    e("    FAST_OPASS = 1")
    e("")
    e("cdef struct FRec:")
    e("    int head")
    e("    int gpar")
    e("    unsigned char cls")
    e("    short cnt[NCNT]")
    size = 10 + 2 * ncnt  # with the byte of padding after cls
    target = 1 << (size - 1).bit_length() if size <= 64 else (size + 3) // 4 * 4
    if target > size:  # a power of two (records aligned to 64 bytes measured slower: see R below)
        e(f"    char pad[{target - size}]")
    e("")
    e("cdef inline int fast_head(void* rmem, int t) noexcept nogil:")
    e("    return (<FRec*>rmem)[t].head")
    e("")
    e("cdef size_t fast_rec_size(int n) noexcept nogil:")
    e("    return (n + 3) * sizeof(FRec)")
    e("")
    e("cdef Py_ssize_t fast_sentence(St* stp, void* rmem, int n, const int* gh, int limit,")
    e("                              int* log, Py_ssize_t T, Py_ssize_t cap, int* stuck) noexcept nogil:")
    e('    """The unlabeled oracle pass over one sentence (placed in stp, whose start it lays out; gh')
    e("    its gold heads, CoNLL-U numbering), exactly as st_start, gold_fill, gold_attach and")
    e("    follow_oracle_nt, on records: returns the new T (-1: a gold head out of range, as")
    e("    gold_fill), stuck[0] as there; the final heads are read with fast_head.\"\"\"")
    e("    cdef int ntok = n + 2, t, g, h")
    e("    cdef FRec* R = <FRec*>rmem  # (aligned to 64 bytes it measured 10% slower)")
    e("    cdef FRec* rb")
    e("    cdef FRec* rg")
    e("    cdef int delta, pb, pa, new, best")
    if n_names:
        e(f"    cdef int {', '.join(f'v{j}' for j in range(n_names))}")
        e(f"    cdef int {', '.join(f'o_v{j}, g_v{j}' for j in range(n_names))}")
    if n_touched:
        e(f"    cdef int {', '.join(f'cb{j}, ca{j}, hs{j}' for j in range(n_touched))}")
    _setup(gen, e)
    e("    cdef int* lp = log + T")
    e("    cdef int* lend = log + cap")
    e("    cdef int* llim = lp + limit")
    e("    cdef Py_ssize_t budget = 0, room")
    e("    cdef bint full = 0")
    e("    stuck[0] = 0")
    e("    if n == 0:  # terminal at once, as st_terminal says")
    e("        return T")
    # two copies of the loop: while the log has room (it bounds the budget), then, once it
    # is full, one that counts the steps without writing them
    for full in (False, True):
        ind = "    "
        if full:
            e("    if full:")
            ind = "        "
        e(f"{ind}while not ({terminal}):")
        e(f"{ind}    if budget <= 0:")
        e(f"{ind}        if lp >= llim:")
        e(f"{ind}            stuck[0] = 1")
        e(f"{ind}            break")
        e(f"{ind}        budget = llim - lp")
        if not full:
            e(f"{ind}        if lp >= lend:")
            e(f"{ind}            full = 1")
            e(f"{ind}            break")
            e(f"{ind}        if lend - lp < budget:")
            e(f"{ind}            budget = lend - lp")
        for (k, side), grow in sorted(growth.items()):
            room = f"end{k} - hi{k}" if side == "R" else f"lo{k} - b{k}"
            e(f"{ind}        if {room} < {grow}:")
            e(f"{ind}            stp.lo[{k}] = lo{k} - b{k}")
            e(f"{ind}            stp.hi[{k}] = hi{k} - b{k}")
            e(f"{ind}            st_recenter(stp, {k})")
            e(f"{ind}            lo{k} = b{k} + stp.lo[{k}]")
            e(f"{ind}            hi{k} = b{k} + stp.hi[{k}]")
            e(f"{ind}        room = ({room}) // {grow}")
            e(f"{ind}        if room < budget:")
            e(f"{ind}            budget = room")
        e(f"{ind}        if budget < 1:")
        e(f"{ind}            budget = 1  # as the generic pass, which writes past a full list")
        e(f"{ind}    budget -= 1")
        for line in steps:
            e(f"{ind}    " + line if line else "")
        e(f"{ind}    if best < 0:")
        e(f"{ind}        stuck[0] = 1")
        e(f"{ind}        break")
        if not full:
            e(f"{ind}    lp[0] = best")
        e(f"{ind}    lp += 1")
    e("    return lp - log")
    e("")
    return o
