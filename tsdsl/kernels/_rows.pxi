
# ---- the row adds: a state's feature weights into its scores ---------------------------
# Generic (included by _model.pxi after the Model it reads).  Most of a parse step's time
# goes here: the dense rows of the training table, or the parse-time table's references,
# sparse pairs and dense rows (tsdsl.learn.weights.ParseTable), float32 or float16, added
# in feature order so that every score is the same sum bit for bit whichever way it is read.

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define TSDSL_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 3)
    #else
    #define TSDSL_PREFETCH(p) ((void)0)
    #endif
    /* out[c] += row[c] for every output: the dense row add, most of a parse step's time.
       Built twice, for AVX2 and for any x86-64 (GCC picks the clone at load time), so a
       kernel built once still runs on an older CPU sharing the cache (AVX-512 measured no
       faster).  Each out[c] is one addition, as in the plain loop: the sums are the same
       bit for bit. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    __attribute__((target_clones("avx2", "default")))
    #endif
    static void tsdsl_add_row(float* __restrict out, const float* __restrict row, int C) {
        for (int c = 0; c < C; c++) out[c] += row[c];
    }
    /* The same for a row of float16 weights (their IEEE bits): each widens exactly to the
       float32 it stands for, so the sums are those of the float32 row.  On a CPU with AVX2
       (all of which have F16C) 8 at a time (vcvtph2ps); elsewhere the widening is done by
       hand. */
    static inline float tsdsl_half_to_float(unsigned short h) {
        unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
        float f;
        if (e == 0) {
            f = (float)m * 5.9604644775390625e-8f;  /* m * 2^-24: a subnormal (or zero), exact */
            return sign ? -f : f;
        }
        bits = sign | (e == 31 ? 0x7f800000u : (e + 112u) << 23) | (m << 13);
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #include <immintrin.h>
    #define TSDSL_F16C 1
    __attribute__((target("avx2,f16c")))
    static void tsdsl_add_row16_f16c(float* __restrict out, const unsigned short* __restrict row, int C) {
        int c = 0;
        for (; c + 8 <= C; c += 8) {
            __m256 w = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(row + c)));
            _mm256_storeu_ps(out + c, _mm256_add_ps(_mm256_loadu_ps(out + c), w));
        }
        for (; c < C; c++) out[c] += _cvtsh_ss(row[c]);
    }
    #endif
    static int tsdsl_f16c = -1;  /* 1: the F16C path; 0: by hand; -1: not decided yet (see below) */
    static int tsdsl_use_f16c(int wanted) {
        /* wanted 1: the F16C path if the CPU has it; 0: by hand (the tests use it); -1: keep */
    #ifdef TSDSL_F16C
        if (wanted >= 0 || tsdsl_f16c < 0)
            tsdsl_f16c = wanted != 0 && __builtin_cpu_supports("avx2") ? 1 : 0;
    #else
        tsdsl_f16c = 0;
    #endif
        return tsdsl_f16c;
    }
    static void tsdsl_add_row16(float* __restrict out, const unsigned short* __restrict row, int C) {
    #ifdef TSDSL_F16C
        if (tsdsl_f16c < 0) tsdsl_use_f16c(1);  /* decided once; a race would store the same value */
        if (tsdsl_f16c) { tsdsl_add_row16_f16c(out, row, C); return; }
    #endif
        for (int c = 0; c < C; c++) out[c] += tsdsl_half_to_float(row[c]);
    }
    /* tsdsl_add_row16 for k rows in a row, k <= 8: each out[c] adds rows[0][c], rows[1][c] ...
       in that order, the sums of k calls bit for bit, with out read and written once. */
    #ifdef TSDSL_F16C
    __attribute__((target("avx2,f16c")))
    static void tsdsl_add_rows16_f16c(float* __restrict out, const unsigned short* const* rows, int k, int C) {
        int c = 0;
        for (; c + 8 <= C; c += 8) {
            __m256 acc = _mm256_loadu_ps(out + c);
            for (int j = 0; j < k; j++)
                acc = _mm256_add_ps(acc, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(rows[j] + c))));
            _mm256_storeu_ps(out + c, acc);
        }
        for (; c < C; c++) {
            float a = out[c];
            for (int j = 0; j < k; j++) a += _cvtsh_ss(rows[j][c]);
            out[c] = a;
        }
    }
    #endif
    static void tsdsl_add_rows16(float* __restrict out, const unsigned short* const* rows, int k, int C) {
    #ifdef TSDSL_F16C
        if (tsdsl_f16c < 0) tsdsl_use_f16c(1);
        if (tsdsl_f16c) { tsdsl_add_rows16_f16c(out, rows, k, C); return; }
    #endif
        for (int j = 0; j < k; j++) tsdsl_add_row16(out, rows[j], C);
    }
    /* out[output] += weight for n packed sparse pairs (output | float16 bits << 16), in order. */
    #ifdef TSDSL_F16C
    __attribute__((target("f16c")))
    static void tsdsl_add_pairs16_f16c(float* __restrict out, const unsigned int* __restrict e, int n) {
        for (int k = 0; k < n; k++) out[e[k] & 0xffffu] += _cvtsh_ss((unsigned short)(e[k] >> 16));
    }
    #endif
    static void tsdsl_add_pairs16(float* __restrict out, const unsigned int* __restrict e, int n) {
    #ifdef TSDSL_F16C
        if (tsdsl_f16c < 0) tsdsl_use_f16c(1);
        if (tsdsl_f16c) { tsdsl_add_pairs16_f16c(out, e, n); return; }
    #endif
        for (int k = 0; k < n; k++) out[e[k] & 0xffffu] += tsdsl_half_to_float((unsigned short)(e[k] >> 16));
    }
    """
    void TSDSL_PREFETCH(const void* p) noexcept nogil
    void tsdsl_add_row(float* out, const float* row, int C) noexcept nogil
    void tsdsl_add_row16(float* out, const unsigned short* row, int C) noexcept nogil
    void tsdsl_add_pairs16(float* out, const unsigned int* e, int n) noexcept nogil
    void tsdsl_add_rows16(float* out, const unsigned short* const* rows, int k, int C) noexcept nogil
    float tsdsl_half_to_float(unsigned short h) noexcept nogil
    int tsdsl_use_f16c(int wanted) noexcept nogil


def float16_widening(object f16c=None):
    """How float16 dense rows are widened: True (the default) by F16C when the CPU has AVX2,
    False by hand (the tests check both); returns whether F16C is used."""
    return bool(tsdsl_use_f16c(-1 if f16c is None else (1 if f16c else 0)))


cdef enum:
    SCORE_CHUNK = 64   # features whose rows are looked up together (see add_rows_sparse)
    REF_SHIFT = 26     # a parse-time reference: count << REF_SHIFT | offset (tsdsl.learn.weights)
    REF_OFFSET = (1 << 26) - 1
    REF_DENSE = 63     # the count of a dense row
    ROW_RUN = 8        # consecutive float16 dense rows added together (tsdsl_add_rows16)


cdef void add_rows(const Model* m, const int* feats, const int* idx, int n, float* out) noexcept nogil:
    """out[c] += the weight of feature feats[idx[k]] (idx NULL: feats[k]) for output c, for
    k = 0 .. n - 1 in that order.  Rows known to be zero (never updated in training) are
    skipped: most of the table is cold, so each row read is a trip to memory, and unseen
    feature values are common at parse time.  With a sparse table (parsing, m.sp) only the
    stored non-zero weights are read: see add_rows_sparse."""
    cdef int k, f, c, C = m.C
    cdef const float* row
    if m.sp_ref != NULL:
        add_rows_sparse(m, feats, idx, n, out)
        return
    for k in range(n):  # rows are scattered over a large table: ask for all of them at once
        f = feats[idx[k] if idx != NULL else k]
        if m.live == NULL or m.live[f]:
            row = m.W + <size_t>f * C
            for c in range(0, C, 16):
                TSDSL_PREFETCH(row + c)
    for k in range(n):
        f = feats[idx[k] if idx != NULL else k]
        if m.live == NULL or m.live[f]:
            tsdsl_add_row(out, m.W + <size_t>f * C, C)


cdef void add_rows_sparse(const Model* m, const int* feats, const int* idx, int n, float* out) noexcept nogil:
    """:func:`add_rows` on the parse-time table (tsdsl.learn.weights.ParseTable): bucket b's
    reference r = m.sp_ref[b] holds count r >> REF_SHIFT and offset r & REF_OFFSET; a row
    of few weights is `count` (output, weight) pairs at m.sp + offset, a full one (count
    REF_DENSE) is C weights at m.sp_dense + offset * C.  A rarely seen feature's row is thus
    one cache line instead of C floats, and a frequent feature's row is still added as a
    vector.  The sums are the dense ones bit for bit: each out[c] adds the same non-zero
    weights in the same feature order (the dense path's other terms are +0.0).  Per chunk of
    features: read the references (prefetched first) and prefetch the rows, then add."""
    cdef int f, b, q
    cdef unsigned int ref[SCORE_CHUNK]
    for f in range(n):
        TSDSL_PREFETCH(m.sp_ref + feats[idx[f] if idx != NULL else f])
    b = 0
    while b < n:
        q = n - b if n - b < SCORE_CHUNK else SCORE_CHUNK
        resolve_rows(m, feats, (idx + b) if idx != NULL else NULL, b, q, ref)
        add_resolved(m, ref, q, out)
        b += q


cdef void resolve_rows(const Model* m, const int* feats, const int* idx, int first, int n,
                       unsigned int* ref) noexcept nogil:
    """ref[k]: the parse-time reference of feature feats[idx[k]] (idx NULL: feats[first + k]),
    k < n, each row prefetched: the first half of add_rows_sparse, for a caller with other
    work to do before add_resolved adds them."""
    cdef int f, c, C = m.C
    cdef unsigned int r
    for f in range(n):
        r = m.sp_ref[feats[idx[f] if idx != NULL else first + f]]
        ref[f] = r
        if (r >> REF_SHIFT) == REF_DENSE:
            if m.sp_dense16 != NULL:
                for c in range(0, C, 32):
                    TSDSL_PREFETCH(m.sp_dense16 + <size_t>(r & REF_OFFSET) * C + c)
            else:
                for c in range(0, C, 16):
                    TSDSL_PREFETCH(m.sp_dense + <size_t>(r & REF_OFFSET) * C + c)
        elif r:
            if m.sp16 != NULL:
                TSDSL_PREFETCH(m.sp16 + (r & REF_OFFSET))
            else:
                TSDSL_PREFETCH(m.sp + (r & REF_OFFSET))


cdef void add_resolved(const Model* m, const unsigned int* ref, int n, float* out) noexcept nogil:
    """out[c] += the weights of the n rows resolve_rows found, in that order (the second half
    of add_rows_sparse; consecutive float16 dense rows are added together, the same sums)."""
    cdef int f, k, C = m.C
    cdef unsigned int r
    cdef const unsigned short* run[ROW_RUN]
    cdef int nrun = 0
    cdef const WEntry* e
    for f in range(n):
        r = ref[f]
        if nrun and (r >> REF_SHIFT) != REF_DENSE and r:  # a sparse row: the run of dense ones first
            tsdsl_add_rows16(out, run, nrun, C)
            nrun = 0
        if (r >> REF_SHIFT) == REF_DENSE:
            if m.sp_dense16 != NULL:
                run[nrun] = m.sp_dense16 + <size_t>(r & REF_OFFSET) * C
                nrun += 1
                if nrun == ROW_RUN:
                    tsdsl_add_rows16(out, run, nrun, C)
                    nrun = 0
            else:
                tsdsl_add_row(out, m.sp_dense + <size_t>(r & REF_OFFSET) * C, C)
        elif r and m.sp16 != NULL:
            tsdsl_add_pairs16(out, m.sp16 + (r & REF_OFFSET), <int>(r >> REF_SHIFT))
        elif r:
            e = m.sp + (r & REF_OFFSET)
            for k in range(<int>(r >> REF_SHIFT)):
                out[e[k].col] += e[k].w
    if nrun:
        tsdsl_add_rows16(out, run, nrun, C)
