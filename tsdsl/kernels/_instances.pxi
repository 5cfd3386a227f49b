
# ---- capacity inf: scoring every instance of an action family -------------------------
# Generic (included at the end of _learn.pxi: these functions drive a Learner).  A capacity-inf
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
# kept in a direct-mapped table by signature.  A base from which no feature reads an arc
# (O[i-1].p, say: FeatureSet.instance_bases) counts by its token alone, so an arc built at
# that token re-scores only the instances whose features see it.  So after an attachment
# only the instances around it are re-extracted and re-scored, as Goldberg & Elhadad
# recompute only around the last attachment.  Scores also carry the weights' stamp (training bumps it at every
# update; the cached features are then only re-scored).  Without locality the signature
# holds the step number, so nothing is reused across steps (LEFT and RIGHT of one pair
# still share one extraction).
#
# Instance groups (greedy parsing only: the weights do not move).  An attachment re-scores
# the instances around it, and many of them differ from an instance scored before in their
# outer bases alone (O[i+2], O[j-1] ...), not in the tokens their pair spans.  The
# templates of a feature program that read the same few bases form a group
# (tsdsl.learn.scoring.instance_groups); score() sums each group's rows on their own, and
# parsing keeps each group's sum in a table of its own, keyed by the group's base tokens
# (with their versions where the group reads arcs there).  A re-scored instance then
# hashes and adds only the templates in no group and the groups not kept.  The sums are
# those of score() bit for bit: the same rows, in the same order.

cdef struct InstCache:
    uint64_t* sig       # per slot: the signature held (0: empty)
    int* sstamp         # per slot: the weight stamp its scores were computed with
    float* sc           # per slot: C scores
    int* ubest          # per slot and family unit: its first best-scoring output (see unit_bests)
    int* feats          # per slot: nf feature buckets
    int* ver            # per token: version (arcs built at or below it)
    int* uo_start       # outputs of family unit u: uo_list[uo_start[u] .. uo_start[u + 1])
    int* uo_list
    int* fg             # scratch: the features of the gold and of the predicted instance
    int* fp
    const int* base     # (kind, list, shift, arcs read) per instance base
    int n_base
    int local
    int slots           # a power of two
    int C
    int nf
    int wstamp          # the weights' stamp
    uint64_t gen        # sentence counter
    uint64_t salt       # step counter (no locality: no reuse across steps)
    size_t last         # the slot inst_scores used last
    uint64_t* pm_step   # PM_WAYS entries per index i0: the step (salt) inst_best scored (i0, pm_i1) at ...
    uint64_t* pm_sig    # ... its signature then ...
    int* pm_slot        # ... its slot (the LEFT and RIGHT instances of one pair share them) ...
    int* pm_i1          # ... and its second index
    int pn              # indexes i0 below pn have entries (the longest sentence's tokens + 1)
    int* act            # the sentence's instances: those of the table whose indexes are its tokens, in table order
    int n_act
    uint64_t* key       # [NLX * kcap * 2]: per list and position, the mixed token, and token and version (inst_keys)
    int kcap
    int klen[NLX]       # the lists' lengths when the keys were made
    uint64_t kstep      # the step (salt) they were made at
    uint64_t seed       # the sentence's signature seed
    uint64_t none_key   # the key of no token
    uint64_t* bmul      # per instance base: an odd multiplier of its key (inst_sig)
    int use_ubest       # inst_best reads ubest (Learner.unit_best) instead of every output's score
    int ng              # instance groups kept (parsing; 0: none): per group g >= 1 ...
    const int* gbase    # ... at gbase[goff[g - 1]]: the count of its bases, then (base index, arcs read) each
    int* goff
    uint64_t* gsig      # [ng * slots]: the group signature held (0: empty)
    float* gsum         # [ng * slots * C]: its sum
    int* gmiss          # scratch [ng + 1]: the slot of each group's sum to make (-1: kept)
    float* gchk         # scratch [C]: the scores from scratch (check: Learner.group_check)
    unsigned int* gref  # scratch [nf]: the rows' references (resolve_rows), in group order
    int check
    long long mismatches
    long long ghits
    long long gmisses
    long long hits
    long long misses


cdef void inst_free(InstCache* ic) noexcept nogil:
    free(ic.sig); free(ic.sstamp); free(ic.sc); free(ic.ubest); free(ic.feats); free(ic.ver)
    free(ic.uo_start); free(ic.uo_list); free(ic.fg); free(ic.fp)
    free(ic.pm_step); free(ic.pm_sig); free(ic.pm_slot); free(ic.pm_i1); free(ic.act); free(ic.key); free(ic.bmul)
    ic.act = NULL; ic.key = NULL; ic.bmul = NULL
    free(ic.goff); free(ic.gsig); free(ic.gsum); free(ic.gmiss); free(ic.gchk); free(ic.gref)
    ic.goff = NULL; ic.gsig = NULL; ic.gsum = NULL; ic.gmiss = NULL; ic.gchk = NULL; ic.gref = NULL
    ic.pm_step = NULL; ic.pm_sig = NULL; ic.pm_slot = NULL; ic.pm_i1 = NULL
    ic.sig = NULL; ic.sstamp = NULL; ic.sc = NULL; ic.ubest = NULL; ic.feats = NULL; ic.ver = NULL
    ic.uo_start = NULL; ic.uo_list = NULL; ic.fg = NULL; ic.fp = NULL


cdef int inst_open(InstCache* ic, const Model* m, int nf, int nact, int maxn, const int* base, int n_base,
                   int local, const int* gbase, int ng) noexcept nogil:
    """Allocate the cache for sentences of up to maxn words whose action table has nact
    instances, with ng instance groups described by gbase (0: none; see the top of this
    file); -1 when out of memory."""
    cdef int slots = 64, u, c, j, k, g
    ic.goff = NULL; ic.gsig = NULL; ic.gsum = NULL; ic.gmiss = NULL; ic.gchk = NULL; ic.gref = NULL
    ic.ng, ic.gbase, ic.ghits, ic.gmisses, ic.check, ic.mismatches = 0, gbase, 0, 0, 0, 0
    while slots < 4 * nact:
        slots *= 2
    ic.slots, ic.C, ic.nf, ic.base, ic.n_base, ic.local = slots, m.C, nf, base, n_base, local
    ic.wstamp, ic.gen, ic.salt, ic.hits, ic.misses = 0, 0, 0, 0, 0
    ic.last, ic.use_ubest = 0, 1
    ic.pn = maxn + 3
    ic.pm_step = <uint64_t*>calloc(<size_t>ic.pn * PM_WAYS, sizeof(uint64_t))
    ic.pm_sig = <uint64_t*>calloc(<size_t>ic.pn * PM_WAYS, sizeof(uint64_t))
    ic.pm_slot = <int*>calloc(<size_t>ic.pn * PM_WAYS, sizeof(int))
    ic.pm_i1 = <int*>calloc(<size_t>ic.pn * PM_WAYS, sizeof(int))
    ic.sig = <uint64_t*>calloc(slots, sizeof(uint64_t))
    ic.sstamp = <int*>malloc(sizeof(int) * slots)
    ic.sc = <float*>malloc(sizeof(float) * <size_t>slots * (m.C + 1))
    ic.ubest = <int*>malloc(sizeof(int) * <size_t>slots * (N_ACTIONS + 1))
    ic.feats = <int*>malloc(sizeof(int) * <size_t>slots * (nf + 1))
    ic.ver = <int*>malloc(sizeof(int) * (maxn + 3))
    ic.act = <int*>malloc(sizeof(int) * (nact + 1))
    ic.n_act = 0
    ic.kcap = maxn + 3
    ic.key = <uint64_t*>malloc(sizeof(uint64_t) * NLX * <size_t>ic.kcap * 2)
    ic.kstep = <uint64_t>-1
    ic.none_key = mix64(<uint64_t>1)
    ic.bmul = <uint64_t*>malloc(sizeof(uint64_t) * (n_base + 1))
    if ic.bmul != NULL:
        for k in range(n_base):
            ic.bmul[k] = mix64(<uint64_t>(k + 1) * <uint64_t>0xA24BAED4963EE407ULL) | 1
    ic.uo_start = <int*>malloc(sizeof(int) * (N_ACTIONS + 2))
    ic.uo_list = <int*>malloc(sizeof(int) * (MAX_CLASS_UNITS * m.C + 1))
    ic.fg = <int*>malloc(sizeof(int) * (nf + 1))
    ic.fp = <int*>malloc(sizeof(int) * (nf + 1))
    if not (ic.pm_step and ic.pm_sig and ic.pm_slot and ic.pm_i1 and ic.sig and ic.sstamp and ic.sc and ic.ubest
            and ic.feats and ic.ver and ic.uo_start and ic.uo_list and ic.fg and ic.fp and ic.act and ic.key
            and ic.bmul):
        inst_free(ic)
        return -1
    if ng > 0 and local:
        ic.goff = <int*>malloc(sizeof(int) * (ng + 1))
        ic.gsig = <uint64_t*>calloc(<size_t>ng * slots, sizeof(uint64_t))
        ic.gsum = <float*>malloc(sizeof(float) * <size_t>ng * slots * m.C + sizeof(float))
        ic.gmiss = <int*>malloc(sizeof(int) * (ng + 1))
        ic.gchk = <float*>malloc(sizeof(float) * (m.C + 1))
        ic.gref = <unsigned int*>malloc(sizeof(unsigned int) * (nf + 1))
        if not (ic.goff and ic.gsig and ic.gsum and ic.gmiss and ic.gchk and ic.gref):
            inst_free(ic)
            return -1
        k = 0
        for g in range(ng):
            ic.goff[g] = k
            k += 1 + 2 * gbase[k]
        ic.ng = ng
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


cdef inline void inst_sentence(InstCache* ic, const St* s, int n) noexcept nogil:
    """A new sentence s of n words (started): versions start over (the sentence counter keeps
    old signatures apart), and its instances are listed: the table is the longest sentence's,
    and an instance whose index is past every list of this one never applies."""
    cdef int a, k = 0
    ic.gen += 1
    ic.seed = mix64(ic.gen * <uint64_t>0x9E3779B97F4A7C15ULL)
    ic.kstep = <uint64_t>-1
    memset(ic.ver, 0, sizeof(int) * (n + 3))
    for a in range(s.nact):
        if s.atab[3 * a + 1] < s.ntok and s.atab[3 * a + 2] < s.ntok:
            ic.act[k] = a
            k += 1
    ic.n_act = k


cdef void inst_keys(InstCache* ic, const St* s, const Feats* fx) noexcept nogil:
    """Per position of every list, the keys of its token for this step (base_key): the token
    mixed, and the token and its version mixed; made once a step (ic.salt) instead of once
    per instance and base."""
    cdef int k, pos, t, L
    cdef uint64_t* row
    if ic.kstep == ic.salt:
        return
    ic.kstep = ic.salt
    for k in range(NLX):
        L = s.hi[k] - s.lo[k]
        L = L if L < ic.kcap else ic.kcap
        ic.klen[k] = L
        row = ic.key + <size_t>k * ic.kcap * 2
        for pos in range(L):
            t = list_at(s, fx, k, pos)
            if t >= 0 and tok_ok(s, t):
                row[2 * pos] = mix64(<uint64_t>(t + 2))
                row[2 * pos + 1] = mix64(<uint64_t>(t + 2) | (<uint64_t>ic.ver[t] << 32)) if ic.ver[t] else row[2 * pos]
            else:
                row[2 * pos] = ic.none_key
                row[2 * pos + 1] = ic.none_key


cdef inline uint64_t base_key(const InstCache* ic, const Feats* fx, int b, int arcs) noexcept nogil:
    """The key of instance base b (a row of ic.base) for the instance (fx.i0, fx.i1): its
    token's key from inst_keys, with the token's version when arcs (a feature reads the arcs
    at or below it), or the key of no token."""
    cdef int lst = ic.base[4 * b + 1]
    cdef int pos = (fx.i0 if ic.base[4 * b] == 3 else fx.i1) - 1 + ic.base[4 * b + 2]
    if pos < 0 or lst < 0 or lst >= NLX or pos >= ic.klen[lst]:
        return ic.none_key
    return ic.key[(<size_t>lst * ic.kcap + pos) * 2 + (1 if arcs else 0)]


cdef uint64_t inst_sig(InstCache* ic, const St* s, const Feats* fx) noexcept nogil:
    """The signature of the instance (fx.i0, fx.i1) in s (never 0): its base tokens with
    their versions (inst_keys), each key times its base's own odd multiplier (so that the
    same tokens in other roles give another signature), combined, then mixed."""
    cdef uint64_t h = ic.seed
    cdef int b
    if not ic.local:
        h = mix64(h ^ (ic.salt * <uint64_t>0xD6E8FEB86659FD93ULL))
        return mix64(h ^ (<uint64_t>(fx.i0 + 1) << 32) ^ <uint64_t>(fx.i1 + 1)) | 1
    inst_keys(ic, s, fx)
    for b in range(ic.n_base):
        h ^= base_key(ic, fx, b, ic.base[4 * b + 3]) * ic.bmul[b]
    return mix64(h) | 1


cdef uint64_t group_sig(const InstCache* ic, const Feats* fx, int g) noexcept nogil:
    """The signature of instance group g (0-based) for the instance (fx.i0, fx.i1): its
    base tokens with their versions where the group reads arcs (the keys inst_sig made this
    step), never 0."""
    cdef const int* gb = ic.gbase + ic.goff[g]
    cdef uint64_t h = ic.seed ^ (<uint64_t>(g + 1) << 56)
    cdef int k
    for k in range(gb[0]):
        h ^= base_key(ic, fx, gb[1 + 2 * k], gb[2 + 2 * k]) * ic.bmul[gb[1 + 2 * k]]
    return mix64(h) | 1


cdef void grouped_scores(InstCache* ic, const St* s, Feats* fx, const Model* m, int* f, float* sc) noexcept nogil:
    """score() of the instance (fx.i0, fx.i1) into sc, each instance group's sum from its
    table when kept (greedy parsing: the weights do not move).  f gets the buckets of the
    templates hashed (those of kept groups are not).  As gc_score: every bucket hashed and
    every row's reference read before the first row is added."""
    cdef int g, n, c
    cdef uint64_t h
    cdef size_t gs
    cdef float* part
    extract_part(s, fx, 0)
    hash_templates(fx, m, m.gord, m.gstart[1], f)
    for g in range(ic.ng):
        h = group_sig(ic, fx, g)
        gs = <size_t>g * ic.slots + <size_t>((h >> 17) & <uint64_t>(ic.slots - 1))
        if ic.gsig[gs] == h:
            ic.gmiss[g] = -1 - <int>gs
            ic.ghits += 1
            part = ic.gsum + gs * m.C
            for c in range(0, m.C, 16):
                TSDSL_PREFETCH(part + c)
        else:
            ic.gsig[gs] = h
            ic.gmiss[g] = <int>gs
            extract_part(s, fx, g + 1)
            hash_templates(fx, m, m.gord + m.gstart[g + 1], m.gstart[g + 2] - m.gstart[g + 1], f)
            ic.gmisses += 1
    if m.sp_ref != NULL:
        resolve_rows(m, f, m.gord, 0, m.gstart[1], ic.gref)
        for g in range(ic.ng):
            if ic.gmiss[g] >= 0:
                resolve_rows(m, f, m.gord + m.gstart[g + 1], 0, m.gstart[g + 2] - m.gstart[g + 1],
                             ic.gref + m.gstart[g + 1])
    memset(sc, 0, sizeof(float) * m.C)
    if m.sp_ref != NULL:
        add_resolved(m, ic.gref, m.gstart[1], sc)
    else:
        add_rows(m, f, m.gord, m.gstart[1], sc)
    for g in range(ic.ng):
        if ic.gmiss[g] >= 0:
            part = ic.gsum + <size_t>ic.gmiss[g] * m.C
            n = m.gstart[g + 2] - m.gstart[g + 1]
            memset(part, 0, sizeof(float) * m.C)
            if m.sp_ref != NULL:
                add_resolved(m, ic.gref + m.gstart[g + 1], n, part)
            else:
                add_rows(m, f, m.gord + m.gstart[g + 1], n, part)
        else:
            part = ic.gsum + <size_t>(-1 - ic.gmiss[g]) * m.C
        tsdsl_add_row(sc, part, m.C)


cdef float* inst_scores(InstCache* ic, const St* s, Feats* fx, const Model* m, bint* kids_ready) noexcept nogil:
    """The C scores of the instance (fx.i0, fx.i1) in s, from the cache when its signature
    and the weights are unchanged."""
    cdef uint64_t sig = inst_sig(ic, s, fx)
    cdef size_t slot = <size_t>((sig >> 17) & <uint64_t>(ic.slots - 1))
    cdef int* f = ic.feats + slot * ic.nf
    cdef float* sc = ic.sc + slot * ic.C
    if ic.ng > 0 and ic.sig[slot] != sig:  # parsing with instance groups: the scores at once
        if fx.need_kids and not kids_ready[0]:
            kids_compute(s, fx.kids, fx.sets)
            kids_ready[0] = True
        grouped_scores(ic, s, fx, m, f, sc)
        if ic.check:  # Learner.group_check: every template hashed and added, as score() does
            extract_core(s, fx, m, ic.fg)
            score(m, ic.fg, ic.nf, ic.gchk)
            if memcmp(ic.gchk, sc, sizeof(float) * m.C) != 0:
                ic.mismatches += 1
        ic.sig[slot] = sig
        ic.sstamp[slot] = ic.wstamp
        unit_bests(ic, sc, ic.ubest + slot * N_ACTIONS)
        ic.misses += 1
        ic.last = slot
        return sc
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
        unit_bests(ic, sc, ic.ubest + slot * N_ACTIONS)
    ic.last = slot
    return sc


cdef void unit_bests(const InstCache* ic, const float* sc, int* out) noexcept nogil:
    """out[u]: the first best-scoring output of family unit u (in output order), -1: none.
    The highest score first (no branch to mispredict), then the first output that has it
    (the scores are finite; -0.0 and 0.0 count as equal, as the comparisons elsewhere); a
    unit whose outputs are consecutive (each label of one class) by the vector argmax."""
    cdef int u, k, lo, hi
    cdef float top, t1, t2, t3, v
    for u in range(N_ACTIONS):
        lo = ic.uo_start[u]
        hi = ic.uo_start[u + 1]
        out[u] = -1
        if lo == hi:
            continue
        if ic.uo_list[hi - 1] - ic.uo_list[lo] == hi - lo - 1:  # consecutive outputs (increasing, distinct)
            out[u] = ic.uo_list[lo] + tsdsl_argmax(sc + ic.uo_list[lo], hi - lo)
            continue
        top = sc[ic.uo_list[lo]]
        t1 = top
        t2 = top
        t3 = top
        k = lo + 1
        while k + 3 < hi:  # four running maxima: no chain of dependent comparisons
            v = sc[ic.uo_list[k]]
            top = v if v > top else top
            v = sc[ic.uo_list[k + 1]]
            t1 = v if v > t1 else t1
            v = sc[ic.uo_list[k + 2]]
            t2 = v if v > t2 else t2
            v = sc[ic.uo_list[k + 3]]
            t3 = v if v > t3 else t3
            k += 4
        while k < hi:
            v = sc[ic.uo_list[k]]
            top = v if v > top else top
            k += 1
        t1 = t1 if t1 > t3 else t3
        top = top if top > t2 else t2
        top = top if top > t1 else t1
        for k in range(lo, hi):
            if sc[ic.uo_list[k]] == top:
                out[u] = ic.uo_list[k]
                break


cdef enum:
    PM_WAYS = 4        # pairs noted per first index (easy-first: 1; non-projective D = 2: 2)


cdef inline Py_ssize_t pair_scored(const InstCache* ic, int i0, int i1) noexcept nogil:
    """The entry of the pair (i0, i1) if inst_best scored it at this step and its slot
    still holds it (same signature, current weights), else -1."""
    cdef Py_ssize_t w, e
    if i0 < 0 or i0 >= ic.pn:
        return -1
    for w in range(PM_WAYS):
        e = <Py_ssize_t>i0 * PM_WAYS + w
        if ic.pm_step[e] == ic.salt and ic.pm_i1[e] == i1:
            if ic.sig[ic.pm_slot[e]] == ic.pm_sig[e] and ic.sstamp[ic.pm_slot[e]] == ic.wstamp:
                return e
            return -1
    return -1


cdef inline void pair_note(InstCache* ic, int i0, int i1) noexcept nogil:
    """Note that the pair (i0, i1) was scored at this step into slot ic.last (if a way is free)."""
    cdef Py_ssize_t w, e
    if i0 < 0 or i0 >= ic.pn:
        return
    for w in range(PM_WAYS):
        e = <Py_ssize_t>i0 * PM_WAYS + w
        if ic.pm_step[e] != ic.salt:
            ic.pm_step[e] = ic.salt
            ic.pm_i1[e] = i1
            ic.pm_sig[e] = ic.sig[ic.last]
            ic.pm_slot[e] = <int>ic.last
            return


cdef int inst_best(InstCache* ic, St* s, Feats* fx, const Model* m, int* best_a, int* best_c,
                   bint* kids_ready, bint root_rule=False) noexcept nogil:
    """The best-scoring (legal instance, output of its family) of s into best_a, best_c
    (first in table and output order on ties); returns how many instances are legal.  With
    root_rule, among the pairs that are not root_label_wrong (best_c -1 if none is): parsing
    asks again so when the best pair is, which is rare."""
    cdef int a, k, c, u, q, count = 0
    cdef Py_ssize_t way
    cdef float* sc
    cdef float top = 0
    best_a[0] = -1
    best_c[0] = -1
    ic.salt += 1
    for q in range(ic.n_act):  # the sentence's instances (inst_sentence), in table order
        a = ic.act[q]
        if not valid_nt(s, a):
            continue
        count += 1
        u = s.atab[3 * a]
        fx.i0 = s.atab[3 * a + 1]
        fx.i1 = s.atab[3 * a + 2]
        way = pair_scored(ic, fx.i0, fx.i1)
        if way >= 0:  # the pair's other instance was scored at this step: same tokens, same scores
            ic.last = ic.pm_slot[way]
            sc = ic.sc + ic.last * ic.C
            ic.hits += 1
        else:
            sc = inst_scores(ic, s, fx, m, kids_ready)
            pair_note(ic, fx.i0, fx.i1)
        if ic.use_ubest and not root_rule:
            c = ic.ubest[ic.last * N_ACTIONS + u]  # the instance's own first best: the same winner
            if c >= 0 and (best_c[0] < 0 or sc[c] > top):
                top = sc[c]
                best_a[0] = a
                best_c[0] = c
            continue
        for k in range(ic.uo_start[u], ic.uo_start[u + 1]):  # (Learner.unit_best off) every output
            c = ic.uo_list[k]
            if root_rule and root_label_wrong(s, m, a, c):
                continue
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
