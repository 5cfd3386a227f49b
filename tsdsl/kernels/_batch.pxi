
# ---- A batch of configurations for neural parsers (generic; included by every kernel) ----
#
# KBatch holds B configurations of B sentences (any lengths) in one block of C memory,
# their gold trees in another, and steps them all at once: the legal mask, the (labeled)
# costs of every action and applying one integer action per configuration fill or read
# caller-provided numpy arrays [B, ...] in one loop each, without the GIL.  The arrays'
# shapes and item types are checked by the wrapper (tsdsl/kernels/batch.py) and their
# sizes and writability again here (array_data).  Tokens in the array views use CoNLL-U
# numbering: words 1..n, the root 0 (whatever the kernel's own root id is).


cdef inline int as_conllu(const St* s, int t) noexcept nogil:
    """A kernel token id in CoNLL-U numbering (the root is 0, wherever the spec puts it)."""
    return 0 if t == s.root else t


cdef class KBatch:
    """B configurations in contiguous C memory (see the section comment)."""
    cdef St* st            # B state structs
    cdef char* mem         # their arrays, one block
    cdef int* gblk         # their gold trees (3 (n + 2) + 1 ints each), one block; NULL: none
    cdef char* tmem        # scratch state (scratch-copy costs), sized for the longest sentence
    cdef int* row          # one configuration's unlabeled costs
    cdef object table      # capacity inf: the action table the states point into
    cdef readonly int size, max_n, n_actions, n_labels, n_lists
    cdef readonly bint has_gold, has_gold_labels

    def __cinit__(self, object lengths, Py_ssize_t B, object gold_heads, object gold_labels, int n_labels,
                  object atab=None, int nact=0):
        """``lengths``: B int32 sentence lengths; ``gold_heads`` (None: no gold) and
        ``gold_labels`` (None: unlabeled gold): int32, the sentences concatenated, heads in
        CoNLL-U numbering, label ids in 0..n_labels-1.  Capacity-inf kernels take the action
        table of the longest sentence (atab, nact), as :func:`oracle_pass`."""
        cdef const int* ns
        cdef const int* heads = NULL
        cdef const int* labels = NULL
        cdef const int* atab_data = NULL
        cdef Py_ssize_t b, words = 0, gwords = 0, bytes_ = 0, off
        cdef int n, maxn = 0, d
        self.st = NULL
        self.mem = NULL
        self.gblk = NULL
        self.tmem = NULL
        self.row = NULL
        if B < 0:
            raise ValueError("a batch cannot have a negative size")
        ns = int32_data(lengths, "sentence lengths", B) if B > 0 else NULL
        for b in range(B):
            if ns[b] < 0:
                raise ValueError(f"sentence {b}: negative length {ns[b]}")
            words += ns[b]
            maxn = max(maxn, ns[b])
            bytes_ += (st_size(ns[b]) + 15) & ~(<Py_ssize_t>15)
            gwords += 3 * (ns[b] + 2) + 1
        if gold_heads is not None:
            heads = int32_data(gold_heads, "gold heads", words)
        if gold_labels is not None:
            if gold_heads is None:
                raise ValueError("gold labels need gold heads")
            labels = int32_data(gold_labels, "gold labels", words)
            for b in range(words):
                if labels[b] < 0 or labels[b] >= n_labels:
                    raise ValueError(f"gold label id {labels[b]} (word {b} of the batch) is outside 0..{n_labels - 1}")
        if not UNBOUNDED:
            nact = N_ACTIONS
        elif atab is None:
            raise ValueError("capacity-inf kernels need the action table")
        else:
            atab_data = int32_data(atab, "action table", 3 * nact)
            self.table = atab
        self.size = B
        self.max_n = maxn
        self.n_actions = nact
        self.n_labels = max(n_labels, 0)
        self.n_lists = NLX
        self.has_gold = heads != NULL
        self.has_gold_labels = labels != NULL
        self.st = <St*>calloc(B + 1, sizeof(St))
        self.mem = <char*>malloc(bytes_ + 16)
        self.row = <int*>malloc(sizeof(int) * (nact + 1))
        self.tmem = <char*>malloc(st_size(maxn)) if NEEDS_SCRATCH_STATE else NULL
        if heads != NULL:
            self.gblk = <int*>malloc(sizeof(int) * (gwords + 1))
        if self.st == NULL or self.mem == NULL or self.row == NULL or (NEEDS_SCRATCH_STATE and self.tmem == NULL) \
                or (heads != NULL and self.gblk == NULL):
            raise MemoryError(f"cannot allocate a batch of {B} configurations ({bytes_:,} bytes; the longest "
                              f"sentence has {maxn} words)")
        if heads != NULL:  # every gold tree checked before any state is set up
            off = 0
            words = 0
            for b in range(B):
                if gold_fill(ns[b], heads + words, labels + words if labels != NULL else NULL, self.gblk + off) < 0:
                    raise ValueError(f"sentence {b}: a gold head is outside 0..{ns[b]}")
                words += ns[b]
                off += 3 * (ns[b] + 2) + 1
        with nogil:
            bytes_ = 0
            off = 0
            for b in range(B):
                n = ns[b]
                st_place_in(&self.st[b], n, self.mem + bytes_)
                bytes_ += (st_size(n) + 15) & ~(<Py_ssize_t>15)
                if UNBOUNDED:
                    self.st[b].atab = atab_data
                    self.st[b].nact = nact
                st_start(&self.st[b], n)
                if heads != NULL:
                    gold_attach(&self.st[b], self.gblk + off)
                    off += 3 * (n + 2) + 1

    def __dealloc__(self):
        free(self.st)
        free(self.mem)
        free(self.gblk)
        free(self.tmem)
        free(self.row)

    def lengths(self, object out):
        """Each configuration's sentence length into the int32 array ``out`` [B]."""
        cdef int* o = int32_data(out, "lengths", self.size, True)
        cdef Py_ssize_t b
        for b in range(self.size):
            o[b] = self.st[b].n

    def is_terminal(self, object out):
        """1 where a configuration is terminal, into the 1-byte array ``out`` [B]; returns how many."""
        cdef unsigned char* o = <unsigned char*>array_data(out, "is_terminal", "B?", 1, self.size, True)
        cdef Py_ssize_t b
        cdef int count = 0
        with nogil:
            for b in range(self.size):
                o[b] = st_terminal(&self.st[b])
                count += o[b]
        return count

    def legal_mask(self, object out):
        """1 where an action is legal, into the uint8 array ``out`` [B, A] (terminal: all 0)."""
        cdef Py_ssize_t b, A = self.n_actions
        cdef int a
        cdef St* s
        cdef unsigned char* o = <unsigned char*>array_data(out, "legal mask", "B?", 1, self.size * A, True)
        cdef unsigned char* r
        with nogil:
            for b in range(self.size):
                s = &self.st[b]
                r = o + b * A
                if st_terminal(s):
                    memset(r, 0, A)
                else:
                    for a in range(A):
                        r[a] = valid_nt(s, a)

    def costs(self, int ol, object out, bint labeled):
        """Cost of every action (ILLEGAL: not legal; terminal: all ILLEGAL) under the gold
        trees, by loss index ol, into the int32 array ``out``: [B, A] unlabeled, or
        [B, A, L] labeled (L = n_labels).  Labeled: the cost of action a with label l is a's
        cost, plus 1 when a builds the gold arc h -> d of a word whose gold label is not l;
        actions that build no labeled arc cost the same under every label."""
        cdef Py_ssize_t b, A = self.n_actions, L = self.n_labels, width
        cdef int a, lab, h, d, c, gl
        cdef St* s
        cdef St tmp
        cdef int* o
        cdef int* r
        cdef int* row = self.row
        if not self.has_gold:
            raise ValueError("costs need gold trees (give gold heads when making the batch)")
        if ol < 0 or ol >= N_LOSSES:
            raise ValueError("bad loss index")
        if labeled and (not self.has_gold_labels or L <= 0):
            raise ValueError("labeled costs need gold labels and n_labels > 0")
        width = A * L if labeled else A
        o = int32_data(out, "costs", self.size * width, True)
        tmp.mem = self.tmem
        with nogil:
            for b in range(self.size):
                s = &self.st[b]
                if not labeled:
                    all_costs(s, &tmp, ol, o + b * A)
                    continue
                all_costs(s, &tmp, ol, row)
                r = o + b * width
                for a in range(A):
                    c = row[a]
                    if c != ILLEGAL and labeled_of(s, a) and arc_of(s, a, &h, &d) and s.gold[d] == h:
                        gl = s.glab[d]
                        for lab in range(L):
                            r[a * L + lab] = c + (lab != gl)
                    else:
                        for lab in range(L):
                            r[a * L + lab] = c

    def apply(self, object actions, object labels):
        """Apply actions[b] (int32; -1: leave configuration b as it is) with label id
        labels[b] (int32, -1: none; None: all -1) to every configuration.  All are checked
        first: returns (-1, 0) when every one applied, else (b, code) for the first bad one
        and nothing is applied (code -1 not legal, -2 terminal, -3 no such action, -4 bad label)."""
        cdef const int* acts = int32_data(actions, "actions", self.size)
        cdef const int* labs = NULL if labels is None else int32_data(labels, "labels", self.size)
        cdef Py_ssize_t b, bad = -1
        cdef int a, lab, code = 0, L = self.n_labels
        cdef St* s
        with nogil:
            for b in range(self.size):
                a = acts[b]
                if a == -1:
                    continue
                s = &self.st[b]
                lab = labs[b] if labs != NULL else -1
                if a < 0 or a >= self.n_actions:
                    code = -3
                elif st_terminal(s):
                    code = -2
                elif not valid_nt(s, a):
                    code = -1
                elif lab < -1 or (L > 0 and lab >= L):
                    code = -4
                if code:
                    bad = b
                    break
            if bad < 0:
                for b in range(self.size):
                    a = acts[b]
                    if a != -1:
                        apply_legal(&self.st[b], a, labs[b] if labs != NULL else -1)
        return bad, code

    def loss(self, int ol, object out):
        """Each configuration's loss under its gold tree (loss index ol) into the int32 array ``out`` [B]."""
        cdef int* o = int32_data(out, "loss", self.size, True)
        cdef Py_ssize_t b
        if not self.has_gold:
            raise ValueError("losses need gold trees (give gold heads when making the batch)")
        if ol < 0 or ol >= N_LOSSES:
            raise ValueError("bad loss index")
        with nogil:
            for b in range(self.size):
                o[b] = loss_of(&self.st[b], ol)

    def lists(self, object out, object lengths, int width):
        """The lists' tokens in reading order (CoNLL-U numbering) into the int32 array ``out``
        [B, n_lists, width] padded with -1, and their lengths into ``lengths`` [B, n_lists].
        width must be at least max_n + 1 (no list holds more tokens)."""
        cdef int* o = int32_data(out, "lists", self.size * NLX * width, True)
        cdef int* ln = int32_data(lengths, "list lengths", self.size * NLX, True)
        cdef Py_ssize_t b
        cdef int k, i, m
        cdef St* s
        cdef int* r
        if width < self.max_n + 1:
            raise ValueError(f"lists: width {width} is less than the longest sentence + 1 ({self.max_n + 1})")
        with nogil:
            for b in range(self.size):
                s = &self.st[b]
                for k in range(NLX):
                    r = o + (b * NLX + k) * width
                    m = s.hi[k] - s.lo[k]
                    ln[b * NLX + k] = m
                    for i in range(m):
                        r[i] = as_conllu(s, s.buf[k * s.cap + s.lo[k] + i])
                    for i in range(m, width):
                        r[i] = -1

    def places(self, object where, object pos, int width):
        """Per token (CoNLL-U numbering, slot 0 the root), the list holding it into ``where``
        and its index in that list (reading order) into ``pos``: int32 [B, width], -1 for a
        token in no list and for padding.  width must be at least max_n + 1."""
        cdef int* w = int32_data(where, "where", self.size * width, True)
        cdef int* p = int32_data(pos, "pos", self.size * width, True)
        cdef Py_ssize_t b
        cdef int k, i, t
        cdef St* s
        if width < self.max_n + 1:
            raise ValueError(f"places: width {width} is less than the longest sentence + 1 ({self.max_n + 1})")
        with nogil:
            for b in range(self.size):
                s = &self.st[b]
                for i in range(width):
                    w[b * width + i] = -1
                    p[b * width + i] = -1
                for k in range(NLX):
                    for i in range(s.hi[k] - s.lo[k]):
                        t = as_conllu(s, s.buf[k * s.cap + s.lo[k] + i])
                        w[b * width + t] = k
                        p[b * width + t] = i

    def heads(self, object heads, object labels, int width, bint finished):
        """Heads (CoNLL-U numbering; -1: none) and label ids (-1: none) of words 1..n into the
        int32 arrays ``heads`` and ``labels`` (None: skip) [B, width]; slot 0 and padding -1.
        ``finished``: a headless word gets the head the output would give it (the root when
        the spec attaches headless words to it, or the only headless word of a rootless
        system), as the oracle pass scores final heads.  Single-head systems only."""
        cdef int* hs = int32_data(heads, "heads", self.size * width, True)
        cdef int* ls = NULL if labels is None else int32_data(labels, "labels", self.size * width, True)
        cdef Py_ssize_t b
        cdef int d, h, headless
        cdef St* s
        if MULTI:
            raise ValueError("heads: a multihead system has head sets; use the one-state output()")
        if width < self.max_n + 1:
            raise ValueError(f"heads: width {width} is less than the longest sentence + 1 ({self.max_n + 1})")
        with nogil:
            for b in range(self.size):
                s = &self.st[b]
                headless = 0
                if finished:
                    for d in range(1, s.n + 1):
                        headless += s.head[d] < 0
                for d in range(width):
                    hs[b * width + d] = -1
                    if ls != NULL:
                        ls[b * width + d] = -1
                for d in range(1, s.n + 1):
                    h = out_head(s, d)
                    if h >= 0 and ls != NULL:
                        ls[b * width + d] = s.lab[d]
                    if h < 0 and finished and (ATTACH_HEADLESS or (not HAS_ROOT and headless == 1)):
                        h = 0
                    hs[b * width + d] = h
