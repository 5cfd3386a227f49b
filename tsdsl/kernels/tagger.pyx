# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The tagger's hot loop: greedy left-to-right averaged perceptron over hashed
(feature, class) pairs (see tsdsl.learn.tagger).

This file is fixed (not generated): tsdsl.learn.tagger builds it through
tsdsl.kernels.build, cached by the hash of its text like the generated kernels.

Weights are one flat table ``W`` of ``mask + 1`` floats; the weight of feature
hash ``f`` for class ``c`` is ``W[(mix64(f) + c) & mask]``, so memory does not grow
with the number of classes (FEATS strings, lemma edit scripts).  Each token
scores only its candidate classes: ``cands[cset[i]]``, a set of class ids given
as CSR (``set_off``, ``set_items``).  Besides its static features (one row of
``feats``), a token has three history features, made here from the classes
predicted for the two words before it: t-1, t-2 + t-1, and t-1 + the token's own
``word`` hash.  Averaging is the usual trick: ``U`` accumulates ``clock * delta``,
and the averaged weights are ``W - U / clock``.
"""

import numpy as np
from libc.stdint cimport int64_t, uint64_t, int32_t, uint8_t

cdef enum:
    N_HIST = 3
    MAX_FEATS = 128

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return z ^ (z >> 31)

cdef inline size_t pair(uint64_t hf, int c, uint64_t mask) noexcept nogil:
    # hf: the feature's mixed hash.  A feature's classes sit next to each other, so that
    # scoring the candidates of one feature reads one or two cache lines, not one each.
    return <size_t>((hf + <uint64_t>c) & mask)


cdef int history(uint64_t* fs, int nf, int p1, int p2, uint64_t word) noexcept nogil:
    fs[nf] = mix64(<uint64_t>0x51ed270b27a3c1d5ULL ^ <uint64_t>(p1 + 2))
    fs[nf + 1] = mix64(<uint64_t>0x2545f4914f6cdd1dULL ^ ((<uint64_t>(p2 + 2) << 32) | <uint64_t>(p1 + 2)))
    fs[nf + 2] = mix64(word ^ mix64(<uint64_t>0x7a4c1f0e3b5d9a21ULL + <uint64_t>(p1 + 2)))
    return nf + N_HIST


def run(const int64_t[:, ::1] feats, const int64_t[::1] word, const int32_t[::1] offsets,
        const int32_t[::1] order, const int32_t[::1] cset, const int32_t[::1] set_off,
        const int32_t[::1] set_items, const int32_t[::1] gold, float[::1] W, double[::1] U,
        uint8_t[::1] touched, int64_t clock, bint train, int32_t[::1] pred):
    """Tag the sentences ``order`` (indices into ``offsets``) greedily, left to right,
    writing ``pred``; when ``train``, update towards ``gold`` (ids; < 0: unknown, no
    update) at every mistake.  Returns (clock, mistakes, scored tokens)."""
    cdef int nf0 = feats.shape[1]
    cdef uint64_t mask = <uint64_t>(W.shape[0] - 1)
    cdef uint64_t fs[MAX_FEATS]
    cdef int nf, k, s, i, a, b, j, c, lo, hi, best, g, p1, p2, widest = 1
    cdef float best_sc
    cdef uint64_t hf
    cdef size_t x
    cdef int64_t mistakes = 0, scored = 0
    cdef double dc
    cdef float[::1] sc
    if nf0 + N_HIST > MAX_FEATS:
        raise ValueError(f"at most {MAX_FEATS - N_HIST} static features")
    if W.shape[0] & (W.shape[0] - 1):
        raise ValueError("the weight table size must be a power of two")
    for k in range(set_off.shape[0] - 1):
        widest = max(widest, set_off[k + 1] - set_off[k])
    sc = np.zeros(widest, dtype=np.float32)
    with nogil:
        for k in range(order.shape[0]):
            s = order[k]
            a = offsets[s]
            b = offsets[s + 1]
            for i in range(a, b):
                for j in range(nf0):
                    fs[j] = <uint64_t>feats[i, j]
                p1 = pred[i - 1] if i - 1 >= a else -1
                p2 = pred[i - 2] if i - 2 >= a else -1
                nf = history(fs, nf0, p1, p2, <uint64_t>word[i])
                for j in range(nf):
                    fs[j] = mix64(fs[j])
                lo = set_off[cset[i]]
                hi = set_off[cset[i] + 1]
                for c in range(hi - lo):
                    sc[c] = 0
                for j in range(nf):
                    hf = fs[j]
                    for c in range(lo, hi):
                        sc[c - lo] += W[pair(hf, set_items[c], mask)]
                best = -1
                best_sc = 0
                for c in range(lo, hi):
                    if best < 0 or sc[c - lo] > best_sc:
                        best, best_sc = set_items[c], sc[c - lo]
                g = gold[i] if train else -1
                if best < 0:
                    best = g if g >= 0 else 0
                pred[i] = best
                scored += 1
                if train and g >= 0:
                    clock += 1
                    if best != g:
                        mistakes += 1
                        dc = <double>clock
                        for j in range(nf):
                            x = pair(fs[j], g, mask)
                            W[x] += 1
                            U[x] += dc
                            touched[x] = 1
                            x = pair(fs[j], best, mask)
                            W[x] -= 1
                            U[x] -= dc
                            touched[x] = 1
    return clock, mistakes, scored


def average(float[::1] W, const double[::1] U, const uint8_t[::1] touched, int64_t clock, float[::1] out):
    """The averaged weights ``W - U / clock`` (zero where never touched) into ``out``."""
    cdef Py_ssize_t i, n = W.shape[0]
    cdef double inv = 1.0 / clock if clock > 0 else 0.0
    with nogil:
        for i in range(n):
            out[i] = <float>(W[i] - U[i] * inv) if touched[i] else 0.0
