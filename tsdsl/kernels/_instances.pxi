
# ---- capacity inf: scoring every instance of an action family -------------------------
# Generic (included by _learn.pxi, before the Learner that drives it).  A capacity-inf
# system's actions are the instances of its families (LEFT-ARC(i,j) for every pair of
# positions), listed per sentence length in the action table s.atab as (family unit, i0, i1).
# As Goldberg & Elhadad (2010) do, every legal instance is scored with the features of the
# tokens it touches (feature addresses O[i+k], O[j-k]: kinds 3 and 4, read with fx.i0,
# fx.i1), against the outputs of its family (one per label); the best (instance, output)
# pair wins.
#
# Caching.  An instance's features are a function of its *base tokens* (the distinct
# instance-relative addresses of the program) when every address steps only to children
# (FeatureSet.instance_local) and the system is monotonic: then they change only when one of
# those tokens changes or gains a descendant.  Each token carries a version, bumped for the
# dependent and the head (and the head's ancestors) of every arc built; an instance's
# signature hashes its base tokens with their versions (and the sentence), and scores are
# kept in a direct-mapped table by signature.  So after an attachment only the instances
# around it are re-extracted and re-scored, as Goldberg & Elhadad recompute only around
# the last attachment.  Scores also carry the weights' stamp (training bumps it at every
# update; the cached features are then only re-scored).  Without locality the signature
# holds the step number, so nothing is reused across steps (LEFT and RIGHT of one pair
# still share one extraction).

cdef struct InstCache:
    uint64_t* sig       # per slot: the signature held (0: empty)
    int* sstamp         # per slot: the weight stamp its scores were computed with
    float* sc           # per slot: C scores
    int* feats          # per slot: nf feature buckets
    int* ver            # per token: version (arcs built at or below it)
    int* uo_start       # outputs of family unit u: uo_list[uo_start[u] .. uo_start[u + 1])
    int* uo_list
    int* fg             # scratch: the features of the gold and of the predicted instance
    int* fp
    const int* base     # (kind, list, shift) per instance base
    int n_base
    int local
    int slots           # a power of two
    int C
    int nf
    int wstamp          # the weights' stamp
    uint64_t gen        # sentence counter
    uint64_t salt       # step counter (no locality: no reuse across steps)
    long long hits
    long long misses


cdef void inst_free(InstCache* ic) noexcept nogil:
    free(ic.sig); free(ic.sstamp); free(ic.sc); free(ic.feats); free(ic.ver)
    free(ic.uo_start); free(ic.uo_list); free(ic.fg); free(ic.fp)
    ic.sig = NULL; ic.sstamp = NULL; ic.sc = NULL; ic.feats = NULL; ic.ver = NULL
    ic.uo_start = NULL; ic.uo_list = NULL; ic.fg = NULL; ic.fp = NULL


cdef int inst_open(InstCache* ic, const Model* m, int nf, int nact, int maxn, const int* base, int n_base,
                   int local) noexcept nogil:
    """Allocate the cache for sentences of up to maxn words whose action table has nact
    instances; -1 when out of memory."""
    cdef int slots = 64, u, c, j, k
    while slots < 4 * nact:
        slots *= 2
    ic.slots, ic.C, ic.nf, ic.base, ic.n_base, ic.local = slots, m.C, nf, base, n_base, local
    ic.wstamp, ic.gen, ic.salt, ic.hits, ic.misses = 0, 0, 0, 0, 0
    ic.sig = <uint64_t*>calloc(slots, sizeof(uint64_t))
    ic.sstamp = <int*>malloc(sizeof(int) * slots)
    ic.sc = <float*>malloc(sizeof(float) * <size_t>slots * (m.C + 1))
    ic.feats = <int*>malloc(sizeof(int) * <size_t>slots * (nf + 1))
    ic.ver = <int*>malloc(sizeof(int) * (maxn + 3))
    ic.uo_start = <int*>malloc(sizeof(int) * (N_ACTIONS + 2))
    ic.uo_list = <int*>malloc(sizeof(int) * (MAX_CLASS_UNITS * m.C + 1))
    ic.fg = <int*>malloc(sizeof(int) * (nf + 1))
    ic.fp = <int*>malloc(sizeof(int) * (nf + 1))
    if not (ic.sig and ic.sstamp and ic.sc and ic.feats and ic.ver and ic.uo_start and ic.uo_list and ic.fg
            and ic.fp):
        inst_free(ic)
        return -1
    k = 0
    for u in range(N_ACTIONS):
        ic.uo_start[u] = k
        for c in range(m.C):
            for j in range(MAX_CLASS_UNITS):
                if m.cls[c * CLS_W + 1 + j] == u:
                    ic.uo_list[k] = c
                    k += 1
                    break
    ic.uo_start[N_ACTIONS] = k
    return 0


cdef inline void inst_sentence(InstCache* ic, int n) noexcept nogil:
    """A new sentence: versions start over (the sentence counter keeps old signatures apart)."""
    ic.gen += 1
    memset(ic.ver, 0, sizeof(int) * (n + 3))


cdef uint64_t inst_sig(InstCache* ic, const St* s, const Feats* fx) noexcept nogil:
    """The signature of the instance (fx.i0, fx.i1) in s (never 0)."""
    cdef uint64_t h = mix64(ic.gen * <uint64_t>0x9E3779B97F4A7C15ULL)
    cdef int b, t
    if not ic.local:
        h = mix64(h ^ (ic.salt * <uint64_t>0xD6E8FEB86659FD93ULL))
        return mix64(h ^ (<uint64_t>(fx.i0 + 1) << 32) ^ <uint64_t>(fx.i1 + 1)) | 1
    for b in range(ic.n_base):
        t = instance_token(s, fx, ic.base[3 * b], ic.base[3 * b + 1], ic.base[3 * b + 2])
        h = mix64(h ^ (<uint64_t>(t + 2) | (<uint64_t>(ic.ver[t] if t >= 0 else 0) << 32)))
    return h | 1


cdef float* inst_scores(InstCache* ic, const St* s, Feats* fx, const Model* m, bint* kids_ready) noexcept nogil:
    """The C scores of the instance (fx.i0, fx.i1) in s, from the cache when its signature
    and the weights are unchanged."""
    cdef uint64_t sig = inst_sig(ic, s, fx)
    cdef size_t slot = <size_t>((sig >> 17) & <uint64_t>(ic.slots - 1))
    cdef int* f = ic.feats + slot * ic.nf
    cdef float* sc = ic.sc + slot * ic.C
    if ic.sig[slot] != sig:
        if fx.need_kids and not kids_ready[0]:
            kids_compute(s, fx.kids, fx.sets)
            kids_ready[0] = True
        extract_core(s, fx, m, f)
        ic.sig[slot] = sig
        ic.sstamp[slot] = ic.wstamp - 1
        ic.misses += 1
    else:
        ic.hits += 1
    if ic.sstamp[slot] != ic.wstamp:
        score(m, f, ic.nf, sc)
        ic.sstamp[slot] = ic.wstamp
    return sc


cdef int inst_best(InstCache* ic, St* s, Feats* fx, const Model* m, int* best_a, int* best_c,
                   bint* kids_ready) noexcept nogil:
    """The best-scoring (legal instance, output of its family) of s into best_a, best_c
    (first in table and output order on ties); returns how many instances are legal."""
    cdef int a, k, c, u, count = 0
    cdef float* sc
    cdef float top = 0
    best_a[0] = -1
    best_c[0] = -1
    ic.salt += 1
    for a in range(s.nact):
        if not valid_nt(s, a):
            continue
        count += 1
        u = s.atab[3 * a]
        fx.i0 = s.atab[3 * a + 1]
        fx.i1 = s.atab[3 * a + 2]
        sc = inst_scores(ic, s, fx, m, kids_ready)
        for k in range(ic.uo_start[u], ic.uo_start[u + 1]):
            c = ic.uo_list[k]
            if best_c[0] < 0 or sc[c] > top:
                top = sc[c]
                best_a[0] = a
                best_c[0] = c
    return count


cdef void inst_features(St* s, Feats* fx, const Model* m, int a, bint* kids_ready, int* out) noexcept nogil:
    """The feature buckets of instance a in s (for an update)."""
    if fx.need_kids and not kids_ready[0]:
        kids_compute(s, fx.kids, fx.sets)
        kids_ready[0] = True
    fx.i0 = s.atab[3 * a + 1]
    fx.i1 = s.atab[3 * a + 2]
    extract_core(s, fx, m, out)


cdef void inst_apply(InstCache* ic, St* s, int a, int label) noexcept nogil:
    """Apply the legal instance a; bump the versions of the arc's dependent, head and the
    head's ancestors (whose subtrees changed)."""
    cdef int h = -1, d = -1, t, k = 0
    if not arc_of(s, a, &h, &d):
        h = -1
    apply_legal(s, a, label)
    if h >= 0 and d >= 0:
        ic.ver[d] += 1
        t = h
        while 0 <= t < s.ntok and k <= s.ntok:
            ic.ver[t] += 1
            t = s.head[t]
            k += 1


cdef bint inst_has_output(const InstCache* ic, int u, int c) noexcept nogil:
    cdef int k
    if not 0 <= u < N_ACTIONS:
        return False
    for k in range(ic.uo_start[u], ic.uo_start[u + 1]):
        if ic.uo_list[k] == c:
            return True
    return False
