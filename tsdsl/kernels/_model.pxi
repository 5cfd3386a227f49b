
# ---- the model: feature extraction, scoring, perceptron updates, labeled costs ----------
# Generic (included by _learn.pxi, before the Learner that drives these functions).  The
# feature program (tsdsl.learn.features) and the classifier outputs (tsdsl.learn.outputs)
# arrive as int32 tables; sentences as int64 token tables (tsdsl.learn.tokens).  Everything
# on the per-step path runs without the GIL.

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport realloc

cdef enum:
    FX_NONE = 1        # the address does not resolve to a token
    FX_ROOT = 2        # the address is the artificial root
    FX_NOLABEL = 3     # the token has no head yet
    FX_BASE = 16       # small values are shifted past the codes above
    KID_W = 8          # child statistics per token, see kids_compute
    ADDR_W = 8
    ATOM_W = 3
    TPL_W = 5
    SEED_W = 5         # per template: its seed, then a multiplier per atom position (TPL_W - 1)
    FEATURE_HASH = 2   # the feature hash of new models (hash_templates); 1 reads older ones
    MAX_CLASS_UNITS = 4
    CLS_W = 6          # per class: label, unit0..unit3, spare


cdef struct Feats:
    const int* addr
    const int* atom
    const int* tpl
    const unsigned char* open_r  # per list: 1 when position 0 is its last element
    int n_addr
    int n_atom
    int n_tpl
    int need_kids
    const int64_t* tok            # word t's value in row r: tok[r * stride + t - 1]
    Py_ssize_t stride
    int* at                       # scratch: the token of each address
    uint64_t* val                 # scratch: the value of each atom
    uint64_t* seed                # per template, SEED_W words: the start of its hash (template_seed),
    #                               then the multiplier of each atom position (hash 2)
    int hash_v                    # the feature hash: 1 (a mix per atom) or 2 (see hash_templates)
    int hash_shift                # hash 2: 64 - the bucket bits
    int* kids                     # scratch: KID_W ints per token
    uint64_t* sets                # scratch: left and right label sets per token
    int i0                        # capacity inf: the indexes of the family instance being scored
    int i1
    int* parts                    # per scoring part (set_part_atoms): its addresses, then its atoms, or NULL
    int* part_start               # part p's addresses at parts[part_start[2p] ..], atoms at [part_start[2p + 1] ..]


include "_sums.pxi"  # the averaging sums: a hash map of the weights ever updated


cdef struct WEntry:
    int col                       # the output
    float w                       # its weight


cdef struct Model:
    float* W                      # [buckets, C] weights (training; NULL when parsing from sp)
    const unsigned int* sp_ref    # parsing: per bucket, where its weights are (see add_rows_sparse), or NULL
    const WEntry* sp              #   sparse rows: (output, weight) pairs ...
    const unsigned int* sp16      #   ... or output | float16 bits << 16, when not NULL
    const float* sp_dense         #   dense rows: C weights each (float32) ...
    const unsigned short* sp_dense16  # ... or float16 (their bits), when not NULL
    Sums sums                     # averaging sums (training only)
    int C                         # classifier outputs
    unsigned int mask             # buckets - 1
    const int* cls                # CLS_W ints per output: label, units (-1 padded)
    double t                      # instances seen (averaged perceptron clock)
    const unsigned char* live     # [buckets]: 0 for rows known to be zero (parsing), or NULL
    const int* gord               # scoring groups (see score): template numbers, group by group
    const int* gstart             # group g is gord[gstart[g] .. gstart[g + 1]); group 0 is summed directly
    int ngrp                      # groups after group 0 (0: the rows are added in template order)
    float* gbuf                   # scratch: one group's sum (C floats)
    int root_lab                  # parsing: the label kept for arcs from the root, and for those
    #                               alone (see root_label_wrong); -1: no such rule


include "_rows.pxi"  # the row adds: the weights of a state's features into its scores


cdef inline bint tok_ok(const St* s, int t) noexcept nogil:
    return 0 <= t < s.ntok and ((1 <= t <= s.n) or t == s.root)


cdef inline int list_at(const St* s, const Feats* fx, int k, int i) noexcept nogil:
    if k < 0 or k >= NLX or i >= s.hi[k] - s.lo[k]:
        return -1
    if fx.open_r[k]:
        return s.buf[k * s.cap + s.hi[k] - 1 - i]
    return s.buf[k * s.cap + s.lo[k] + i]


cdef void kids_compute(const St* s, int* kids, uint64_t* sets) noexcept nogil:
    """Per token: leftmost, second leftmost, rightmost, second rightmost, closest left and
    closest right child, left and right valency; left and right label sets."""
    cdef int t, h, k, ntok = s.ntok
    cdef uint64_t bit
    for t in range(ntok):
        k = t * KID_W
        kids[k] = -1; kids[k + 1] = -1; kids[k + 2] = -1
        kids[k + 3] = -1; kids[k + 4] = -1; kids[k + 5] = -1
        kids[k + 6] = 0; kids[k + 7] = 0
        sets[2 * t] = 0; sets[2 * t + 1] = 0
    for t in range(ntok):
        h = s.head[t]
        if h < 0 or h >= ntok:
            continue
        k = h * KID_W
        bit = (<uint64_t>1) << ((s.lab[t] + 1) & 63)
        if t < h:
            if kids[k] < 0:
                kids[k] = t
            elif kids[k + 1] < 0:
                kids[k + 1] = t
            kids[k + 4] = t
            kids[k + 6] += 1
            sets[2 * h] |= bit
        else:
            kids[k + 3] = kids[k + 2]
            kids[k + 2] = t
            if kids[k + 5] < 0:
                kids[k + 5] = t
            kids[k + 7] += 1
            sets[2 * h + 1] |= bit


cdef void extract(const St* s, Feats* fx, const Model* m, int* out) noexcept nogil:
    """The bucket of every template of the feature program in state s."""
    if fx.need_kids:
        kids_compute(s, fx.kids, fx.sets)
    extract_core(s, fx, m, out)


cdef inline int instance_token(const St* s, const Feats* fx, int kind, int lst, int shift) noexcept nogil:
    """The token of an instance-relative base (kind 3: the family's first index i, 4: the
    second, j): position index - 1 + shift of list lst, counted from its open end; -1 if none."""
    cdef int pos = (fx.i0 if kind == 3 else fx.i1) - 1 + shift
    if pos < 0:
        return -1
    pos = list_at(s, fx, lst, pos)
    return pos if tok_ok(s, pos) else -1


cdef void extract_core(const St* s, Feats* fx, const Model* m, int* out) noexcept nogil:
    """As :func:`extract`, with the child tables (fx.kids, fx.sets) already computed for s."""
    extract_atoms(s, fx)
    hash_templates(fx, m, NULL, fx.n_tpl, out)


cdef inline void extract_atoms(const St* s, Feats* fx) noexcept nogil:
    """The token of every address (fx.at) and the value of every atom (fx.val) in s, with
    the child tables already computed.  An address is a list position, an instance index or
    the word CL or CR picks between two earlier addresses, then its steps (head, a child,
    the sentence neighbours), each checked to land on a word or the root (else -1)."""
    extract_some(s, fx, NULL, fx.n_addr, NULL, fx.n_atom)


cdef inline void extract_part(const St* s, Feats* fx, int p) noexcept nogil:
    """:func:`extract_atoms` for the templates of scoring part p alone (0: those in no
    group, g: group g; see set_part_atoms): the addresses and atoms they read, nothing
    else (the other entries of fx.at and fx.val keep what they held).  A step whose
    groups' sums are all kept reads only the templates in no group: NM Covington's 21 of 94."""
    cdef const int* ps
    if fx.parts == NULL:
        extract_atoms(s, fx)
        return
    ps = fx.part_start + 2 * p
    extract_some(s, fx, fx.parts + ps[0], ps[1] - ps[0], fx.parts + ps[1], ps[2] - ps[1])


cdef int set_part_atoms(Feats* fx, const int* order, const int* starts, int nparts,
                        const int* anchors) except -1:
    """fx.parts for scoring parts 0 .. nparts - 1 (part p: templates order[starts[p] ..
    starts[p + 1])): per part the addresses its templates' atoms read, with the two an
    address picked by CL or CR reads (and for part 0 the CL and CR anchors, anchors[2g] ==
    -1, that gc_slot reads), then those atoms, each list in increasing order.  Leaves
    fx.parts NULL (extract_part then extracts everything) when an address would read a
    later one, which extract_atoms' order does not allow."""
    cdef int p, k, a, j, at, g
    cdef const int* ad
    free(fx.parts)
    free(fx.part_start)
    fx.parts = NULL
    fx.part_start = NULL
    lists = []
    for p in range(nparts):
        addrs, atoms = set(), set()
        for k in range(starts[p], starts[p + 1]):
            a = order[k]
            for j in range(fx.tpl[a * TPL_W]):
                at = fx.tpl[a * TPL_W + 1 + j]
                atoms.add(at)
                addrs.add(fx.atom[at * ATOM_W])
                if fx.atom[at * ATOM_W + 1] >= 6:  # a distance: its second address too
                    addrs.add(fx.atom[at * ATOM_W + 2])
        if p == 0:
            for g in range(nparts - 1):
                if anchors[2 * g] == -1:
                    addrs.add(anchors[2 * g + 1])
        for a in range(fx.n_addr - 1, -1, -1):  # the bases of an address picked by CL or CR: earlier ones
            ad = fx.addr + a * ADDR_W
            if a in addrs and (ad[0] == 1 or ad[0] == 2):
                if not (0 <= ad[1] < a and 0 <= ad[2] < a):
                    return 0
                addrs.update((ad[1], ad[2]))
        lists.append((sorted(addrs), sorted(atoms)))
    fx.part_start = <int*>malloc(sizeof(int) * (2 * nparts + 1))
    fx.parts = <int*>malloc(sizeof(int) * (sum(len(x) + len(y) for x, y in lists) + 1))
    if fx.parts == NULL or fx.part_start == NULL:
        free(fx.parts)
        free(fx.part_start)
        fx.parts = NULL
        fx.part_start = NULL
        raise MemoryError()
    k = 0
    for p, (addrs, atoms) in enumerate(lists):
        fx.part_start[2 * p] = k
        for a in addrs:
            fx.parts[k] = a
            k += 1
        fx.part_start[2 * p + 1] = k
        for a in atoms:
            fx.parts[k] = a
            k += 1
    fx.part_start[2 * nparts] = k
    return 0


cdef void extract_some(const St* s, Feats* fx, const int* addr_idx, int n_addr, const int* atom_idx,
                       int n_atom) noexcept nogil:
    """The addresses addr_idx[0 .. n_addr) and then the atoms atom_idx[0 .. n_atom) of
    :func:`extract_atoms` (NULL: the first n of each), in increasing order: an address
    picked by CL or CR reads two earlier ones, which the list must hold."""
    cdef int a, i, j, t, l, r, u, k, d, code
    cdef const int* ad
    cdef const int* at
    cdef uint64_t v
    cdef int* tokens = fx.at
    cdef uint64_t* val = fx.val
    cdef const int* head = s.head
    cdef const int* lab = s.lab
    cdef const int* kids = fx.kids
    cdef const uint64_t* sets = fx.sets
    cdef const int64_t* tok = fx.tok - 1  # word t's value in row r: tok[r * stride + t]
    cdef Py_ssize_t stride = fx.stride
    cdef int n = s.n, ntok = s.ntok, root = s.root
    for i in range(n_addr):
        a = addr_idx[i] if addr_idx != NULL else i
        ad = fx.addr + a * ADDR_W
        if ad[0] == 0:
            t = list_at(s, fx, ad[1], ad[2])
        elif ad[0] >= 3:
            t = instance_token(s, fx, ad[0], ad[1], ad[2])
        else:
            t = -1
            l = tokens[ad[1]]
            r = tokens[ad[2]]
            if l >= 0 and r >= 0 and l < r:  # the first (CL) or last (CR) word strictly between
                u = l + 1 if ad[0] == 1 else r - 1  # whose head is not in [l, r]: scanned from its end
                d = 1 if ad[0] == 1 else -1
                while l < u < r:
                    if 1 <= u <= n and (head[u] < l or head[u] > r):
                        t = u
                        break
                    u += d
        if not (0 <= t < ntok and (1 <= t <= n or t == root)):  # tok_ok
            t = -1
        for j in range(ad[3]):  # the steps (step_of)
            if t < 0:
                break
            code = ad[4 + j]
            if code == 1:
                t = head[t]
            elif 2 <= code <= 7:
                t = kids[t * KID_W + code - 2]
            elif code == 8:
                t = t - 1
            elif code == 9:
                t = t + 1
            if not (0 <= t < ntok and (1 <= t <= n or t == root)):
                t = -1
        tokens[a] = t
    for i in range(n_atom):
        a = atom_idx[i] if atom_idx != NULL else i
        at = fx.atom + a * ATOM_W
        t = tokens[at[0]]
        k = at[1]
        if t < 0:
            v = FX_NONE
        elif k == 0:
            v = FX_ROOT if t == root else <uint64_t>tok[at[2] * stride + t]
        elif k == 1:
            v = FX_NOLABEL if head[t] < 0 else <uint64_t>(lab[t] + FX_BASE)
        elif k == 2 or k == 3:
            v = <uint64_t>(kids[t * KID_W + 4 + k] + FX_BASE)
        elif k == 4 or k == 5:
            v = mix64(sets[2 * t + k - 4] + FX_BASE)
        else:
            u = tokens[at[2]]
            if u < 0:
                v = FX_NONE
            else:
                d = t - u if t > u else u - t
                v = <uint64_t>(FX_BASE + (d if d <= 5 else (6 if d <= 10 else 7)))
        val[a] = v


cdef inline uint64_t template_seed(int a) noexcept nogil:
    """Where the hash of template a starts (the same for every step: kept in fx.seed)."""
    return mix64(<uint64_t>(a + 1) * <uint64_t>0x9E3779B97F4A7C15ULL)


cdef inline uint64_t atom_multiplier(int a, int j) noexcept nogil:
    """Hash 2: the odd multiplier of template a's atom j (kept in fx.seed after its seed)."""
    return mix64(template_seed(a) + <uint64_t>(j + 1)) | <uint64_t>1


cdef inline int bucket_bits(unsigned int mask) noexcept nogil:
    """The bits of a bucket number, for mask = buckets - 1 (a power of two less one)."""
    cdef int b = 0
    while mask:
        b += 1
        mask >>= 1
    return b


cdef void hash_templates(const Feats* fx, const Model* m, const int* idx, int n, int* out) noexcept nogil:
    """out[a]: the bucket of template a = idx[k] (idx NULL: a = k), k < n, from the atom
    values of :func:`extract_atoms`.

    Hash 2 (models trained since stop 31): the template's seed plus each atom value times
    its own odd multiplier (one per template and atom position), the sum multiplied by the
    golden-ratio constant and its top bits taken (multiplicative hashing).  The atom terms
    are independent, so the processor computes them side by side, and a template costs one
    multiply per atom and one more, where hash 1 (models trained before) runs the 64-bit
    finaliser once per atom, one after the other (hashing 40% fewer instructions; the
    kernel 3 to 8% faster on NM Covington and non-projective easy-first: docs/kernels.md,
    stop 31)."""
    cdef int k, a, j
    cdef const int* at
    cdef const uint64_t* sd
    cdef uint64_t h
    cdef int shift = fx.hash_shift
    if fx.hash_v == 2:
        for k in range(n):
            a = idx[k] if idx != NULL else k
            at = fx.tpl + a * TPL_W
            sd = fx.seed + a * SEED_W
            h = sd[0]
            for j in range(at[0]):
                h += fx.val[at[1 + j]] * sd[1 + j]
            out[a] = <int>(((h * <uint64_t>0x9E3779B97F4A7C15ULL) >> shift) & m.mask)
            if m.sp_ref != NULL:  # the row's reference is on its way while the next templates hash
                TSDSL_PREFETCH(m.sp_ref + out[a])
        return
    for k in range(n):
        a = idx[k] if idx != NULL else k
        at = fx.tpl + a * TPL_W
        h = fx.seed[a * SEED_W]
        for j in range(at[0]):
            h = mix64(h ^ (fx.val[at[1 + j]] + <uint64_t>(j + 1) * <uint64_t>0xD6E8FEB86659FD93ULL))
        out[a] = <int>(h & m.mask)
        if m.sp_ref != NULL:
            TSDSL_PREFETCH(m.sp_ref + out[a])


cdef inline void group_sum(const Model* m, const int* feats, int g, float* out) noexcept nogil:
    """out = the sum of the rows of scoring group g's templates, from zero, in the group's
    order (m.gord: those that read no arc first, see tsdsl.learn.scoring)."""
    memset(out, 0, sizeof(float) * m.C)
    add_rows(m, feats, m.gord + m.gstart[g], m.gstart[g + 1] - m.gstart[g], out)


cdef void score(const Model* m, const int* feats, int nf, float* out) noexcept nogil:
    """out[c]: the sum of every feature's weight for output c.  Without scoring groups
    (m.ngrp == 0) the rows are added in template order.  With them (see _groups.pxi) the
    sum is fixed as: group 0's rows in template order, then each further group's own sum
    (its rows from zero, in the group's order: m.gord) added in group order.  That order makes a
    group's sum a function of its feature buckets alone, so greedy parsing may keep it while
    the tokens it reads stay the same, and every path (training, beam, cached or not) adds
    the same numbers in the same order."""
    cdef int g
    memset(out, 0, sizeof(float) * m.C)
    if m.ngrp == 0:
        add_rows(m, feats, NULL, nf, out)
        return
    add_rows(m, feats, m.gord, m.gstart[1], out)
    for g in range(1, m.ngrp + 1):
        group_sum(m, feats, g, m.gbuf)
        tsdsl_add_row(out, m.gbuf, m.C)


cdef void update(Model* m, const int* feats, int nf, int c, float delta) noexcept nogil:
    cdef int f
    cdef size_t i
    cdef double td = m.t * delta
    if m.sums.failed:
        return
    for f in range(nf):
        i = <size_t>feats[f] * m.C + c
        m.W[i] += delta
        sums_add(&m.sums, i, td)


cdef int legal_classes(St* s, const Model* m, int* unit) noexcept nogil:
    """unit[c]: the unit output c stands for in s (its first legal unit), -1 when c is not
    legal; returns how many are legal.  Each unit's guard is evaluated once."""
    cdef unsigned char ok[N_ACTIONS + 1]
    cdef int a
    for a in range(N_ACTIONS):
        ok[a] = a < s.nact and valid_nt(s, a)
    return units_of_outputs(ok, m, unit)


cdef int units_of_outputs(const unsigned char* ok, const Model* m, int* unit) noexcept nogil:
    """:func:`legal_classes` given which units are legal (ok[a])."""
    cdef const int* row
    cdef int a, c, j, u, count = 0
    for c in range(m.C):
        row = m.cls + c * CLS_W
        u = -1
        for j in range(MAX_CLASS_UNITS):
            a = row[1 + j]
            if a < 0:
                break
            if a < N_ACTIONS and ok[a]:
                u = a
                break
        unit[c] = u
        count += u >= 0
    return count


cdef enum:
    MEMO_UNITS = 12    # greedy parsing memoizes the legal outputs of systems with at most this many units


cdef struct LegalMemo:
    int** unit         # per legality pattern (bit a: unit a legal): legal_classes's C ints, then the
                       #   legal outputs in increasing order (count of them); NULL: not seen
    int* count         # per pattern: how many outputs are legal
    int on             # 0: not memoized (too many units, or out of memory)


cdef void memo_open(LegalMemo* lm, bint wanted) noexcept nogil:
    """Greedy parsing sees few legality patterns (which units apply): each pattern's outputs
    are worked out once, instead of every output's units at every step (unless not wanted,
    or the system has more than MEMO_UNITS units)."""
    lm.on = wanted and N_ACTIONS <= MEMO_UNITS
    lm.unit = NULL
    lm.count = NULL
    if lm.on:
        lm.unit = <int**>calloc(1 << N_ACTIONS, sizeof(int*))
        lm.count = <int*>calloc(1 << N_ACTIONS, sizeof(int))
        lm.on = lm.unit != NULL and lm.count != NULL


cdef void memo_free(LegalMemo* lm) noexcept nogil:
    cdef int k
    if lm.unit != NULL:
        for k in range(1 << N_ACTIONS):
            free(lm.unit[k])
    free(lm.unit)
    free(lm.count)
    lm.unit = NULL
    lm.count = NULL
    lm.on = 0


cdef int legal_outputs(LegalMemo* lm, St* s, const Model* m, int* scratch, const int** unit,
                       const int** legal) noexcept nogil:
    """:func:`legal_classes` of s into ``unit`` and its legal outputs, in increasing order, into
    ``legal``; returns how many.  The memoized rows of s's legality pattern, or ``scratch``
    (2 C ints) when not memoized."""
    cdef unsigned char ok[N_ACTIONS + 1]
    cdef int a, pattern = 0
    cdef int* row
    for a in range(N_ACTIONS):
        ok[a] = a < s.nact and valid_nt(s, a)
        pattern |= ok[a] << a
    row = lm.unit[pattern] if lm.on else NULL
    if row == NULL:
        row = <int*>malloc(sizeof(int) * (2 * m.C + 1)) if lm.on else NULL
        if row == NULL:
            row = scratch
        a = units_of_outputs(ok, m, row)
        list_legal(row, m.C, row + m.C)
        if row == scratch:
            unit[0] = row
            legal[0] = row + m.C
            return a
        lm.count[pattern] = a
        lm.unit[pattern] = row
    unit[0] = row
    legal[0] = row + m.C
    return lm.count[pattern]


cdef inline void list_legal(const int* unit, int C, int* out) noexcept nogil:
    cdef int c, k = 0
    for c in range(C):
        if unit[c] >= 0:
            out[k] = c
            k += 1


cdef void class_costs(St* s, St* tmp, const Model* m, int ol, const int* unit, int* urow, int* out) noexcept nogil:
    """Labeled cost of every output (ILLEGAL where not legal), as the labeled oracle pass."""
    cdef int c, a, h, d, lab
    all_costs_nt(s, tmp, ol, urow)
    for c in range(m.C):
        a = unit[c]
        if a < 0 or urow[a] == ILLEGAL:
            out[c] = ILLEGAL
            continue
        out[c] = urow[a]
        lab = m.cls[c * CLS_W]
        if lab >= 0 and arc_of(s, a, &h, &d) and s.gold[d] == h and s.glab[d] != lab:
            out[c] += 1


cdef inline bint root_label_wrong(St* s, const Model* m, int a, int c) noexcept nogil:
    """Whether output c, through the legal action a, would put the model's root label where the
    training treebank never had it: on an arc whose head is not the root, or another label
    on an arc from the root (m.root_lab >= 0, see Learner.set_root_label).  UD keeps the
    label ``root`` for the arc from the root and off every other."""
    cdef int lab = m.cls[c * CLS_W], h, d
    if m.root_lab < 0 or lab < 0:
        return 0
    if s.root < 0:  # no root token (`root none`): only `finally` attaches to the root, so no arc takes its label
        return lab == m.root_lab and arc_of_legal(s, a, &h, &d)
    return arc_of_legal(s, a, &h, &d) and (lab == m.root_lab) != (h == s.root)


cdef int best_keeping_root_label(St* s, const Model* m, const int* unit, const int* legal, int n,
                                 const float* by_output, const float* by_rank, int fallback) noexcept nogil:
    """The first best-scoring of the n legal outputs legal[k] (unit[c]: the action of output
    c) that is not root_label_wrong; its score is by_output[c], or by_rank[k] when by_output
    is NULL.  ``fallback`` when every one is.  Greedy parsing calls it only when its choice
    is wrong, which is rare, so the scan over every legal output costs nothing in total."""
    cdef int k, c, best = -1
    cdef float v, top = 0
    for k in range(n):
        c = legal[k]
        if root_label_wrong(s, m, unit[c], c):
            continue
        v = by_output[c] if by_output != NULL else by_rank[k]
        if best < 0 or v > top:
            best = c
            top = v
    return best if best >= 0 else fallback


cdef void mask_root_label(St* s, const Model* m, int* unit) noexcept nogil:
    """unit[c] = -1 (not legal) for every legal output c that is root_label_wrong, unless no
    legal output would be left: beam search's counterpart of best_keeping_root_label.  Each
    legal action's arc is read once (its head: whether it is the root), not once per label."""
    cdef int c, a, h, d, lab, kept = 0
    cdef signed char from_root[N_ACTIONS + 1]  # per action: -1 not read yet, 0/1 head is the root, 2 no labeled arc
    if m.root_lab < 0:
        return
    for a in range(N_ACTIONS):
        from_root[a] = -1
    for c in range(m.C):
        a = unit[c]
        if a >= 0 and from_root[a] < 0:
            from_root[a] = (h == s.root) if arc_of_legal(s, a, &h, &d) else 2
    for c in range(m.C):
        a, lab = unit[c], m.cls[c * CLS_W]
        if a >= 0 and (lab < 0 or from_root[a] == 2 or (lab == m.root_lab) == (from_root[a] == 1)):
            kept += 1
    if kept == 0:
        return
    for c in range(m.C):
        a, lab = unit[c], m.cls[c * CLS_W]
        if a >= 0 and lab >= 0 and from_root[a] != 2 and (lab == m.root_lab) != (from_root[a] == 1):
            unit[c] = -1


cdef void note_labels(St* s, const Model* m, const int* unit, const float* sc, int stamp, int* note_lab,
                      int* note_stamp, float* note_sc, int* unit_arc) noexcept nogil:
    """For every arc h -> d a legal labeled output would build now, note the label of the
    best-scoring such output (replacing a note from an earlier step).  Notes are indexed
    h * ntok + d; ``stamp`` is unique per step of the call, so nothing needs clearing."""
    cdef int c, u, h, d, lab, k
    for u in range(N_ACTIONS):
        unit_arc[2 * u] = -2
    for c in range(m.C):
        u = unit[c]
        lab = m.cls[c * CLS_W]
        if u < 0 or lab < 0:
            continue
        if unit_arc[2 * u] == -2:
            if arc_of(s, u, &h, &d):
                unit_arc[2 * u] = h
                unit_arc[2 * u + 1] = d
            else:
                unit_arc[2 * u] = -1
        h = unit_arc[2 * u]
        if h < 0 or (m.root_lab >= 0 and (lab == m.root_lab) != (h == s.root)):  # see root_label_wrong
            continue
        k = h * s.ntok + unit_arc[2 * u + 1]
        if note_stamp[k] != stamp or sc[c] > note_sc[k]:
            note_stamp[k] = stamp
            note_sc[k] = sc[c]
            note_lab[k] = lab


cdef int train_noted_labels(Model* m, const int* feats, int nf, const int* unit, const float* sc,
                            const int* ccost, int* ubest) noexcept nogil:
    """Train the labels that notes read (specs with unlabeled arcs): for every legal action
    whose labeled outputs differ in cost (it would build a gold arc, and one label is the
    gold one), move the weights towards the least-cost label and away from the best-scoring
    one when they differ, whatever action the step takes.  A note is the best-scoring label
    of an arc the parser did *not* build at that step (Honnibal, Goldberg & Johnson 2013:
    the word was shifted), so these scores must be right at steps where the action is not
    taken too.  ``ubest`` holds 2 (N_ACTIONS + 1) ints.  Returns the updates made."""
    cdef int c, u, lab, made = 0
    for u in range(N_ACTIONS):
        ubest[2 * u] = -1
        ubest[2 * u + 1] = -1
    for c in range(m.C):
        u = unit[c]
        lab = m.cls[c * CLS_W]
        if u < 0 or lab < 0 or ccost[c] == ILLEGAL:
            continue
        if ubest[2 * u] < 0 or sc[c] > sc[ubest[2 * u]]:
            ubest[2 * u] = c
        if ubest[2 * u + 1] < 0 or ccost[c] < ccost[ubest[2 * u + 1]]:
            ubest[2 * u + 1] = c
    for u in range(N_ACTIONS):
        c = ubest[2 * u]
        if c >= 0 and ccost[c] > ccost[ubest[2 * u + 1]]:
            update(m, feats, nf, ubest[2 * u + 1], 1.0)
            update(m, feats, nf, c, -1.0)
            made += 1
    return made


cdef inline uint64_t rng_next(uint64_t* x) noexcept nogil:
    x[0] ^= x[0] >> 12
    x[0] ^= x[0] << 25
    x[0] ^= x[0] >> 27
    return x[0] * <uint64_t>0x2545F4914F6CDD1DULL


cdef inline double rng_unit(uint64_t* x) noexcept nogil:
    return (rng_next(x) >> 11) * (1.0 / 9007199254740992.0)


cdef int grow(int** hist, int** hfeat, int* cap, int nf) noexcept nogil:
    """Double the beam's history arrays (nodes and feature rows share one capacity)."""
    cdef int c2 = 2 * cap[0]
    cdef int* h = <int*>realloc(hist[0], sizeof(int) * 3 * c2)
    if h == NULL:
        return -1
    hist[0] = h
    h = <int*>realloc(hfeat[0], sizeof(int) * <size_t>nf * c2 + 1)
    if h == NULL:
        return -1
    hfeat[0] = h
    cap[0] = c2
    return 0
