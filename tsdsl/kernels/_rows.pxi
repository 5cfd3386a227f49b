
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
    /* The last C % 8 outputs of a row (110 outputs: 6 after 13 vectors of 8) are one vector
       too, its other lanes masked: vmaskmovps reads and writes out[c] for c < C only, so the
       buffers need no room past C.  A float16 row's last 8 weights are read as one 16-byte
       load, up to 14 bytes past the row (the next row, or the padding the parse table keeps
       after its last one, TSDSL_ROW_SLACK weights), their lanes past C never stored.  Before,
       those outputs took a scalar widening and add each, per row: about a third of a
       110-output row's instructions. */
    #define TSDSL_ROW_SLACK 8
    static const int tsdsl_lane_mask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    __attribute__((target("avx2")))
    static inline __m256i tsdsl_tail_mask(int r) {  /* lanes 0 .. r - 1 on, 0 < r < 8 */
        return _mm256_loadu_si256((const __m256i*)(tsdsl_lane_mask + 8 - r));
    }
    /* out[c] += row[c] for every output: the dense row add (float32: training's table, and
       the kept sums of scoring groups).  Each out[c] is one addition, as in the plain loop:
       the sums are the same bit for bit.  AVX-512 measured no faster. */
    __attribute__((target("avx2")))
    static void tsdsl_add_row_avx2(float* __restrict out, const float* __restrict row, int C) {
        int c = 0;
        for (; c + 16 <= C; c += 16) {
            _mm256_storeu_ps(out + c, _mm256_add_ps(_mm256_loadu_ps(out + c), _mm256_loadu_ps(row + c)));
            _mm256_storeu_ps(out + c + 8, _mm256_add_ps(_mm256_loadu_ps(out + c + 8), _mm256_loadu_ps(row + c + 8)));
        }
        if (c + 8 <= C) {
            _mm256_storeu_ps(out + c, _mm256_add_ps(_mm256_loadu_ps(out + c), _mm256_loadu_ps(row + c)));
            c += 8;
        }
        if (c < C) {
            __m256i m = tsdsl_tail_mask(C - c);
            _mm256_maskstore_ps(out + c, m, _mm256_add_ps(_mm256_maskload_ps(out + c, m), _mm256_maskload_ps(row + c, m)));
        }
    }
    #endif
    static int tsdsl_avx2 = -1;  /* the CPU has AVX2 (decided on first use; a race stores the same value) */
    static inline int tsdsl_has_avx2(void) {
    #ifdef TSDSL_F16C
        if (tsdsl_avx2 < 0) tsdsl_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        return tsdsl_avx2;
    #else
        return 0;
    #endif
    }
    static void tsdsl_add_row(float* __restrict out, const float* __restrict row, int C) {
    #ifdef TSDSL_F16C
        if (tsdsl_has_avx2()) { tsdsl_add_row_avx2(out, row, C); return; }
    #endif
        for (int c = 0; c < C; c++) out[c] += row[c];
    }
    #ifdef TSDSL_F16C
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
    /* The first index of the greatest of x[0..n), n >= 1: what a loop keeping the first
       strictly greater value finds (scores are sums of finite weights, never NaN; +0.0 and
       -0.0 compare equal both ways).  With AVX2 the greatest value comes from 16 lanes of
       vmaxps, then the first index holding it, instead of a scalar loop of dependent
       compares (greedy parsing's argmax when every output is legal, as in NM Covington). */
    #ifdef TSDSL_F16C
    __attribute__((target("avx2")))
    static int tsdsl_argmax_avx2(const float* __restrict x, int n) {
        int c = 0;
        float best = x[0];
        if (n >= 16) {
            __m256 m0 = _mm256_loadu_ps(x), m1 = _mm256_loadu_ps(x + 8);
            for (c = 16; c + 16 <= n; c += 16) {
                m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + c));
                m1 = _mm256_max_ps(m1, _mm256_loadu_ps(x + c + 8));
            }
            m0 = _mm256_max_ps(m0, m1);
            __m128 h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
            h = _mm_max_ps(h, _mm_movehl_ps(h, h));
            h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
            best = _mm_cvtss_f32(h);
        }
        for (; c < n; c++) if (x[c] > best) best = x[c];
        for (c = 0; c < n; c++) if (x[c] == best) return c;
        return 0;
    }
    #endif
    static int tsdsl_argmax_on = 1;  /* 0: the scalar loop (the tests compare both) */
    static int tsdsl_argmax(const float* __restrict x, int n) {
    #ifdef TSDSL_F16C
        if (tsdsl_argmax_on && tsdsl_has_avx2()) return tsdsl_argmax_avx2(x, n);
    #endif
        int p = 0;
        for (int c = 1; c < n; c++) if (x[c] > x[p]) p = c;
        return p;
    }
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
        if (c < C) {  /* the last C % 8 outputs, masked (the rows read up to TSDSL_ROW_SLACK past) */
            __m256i m = tsdsl_tail_mask(C - c);
            __m256 acc = _mm256_maskload_ps(out + c, m);
            for (int j = 0; j < k; j++)
                acc = _mm256_add_ps(acc, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(rows[j] + c))));
            _mm256_maskstore_ps(out + c, m, acc);
        }
    }
    /* k dense rows added with AVX-512 (F, BW, VL): the outputs in blocks of up to 8 x 16,
       each block's sums held in 8 registers while all k rows are added (one load, widened
       for float16, and one add per 16 weights), instead of read and written per 8 outputs
       with a loop over the rows in between.  Lanes past C are masked: no weight read past a
       row, no sum stored.  TSDSL_ADD_BLOCK(NAME, T, LOAD, NV) makes NAME##NV, the block of
       NV vectors for rows of T (LOAD: 16 of them as floats); the unrolled loops keep the
       sums in registers.  TSDSL_ADD_ROWS makes the function over all of a row's blocks. */
    #define TSDSL_LOAD16(p, m) _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((m), (p)))
    #define TSDSL_LOAD32(p, m) _mm512_maskz_loadu_ps((m), (p))
    #define TSDSL_LANES(v, NV, last) ((v) == (NV) - 1 ? (last) : (__mmask16)0xffff)
    #define TSDSL_ADD_BLOCK(NAME, T, LOAD, NV)                                                   \
        __attribute__((target("avx512f,avx512bw,avx512vl,f16c")))                                 \
        static void NAME##NV(float* __restrict out, const T* const* rows, int k, int c0,         \
                             __mmask16 last) {                                                   \
            __m512 acc[NV];                                                                      \
            _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                                 \
                acc[v] = _mm512_maskz_loadu_ps(TSDSL_LANES(v, NV, last), out + c0 + 16 * v);     \
            for (int j = 0; j < k; j++) {                                                        \
                const T* r = rows[j] + c0;                                                       \
                _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                             \
                    acc[v] = _mm512_add_ps(acc[v], LOAD(r + 16 * v, TSDSL_LANES(v, NV, last)));  \
            }                                                                                    \
            _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                                 \
                _mm512_mask_storeu_ps(out + c0 + 16 * v, TSDSL_LANES(v, NV, last), acc[v]);      \
        }
    #define TSDSL_ADD_ROWS(FN, NAME, T, LOAD)                                                    \
        TSDSL_ADD_BLOCK(NAME, T, LOAD, 1) TSDSL_ADD_BLOCK(NAME, T, LOAD, 2)                      \
        TSDSL_ADD_BLOCK(NAME, T, LOAD, 3) TSDSL_ADD_BLOCK(NAME, T, LOAD, 4)                      \
        TSDSL_ADD_BLOCK(NAME, T, LOAD, 5) TSDSL_ADD_BLOCK(NAME, T, LOAD, 6)                      \
        TSDSL_ADD_BLOCK(NAME, T, LOAD, 7) TSDSL_ADD_BLOCK(NAME, T, LOAD, 8)                      \
        __attribute__((target("avx512f,avx512bw,avx512vl,f16c")))                                 \
        static void FN(float* __restrict out, const T* const* rows, int k, int C) {              \
            for (int c0 = 0; c0 < C; c0 += 128) {                                                \
                int nb = C - c0 < 128 ? C - c0 : 128, nv = (nb + 15) / 16, r = nb - 16 * (nv - 1); \
                __mmask16 last = (__mmask16)(r == 16 ? 0xffff : (1u << r) - 1);                 \
                switch (nv) {                                                                    \
                case 1: NAME##1(out, rows, k, c0, last); break;                                  \
                case 2: NAME##2(out, rows, k, c0, last); break;                                  \
                case 3: NAME##3(out, rows, k, c0, last); break;                                  \
                case 4: NAME##4(out, rows, k, c0, last); break;                                  \
                case 5: NAME##5(out, rows, k, c0, last); break;                                  \
                case 6: NAME##6(out, rows, k, c0, last); break;                                  \
                case 7: NAME##7(out, rows, k, c0, last); break;                                  \
                default: NAME##8(out, rows, k, c0, last); break;                                 \
                }                                                                                \
            }                                                                                    \
        }
    TSDSL_ADD_ROWS(tsdsl_add_rows16_avx512, tsdsl_add_rows16_z, unsigned short, TSDSL_LOAD16)
    TSDSL_ADD_ROWS(tsdsl_add_rows32_avx512, tsdsl_add_rows32_z, float, TSDSL_LOAD32)
    #endif
    static int tsdsl_avx512 = -1;  /* 1: the AVX-512 row adds; 0: AVX2 or by hand; -1: not decided yet */
    static int tsdsl_use_avx512(int wanted) {
        /* wanted 1: AVX-512 if the CPU has it (F, BW, VL); 0: not (the tests compare); -1: keep */
    #ifdef TSDSL_F16C
        if (wanted >= 0 || tsdsl_avx512 < 0)
            tsdsl_avx512 = wanted != 0 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                           && __builtin_cpu_supports("avx512vl") ? 1 : 0;
    #else
        tsdsl_avx512 = 0;
    #endif
        return tsdsl_avx512;
    }
    /* tsdsl_add_row for k float32 rows in a row: each out[c] adds rows[0][c], rows[1][c] ...
       in that order, the sums of k calls bit for bit. */
    static void tsdsl_add_rows(float* __restrict out, const float* const* rows, int k, int C) {
    #ifdef TSDSL_F16C
        if (tsdsl_avx512 < 0) tsdsl_use_avx512(1);  /* decided once; a race would store the same value */
        if (tsdsl_avx512) { tsdsl_add_rows32_avx512(out, rows, k, C); return; }
    #endif
        for (int j = 0; j < k; j++) tsdsl_add_row(out, rows[j], C);
    }
    static void tsdsl_add_rows16(float* __restrict out, const unsigned short* const* rows, int k, int C) {
    #ifdef TSDSL_F16C
        if (tsdsl_f16c < 0) tsdsl_use_f16c(1);
        if (tsdsl_avx512 < 0) tsdsl_use_avx512(1);
        if (tsdsl_f16c && tsdsl_avx512) { tsdsl_add_rows16_avx512(out, rows, k, C); return; }
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
    void tsdsl_add_rows(float* out, const float* const* rows, int k, int C) noexcept nogil
    float tsdsl_half_to_float(unsigned short h) noexcept nogil
    int tsdsl_use_f16c(int wanted) noexcept nogil
    int tsdsl_use_avx512(int wanted) noexcept nogil
    int tsdsl_argmax(const float* x, int n) noexcept nogil
    int tsdsl_argmax_on


def vector_argmax(object on=None):
    """Whether greedy parsing takes the best of all outputs with AVX2 (True, the default,
    when the CPU has it) or with the scalar loop (False; the tests compare the two): sets
    it when ``on`` is given, returns it."""
    global tsdsl_argmax_on
    if on is not None:
        tsdsl_argmax_on = 1 if on else 0
    return bool(tsdsl_argmax_on)


def first_argmax(object scores):
    """The first index of the greatest of ``scores`` (float32, contiguous, not empty), as
    greedy parsing finds it (see :func:`vector_argmax`)."""
    cdef Py_ssize_t n = len(scores)
    if n < 1:
        raise ValueError("no scores")
    return tsdsl_argmax(<const float*>array_data(scores, "scores", "f", 4, n, False), <int>n)


def wide_vectors(object on=None):
    """Whether the dense row adds run on AVX-512 (True, the default, when the CPU has
    AVX-512 F, BW and VL) or as before, AVX2 or by hand (False; the tests compare the two,
    the sums are the same bit for bit): sets it when ``on`` is given, returns it."""
    return bool(tsdsl_use_avx512(-1 if on is None else (1 if on else 0)))


def float16_widening(object f16c=None):
    """How float16 dense rows are widened: True (the default) by F16C when the CPU has AVX2,
    False by hand (the tests check both); returns whether F16C is used."""
    return bool(tsdsl_use_f16c(-1 if f16c is None else (1 if f16c else 0)))


cdef enum:
    SCORE_CHUNK = 64   # features whose rows are looked up together (see add_rows_sparse)
    REF_SHIFT = 26     # a parse-time reference: count << REF_SHIFT | offset (tsdsl.learn.weights)
    REF_OFFSET = (1 << 26) - 1
    REF_DENSE = 63     # the count of a dense row
    ROW_RUN = 32       # consecutive float16 dense rows added together (tsdsl_add_rows16)
    ROW_SLACK = 8      # float16 values a parse table's dense rows need after the last (TSDSL_ROW_SLACK)


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
            if m.sp16 != NULL:  # the first and last weight: a row's pairs can cross a line
                TSDSL_PREFETCH(m.sp16 + (r & REF_OFFSET))
                TSDSL_PREFETCH(m.sp16 + (r & REF_OFFSET) + (r >> REF_SHIFT) - 1)
            else:
                TSDSL_PREFETCH(m.sp + (r & REF_OFFSET))
                TSDSL_PREFETCH(m.sp + (r & REF_OFFSET) + (r >> REF_SHIFT) - 1)


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
