
# ---- exhaustive exploration of the configuration graph (generic; included by every kernel) --
# Breadth-first over every configuration reachable for n words, in the spec's action order, so
# node ids, shortest paths and counterexamples are those of the interpreter's exploration
# (tsdsl.verify.space.explore).  Only a compact, exact key is kept per configuration (lists,
# heads, token and global flags; labels ignored as there): a node's state is rebuilt when it
# is expanded from its parent's, itself rebuilt by replaying the shortest path when it is not
# the parent already in hand.  Memory is thus a few dozen bytes per configuration.  Multihead
# (DAG) kernels key every arc built as well (one bit per token pair), and give each terminal's
# output as one int per word: the bit set of its heads (bit 0 the root), up to 30 words.

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.string cimport memcmp


cdef struct Vec:
    char* data
    size_t n        # bytes used
    size_t cap


cdef int vec_put(Vec* v, const void* src, size_t size) noexcept nogil:
    """Append ``size`` bytes (0 ok, -1 out of memory)."""
    cdef size_t cap
    cdef char* grown
    if v.n + size > v.cap:
        cap = v.cap * 2 if v.cap else 4096
        while cap < v.n + size:
            cap *= 2
        grown = <char*>realloc(v.data, cap)
        if grown == NULL:
            return -1
        v.data, v.cap = grown, cap
    memcpy(v.data + v.n, src, size)
    v.n += size
    return 0


cdef inline int vec_int(Vec* v, int x) noexcept nogil:
    return vec_put(v, &x, sizeof(int))


cdef inline int vec_i64(Vec* v, int64_t x) noexcept nogil:
    return vec_put(v, &x, sizeof(int64_t))


cdef inline int* vec_ints(Vec* v) noexcept nogil:
    return <int*>v.data


cdef int st_encode(const St* s, unsigned char* out) noexcept nogil:
    """The exact key of a configuration (lists, heads, flags) in ``out``; its length."""
    cdef int k, i, m = 0, t
    for k in range(NLX):
        out[m] = <unsigned char>(s.hi[k] - s.lo[k]); m += 1
        for i in range(s.lo[k], s.hi[k]):
            out[m] = <unsigned char>s.buf[k * s.cap + i]; m += 1
    for t in range(s.ntok):   # multihead: the arc bits below say it all (heads as a set)
        out[m] = <unsigned char>(0 if MULTI else s.head[t] + 1); m += 1
    for k in range(NTFX * s.ntok):
        out[m] = s.tflag[k]; m += 1
    if MULTI:
        memset(out + m, 0, (s.ntok * s.ntok + 7) // 8)
        for k in range(s.ntok * s.ntok):
            if s.adj[k]:
                out[m + k // 8] |= <unsigned char>(1 << (k % 8))
        m += (s.ntok * s.ntok + 7) // 8
    memcpy(out + m, s.gflag, sizeof(int) * NGFX)
    return m + <int>sizeof(int) * NGFX


cdef inline uint64_t key_hash(const unsigned char* key, int m) noexcept nogil:
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL
    cdef int i
    for i in range(m):
        h = mix64(h ^ (<uint64_t>key[i] + (<uint64_t>i << 16)))
    return h


cdef struct Graph:
    Vec keys         # the keys, concatenated
    Vec key_at       # int64 per node: where its key starts (plus one sentinel at the end)
    Vec parent       # int per node: BFS parent (-1 for the initial configuration)
    Vec via          # int per node: the action from the parent
    Vec terminal     # char per node
    Vec edge_at      # int64 per expanded node: where its edges start
    Vec edge_child   # int per edge
    Vec edge_action  # int per edge
    Vec out_node     # int per terminal node
    Vec out_heads    # n ints per terminal node (CoNLL-U numbering, -1: none)
    int* table       # open addressing: node id + 1, 0 empty
    size_t table_cap
    int nodes


cdef void graph_free(Graph* g) noexcept nogil:
    free(g.keys.data); free(g.key_at.data); free(g.parent.data); free(g.via.data); free(g.terminal.data)
    free(g.edge_at.data); free(g.edge_child.data); free(g.edge_action.data); free(g.out_node.data)
    free(g.out_heads.data); free(g.table)
    memset(g, 0, sizeof(Graph))


cdef int graph_rehash(Graph* g) noexcept nogil:
    cdef size_t cap = g.table_cap * 2 if g.table_cap else 1 << 16
    cdef int* table = <int*>calloc(cap, sizeof(int))
    cdef int node, m
    cdef size_t i
    cdef int64_t* at = <int64_t*>g.key_at.data
    if table == NULL:
        return -1
    for node in range(g.nodes):
        m = <int>(at[node + 1] - at[node])
        i = <size_t>(key_hash(<unsigned char*>g.keys.data + at[node], m) & (cap - 1))
        while table[i]:
            i = (i + 1) & (cap - 1)
        table[i] = node + 1
    free(g.table)
    g.table, g.table_cap = table, cap
    return 0


cdef int graph_find_or_add(Graph* g, const unsigned char* key, int m, int parent, int via, bint* added) noexcept nogil:
    """The node id of ``key`` (added, with its parent and action, when new); -1 out of memory."""
    cdef uint64_t h = key_hash(key, m)
    cdef size_t i
    cdef int node
    cdef int64_t* at
    cdef int64_t end
    added[0] = False
    if 2 * (<size_t>g.nodes + 1) > g.table_cap and graph_rehash(g) < 0:
        return -1
    at = <int64_t*>g.key_at.data
    i = <size_t>(h & (g.table_cap - 1))
    while g.table[i]:
        node = g.table[i] - 1
        if at[node + 1] - at[node] == m and memcmp(g.keys.data + at[node], key, m) == 0:
            return node
        i = (i + 1) & (g.table_cap - 1)
    node = g.nodes
    if vec_put(&g.keys, key, m) < 0 or vec_i64(&g.key_at, <int64_t>g.keys.n) < 0:
        return -1
    if vec_int(&g.parent, parent) < 0 or vec_int(&g.via, via) < 0:
        return -1
    g.table[i] = node + 1
    g.nodes += 1
    added[0] = True
    return node


cdef int record_terminal(Graph* g, const St* s, int node) noexcept nogil:
    """Mark ``node`` terminal or not; a terminal's output heads after the end-of-parse rule
    (multihead: the bit set of each word's heads, bit 0 the root)."""
    cdef char term = 1 if st_terminal(<St*>s) else 0
    cdef int d, ph, h, mask, headless = 0
    if vec_put(&g.terminal, &term, 1) < 0:
        return -1
    if not term:
        return 0
    if vec_int(&g.out_node, node) < 0:
        return -1
    if MULTI:
        for d in range(1, s.n + 1):
            mask = 0
            for h in range(s.ntok):
                if s.adj[h * s.ntok + d]:
                    mask |= 1 << (0 if h == s.root else h)
            if vec_int(&g.out_heads, mask) < 0:
                return -1
        return 0
    for d in range(1, s.n + 1):
        headless += s.head[d] < 0
    for d in range(1, s.n + 1):
        ph = out_head(s, d)
        if ph < 0 and (ATTACH_HEADLESS or (not HAS_ROOT and headless == 1)):
            ph = 0
        if vec_int(&g.out_heads, ph) < 0:
            return -1
    return 0


cdef int replay(St* s, const Graph* g, int node, int n, const int* atab, int nact, Vec* path) noexcept nogil:
    """Rebuild the state of ``node`` in ``s`` from the initial configuration along the BFS tree."""
    cdef const int* parent = <const int*>g.parent.data
    cdef const int* via = <const int*>g.via.data
    cdef int k
    path.n = 0
    while parent[node] >= 0:
        if vec_int(path, via[node]) < 0:
            return -1
        node = parent[node]
    if UNBOUNDED:
        s.atab = atab
        s.nact = nact
    st_start(s, n)
    for k in range(<int>(path.n // sizeof(int)) - 1, -1, -1):
        apply_legal(s, (<int*>path.data)[k], -1)
    return 0


cdef int explore_graph(Graph* g, int n, long long limit, const int* atab, int nact) noexcept nogil:
    """Fill ``g`` with every configuration reachable for ``n`` words: 0 done, -1 more than
    ``limit`` configurations, -2 out of memory, -3 interrupted (Ctrl-C)."""
    cdef St cur, par, child
    cdef Vec path
    cdef unsigned char* key
    cdef int m, node, a, kid, held = -1, r = 0
    cdef bint added
    cdef const int* parent
    cdef const int* via
    memset(&path, 0, sizeof(Vec))
    key = <unsigned char*>malloc(NLX * (n + 3) + (n + 2) * (NTFX + 1) + ((n + 2) * (n + 2) + 7) // 8
                                 + sizeof(int) * NGFX + 16)
    if key == NULL or st_alloc(&cur, n) < 0:
        free(key)
        return -2
    if st_alloc(&par, n) < 0:
        free(key); free(cur.mem)
        return -2
    if st_alloc(&child, n) < 0:
        free(key); free(cur.mem); free(par.mem)
        return -2
    if UNBOUNDED:
        cur.atab = atab
        cur.nact = nact
    st_start(&cur, n)
    if vec_i64(&g.key_at, 0) < 0:
        r = -2
    else:
        m = st_encode(&cur, key)
        if graph_find_or_add(g, key, m, -1, -1, &added) < 0 or record_terminal(g, &cur, 0) < 0:
            r = -2
    node = 0
    while r == 0 and node < g.nodes:
        if (node & 0xFFFF) == 0xFFFF and interrupted():  # Ctrl-C, checked every 65,536 configurations
            r = -3
            break
        if vec_i64(&g.edge_at, <int64_t>(g.edge_child.n // sizeof(int))) < 0:
            r = -2
            break
        if g.terminal.data[node]:
            node += 1
            continue
        parent = <const int*>g.parent.data
        via = <const int*>g.via.data
        if node == 0:
            if UNBOUNDED:
                cur.atab = atab
                cur.nact = nact
            st_start(&cur, n)
        else:
            if parent[node] != held:
                if replay(&par, g, parent[node], n, atab, nact, &path) < 0:
                    r = -2
                    break
                held = parent[node]
            st_copy_into(&cur, &par)
            apply_legal(&cur, via[node], -1)
        for a in range(cur.nact):
            if not valid_nt(&cur, a):
                continue
            st_copy_into(&child, &cur)
            apply_legal(&child, a, -1)
            m = st_encode(&child, key)
            kid = graph_find_or_add(g, key, m, node, a, &added)
            if kid < 0:
                r = -2
                break
            if added:
                if record_terminal(g, &child, kid) < 0:
                    r = -2
                    break
                if g.nodes > limit:
                    r = -1
                    break
            if vec_int(&g.edge_child, kid) < 0 or vec_int(&g.edge_action, a) < 0:
                r = -2
                break
        node += 1
    if r == 0 and vec_i64(&g.edge_at, <int64_t>(g.edge_child.n // sizeof(int))) < 0:
        r = -2
    free(key); free(path.data); free(cur.mem); free(par.mem); free(child.mem)
    return r


cdef inline object vec_bytes(const Vec* v):
    if v.data == NULL or v.n == 0:
        return b""
    return PyBytes_FromStringAndSize(v.data, <Py_ssize_t>v.n)


def explore(int n, long long limit, object atab=None, int nact=0):
    """Every configuration reachable for ``n`` words, breadth-first (see the top of _explore.pxi).

    Returns (status, parent, via, terminal, edge_at, edge_child, edge_action, out_node,
    out_heads) with the arrays as bytes: int32 except terminal (uint8) and edge_at (int64,
    one more than the nodes); multihead kernels give out_heads as head bit sets (bit 0 the
    root).  status: 0 done, -1 more than ``limit`` configurations (the arrays are then
    empty).  Capacity-inf kernels take the action table of this length.
    """
    cdef Graph g
    cdef const int* atab_data = NULL
    cdef int r
    if MULTI and n > 30:
        raise ValueError("exhaustive exploration of a multihead system: n <= 30 (heads as 31-bit sets)")
    if n < 0 or n > 250:
        raise ValueError("exhaustive exploration: 0 <= n <= 250")
    if UNBOUNDED:
        if atab is None:
            raise ValueError("capacity-inf kernels need the action table")
        atab_data = int32_data(atab, "action table", 3 * nact)
    memset(&g, 0, sizeof(Graph))
    with nogil:
        r = explore_graph(&g, n, limit, atab_data, nact)
    try:
        if r == -3:
            raise KeyboardInterrupt()
        if r == -2:
            raise MemoryError("exhaustive exploration ran out of memory")
        if r == -1:
            return (-1,) + (b"",) * 8
        return (0, vec_bytes(&g.parent), vec_bytes(&g.via), vec_bytes(&g.terminal), vec_bytes(&g.edge_at),
                vec_bytes(&g.edge_child), vec_bytes(&g.edge_action), vec_bytes(&g.out_node), vec_bytes(&g.out_heads))
    finally:
        graph_free(&g)


def graph_cycle(object edge_at, object edge_child, int nodes):
    """A cycle of the graph (node ids, the first repeated at the end) or None; iterative DFS."""
    cdef const int64_t* at = int64_data(edge_at, "edge_at", nodes + 1)
    cdef const int* child = int32_data(edge_child, "edge_child", at[nodes] if nodes else 0)
    cdef unsigned char* colour = <unsigned char*>calloc(nodes + 1, 1)
    cdef int* stack = <int*>malloc(sizeof(int) * (nodes + 1))
    cdef int64_t* nxt = <int64_t*>malloc(sizeof(int64_t) * (nodes + 1))
    cdef int root, top, node, c, found = -1, k
    if colour == NULL or stack == NULL or nxt == NULL:
        free(colour); free(stack); free(nxt)
        raise MemoryError()
    with nogil:
        for root in range(nodes):
            if colour[root] or found >= 0:
                continue
            top = 0
            stack[0] = root
            nxt[0] = at[root]
            colour[root] = 1
            while top >= 0:
                node = stack[top]
                if nxt[top] < at[node + 1]:
                    c = child[nxt[top]]
                    nxt[top] += 1
                    if colour[c] == 1:
                        found = c
                        break
                    if colour[c] == 0:
                        colour[c] = 1
                        top += 1
                        stack[top] = c
                        nxt[top] = at[c]
                else:
                    colour[node] = 2
                    top -= 1
            if found >= 0:
                break
    try:
        if found < 0:
            return None
        out = []
        k = 0
        while stack[k] != found:
            k += 1
        while k <= top:
            out.append(stack[k])
            k += 1
        out.append(found)
        return out
    finally:
        free(colour); free(stack); free(nxt)


def graph_longest(object edge_at, object edge_child, int nodes):
    """(length, end node) of the longest path from node 0 of an acyclic graph (Kahn's order)."""
    cdef const int64_t* at = int64_data(edge_at, "edge_at", nodes + 1)
    cdef const int* child = int32_data(edge_child, "edge_child", at[nodes] if nodes else 0)
    cdef int* indeg = <int*>calloc(nodes + 1, sizeof(int))
    cdef int* ready = <int*>malloc(sizeof(int) * (nodes + 1))
    cdef int* best = <int*>malloc(sizeof(int) * (nodes + 1))
    cdef int top = 0, node, c, end = 0, k
    cdef int64_t e
    if indeg == NULL or ready == NULL or best == NULL:
        free(indeg); free(ready); free(best)
        raise MemoryError()
    with nogil:
        for e in range(at[nodes]):
            indeg[child[e]] += 1
        for k in range(nodes):
            best[k] = -1
            if indeg[k] == 0:
                ready[top] = k
                top += 1
        if nodes:
            best[0] = 0
        while top > 0:
            top -= 1
            node = ready[top]
            for e in range(at[node], at[node + 1]):
                c = child[e]
                if best[node] >= 0 and best[node] + 1 > best[c]:
                    best[c] = best[node] + 1
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready[top] = c
                    top += 1
        for k in range(nodes):
            if best[k] > best[end]:
                end = k
    try:
        return (best[end] if nodes else 0), end
    finally:
        free(indeg); free(ready); free(best)
