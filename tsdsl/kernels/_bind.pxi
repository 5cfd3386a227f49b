
# ---- binding scoring groups to a Learner ------------------------------------------------
# Generic (included by _learn.pxi after the Learner class, whose set_groups and
# set_instance_groups call these): the checks of the arrays tsdsl.learn.engine gives, and
# the Learner's view of them.

def learner_set_groups(Learner self, object order, object starts, int ngrp, object anchors, object walks,
                       int nwalks):
    """``Learner.set_groups`` (see there)."""
    cdef int nt = self.fx.n_tpl, k, g, w, nw
    cdef const int* od = int32_data(order, "group order", nt)
    cdef const int* st = int32_data(starts, "group starts", ngrp + 2)
    cdef const int* an = int32_data(anchors, "group anchors", 2 * ngrp)
    cdef Py_ssize_t n_int = len(walks)
    cdef const int* wk = int32_data(walks, "group walks", n_int) if n_int else NULL
    cdef float* buf
    if ngrp < 0 or st[0] != 0 or st[ngrp + 1] != nt or nwalks < 0:
        raise ValueError("bad scoring groups")
    k = 0
    for w in range(nwalks):
        if k >= n_int or not 0 <= wk[k] < n_int - k:
            raise ValueError("bad scoring group walks")
        nw = wk[k]
        for g in range(1, nw + 1):
            if not WALK_HEAD <= wk[k + g] <= WALK_NEXT:
                raise ValueError("bad scoring group walk step")
        k += 1 + nw
        if not 0 <= wk[k] < n_int - k:
            raise ValueError("bad scoring group walks")
        for g in range(1, wk[k] + 1):
            if not 1 <= wk[k + g] <= ngrp:
                raise ValueError("bad scoring group walk group")
        k += 1 + wk[k]
    if k != n_int:
        raise ValueError("bad scoring group walks")
    for g in range(ngrp + 1):
        if st[g + 1] < st[g] or (g > 0 and st[g + 1] == st[g]):
            raise ValueError("bad scoring groups")
    for g in range(ngrp):
        if an[2 * g] == -2:  # an instance group (capacity inf: see set_instance_groups)
            if not UNBOUNDED:
                raise ValueError("instance groups need a capacity-inf kernel")
        elif an[2 * g] == -1:
            if not 0 <= an[2 * g + 1] < self.fx.n_addr or self.fx.addr[an[2 * g + 1] * ADDR_W + 3] != 0:
                raise ValueError("bad scoring group anchor address")
        elif not 0 <= an[2 * g] < NLX or an[2 * g + 1] < 0:
            raise ValueError("bad scoring group anchor")
    seen = bytearray(nt)
    for k in range(nt):
        if not 0 <= od[k] < nt or seen[od[k]]:
            raise ValueError("the group order must hold every template once")
        seen[od[k]] = 1
    buf = <float*>malloc(sizeof(float) * (self.m.C + 1))
    if buf == NULL:
        raise MemoryError()
    free(self.m.gbuf)
    self.m.gbuf = buf
    self.m.gord = od
    self.m.gstart = st
    self.m.ngrp = ngrp
    self.grp_anchor = an
    self.grp_walks = wk
    self.grp_nwalks = nwalks
    self.grp_keep = (order, starts, anchors, walks)
    set_part_atoms(&self.fx, od, st, ngrp + 1, an)


def learner_set_instance_groups(Learner self, object gbase, int ng):
    """``Learner.set_instance_groups`` (see there)."""
    cdef Py_ssize_t n_int = len(gbase)
    cdef const int* gb = int32_data(gbase, "instance group bases", n_int) if n_int else NULL
    cdef Py_ssize_t k = 0
    cdef int g, j
    if ng < 0 or (ng > 0 and self.inst_base == NULL):
        raise ValueError("instance groups need the instance bases (set_instances) first")
    for g in range(ng):
        if k >= n_int or not 1 <= gb[k] <= self.n_inst_base or k + 1 + 2 * gb[k] > n_int:
            raise ValueError("bad instance group bases")
        for j in range(gb[k]):
            if not 0 <= gb[k + 1 + 2 * j] < self.n_inst_base or gb[k + 2 + 2 * j] not in (0, 1):
                raise ValueError("bad instance group base")
        k += 1 + 2 * gb[k]
    if k != n_int:
        raise ValueError("bad instance group bases")
    self.inst_gbase = gb
    self.inst_ng = ng
    self.inst_gkeep = gbase
