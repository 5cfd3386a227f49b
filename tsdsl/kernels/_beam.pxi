
# ---- beam search: the workspace and the steps training and parsing share ---------------
# Generic (included by _learn.pxi, before the Learner that drives it).  Items are kept by
# total score; every expansion is recorded as a history node (parent, output, feature
# row) so that an early update can replay the gold and the predicted histories.

cdef struct Beam:
    int B, maxn, nf, C, hist_cap
    char* mem
    St* cur              # [B] items
    St* nxt              # [B] the next step's items
    St gs                # training: the gold item, following the oracle
    St tmp               # training: scratch state for costs
    int* blk             # training: the gold tree's block (gold_fill)
    int* feats           # [B + 1] the feature row of each item's last expansion
    int* unit            # [B + 1] rows of C units (row B: the gold item)
    int* urow
    int* ccost           # [B + 1] rows of C costs
    float* sc            # [B + 1] rows of C scores
    double* bscore       # item scores
    int* bloss           # item losses (training)
    int* bnode           # item history node
    bint* bdone          # item terminal or stuck
    double* cand_s       # candidates: score, item, output
    int* cand_i
    int* cand_c
    int* hist            # history nodes: parent, output, feature row
    int* hfeat           # feature rows of expanded items
    int nb, n_nodes, n_frows, gnode, gloss
    double gscore
    bint gold_done


cdef int beam_alloc(Beam* w, int B, int maxn, int nf, int C) noexcept nogil:
    """Allocate the workspace for beams of width B over sentences of at most maxn words
    (-1: out of memory, everything freed)."""
    memset(w, 0, sizeof(Beam))
    w.B = B
    w.maxn = maxn
    w.nf = nf
    w.C = C
    w.hist_cap = (B + 1) * (4 * maxn + 32)
    w.mem = <char*>malloc(st_size(maxn) * (2 * B + 2))
    w.cur = <St*>malloc(sizeof(St) * B)
    w.nxt = <St*>malloc(sizeof(St) * B)
    w.blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
    w.feats = <int*>malloc(sizeof(int) * nf * (B + 1) + 1)
    w.unit = <int*>malloc(sizeof(int) * C * (B + 1) + 1)
    w.urow = <int*>malloc(sizeof(int) * (N_ACTIONS + 1))
    w.ccost = <int*>malloc(sizeof(int) * C * (B + 1) + 1)
    w.sc = <float*>malloc(sizeof(float) * C * (B + 1) + 1)
    w.bscore = <double*>malloc(sizeof(double) * B)
    w.bloss = <int*>malloc(sizeof(int) * B)
    w.bnode = <int*>malloc(sizeof(int) * B)
    w.bdone = <bint*>malloc(sizeof(bint) * B)
    w.cand_s = <double*>malloc(sizeof(double) * B * C + 1)
    w.cand_i = <int*>malloc(sizeof(int) * B * C + 1)
    w.cand_c = <int*>malloc(sizeof(int) * B * C + 1)
    w.hist = <int*>malloc(sizeof(int) * 3 * w.hist_cap)
    w.hfeat = <int*>malloc(sizeof(int) * <size_t>nf * w.hist_cap + 1)
    if not (w.mem and w.cur and w.nxt and w.blk and w.feats and w.unit and w.urow and w.ccost and w.sc
            and w.bscore and w.bloss and w.bnode and w.bdone and w.cand_s and w.cand_i and w.cand_c and w.hist
            and w.hfeat):
        beam_free(w)
        return -1
    return 0


cdef void beam_free(Beam* w) noexcept nogil:
    free(w.mem); free(w.cur); free(w.nxt); free(w.blk); free(w.feats); free(w.unit); free(w.urow)
    free(w.ccost); free(w.sc); free(w.bscore); free(w.bloss); free(w.bnode); free(w.bdone); free(w.cand_s)
    free(w.cand_i); free(w.cand_c); free(w.hist); free(w.hfeat)
    memset(w, 0, sizeof(Beam))


cdef void beam_start(Beam* w, int n, bint train) noexcept nogil:
    """One item, the initial configuration for n words; with train, the gold item too and
    the gold tree (already in w.blk) attached to both."""
    cdef int i, B = w.B
    cdef size_t size = st_size(w.maxn)
    for i in range(B):
        st_place_in(&w.cur[i], n, w.mem + size * i)
        st_place_in(&w.nxt[i], n, w.mem + size * (B + i))
    st_start(&w.cur[0], n)
    st_place_in(&w.gs, n, w.mem + size * (2 * B))
    st_place_in(&w.tmp, n, w.mem + size * (2 * B + 1))
    st_start(&w.tmp, n)  # gold_attach reads the lists
    st_start(&w.gs, n)
    if train:
        gold_attach(&w.cur[0], w.blk)
        gold_attach(&w.gs, w.blk)
        gold_attach(&w.tmp, w.blk)
    w.nb = 1
    w.bscore[0] = 0
    w.bloss[0] = 0
    w.bnode[0] = -1
    w.bdone[0] = st_terminal(&w.cur[0])
    w.gnode = -1
    w.gloss = 0
    w.gscore = 0
    w.gold_done = st_terminal(&w.gs)
    w.n_nodes = 0
    w.n_frows = 0


cdef int beam_live(Beam* w) noexcept nogil:
    """How many items can still move."""
    cdef int i, live = 0
    for i in range(w.nb):
        live += not w.bdone[i]
    return live


cdef int beam_reserve(Beam* w) noexcept nogil:
    """Room in the history for one more step (-1: out of memory)."""
    cdef int used = w.n_nodes if w.n_nodes > w.n_frows else w.n_frows
    if used + w.B + 1 > w.hist_cap:
        return grow(&w.hist, &w.hfeat, &w.hist_cap, w.nf)
    return 0


cdef void beam_gold_step(Beam* w, Feats* fx, Model* m, int ol, bint dynamic) noexcept nogil:
    """The gold item takes the oracle's best output (dynamic: the best-scoring of least
    cost; static: the first) and records it in the history."""
    cdef int c, k, g, mc, frow, B = w.B, C = w.C, nf = w.nf
    if legal_classes(&w.gs, m, w.unit + B * C) == 0:
        w.gold_done = True
        return
    frow = w.n_frows
    w.n_frows += 1
    extract(&w.gs, fx, m, w.hfeat + <size_t>frow * nf)
    score(m, w.hfeat + <size_t>frow * nf, nf, w.sc + B * C)
    class_costs(&w.gs, &w.tmp, m, ol, w.unit + B * C, w.urow, w.ccost + B * C)
    mc = ILLEGAL
    for c in range(C):
        k = w.ccost[B * C + c]
        if k != ILLEGAL and (mc == ILLEGAL or k < mc):
            mc = k
    g = -1
    for c in range(C):
        if w.ccost[B * C + c] == mc and (g < 0 or (dynamic and w.sc[B * C + c] > w.sc[B * C + g])):
            g = c
    w.hist[3 * w.n_nodes] = w.gnode
    w.hist[3 * w.n_nodes + 1] = g
    w.hist[3 * w.n_nodes + 2] = frow
    w.gnode = w.n_nodes
    w.n_nodes += 1
    w.gloss += mc
    w.gscore += w.sc[B * C + g]
    apply_legal(&w.gs, w.unit[B * C + g], m.cls[g * CLS_W])
    w.gold_done = st_terminal(&w.gs)


cdef bint beam_expand(Beam* w, Feats* fx, Model* m, bint train, int ol) noexcept nogil:
    """Expand every live item by every legal output and keep the B best candidates by total
    score (ties: the earlier candidate).  With train, items carry their loss; returns
    whether some item's loss is still at most the gold item's."""
    cdef int i, j, c, k, best, h, frow, nc = 0, B = w.B, C = w.C, nf = w.nf
    cdef double tmpd
    cdef bint found = False
    cdef St* swap
    for i in range(w.nb):
        if w.bdone[i] or legal_classes(&w.cur[i], m, w.unit + i * C) == 0:
            w.bdone[i] = True
            w.cand_s[nc] = w.bscore[i]
            w.cand_i[nc] = i
            w.cand_c[nc] = -1
            nc += 1
            continue
        if not train:
            mask_root_label(&w.cur[i], m, w.unit + i * C)
        frow = w.n_frows
        w.n_frows += 1
        extract(&w.cur[i], fx, m, w.hfeat + <size_t>frow * nf)
        score(m, w.hfeat + <size_t>frow * nf, nf, w.sc + i * C)
        w.feats[i] = frow
        if train:
            class_costs(&w.cur[i], &w.tmp, m, ol, w.unit + i * C, w.urow, w.ccost + i * C)
        for c in range(C):
            if w.unit[i * C + c] < 0:
                continue
            w.cand_s[nc] = w.bscore[i] + w.sc[i * C + c]
            w.cand_i[nc] = i
            w.cand_c[nc] = c
            nc += 1
    # keep the B best candidates (selection)
    k = nc if nc < B else B
    for j in range(k):
        best = j
        for c in range(j + 1, nc):
            if w.cand_s[c] > w.cand_s[best]:
                best = c
        if best != j:
            tmpd = w.cand_s[j]; w.cand_s[j] = w.cand_s[best]; w.cand_s[best] = tmpd
            h = w.cand_i[j]; w.cand_i[j] = w.cand_i[best]; w.cand_i[best] = h
            h = w.cand_c[j]; w.cand_c[j] = w.cand_c[best]; w.cand_c[best] = h
    for j in range(k):
        i = w.cand_i[j]
        c = w.cand_c[j]
        st_copy_into(&w.nxt[j], &w.cur[i])
        if c >= 0:
            apply_legal(&w.nxt[j], w.unit[i * C + c], m.cls[c * CLS_W])
            w.hist[3 * w.n_nodes] = w.bnode[i]
            w.hist[3 * w.n_nodes + 1] = c
            w.hist[3 * w.n_nodes + 2] = w.feats[i]
            w.cand_i[j] = w.n_nodes                                   # the new item's history
            w.n_nodes += 1
            w.cand_c[j] = w.bloss[i] + (w.ccost[i * C + c] if train else 0)  # and loss
        else:
            w.cand_i[j] = w.bnode[i]
            w.cand_c[j] = w.bloss[i]
    for j in range(k):
        w.bnode[j] = w.cand_i[j]
        w.bloss[j] = w.cand_c[j]
        w.bscore[j] = w.cand_s[j]
        w.bdone[j] = st_terminal(&w.nxt[j])
        if train and w.bloss[j] <= w.gloss:
            found = True
    w.nb = k
    swap = w.cur
    w.cur = w.nxt
    w.nxt = swap
    return found


cdef void beam_update(Beam* w, Model* m) noexcept nogil:
    """Early update: the gold history up, the best item's history down (shared prefixes
    cancel)."""
    cdef int node = w.gnode, nf = w.nf
    while node >= 0:
        update(m, w.hfeat + <size_t>w.hist[3 * node + 2] * nf, nf, w.hist[3 * node + 1], 1.0)
        node = w.hist[3 * node]
    node = w.bnode[0]
    while node >= 0:
        update(m, w.hfeat + <size_t>w.hist[3 * node + 2] * nf, nf, w.hist[3 * node + 1], -1.0)
        node = w.hist[3 * node]
