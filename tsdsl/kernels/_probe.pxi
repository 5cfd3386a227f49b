
# ---- probes for the tests: what feature extraction sees along an action sequence -------
# Generic (included at the end of _learn.pxi).  Nothing here is on a parse or training path:
# it lets tests compare the kernel's addresses (the words CL and CR pick, say) with a
# witness written from the papers' definitions, state by state.

def address_tokens(Learner self, object offsets_, object tokens, Py_ssize_t si, object units_, object labels_,
                   object out_):
    """Into ``out_`` (int32, ``[len(units_) + 1, addresses]``): the token of every address
    of the feature program (-1: none), in the initial state of sentence ``si`` of the batch
    (``offsets_``, ``tokens`` as ``parse_greedy`` takes them) and after each action
    ``units_[k]`` (int32, the kernel's action numbers) with label ``labels_[k]`` (int32, -1:
    none).  ValueError at an action that is not legal."""
    cdef Corpus cp
    cdef St s
    cdef Py_ssize_t k, a, steps = len(units_)
    cdef int n, off, u
    cdef int na = self.fx.n_addr
    corpus_of(&cp, None, offsets_, tokens, None, None)
    if not 0 <= si < cp.n_order:
        raise IndexError(f"sentence {si} of {cp.n_order}")
    if len(labels_) != steps:
        raise ValueError("one label per action")
    cdef const int* units = int32_data(units_, "actions", steps)
    cdef const int* labels = int32_data(labels_, "labels", steps)
    cdef int* out = int32_data(out_, "address tokens out", (steps + 1) * na, True)
    off = cp.offsets[si]
    n = cp.offsets[si + 1] - off
    self.reserve(n)
    cdef char* smem = <char*>malloc(st_size(n))
    if smem == NULL:
        raise MemoryError()
    try:
        st_place_in(&s, n, smem)
        st_start(&s, n)
        self.fx.tok = cp.tok + off
        self.fx.stride = cp.stride
        for k in range(steps + 1):
            if self.fx.need_kids:
                kids_compute(&s, self.fx.kids, self.fx.sets)
            extract_atoms(&s, &self.fx)
            for a in range(na):
                out[k * na + a] = self.fx.at[a]
            if k == steps:
                break
            u = units[k]
            if st_terminal(&s) or not (0 <= u < s.nact and valid_nt(&s, u)):
                raise ValueError(f"action {k} ({u}) is not legal")
            apply_legal(&s, u, labels[k])
    finally:
        free(smem)
