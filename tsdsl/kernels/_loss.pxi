
# ---- exact loss by search, compiled ------------------------------------------------------
# Generic (included by every kernel, after _search.pxi).  The search of
# tsdsl.verify.loss.LossSearch on the kernel's configurations: the least Hamming loss (words
# whose output head differs from gold, after the end-of-parse rule) of any terminal
# configuration reachable from a configuration.  Memoized depth-first search with bound
# pruning, as there: children in order of a lower bound, then fewer wrong and more right
# arcs, then the actions that change no arc first, then action order (LossSearch's order to
# the last tie, so both expand the same configurations and run over a budget alike); a child
# whose bound is at least the best loss found so far is cut, and a configuration is left as
# soon as its best loss meets its own bound.  A configuration already on the path counts as
# a dead end (a cycle of the configuration graph), and a value found while such a cycle was
# cut is kept for this path only, not memoized.
#
# The bound is LossSearch's: a word with a wrong head that has left every list keeps it
# (patterns bind only tokens in lists), in a monotonic system every arc is final, and a word
# whose gold arc the abstraction of tsdsl.verify.reach proves unbuildable stays wrong.  That
# abstraction's answer for every abstract state comes as a table (reach.reach_table); without
# one (capacity-inf systems on long sentences, where the table would be large) the term is
# left out: still admissible, only weaker.  Configurations are told apart by st_key (lists,
# heads, flags; labels do not count, as in LossSearch).  Single-head action sets, bounded or
# capacity inf (``trace --gold --costs``, ``check-oracle --table1``); multihead specs keep
# the interpreter's search.

cdef enum:
    LOSS_INF = 1 << 29      # no terminal configuration is reachable
    LOSS_OVER = -1          # the budget of expanded configurations ran out (or the path grew too deep)
    LOSS_OOM = -2
    LOSS_PUSHED = -3        # loss_enter: the configuration's frame was pushed
    LOSS_NONE = -4          # the search loop: no value to take


cdef struct LossMap:
    uint64_t* keys      # open addressing; 0 marks an empty slot (key 0 is stored as 1)
    int* vals
    size_t cap
    size_t n


cdef int lossmap_get(const LossMap* m, uint64_t key) noexcept nogil:
    """The value kept for ``key``, or -1."""
    cdef size_t i, mask
    if m.cap == 0:
        return -1
    if key == 0:
        key = 1
    mask = m.cap - 1
    i = <size_t>(mix64(key) & mask)
    while m.keys[i]:
        if m.keys[i] == key:
            return m.vals[i]
        i = (i + 1) & mask
    return -1


cdef int lossmap_put(LossMap* m, uint64_t key, int val) noexcept nogil:
    """Keep ``val`` (>= 0) for ``key``; -1 out of memory."""
    cdef size_t i, mask, j, old_cap
    cdef uint64_t* old_keys
    cdef int* old_vals
    if key == 0:
        key = 1
    if 2 * (m.n + 1) > m.cap:
        old_keys, old_vals, old_cap = m.keys, m.vals, m.cap
        m.cap = 1024 if old_cap == 0 else 2 * old_cap
        m.keys = <uint64_t*>calloc(m.cap, sizeof(uint64_t))
        m.vals = <int*>malloc(m.cap * sizeof(int))
        if m.keys == NULL or m.vals == NULL:
            free(m.keys); free(m.vals)
            m.keys, m.vals, m.cap = old_keys, old_vals, old_cap
            return -1
        m.n = 0
        for j in range(old_cap):
            if old_keys[j]:
                lossmap_put(m, old_keys[j], old_vals[j])
        free(old_keys); free(old_vals)
    mask = m.cap - 1
    i = <size_t>(mix64(key) & mask)
    while m.keys[i]:
        if m.keys[i] == key:
            m.vals[i] = val
            return 0
        i = (i + 1) & mask
    m.keys[i] = key
    m.vals[i] = val
    m.n += 1
    return 0


cdef struct Reach:
    const unsigned char* table  # reach.reach_table's, NULL: none
    int M                       # offsets from a list's open end are counted up to M
    int NP                      # positions: NLX * (M + 1), then "in no list"
    int NF                      # flag values: 2 ** token flags
    int open_r[NLX]             # per list: its open end is on the right
    int* pos                    # scratch, per token: its position


cdef void reach_positions(const St* s, Reach* r) noexcept nogil:
    """r.pos[t]: token t's abstract position in s (reach.PairReachability.positions)."""
    cdef int k, i, L, off, t
    for t in range(s.ntok):
        r.pos[t] = r.NP - 1
    for k in range(NLX):
        L = s.hi[k] - s.lo[k]
        for i in range(L):
            t = s.buf[k * s.cap + s.lo[k] + i]
            off = L - 1 - i if r.open_r[k] else i
            if 0 <= t < s.ntok:
                r.pos[t] = k * (r.M + 1) + (off if off < r.M else r.M)


cdef inline int reach_flags(const St* s, int t) noexcept nogil:
    cdef int k, f = 0
    for k in range(NTFX):
        if s.tflag[k * s.ntok + t]:
            f |= 1 << k
    return f


cdef bint reach_arc(const St* s, const Reach* r, int h, int d) noexcept nogil:
    """Whether the abstraction may still build h -> d (reach.PairReachability.reachable)."""
    cdef long long i = r.pos[h] * r.NP + r.pos[d]
    i = (i * 2 + (s.head[h] >= 0)) * 2 + (s.head[d] >= 0)
    if r.NF > 1:
        i = (i * r.NF + reach_flags(s, h)) * r.NF + reach_flags(s, d)
    return r.table[(i * 2 + (h == s.root)) * 2 + (d == s.root)] != 0


cdef struct Blocked:
    int gap             # the arc gap the caller proved (tsdsl.verify.planar.search_pruning), -1: none
    bint bottom_up
    int anchor
    int* rest           # scratch, per token: its gold head, -1 once counted (or no gold head)
    int* core           # blocked()'s scratch
    int* pre


cdef int loss_bound(const St* s, const int* gold, Reach* r, Blocked* bk, int* wrong, int* right) noexcept nogil:
    """The lower bound of the loss reachable from ``s`` (gold: gold head token per token, as
    gold_fill lays it out), and the arcs now wrong and right (for the search order).  With a
    proved arc gap (bk.gap >= 0), one more when the gold arcs still to build, those of the
    words already counted left out, hold a blocked core (``blocked``): one of them at least
    is never built, and making one buildable would take a word of the core's, or a token
    between, out wrongly: a word not counted yet."""
    cdef int d, h, g, b = 0, t
    cdef bint lost
    wrong[0] = 0
    right[0] = 0
    if r.table != NULL:
        reach_positions(s, r)
    if bk.gap >= 0:
        for t in range(s.ntok):
            bk.rest[t] = gold[t]
    for d in range(1, s.n + 1):
        h = s.head[d]
        g = gold[d]
        if h >= 0:
            if h == g:
                right[0] += 1
                continue
            wrong[0] += 1
        elif h == g:    # headless, and its gold head is the root of a system without one
            continue
        lost = False
        if s.where[d] < 0:  # d left every list: its head is final
            lost = h >= 0 or (ATTACH_HEADLESS and g != s.root) or (not ATTACH_HEADLESS and HAS_ROOT)
        elif MONOTONIC and h >= 0:
            lost = True
        elif r.table != NULL and not (g == s.root and (ATTACH_HEADLESS or not HAS_ROOT)):
            lost = g >= 0 and not reach_arc(s, r, g, d)
        if lost:
            b += 1
            if bk.gap >= 0:
                bk.rest[d] = -1
    if bk.gap >= 0 and blocked(s, bk.rest, bk.gap, bk.bottom_up, bk.anchor, bk.core, bk.pre):
        b += 1
    return b


cdef class ExactLoss:
    """The exact loss search of one gold tree on a single-head kernel (see the top of
    _loss.pxi); its memo is kept from call to call, as LossSearch keeps its own."""
    cdef Search w
    cdef LossMap memo
    cdef int* blk          # gold_fill's layout
    cdef int* heads        # CoNLL-U numbering
    cdef int n
    cdef uint64_t* fkey    # per depth of the path: its configuration's key ...
    cdef int* fi           # ... the next child to try, how many, the best loss found, the bound,
    cdef int* fn           #     and the cycle count when the frame was made
    cdef int* fbest
    cdef int* fown
    cdef long long* fhits
    cdef int nact          # the actions of a configuration: N_ACTIONS, or capacity inf the table's
    cdef int width         # nact, at least 1 (the children arrays' stride)
    cdef const int* atab   # capacity inf: the (unit, i0, i1) table of the sentence's actions
    cdef object table      # ... kept alive here
    cdef unsigned char* nonmono  # per action: it can change or remove an arc (tried last among equals)
    cdef int* ch_a         # per depth, ``width`` each: the children's actions and bounds, in search order
    cdef int* ch_lb
    cdef long long* ch_ord
    cdef int ch_depths     # depths the three arrays have room for (grown as the path deepens)
    cdef Reach reach
    cdef object reach_keep  # the table's array, kept alive
    cdef Blocked bk
    cdef long long cycles
    cdef long long expanded
    cdef long long budget

    def __cinit__(self, object gold_heads, object table=None, int nact=0, object reach=None,
                  object nonmonotonic=None, int gap=-1, bint bottom_up=False, int anchor=-1):
        """gold_heads: CoNLL-U numbering; table, nact: capacity inf, the sentence's action table;
        reach: None, or reach.reach_table's (M, open_right, F, table); nonmonotonic: None, or
        uint8 per action, 1 for those that can change or remove an arc; gap, bottom_up, anchor:
        what tsdsl.verify.planar.search_pruning proved (gap -1: nothing), for the blocked-core
        term of the bound (LossSearch has none: the values stay, fewer configurations are
        expanded)."""
        cdef Py_ssize_t n = len(gold_heads), d, cap, k
        cdef int M, F
        memset(&self.reach, 0, sizeof(Reach))
        memset(&self.bk, 0, sizeof(Blocked))
        self.bk.gap = gap if gap >= 0 else -1
        self.bk.bottom_up = bottom_up
        self.bk.anchor = anchor if gap >= 0 else -1
        if gap >= 0:
            self.bk.rest = <int*>malloc(sizeof(int) * (n + 3))
            self.bk.core = <int*>malloc(sizeof(int) * (n + 3))
            self.bk.pre = <int*>malloc(sizeof(int) * 3 * (n + 4))
            if not (self.bk.rest and self.bk.core and self.bk.pre):
                raise MemoryError()
        if MULTI:
            raise ValueError("the compiled exact loss needs a single-head action set")
        self.n = <int>n
        if reach is not None:
            M, F = reach[0], reach[2]
            if M < 0 or not (F == NTFX or (F == 0 and NTFX == 1)):
                raise ValueError("reach: the table is not this kernel's")
            self.reach.M = M
            self.reach.NP = NLX * (M + 1) + 1
            self.reach.NF = 1 << F
            if len(reach[1]) != NLX:
                raise ValueError("reach: one open end per list")
            for k in range(NLX):
                self.reach.open_r[k] = 1 if reach[1][k] else 0
            self.reach.table = uint8_data(reach[3], "reach table",
                                          <Py_ssize_t>self.reach.NP * self.reach.NP * 16 * self.reach.NF * self.reach.NF)
            self.reach_keep = reach[3]
            self.reach.pos = <int*>malloc(sizeof(int) * (n + 3))
            if self.reach.pos == NULL:
                raise MemoryError()
        self.nact = N_ACTIONS
        if UNBOUNDED:
            if table is None or nact < 0:
                raise ValueError("capacity inf: give the action table of the sentence and its length")
            self.atab = int32_data(table, "action table", 3 * nact + 3)
            self.table = table
            self.nact = nact
        self.width = self.nact
        memset(&self.memo, 0, sizeof(LossMap))
        if search_alloc(&self.w, <int>n) < 0:
            raise MemoryError()
        cap = self.w.depth_cap
        if self.width < 1:
            self.width = 1  # a sentence without actions: its one configuration is all there is
        self.blk = <int*>malloc(sizeof(int) * (3 * (n + 2) + 1))
        self.heads = <int*>malloc(sizeof(int) * (n + 1))
        self.fkey = <uint64_t*>malloc(sizeof(uint64_t) * cap)
        self.fi = <int*>malloc(sizeof(int) * cap)
        self.fn = <int*>malloc(sizeof(int) * cap)
        self.fbest = <int*>malloc(sizeof(int) * cap)
        self.fown = <int*>malloc(sizeof(int) * cap)
        self.fhits = <long long*>malloc(sizeof(long long) * cap)
        self.nonmono = <unsigned char*>calloc(self.width, 1)
        if not (self.blk and self.heads and self.fkey and self.fi and self.fn and self.fbest and self.fown
                and self.fhits and self.nonmono) or self.grow(64) < 0:
            raise MemoryError()
        if nonmonotonic is not None and self.nact:
            memcpy(self.nonmono, uint8_data(nonmonotonic, "nonmonotonic", self.nact), self.nact)
        for d in range(n):
            self.heads[d] = gold_heads[d]
        if gold_fill(<int>n, self.heads, NULL, self.blk) < 0:
            raise ValueError("a gold head is out of range")

    def __dealloc__(self):
        search_free(&self.w)
        free(self.memo.keys); free(self.memo.vals)
        free(self.blk); free(self.heads); free(self.fkey); free(self.fi); free(self.fn); free(self.fbest)
        free(self.fown); free(self.fhits); free(self.ch_a); free(self.ch_lb); free(self.ch_ord)
        free(self.reach.pos); free(self.nonmono)
        free(self.bk.rest); free(self.bk.core); free(self.bk.pre)

    cdef int grow(self, int depths) noexcept nogil:
        """Room in the children arrays for ``depths`` depths (at most the path's cap): the
        path of a long sentence may go thousands deep, but rarely does; -1 out of memory."""
        cdef int* a
        cdef int* lb
        cdef long long* o
        if depths > self.w.depth_cap:
            depths = self.w.depth_cap
        if depths <= self.ch_depths:
            return 0
        a = <int*>realloc(self.ch_a, sizeof(int) * <size_t>depths * self.width)
        if a == NULL:
            return -1
        self.ch_a = a
        lb = <int*>realloc(self.ch_lb, sizeof(int) * <size_t>depths * self.width)
        if lb == NULL:
            return -1
        self.ch_lb = lb
        o = <long long*>realloc(self.ch_ord, sizeof(long long) * <size_t>depths * self.width)
        if o == NULL:
            return -1
        self.ch_ord = o
        self.ch_depths = depths
        return 0

    @property
    def memo_size(self):
        """Configurations whose loss is memoized."""
        return self.memo.n

    cdef int enter(self, int depth) noexcept nogil:
        """The value of the configuration in frame ``depth`` when known at once (memoized, on
        the path, terminal), else LOSS_PUSHED with its frame made; LOSS_OVER, LOSS_OOM."""
        cdef St* s = &self.w.frames[depth]
        cdef St* child
        cdef uint64_t key = st_key(s)
        cdef int v, j, a, lb, wrong, right, k, m
        cdef int* acts
        cdef int* lbs
        cdef long long* ords
        cdef long long o, span = self.n + 2
        v = lossmap_get(&self.memo, key)
        if v >= 0:
            return v
        for j in range(depth):
            if self.fkey[j] == key:  # a cycle of the configuration graph: no output this way
                self.cycles += 1
                return LOSS_INF
        if st_terminal(s):
            v = output_errors(s, self.heads)
            return LOSS_OOM if lossmap_put(&self.memo, key, v) < 0 else v
        if self.expanded >= self.budget or depth + 1 >= self.w.depth_cap:
            return LOSS_OVER
        self.expanded += 1
        child = search_frame(&self.w, depth + 1, self.n)
        if child == NULL or (depth >= self.ch_depths and self.grow(2 * (depth + 1)) < 0):
            return LOSS_OOM
        acts = self.ch_a + <size_t>depth * self.width
        lbs = self.ch_lb + <size_t>depth * self.width
        ords = self.ch_ord + <size_t>depth * self.width
        m = 0
        for a in range(s.nact):
            if not valid_nt(s, a):
                continue
            st_copy_into(child, s)
            apply_legal(child, a, -1)
            lb = loss_bound(child, self.blk, &self.reach, &self.bk, &wrong, &right)
            o = (((lb * span + wrong) * span + (span - right)) * 2 + self.nonmono[a]) * self.width + a
            k = m
            while k > 0 and ords[k - 1] > o:   # insertion sort: a handful of actions
                ords[k] = ords[k - 1]
                acts[k] = acts[k - 1]
                lbs[k] = lbs[k - 1]
                k -= 1
            ords[k] = o
            acts[k] = a
            lbs[k] = lb
            m += 1
        self.fkey[depth] = key
        self.fi[depth] = 0
        self.fn[depth] = m
        self.fbest[depth] = LOSS_INF
        self.fown[depth] = loss_bound(s, self.blk, &self.reach, &self.bk, &wrong, &right)
        self.fhits[depth] = self.cycles
        return LOSS_PUSHED

    cdef int search(self) noexcept nogil:
        """The loss of the configuration in frame 0: a value (LOSS_INF: no output reachable),
        LOSS_OVER or LOSS_OOM."""
        cdef int depth = 0, ret, i, a
        cdef St* s
        ret = self.enter(0)
        if ret != LOSS_PUSHED:
            return ret
        ret = LOSS_NONE
        while depth >= 0:
            if ret >= 0 and ret < self.fbest[depth]:
                self.fbest[depth] = ret
            ret = LOSS_NONE
            i = self.fi[depth]
            if (self.fbest[depth] <= self.fown[depth] or i >= self.fn[depth]
                    or self.ch_lb[<size_t>depth * self.width + i] >= self.fbest[depth]):
                # done: memoized unless a cycle through the path was cut below it
                if self.cycles == self.fhits[depth]:
                    if lossmap_put(&self.memo, self.fkey[depth], self.fbest[depth]) < 0:
                        return LOSS_OOM
                ret = self.fbest[depth]
                depth -= 1
                continue
            self.fi[depth] = i + 1
            a = self.ch_a[<size_t>depth * self.width + i]
            s = &self.w.frames[depth]
            st_copy_into(&self.w.frames[depth + 1], s)
            apply_legal(&self.w.frames[depth + 1], a, -1)
            ret = self.enter(depth + 1)
            if ret == LOSS_PUSHED:
                depth += 1
                ret = LOSS_NONE
            elif ret < 0:
                return ret
        return ret

    cdef int start(self, const int* prefix, Py_ssize_t n_pre) noexcept nogil:
        """Frame 0 := the configuration the action ids ``prefix`` reach from the initial one;
        0, or -1 when an action of the prefix is not legal where it comes, -2 out of memory."""
        cdef St* s = search_frame(&self.w, 0, self.n)
        cdef Py_ssize_t k
        cdef int a
        if s == NULL:
            return -2
        if UNBOUNDED:
            s.atab = self.atab
            s.nact = self.nact
        st_start(s, self.n)
        for k in range(n_pre):
            a = prefix[k]
            if st_terminal(s) or not 0 <= a < s.nact or not valid_nt(s, a):
                return -1
            apply_legal(s, a, -1)
        return 0

    def loss(self, object prefix_, long long budget):
        """The loss of the configuration the action ids ``prefix_`` (int32) reach, within
        ``budget`` expanded configurations: a number (``inf_value``: no reachable output), or
        None over the budget.  ValueError when the prefix is not legal."""
        cdef Py_ssize_t n_pre = len(prefix_)
        cdef const int* prefix = int32_data(prefix_, "prefix", n_pre) if n_pre else NULL
        cdef int r
        self.budget = budget
        self.expanded = 0
        with nogil:
            r = self.start(prefix, n_pre)
        if r == -2:
            raise MemoryError()
        if r < 0:
            raise ValueError("an action of the prefix is not legal where it comes")
        with nogil:
            r = self.search()
        if r == LOSS_OOM:
            raise MemoryError("the exact loss search ran out of memory")
        return None if r == LOSS_OVER else r

    def losses(self, object prefix_, long long budget, object out_):
        """The loss of the configuration the action ids ``prefix_`` (int32) reach, and into
        ``out_`` (int32, one per action: capacity inf, per action of the table) the loss after
        each action (-1: not legal), all in one
        budget of ``budget`` expanded configurations.  Returns the loss, or None when the
        budget ran out (``out_`` then holds nothing usable); LOSS_INF (``inf_value``) stands
        for no reachable output.  ValueError when the prefix is not legal."""
        cdef Py_ssize_t n_pre = len(prefix_)
        cdef const int* prefix = int32_data(prefix_, "prefix", n_pre) if n_pre else NULL
        cdef int* res = int32_data(out_, "out", self.nact, True) if self.nact else NULL
        cdef int r, base, a, nact
        cdef St* s
        for a in range(self.nact):
            res[a] = -1
        self.budget = budget
        self.expanded = 0
        with nogil:
            r = self.start(prefix, n_pre)
        if r == -2:
            raise MemoryError()
        if r < 0:
            raise ValueError("an action of the prefix is not legal where it comes")
        with nogil:
            base = self.search()
        if base == LOSS_OOM:
            raise MemoryError("the exact loss search ran out of memory")
        if base == LOSS_OVER:
            return None
        s = &self.w.frames[0]
        if st_terminal(s):
            return base
        nact = s.nact
        for a in range(nact):
            with nogil:
                self.start(prefix, n_pre)
                s = &self.w.frames[0]
                if valid_nt(s, a):
                    apply_legal(s, a, -1)
                    r = self.search()
                else:
                    r = LOSS_NONE
            if r == LOSS_OOM:
                raise MemoryError("the exact loss search ran out of memory")
            if r == LOSS_OVER:
                return None
            if r != LOSS_NONE:
                res[a] = r
        return base

    @property
    def inf_value(self):
        """The value that stands for "no output reachable"."""
        return LOSS_INF

    @property
    def expanded_last(self):
        """Configurations the last call expanded."""
        return self.expanded
