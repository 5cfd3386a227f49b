
# ---- multihead (DAG) systems: greedy parsing to graphs -------------------------------------
# Generic (included by the kernels that learn, after _learn.pxi: it drives a Learner; the entry
# point refuses single-head kernels).  The gold-graph search is in _multi.pxi.


def parse_graphs(Learner L, object offsets_, object tokens, object out_arcs_, Py_ssize_t arc_cap):
    """Parse every sentence greedily with a multihead system's model and write every arc of
    the final configuration as (global word index of the dependent, head in CoNLL-U numbering,
    label id or -1, 1 for the word's first arc) into the int32 array out_arcs_ (4 arc_cap slots).  Returns (transitions,
    stuck sentences, arcs): when arcs > arc_cap the log is incomplete (call again with more)."""
    cdef Corpus cp
    L.need_weights()
    corpus_of(&cp, None, offsets_, tokens, None, None)
    cdef Py_ssize_t n_sent = cp.n_order
    cdef const int* offsets = cp.offsets
    cdef const int64_t* tok = cp.tok
    cdef Py_ssize_t stride = cp.stride
    cdef int* out = int32_data(out_arcs_, "arcs out", 4 * arc_cap, True)
    cdef Py_ssize_t si, n_arcs = 0
    cdef int n, off, maxn = 0, steps, limit, c, p, d, h, C = L.m.C, nf = L.fx.n_tpl
    cdef long long n_steps = 0, n_stuck = 0
    cdef St s
    cdef char* smem
    cdef int* feats
    cdef int* unit
    cdef float* sc
    cdef Model* m = &L.m
    cdef Feats* fx = &L.fx
    if not MULTI:
        raise ValueError("parse_graphs is for multihead systems (single-head: Learner.parse_greedy)")
    if UNBOUNDED:
        raise ValueError("parsing needs a bounded action set")
    for si in range(n_sent):
        maxn = max(maxn, offsets[si + 1] - offsets[si])
    L.reserve(maxn)
    smem = <char*>malloc(st_size(maxn))
    feats = <int*>malloc(sizeof(int) * (nf + 1))
    unit = <int*>malloc(sizeof(int) * (C + 1))
    sc = <float*>malloc(sizeof(float) * (C + 1))
    if not (smem and feats and unit and sc):
        free(smem); free(feats); free(unit); free(sc)
        raise MemoryError()
    cdef bint stop = False
    with nogil:
        for si in range(n_sent):
            if interrupted():
                stop = True
                break
            off = offsets[si]
            n = offsets[si + 1] - off
            st_place_in(&s, n, smem)
            st_start(&s, n)
            fx.tok = tok + off
            fx.stride = stride
            steps = 0
            limit = step_limit(n)
            while not st_terminal(&s):
                if steps >= limit or legal_classes(&s, m, unit) == 0:
                    n_stuck += 1
                    break
                extract(&s, fx, m, feats)
                score(m, feats, nf, sc)
                p = -1
                for c in range(C):
                    if unit[c] >= 0 and (p < 0 or sc[c] > sc[p]):
                        p = c
                apply_legal(&s, unit[p], m.cls[p * CLS_W])
                steps += 1
                n_steps += 1
            for d in range(1, n + 1):
                for h in range(s.ntok):
                    if s.adj[h * s.ntok + d]:
                        if n_arcs < arc_cap:
                            out[4 * n_arcs] = off + d - 1
                            out[4 * n_arcs + 1] = 0 if h == s.root else h
                            out[4 * n_arcs + 2] = s.adjlab[h * s.ntok + d]
                            out[4 * n_arcs + 3] = h == s.head[d]   # the word's first arc
                        n_arcs += 1
    free(smem); free(feats); free(unit); free(sc)
    if stop:
        raise KeyboardInterrupt()
    return n_steps, n_stuck, n_arcs
