
# ---- Python-facing API and batch operations (generic; included by every kernel) ----

from libc.stdint cimport int64_t
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE


# Arrays cross the boundary as numpy arrays (any C-contiguous buffer), each checked here
# for its item type and size before the kernel reads it through a raw pointer.  (Typed
# memoryviews would do the same at three times the generated C and its compile time.)

cdef void* array_data(object a, str what, str formats, int itemsize, Py_ssize_t need,
                      bint writable) except NULL:
    """The data of the C-contiguous array ``a``: items of ``itemsize`` bytes in one of the
    struct ``formats``, at least ``need`` of them.  The caller keeps ``a`` alive while it
    uses the pointer."""
    cdef Py_buffer view
    cdef void* data
    cdef int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (PyBUF_WRITABLE if writable else 0)
    try:
        PyObject_GetBuffer(a, &view, flags)
    except (BufferError, TypeError, ValueError) as exc:
        raise ValueError(f"{what}: expected a C-contiguous{' writable' if writable else ''} array ({exc})") from None
    try:
        fmt = (view.format or b"B").decode("ascii").lstrip("@=")
        if view.itemsize != itemsize or fmt not in formats:
            raise ValueError(f"{what}: expected {8 * itemsize}-bit items, got format {fmt!r} "
                             f"of {view.itemsize} bytes")
        if view.len // itemsize < need:
            raise ValueError(f"{what}: expected at least {need} items, got {view.len // itemsize}")
        data = view.buf
    finally:
        PyBuffer_Release(&view)
    if data == NULL:
        raise ValueError(f"{what}: no data")
    return data


cdef inline int* int32_data(object a, str what, Py_ssize_t need, bint writable=False) except NULL:
    return <int*>array_data(a, what, "il", 4, need, writable)


cdef inline int64_t* int64_data(object a, str what, Py_ssize_t need) except NULL:
    return <int64_t*>array_data(a, what, "lq", 8, need, False)


cdef inline unsigned char* uint8_data(object a, str what, Py_ssize_t need, bint writable=False) except NULL:
    return <unsigned char*>array_data(a, what, "B", 1, need, writable)

cdef int gold_fill(int n, const int* heads, const int* labels, int* blk) noexcept nogil:
    """Lay out gold heads (CoNLL-U numbering) in ``blk`` (3 (n + 2) ints): gold heads (root
    id for 0; -1: none), labels, and the gold head or the sentinel slot n + 2 (``gpar``).
    -1 when a head is out of range."""
    cdef int ntok = n + 2, t, d, h, g
    cdef int root = 0 if ROOT_KIND == 0 else (n + 1 if ROOT_KIND == 1 else -1)
    cdef int* gold = blk
    cdef int* glab = blk + ntok
    cdef int* gpar = blk + 2 * ntok
    gold[0] = -1
    gold[ntok - 1] = -1
    glab[0] = -1
    glab[ntok - 1] = -1
    gpar[0] = ntok
    gpar[ntok - 1] = ntok
    for d in range(1, n + 1):
        h = heads[d - 1]
        if h < 0 or h > n:
            return -1
        g = root if h == 0 else h
        gold[d] = g
        gpar[d] = g if g >= 0 else ntok
        glab[d] = labels[d - 1] if labels != NULL else -1
    return 0


cdef bint gold_is_acyclic(St* s) noexcept nogil:
    """Whether following gold heads from any token never comes back to it (work area: ntok)."""
    cdef int nt = s.ntok, t, x
    cdef int* walk = s.work  # 0: not reached; w + 1: reached by the walk from w
    memset(walk, 0, nt * sizeof(int))
    for t in range(nt):
        x = t
        while 0 <= x < nt and walk[x] == 0:
            walk[x] = t + 1
            x = s.gold[x]
        if 0 <= x < nt and walk[x] == t + 1:
            return 0
    return 1


cdef void gold_attach(St* s, const int* blk) noexcept nogil:
    cdef int t, ntok = s.ntok, g, c
    s.gold = blk
    s.glab = blk + ntok
    s.gpar = blk + 2 * ntok
    if USES_CYCLES:
        s.gold_acyclic = gold_is_acyclic(s)
    if INCREMENTAL:
        memset(s.cnt, 0, NCNT * (ntok + 1) * sizeof(int))
        s.cls[ntok] = NCLS  # the sentinel class of "no gold head"
        for t in range(ntok):
            c = cls_of(s, t)
            s.cls[t] = c
            g = s.gold[t]
            if g >= 0:
                s.cnt[g * NCNT + (NGRP if NDIR == 2 and g < t else 0) + grp_of(c)] += 1


cdef void all_costs(St* s, St* tmp, int ol, int* out) noexcept nogil:
    """Cost of every action under the attached gold tree (ILLEGAL: not legal)."""
    cdef int a
    if st_terminal(s):
        for a in range(s.nact):
            out[a] = ILLEGAL
        return
    all_costs_nt(s, tmp, ol, out)


cdef int out_head(const St* s, int d) noexcept nogil:
    cdef int h = s.head[d]
    if h < 0:
        return -1
    return 0 if h == s.root else h


cdef class KGold:
    """Gold heads (and label ids) of one sentence, laid out for the kernel."""
    cdef int* blk
    cdef readonly int n

    def __cinit__(self, heads, labels=None):
        cdef int n = len(heads), d
        cdef int* hs = <int*>malloc(sizeof(int) * (n + 1))
        cdef int* ls = NULL
        self.n = n
        self.blk = <int*>malloc(sizeof(int) * (3 * (n + 2) + 1))
        if hs == NULL or self.blk == NULL:
            free(hs)
            raise MemoryError(f"cannot allocate the gold tree of a sentence of {n} words")
        if labels is not None:
            ls = <int*>malloc(sizeof(int) * (n + 1))
        for d in range(n):
            hs[d] = heads[d]
            if ls != NULL:
                ls[d] = labels[d]
        d = gold_fill(n, hs, ls, self.blk)
        free(hs)
        free(ls)
        if d < 0:
            raise ValueError("a gold head is out of range")

    def __dealloc__(self):
        free(self.blk)


cdef class KState:
    """A configuration held in C memory (see the wrapper in tsdsl.kernels.compiled)."""
    cdef St s
    cdef KGold gold
    cdef object actions  # capacity inf: keeps the action table s.atab points into alive

    def __dealloc__(self):
        free(self.s.mem)

    @property
    def n(self):
        return self.s.n


def new_state(int n):
    cdef KState st = KState.__new__(KState)
    cdef int r
    if n < 0:
        raise ValueError("a sentence cannot have a negative length")
    r = st_init(&st.s, n)
    if r < 0:
        raise MemoryError(f"cannot allocate a configuration of {n} words ({st_size(n):,} bytes)")
    return st


def copy_state(KState st not None):
    cdef KState out = KState.__new__(KState)
    if st_copy(&out.s, &st.s) < 0:
        raise MemoryError(f"cannot copy a configuration of {st.s.n} words ({st.s.size:,} bytes)")
    out.gold = st.gold
    out.actions = st.actions
    return out


def set_actions(KState st not None, object table, int nact):
    """Capacity-inf kernels: the (unit, i0, i1) int32 triples of this sentence's actions."""
    st.s.atab = int32_data(table, "action table", 3 * nact)
    st.actions = table  # keeps the table alive with the state
    st.s.nact = nact


def n_actions(KState st not None):
    return st.s.nact


def attach_gold(KState st not None, KGold gold not None):
    if gold.n != st.s.n:
        raise ValueError(f"gold tree has {gold.n} words, the configuration {st.s.n}")
    st.gold = gold
    gold_attach(&st.s, gold.blk)


def is_terminal(KState st not None):
    return bool(st_terminal(&st.s))


def legal_mask(KState st not None, object mask):
    """Fill the uint8 array ``mask`` (one slot per action) with 1 where an action is legal."""
    cdef int a, count = 0
    cdef St* s = &st.s
    cdef unsigned char* out = uint8_data(mask, "legal mask", s.nact, True)
    with nogil:
        if st_terminal(s):
            for a in range(s.nact):
                out[a] = 0
        else:
            for a in range(s.nact):
                out[a] = valid_nt(s, a)
                count += out[a]
    return count


def apply(KState st not None, int a, int label):
    """0 when applied; -1 not legal; -2 terminal; -3 no such action."""
    cdef int r
    if a < 0 or a >= st.s.nact:
        return -3
    with nogil:
        if st_terminal(&st.s):
            r = -2
        else:
            r = apply_nt(&st.s, a, label)
    return r


def run(KState st not None, object action_ids, object label_ids, Py_ssize_t m):
    """Apply m actions (int32 ids; label_ids None or m int32 label ids); returns how many
    applied (it stops at the first illegal one)."""
    cdef Py_ssize_t i
    cdef int done = 0, a
    cdef const int* actions = int32_data(action_ids, "actions", m)
    cdef const int* labels = NULL if label_ids is None else int32_data(label_ids, "labels", m)
    cdef bint lab = labels != NULL
    with nogil:
        for i in range(m):
            a = actions[i]
            if a < 0 or a >= st.s.nact or st_terminal(&st.s):
                break
            if apply_nt(&st.s, a, labels[i] if lab else -1) < 0:
                break
            done += 1
    return done


def costs(KState st not None, int ol, object out):
    """Cost of every action under the attached gold tree, by loss index ol (ILLEGAL: not legal),
    into the int32 array ``out`` (one slot per action)."""
    cdef St tmp
    cdef int* row = int32_data(out, "costs", st.s.nact, True)
    if st.gold is None:
        raise ValueError("no gold tree attached")
    if ol < 0 or ol >= N_LOSSES:
        raise ValueError("bad loss index")
    tmp.mem = NULL
    if NEEDS_SCRATCH_STATE and st_copy(&tmp, &st.s) < 0:  # incremental costs need no scratch state
        raise MemoryError(f"costs: cannot allocate a scratch configuration of {st.s.n} words ({st.s.size:,} bytes)")
    with nogil:
        all_costs(&st.s, &tmp, ol, row)
    free(tmp.mem)


def loss(KState st not None, int ol):
    if st.gold is None:
        raise ValueError("no gold tree attached")
    if ol < 0 or ol >= N_LOSSES:
        raise ValueError("bad loss index")
    return loss_of(&st.s, ol)


def view(KState st not None):
    """Lists, raw heads and labels, flags and (multihead) arcs, as Python objects."""
    cdef St* s = &st.s
    cdef int k, i, h, d
    lists = tuple(tuple(s.buf[k * s.cap + i] for i in range(s.lo[k], s.hi[k])) for k in range(NLX))
    heads = [s.head[i] for i in range(s.ntok)]
    labels = [s.lab[i] for i in range(s.ntok)]
    tflags = [[s.tflag[k * s.ntok + i] for i in range(s.ntok)] for k in range(NTFX)]
    gflags = [s.gflag[k] for k in range(NGFX)]
    arcs = None
    if MULTI:
        arcs = [(h, d, s.adjlab[h * s.ntok + d]) for d in range(s.ntok) for h in range(s.ntok)
                if s.adj[h * s.ntok + d]]
    return {"n": s.n, "root": s.root, "lists": lists, "heads": heads, "labels": labels,
            "tflags": tflags, "gflags": gflags, "arcs": arcs}


def info():
    return {"illegal": ILLEGAL, "units": N_ACTIONS, "n_losses": N_LOSSES, "incremental": bool(INCREMENTAL),
            "unbounded": bool(UNBOUNDED), "fast_opass": bool(FAST_OPASS), "labeled": [bool(LABELED[a]) for a in range(N_ACTIONS)]}


cdef Py_ssize_t follow_oracle_nt(St* sp, St* tmp, int ol, int base, int limit, int* log, Py_ssize_t T,
                                 Py_ssize_t cap, int* stuck) noexcept nogil:
    """The unlabeled oracle pass over one sentence from state sp: at each step the first
    legal action of zero cost is applied and logged at log[T] (while T < cap); returns the
    new T, with stuck[0] = 1 when no action costs 0 or the step limit is reached.

    It steps a copy of the state held in this function's locals, written back at the end:
    the copy's address reaches no other function, so the compiler may keep its list ends
    and array pointers in registers across the stores of a step (a state reached through
    a pointer must be re-read after every store, as a char store may alias it)."""
    cdef St s = sp[0]
    cdef int steps = 0, best
    stuck[0] = 0
    while not st_terminal(&s):
        if steps >= limit:
            stuck[0] = 1
            break
        best = oracle_step_nt(&s, tmp, ol, base)
        if best < 0:
            stuck[0] = 1
            break
        if T < cap:
            log[T] = best
        T += 1
        steps += 1
    sp[0] = s
    return T


cdef tuple records_pass(const int* offsets, Py_ssize_t n_sent, const int* heads, int* out_actions, Py_ssize_t cap,
                        int* out_heads, int* starts, int* status, int maxn):
    """The unlabeled oracle pass on a record per token (``fast_sentence``, emitted by
    emit_opass), with oracle_pass's arguments and results; a function of its own so that the
    generic pass's loop is compiled as it was (sharing one loop slowed arc-hybrid's by 6-16%)."""
    cdef St s
    cdef Py_ssize_t si, T = 0, T2
    cdef int n, off, d, ph, headless, bad, halted, limit
    cdef long long stuck = 0, bad_sents = 0, bad_words = 0
    cdef void* rmem = malloc(fast_rec_size(maxn))
    cdef char* smem = <char*>malloc(st_size(maxn))
    if smem == NULL or rmem == NULL:
        free(smem); free(rmem)
        raise MemoryError(f"oracle pass: cannot allocate the configuration and token records for a sentence of "
                          f"{maxn} words ({st_size(maxn) + fast_rec_size(maxn):,} bytes)")
    with nogil:
        for si in range(n_sent):
            off = offsets[si]
            n = offsets[si + 1] - off
            if starts != NULL:
                starts[si] = T
            st_place_in(&s, n, smem)
            limit = 4 * (n + 2) * (n + 2) + 16
            halted = 0
            T2 = fast_sentence(&s, rmem, n, &heads[off], limit, out_actions, T, cap, &halted)
            if T2 < 0:  # a gold head out of range, as gold_fill
                stuck += 1
                bad_sents += 1
                bad_words += n
                if status != NULL:
                    status[si] = 2
                continue
            T = T2
            headless = 0
            bad = 0
            for d in range(1, n + 1):
                headless += fast_head(rmem, d) < 0
            for d in range(1, n + 1):
                ph = fast_head(rmem, d)
                ph = -1 if ph < 0 else (0 if ph == s.root else ph)
                if ph < 0 and (ATTACH_HEADLESS or (not HAS_ROOT and headless == 1)):
                    ph = 0
                out_heads[off + d - 1] = ph
                bad += ph != heads[off + d - 1]
            bad_words += bad
            stuck += halted
            bad_sents += bad > 0 or halted != 0
            if status != NULL:
                status[si] = 2 if halted else (1 if bad > 0 else 0)
        if starts != NULL:
            starts[n_sent] = T
    free(smem)
    free(rmem)
    return T, stuck, bad_sents, bad_words, T > cap


def oracle_pass(object gold_heads, object gold_offsets, Py_ssize_t n_sent, object gold_labels, int n_labels,
                int ol, object action_log, object label_log, Py_ssize_t cap, object final_heads,
                object atab=None, int nact=0, object sentence_starts=None, object sentence_status=None,
                bint fast=True):
    """Follow the oracle over a treebank: at each step the legality and cost of every action
    (with n_labels > 0, of every labeled action with every label), take the first zero-cost
    one, apply it.  Sentence i's gold heads are gold_heads[offsets[i]:offsets[i + 1]]
    (CoNLL-U numbering).  Writes the actions (and labels) taken and the final heads.
    Capacity-inf kernels take the action table of the longest sentence (atab, nact): the
    actions of a shorter one are those that fit, in the same order.

    Arrays are int32: gold heads and labels (None: unlabeled) offsets[n_sent] long, offsets
    n_sent + 1, the action and label logs cap long, final_heads like the gold heads.
    sentence_starts (None: not wanted), int32 n_sent + 1 long, gets where each sentence's
    actions begin in the logs, and the total transitions last (counted on overflow too).
    sentence_status (None: not wanted), int32 n_sent long, gets each sentence's outcome: 0 its
    gold tree reproduced, 1 another tree, 2 stuck.
    Returns (transitions, stuck sentences, mismatched sentences, mismatched words, log
    overflowed): a sentence is stuck when no action has zero cost (or the step limit is
    reached), and mismatched when its final tree differs from its gold tree or it is stuck:
    a derivation that ends in no terminal configuration reproduces no tree.
    fast (kernels with FAST_OPASS, unlabeled, loss 0): the pass on records (records_pass,
    fast_sentence: emit_opass), the same results as this generic pass (fast=False).
    """
    cdef const int* offsets = int32_data(gold_offsets, "offsets", n_sent + 1)
    cdef Py_ssize_t words = offsets[n_sent] if n_sent > 0 else 0
    cdef const int* heads = int32_data(gold_heads, "heads", words)
    cdef const int* labels = NULL if gold_labels is None else int32_data(gold_labels, "labels", words)
    cdef int* out_actions = int32_data(action_log, "action log", cap, True)
    cdef int* out_labels = int32_data(label_log, "label log", cap, True)
    cdef int* out_heads = int32_data(final_heads, "final heads", words, True)
    cdef int* starts = NULL if sentence_starts is None else int32_data(sentence_starts, "sentence starts",
                                                                       n_sent + 1, True)
    cdef int* status = NULL if sentence_status is None else int32_data(sentence_status, "sentence status",
                                                                       n_sent, True)
    cdef const int* atab_data = NULL
    cdef Py_ssize_t si, T = 0
    cdef int n, off, maxn = 0, a, lab, best, best_lab, h, d, lc, steps, limit, headless, bad, k, ph, base, halted
    cdef long long stuck = 0, bad_sents = 0, bad_words = 0
    cdef bint labeled = n_labels > 0 and labels != NULL
    cdef St s, tmp
    cdef int* blk
    cdef char* smem
    cdef char* tmem
    cdef int* row
    cdef int* lrow
    if ol < 0 or ol >= N_LOSSES:
        raise ValueError("bad loss index")
    for si in range(n_sent):
        maxn = max(maxn, offsets[si + 1] - offsets[si])
    if FAST_OPASS and fast and not labeled and ol == 0 and maxn < 32000:  # int16 counts
        return records_pass(offsets, n_sent, heads, out_actions, cap, out_heads, starts, status, maxn)
    if not UNBOUNDED:
        nact = N_ACTIONS
    elif atab is None:
        raise ValueError("capacity-inf kernels need the action table")
    else:
        atab_data = int32_data(atab, "action table", 3 * nact)
    smem = <char*>malloc(st_size(maxn))
    tmem = <char*>malloc(st_size(maxn)) if NEEDS_SCRATCH_STATE else NULL
    blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
    row = <int*>malloc(sizeof(int) * (nact + 1))
    lrow = <int*>malloc(sizeof(int) * (nact * (n_labels + 1) + 1))
    if blk == NULL or row == NULL or lrow == NULL or smem == NULL or (NEEDS_SCRATCH_STATE and tmem == NULL):
        free(blk); free(row); free(lrow); free(smem); free(tmem)
        raise MemoryError(f"oracle pass: cannot allocate the working configurations for a sentence of {maxn} words "
                          f"({st_size(maxn):,} bytes each)")
    with nogil:
        for si in range(n_sent):
            off = offsets[si]
            n = offsets[si + 1] - off
            if starts != NULL:
                starts[si] = T
            if gold_fill(n, &heads[off], &labels[off] if labeled else NULL, blk) < 0:
                stuck += 1
                bad_sents += 1
                bad_words += n
                if status != NULL:
                    status[si] = 2
                continue
            st_place_in(&s, n, smem)
            if UNBOUNDED:
                s.atab = atab_data
                s.nact = nact
            st_start(&s, n)
            gold_attach(&s, blk)
            if NEEDS_SCRATCH_STATE:
                st_place_in(&tmp, n, tmem)
                st_start(&tmp, n)  # gold_attach reads the lists
                gold_attach(&tmp, blk)
            steps = 0
            limit = 4 * (n + 2) * (n + 2) + 16
            # the loss of the state, for costs by scratch copy: computed once a sentence, as
            # every action the unlabeled pass takes costs 0 and so leaves it unchanged
            base = 0 if labeled or not NEEDS_SCRATCH_STATE else loss_of(&s, ol)
            halted = 0
            if not labeled:  # fused: costs in action order, the first zero applied at once
                T = follow_oracle_nt(&s, &tmp, ol, base, limit, out_actions, T, cap, &halted)
            while labeled and not st_terminal(&s):
                if steps >= limit:
                    halted = 1
                    break
                best = -1
                best_lab = -1
                all_costs_nt(&s, &tmp, ol, row)
                k = 0
                for a in range(nact):
                    if row[a] == ILLEGAL:
                        continue
                    if labeled_of(&s, a) and arc_of(&s, a, &h, &d):
                        for lab in range(n_labels):
                            lc = row[a] + (1 if (s.gold[d] == h and s.glab[d] != lab) else 0)
                            lrow[k] = lc
                            k += 1
                            if lc == 0 and best < 0:
                                best = a
                                best_lab = lab
                    else:
                        lrow[k] = row[a]
                        k += 1
                        if row[a] == 0 and best < 0:
                            best = a
                if best < 0:
                    halted = 1
                    break
                apply_legal(&s, best, best_lab)
                if T < cap:
                    out_actions[T] = best
                    out_labels[T] = best_lab
                T += 1
                steps += 1
            headless = 0
            for d in range(1, n + 1):
                headless += s.head[d] < 0
            bad = 0
            for d in range(1, n + 1):
                ph = out_head(&s, d)
                if ph < 0 and (ATTACH_HEADLESS or (not HAS_ROOT and headless == 1)):
                    ph = 0
                out_heads[off + d - 1] = ph
                bad += ph != heads[off + d - 1]
            bad_words += bad
            stuck += halted
            bad_sents += bad > 0 or halted != 0
            if status != NULL:
                status[si] = 2 if halted else (1 if bad > 0 else 0)
        if starts != NULL:
            starts[n_sent] = T
    free(smem)
    free(tmem)
    free(blk)
    free(row)
    free(lrow)
    return T, stuck, bad_sents, bad_words, T > cap
