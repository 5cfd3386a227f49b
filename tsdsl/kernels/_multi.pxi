
# ---- multihead (DAG) systems: the static oracle by search on gold graphs --------------------
# Generic (included by every kernel; the entry points refuse single-head kernels).  A gold graph
# is a set of labeled arcs (head, dependent), any number of heads per word.  The search is the
# one of _search.pxi (depth-first in the canonical action order, explored configurations
# hashed), with the tests for graphs: a configuration is doomed when it holds an arc that is
# not gold (monotonic systems: arcs stay) or when a token that left every list still misses
# one of its gold arcs, in or out (patterns bind only tokens in lists, so it never gains one);
# a terminal configuration derives the graph when its arcs are exactly the gold arcs.  Arcs
# get their gold labels.  Gold graphs with a cycle or a self-loop are not given to the search
# (tsdsl.kernels.graphs counts them as not derivable).


cdef uint64_t st_key_multi(const St* s) noexcept nogil:
    """st_key plus every arc built (a token may have several heads: s.head keeps the first)."""
    cdef uint64_t h = st_key(s)
    cdef int k, nn = s.ntok * s.ntok
    for k in range(nn):
        if s.adj[k]:
            h = mix64(h ^ (<uint64_t>k << 20) ^ 0xA5C3)
    return h


cdef struct GGold:
    int* lab          # ntok * ntok: label id + 2 of the gold arc h -> d (0: no gold arc, 1: unlabeled)
    int* gin          # gold in-degree per token
    int* gout         # gold out-degree per token
    int* din          # scratch: built gold arcs in, per token
    int* dout         # scratch: built gold arcs out
    int total         # gold arcs
    int maxn


cdef int ggold_alloc(GGold* g, int maxn) noexcept nogil:
    cdef size_t nt = maxn + 2
    memset(g, 0, sizeof(GGold))
    g.maxn = maxn
    g.lab = <int*>calloc(nt * nt, sizeof(int))
    g.gin = <int*>malloc(sizeof(int) * nt)
    g.gout = <int*>malloc(sizeof(int) * nt)
    g.din = <int*>malloc(sizeof(int) * nt)
    g.dout = <int*>malloc(sizeof(int) * nt)
    if not (g.lab and g.gin and g.gout and g.din and g.dout):
        return -1
    return 0


cdef void ggold_free(GGold* g) noexcept nogil:
    free(g.lab); free(g.gin); free(g.gout); free(g.din); free(g.dout)
    memset(g, 0, sizeof(GGold))


cdef int ggold_fill(GGold* g, int n, const int* heads, const int* deps, const int* labels, int m) noexcept nogil:
    """Lay out the m gold arcs of a sentence of n words (CoNLL-U numbering, head 0 = the root):
    -1 when an arc is out of range, repeated, or needs a root the system does not have."""
    cdef int ntok = n + 2, t, k, h, d
    cdef int root = 0 if ROOT_KIND == 0 else (n + 1 if ROOT_KIND == 1 else -1)
    memset(g.lab, 0, sizeof(int) * ntok * ntok)
    for t in range(ntok):
        g.gin[t] = 0
        g.gout[t] = 0
    g.total = m
    for k in range(m):
        h = heads[k]
        d = deps[k]
        if not (0 <= h <= n and 1 <= d <= n) or h == d:
            return -1
        if h == 0:
            if root < 0:
                return -1
            h = root
        if g.lab[h * ntok + d]:
            return -1
        g.lab[h * ntok + d] = (labels[k] if labels != NULL else -1) + 2
        g.gin[d] += 1
        g.gout[h] += 1
    return 0


cdef bint graph_doomed(const St* s, GGold* g) noexcept nogil:
    """Whether the gold graph can no longer be derived from ``s``."""
    cdef int t, h, d, ntok = s.ntok
    for t in range(ntok):
        g.din[t] = 0
        g.dout[t] = 0
    for h in range(ntok):
        for d in range(ntok):
            if s.adj[h * ntok + d]:
                if g.lab[h * ntok + d]:
                    g.din[d] += 1
                    g.dout[h] += 1
                elif MONOTONIC:
                    return True
    for t in range(ntok):
        if s.where[t] >= 0 or (t != s.root and not 1 <= t <= s.n):
            continue
        # t left every list: it can no longer take a head or a dependent
        if g.din[t] != g.gin[t] or g.dout[t] != g.gout[t]:
            return True
    return False


cdef bint graph_derived(const St* s, GGold* g) noexcept nogil:
    """Whether a terminal configuration's arcs are exactly the gold graph's."""
    cdef int k, built = 0, right = 0, nn = s.ntok * s.ntok
    for k in range(nn):
        if s.adj[k]:
            built += 1
            right += g.lab[k] != 0
    return built == right and right == g.total


cdef int derive_graph_one(Search* w, GGold* g, int n, const int* order, long long budget,
                          int* length) noexcept nogil:
    """The canonical derivation of one gold graph (as derive_one): 1 found, 0 none exists, -1
    over the budget, -2 out of memory."""
    cdef St* s
    cdef St* child
    cdef int depth = 0, a, k, h, d, lab, add
    cdef long long expanded = 0
    cdef bint advanced
    w.seen.n = 0
    if w.seen.keys != NULL:
        memset(w.seen.keys, 0, sizeof(uint64_t) * w.seen.cap)
    s = search_frame(w, 0, n)
    if s == NULL:
        return -2
    st_start(s, n)
    if graph_doomed(s, g):
        return 0
    if keyset_add(&w.seen, st_key_multi(s)) < 0:
        return -2
    w.next_a[0] = 0
    while depth >= 0:
        s = &w.frames[depth]
        if st_terminal(s):
            if graph_derived(s, g):
                length[0] = depth
                return 1
            depth -= 1
            continue
        advanced = False
        if depth + 1 < w.depth_cap:
            k = w.next_a[depth]
            while k < s.nact:
                a = order[k] if order != NULL else k
                if valid_nt(s, a):
                    if expanded >= budget:
                        return -1
                    expanded += 1
                    child = search_frame(w, depth + 1, n)
                    if child == NULL:
                        return -2
                    st_copy_into(child, s)
                    lab = -1
                    if labeled_of(s, a) and arc_of(s, a, &h, &d) and 0 <= h < s.ntok and 0 <= d < s.ntok:
                        lab = g.lab[h * s.ntok + d] - 2 if g.lab[h * s.ntok + d] else -1
                    apply_legal(child, a, lab)
                    if not graph_doomed(child, g):
                        add = keyset_add(&w.seen, st_key_multi(child))
                        if add < 0:
                            return -2
                        if add == 1:
                            w.path_a[depth] = a
                            w.path_l[depth] = lab
                            w.next_a[depth] = k + 1
                            depth += 1
                            w.next_a[depth] = 0
                            advanced = True
                            break
                k += 1
        if not advanced:
            depth -= 1
    return 0


def derive_graphs(object arc_offsets_, object arc_heads_, object arc_deps_, object arc_labels_,
                  object word_offsets_, Py_ssize_t n_sent, long long budget, object action_log,
                  object label_log, Py_ssize_t cap, object starts, object status, object todo_,
                  object try_order=None):
    """The canonical derivation of every gold graph by search (see the top of _multi.pxi).

    Arrays are int32.  Sentence i has words word_offsets[i] .. word_offsets[i + 1] - 1 and gold
    arcs arc_offsets[i] .. arc_offsets[i + 1] - 1: head (CoNLL-U numbering, 0 = the root),
    dependent (1..n) and label id (None: unlabeled).  Sentences with todo[i] == 0 are not
    searched (status 0).  Logs, starts and status as ``derive``.  Returns (total actions, log
    overflowed)."""
    cdef const int* aoff = int32_data(arc_offsets_, "arc offsets", n_sent + 1)
    cdef Py_ssize_t n_arcs = aoff[n_sent] if n_sent > 0 else 0
    cdef const int* ah = int32_data(arc_heads_, "arc heads", n_arcs)
    cdef const int* ad = int32_data(arc_deps_, "arc dependents", n_arcs)
    cdef const int* al = NULL if arc_labels_ is None else int32_data(arc_labels_, "arc labels", n_arcs)
    cdef const int* woff = int32_data(word_offsets_, "word offsets", n_sent + 1)
    cdef const int* todo = int32_data(todo_, "todo", n_sent)
    cdef int* out_actions = int32_data(action_log, "action log", cap, True)
    cdef int* out_labels = int32_data(label_log, "label log", cap, True)
    cdef int* out_starts = int32_data(starts, "starts", n_sent + 1, True)
    cdef int* out_status = int32_data(status, "status", n_sent, True)
    cdef const int* order = NULL
    cdef Py_ssize_t si, T = 0
    cdef int n, maxn = 0, r, length, k, a0
    cdef bint overflow = False
    cdef Search w
    cdef GGold g
    if not MULTI:
        raise ValueError("derive_graphs is for multihead systems (single-head: derive)")
    if UNBOUNDED:
        raise ValueError("graph derivation needs a bounded action set")
    if try_order is not None:
        order = int32_data(try_order, "action order", N_ACTIONS)
        for k in range(N_ACTIONS):
            if not 0 <= order[k] < N_ACTIONS:
                raise ValueError("action order: not a permutation of the actions")
    for si in range(n_sent):
        maxn = max(maxn, woff[si + 1] - woff[si])
    if search_alloc(&w, maxn) < 0 or ggold_alloc(&g, maxn) < 0:
        search_free(&w)
        ggold_free(&g)
        raise MemoryError()
    cdef bint stop = False
    with nogil:
        for si in range(n_sent):
            if interrupted():  # once a sentence: Ctrl-C stops a long derivation
                stop = True
                break
            out_starts[si] = <int>T
            n = woff[si + 1] - woff[si]
            a0 = aoff[si]
            if not todo[si] or ggold_fill(&g, n, &ah[a0], &ad[a0], &al[a0] if al != NULL else NULL,
                                          aoff[si + 1] - a0) < 0:
                out_status[si] = 0
                continue
            length = 0
            r = derive_graph_one(&w, &g, n, order, budget, &length)
            out_status[si] = r
            if r == 1:
                for k in range(length):
                    if T < cap:
                        out_actions[T] = w.path_a[k]
                        out_labels[T] = w.path_l[k]
                    else:
                        overflow = True
                    T += 1
        out_starts[n_sent] = <int>T
    search_free(&w)
    ggold_free(&g)
    if stop:
        raise KeyboardInterrupt()
    return T, overflow
