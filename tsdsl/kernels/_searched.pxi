
# ---- greedy training with the search as a non-deterministic oracle ----------------------
# Generic (included by every kernel, after _search.pxi).  For specs without an oracle that
# says when a transition is free (none declared, or only a lower bound such as easy-first's
# with bounded capacity): an output costs nothing exactly when the gold tree is still derivable
# after it, with its label the gold one, and the derivation search (_search.pxi) decides that
# from any configuration.  Training keeps one known derivation of the gold tree from the
# current configuration (the plan); the model's best output is free when it is the plan's next
# step or when a search from the configuration it leads to finds a derivation.  Otherwise the
# weights move towards the best-scoring free output (the outputs scoring above the plan's are
# searched in score order; the plan's own step is free) and away from the prediction.  The
# free output taken is the best-scoring one, so the parser learns its own order among the
# derivations of the gold tree (Goldberg & Nivre 2012's non-deterministic oracle; Goldberg &
# Elhadad 2010's easy-first update) instead of the one canonical order of the static oracle.
# Without costs for configurations the gold tree cannot be reached from, there is no
# exploration.


def train_searched(Learner self, object gold_heads, object gold_labels, object offsets_, object tokens,
                   object order_, object try_order, long long budget, int gap=-1, bint bottom_up=False,
                   int anchor=-1, object guide_lists=None, object guide_kinds=None):
    """One pass of greedy training with the search as the oracle (see the top of this file).
    Arrays as in :meth:`Learner.train_greedy`; try_order: the search's action order (int32,
    N_ACTIONS; None: spec order); budget: configurations one search may expand (a search over
    it counts as not free); gap, bottom_up, anchor, guide_lists, guide_kinds: the search's
    pruning and guided order, as :func:`derive` takes them.  Returns (steps, mistakes,
    sentences without a derivation within the budget, stuck, or not ending in their gold
    tree, searches run)."""
    cdef Corpus cp
    cdef Learner L = self
    L.need_dense()
    corpus_of(&cp, order_, offsets_, tokens, gold_heads, gold_labels)
    if cp.heads == NULL or cp.order == NULL:
        raise ValueError("training needs gold heads and labels, and an order")
    if UNBOUNDED or MULTI:
        raise ValueError("training by search needs a bounded, single-head action set")
    cdef const int* order = NULL
    cdef Py_ssize_t oi
    cdef int si, n, off, maxn = 0, limit, c, p, g, pc, k, j, m_c, pos, plan_len, cand_len, r, h, d, lab
    cdef int C = L.m.C, nf = L.fx.n_tpl
    cdef long long n_steps = 0, n_wrong = 0, n_stuck = 0, n_search = 0
    cdef bint oom = False
    cdef St s
    cdef Search w
    cdef Model* m = &L.m
    cdef char* smem
    cdef int* blk
    cdef int* glab
    cdef int* feats
    cdef int* unit
    cdef int* ccost
    cdef int* ubest
    cdef int* plan
    cdef int* cand
    cdef int* ranked
    cdef float* sc
    if try_order is not None:
        order = int32_data(try_order, "action order", N_ACTIONS)
    check_guide(guide_lists, guide_kinds)
    for oi in range(cp.n_order):
        si = cp.order[oi]
        maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
    L.reserve(maxn)
    limit = step_limit(maxn) + 4
    smem = <char*>malloc(st_size(maxn))
    blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
    feats = <int*>malloc(sizeof(int) * (nf + 1))
    unit = <int*>malloc(sizeof(int) * (C + 1))
    ccost = <int*>malloc(sizeof(int) * (C + 1))
    ubest = <int*>malloc(sizeof(int) * 2 * (N_ACTIONS + 1))
    plan = <int*>malloc(sizeof(int) * 4 * limit)   # plan actions, plan labels, candidate actions, labels
    sc = <float*>malloc(sizeof(float) * (C + 1))
    ranked = <int*>malloc(sizeof(int) * (C + 1))
    if not (smem and blk and feats and unit and ccost and ubest and plan and sc and ranked) or search_alloc(&w, maxn) < 0:
        free(smem); free(blk); free(feats); free(unit); free(ccost); free(ubest); free(plan); free(sc); free(ranked)
        raise MemoryError()
    if search_setup(&w, gap, bottom_up, anchor, guide_lists, guide_kinds) < 0:
        search_free(&w)
        free(smem); free(blk); free(feats); free(unit); free(ccost); free(ubest); free(plan); free(sc); free(ranked)
        raise MemoryError()
    cand = plan + 2 * limit
    m.t = L.clock
    cdef bint stop = False
    with nogil:
        for oi in range(cp.n_order):
            if interrupted():  # once a sentence: Ctrl-C stops training
                stop = True
                break
            si = cp.order[oi]
            off = cp.offsets[si]
            n = cp.offsets[si + 1] - off
            if gold_fill(n, &cp.heads[off], &cp.labels[off], blk) < 0:
                n_stuck += 1
                continue
            glab = blk + (n + 2)
            search_gold(&w, n, blk)
            st_place_in(&s, n, smem)
            st_start(&s, n)
            n_search += 1
            r = searched_plan(&w, n, &cp.heads[off], blk, order, budget, &s, -1, -1, plan, plan + limit, &plan_len)
            if r != 1:
                oom = oom or r == -2
                n_stuck += 1
                continue
            pos = 0
            L.fx.tok = cp.tok + off
            L.fx.stride = cp.stride
            while not st_terminal(&s):
                if pos >= plan_len or legal_classes(&s, m, unit) == 0:
                    n_stuck += 1
                    break
                extract(&s, &L.fx, m, feats)
                score(m, feats, nf, sc)
                p = -1
                pc = -1
                for c in range(C):
                    if unit[c] < 0:
                        continue
                    if p < 0 or sc[c] > sc[p]:
                        p = c
                    if unit[c] == plan[pos] and (m.cls[c * CLS_W] == plan[limit + pos] or plan[limit + pos] < 0):
                        pc = c
                if pc < 0:       # the plan's step has no output (a label never seen in training)
                    n_stuck += 1
                    break
                g = pc
                if p != pc:
                    # the outputs scoring above the plan's, best first: the first free one is the target
                    m_c = 0
                    for c in range(C):
                        if unit[c] >= 0 and sc[c] > sc[pc]:
                            k = m_c
                            while k > 0 and sc[ranked[k - 1]] < sc[c]:
                                ranked[k] = ranked[k - 1]
                                k -= 1
                            ranked[k] = c
                            m_c += 1
                    for k in range(m_c):
                        c = ranked[k]
                        if m.cls[c * CLS_W] != gold_label(&s, unit[c], glab):
                            continue     # a wrong label (or a label on an action that builds no labeled arc)
                        n_search += 1
                        r = searched_plan(&w, n, &cp.heads[off], blk, order, budget, &s, unit[c],
                                          m.cls[c * CLS_W], cand, cand + limit, &cand_len)
                        if r == -2:
                            oom = True
                        if r == 1:
                            g = c
                            for j in range(cand_len):
                                plan[j] = cand[j]
                                plan[limit + j] = cand[limit + j]
                            plan_len = cand_len
                            pos = 0
                            break
                    if g != p:
                        update(m, feats, nf, g, 1.0)
                        update(m, feats, nf, p, -1.0)
                        n_wrong += 1
                if HAS_UNLABELED:
                    for c in range(C):   # labeled outputs: 0 where they build a gold arc with its label
                        ccost[c] = ILLEGAL
                        lab = m.cls[c * CLS_W]
                        if unit[c] >= 0 and lab >= 0 and arc_of(&s, unit[c], &h, &d):
                            ccost[c] = 0 if (blk[d] == h and glab[d] == lab) else 1
                    train_noted_labels(m, feats, nf, unit, sc, ccost, ubest)
                m.t += 1
                apply_legal(&s, unit[g], m.cls[g * CLS_W])
                pos += 1
                n_steps += 1
            if st_terminal(&s) and not derived(&s, &cp.heads[off]):
                n_stuck += 1     # never, if the search is right: every step taken was free
    L.clock = m.t
    L.check_sums()
    search_free(&w)
    free(smem); free(blk); free(feats); free(unit); free(ccost); free(ubest); free(plan); free(sc); free(ranked)
    if oom:
        raise MemoryError("the derivation search ran out of memory")
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_wrong, n_stuck, n_search
