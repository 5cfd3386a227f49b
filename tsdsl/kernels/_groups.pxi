
# ---- scoring groups: sums greedy parsing keeps per anchor token ------------------------
# Generic (included by _learn.pxi after _model.pxi).  A scoring group is a set of templates
# whose addresses all start at one word, its *anchor* (s0, b0, λ1[1] ..., CL, CR)
# (tsdsl.learn.scoring.scoring_groups).  Given the anchor's token t, such a
# template reads only the static columns of the tokens its paths from t reach and the arcs at
# them: the arc of a token (a head step, a label) or its children (a child step, a valency, a
# label set).  So the group's sum (score in _model.pxi fixes it as its own sum, from zero) is
# a function of t and of those arcs, and greedy parsing keeps it per (group, token): each
# (group, token) has a version, and after a step that changed the arc of a dependent d
# (added, removed, moved or relabelled), every token the group's reverse walks reach from d
# gets a new version for that group (tsdsl.learn.scoring.reverse_walks: each read walked back
# to its anchor, over the arcs before and after the step; a group that reads no arc has no
# walks, and its sums stay for the whole sentence).  A kept sum is used while its version is
# the one it was made at.  The anchor is a list position, or the word CL or CR picks (an
# address without steps, read from fx.at after extract_atoms): the sum is still a function of
# that word and of the arcs its paths read.  Covington's parser moves its focus word back
# over the same words for every buffer word: the sums of the focus word's own templates are
# then made once per word and version, not once per step.  The scores are those of score()
# bit for bit (with Learner.group_check set, parse_greedy checks that at every step).

from libc.string cimport memcmp

cdef enum:
    WALK_HEAD = 1       # the steps of a reverse walk (tsdsl.learn.scoring): the heads before and after,
    WALK_CHILDREN = 2   #   the children before and after, the sentence neighbours
    WALK_PREV = 3
    WALK_NEXT = 4


cdef struct GroupCache:
    const int* anchor   # per group g >= 1: (list, position), or (-1, address), at 2 * (g - 1)
    int ngrp
    const int* walks    # the reverse walks: per walk its length, its steps, its groups' count and numbers
    int nwalks
    int C
    int slots           # per group: one per token, then the slot of "no token"
    int* stamp          # [ngrp * slots]: the version its sum was made at, -1: none
    float* part         # [ngrp * slots * C]: the sums
    int* ver            # [ngrp * slots]: per group and token
    long long* gk       # scratch [ngrp]: gc_score's slot of each group (-1 - slot: not kept)
    const float** parts # scratch [ngrp]: gc_score's sum of each group
    unsigned int* ref   # scratch [templates]: gc_score's row references (resolve_rows), in group order
    int* mark           # scratch [slots]: stamps of the walks' sets
    int* front          # scratch [slots] each: a walk's set of tokens, and the next one
    int* front2
    int* changed        # scratch [slots]: the dependents whose arc the step changed
    int wstamp
    int kids_fresh      # fx.kids and fx.sets are those of the arcs now (no arc changed since made)
    int* old_head       # [slots]: the heads and labels before the step
    int* old_lab
    int* pre            # per group: how many of its first templates read no arc (0: none kept;
    #                     a group that reads no arc at all keeps its whole sum anyway)
    int* pidx           # per group: its row in pkept, or -1 (pre 0)
    float* pkept        # [groups with a prefix * slots * C]: the sums of those templates per token
    unsigned char* pok  # [groups with a prefix * slots]: 1 when kept (this sentence)
    int npre
    long long hits
    long long misses


cdef void gc_free(GroupCache* gc) noexcept nogil:
    free(gc.stamp); free(gc.part); free(gc.ver); free(gc.mark); free(gc.old_head); free(gc.old_lab)
    free(gc.front); free(gc.front2); free(gc.changed); free(gc.gk); free(gc.ref); free(gc.parts)
    free(gc.pre); free(gc.pidx); free(gc.pkept); free(gc.pok)
    gc.gk = NULL; gc.ref = NULL; gc.parts = NULL
    gc.pre = NULL; gc.pidx = NULL; gc.pkept = NULL; gc.pok = NULL
    gc.stamp = NULL; gc.part = NULL; gc.ver = NULL; gc.mark = NULL; gc.old_head = NULL; gc.old_lab = NULL
    gc.front = NULL; gc.front2 = NULL; gc.changed = NULL


cdef bint static_template(const Feats* fx, int a) noexcept nogil:
    """Whether template a reads no arc: each atom a word's column value or a distance, each
    address without a head or child step (tsdsl.learn.scoring.reads_arcs).  In a group, its
    bucket is then a function of the anchor's token alone."""
    cdef int j, k, i, at, ad
    for j in range(fx.tpl[a * TPL_W]):
        at = fx.tpl[a * TPL_W + 1 + j]
        if fx.atom[at * ATOM_W + 1] != 0 and fx.atom[at * ATOM_W + 1] < 6:
            return False
        for i in range(2 if fx.atom[at * ATOM_W + 1] >= 6 else 1):  # a distance: both addresses
            ad = fx.atom[at * ATOM_W + 2 * i]
            for k in range(fx.addr[ad * ADDR_W + 3]):
                if 1 <= fx.addr[ad * ADDR_W + 4 + k] <= 7:
                    return False
    return True


cdef int gc_open(GroupCache* gc, const Model* m, const Feats* fx, const int* anchor, const int* walks, int nwalks,
                 int maxn) noexcept nogil:
    """Allocate the cache for sentences of up to maxn words; -1 when out of memory."""
    cdef int g, k, n
    gc.anchor = anchor
    gc.ngrp = m.ngrp
    gc.walks = walks
    gc.nwalks = nwalks
    gc.C = m.C
    gc.slots = maxn + 3
    gc.hits = 0
    gc.misses = 0
    gc.stamp = <int*>malloc(sizeof(int) * gc.ngrp * gc.slots)
    gc.part = <float*>malloc(sizeof(float) * <size_t>gc.ngrp * gc.slots * gc.C)
    gc.ver = <int*>malloc(sizeof(int) * gc.ngrp * gc.slots)
    gc.mark = <int*>malloc(sizeof(int) * gc.slots)
    gc.old_head = <int*>malloc(sizeof(int) * gc.slots)
    gc.old_lab = <int*>malloc(sizeof(int) * gc.slots)
    gc.front = <int*>malloc(sizeof(int) * gc.slots)
    gc.front2 = <int*>malloc(sizeof(int) * gc.slots)
    gc.changed = <int*>malloc(sizeof(int) * gc.slots)
    gc.gk = <long long*>malloc(sizeof(long long) * (gc.ngrp + 1))
    gc.parts = <const float**>malloc(sizeof(float*) * (gc.ngrp + 1))
    gc.pre = <int*>malloc(sizeof(int) * (gc.ngrp + 1))
    gc.pidx = <int*>malloc(sizeof(int) * (gc.ngrp + 1))
    gc.pkept = NULL
    gc.pok = NULL
    gc.npre = 0
    if gc.pre != NULL and gc.pidx != NULL:
        for g in range(1, gc.ngrp + 1):
            n = m.gstart[g + 1] - m.gstart[g]
            k = 0
            while k < n and static_template(fx, m.gord[m.gstart[g] + k]):
                k += 1
            # a prefix worth keeping: some templates, not all (a group reading no arc
            # keeps its whole sum for the sentence already)
            gc.pre[g - 1] = k if 0 < k < n else 0
            gc.pidx[g - 1] = gc.npre if 0 < k < n else -1
            if 0 < k < n:
                gc.npre += 1
        gc.pkept = <float*>malloc(sizeof(float) * (<size_t>gc.npre * gc.slots * gc.C + 1))
        gc.pok = <unsigned char*>malloc(<size_t>gc.npre * gc.slots + 1)
    gc.ref = <unsigned int*>malloc(sizeof(unsigned int) * (m.gstart[m.ngrp + 1] + 1))
    if not (gc.stamp and gc.part and gc.ver and gc.mark and gc.old_head and gc.old_lab and gc.front
            and gc.front2 and gc.changed and gc.gk and gc.ref and gc.parts and gc.pre and gc.pidx
            and gc.pkept and gc.pok):
        gc_free(gc)
        return -1
    return 0


cdef inline void gc_sentence(GroupCache* gc) noexcept nogil:
    """A new sentence: no sums kept, every version 0."""
    memset(gc.stamp, 0xFF, sizeof(int) * gc.ngrp * gc.slots)
    memset(gc.ver, 0, sizeof(int) * gc.ngrp * gc.slots)
    memset(gc.mark, 0, sizeof(int) * gc.slots)
    memset(gc.pok, 0, <size_t>gc.npre * gc.slots)
    gc.wstamp = 0
    gc.kids_fresh = 0


cdef inline int gc_slot(const GroupCache* gc, const St* s, const Feats* fx, int g) noexcept nogil:
    """The slot of group g's anchor token in s (its last slot: no token), after extract_atoms."""
    cdef int t
    if gc.anchor[2 * (g - 1)] < 0:
        t = fx.at[gc.anchor[2 * (g - 1) + 1]]
    else:
        t = list_at(s, fx, gc.anchor[2 * (g - 1)], gc.anchor[2 * (g - 1) + 1])
    return t if t >= 0 and tok_ok(s, t) else gc.slots - 1


cdef inline int gc_first(const GroupCache* gc, const Model* m, int g, size_t slot) noexcept nogil:
    """Where the templates of group g that a sum made again for the token in slot must read
    begin (in m.gord): after the group's prefix when its sum is kept for that token, else
    at the group's first."""
    if gc.pre[g - 1] and gc.pok[<size_t>gc.pidx[g - 1] * gc.slots + slot]:
        return m.gstart[g] + gc.pre[g - 1]
    return m.gstart[g]


cdef void gc_score(GroupCache* gc, const St* s, Feats* fx, const Model* m, int* feats, float* out) noexcept nogil:
    """score() of state s, with the kept sums of the groups whose anchor token is unchanged
    (feats then holds the buckets of the templates computed, not of the others).  A group
    whose sum must be made again starts from the kept sum of its first templates, those that
    read no arc, when that is kept for its token (gc.pre: the same additions, in the same
    order).  Every bucket is hashed before any row is read, so that the references of all
    of them are on their way (hash_templates prefetches them) while the others hash; the
    sums are then made and added in score()'s order."""
    cdef int g, n, a0, p
    cdef size_t k, q
    cdef float* part
    cdef float* kept
    if fx.need_kids and not gc.kids_fresh:  # a step that built, moved or removed no arc keeps them
        kids_compute(s, fx.kids, fx.sets)
        gc.kids_fresh = 1
    extract_part(s, fx, 0)
    hash_templates(fx, m, m.gord, m.gstart[1], feats)
    for g in range(1, m.ngrp + 1):
        k = <size_t>(g - 1) * gc.slots + gc_slot(gc, s, fx, g)
        gc.gk[g - 1] = <long long>k
        if gc.stamp[k] != gc.ver[k]:
            gc.gk[g - 1] = -1 - <long long>k
            extract_part(s, fx, g)
            a0 = gc_first(gc, m, g, k % gc.slots)
            hash_templates(fx, m, m.gord + a0, m.gstart[g + 1] - a0, feats)
            gc.stamp[k] = gc.ver[k]
    if m.sp_ref != NULL:  # the rows of them all on their way before the first is added
        resolve_rows(m, feats, m.gord, 0, m.gstart[1], gc.ref)
        for g in range(1, m.ngrp + 1):
            if gc.gk[g - 1] < 0:
                a0 = gc_first(gc, m, g, (-1 - gc.gk[g - 1]) % gc.slots)
                resolve_rows(m, feats, m.gord + a0, 0, m.gstart[g + 1] - a0, gc.ref + a0)
    memset(out, 0, sizeof(float) * m.C)
    if m.sp_ref != NULL:
        add_resolved(m, gc.ref, m.gstart[1], out)
    else:
        add_rows(m, feats, m.gord, m.gstart[1], out)
    for g in range(1, m.ngrp + 1):
        if gc.gk[g - 1] < 0:
            k = <size_t>(-1 - gc.gk[g - 1])
            part = gc.part + k * gc.C
            a0 = m.gstart[g]
            p = gc.pre[g - 1]
            if p:
                q = <size_t>gc.pidx[g - 1] * gc.slots + k % gc.slots
                kept = gc.pkept + q * gc.C
                if not gc.pok[q]:  # the prefix's sum first, kept for the sentence
                    memset(kept, 0, sizeof(float) * m.C)
                    if m.sp_ref != NULL:
                        add_resolved(m, gc.ref + a0, p, kept)
                    else:
                        add_rows(m, feats, m.gord + a0, p, kept)
                    gc.pok[q] = 1
                memcpy(part, kept, sizeof(float) * m.C)
                a0 += p
            else:
                memset(part, 0, sizeof(float) * m.C)
            n = m.gstart[g + 1] - a0
            if m.sp_ref != NULL:
                add_resolved(m, gc.ref + a0, n, part)
            else:
                add_rows(m, feats, m.gord + a0, n, part)
            gc.misses += 1
        else:
            part = gc.part + <size_t>gc.gk[g - 1] * gc.C
            gc.hits += 1
        gc.parts[g - 1] = part
    tsdsl_add_rows(out, gc.parts, m.ngrp, m.C)  # in group order, as score() adds them


cdef inline void gc_before(GroupCache* gc, const St* s) noexcept nogil:
    """Note the arcs before a step (see gc_after)."""
    memcpy(gc.old_head, s.head, sizeof(int) * s.ntok)
    memcpy(gc.old_lab, s.lab, sizeof(int) * s.ntok)


cdef int gc_walk_step(GroupCache* gc, const St* s, int code, const int* cur, int n, int* out) noexcept nogil:
    """The tokens one step of a reverse walk reaches from the n tokens cur, into out (each
    once); returns how many.  Heads and children over the arcs before and after the step."""
    cdef int i, u, h, k = 0, nt = s.ntok, st
    gc.wstamp += 1
    st = gc.wstamp
    if code == WALK_CHILDREN:
        for i in range(n):
            gc.mark[cur[i]] = st
        for u in range(nt):
            h = s.head[u]
            if 0 <= h < nt and gc.mark[h] == st:
                out[k] = u
                k += 1
                continue
            h = gc.old_head[u]
            if 0 <= h < nt and gc.mark[h] == st:
                out[k] = u
                k += 1
        return k
    for i in range(n):
        u = cur[i]
        if code == WALK_HEAD:
            h = s.head[u]
            if 0 <= h < nt and gc.mark[h] != st:
                gc.mark[h] = st
                out[k] = h
                k += 1
            h = gc.old_head[u]
        else:
            h = u - 1 if code == WALK_PREV else u + 1
        if 0 <= h < nt and gc.mark[h] != st:
            gc.mark[h] = st
            out[k] = h
            k += 1
    return k


cdef void gc_after(GroupCache* gc, const St* s) noexcept nogil:
    """After a step: a new version, for each group, of every token that group's reverse walks
    reach from a dependent whose arc the step changed (see the top of this file)."""
    cdef int t, i, w, n, L, g, ng, nd = 0, nt = s.ntok
    cdef const int* walk = gc.walks
    cdef int* cur
    cdef int* nxt
    cdef int* tmp
    cdef int* ver
    for t in range(nt):
        if s.head[t] != gc.old_head[t] or s.lab[t] != gc.old_lab[t]:
            gc.changed[nd] = t
            nd += 1
    if nd == 0:
        return
    gc.kids_fresh = 0
    for w in range(gc.nwalks):
        L = walk[0]
        cur = gc.front
        nxt = gc.front2
        memcpy(cur, gc.changed, sizeof(int) * nd)
        n = nd
        for i in range(L):
            if n == 0:
                break
            n = gc_walk_step(gc, s, walk[1 + i], cur, n, nxt)
            tmp = cur
            cur = nxt
            nxt = tmp
        walk += 1 + L
        ng = walk[0]
        for g in range(ng):  # a token reached twice gets two new versions: as good as one
            ver = gc.ver + <size_t>(walk[1 + g] - 1) * gc.slots
            for i in range(n):
                ver[cur[i]] += 1
        walk += 1 + ng
