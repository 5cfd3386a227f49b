
# ---- greedy parsing of a bounded action set ------------------------------------------
# Generic (included at the end of _learn.pxi: it drives a Learner).  One state per sentence;
# each step scores the legal outputs (few of them one by one, see _few.pxi; with scoring
# groups the kept sums of _groups.pxi), takes the first best and applies it.  A step whose
# every outcome is the same configuration is taken without scores (_chains.pxi).

include "_chains.pxi"

def greedy_parse(Learner self, object offsets_, object tokens, object out_heads_, object out_labels_,
                 object nm_log, Py_ssize_t nm_cap):
    """``Learner.parse_greedy`` (see there): a bounded action set, one state per sentence."""
    cdef Corpus cp
    self.need_weights()
    corpus_of(&cp, None, offsets_, tokens, None, None)
    cdef Py_ssize_t n_sent = cp.n_order
    cdef const int* offsets = cp.offsets
    cdef const int64_t* tok = cp.tok
    cdef Py_ssize_t stride = cp.stride
    cdef int* out_heads = int32_data(out_heads_, "heads out", offsets[n_sent], True)
    cdef int* out_labels = int32_data(out_labels_, "labels out", offsets[n_sent], True)
    cdef int* nm = int32_data(nm_log, "arc log", 3 * nm_cap, True)
    cdef Py_ssize_t si, n_nm = 0
    cdef int n, off, maxn = 0, steps, limit, c, p, d, h, u, C = self.m.C, nf = self.fx.n_tpl
    cdef int* note_lab = NULL    # HAS_UNLABELED: per arc h * ntok + d, the noted label, its stamp
    cdef int* note_step = NULL
    cdef float* note_sc = NULL
    cdef int* unit_dep = NULL
    cdef int stamp = 0, first_stamp = 0, k
    cdef size_t arcs
    cdef long long n_steps = 0, n_stuck = 0
    cdef St s
    cdef char* smem
    cdef int* feats
    cdef int* ubuf
    cdef const int* unit = NULL
    cdef const int* legal = NULL
    cdef int n_legal
    cdef LegalMemo lm
    cdef bint memo = self.legal_memo
    cdef bint few = self.few_outputs and not HAS_UNLABELED  # note_labels reads every output's score
    cdef int* pos = NULL
    cdef float scf[FEW_OUTPUTS]
    cdef int* before
    cdef float* sc
    cdef Model* m = &self.m
    cdef GroupCache gc
    cdef bint grouped = m.ngrp > 0
    cdef bint arcs_may_change
    cdef bint check = self.group_check
    cdef long long mismatches = 0
    cdef long long n_few = 0
    cdef Chains ch
    cdef bint chains = self.forced_chains and nm_cap == 0 and not HAS_UNLABELED and not MULTI
    if UNBOUNDED:
        raise ValueError("parsing needs a bounded action set")
    for si in range(n_sent):
        maxn = max(maxn, offsets[si + 1] - offsets[si])
    self.reserve(maxn)
    if grouped and gc_open(&gc, m, &self.fx, self.grp_anchor, self.grp_walks, self.grp_nwalks, maxn) < 0:
        raise MemoryError()
    if chains and chains_open(&ch, maxn, C) < 0:
        if grouped:
            gc_free(&gc)
        raise MemoryError()
    smem = <char*>malloc(st_size(maxn))
    feats = <int*>malloc(sizeof(int) * (nf + 1))
    ubuf = <int*>malloc(sizeof(int) * (2 * C + 1))
    sc = <float*>malloc(sizeof(float) * (2 * C + 1))  # two rows: the self-check scores from scratch
    before = <int*>malloc(sizeof(int) * (maxn + 3))
    pos = <int*>malloc(sizeof(int) * (C + 1))
    if HAS_UNLABELED:
        arcs = <size_t>(maxn + 2) * (maxn + 2) + 1
        note_lab = <int*>malloc(sizeof(int) * arcs)
        note_step = <int*>malloc(sizeof(int) * arcs)
        note_sc = <float*>malloc(sizeof(float) * arcs)
        unit_dep = <int*>malloc(sizeof(int) * 2 * (N_ACTIONS + 1))
        if note_step:
            memset(note_step, 0xFF, sizeof(int) * arcs)  # -1: no stamp
    if not (smem and feats and ubuf and sc and before and pos) or (HAS_UNLABELED and not (note_lab and note_step
                                                                                  and note_sc and unit_dep)):
        free(smem); free(feats); free(ubuf); free(sc); free(before); free(pos)
        free(note_lab); free(note_step); free(note_sc); free(unit_dep)
        if grouped:
            gc_free(&gc)
        if chains:
            chains_free(&ch)
        raise MemoryError()
    for c in range(C):
        pos[c] = -1
    cdef bint stop = False
    with nogil:
        memo_open(&lm, memo)
        for si in range(n_sent):
            if interrupted():
                stop = True
                break
            off = offsets[si]
            n = offsets[si + 1] - off
            st_place_in(&s, n, smem)
            st_start(&s, n)
            first_stamp = stamp
            self.fx.tok = tok + off
            self.fx.stride = stride
            steps = 0
            limit = step_limit(n)
            if grouped:
                gc_sentence(&gc)
            if chains:
                chains_sentence(&ch, n)

            while not st_terminal(&s):
                n_legal = legal_outputs(&lm, &s, m, ubuf, &unit, &legal) if steps < limit else 0
                if n_legal == 0:
                    n_stuck += 1
                    break
                p = -1
                if chains and n_legal == 2 and steps + n + 3 < limit:
                    p = forced_output(&ch, &lm, &s, m, unit, legal, n + 2)
                if few and n_legal == 1:
                    p = legal[0]  # nothing to choose: no scores needed
                    n_few += 1
                elif p >= 0:
                    pass  # every choice from here reaches the same configuration: no scores
                elif few and n_legal <= FEW_OUTPUTS:
                    # few legal outputs (Covington's NO-ARC and SHIFT, say): their scores
                    # alone, the same sums bit for bit, from a few weights of each row
                    for k in range(n_legal):
                        pos[legal[k]] = k
                    if grouped:
                        gc_score_few(&gc, &s, &self.fx, m, feats, legal, n_legal, pos, scf)
                    else:
                        extract(&s, &self.fx, m, feats)
                        score_few(m, feats, nf, legal, n_legal, pos, scf)
                    for k in range(n_legal):
                        pos[legal[k]] = -1
                    if check:  # the self-check: the same scores from scratch
                        extract(&s, &self.fx, m, feats)
                        score(m, feats, nf, sc + C)
                        for k in range(n_legal):
                            if memcmp(&scf[k], &sc[C + legal[k]], sizeof(float)) != 0:
                                mismatches += 1
                                break
                    p = 0  # the first best-scoring legal output
                    for k in range(1, n_legal):
                        if scf[k] > scf[p]:
                            p = k
                    if m.root_lab >= 0 and root_label_wrong(&s, m, unit[legal[p]], legal[p]):
                        p = best_keeping_root_label(&s, m, unit, legal, n_legal, NULL, scf, legal[p])
                    else:
                        p = legal[p]
                    n_few += 1
                else:
                    if grouped:
                        gc_score(&gc, &s, &self.fx, m, feats, sc)
                        if check:  # the self-check tests use: the same scores from scratch
                            extract(&s, &self.fx, m, feats)
                            score(m, feats, nf, sc + C)
                            if memcmp(sc, sc + C, sizeof(float) * C) != 0:
                                mismatches += 1
                    else:
                        extract(&s, &self.fx, m, feats)
                        score(m, feats, nf, sc)
                    if n_legal == C:  # every output legal (NM Covington's steps): a vector argmax
                        p = tsdsl_argmax(sc, C)
                    else:
                        p = legal[0]  # the first best-scoring legal output
                        for k in range(1, n_legal):
                            if sc[legal[k]] > sc[p]:
                                p = legal[k]
                    if m.root_lab >= 0 and root_label_wrong(&s, m, unit[p], p):
                        p = best_keeping_root_label(&s, m, unit, legal, n_legal, sc, NULL, p)
                if HAS_UNLABELED:
                    note_labels(&s, m, unit, sc, stamp, note_lab, note_step, note_sc, unit_dep)
                    stamp += 1
                if nm_cap > 0:
                    memcpy(before, s.head, sizeof(int) * s.ntok)
                arcs_may_change = grouped and unit_arcs[unit[p]]  # else no kept sum can go stale
                if arcs_may_change:
                    gc_before(&gc, &s)
                apply_legal(&s, unit[p], m.cls[p * CLS_W])
                if chains:
                    chains_step(&ch, p)
                if arcs_may_change:
                    gc_after(&gc, &s)
                if nm_cap > 0:
                    for d in range(1, n + 1):
                        if before[d] >= 0 and s.head[d] != before[d]:
                            if n_nm < nm_cap:
                                nm[3 * n_nm] = si
                                nm[3 * n_nm + 1] = d
                                nm[3 * n_nm + 2] = 0 if before[d] == s.root else before[d]
                            n_nm += 1
                steps += 1
                n_steps += 1
            for d in range(1, n + 1):
                out_heads[off + d - 1] = out_head(&s, d)
                out_labels[off + d - 1] = s.lab[d] if s.head[d] >= 0 else -1
                if HAS_UNLABELED and s.head[d] >= 0 and s.lab[d] < 0:
                    # a note of this sentence (stamps only grow), else none
                    k = s.head[d] * s.ntok + d
                    out_labels[off + d - 1] = note_lab[k] if note_step[k] >= first_stamp else -1
        memo_free(&lm)
    free(smem); free(feats); free(ubuf); free(sc); free(before); free(pos)
    free(note_lab); free(note_step); free(note_sc); free(unit_dep)
    if grouped:
        self.cache_hits, self.cache_misses = gc.hits, gc.misses
        gc_free(&gc)
    cdef long long chain_tries = 0, chain_wins = 0
    if chains:
        chains_totals(&ch, C, &chain_tries, &chain_wins)
        chains_free(&ch)
    self.chain_steps = chain_wins
    self.chain_tries = chain_tries
    self.group_mismatches = mismatches  # (without groups, the few-outputs steps' self-check)
    self.few_steps = n_few
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_stuck, n_nm
