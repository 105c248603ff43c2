# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Each word's column of a sentence's arc marginals, read out for `Token._.head_prob` and
`Token._.head_distribution` (pipeline/confidence.py): the marginal of its predicted head, and its heads of
marginal >= floor, most probable first. One pass over the columns, O(n^2) per sentence, plus an insertion
sort of each word's kept heads (few: their marginals sum to at most 1, so at most 1 / floor of them).
"""
from libc.stdint cimport int64_t

import numpy as np


def head_columns(list marginals, list trees, double floor):
    """Sentences s = 0..S-1, their words m = 1..n_s in order, as one run of W words.

    marginals (list of float64 (n_s + 1, n_s + 1), C-contiguous): arc marginals [h, m] (0 = the root).
    trees (list of int64 (n_s + 1,), contiguous): the predicted heads (entry 0 ignored).
    floor (float): the least marginal a kept head has (> 0).
    RETURNS (head, offsets, heads, probs): float64 (W,) the marginal of each word's predicted head; word w's
        kept heads are heads[offsets[w]:offsets[w + 1]] (int64 positions 0..n_s in its sentence) with
        marginals probs[...] (float64), most probable first, ties by position.
    RAISES (ValueError): shapes that do not match, heads out of range, or floor <= 0; (TypeError, ValueError)
        arrays of another dtype or layout.
    """
    cdef Py_ssize_t S = len(marginals), s, n, h, m, w, k, j, total = 0, kept = 0
    cdef const double[:, ::1] M
    cdef const int64_t[::1] tree
    cdef double p
    if not floor > 0:
        raise ValueError(f"floor must be > 0, got {floor}")
    if len(trees) != S:
        raise ValueError(f"{S} marginal arrays but {len(trees)} trees")
    for s in range(S):
        M, tree = marginals[s], trees[s]
        n = tree.shape[0] - 1
        if n < 0 or M.shape[0] != n + 1 or M.shape[1] != n + 1:
            raise ValueError(f"sentence {s}: marginals of shape {tuple(M.shape)[:2]} for a tree of {n} words")
        for m in range(1, n + 1):
            if not 0 <= tree[m] <= n:
                raise ValueError(f"sentence {s}: heads must be positions 0..{n}")
            for h in range(n + 1):
                kept += M[h, m] >= floor
        total += n
    head = np.empty(total)
    offsets = np.empty(total + 1, dtype=np.int64)
    heads = np.empty(kept, dtype=np.int64)
    probs = np.empty(kept)
    cdef double[::1] head_v = head
    cdef int64_t[::1] offsets_v = offsets, heads_v = heads
    cdef double[::1] probs_v = probs
    w = k = 0
    offsets_v[0] = 0
    for s in range(S):
        M, tree = marginals[s], trees[s]
        n = tree.shape[0] - 1
        for m in range(1, n + 1):
            head_v[w] = M[tree[m], m]
            for h in range(n + 1):
                p = M[h, m]
                if p >= floor:
                    j = k                       # insert after the kept heads of this word that are at least p
                    while j > offsets_v[w] and probs_v[j - 1] < p:
                        probs_v[j] = probs_v[j - 1]
                        heads_v[j] = heads_v[j - 1]
                        j -= 1
                    probs_v[j] = p
                    heads_v[j] = h
                    k += 1
            w += 1
            offsets_v[w] = k
    return head, offsets, heads, probs
