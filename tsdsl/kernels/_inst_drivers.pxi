
# ---- the drivers: training and parsing over instances (tsdsl.learn.engine calls them) ----
# Generic (included by _learn.pxi after _instances.pxi, whose instance cache they open and
# drive for a Learner).

cdef int open_instances(Learner self, InstCache* ic, int nact, int maxn, bint parsing=False) except -1:
    """Open the instance cache; with parsing (the weights stay as they are), with the
    instance groups (set_instance_groups; none when the groups are not those of score())."""
    if not UNBOUNDED:
        raise ValueError("scoring family instances needs a capacity-inf kernel")
    self.reserve(maxn)
    cdef int ng = self.inst_ng if parsing and self.m.ngrp == self.inst_ng and self.inst_groups_on else 0
    if inst_open(ic, &self.m, self.fx.n_tpl, nact, maxn, self.inst_base, self.n_inst_base,
                 self.inst_local, self.inst_gbase, ng) < 0:
        raise MemoryError()
    ic.check = self.group_check
    ic.use_ubest = self.unit_best
    return 0

def train_instances(Learner self, object offsets_, object tokens, object order_, object actions_, object labels_,
                    object targets_, object starts_, object atab_, int nact):
    """Capacity inf: ``Learner.train_sequence`` along derivations whose actions are instances
    of the action table atab_ ((unit, i0, i1) int32 triples, nact of them, the table of
    the longest sentence).  At each step every legal instance is scored (see
    _instances.pxi); when the best (instance, output) is not the derivation's, the
    weights of the derivation's output move towards the features of its instance and
    those of the predicted output away from the features of the predicted instance.
    Returns (steps, mistakes, stuck sentences)."""
    cdef Corpus cp
    cdef InstCache ic
    self.need_dense()
    corpus_of(&cp, order_, offsets_, tokens, None, None)
    if cp.order == NULL:
        raise ValueError("training needs an order")
    cdef Py_ssize_t n_all = len(offsets_) - 1
    cdef const int* starts = int32_data(starts_, "starts", n_all + 1)
    cdef Py_ssize_t steps_all = starts[n_all]
    cdef const int* actions = int32_data(actions_, "actions", steps_all)
    cdef const int* labels = int32_data(labels_, "labels", steps_all)
    cdef const int* targets = int32_data(targets_, "targets", steps_all)
    cdef const int* atab = int32_data(atab_, "action table", 3 * nact)
    cdef Py_ssize_t oi
    cdef int si, n, off, k, maxn = 0, g, ga, pa, pc, C = self.m.C, nf = self.fx.n_tpl
    cdef long long n_steps = 0, n_wrong = 0, n_stuck = 0
    cdef bint kids_ready
    cdef St s
    cdef char* smem
    cdef Model* m = &self.m
    for oi in range(cp.n_order):
        si = cp.order[oi]
        maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
    for k in range(steps_all):
        if not 0 <= actions[k] < nact:
            raise ValueError(f"derivation step {k}: action {actions[k]} is not in the table of {nact}")
    open_instances(self, &ic, nact, maxn)
    smem = <char*>malloc(st_size(maxn))
    if smem == NULL:
        inst_free(&ic)
        raise MemoryError()
    m.t = self.clock
    cdef bint stop = False
    with nogil:
        for oi in range(cp.n_order):
            if interrupted():
                stop = True
                break
            si = cp.order[oi]
            off = cp.offsets[si]
            n = cp.offsets[si + 1] - off
            st_place_in(&s, n, smem)
            s.atab = atab
            s.nact = nact
            st_start(&s, n)
            inst_sentence(&ic, &s, n)
            self.fx.tok = cp.tok + off
            self.fx.stride = cp.stride
            for k in range(starts[si], starts[si + 1]):
                g = targets[k]
                ga = actions[k]
                if (st_terminal(&s) or not 0 <= g < C or not valid_nt(&s, ga)
                        or not inst_has_output(&ic, atab[3 * ga], g)):
                    n_stuck += 1
                    break
                kids_ready = False
                inst_best(&ic, &s, &self.fx, m, &pa, &pc, &kids_ready)
                if pa != ga or pc != g:
                    inst_features(&s, &self.fx, m, ga, &kids_ready, ic.fg)
                    inst_features(&s, &self.fx, m, pa, &kids_ready, ic.fp)
                    update(m, ic.fg, nf, g, 1.0)
                    update(m, ic.fp, nf, pc, -1.0)
                    ic.wstamp += 1
                    n_wrong += 1
                m.t += 1
                inst_apply(&ic, &s, ga, labels[k])
                n_steps += 1
    self.clock = m.t
    self.cache_hits, self.cache_misses = ic.hits, ic.misses
    free(smem)
    inst_free(&ic)
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_wrong, n_stuck

def train_instances_greedy(Learner self, object gold_heads, object gold_labels, object offsets_, object tokens,
                           object order_, int ol, int dynamic, double explore_p, unsigned long long seed,
                           object atab_, int nact):
    """Capacity inf: ``Learner.train_greedy`` over family instances (Goldberg & Elhadad 2010's
    training when dynamic: the weights move towards the best-scoring (instance, output)
    of least labeled cost under the declared loss ol, away from the prediction, when the
    prediction costs more).  atab_ as for train_instances.  Returns (steps,
    mistakes, stuck sentences)."""
    cdef Corpus cp
    cdef InstCache ic
    self.need_dense()
    need_loss(ol)
    corpus_of(&cp, order_, offsets_, tokens, gold_heads, gold_labels)
    if cp.heads == NULL or cp.order == NULL:
        raise ValueError("training needs gold heads and labels, and an order")
    cdef const int* atab = int32_data(atab_, "action table", 3 * nact)
    cdef Py_ssize_t oi
    cdef int si, n, off, k, a, q, u, c, lab, h, d, cost, mc, maxn = 0, steps, limit, nf = self.fx.n_tpl
    cdef int pa, pc, pcost, ga, gc, arc
    cdef float ps, gs
    cdef long long n_steps = 0, n_wrong = 0, n_stuck = 0
    cdef uint64_t rng = seed * 2 + 1
    cdef bint kids_ready
    cdef float* sc
    cdef St s, tmp
    cdef char* smem
    cdef char* tmem
    cdef int* blk
    cdef int* urow
    cdef Model* m = &self.m
    for oi in range(cp.n_order):
        si = cp.order[oi]
        maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
    open_instances(self, &ic, nact, maxn)
    smem = <char*>malloc(st_size(maxn))
    tmem = <char*>malloc(st_size(maxn))
    blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
    urow = <int*>malloc(sizeof(int) * (nact + 1))
    if not (smem and tmem and blk and urow):
        free(smem); free(tmem); free(blk); free(urow)
        inst_free(&ic)
        raise MemoryError()
    m.t = self.clock
    cdef bint stop = False
    with nogil:
        for oi in range(cp.n_order):
            if interrupted():
                stop = True
                break
            si = cp.order[oi]
            off = cp.offsets[si]
            n = cp.offsets[si + 1] - off
            if gold_fill(n, &cp.heads[off], &cp.labels[off], blk) < 0:
                continue
            st_place_in(&s, n, smem)
            s.atab = atab
            s.nact = nact
            st_start(&s, n)
            gold_attach(&s, blk)
            st_place_in(&tmp, n, tmem)
            tmp.atab = atab
            tmp.nact = nact
            st_start(&tmp, n)
            gold_attach(&tmp, blk)
            inst_sentence(&ic, &s, n)
            self.fx.tok = cp.tok + off
            self.fx.stride = cp.stride
            steps = 0
            limit = step_limit(n)
            while not st_terminal(&s):
                if steps >= limit:
                    n_stuck += 1
                    break
                all_costs_nt(&s, &tmp, ol, urow)
                kids_ready = False
                ic.salt += 1
                pa = pc = ga = gc = -1
                ps = gs = 0
                pcost = mc = ILLEGAL
                for q in range(ic.n_act):
                    a = ic.act[q]
                    if urow[a] == ILLEGAL or not valid_nt(&s, a):
                        continue
                    u = s.atab[3 * a]
                    self.fx.i0 = s.atab[3 * a + 1]
                    self.fx.i1 = s.atab[3 * a + 2]
                    sc = inst_scores(&ic, &s, &self.fx, m, &kids_ready)
                    arc = arc_of(&s, a, &h, &d) and s.gold[d] == h
                    for k in range(ic.uo_start[u], ic.uo_start[u + 1]):
                        c = ic.uo_list[k]
                        lab = m.cls[c * CLS_W]
                        cost = urow[a] + (1 if arc and lab >= 0 and s.glab[d] != lab else 0)
                        if pa < 0 or sc[c] > ps:
                            pa, pc, ps, pcost = a, c, sc[c], cost
                        if ga < 0 or cost < mc or (cost == mc and dynamic and sc[c] > gs):
                            ga, gc, gs, mc = a, c, sc[c], cost
                if pa < 0:
                    n_stuck += 1
                    break
                if (pcost != mc) if dynamic else (pa != ga or pc != gc):
                    inst_features(&s, &self.fx, m, ga, &kids_ready, ic.fg)
                    inst_features(&s, &self.fx, m, pa, &kids_ready, ic.fp)
                    update(m, ic.fg, nf, gc, 1.0)
                    update(m, ic.fp, nf, pc, -1.0)
                    ic.wstamp += 1
                    n_wrong += 1
                m.t += 1
                if dynamic and explore_p > 0 and rng_unit(&rng) < explore_p:
                    inst_apply(&ic, &s, pa, m.cls[pc * CLS_W])
                else:
                    inst_apply(&ic, &s, ga, m.cls[gc * CLS_W])
                steps += 1
                n_steps += 1
    self.clock = m.t
    self.cache_hits, self.cache_misses = ic.hits, ic.misses
    free(smem); free(tmem); free(blk); free(urow)
    inst_free(&ic)
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_wrong, n_stuck

def parse_instances(Learner self, object offsets_, object tokens, object out_heads_, object out_labels_,
                    object atab_, int nact):
    """Capacity inf: parse every sentence greedily, taking at each step the best (legal
    instance, output of its family); atab_ as for train_instances (the table of
    the longest sentence).  Heads and labels as ``Learner.parse_greedy``.  Returns
    (transitions, stuck sentences)."""
    cdef Corpus cp
    cdef InstCache ic
    self.need_weights()
    corpus_of(&cp, None, offsets_, tokens, None, None)
    cdef Py_ssize_t n_sent = cp.n_order
    cdef int* out_heads = int32_data(out_heads_, "heads out", cp.offsets[n_sent], True)
    cdef int* out_labels = int32_data(out_labels_, "labels out", cp.offsets[n_sent], True)
    cdef const int* atab = int32_data(atab_, "action table", 3 * nact)
    cdef Py_ssize_t si
    cdef int n, off, d, maxn = 0, steps, limit, pa, pc, a_kept, c_kept
    cdef long long n_steps = 0, n_stuck = 0
    cdef bint kids_ready
    cdef St s
    cdef char* smem
    cdef Model* m = &self.m
    for si in range(n_sent):
        maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
    open_instances(self, &ic, nact, maxn, True)
    smem = <char*>malloc(st_size(maxn))
    if smem == NULL:
        inst_free(&ic)
        raise MemoryError()
    cdef bint stop = False
    with nogil:
        for si in range(n_sent):
            if interrupted():
                stop = True
                break
            off = cp.offsets[si]
            n = cp.offsets[si + 1] - off
            st_place_in(&s, n, smem)
            s.atab = atab
            s.nact = nact
            st_start(&s, n)
            inst_sentence(&ic, &s, n)
            self.fx.tok = cp.tok + off
            self.fx.stride = cp.stride
            steps = 0
            limit = step_limit(n)
            while not st_terminal(&s):
                kids_ready = False
                if steps >= limit or inst_best(&ic, &s, &self.fx, m, &pa, &pc, &kids_ready) == 0:
                    n_stuck += 1
                    break
                if m.root_lab >= 0 and root_label_wrong(&s, m, pa, pc):
                    a_kept, c_kept = pa, pc
                    inst_best(&ic, &s, &self.fx, m, &pa, &pc, &kids_ready, True)
                    if pc < 0:  # every legal pair is wrong: keep the best
                        pa, pc = a_kept, c_kept
                inst_apply(&ic, &s, pa, m.cls[pc * CLS_W])
                steps += 1
                n_steps += 1
            for d in range(1, n + 1):
                out_heads[off + d - 1] = out_head(&s, d)
                out_labels[off + d - 1] = s.lab[d] if s.head[d] >= 0 else -1
    self.cache_hits, self.cache_misses = ic.hits, ic.misses
    self.group_hits, self.group_misses = ic.ghits, ic.gmisses
    if ic.check:
        self.group_mismatches = ic.mismatches
    free(smem)
    inst_free(&ic)
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_stuck
