
# ---- dynamic training: zero-cost steps that only lengthen the derivation ----------------
# Generic (included by _learn.pxi, used by Learner.train_greedy with ``detours`` off: `tsdsl
# train --skip-detours`).  A dynamic oracle accepts every output of minimum cost (Goldberg &
# Nivre 2012).  In Covington's parser NO-ARC keeps a cost of zero all the way down λ1 once
# the focus word j has no gold arc left to build there, and NO-ARC ... NO-ARC SHIFT makes
# what SHIFT makes at once; so a model trained that way scans on, and parses with several
# times the steps it needs (en_gum, non-monotonic Covington: 11 steps a word where the
# canonical derivations take 3.2).  Such an output b is a *detour*: another minimum-cost
# output a, applied after b, gives the configuration a gives at once (a(b(s)) = a(s),
# st_same).  With ``detours`` off, dynamic training counts b as a mistake and moves the
# weights towards the best-scoring other one.  The check runs the kernel's own actions on
# scratch configurations, so it holds for any spec; where every derivation of a tree has
# the same length (arc-eager, arc-standard, arc-hybrid ...) no output is ever a detour and
# training is what it was (tests/test_detours.py).  The scanning is not all waste: it
# gives the model every pair to look at, and the models trained without it lose about half
# a LAS point (docs/learning.md), which is why accepting detours stays the default.


cdef int mark_detours(const St* s, St* t1, St* t2, St* t3, const Model* m, const int* unit, int* unit2,
                      const int* ccost, int mc, int* zu) noexcept nogil:
    """Among the outputs of minimum cost mc that build no labelled arc (an arc output of a
    labelled system comes in one output per label, and only the gold one costs nothing, so
    the check is kept to the outputs that can tie), the detours (see above): written to zu
    (scratch, m.C ints), returns how many.  When every one of them is a detour of another,
    none is returned.  t1, t2, t3: scratch configurations of s's sentence."""
    cdef int a, b, c, i, j, nz = 0, nd = 0
    for c in range(m.C):
        if ccost[c] != ILLEGAL and ccost[c] == mc and m.cls[c * CLS_W] < 0:
            zu[nz] = c
            nz += 1
    if nz < 2:
        return 0
    for i in range(nz):
        b = zu[i]
        st_copy_into(t1, s)  # b(s)
        apply_legal(t1, unit[b], -1)
        if st_terminal(t1) or legal_classes(t1, m, unit2) == 0:
            continue
        for j in range(nz):
            a = zu[j] if zu[j] >= 0 else -1 - zu[j]
            if a == b or unit2[a] < 0:
                continue
            st_copy_into(t2, t1)  # a(b(s))
            apply_legal(t2, unit2[a], -1)
            st_copy_into(t3, s)  # a(s)
            apply_legal(t3, unit[a], -1)
            if st_same(t2, t3):
                zu[i] = -1 - b  # a detour
                nd += 1
                break
    if nd == nz:
        return 0
    j = 0
    for i in range(nz):
        if zu[i] < 0:
            zu[j] = -1 - zu[i]
            j += 1
    return nd
