# ---- tsdsl kernel runtime: generic state, lists, paths and cycles ------------------
# Included by every generated kernel; nothing here depends on a spec.

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, calloc, free, realloc
from libc.string cimport memcpy, memset, memmove


cdef extern from "Python.h":
    int _check_signals "PyErr_CheckSignals" ()  # no except clause: the caller clears and re-raises
    void _clear_error "PyErr_Clear" ()


cdef bint interrupted() noexcept nogil:
    """Whether a signal handler raised (Ctrl-C: KeyboardInterrupt) since the last check.  The
    sentence loops run without the GIL, where Python never runs its handlers: they call this
    once per sentence, stop, free what they hold and raise KeyboardInterrupt."""
    with gil:
        if _check_signals() != 0:
            _clear_error()
            return True
        return False


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return z ^ (z >> 31)


# The most actions any derivation of a sentence of n words may take (a loop guard for drivers and searches).
cdef inline int step_limit(int n) noexcept nogil:
    return 4 * (n + 2) * (n + 2) + 16


cdef struct St:
    int n
    int ntok
    int root
    int cap
    int lo[NLX]
    int hi[NLX]
    int gflag[NGFX]
    int* buf
    int* head
    int* lab
    int* at
    int* scratch
    int* adjlab
    int* work
    int* cnt
    signed char* where
    unsigned char* tflag
    unsigned char* adj
    unsigned char* cls
    const int* gold
    const int* glab
    const int* gpar   # gold head, or the sentinel slot ntok when there is none
    int gold_acyclic  # the gold heads have no cycle (set by gold_attach when a loss counts cycles)
    const int* atab   # capacity inf: (unit, i0, i1) per action of this sentence length
    int nact
    char* mem
    size_t size


cdef size_t st_layout(St* s, char* mem) noexcept nogil:
    """Place the arrays of a state of s.ntok tokens in ``mem`` (NULL: just measure)."""
    cdef size_t o = 0
    cdef size_t nt = s.ntok
    s.buf = <int*>(mem + o); o += sizeof(int) * NLX * s.cap
    s.head = <int*>(mem + o); o += sizeof(int) * nt
    s.lab = <int*>(mem + o); o += sizeof(int) * nt
    s.at = <int*>(mem + o); o += sizeof(int) * nt
    s.scratch = <int*>(mem + o); o += sizeof(int) * (nt + 8)
    s.adjlab = <int*>(mem + o); o += sizeof(int) * (nt * nt if MULTI else 0)
    s.work = <int*>(mem + o); o += sizeof(int) * (WORK_PER_TOKEN * nt + 8)
    s.cnt = <int*>(mem + o); o += sizeof(int) * (NCNT * (nt + 1))  # + the sentinel row
    s.where = <signed char*>(mem + o); o += nt
    s.tflag = <unsigned char*>(mem + o); o += NTFX * nt
    s.adj = <unsigned char*>(mem + o); o += (nt * nt if MULTI else 0)
    s.cls = <unsigned char*>(mem + o); o += nt + 1
    return o + 8


cdef size_t st_size(int n) noexcept nogil:
    """Bytes a state for n words needs."""
    cdef St s
    s.ntok = n + 2
    s.cap = 3 * s.ntok + 8
    return st_layout(&s, NULL)


cdef void st_place_in(St* s, int n, char* mem) noexcept nogil:
    """Set up an empty state for n words in ``mem`` (st_size(n) bytes, not owned)."""
    s.n = n
    s.ntok = n + 2
    s.cap = 3 * s.ntok + 8
    s.root = -1
    s.gold = NULL
    s.glab = NULL
    s.gpar = NULL
    s.gold_acyclic = 0
    s.atab = NULL
    s.nact = 0 if UNBOUNDED else N_ACTIONS
    s.mem = mem
    s.size = st_layout(s, mem)
    if MULTI:
        memset(s.adj, 0, s.ntok * s.ntok)


cdef int st_alloc(St* s, int n) noexcept nogil:
    """Allocate an empty state for n words (0 on success, -1 when out of memory)."""
    cdef char* mem = <char*>malloc(st_size(n))
    if mem == NULL:
        s.mem = NULL
        return -1
    st_place_in(s, n, mem)
    return 0


cdef int st_copy(St* dst, const St* src) noexcept nogil:
    """A deep copy of ``src`` into the unallocated ``dst`` (gold arrays are shared)."""
    dst[0] = src[0]
    dst.mem = <char*>malloc(src.size)
    if dst.mem == NULL:
        return -1
    memcpy(dst.mem, src.mem, src.size)
    st_layout(dst, dst.mem)
    return 0


cdef inline void st_copy_into(St* dst, const St* src) noexcept nogil:
    """Overwrite ``dst`` (allocated for the same sentence length) with ``src``.

    Only what a configuration is made of is copied: the occupied slots of each list, the
    per-token arrays and the oracle's counts; not the scratch and work areas (every user
    fills them before reading) nor the free list slots.  Costs by scratch copy pay this
    once per action, so it is kept to the live part of the state.
    """
    cdef char* mem = dst.mem
    cdef int k
    cdef size_t nt = src.ntok
    dst[0] = src[0]
    dst.mem = mem
    st_layout(dst, mem)
    for k in range(NLX):
        if src.hi[k] > src.lo[k]:
            memcpy(dst.buf + k * src.cap + src.lo[k], src.buf + k * src.cap + src.lo[k],
                   (src.hi[k] - src.lo[k]) * sizeof(int))
    memcpy(dst.head, src.head, 3 * nt * sizeof(int))  # head, lab, at
    if MULTI:
        memcpy(dst.adjlab, src.adjlab, nt * nt * sizeof(int))
    # cnt, where, tflag, adj, cls: contiguous to the end of the block
    memcpy(<char*>dst.cnt, <const char*>src.cnt, src.size - (<const char*>src.cnt - src.mem))


cdef inline int st_len(const St* s, int k) noexcept nogil:
    return s.hi[k] - s.lo[k]


cdef void st_recenter(St* s, int k) noexcept nogil:
    cdef int m = s.hi[k] - s.lo[k]
    cdef int lo = (s.cap - m) // 2
    cdef int* base = s.buf + k * s.cap
    cdef int i
    memmove(base + lo, base + s.lo[k], m * sizeof(int))
    s.lo[k] = lo
    s.hi[k] = lo + m
    if USES_POS:
        for i in range(lo, lo + m):
            s.at[base[i]] = i


cdef inline void st_push_back(St* s, int k, int t) noexcept nogil:
    if s.hi[k] >= s.cap:
        st_recenter(s, k)
    s.buf[k * s.cap + s.hi[k]] = t
    s.where[t] = k
    if USES_POS:
        s.at[t] = s.hi[k]
    s.hi[k] += 1


cdef inline void st_push_front(St* s, int k, int t) noexcept nogil:
    if s.lo[k] <= 0:
        st_recenter(s, k)
    s.lo[k] -= 1
    s.buf[k * s.cap + s.lo[k]] = t
    s.where[t] = k
    if USES_POS:
        s.at[t] = s.lo[k]


cdef inline void st_clear(St* s, int k) noexcept nogil:
    s.lo[k] = s.cap // 2
    s.hi[k] = s.cap // 2


cdef void st_place(St* s, int k, const int* toks, int m) noexcept nogil:
    """Fill the empty list k with ``toks`` (centred in its buffer)."""
    cdef int i, lo = (s.cap - m) // 2
    memcpy(s.buf + k * s.cap + lo, toks, m * sizeof(int))
    for i in range(m):
        s.where[toks[i]] = k
        if USES_POS:
            s.at[toks[i]] = lo + i
    s.lo[k] = lo
    s.hi[k] = lo + m


cdef inline int st_get(const St* s, int k, int i) noexcept nogil:
    return s.buf[k * s.cap + i]


cdef inline int st_first(const St* s, int k) noexcept nogil:
    """The first token of list k in reading order (n + 2 when empty), as the interpreter."""
    return s.buf[k * s.cap + s.lo[k]] if s.hi[k] > s.lo[k] else s.n + 2


cdef inline int st_last(const St* s, int k) noexcept nogil:
    return s.buf[k * s.cap + s.hi[k] - 1] if s.hi[k] > s.lo[k] else 0


cdef inline bint st_in(const St* s, int t, int k) noexcept nogil:
    return 0 <= t < s.ntok and s.where[t] == k


cdef inline int st_pos(const St* s, int t) noexcept nogil:
    if t < 0 or t >= s.ntok or s.where[t] < 0:
        return -1
    return s.at[t] - s.lo[s.where[t]]


cdef inline int st_gold(const St* s, int t) noexcept nogil:
    if s.gold == NULL or t < 0 or t >= s.ntok:
        return -1
    return s.gold[t]


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline bint st_has_head(const St* s, int t) noexcept nogil:
    return s.head[t] >= 0


cdef inline bint st_arc(const St* s, int h, int d) noexcept nogil:
    if MULTI:
        return s.adj[h * s.ntok + d] != 0
    return s.head[d] == h


cdef bint st_path(St* s, int a, int d) noexcept nogil:
    """Whether a ->* d (reflexive) in the arcs built so far."""
    cdef int t = d, steps = 0, i, top, x, y
    if a == d:
        return True
    if not MULTI:
        while t >= 0 and steps <= s.ntok:
            t = s.head[t]
            if t == a:
                return True
            steps += 1
        return False
    # several heads: depth-first search upwards, marks in work[0 .. ntok)
    memset(s.work, 0, s.ntok * sizeof(int))
    top = 0
    s.work[s.ntok + top] = d
    top += 1
    s.work[d] = 1
    while top > 0:
        top -= 1
        x = s.work[s.ntok + top]
        for y in range(s.ntok):
            if s.adj[y * s.ntok + x]:
                if y == a:
                    return True
                if not s.work[y]:
                    s.work[y] = 1
                    s.work[s.ntok + top] = y
                    top += 1
    return False


cdef int st_component(St* s, int t) noexcept nogil:
    """A representative of the weakly connected component of t (as the interpreter)."""
    cdef int steps = 0, top, x, y, best
    if not MULTI:
        while s.head[t] >= 0 and steps <= s.ntok:
            t = s.head[t]
            steps += 1
        return t
    memset(s.work, 0, s.ntok * sizeof(int))
    top = 0
    s.work[s.ntok + top] = t
    top += 1
    s.work[t] = 1
    best = t
    while top > 0:
        top -= 1
        x = s.work[s.ntok + top]
        if x < best:
            best = x
        for y in range(s.ntok):
            if (s.adj[y * s.ntok + x] or s.adj[x * s.ntok + y]) and not s.work[y]:
                s.work[y] = 1
                s.work[s.ntok + top] = y
                top += 1
    return best


cdef inline bint st_connected(St* s, int a, int b) noexcept nogil:
    return st_component(s, a) == st_component(s, b)


cdef bint st_cycles_one_in(St* s, const unsigned char* lost, int* n_cycles, int* n_problematic) noexcept nogil:
    """:func:`st_cycles` in O(n) when every node of A + I has at most one incoming arc
    (False, nothing counted, otherwise).

    Then every weakly connected part holds at most one cycle, found by following the
    incoming arcs backwards; the elementary cycles are exactly these.  Each is walked in the
    order the general enumeration walks it (from its smallest node, along the arcs), so the
    arc chosen to break it, and whether it is problematic, are the same.
    """
    cdef int nt = s.ntok, d, h, g, p, x, y, k, m, ln, best_max, best_min, bx, by, z, e0, e1, cyc = 0, prob = 0
    cdef int* par = s.work                  # nt: the one incoming arc's tail, or -1
    cdef int* stamp = s.work + nt           # nt: the walk that reached the node first (+1), 0 none
    cdef int* ring = s.work + 2 * nt        # nt: one cycle, backwards from its smallest node
    cdef int* fwd = s.work + 3 * nt         # nt: the same cycle along its arcs
    for d in range(nt):
        h = s.head[d]
        g = s.gold[d]
        p = h
        if g >= 0 and not lost[d] and g != h:
            if h >= 0:
                return False  # two incoming arcs: the general enumeration
            p = g
        par[d] = p
        stamp[d] = 0
    for d in range(nt):
        if stamp[d]:
            continue
        x = d
        while x >= 0 and not stamp[x]:
            stamp[x] = d + 1
            x = par[x]
        if x < 0 or stamp[x] != d + 1:
            continue  # the walk ended, or met an earlier walk: no new cycle
        # x is on a new cycle: collect it backwards from its smallest node
        m = x
        y = par[x]
        while y != x:
            if y < m:
                m = y
            y = par[y]
        ln = 0
        y = m
        while True:
            ring[ln] = y
            ln += 1
            y = par[y]
            if y == m:
                break
        fwd[0] = m
        for k in range(1, ln):
            fwd[k] = ring[ln - k]
        cyc += 1
        best_max = -1
        best_min = 0
        bx = -1
        by = 0
        for k in range(ln):
            x = fwd[k]
            y = fwd[k + 1] if k < ln - 1 else fwd[0]
            if s.head[y] == x:
                continue
            e0 = x if x > y else y
            e1 = x if x < y else y
            if e0 > best_max or (e0 == best_max and e1 < best_min):
                best_max = e0
                best_min = e1
                bx = x
                by = k
        if bx >= 0:
            z = fwd[by - 1] if by > 0 else fwd[ln - 1]
            if s.gold[bx] == z:
                prob += 1
    n_cycles[0] = cyc
    n_problematic[0] = prob
    return True


cdef void st_cycles(St* s, const unsigned char* lost, int* n_cycles, int* n_problematic) noexcept nogil:
    """Count the elementary cycles of A + I (arcs built plus reachable gold arcs), and those
    whose breaking, in Covington's arc-building order, removes a gold arc.

    ``lost[d]`` marks words whose gold arc is unreachable.  Single-head systems only.
    Work area: out-degree CSR (3 ntok + 1), path, iterators, on-path marks.
    """
    cdef int nt = s.ntok, d, h, i, k, start, node, nxt, depth, cyc, prob
    cdef int* deg = s.work                  # nt + 1 offsets
    cdef int* edges = s.work + (nt + 1)     # <= 2 nt targets
    cdef int* path = s.work + (3 * nt + 1)  # nt
    cdef int* itr = s.work + (4 * nt + 1)   # nt
    cdef int* onp = s.work + (5 * nt + 1)   # nt
    cdef int* fill = s.work + (6 * nt + 1)  # nt
    cdef int x, y, z, bx, by, e0, e1, best_max, best_min, g
    if st_cycles_one_in(s, lost, n_cycles, n_problematic):
        return
    memset(deg, 0, (nt + 1) * sizeof(int))
    for d in range(nt):
        h = s.head[d]
        if h >= 0:
            deg[h + 1] += 1
        g = s.gold[d]
        if g >= 0 and not lost[d] and g != h:
            deg[g + 1] += 1
    for i in range(nt):
        deg[i + 1] += deg[i]
    for i in range(nt):
        fill[i] = deg[i]
    for d in range(nt):
        h = s.head[d]
        if h >= 0:
            edges[fill[h]] = d
            fill[h] += 1
        g = s.gold[d]
        if g >= 0 and not lost[d] and g != h:
            edges[fill[g]] = d
            fill[g] += 1
    cyc = 0
    prob = 0
    for i in range(nt):
        onp[i] = 0
    for start in range(nt):
        if deg[start + 1] == deg[start]:
            continue
        depth = 0
        path[0] = start
        itr[0] = deg[start]
        onp[start] = 1
        while depth >= 0:
            node = path[depth]
            if itr[depth] >= deg[node + 1]:
                onp[node] = 0
                depth -= 1
                continue
            nxt = edges[itr[depth]]
            itr[depth] += 1
            if nxt == start:
                cyc += 1
                # the missing arc built last closes the cycle; breaking removes the arc into its head
                best_max = -1
                best_min = 0
                bx = -1
                for k in range(depth + 1):
                    x = path[k]
                    y = path[k + 1] if k < depth else path[0]
                    if s.head[y] == x:
                        continue
                    e0 = x if x > y else y
                    e1 = x if x < y else y
                    if e0 > best_max or (e0 == best_max and e1 < best_min):
                        best_max = e0
                        best_min = e1
                        bx = x
                        by = k
                if bx >= 0:
                    z = path[by - 1] if by > 0 else path[depth]
                    if s.gold[bx] == z:
                        prob += 1
            elif nxt > start and not onp[nxt]:
                depth += 1
                path[depth] = nxt
                itr[depth] = deg[nxt]
                onp[nxt] = 1
    n_cycles[0] = cyc
    n_problematic[0] = prob
