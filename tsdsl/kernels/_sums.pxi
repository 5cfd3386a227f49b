# ---- the averaged perceptron's running sums, as a hash map ------------------------------
#
# Generic (included by _model.pxi, before the Model that holds them).  Only the weights ever
# updated have a sum (a few per cent of the dense table on a real treebank), so the sums are
# an open-addressing map rather than a second dense table: training memory is the weight
# table plus this map.


cdef struct Sums:
    # The averaged perceptron's running sums, kept only for the weights ever updated (a few
    # per cent of the dense table): an open-addressing map, linear probing, from a weight's
    # flat index (row * C + output) to the sum of t * delta over its updates.  The averaged
    # weight is W - sum / t.
    uint64_t* key                 # flat index + 1; 0: an empty slot
    double* val
    size_t cap                    # slots, a power of two (0 before the first update)
    size_t n                      # slots used
    int failed                    # growing the map failed (out of memory): updates stopped


cdef int sums_grow(Sums* s) noexcept nogil:
    """Double the map (64k slots at first), moving every entry; -1 when memory runs out."""
    cdef size_t cap = 2 * s.cap if s.cap else (<size_t>1 << 16)
    cdef size_t i, j
    cdef uint64_t* k = <uint64_t*>calloc(cap, sizeof(uint64_t))
    cdef double* v = <double*>malloc(cap * sizeof(double))
    if k == NULL or v == NULL:
        free(k)
        free(v)
        s.failed = 1
        return -1
    for i in range(s.cap):
        if s.key[i]:
            j = mix64(s.key[i]) & (cap - 1)
            while k[j]:
                j = (j + 1) & (cap - 1)
            k[j] = s.key[i]
            v[j] = s.val[i]
    free(s.key)
    free(s.val)
    s.key = k
    s.val = v
    s.cap = cap
    return 0


cdef inline void sums_add(Sums* s, uint64_t i, double x) noexcept nogil:
    """sums[i] += x, inserting i (kept at most 70% full)."""
    cdef uint64_t key = i + 1
    cdef size_t j
    if s.cap:
        j = mix64(key) & (s.cap - 1)
        while s.key[j] != 0 and s.key[j] != key:
            j = (j + 1) & (s.cap - 1)
        if s.key[j] == key:
            s.val[j] += x
            return
    if 10 * (s.n + 1) > 7 * s.cap:
        if sums_grow(s) < 0:
            return
        j = mix64(key) & (s.cap - 1)
        while s.key[j] != 0:
            j = (j + 1) & (s.cap - 1)
    s.key[j] = key
    s.val[j] = x
    s.n += 1
