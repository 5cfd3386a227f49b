
# ---- scoring groups: sums greedy parsing keeps per anchor token ------------------------
# Generic (included by _learn.pxi after _model.pxi).  A scoring group is a set of templates
# whose addresses all start at one list position, its *anchor* (s0, b0, λ1[1] ...), with at
# most `depth` steps (tsdsl.learn.features.FeatureSet.scoring_groups).  Given the anchor's
# token t, such a template reads only the arcs at the tokens of its path from t (a head,
# a child, a sentence neighbour: one step each) and the static columns of those tokens.
# So the group's sum (score in _model.pxi fixes it as its own sum, from zero) is a function
# of t and of the arcs at tokens within `depth` steps of t, and greedy parsing keeps it per
# (group, token): each token has a version, and when a step adds, removes or relabels the
# arc of a dependent d, every token within `depth` steps of d, its old head or its new head
# (over the arcs before and after the step, and sentence neighbours when a group steps to
# them) gets a new version.  A kept sum is used while its token's version is the one it was
# made at.  Covington's parser moves its focus word back over the same words for every
# buffer word: the sums of the focus word's own templates are then made once per word and
# version, not once per step.  The scores are those of score() bit for bit (with
# Learner.group_check set, parse_greedy checks that at every step).

from libc.string cimport memcmp

cdef struct GroupCache:
    const int* anchor   # per group g >= 1: (list, position) at 2 * (g - 1)
    int ngrp
    int depth           # the most steps an address of a group takes
    int linear          # a group steps to sentence neighbours (prev/next)
    int C
    int slots           # per group: one per token, then the slot of "no token"
    int* stamp          # [ngrp * slots]: the version its sum was made at, -1: none
    float* part         # [ngrp * slots * C]: the sums
    int* ver            # [slots]: per token
    int* mark           # scratch [slots]
    int* old_head       # [slots]: the heads and labels before the step
    int* old_lab
    long long hits
    long long misses


cdef void gc_free(GroupCache* gc) noexcept nogil:
    free(gc.stamp); free(gc.part); free(gc.ver); free(gc.mark); free(gc.old_head); free(gc.old_lab)
    gc.stamp = NULL; gc.part = NULL; gc.ver = NULL; gc.mark = NULL; gc.old_head = NULL; gc.old_lab = NULL


cdef int gc_open(GroupCache* gc, const Model* m, const int* anchor, int depth, int linear, int maxn) noexcept nogil:
    """Allocate the cache for sentences of up to maxn words; -1 when out of memory."""
    gc.anchor = anchor
    gc.ngrp = m.ngrp
    gc.depth = depth
    gc.linear = linear
    gc.C = m.C
    gc.slots = maxn + 3
    gc.hits = 0
    gc.misses = 0
    gc.stamp = <int*>malloc(sizeof(int) * gc.ngrp * gc.slots)
    gc.part = <float*>malloc(sizeof(float) * <size_t>gc.ngrp * gc.slots * gc.C)
    gc.ver = <int*>malloc(sizeof(int) * gc.slots)
    gc.mark = <int*>malloc(sizeof(int) * gc.slots)
    gc.old_head = <int*>malloc(sizeof(int) * gc.slots)
    gc.old_lab = <int*>malloc(sizeof(int) * gc.slots)
    if not (gc.stamp and gc.part and gc.ver and gc.mark and gc.old_head and gc.old_lab):
        gc_free(gc)
        return -1
    return 0


cdef inline void gc_sentence(GroupCache* gc) noexcept nogil:
    """A new sentence: no sums kept, every version 0."""
    memset(gc.stamp, 0xFF, sizeof(int) * gc.ngrp * gc.slots)
    memset(gc.ver, 0, sizeof(int) * gc.slots)


cdef void gc_score(GroupCache* gc, const St* s, Feats* fx, const Model* m, int* feats, float* out) noexcept nogil:
    """score() of state s, with the kept sums of the groups whose anchor token is unchanged
    (feats then holds the buckets of the templates computed, not of the others)."""
    cdef int g, t, slot, n
    cdef size_t k
    cdef float* part
    if fx.need_kids:
        kids_compute(s, fx.kids, fx.sets)
    extract_atoms(s, fx)
    hash_templates(fx, m, m.gord, m.gstart[1], feats)
    memset(out, 0, sizeof(float) * m.C)
    add_rows(m, feats, m.gord, m.gstart[1], out)
    for g in range(1, m.ngrp + 1):
        t = list_at(s, fx, gc.anchor[2 * (g - 1)], gc.anchor[2 * (g - 1) + 1])
        slot = t if tok_ok(s, t) else gc.slots - 1
        k = <size_t>(g - 1) * gc.slots + slot
        part = gc.part + k * gc.C
        if gc.stamp[k] != gc.ver[slot]:
            n = m.gstart[g + 1] - m.gstart[g]
            hash_templates(fx, m, m.gord + m.gstart[g], n, feats)
            memset(part, 0, sizeof(float) * m.C)
            add_rows(m, feats, m.gord + m.gstart[g], n, part)
            gc.stamp[k] = gc.ver[slot]
            gc.misses += 1
        else:
            gc.hits += 1
        tsdsl_add_row(out, part, m.C)


cdef inline void gc_before(GroupCache* gc, const St* s) noexcept nogil:
    """Note the arcs before a step (see gc_after)."""
    memcpy(gc.old_head, s.head, sizeof(int) * s.ntok)
    memcpy(gc.old_lab, s.lab, sizeof(int) * s.ntok)


cdef inline void gc_mark(GroupCache* gc, int t, int ntok, int level) noexcept nogil:
    if 0 <= t < ntok and gc.mark[t] == 0:
        gc.mark[t] = level


cdef void gc_after(GroupCache* gc, const St* s) noexcept nogil:
    """After a step: a new version for every token within gc.depth steps of an arc the step
    changed (its dependent, old head and new head), over the arcs before and after."""
    cdef int t, u, lvl, h, nt = s.ntok
    cdef bint changed = False
    for t in range(nt):
        if s.head[t] != gc.old_head[t] or s.lab[t] != gc.old_lab[t]:
            if not changed:
                memset(gc.mark, 0, sizeof(int) * nt)
                changed = True
            gc.mark[t] = 1
            gc_mark(gc, gc.old_head[t], nt, 1)
            gc_mark(gc, s.head[t], nt, 1)
    if not changed:
        return
    for lvl in range(1, gc.depth + 1):
        for u in range(nt):
            if gc.mark[u] == lvl:
                gc_mark(gc, gc.old_head[u], nt, lvl + 1)
                gc_mark(gc, s.head[u], nt, lvl + 1)
                if gc.linear:
                    gc_mark(gc, u - 1, nt, lvl + 1)
                    gc_mark(gc, u + 1, nt, lvl + 1)
            elif gc.mark[u] == 0:
                h = s.head[u]
                if 0 <= h < nt and gc.mark[h] == lvl:
                    gc.mark[u] = lvl + 1
                    continue
                h = gc.old_head[u]
                if 0 <= h < nt and gc.mark[h] == lvl:
                    gc.mark[u] = lvl + 1
    for t in range(nt):
        if gc.mark[t]:
            gc.ver[t] += 1
