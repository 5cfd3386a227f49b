
# ---- greedy steps whose every outcome is the same configuration ------------------------
# Generic (included by _greedy.pxi).  A greedy step with two legal outputs x and y may need
# no scores: if applying x again and again only ever leaves x and y legal, every y along the
# way gives the same configuration y(s), and the run of x ends where x is no longer legal,
# then whatever the model would choose at each of these steps, the parse goes on from y(s).
# Covington's parser is the case in point: once neither arc is legal for the rest of a scan
# over λ1, NO-ARC ... NO-ARC SHIFT and SHIFT give the same lists (λ1·λ2|j, [], β), and
# models trained with the dynamic oracle scan far.  The check runs the kernel's own actions
# on scratch configurations and compares them (st_same), so it holds for any spec: the
# parses are those of scoring every step, bit for bit (tests/test_forced_chains.py).

cdef bint st_same(const St* a, const St* b) noexcept nogil:
    """Whether two configurations of one sentence are the same: their lists, arcs and flags
    (what actions, guards and features read; positions inside the list buffers may differ)."""
    cdef int k, la
    for k in range(NLX):
        la = a.hi[k] - a.lo[k]
        if la != b.hi[k] - b.lo[k]:
            return False
        if la and memcmp(a.buf + k * a.cap + a.lo[k], b.buf + k * b.cap + b.lo[k], la * sizeof(int)) != 0:
            return False
    if memcmp(a.head, b.head, a.ntok * sizeof(int)) != 0 or memcmp(a.lab, b.lab, a.ntok * sizeof(int)) != 0:
        return False
    if memcmp(a.tflag, b.tflag, NTFX * a.ntok) != 0:
        return False
    for k in range(NGFX):
        if a.gflag[k] != b.gflag[k]:
            return False
    return True


cdef enum:
    CHAIN_PROBES = 64   # failed checks of an output's runs, none won, before it is no longer tried


cdef struct Chains:
    char* mem           # three scratch configurations
    St run              # s after x, x, ...
    St alt              # y of one of them
    St goal             # y(s)
    int* ubuf           # legal_outputs's scratch (2 C + 1 ints), apart from the step's own
    int* xtries         # per output x: the checks of its runs in this parse, and those that won
    int* xwins          #   (x's whose runs never win are no longer tried: see forced_output)
    int wx[2]           # outputs x whose runs failed ahead, and in how many applications of x:
    int wait[2]         #   until then, a step with x legal does not try x first again


cdef int chains_open(Chains* ch, int maxn, int C) noexcept nogil:
    """Scratch for sentences of up to maxn words; -1 when out of memory."""
    cdef size_t z = st_size(maxn)
    ch.mem = <char*>malloc(3 * z)
    ch.ubuf = <int*>malloc(sizeof(int) * (2 * C + 1))
    ch.xtries = <int*>calloc(C, sizeof(int))
    ch.xwins = <int*>calloc(C, sizeof(int))
    ch.wait[0] = 0
    ch.wait[1] = 0
    ch.wx[0] = -1
    ch.wx[1] = -1
    if ch.mem == NULL or ch.ubuf == NULL or ch.xtries == NULL or ch.xwins == NULL:
        chains_free(ch)
        return -1
    return 0


cdef void chains_free(Chains* ch) noexcept nogil:
    free(ch.mem); free(ch.ubuf); free(ch.xtries); free(ch.xwins)
    ch.mem = NULL; ch.ubuf = NULL; ch.xtries = NULL; ch.xwins = NULL


cdef void chains_sentence(Chains* ch, int n) noexcept nogil:
    """A new sentence of n words: place the scratch configurations."""
    cdef size_t z = st_size(n)
    st_place_in(&ch.run, n, ch.mem)
    st_place_in(&ch.alt, n, ch.mem + z)
    st_place_in(&ch.goal, n, ch.mem + 2 * z)
    ch.wait[0] = 0
    ch.wait[1] = 0
    ch.wx[0] = -1
    ch.wx[1] = -1


cdef int chain_end(Chains* ch, LegalMemo* lm, const St* s, const Model* m, const int* unit, int x, int y,
                   int budget) noexcept nogil:
    """0 when every greedy run from s over its two legal outputs x and y reaches y(s) (see
    above), within ``budget`` applications of x; else k >= 1, the first application of x
    after which that is not shown (the runs from x(s), x(x(s)) ... fail there too)."""
    cdef const int* u2
    cdef const int* l2
    cdef int k, i, n2, ux = unit[x], lx = m.cls[x * CLS_W], ly = m.cls[y * CLS_W]
    cdef bint x_ok, y_ok
    st_copy_into(&ch.goal, s)
    apply_legal(&ch.goal, unit[y], ly)
    st_copy_into(&ch.run, s)
    for k in range(1, budget + 1):
        apply_legal(&ch.run, ux, lx)
        if st_terminal(&ch.run):
            return k
        n2 = legal_outputs(lm, &ch.run, m, ch.ubuf, &u2, &l2)
        x_ok = False
        y_ok = False
        for i in range(n2):
            if l2[i] == x:
                x_ok = True
            elif l2[i] == y:
                y_ok = True
            else:
                return k
        if y_ok:
            st_copy_into(&ch.alt, &ch.run)
            apply_legal(&ch.alt, u2[y], ly)
            if not st_same(&ch.alt, &ch.goal):
                return k
        if not x_ok:
            return 0 if y_ok else k
        ux = u2[x]
    return budget


cdef int forced_output(Chains* ch, LegalMemo* lm, const St* s, const Model* m, const int* unit,
                       const int* legal, int budget) noexcept nogil:
    """The output to apply without scores at a step with two legal outputs, when the step is
    forced in the sense above (with x either of the two), else -1.  When the run of x fails
    k applications ahead, the runs from the next k - 1 configurations that x makes fail
    at the same place (the same run, and the same y(s) until there): they are not tried.
    Nor is an x whose runs failed CHAIN_PROBES times in this parse and never won (SHIFT's
    in Covington's parser: a new focus word makes arcs legal); that saves time, never a
    parse, since a step not tried is scored."""
    cdef int o, k, x, j
    for o in range(2):
        x = legal[o]
        j = 0 if ch.wx[0] == x else (1 if ch.wx[1] == x else -1)
        if j >= 0 and ch.wait[j] > 0:
            continue
        if ch.xwins[x] == 0 and ch.xtries[x] >= CHAIN_PROBES:
            continue
        ch.xtries[x] += 1
        k = chain_end(ch, lm, s, m, unit, x, legal[1 - o], budget)
        if k == 0:
            ch.xwins[x] += 1
            return legal[1 - o]
        if j < 0:
            j = 0 if ch.wait[0] <= 0 else 1
        ch.wx[j] = x
        ch.wait[j] = k
    return -1


cdef void chains_totals(const Chains* ch, int C, long long* tries, long long* wins) noexcept nogil:
    """The checks run in this parse, and those that found a step forced."""
    cdef int x
    tries[0] = 0
    wins[0] = 0
    for x in range(C):
        tries[0] += ch.xtries[x]
        wins[0] += ch.xwins[x]


cdef inline void chains_step(Chains* ch, int p) noexcept nogil:
    """After applying output p: the wait of p's run counts down, the other one ends (another
    output made a configuration off that run)."""
    cdef int j
    for j in range(2):
        if ch.wait[j] > 0:
            if ch.wx[j] == p:
                ch.wait[j] -= 1
            else:
                ch.wait[j] = 0
