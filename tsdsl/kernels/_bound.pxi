# ---- the bound head: greedy steps an unlabeled output wins without the labeled rows ----
# Generic (included by _learn.pxi after _model.pxi, _groups.pxi and _few.pxi).  Most greedy
# steps of Covington's parser (NO-ARC, SHIFT), and many of arc-eager's and arc-standard's
# (SHIFT, REDUCE), take an unlabeled output, and yet scoring the step reads every row whole
# for the labeled ones.  The bound head (tsdsl.learn.bound) keeps, per bucket, the row's
# weights of the unlabeled outputs and, per family of labeled outputs (the outputs of one
# action: LEFT-ARC's labels, RIGHT-ARC's), the family's largest weight (0 where a sparse row
# lacks one of its outputs: that weight is 0).  Summed in score()'s order (the direct
# templates' head entries, then each group's kept sum and its largest output per family), the
# first give the unlabeled outputs' scores bit for bit, and the others a number at least the
# score of each labeled output of the family: each term is at least that output's term, and
# float addition in round-to-nearest is monotone, so the sums keep the order term by term.
# When the best legal unlabeled output scores strictly more than the bound of every family
# with a legal output, it is the output
# score() would pick (the first best legal one), and the step is decided from one small
# entry per row.  Otherwise parse_greedy adds the rows whole, as before.  With
# Learner.group_check set, it compares every decision and sum with score() from scratch.
#
# A step the bound does not decide costs its head entries on top of the rows, so parse_greedy
# tries the bound only for legality patterns where it has decided at least half of the steps
# so far (BoundUse; every pattern's first BOUND_TRIAL steps are tried, and a pattern left off
# is tried again every BOUND_RETRY-th step).  On en_gum it decides 63% to 65% of the scored
# steps of Covington's parsers, 12% to 22% of arc-eager's and arc-standard's.


cdef extern from *:
    """
    /* acc[j] += head[f * hw + j] for the bucket f of each of n templates (feats[idx[k]], or
       feats[k] when idx is NULL), in template order, for every column j < hw (hw 2, 4 or 8):
       the head's column sums, each one addition per row as in the scalar loop. */
    #ifdef TSDSL_F16C
    __attribute__((target("avx2,f16c")))
    static void tsdsl_head_sum16_f16c(float* acc, const unsigned short* head, const int* feats, const int* idx,
                                      int n, int hw) {
        int k;
        if (hw == 8) {
            __m256 a = _mm256_loadu_ps(acc);
            for (k = 0; k < n; k++)
                a = _mm256_add_ps(a, _mm256_cvtph_ps(_mm_loadu_si128(
                    (const __m128i*)(head + (size_t)feats[idx ? idx[k] : k] * 8))));
            _mm256_storeu_ps(acc, a);
        } else if (hw == 4) {
            __m128 a = _mm_loadu_ps(acc);
            for (k = 0; k < n; k++)
                a = _mm_add_ps(a, _mm_cvtph_ps(_mm_loadl_epi64(
                    (const __m128i*)(head + (size_t)feats[idx ? idx[k] : k] * 4))));
            _mm_storeu_ps(acc, a);
        } else {
            for (k = 0; k < n; k++) {
                const unsigned short* h = head + (size_t)feats[idx ? idx[k] : k] * hw;
                for (int j = 0; j < hw; j++) acc[j] += _cvtsh_ss(h[j]);
            }
        }
    }
    #endif
    static void tsdsl_head_sum16(float* acc, const unsigned short* head, const int* feats, const int* idx, int n,
                                 int hw) {
    #ifdef TSDSL_F16C
        if (tsdsl_f16c < 0) tsdsl_use_f16c(1);
        if (tsdsl_f16c) { tsdsl_head_sum16_f16c(acc, head, feats, idx, n, hw); return; }
    #endif
        for (int k = 0; k < n; k++) {
            const unsigned short* h = head + (size_t)feats[idx ? idx[k] : k] * hw;
            for (int j = 0; j < hw; j++) acc[j] += tsdsl_half_to_float(h[j]);
        }
    }
    static void tsdsl_head_sum32(float* acc, const float* head, const int* feats, const int* idx, int n, int hw) {
        for (int k = 0; k < n; k++) {
            const float* h = head + (size_t)feats[idx ? idx[k] : k] * hw;
            for (int j = 0; j < hw; j++) acc[j] += h[j];
        }
    }
    """
    void tsdsl_head_sum16(float* acc, const unsigned short* head, const int* feats, const int* idx, int n,
                          int hw) noexcept nogil
    void tsdsl_head_sum32(float* acc, const float* head, const int* feats, const int* idx, int n,
                          int hw) noexcept nogil


cdef enum:
    BOUND_TRIAL = 32   # the steps of a legality pattern on which the bound is always tried
    BOUND_RETRY = 16   # a pattern where it rarely decides is tried again every this many steps


cdef struct BoundUse:
    int* tries         # per legality pattern (LegalMemo.last): steps the bound was tried on ...
    int* wins          #   ... and decided
    int* skips         #   ... and not tried
    int* fams          #   the families with a legal output (bit f), -1: not known yet
    int n              # patterns (1 when legal outputs are not memoized)


cdef int bound_open(BoundUse* bu, bint memo) noexcept nogil:
    """Counters for every legality pattern (``memo``: LegalMemo.on, so LegalMemo.last names
    the step's pattern; else one set of counters for all); -1 when out of memory."""
    bu.n = (1 << N_ACTIONS) if memo and N_ACTIONS <= MEMO_UNITS else 1
    bu.tries = <int*>calloc(bu.n, sizeof(int))
    bu.wins = <int*>calloc(bu.n, sizeof(int))
    bu.skips = <int*>calloc(bu.n, sizeof(int))
    bu.fams = <int*>malloc(sizeof(int) * bu.n)
    if not (bu.tries and bu.wins and bu.skips and bu.fams):
        bound_free(bu)
        return -1
    memset(bu.fams, 0xFF, sizeof(int) * bu.n)
    return 0


cdef void bound_free(BoundUse* bu) noexcept nogil:
    free(bu.tries); free(bu.wins); free(bu.skips); free(bu.fams)
    bu.tries = NULL; bu.wins = NULL; bu.skips = NULL; bu.fams = NULL


cdef inline bint bound_wanted(BoundUse* bu, int pattern) noexcept nogil:
    """Whether to try the bound on a step of this legality pattern (see above)."""
    if bu.tries[pattern] < BOUND_TRIAL or 2 * bu.wins[pattern] >= bu.tries[pattern]:
        return True
    bu.skips[pattern] += 1
    return bu.skips[pattern] % BOUND_RETRY == 0


cdef void family_max(const Model* m, const float* row, float* out) noexcept nogil:
    """out[f]: the largest entry of a full row (C outputs) over the labeled outputs of family f."""
    cdef int c, f
    for f in range(m.n_fam):
        out[f] = -3.4e38
    for c in range(m.C):
        f = m.fam_of[c]
        if f >= 0 and row[c] > out[f]:
            out[f] = row[c]


cdef int bound_pick(GroupCache* gc, const St* s, Feats* fx, const Model* m, int* feats, int nf,
                    const int* legal, int n_legal, float* unl_scores, BoundUse* bu, int pattern) noexcept nogil:
    """The output score() would pick for state s when a legal unlabeled one wins by the
    bound (see above), else -1; either way feats then holds the direct templates' buckets
    (every template's, without groups) and every group's sum is current, so gc_score(...,
    hashed=True) or score() finishes the step.  ``unl_scores``: the unlabeled outputs' scores
    (n_unl floats).  gc is NULL for a model without scoring groups.  The try and its outcome
    are counted in bu under the step's legality pattern."""
    cdef int k, j, f, g, nd, best = -1, U = m.n_unl, F = m.n_fam, hw = m.hw
    cdef int fams = bu.fams[pattern] if bu.n > 1 else -1
    cdef float ub[HEAD_MAX]
    cdef float acc[HEAD_MAX]
    cdef const int* idx
    cdef size_t q, b
    cdef float* part
    cdef float* fmax
    if fams < 0:  # the families with a legal output: once per pattern
        fams = 0
        for k in range(n_legal):
            f = m.fam_of[legal[k]]
            if f >= 0:
                fams |= 1 << f
        if bu.n > 1:
            bu.fams[pattern] = fams
    bu.tries[pattern] += 1
    if gc != NULL:
        if fx.need_kids:
            kids_compute(s, fx.kids, fx.sets)
        extract_atoms(s, fx)
        hash_templates(fx, m, m.gord, m.gstart[1], feats)
        idx = m.gord
        nd = m.gstart[1]
    else:
        extract(s, fx, m, feats)
        idx = NULL
        nd = nf
    for k in range(nd):  # the head entries are scattered: ask for all of them at once
        b = <size_t>feats[idx[k] if idx != NULL else k] * hw
        if m.head16 != NULL:
            TSDSL_PREFETCH(m.head16 + b)
        else:
            TSDSL_PREFETCH(m.head32 + b)
    for j in range(HEAD_MAX):
        acc[j] = 0
    if m.head16 != NULL:
        tsdsl_head_sum16(acc, m.head16, feats, idx, nd, hw)
    else:
        tsdsl_head_sum32(acc, m.head32, feats, idx, nd, hw)
    for j in range(U):
        unl_scores[j] = acc[j]
    for f in range(F):
        ub[f] = acc[U + f]
    if gc != NULL:
        for g in range(1, m.ngrp + 1):
            part = gc_part(gc, s, fx, m, feats, g, &q)
            fmax = gc.pmax + q * HEAD_MAX
            for j in range(U):
                unl_scores[j] += part[m.unl[j]]
            for f in range(F):
                ub[f] += fmax[f]
    for k in range(n_legal):  # the first best legal unlabeled output (legal is in output order)
        j = m.unl_col[legal[k]]
        if j >= 0 and (best < 0 or unl_scores[j] > unl_scores[best]):
            best = j
    if best < 0:
        return -1
    for f in range(F):  # every labeled output of a family with a legal one scores at most ub[f]
        if (fams >> f) & 1 and not unl_scores[best] > ub[f]:
            return -1
    bu.wins[pattern] += 1
    return m.unl[best]
