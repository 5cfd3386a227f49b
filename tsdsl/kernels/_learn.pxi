
# ---- learning: the Learner (greedy and beam training and parsing) ----------------------
# Generic (included by every kernel).  The feature program (tsdsl.learn.features) and the
# classifier outputs (tsdsl.learn.outputs) arrive as int32 tables; sentences as int64
# token tables (tsdsl.learn.tokens).  Everything on the per-step path runs without the GIL.

cdef int need_loss(int ol) except -1:
    """Training reads the costs of loss ol: a spec without an oracle block has none (it trains
    along derivations found by search, train_sequence), and a bad index would read past them."""
    if ol < 0 or ol >= N_LOSSES:
        raise ValueError(f"bad loss index {ol}: this kernel has {N_LOSSES} declared loss(es)")
    return 0


include "_model.pxi"  # features, scoring, perceptron updates, labeled costs, label notes
include "_groups.pxi"  # scoring groups: sums greedy parsing keeps per anchor token
include "_few.pxi"  # scoring a few outputs: greedy steps with few legal outputs
include "_beam.pxi"
include "_detours.pxi"  # dynamic training: zero-cost steps that only lengthen the derivation


# Sentences as the kernel reads them (see corpus_of).
cdef struct Corpus:
    const int* order      # which sentences, in this order (n_order of them); NULL: all, in order
    Py_ssize_t n_order
    const int* offsets    # sentence i: words offsets[i] .. offsets[i + 1] - 1
    const int64_t* tok    # token attributes: row a, word w at tok[a * stride + w]
    Py_ssize_t stride
    const int* heads      # gold heads (CoNLL-U numbering) per word; NULL when parsing
    const int* labels     # gold label ids per word; NULL when parsing


cdef int corpus_of(Corpus* cp, object order, object offsets, object tokens, object heads,
                   object labels) except -1:
    """Check and lay out a corpus from numpy arrays: order and offsets int32, tokens a
    C-contiguous int64 table [attributes, words], heads and labels int32 per word (or both
    None); order None for every sentence in turn.  Every sentence order names must lie in
    offsets."""
    cdef Py_ssize_t k, n_off, words
    n_off = len(offsets)
    cp.offsets = int32_data(offsets, "offsets", 1)
    if order is None:
        cp.order = NULL
        cp.n_order = n_off - 1
    else:
        cp.n_order = len(order)
        cp.order = int32_data(order, "order", cp.n_order)
        for k in range(cp.n_order):
            if not 0 <= cp.order[k] < n_off - 1:
                raise ValueError(f"order: sentence {cp.order[k]} is not among the {n_off - 1} given")
    words = cp.offsets[n_off - 1]
    n_rows, cp.stride = tokens.shape
    if cp.stride < words:
        raise ValueError(f"tokens: {cp.stride} columns for {words} words")
    cp.tok = int64_data(tokens, "tokens", n_rows * cp.stride)
    if (heads is None) != (labels is None):
        raise ValueError("gold heads and labels come together")
    cp.heads = NULL if heads is None else int32_data(heads, "gold heads", words)
    cp.labels = NULL if labels is None else int32_data(labels, "gold labels", words)
    return 0


cdef class Learner:
    """A feature program and a weight table bound to this kernel (see tsdsl.learn)."""
    cdef Feats fx
    cdef Model m
    cdef object keep        # numpy arrays whose memory the structs point into
    cdef int max_n
    cdef public double clock
    cdef object inst_keep   # capacity inf: the instance bases array (see set_instances)
    cdef const int* inst_base
    cdef int n_inst_base
    cdef int inst_local
    cdef object inst_gkeep  # capacity inf: the instance groups' bases (see set_instance_groups)
    cdef const int* inst_gbase
    cdef int inst_ng
    cdef public bint inst_groups_on         # capacity inf: parsing keeps the instance groups' sums (default on)
    cdef public long long group_hits, group_misses  # capacity inf: instance group sums kept / made in the last parse
    cdef public long long cache_hits, cache_misses
    cdef object sp_keep     # parsing: the sparse table's arrays (see set_sparse)
    cdef object grp_keep    # the scoring groups' arrays (see set_groups)
    cdef public bint group_check            # greedy parsing also scores every step (instance) from scratch
    cdef public long long group_mismatches  # checked steps (instances) whose scores differed from scratch (should be 0)
    cdef public bint legal_memo             # greedy parsing memoizes legal outputs per pattern (legal_outputs)
    cdef public bint few_outputs            # greedy parsing scores only the legal outputs when few are (score_few)
    cdef public long long few_steps         # steps the last greedy parse scored that way (or not at all: one legal)
    cdef public bint forced_chains          # greedy parsing takes a step whose every outcome is the same without scores
    cdef public long long chain_steps       # steps the last greedy parse took that way (_chains.pxi)
    cdef public long long chain_tries       # the checks it ran for them
    cdef public bint unit_best              # capacity inf: each instance's best output kept with its scores
    cdef public bint detours                # dynamic training accepts zero-cost detours (default; _detours.pxi)
    cdef public long long detour_steps      # steps the last dynamic training pass found one at
    cdef const int* grp_anchor
    cdef const int* grp_walks
    cdef int grp_nwalks

    def __init__(self, object addresses, int n_addr, object atoms, int n_atom, object templates, int n_tpl,
                 object open_r, object cls, int C, object W, object live, unsigned int mask):
        """The feature program (int32 tables of n_addr addresses, n_atom atoms, n_tpl
        templates; uint8 open ends of the lists), the classifier outputs (int32, CLS_W per
        output), and the weights: W (float32, (mask + 1) x C), live (uint8 per row for
        parsing: rows that may be non-zero; None for training, where the learner keeps the
        averaging sums of the weights it updates, see :meth:`sums`).  The arrays stay
        referenced by the learner."""
        cdef int a, j
        cdef Py_ssize_t rows = <Py_ssize_t>mask + 1
        cdef bint training = live is None
        self.fx.addr = int32_data(addresses, "addresses", n_addr * ADDR_W)
        self.fx.atom = int32_data(atoms, "atoms", n_atom * ATOM_W)
        self.fx.tpl = int32_data(templates, "templates", n_tpl * TPL_W)
        self.fx.open_r = uint8_data(open_r, "open ends", NLX)
        self.m.cls = int32_data(cls, "outputs", C * CLS_W)
        self.m.W = NULL if W is None else <float*>array_data(W, "weights", "f", 4, rows * C, True)
        self.m.live = NULL if training or W is None else uint8_data(live, "live rows", rows)
        self.m.sp_ref = NULL
        self.m.sp = NULL
        self.m.sp16 = NULL
        self.m.sp_dense = NULL
        self.m.sp_dense16 = NULL
        self.sp_keep = None
        self.m.gord = NULL
        self.m.gstart = NULL
        self.m.ngrp = 0
        self.m.gbuf = NULL
        self.m.root_lab = -1
        self.grp_keep = None
        self.group_check = False
        self.group_mismatches = 0
        self.legal_memo = True
        self.few_outputs = True
        self.few_steps = 0
        self.forced_chains = True
        self.chain_steps = 0
        self.chain_tries = 0
        self.unit_best = True
        self.detours = True
        self.detour_steps = 0
        self.grp_anchor = NULL
        self.grp_walks = NULL
        self.grp_nwalks = 0
        self.m.sums.key = NULL
        self.m.sums.val = NULL
        self.m.sums.cap = 0
        self.m.sums.n = 0
        self.m.sums.failed = 0
        self.keep = (addresses, atoms, templates, open_r, cls, W, live)
        self.fx.n_addr = n_addr
        self.fx.n_atom = n_atom
        self.fx.n_tpl = n_tpl
        self.fx.need_kids = 0
        for a in range(n_addr):
            for j in range(self.fx.addr[a * ADDR_W + 3]):
                if 2 <= self.fx.addr[a * ADDR_W + 4 + j] <= 7:
                    self.fx.need_kids = 1
        for a in range(n_atom):
            if 2 <= self.fx.atom[a * ATOM_W + 1] <= 5:
                self.fx.need_kids = 1
        self.fx.at = <int*>malloc(sizeof(int) * (n_addr + 1))
        self.fx.val = <uint64_t*>malloc(sizeof(uint64_t) * (n_atom + 1))
        self.fx.seed = <uint64_t*>malloc(sizeof(uint64_t) * (n_tpl + 1) * SEED_W)
        self.fx.kids = NULL
        self.fx.sets = NULL
        self.fx.i0 = 0
        self.fx.i1 = 0
        self.fx.parts = NULL
        self.fx.part_start = NULL
        self.inst_base = NULL
        self.n_inst_base = 0
        self.inst_local = 0
        self.inst_gbase = NULL
        self.inst_ng = 0
        self.inst_groups_on = True
        self.group_hits = 0
        self.group_misses = 0
        self.max_n = -1
        self.m.C = C
        self.m.mask = mask
        self.m.t = 1.0
        self.clock = 1.0
        if self.fx.at == NULL or self.fx.val == NULL or self.fx.seed == NULL:
            raise MemoryError()
        for a in range(n_tpl):
            self.fx.seed[a * SEED_W] = template_seed(a)
            for j in range(SEED_W - 1):
                self.fx.seed[a * SEED_W + 1 + j] = atom_multiplier(a, j)
        self.fx.hash_v = FEATURE_HASH
        self.fx.hash_shift = 64 - max(1, bucket_bits(mask))

    def __dealloc__(self):
        free(self.m.gbuf)
        free(self.m.sums.key)
        free(self.m.sums.val)
        free(self.fx.at)
        free(self.fx.val)
        free(self.fx.seed)
        free(self.fx.kids)
        free(self.fx.sets)
        free(self.fx.parts)
        free(self.fx.part_start)

    @property
    def feature_hash(self):
        """How template buckets are hashed (see hash_templates): 2 for new models (the
        default), 1 for models trained before it."""
        return self.fx.hash_v

    @feature_hash.setter
    def feature_hash(self, int v):
        if v not in (1, 2):
            raise ValueError(f"feature hash {v}: this kernel knows 1 and 2")
        self.fx.hash_v = v

    @property
    def n_sums(self):
        """How many weights were ever updated (entries of the averaging sums)."""
        return self.m.sums.n

    def sums_into(self, object index, object sums):
        """Write the averaging sums into index (int64) and sums (float64), n_sums items each,
        in table order: a weight's flat index (row * C + output) and the sum of t * delta
        over its updates.  The averaged weight is W - sum / clock."""
        cdef Sums* s = &self.m.sums
        cdef size_t i, k = 0
        cdef int64_t* ip = <int64_t*>array_data(index, "sum indices", "lq", 8, s.n, True)
        cdef double* vp = <double*>array_data(sums, "sums", "d", 8, s.n, True)
        for i in range(s.cap):
            if s.key[i]:
                ip[k] = <int64_t>(s.key[i] - 1)
                vp[k] = s.val[i]
                k += 1

    cdef int check_sums(self) except -1:
        if self.m.sums.failed:
            raise MemoryError("out of memory growing the averaged perceptron's sums; training stopped")
        return 0

    cdef int reserve(self, int n) except -1:
        if n <= self.max_n:
            return 0
        free(self.fx.kids)
        free(self.fx.sets)
        self.fx.kids = <int*>malloc(sizeof(int) * KID_W * (n + 3))
        self.fx.sets = <uint64_t*>malloc(sizeof(uint64_t) * 2 * (n + 3))
        if self.fx.kids == NULL or self.fx.sets == NULL:
            self.max_n = -1
            raise MemoryError()
        self.max_n = n
        return 0

    def set_sparse(self, object refs, object entries, int n_entries, object dense, int n_dense):
        """Parse from the parse-time table of tsdsl.learn.weights.ParseTable instead of W:
        refs uint32 per bucket (count << 26 | offset); dense float32 rows of C weights and
        entries int32 (output, float32 bits of the weight) pairs, or dense float16 rows and
        entries uint32 (output | float16 bits << 16), followed by ROW_SLACK more float16
        values (zeros: the row adds read the last outputs of a row as one vector, see
        ``_rows.pxi``).  Every reference is checked against the arrays here.  Training needs W
        (see :meth:`need_dense`)."""
        cdef Py_ssize_t rows = <Py_ssize_t>self.m.mask + 1
        cdef const unsigned int* rf = <const unsigned int*>array_data(refs, "row references", "IL", 4, rows, False)
        cdef bint half = getattr(dense, "dtype", None) is not None and dense.dtype.itemsize == 2
        cdef const int* en = NULL
        cdef const unsigned int* en16 = NULL
        if half:
            en16 = <const unsigned int*>array_data(entries, "sparse weights", "IL", 4, n_entries, False)
        else:
            en = int32_data(entries, "sparse weights", 2 * <Py_ssize_t>n_entries)
        cdef const void* dn = array_data(dense, "dense rows", "e" if half else "f", 2 if half else 4,
                                         <Py_ssize_t>n_dense * self.m.C + (ROW_SLACK if half else 0), False)
        cdef Py_ssize_t b
        cdef unsigned int r, cnt, off
        cdef int k
        for b in range(rows):
            r = rf[b]
            cnt = r >> REF_SHIFT
            off = r & REF_OFFSET
            if (off >= <unsigned int>n_dense) if cnt == REF_DENSE else (cnt > 0 and off + cnt > <unsigned int>n_entries):
                raise ValueError(f"row reference {b} points outside the weights")
        for k in range(n_entries):
            if not 0 <= (<int>(en16[k] & 0xFFFF) if half else en[2 * k]) < self.m.C:
                raise ValueError(f"sparse weights: output {en16[k] & 0xFFFF if half else en[2 * k]} out of range")
        self.m.sp_ref = rf
        self.m.sp = <const WEntry*>en
        self.m.sp16 = en16
        self.m.sp_dense = NULL if half else <const float*>dn
        self.m.sp_dense16 = <const unsigned short*>dn if half else NULL
        self.sp_keep = (refs, entries, dense)

    def set_root_label(self, int label):
        """Parsing keeps label id ``label`` for arcs from the root, and for those alone (-1:
        no such rule; see root_label_wrong): greedy parsing takes the best output that keeps
        it, beam search drops the others, notes of unlabeled arcs skip them."""
        cdef int c
        if label != -1 and not any(self.m.cls[c * CLS_W] == label for c in range(self.m.C)):
            raise ValueError(f"no output has label {label}")
        self.m.root_lab = label

    @property
    def root_label(self):
        """The label id set_root_label keeps for arcs from the root (-1: none)."""
        return self.m.root_lab

    def set_groups(self, object order, object starts, int ngrp, object anchors, object walks, int nwalks):
        """Score in groups (see score() and _groups.pxi): order, int32, every template number
        once, group by group; starts, int32 ngrp + 2, where each group begins in order (group
        0, summed directly, then groups 1..ngrp) and the end; anchors, int32 2 * ngrp, per
        group the (list, position) its addresses start at, (-1, address) for an address
        without steps (the word CL or CR picks), or (-2, k) for an instance group; walks,
        int32, nwalks reverse walks (tsdsl.learn.scoring.reverse_walks), each its length, its
        steps, the number of groups it serves and their numbers."""
        learner_set_groups(self, order, starts, ngrp, anchors, walks, nwalks)

    cdef int need_dense(self) except -1:
        if self.m.W == NULL:
            raise ValueError("training needs the dense weight table (this learner parses from a sparse one)")
        return 0

    cdef int need_weights(self) except -1:
        if self.m.W == NULL and self.m.sp == NULL and self.m.sp16 == NULL:
            raise ValueError("no weights: give W or call set_sparse first")
        return 0

    def set_instances(self, object bases, int n_base, int local):
        """Capacity inf: the instance-relative bases of the feature program, int32 rows
        (kind, list, shift, arcs: whether a feature reads the arcs at or below the base's
        token), and whether an instance's scores may be kept while its base tokens and
        their subtrees stay the same (see _instances.pxi)."""
        self.inst_base = int32_data(bases, "instance bases", 4 * n_base)
        self.n_inst_base = n_base
        self.inst_local = local
        self.inst_keep = bases

    def set_instance_groups(self, object gbase, int ng):
        """Capacity inf: the bases of groups 1..ng of set_groups (which must be given too, with
        the same ng), int32: per group the count of its bases, then (base index in the rows of
        set_instances, 1 when the group reads arcs at or below that base's token) each.  Greedy
        parsing keeps each group's sum per signature of those bases (see _instances.pxi)."""
        learner_set_instance_groups(self, gbase, ng)

    def train_greedy(self, object gold_heads, object gold_labels, object offsets_, object tokens,
                     object order_, int ol, int dynamic, double explore_p, unsigned long long seed):
        """One pass of greedy training over the sentences order[0..n_order): at each step the
        model's best legal output is compared with the oracle's best outputs (the minimum
        labeled cost): dynamic training accepts any of them and otherwise moves the weights
        towards the best-scoring one; static training moves them towards the first one (in
        output order, the canonical derivation) whenever the prediction differs.  An output
        of minimum cost that is a detour (_detours.pxi) counts as a mistake for dynamic
        training when ``detours`` is off (the steps that had one: ``detour_steps``).  Dynamic
        training then follows the prediction with probability explore_p (the target
        otherwise); static training always follows the target.  Arrays as in
        :meth:`train_beam`.  Returns (steps, mistakes, stuck sentences)."""
        cdef Corpus cp
        self.need_dense()
        need_loss(ol)
        corpus_of(&cp, order_, offsets_, tokens, gold_heads, gold_labels)
        if cp.heads == NULL or cp.order == NULL:
            raise ValueError("training needs gold heads and labels, and an order")
        cdef const int* order = cp.order
        cdef const int* offsets = cp.offsets
        cdef const int* heads = cp.heads
        cdef const int* labels = cp.labels
        cdef const int64_t* tok = cp.tok
        cdef Py_ssize_t n_order = cp.n_order, stride = cp.stride
        cdef Py_ssize_t oi
        cdef int si, n, off, maxn = 0, steps, limit, c, p, g, mc, C = self.m.C, nf = self.fx.n_tpl
        cdef long long n_steps = 0, n_wrong = 0, n_stuck = 0
        cdef uint64_t rng = seed * 2 + 1
        cdef St s, tmp, d1, d2, d3
        cdef char* smem
        cdef char* tmem
        cdef char* dmem = NULL
        cdef int* zu = NULL
        cdef int* unit2 = NULL
        cdef bint skip = dynamic and not self.detours
        cdef long long n_detour = 0
        cdef size_t z
        cdef int* blk
        cdef int* feats
        cdef int* unit
        cdef int* urow
        cdef int* ccost
        cdef int* ubest
        cdef float* sc
        cdef Model* m = &self.m
        if UNBOUNDED:
            raise ValueError("training needs a bounded action set")
        for oi in range(n_order):
            si = order[oi]
            maxn = max(maxn, offsets[si + 1] - offsets[si])
        self.reserve(maxn)
        smem = <char*>malloc(st_size(maxn))
        tmem = <char*>malloc(st_size(maxn))
        blk = <int*>malloc(sizeof(int) * (3 * (maxn + 2) + 1))
        feats = <int*>malloc(sizeof(int) * (nf + 1))
        unit = <int*>malloc(sizeof(int) * (C + 1))
        urow = <int*>malloc(sizeof(int) * (N_ACTIONS + 1))
        ccost = <int*>malloc(sizeof(int) * (C + 1))
        ubest = <int*>malloc(sizeof(int) * 2 * (N_ACTIONS + 1))
        sc = <float*>malloc(sizeof(float) * (C + 1))
        z = st_size(maxn)
        if skip:
            dmem = <char*>malloc(3 * z)
            zu = <int*>malloc(sizeof(int) * (C + 1))
            unit2 = <int*>malloc(sizeof(int) * (C + 1))
        if not (smem and tmem and blk and feats and unit and urow and ccost and ubest and sc) or \
                (skip and not (dmem and zu and unit2)):
            free(smem); free(tmem); free(blk); free(feats); free(unit); free(urow); free(ccost); free(ubest)
            free(sc); free(dmem); free(zu); free(unit2)
            raise MemoryError()
        m.t = self.clock
        cdef bint stop = False
        with nogil:
            for oi in range(n_order):
                if interrupted():
                    stop = True
                    break
                si = order[oi]
                off = offsets[si]
                n = offsets[si + 1] - off
                if gold_fill(n, &heads[off], &labels[off], blk) < 0:
                    continue
                st_place_in(&s, n, smem)
                st_start(&s, n)
                gold_attach(&s, blk)
                if NEEDS_SCRATCH_STATE:
                    st_place_in(&tmp, n, tmem)
                    st_start(&tmp, n)  # gold_attach reads the lists
                    gold_attach(&tmp, blk)
                if skip:
                    st_place_in(&d1, n, dmem)
                    st_place_in(&d2, n, dmem + z)
                    st_place_in(&d3, n, dmem + 2 * z)
                self.fx.tok = tok + off
                self.fx.stride = stride
                steps = 0
                limit = step_limit(n)
                while not st_terminal(&s):
                    if steps >= limit or legal_classes(&s, m, unit) == 0:
                        n_stuck += 1
                        break
                    extract(&s, &self.fx, m, feats)
                    score(m, feats, nf, sc)
                    class_costs(&s, &tmp, m, ol, unit, urow, ccost)
                    mc = ILLEGAL
                    for c in range(C):
                        if ccost[c] != ILLEGAL and (mc == ILLEGAL or ccost[c] < mc):
                            mc = ccost[c]
                    if skip:
                        g = mark_detours(&s, &d1, &d2, &d3, m, unit, unit2, ccost, mc, zu)
                        for c in range(g):  # the detours: not of minimum cost for what follows
                            ccost[zu[c]] = mc + 1
                        n_detour += g > 0
                    p = -1
                    g = -1
                    for c in range(C):
                        if ccost[c] == ILLEGAL:
                            continue
                        if p < 0 or sc[c] > sc[p]:
                            p = c
                        if ccost[c] == mc and (g < 0 or (dynamic and sc[c] > sc[g])):
                            g = c
                    if ccost[p] != mc if dynamic else p != g:  # static: the one canonical action
                        update(m, feats, nf, g, 1.0)
                        update(m, feats, nf, p, -1.0)
                        n_wrong += 1
                    if HAS_UNLABELED:
                        train_noted_labels(m, feats, nf, unit, sc, ccost, ubest)
                    m.t += 1
                    if not (dynamic and explore_p > 0 and rng_unit(&rng) < explore_p):
                        p = g
                    apply_legal(&s, unit[p], m.cls[p * CLS_W])
                    steps += 1
                    n_steps += 1
        self.clock = m.t
        self.detour_steps = n_detour
        self.check_sums()
        free(smem); free(tmem); free(blk); free(feats); free(unit); free(urow); free(ccost); free(ubest); free(sc)
        free(dmem); free(zu); free(unit2)
        if stop:
            raise KeyboardInterrupt()
        return n_steps, n_wrong, n_stuck

    def train_sequence(self, object offsets_, object tokens, object order_, object actions_, object labels_,
                       object targets_, object starts_):
        """One pass of static training along given derivations (the static oracle by search):
        sentence i's actions and label ids are actions_[starts_[i]:starts_[i + 1]] (int32),
        and targets_ holds the classifier output of each (int32).  At each step the model's
        best legal output is compared with the target; when they differ the weights move
        towards the target and away from the prediction; the derivation's own action is
        applied.  Returns (steps, mistakes, stuck sentences: a derivation this kernel finds
        illegal)."""
        cdef Corpus cp
        self.need_dense()
        corpus_of(&cp, order_, offsets_, tokens, None, None)
        if cp.order == NULL:
            raise ValueError("training needs an order")
        cdef Py_ssize_t n_all = len(offsets_) - 1
        cdef const int* starts = int32_data(starts_, "starts", n_all + 1)
        cdef Py_ssize_t steps_all = starts[n_all]
        cdef const int* actions = int32_data(actions_, "actions", steps_all)
        cdef const int* labels = int32_data(labels_, "labels", steps_all)
        cdef const int* targets = int32_data(targets_, "targets", steps_all)
        cdef Py_ssize_t oi
        cdef int si, n, off, k, maxn = 0, c, p, g, C = self.m.C, nf = self.fx.n_tpl
        cdef long long n_steps = 0, n_wrong = 0, n_stuck = 0
        cdef St s
        cdef char* smem
        cdef int* feats
        cdef int* unit
        cdef float* sc
        cdef Model* m = &self.m
        if UNBOUNDED:
            raise ValueError("training needs a bounded action set")
        for oi in range(cp.n_order):
            si = cp.order[oi]
            maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
        self.reserve(maxn)
        smem = <char*>malloc(st_size(maxn))
        feats = <int*>malloc(sizeof(int) * (nf + 1))
        unit = <int*>malloc(sizeof(int) * (C + 1))
        sc = <float*>malloc(sizeof(float) * (C + 1))
        if not (smem and feats and unit and sc):
            free(smem); free(feats); free(unit); free(sc)
            raise MemoryError()
        m.t = self.clock
        cdef bint stop = False
        with nogil:
            for oi in range(cp.n_order):
                if interrupted():
                    stop = True
                    break
                si = cp.order[oi]
                off = cp.offsets[si]
                n = cp.offsets[si + 1] - off
                st_place_in(&s, n, smem)
                st_start(&s, n)
                self.fx.tok = cp.tok + off
                self.fx.stride = cp.stride
                for k in range(starts[si], starts[si + 1]):
                    g = targets[k]
                    if st_terminal(&s) or legal_classes(&s, m, unit) == 0 or not 0 <= g < C or unit[g] < 0:
                        n_stuck += 1
                        break
                    extract(&s, &self.fx, m, feats)
                    score(m, feats, nf, sc)
                    p = -1
                    for c in range(C):
                        if unit[c] >= 0 and (p < 0 or sc[c] > sc[p]):
                            p = c
                    if p != g:
                        update(m, feats, nf, g, 1.0)
                        update(m, feats, nf, p, -1.0)
                        n_wrong += 1
                    m.t += 1
                    apply_legal(&s, actions[k], labels[k])
                    n_steps += 1
        self.clock = m.t
        self.check_sums()
        free(smem); free(feats); free(unit); free(sc)
        if stop:
            raise KeyboardInterrupt()
        return n_steps, n_wrong, n_stuck

    def parse_greedy(self, object offsets_, object tokens, object out_heads_, object out_labels_,
                     object nm_log, Py_ssize_t nm_cap):
        """Parse every sentence greedily.  Writes each word's head (CoNLL-U numbering; -1:
        none) and label id (-1: none) into the int32 arrays out_heads_ and out_labels_ (one
        slot per word).  With nm_cap > 0, logs every step that changed or removed an existing
        arc as (sentence, word, old head) triples into nm_log (int32, 3 nm_cap slots).

        An arc a spec builds unlabeled (``arc t -> s unlabeled``) gets the label the model
        noted for it: at the last step where a labeled output would have built that same arc
        t -> s, the label of the best-scoring such output (Honnibal, Goldberg & Johnson 2013:
        the best RIGHT-ARC label noted when the word was shifted).
        Returns (transitions, stuck sentences, logged events)."""
        return greedy_parse(self, offsets_, tokens, out_heads_, out_labels_, nm_log, nm_cap)

    cdef int _open_beam(self, Beam* w, int width, int maxn) except -1:
        if UNBOUNDED:
            raise ValueError("beam search needs a bounded action set")
        if width < 1:
            raise ValueError("beam width must be at least 1")
        self.reserve(maxn)
        if beam_alloc(w, width, maxn, self.fx.n_tpl, self.m.C) < 0:
            raise MemoryError()
        return 0

    def train_beam(self, object gold_heads, object gold_labels, object offsets_, object tokens, object order_,
                   int width, int ol, int dynamic):
        """One pass of beam training over the sentences order[0..n_order): the global
        structured perceptron with early update.  A gold item follows the oracle's best
        outputs (dynamic: the best-scoring zero-cost one, static: the first); as soon as no
        beam item has the gold item's loss, or at the end when the best item has a higher
        loss, the weights move towards the gold history and away from the best item's.

        Arrays (numpy, C-contiguous): gold_heads (CoNLL-U numbering) and gold_labels (ids)
        int32 per word; offsets_ int32, sentence i being words offsets[i]..offsets[i + 1] - 1;
        tokens int64 [attributes, words]; order_ int32 sentence numbers.  Returns (steps,
        updates, stuck sentences)."""
        cdef Corpus cp
        cdef Beam w
        cdef Model* m = &self.m
        cdef Py_ssize_t oi
        cdef int si, n, off, maxn = 0, steps
        cdef long long n_steps = 0, n_upd = 0, n_stuck = 0
        cdef bint early
        self.need_dense()
        need_loss(ol)
        corpus_of(&cp, order_, offsets_, tokens, gold_heads, gold_labels)
        if cp.heads == NULL or cp.order == NULL:
            raise ValueError("training needs gold heads and labels, and an order")
        for oi in range(cp.n_order):
            si = cp.order[oi]
            maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
        self._open_beam(&w, width, maxn)
        m.t = self.clock
        cdef bint stop = False
        with nogil:
            for oi in range(cp.n_order):
                if interrupted():
                    stop = True
                    break
                si = cp.order[oi]
                off = cp.offsets[si]
                n = cp.offsets[si + 1] - off
                self.fx.tok = cp.tok + off
                self.fx.stride = cp.stride
                if gold_fill(n, &cp.heads[off], &cp.labels[off], w.blk) < 0:
                    continue
                beam_start(&w, n, True)
                steps = 0
                early = False
                while beam_live(&w) > 0 or not w.gold_done:
                    if steps >= step_limit(n) or beam_reserve(&w) < 0:
                        n_stuck += 1
                        break
                    if not w.gold_done:
                        beam_gold_step(&w, &self.fx, m, ol, dynamic)
                    steps += 1
                    n_steps += 1
                    if not beam_expand(&w, &self.fx, m, True, ol):
                        early = True
                        break
                if early or w.bloss[0] > w.gloss:
                    beam_update(&w, m)
                    n_upd += 1
                m.t += 1
        self.clock = m.t
        self.check_sums()
        beam_free(&w)
        if stop:
            raise KeyboardInterrupt()
        return n_steps, n_upd, n_stuck

    def parse_beam(self, object offsets_, object tokens, int width, object out_heads_, object out_labels_):
        """Parse every sentence by beam search (width items kept by total score): each word's
        head (CoNLL-U numbering; -1: none) and label id (-1: none) into the int32 arrays
        out_heads_ and out_labels_, as :meth:`parse_greedy`.  Returns (steps, stuck
        sentences)."""
        cdef Corpus cp
        cdef Beam w
        cdef Model* m = &self.m
        cdef Py_ssize_t si
        cdef int n, off, d, maxn = 0, steps
        cdef long long n_steps = 0, n_stuck = 0
        self.need_weights()
        corpus_of(&cp, None, offsets_, tokens, None, None)
        cdef int* out_heads = int32_data(out_heads_, "heads out", cp.offsets[cp.n_order], True)
        cdef int* out_labels = int32_data(out_labels_, "labels out", cp.offsets[cp.n_order], True)
        for si in range(cp.n_order):
            maxn = max(maxn, cp.offsets[si + 1] - cp.offsets[si])
        self._open_beam(&w, width, maxn)
        cdef bint stop = False
        with nogil:
            for si in range(cp.n_order):
                if interrupted():
                    stop = True
                    break
                off = cp.offsets[si]
                n = cp.offsets[si + 1] - off
                self.fx.tok = cp.tok + off
                self.fx.stride = cp.stride
                beam_start(&w, n, False)
                steps = 0
                while beam_live(&w) > 0:
                    if steps >= step_limit(n) or beam_reserve(&w) < 0:
                        n_stuck += 1
                        break
                    beam_expand(&w, &self.fx, m, False, 0)
                    steps += 1
                    n_steps += 1
                for d in range(1, n + 1):
                    out_heads[off + d - 1] = out_head(&w.cur[0], d)
                    out_labels[off + d - 1] = w.cur[0].lab[d] if w.cur[0].head[d] >= 0 else -1
        beam_free(&w)
        if stop:
            raise KeyboardInterrupt()
        return n_steps, n_stuck


include "_bind.pxi"  # the scoring groups and instance groups a Learner is given (after the Learner)
include "_greedy.pxi"  # greedy parsing of a bounded action set (after the Learner it drives)
include "_instances.pxi"  # capacity inf: scoring every family instance (after the Learner it drives)
include "_inst_drivers.pxi"  # capacity inf: training and parsing over the instances
include "_probe.pxi"  # for the tests: the addresses along an action sequence
