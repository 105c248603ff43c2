# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Each word's column of a sentence's first-order arc marginals at a temperature, for `Token._.head_prob` and
`Token._.head_distribution` (pipeline/confidence.py): the marginal of its predicted head, and its heads of
marginal >= floor, most probable first.

One call for a batch of sentences: each sentence's scores / T go through the first-order inside-outside pass
(eisner.pyx, single-rooted projective trees; O(n^3)) into one flat buffer, then one pass over the columns,
O(n^2), with an insertion sort of each word's kept heads (few: their marginals sum to at most 1, so at most
1 / floor of them). No per-sentence array is built, so the call costs one Python call per batch.
"""
cimport numpy as cnp
from libc.math cimport isfinite
from libc.stdint cimport int64_t

import numpy as np

from .eisner cimport FirstOrder
from .memory cimport check_scores, STATUS_OK, STATUS_BAD_SCORE, STATUS_TOO_LARGE, STATUS_OUT_OF_MEMORY

cnp.import_array()


cdef object square_float64(object array, Py_ssize_t s, Py_ssize_t n):
    """`array` itself if it is a C-contiguous float64 (n + 1, n + 1) array, else a ValueError naming sentence s."""
    if not cnp.PyArray_Check(array):
        raise ValueError(f"sentence {s}: scores must be a numpy array, got {type(array).__name__}")
    cdef cnp.ndarray a = <cnp.ndarray>array
    if cnp.PyArray_TYPE(a) != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(a):
        raise ValueError(f"sentence {s}: scores must be C-contiguous float64, got {array.dtype}")
    if cnp.PyArray_NDIM(a) != 2 or cnp.PyArray_DIMS(a)[0] != n + 1 or cnp.PyArray_DIMS(a)[1] != n + 1:
        raise ValueError(f"sentence {s}: scores of shape {array.shape} for a tree of {n} words")
    return a


cdef object heads_int64(object array, Py_ssize_t s):
    if not cnp.PyArray_Check(array):
        raise ValueError(f"sentence {s}: the tree must be a numpy array, got {type(array).__name__}")
    cdef cnp.ndarray a = <cnp.ndarray>array
    if cnp.PyArray_TYPE(a) != cnp.NPY_INT64 or cnp.PyArray_NDIM(a) != 1 or not cnp.PyArray_IS_C_CONTIGUOUS(a):
        raise ValueError(f"sentence {s}: the tree must be a contiguous int64 (n + 1,) array, got "
                         f"{array.dtype} {array.shape}")
    if cnp.PyArray_DIMS(a)[0] < 1:
        raise ValueError(f"sentence {s}: the tree must hold the root's entry")
    return a


def head_columns(list scores, list trees, double temperature, double floor):
    """Sentences s = 0..S-1, their words m = 1..n_s in order, as one run of W words.

    scores (list of C-contiguous float64 (n_s + 1, n_s + 1)): arc scores [h, m] (0 = the root; -inf = not
        allowed), read as scores / temperature.
    trees (list of contiguous int64 (n_s + 1,)): the predicted heads (entry 0 ignored).
    temperature (float > 0), floor (float > 0): the least marginal a kept head has.
    RETURNS (head, offsets, heads, probs): float64 (W,) the marginal of each word's predicted head; word w's
        kept heads are heads[offsets[w]:offsets[w + 1]] (int64 positions 0..n_s in its sentence) with
        marginals probs[...] (float64), most probable first, ties by position. The marginals are those of
        `kernels.eisner_marginals(scores / temperature)`.
    RAISES (ValueError): shapes that do not match, heads out of range, a non-positive floor or temperature,
        scores / temperature with NaN or +inf or beyond ±1e300, or a sentence that admits no tree.
    """
    cdef Py_ssize_t S = len(scores), s, n, N, h, m, w, k, j, total = 0, kept = 0, size = 0, largest = 0
    cdef Py_ssize_t at, where = 0
    cdef double inv, p, log_z
    cdef int status
    cdef const double* x
    cdef const int64_t* tree
    cdef double* flat_p
    cdef double* scaled_p
    if not (floor > 0 and isfinite(floor)):
        raise ValueError(f"floor must be a positive number, got {floor}")
    if not (temperature > 0 and isfinite(temperature)):
        raise ValueError(f"temperature must be a positive number, got {temperature}")
    if len(trees) != S:
        raise ValueError(f"{S} score arrays but {len(trees)} trees")
    inv = 1.0 / temperature
    checked_scores, checked_trees, starts = [], [], np.empty(S + 1, dtype=np.int64)
    cdef int64_t[::1] start = starts
    start[0] = 0
    for s in range(S):
        tree_array = heads_int64(trees[s], s)
        n = cnp.PyArray_DIMS(<cnp.ndarray>tree_array)[0] - 1
        checked_scores.append(square_float64(scores[s], s, n))
        checked_trees.append(tree_array)
        tree = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>tree_array)
        for m in range(1, n + 1):
            if not 0 <= tree[m] <= n:
                raise ValueError(f"sentence {s}: heads must be positions 0..{n}")
        total += n
        size += (n + 1) * (n + 1)
        largest = max(largest, n + 1)
        start[s + 1] = size
    flat = np.zeros(size)
    scaled = np.empty(largest * largest)
    flat_p, scaled_p = <double*>cnp.PyArray_DATA(flat), <double*>cnp.PyArray_DATA(scaled)
    cdef FirstOrder g = FirstOrder()
    for s in range(S):
        x = <const double*>cnp.PyArray_DATA(<cnp.ndarray>checked_scores[s])
        n = cnp.PyArray_DIMS(<cnp.ndarray>checked_trees[s])[0] - 1
        N = n + 1
        with nogil:
            for h in range(N * N):
                scaled_p[h] = x[h] * inv
            status = check_scores(scaled_p, N, N, N, &where)
            if status == STATUS_OK:
                status = g.reset(n, scaled_p, N, NULL, 0, True)
            if status == STATUS_OK:
                status = g.marginals(&log_z, flat_p + start[s], N)
        if status != STATUS_OK:
            if status == STATUS_TOO_LARGE or status == STATUS_OUT_OF_MEMORY:
                raise MemoryError(f"sentence {s}: {n} words need more memory than the kernels may use")
            if status == STATUS_BAD_SCORE:
                raise ValueError(f"sentence {s}: scores / temperature hold NaN, +inf or a value beyond ±1e300 "
                                 f"(at row {where // N}, column {where % N})")
            raise ValueError(f"sentence {s}: the scores admit no projective tree")
        for m in range(1, N):
            for h in range(N):
                kept += flat_p[start[s] + h * N + m] >= floor
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
        tree = <const int64_t*>cnp.PyArray_DATA(<cnp.ndarray>checked_trees[s])
        n = cnp.PyArray_DIMS(<cnp.ndarray>checked_trees[s])[0] - 1
        N, at = n + 1, start[s]
        for m in range(1, N):
            head_v[w] = flat_p[at + tree[m] * N + m]
            for h in range(N):
                p = flat_p[at + h * N + m]
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
