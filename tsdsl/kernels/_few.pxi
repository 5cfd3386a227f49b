
# ---- scoring a few outputs: greedy steps with few legal outputs -----------------------
# Generic (included by _learn.pxi after _model.pxi and _groups.pxi).  A greedy step whose
# legal outputs are few (Covington's SHIFT and NO-ARC once both focus words have heads)
# needs only their scores: each is the sum score() or gc_score() gives that output, the
# same terms in the same order (bit for bit), read from a few weights of each row instead
# of all C.  parse_greedy takes this path for at most FEW_OUTPUTS legal outputs
# (Learner.few_outputs); with Learner.group_check it compares the scores with score().

cdef enum:
    FEW_OUTPUTS = 8    # greedy parsing scores a step with at most this many legal outputs one output at a time


cdef void add_rows_few(const Model* m, const int* feats, const int* idx, int n, const int* outs, int k,
                       const int* pos, float* out) noexcept nogil:
    """:func:`add_rows` for the k outputs outs[0..k) only: out[j] += the weight of each feature
    for output outs[j], in the same feature order, skipping the same zero rows.  pos[c] is j
    for c = outs[j] and -1 for every other output.  Each out[j] is the same sum add_rows
    gives output outs[j], bit for bit, from a few weights of each row instead of all C."""
    cdef int f, j, q, c, C = m.C
    cdef unsigned int r
    cdef const float* row
    cdef const unsigned short* row16
    cdef const unsigned int* e16
    cdef const WEntry* e
    if m.sp_ref == NULL:
        for f in range(n):
            c = feats[idx[f] if idx != NULL else f]
            if m.live == NULL or m.live[c]:
                row = m.W + <size_t>c * C
                for j in range(k):
                    out[j] += row[outs[j]]
        return
    for f in range(n):
        TSDSL_PREFETCH(m.sp_ref + feats[idx[f] if idx != NULL else f])
    for f in range(n):  # the rows' first needed weights are on their way before any is added
        r = m.sp_ref[feats[idx[f] if idx != NULL else f]]
        if (r >> REF_SHIFT) == REF_DENSE:
            if m.sp_dense16 != NULL:
                TSDSL_PREFETCH(m.sp_dense16 + <size_t>(r & REF_OFFSET) * C + outs[0])
            else:
                TSDSL_PREFETCH(m.sp_dense + <size_t>(r & REF_OFFSET) * C + outs[0])
        elif r and m.sp16 != NULL:
            TSDSL_PREFETCH(m.sp16 + (r & REF_OFFSET))
        elif r:
            TSDSL_PREFETCH(m.sp + (r & REF_OFFSET))
    for f in range(n):
        r = m.sp_ref[feats[idx[f] if idx != NULL else f]]
        if (r >> REF_SHIFT) == REF_DENSE:
            if m.sp_dense16 != NULL:
                row16 = m.sp_dense16 + <size_t>(r & REF_OFFSET) * C
                for j in range(k):
                    out[j] += tsdsl_half_to_float(row16[outs[j]])
            else:
                row = m.sp_dense + <size_t>(r & REF_OFFSET) * C
                for j in range(k):
                    out[j] += row[outs[j]]
        elif r and m.sp16 != NULL:
            e16 = m.sp16 + (r & REF_OFFSET)
            for q in range(<int>(r >> REF_SHIFT)):
                j = pos[e16[q] & 0xFFFF]
                if j >= 0:
                    out[j] += tsdsl_half_to_float(<unsigned short>(e16[q] >> 16))
        elif r:
            e = m.sp + (r & REF_OFFSET)
            for q in range(<int>(r >> REF_SHIFT)):
                j = pos[e[q].col]
                if j >= 0:
                    out[j] += e[q].w


cdef void score_few(const Model* m, const int* feats, int nf, const int* outs, int k, const int* pos,
                    float* out) noexcept nogil:
    """:func:`score` for the k outputs outs[0..k) only (see add_rows_few), out[j] bit for bit,
    for a model without scoring groups (with them, greedy parsing uses gc_score_few)."""
    cdef int j
    for j in range(k):
        out[j] = 0
    add_rows_few(m, feats, NULL, nf, outs, k, pos, out)


cdef void gc_score_few(GroupCache* gc, const St* s, Feats* fx, const Model* m, int* feats, const int* outs, int k,
                       const int* pos, float* out) noexcept nogil:
    """gc_score() for the k outputs outs[0..k) only (see add_rows_few), out[j] bit for bit:
    the direct templates' rows for those outputs alone, and each group's kept sum (made
    whole when missing, as gc_score does: later steps read it again)."""
    cdef int g, n, j
    cdef size_t q
    cdef float* kept
    if fx.need_kids and not gc.kids_fresh:  # see gc_score
        kids_compute(s, fx.kids, fx.sets)
        gc.kids_fresh = 1
    extract_part(s, fx, 0)
    hash_templates(fx, m, m.gord, m.gstart[1], feats)
    for j in range(k):
        out[j] = 0
    add_rows_few(m, feats, m.gord, m.gstart[1], outs, k, pos, out)
    for g in range(1, m.ngrp + 1):
        q = <size_t>(g - 1) * gc.slots + gc_slot(gc, s, fx, g)
        kept = gc.part + q * gc.C
        if gc.stamp[q] != gc.ver[q]:  # made whole and kept: later steps read it again
            n = m.gstart[g + 1] - m.gstart[g]
            extract_part(s, fx, g)
            hash_templates(fx, m, m.gord + m.gstart[g], n, feats)
            memset(kept, 0, sizeof(float) * m.C)
            add_rows(m, feats, m.gord + m.gstart[g], n, kept)
            gc.stamp[q] = gc.ver[q]
            gc.misses += 1
        else:
            gc.hits += 1
        for j in range(k):
            out[j] += kept[outs[j]]
