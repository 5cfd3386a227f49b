
# ---- the static oracle by search: the canonical derivation of a gold tree ---------------
# Generic (included by every kernel).  Depth-first in the spec's action order, so the first
# derivation found takes, at every step, the first action from which the gold tree is still
# derivable.  Two facts of the IR prune it, for any spec: a token that has left every list
# can never gain or give an arc again (patterns bind only tokens in lists), so it must be
# finished; and in a monotonic system an arc once built stays.  Configurations already
# explored (or on the current path) are not entered again: a 64-bit hash of what decides a
# configuration's future (lists, heads, flags) marks them.  A third, when the caller proves
# it for the spec (tsdsl.verify.planar: tokens never change places, arcs span at most G
# tokens), prunes a configuration whose gold arcs still to build hold a blocked core (see
# ``blocked``): the proof of planar.py, applied to every configuration and not only the first.
# Guided (where the caller passes the guide: training's derivations, coverage, verify, trace
# --gold; tsdsl.learn.derive.search_options): for a spec with actions that reorder tokens (SWAP), each
# configuration tries its actions arcs first, then the reordering actions that bring the
# sequence of its lists closer to the gold tree's projective order, then the others, then the
# reordering actions that move it away (see ``guide_order``).  Only the order changes: the
# search stays exhaustive within its budget, so its answers stay exact.


cdef uint64_t st_key(const St* s) noexcept nogil:
    """A hash of the lists, heads and flags of a configuration."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL
    cdef int k, i, t
    for k in range(NLX):
        h = mix64(h ^ (<uint64_t>(s.hi[k] - s.lo[k]) + (<uint64_t>k << 40)))
        for i in range(s.lo[k], s.hi[k]):
            h = mix64(h ^ <uint64_t>s.buf[k * s.cap + i])
    for t in range(s.ntok):
        h = mix64(h ^ (<uint64_t>(s.head[t] + 2) << 24) ^ <uint64_t>t)
    for k in range(NTFX * s.ntok):
        if s.tflag[k]:
            h = mix64(h ^ (<uint64_t>k << 8) ^ 0xF1A6)
    for k in range(NGFX):
        h = mix64(h ^ (<uint64_t>s.gflag[k] << 32) ^ <uint64_t>k ^ 0x6F1A)
    return h


cdef enum:
    SEEN_KEEP = 1 << 14   # keys a search keeps allocated between trees (larger sets are dropped)


cdef struct KeySet:
    uint64_t* keys      # open addressing; 0 marks an empty slot
    size_t cap
    size_t n


cdef int keyset_add(KeySet* ks, uint64_t key) noexcept nogil:
    """1 when ``key`` is new (and now in the set), 0 when it was there, -1 out of memory."""
    cdef size_t i, mask, j
    cdef uint64_t* old
    cdef size_t old_cap
    if key == 0:
        key = 1
    if 2 * (ks.n + 1) > ks.cap:
        old, old_cap = ks.keys, ks.cap
        ks.cap = 1024 if old_cap == 0 else 2 * old_cap
        ks.keys = <uint64_t*>calloc(ks.cap, sizeof(uint64_t))
        if ks.keys == NULL:
            ks.keys, ks.cap = old, old_cap
            return -1
        ks.n = 0
        for j in range(old_cap):
            if old[j]:
                keyset_add(ks, old[j])
        free(old)
    mask = ks.cap - 1
    i = <size_t>(key & mask)
    while ks.keys[i]:
        if ks.keys[i] == key:
            return 0
        i = (i + 1) & mask
    ks.keys[i] = key
    ks.n += 1
    return 1


cdef bint doomed(const St* s, const int* gold, const int* kids, int* done, bint strict) noexcept nogil:
    """Whether the gold tree can no longer be derived from ``s`` (gold: gold head token per
    token, -1 none; kids: gold dependents per token; done: scratch, ntok ints).  ``strict``:
    treat a wrong arc as final even in a non-monotonic system (a search for derivations that
    never build a wrong arc: what it finds is a derivation, what it misses may still exist)."""
    cdef int d, t, g
    for t in range(s.ntok):
        done[t] = 0
    for d in range(1, s.n + 1):
        g = gold[d]
        if s.head[d] >= 0:
            if s.head[d] == g:
                done[g] += 1
            elif MONOTONIC or strict:
                return True
    for t in range(s.ntok):
        if s.where[t] >= 0 or (t != s.root and not 1 <= t <= s.n):
            continue
        # t left every list: it can no longer take a head or a dependent
        if t != s.root and s.head[t] != gold[t] and not (s.head[t] < 0 and gold[t] == s.root and ATTACH_HEADLESS):
            return True
        if done[t] != kids[t] and not (t == s.root and ATTACH_HEADLESS):
            return True
    return False


cdef bint blocked(const St* s, const int* gold, int gap, bint bottom_up, int anchor, int* core,
                  int* pre) noexcept nogil:
    """Whether the gold arcs ``s`` has still to build hold a non-empty blocked core
    (tsdsl.verify.planar.blocked_core): a set of arcs none of which can be built first, as
    it spans more than ``gap`` tokens that must still be present then (ends of the others of
    the set and, with ``bottom_up``, the gold ancestors of its head), or (``bottom_up``) an
    arc of the set still has to reach its dependent.  Sound when tokens keep their order,
    arcs span at most ``gap`` tokens when built and (``bottom_up``) every arc takes its
    dependent out of the lists.  With ``anchor`` (a list index, -1 none: planar.anchored_list),
    the later end of every arc is the last token of that list when it is built and no token
    leaves it for another list: a token now in it after an arc's later end must leave first,
    so an arc of the set at such a token comes before.  Gold root arcs count only when no end
    rule supplies them.  core: scratch, n ints; pre: scratch, 3 (ntok + 1) ints."""
    cdef int d, g, m = 0, keep, k, t, lo, hi, seen, x, steps, count, top = -1, seen_a, e
    cdef int* hc = pre + (s.ntok + 1)
    cdef int* pa = pre + 2 * (s.ntok + 1)   # ends of the set in the anchor list before t
    if anchor >= 0:
        for t in range(s.ntok):
            if s.where[t] == anchor:
                top = t
    for d in range(1, s.n + 1):
        g = gold[d]
        if g < 0 or s.head[d] == g:
            continue
        if g == s.root and (ATTACH_HEADLESS or not HAS_ROOT):
            continue
        core[m] = d
        m += 1
    while m > 0:
        for t in range(s.ntok + 1):
            pre[t] = 0
            hc[t] = 0
        for k in range(m):
            d = core[k]
            pre[d] = 1
            pre[gold[d]] = 1
            hc[gold[d]] += 1
        seen = 0
        seen_a = 0
        for t in range(s.ntok + 1):   # pre[t]: ends before t (an end: pre[t + 1] > pre[t])
            g = pre[t]
            pre[t] = seen
            pa[t] = seen_a
            seen += g
            if g and anchor >= 0 and t < s.ntok and s.where[t] == anchor:
                seen_a += 1
        keep = 0
        for k in range(m):
            d = core[k]
            g = gold[d]
            if bottom_up and hc[d] > 0:
                core[keep] = d
                keep += 1
                continue
            lo = imin(d, g)
            hi = imax(d, g)
            if hi < top and pa[top + 1] - pa[hi + 1] > 0:
                core[keep] = d
                keep += 1
                continue
            count = pre[hi] - pre[lo + 1]
            if bottom_up:
                x = g
                steps = 0
                while 1 <= x <= s.n and gold[x] >= 0 and s.head[x] != gold[x] and steps <= s.n:
                    x = gold[x]
                    steps += 1
                    if lo < x < hi and pre[x + 1] == pre[x]:
                        count += 1
            if count > gap:
                core[keep] = d
                keep += 1
        if keep == m:
            return True
        m = keep
    return False


cdef int output_errors(const St* s, const int* heads) noexcept nogil:
    """The words of a terminal configuration whose output head (after the end-of-parse rule)
    differs from gold ``heads`` (CoNLL-U numbering): the Hamming loss of its output."""
    cdef int d, ph, headless = 0, wrong = 0
    for d in range(1, s.n + 1):
        headless += s.head[d] < 0
    for d in range(1, s.n + 1):
        ph = out_head(s, d)
        if ph < 0 and (ATTACH_HEADLESS or (not HAS_ROOT and headless == 1)):
            ph = 0
        wrong += ph != heads[d - 1]
    return wrong


cdef inline bint derived(const St* s, const int* heads) noexcept nogil:
    """Whether a terminal configuration's output is the gold tree ``heads``."""
    return output_errors(s, heads) == 0


cdef struct Search:
    St* frames          # one configuration per depth, allocated as the search goes deeper
    int n_frames
    int* next_a         # per depth: the next action to try
    int* path_a         # per depth: the action taken
    int* path_l         # per depth: its label id (-1: none)
    int depth_cap
    char* mem
    int maxn
    int* kids
    int* done
    int* core
    int* pre
    int gap             # the blocked-core prune: the spec's arc gap G (-1: not proved, no prune)
    bint bottom_up      # ... and every arc takes its dependent out of the lists
    int anchor          # ... and arcs end at the last token of this list (-1: no such list)
    KeySet seen
    bint guide          # guided order (guide_order); the arrays below only then
    int nlo             # the lists read in this order make the sequence (guide_lists)
    int guide_lists[NLX]
    int* guide_kind     # per action: 1 builds an arc, 2 may reorder the sequence, 0 other
    int* proj           # per token: its place in the gold tree's projective order
    int* acts           # per depth: the actions in the order tried (N_ACTIONS each)
    char* ordered       # per depth: acts filled for the configuration there
    int* seq_p          # scratch: a configuration's sequence, and its child's
    int* seq_c
    bint signals        # derive_from checks for Ctrl-C every 65,536 expansions (-3: interrupted)


cdef int search_alloc(Search* w, int maxn) noexcept nogil:
    memset(w, 0, sizeof(Search))
    w.maxn = maxn
    w.depth_cap = step_limit(maxn) + 2
    w.frames = <St*>calloc(w.depth_cap, sizeof(St))
    w.next_a = <int*>malloc(sizeof(int) * w.depth_cap)
    w.path_a = <int*>malloc(sizeof(int) * w.depth_cap)
    w.path_l = <int*>malloc(sizeof(int) * w.depth_cap)
    w.kids = <int*>malloc(sizeof(int) * (maxn + 3))
    w.done = <int*>malloc(sizeof(int) * (maxn + 3))
    w.core = <int*>malloc(sizeof(int) * (maxn + 3))
    w.pre = <int*>malloc(sizeof(int) * 3 * (maxn + 4))
    w.gap = -1
    w.anchor = -1
    if not (w.frames and w.next_a and w.path_a and w.path_l and w.kids and w.done and w.core and w.pre):
        search_free(w)
        return -1
    return 0


cdef void search_free(Search* w) noexcept nogil:
    cdef int k
    if w.frames != NULL:
        for k in range(w.n_frames):
            free(w.frames[k].mem)
    free(w.frames); free(w.next_a); free(w.path_a); free(w.path_l); free(w.kids); free(w.done)
    free(w.core); free(w.pre)
    free(w.guide_kind); free(w.proj); free(w.acts); free(w.ordered); free(w.seq_p); free(w.seq_c)
    free(w.seen.keys)
    memset(w, 0, sizeof(Search))


cdef St* search_frame(Search* w, int depth, int n) noexcept nogil:
    """The configuration slot of ``depth`` (allocated for the longest sentence on first use)."""
    cdef char* mem
    while w.n_frames <= depth:
        mem = <char*>malloc(st_size(w.maxn))
        if mem == NULL:
            return NULL
        w.frames[w.n_frames].mem = mem
        w.n_frames += 1
    st_place_in(&w.frames[depth], n, w.frames[depth].mem)
    return &w.frames[depth]


cdef inline int gold_label(St* s, int a, const int* glab) noexcept nogil:
    """The label id action ``a`` takes on a gold path: the gold label of the dependent of the
    labeled arc it builds (glab: gold label per token), -1 when it builds none."""
    cdef int h, d
    if labeled_of(s, a) and arc_of(s, a, &h, &d):
        return glab[d]
    return -1


cdef int guide_alloc(Search* w, const int* lists, int nlo, const int* kinds) noexcept nogil:
    """Turn on the guided order (after search_alloc): the sequence reads the lists ``lists``
    [0 .. nlo) one after another; kinds: per action, as ``guide_kind``.  -1 out of memory."""
    cdef int k
    w.guide_kind = <int*>malloc(sizeof(int) * N_ACTIONS)
    w.proj = <int*>malloc(sizeof(int) * (w.maxn + 3))
    w.acts = <int*>malloc(sizeof(int) * N_ACTIONS * w.depth_cap)
    w.ordered = <char*>calloc(w.depth_cap, sizeof(char))
    w.seq_p = <int*>malloc(sizeof(int) * (w.maxn + 3))
    w.seq_c = <int*>malloc(sizeof(int) * (w.maxn + 3))
    if not (w.guide_kind and w.proj and w.acts and w.ordered and w.seq_p and w.seq_c):
        return -1
    for k in range(N_ACTIONS):
        w.guide_kind[k] = kinds[k]
    w.nlo = 0
    for k in range(nlo):
        if 0 <= lists[k] < NLX and w.nlo < NLX:
            w.guide_lists[w.nlo] = lists[k]
            w.nlo += 1
    w.guide = True
    return 0


cdef int proj_visit(const int* gold, int ntok, int h, int* proj, int nxt) noexcept nogil:
    """Number the gold subtree of ``h`` in order (left dependents, h, right dependents) from
    ``nxt``; returns the next free number."""
    cdef int d
    for d in range(h):
        if gold[d] == h:
            nxt = proj_visit(gold, ntok, d, proj, nxt)
    proj[h] = nxt
    nxt += 1
    for d in range(h + 1, ntok):
        if gold[d] == h:
            nxt = proj_visit(gold, ntok, d, proj, nxt)
    return nxt


cdef void proj_order(const int* gold, int ntok, int* proj) noexcept nogil:
    """The projective order of the gold tree (its in-order traversal; each tree of a forest in
    the order of its root): proj[t] the place of token t.  Tokens in no gold arc are trees of
    their own."""
    cdef int t, nxt = 0
    for t in range(ntok):
        proj[t] = ntok + t   # after every tree: tokens on a gold cycle (no tree reaches them)
    for t in range(ntok):
        if gold[t] < 0 or gold[t] >= ntok or gold[t] == t:
            nxt = proj_visit(gold, ntok, t, proj, nxt)


cdef int seq_of(const St* s, const Search* w, int* out) noexcept nogil:
    """The sequence of ``s``: its lists in w.guide_lists, one after another, each in reading
    order; returns its length."""
    cdef int j, k, i, m = 0
    for j in range(w.nlo):
        k = w.guide_lists[j]
        for i in range(s.lo[k], s.hi[k]):
            out[m] = s.buf[k * s.cap + i]
            m += 1
    return m


cdef int seq_delta(const Search* w, const int* p, const int* c, int m) noexcept nogil:
    """Inversions of sequence ``c`` minus those of ``p`` (both of length m, the same tokens)
    with respect to the projective order: counted over the window where they differ, as the
    pairs with a token outside it keep their order."""
    cdef int f = 0, l = m - 1, i, j, inv = 0
    while f < m and p[f] == c[f]:
        f += 1
    if f == m:
        return 0
    while p[l] == c[l]:
        l -= 1
    for i in range(f, l + 1):
        for j in range(i + 1, l + 1):
            inv += (w.proj[c[i]] > w.proj[c[j]]) - (w.proj[p[i]] > w.proj[p[j]])
    return inv


cdef int guide_order(Search* w, int depth, int n, const int* order) noexcept nogil:
    """The actions the configuration at ``depth`` tries, in order, into w.acts: those that build
    arcs; the reordering actions whose child's sequence has fewer inversions against the gold
    tree's projective order; the others (and reordering actions that leave it as far); the
    reordering actions that take it further.  Each group in ``order``.  This is Nivre's (2009)
    static oracle for SWAP, read generically: where it applies, the first path of the search
    is that oracle's derivation.  -2 out of memory."""
    cdef St* s = &w.frames[depth]
    cdef St* t
    cdef int* out = w.acts + depth * N_ACTIONS
    cdef int m = 0, b, k, a, lp, lc, delta
    cdef int bucket[N_ACTIONS]
    lp = -1
    for k in range(N_ACTIONS):
        a = order[k] if order != NULL else k
        b = 2
        if w.guide_kind[a] == 1:
            b = 0
        elif w.guide_kind[a] == 2 and valid_nt(s, a):
            t = search_frame(w, depth + 1, n)   # the child's slot, as scratch
            if t == NULL:
                return -2
            st_copy_into(t, s)
            apply_legal(t, a, -1)
            if lp < 0:
                lp = seq_of(s, w, w.seq_p)
            lc = seq_of(t, w, w.seq_c)
            if lc == lp:
                delta = seq_delta(w, w.seq_p, w.seq_c, lp)
                b = 1 if delta < 0 else (3 if delta > 0 else 2)
        bucket[k] = b
    for b in range(4):
        for k in range(N_ACTIONS):
            if bucket[k] == b:
                out[m] = order[k] if order != NULL else k
                m += 1
    w.ordered[depth] = 1
    return 0


cdef void search_gold(Search* w, int n, const int* blk) noexcept nogil:
    """Count every token's gold dependents (w.kids) for the searches of one gold tree."""
    cdef const int* gold = blk
    cdef int d, t
    for t in range(n + 2):
        w.kids[t] = 0
    for d in range(1, n + 1):
        if gold[d] >= 0:
            w.kids[gold[d]] += 1
    if w.guide:
        proj_order(gold, n + 2, w.proj)


cdef int derive_one(Search* w, int n, const int* heads, const int* blk, const int* atab, int nact,
                    const int* order, long long budget, int* length, bint strict=False) noexcept nogil:
    """The canonical derivation of one gold tree: 1 found (its actions and label ids in
    w.path_a, w.path_l[0 .. length)), 0 none exists, -1 the budget of expanded
    configurations ran out first, -2 out of memory, -3 Ctrl-C (only with ``w.signals``)."""
    cdef St* s
    search_gold(w, n, blk)
    s = search_frame(w, 0, n)
    if s == NULL:
        return -2
    if UNBOUNDED:
        s.atab = atab
        s.nact = nact
    st_start(s, n)
    return derive_from(w, n, heads, blk, order, budget, length, strict)


cdef int derive_from(Search* w, int n, const int* heads, const int* blk, const int* order, long long budget,
                     int* length, bint strict) noexcept nogil:
    """The first derivation (in ``order``) of the gold tree from the configuration in w's
    frame 0 (search_gold called for the tree), as :func:`derive_one`, which starts it from
    the initial configuration; training with the search as its oracle (_searched.pxi) starts
    it anywhere on a gold path."""
    cdef const int* gold = blk            # gold head token per token (gold_fill's layout)
    cdef const int* glab = blk + (n + 2)
    cdef St* s = &w.frames[0]
    cdef St* child
    cdef int depth = 0, a, k, lab, add
    cdef long long expanded = 0
    cdef bint advanced
    if w.seen.cap > SEEN_KEEP:   # a large set left by a hard tree: cheaper to drop than to clear
        free(w.seen.keys)
        w.seen.keys = NULL
        w.seen.cap = 0
    w.seen.n = 0
    if w.seen.keys != NULL:
        memset(w.seen.keys, 0, sizeof(uint64_t) * w.seen.cap)
    if doomed(s, gold, w.kids, w.done, strict) or (w.gap >= 0 and blocked(s, gold, w.gap, w.bottom_up, w.anchor, w.core, w.pre)):
        return 0
    if keyset_add(&w.seen, st_key(s)) < 0:
        return -2
    w.next_a[0] = 0
    if w.guide:
        w.ordered[0] = 0
    while depth >= 0:
        s = &w.frames[depth]
        if st_terminal(s):
            if derived(s, heads):
                length[0] = depth
                return 1
            depth -= 1
            continue
        advanced = False
        if depth + 1 < w.depth_cap:
            if w.guide and not w.ordered[depth]:
                if guide_order(w, depth, n, order) < 0:
                    return -2
            k = w.next_a[depth]
            while k < s.nact:
                if w.guide:
                    a = w.acts[depth * N_ACTIONS + k]
                else:
                    a = order[k] if order != NULL else k
                if valid_nt(s, a):
                    if expanded >= budget:
                        return -1
                    expanded += 1
                    if w.signals and (expanded & 0xFFFF) == 0 and interrupted():
                        return -3  # Ctrl-C during one long search (``derive``'s sentence loop raises)
                    child = search_frame(w, depth + 1, n)
                    if child == NULL:
                        return -2
                    st_copy_into(child, s)
                    lab = gold_label(s, a, glab)
                    apply_legal(child, a, lab)
                    if not (doomed(child, gold, w.kids, w.done, strict)
                            or (w.gap >= 0 and blocked(child, gold, w.gap, w.bottom_up, w.anchor, w.core, w.pre))):
                        add = keyset_add(&w.seen, st_key(child))
                        if add < 0:
                            return -2
                        if add == 1:
                            w.path_a[depth] = a
                            w.path_l[depth] = lab
                            w.next_a[depth] = k + 1
                            depth += 1
                            w.next_a[depth] = 0
                            if w.guide:
                                w.ordered[depth] = 0
                            advanced = True
                            break
                k += 1
        if not advanced:
            depth -= 1
    return 0


cdef int check_guide(object guide_lists, object guide_kinds) except -1:
    """Raise ValueError unless the guided order's arrays (as ``derive`` takes them) are
    usable: both or neither, int32, the lists 1 to NLX list indexes, one kind per action."""
    cdef Py_ssize_t n_glists, k
    cdef const int* g_lists
    if (guide_lists is None) != (guide_kinds is None):
        raise ValueError("guided order: give both guide_lists and guide_kinds")
    if guide_lists is None:
        return 0
    if UNBOUNDED:
        raise ValueError("a guided order needs a bounded action set")
    n_glists = len(guide_lists)
    if not 0 < n_glists <= NLX:
        raise ValueError("guided order: guide_lists must name 1 to NLX lists")
    g_lists = int32_data(guide_lists, "guide lists", n_glists)
    int32_data(guide_kinds, "guide kinds", N_ACTIONS)
    for k in range(n_glists):
        if not 0 <= g_lists[k] < NLX:
            raise ValueError("guided order: not a list index")
    return 0


cdef int search_setup(Search* w, int gap, bint bottom_up, int anchor, object guide_lists,
                      object guide_kinds) except -2:
    """Give a search (after search_alloc) the caller's proof (``gap``, ``bottom_up``,
    ``anchor``, as ``derive`` takes them) and guided order (arrays checked by check_guide);
    -1 out of memory."""
    w.gap = gap
    w.bottom_up = bottom_up
    w.anchor = anchor if gap >= 0 else -1
    if guide_lists is None:
        return 0
    return guide_alloc(w, int32_data(guide_lists, "guide lists", len(guide_lists)), <int>len(guide_lists),
                       int32_data(guide_kinds, "guide kinds", N_ACTIONS))


def derive(object gold_heads, object gold_offsets, Py_ssize_t n_sent, object gold_labels, long long budget,
           object action_log, object label_log, Py_ssize_t cap, object starts, object status,
           object atab=None, int nact=0, object try_order=None, bint strict=False, int gap=-1,
           bint bottom_up=False, int anchor=-1, object guide_lists=None, object guide_kinds=None):
    """The canonical derivation of every gold tree by search (see the top of _search.pxi).

    Arrays are int32: gold heads (CoNLL-U numbering) and label ids (None: unlabeled)
    offsets[n_sent] long, offsets n_sent + 1; the action and label logs cap long; starts
    n_sent + 1 (sentence i's derivation is log[starts[i]:starts[i + 1]]); status n_sent
    (1 derived, 0 not derivable, -1 over the budget of expanded configurations, -2 out of
    memory).  Capacity-inf kernels take the action table of the longest sentence (as
    ``oracle_pass``).  ``strict``: only derivations that never build a wrong arc (status 0
    then proves nothing for a non-monotonic system).  ``gap``: the arc gap G the caller has
    proved for the spec (tsdsl.verify.planar.arc_gap), to prune blocked configurations; -1:
    none (no prune); ``bottom_up``: every arc also takes its dependent out of the lists
    (planar.takes_dependents); ``anchor``: the list whose last token is the later end of
    every arc, and which no token leaves for another list (planar.anchored_list), -1 none.
    ``guide_lists`` and ``guide_kinds`` (int32, both or neither; bounded action sets): the
    guided order (``guide_order``), with the sequence read from those lists in that order and
    per action 1 builds an arc, 2 may reorder the sequence, 0 other (planar.reordering).  Only
    the order of the search changes, not its answers (whether a derivation is found).
    Returns (total actions, log overflowed).
    """
    cdef const int* offsets = int32_data(gold_offsets, "offsets", n_sent + 1)
    cdef Py_ssize_t words = offsets[n_sent] if n_sent > 0 else 0
    cdef const int* heads = int32_data(gold_heads, "heads", words)
    cdef const int* labels = NULL if gold_labels is None else int32_data(gold_labels, "labels", words)
    cdef int* out_actions = int32_data(action_log, "action log", cap, True)
    cdef int* out_labels = int32_data(label_log, "label log", cap, True)
    cdef int* out_starts = int32_data(starts, "starts", n_sent + 1, True)
    cdef int* out_status = int32_data(status, "status", n_sent, True)
    cdef const int* atab_data = NULL
    cdef const int* order = NULL
    cdef Py_ssize_t si, T = 0
    cdef int n, off, maxn = 0, r, length, k
    cdef bint overflow = False
    cdef int* blk
    cdef Search w
    if MULTI:
        raise ValueError("derivation search does not support multihead systems yet")
    for si in range(n_sent):
        maxn = max(maxn, offsets[si + 1] - offsets[si])
    if UNBOUNDED:
        if atab is None:
            raise ValueError("capacity-inf kernels need the action table")
        atab_data = int32_data(atab, "action table", 3 * nact)
    if try_order is not None:
        if UNBOUNDED:
            raise ValueError("an action order needs a bounded action set")
        order = int32_data(try_order, "action order", N_ACTIONS)
        for k in range(N_ACTIONS):
            if not 0 <= order[k] < N_ACTIONS:
                raise ValueError("action order: not a permutation of the actions")
    check_guide(guide_lists, guide_kinds)
    blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
    if blk == NULL or search_alloc(&w, maxn) < 0:
        free(blk)
        raise MemoryError()
    if search_setup(&w, gap, bottom_up, anchor, guide_lists, guide_kinds) < 0:
        search_free(&w)
        free(blk)
        raise MemoryError()
    cdef bint stop = False
    w.signals = True
    with nogil:
        for si in range(n_sent):
            if interrupted():  # once a sentence, and within a long search: Ctrl-C stops it
                stop = True
                break
            out_starts[si] = <int>T
            off = offsets[si]
            n = offsets[si + 1] - off
            if gold_fill(n, &heads[off], &labels[off] if labels != NULL else NULL, blk) < 0:
                out_status[si] = 0
                continue
            length = 0
            r = derive_one(&w, n, &heads[off], blk, atab_data, nact, order, budget, &length, strict)
            if r == -3:
                stop = True
                break
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
    free(blk)
    if stop:
        raise KeyboardInterrupt()
    return T, overflow


cdef int searched_plan(Search* w, int n, const int* heads, const int* blk, const int* order, long long budget,
                       St* start, int first_a, int first_l, int* plan_a, int* plan_l, int* plan_len) noexcept nogil:
    """Search a derivation of the gold tree from ``start`` after the action ``first_a`` with
    label id ``first_l`` (first_a -1: from ``start`` itself); 1 found (then plan_a, plan_l
    [0 .. plan_len) hold it, the first action included), 0 not, -2 out of memory."""
    cdef St* f0 = search_frame(w, 0, n)
    cdef int length = 0, r, k, j = 0
    if f0 == NULL:
        return -2
    st_copy_into(f0, start)
    if first_a >= 0:
        apply_legal(f0, first_a, first_l)
    r = derive_from(w, n, heads, blk, order, budget, &length, False)
    if r != 1:
        return -2 if r == -2 else 0
    if first_a >= 0:
        plan_a[0] = first_a
        plan_l[0] = first_l
        j = 1
    for k in range(length):
        plan_a[j + k] = w.path_a[k]
        plan_l[j + k] = w.path_l[k]
    plan_len[0] = j + length
    return 1


def free_actions(object gold_heads, object gold_labels, object prefix_, object try_order, long long budget,
                 object out_, int gap=-1, bint bottom_up=False, int anchor=-1, object guide_lists=None,
                 object guide_kinds=None):
    """What :func:`train_searched` takes as free, for one gold tree and one configuration:
    gold heads (int32, CoNLL-U numbering) and label ids (int32, or None: unlabeled), and the
    configuration reached from the initial one by the action ids ``prefix_`` (int32; labeled
    arcs take their gold label).  Writes into ``out_`` (int32, one per action): 1 the gold tree is still derivable
    after it (its arc, if labeled, taking the gold label), 0 not or not found within ``budget``
    configurations, -1 not legal (or the prefix stops being legal before).  gap ... guide_kinds:
    the search's pruning and guided order, as :func:`derive` takes them."""
    if UNBOUNDED or MULTI:
        raise ValueError("the oracle by search needs a bounded, single-head action set")
    cdef Py_ssize_t n = len(gold_heads), k, n_pre = len(prefix_)
    cdef const int* heads = int32_data(gold_heads, "gold heads", n)
    cdef const int* labels = NULL if gold_labels is None else int32_data(gold_labels, "gold labels", n)
    cdef const int* prefix = int32_data(prefix_, "prefix", n_pre) if n_pre else NULL
    cdef const int* order = NULL if try_order is None else int32_data(try_order, "action order", N_ACTIONS)
    cdef int* res = int32_data(out_, "out", N_ACTIONS, True)
    cdef int a, r, plan_len = 0
    cdef int* blk = <int*>malloc(sizeof(int) * (3 * (n + 2) + 1))
    cdef int* plan = <int*>malloc(sizeof(int) * 2 * (step_limit(<int>n) + 4))
    cdef char* smem = <char*>malloc(st_size(<int>n))
    cdef St s
    cdef Search w
    check_guide(guide_lists, guide_kinds)
    for a in range(N_ACTIONS):
        res[a] = -1
    if not (blk and plan and smem) or search_alloc(&w, <int>n) < 0:
        free(blk); free(plan); free(smem)
        raise MemoryError()
    if search_setup(&w, gap, bottom_up, anchor, guide_lists, guide_kinds) < 0:
        search_free(&w)
        free(blk); free(plan); free(smem)
        raise MemoryError()
    try:
        if gold_fill(<int>n, heads, labels, blk) < 0:
            raise ValueError("gold heads out of range")
        search_gold(&w, <int>n, blk)
        st_place_in(&s, <int>n, smem)
        st_start(&s, <int>n)
        for k in range(n_pre):
            a = prefix[k]
            if st_terminal(&s) or not 0 <= a < N_ACTIONS or not valid_nt(&s, a):
                return
            apply_legal(&s, a, gold_label(&s, a, blk + (n + 2)))
        if st_terminal(&s):
            return
        for a in range(N_ACTIONS):
            if not valid_nt(&s, a):
                continue
            r = searched_plan(&w, <int>n, heads, blk, order, budget, &s, a, gold_label(&s, a, blk + (n + 2)),
                              plan, plan + step_limit(<int>n) + 4,
                              &plan_len)
            if r == -2:
                raise MemoryError("the derivation search ran out of memory")
            res[a] = r
    finally:
        search_free(&w)
        free(blk); free(plan); free(smem)
