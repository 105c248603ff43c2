# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Max-marginal thresholds of the vine pruning cascade (Rush & Petrov 2012, after Weiss & Taskar 2010).

Part p survives a pruning level when its max-marginal reaches

    t_a = a * best + (1 - a) * mean over parts of mm(part),   (clamped to best)

over the parts no structure excludes (mm = -inf never survives nor enters the mean); a vine also passes
every head more than `band` words left (right) of m when m's outer-left (outer-right) arc survives. A cap
keeps at most that many heads per word, those of highest max-marginal (ties kept, so the best structure
always survives). The unstructured (local) level's max-marginals are closed-form:
mm(h, m) = best - max_h' s(h', m) + s(h, m).

This is the only implementation: the compiled runtime (cascade_runtime.pyx) prunes with the C functions,
and training and calibration (`vineparse.cascade.thresholds`) call their Python faces. Dense
(n + 1) x (n + 1) arrays are row-major over [h, m]. Time O(n^2) per call (O(n^2 + n cap) with a cap).
"""
from libc.math cimport INFINITY
from libc.stdint cimport uint8_t
from libc.stdlib cimport free, malloc

import numpy as np


cdef double threshold_of(double best, const double* values, Py_ssize_t count, const double* more,
                         Py_ssize_t more_count, double alpha) noexcept nogil:
    """t_a over the finite entries of values[0:count] and more[0:more_count] (mean := best if none), at most
    best."""
    cdef double total = 0.0
    cdef Py_ssize_t i, finite = 0
    for i in range(count):
        if values[i] > -INFINITY:
            total += values[i]
            finite += 1
    for i in range(more_count):
        if more[i] > -INFINITY:
            total += more[i]
            finite += 1
    cdef double t = alpha * best + (1.0 - alpha) * (total / finite if finite else best)
    return t if t < best else best      # mean <= best, but rounding must never prune the best structure


cdef double kth_largest(double* values, Py_ssize_t count, Py_ssize_t k) noexcept nogil:
    """The k-th largest of values[0:count] (1 <= k <= count), by quickselect (reorders `values`)."""
    cdef Py_ssize_t lo = 0, hi = count - 1, i, j, target = k - 1
    cdef double pivot, tmp
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] > pivot:
                i += 1
            while values[j] < pivot:
                j -= 1
            if i <= j:
                tmp = values[i]; values[i] = values[j]; values[j] = tmp
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            break
    return values[target]


cdef void cap_heads(Py_ssize_t N, const double* mm, int cap, double* column, uint8_t* mask) noexcept nogil:
    """Keep in each column m of `mask` only the allowed heads whose max-marginal reaches the cap-th largest
    allowed one (all of them when fewer than `cap` are allowed)."""
    cdef Py_ssize_t h, m, count
    cdef double kth
    for m in range(1, N):
        count = 0
        for h in range(N):
            if mask[h * N + m]:
                column[count] = mm[h * N + m]
                count += 1
        if count <= cap:
            continue
        kth = kth_largest(column, count, cap)
        for h in range(N):
            if mask[h * N + m] and mm[h * N + m] < kth:
                mask[h * N + m] = 0


cdef void eisner_prune(Py_ssize_t N, double best, const double* mm, double alpha, int cap, double* column,
                       uint8_t* out) noexcept nogil:
    """The arcs an Eisner-order (or local) level passes on: mm >= t_a, at most `cap` heads a word (cap <= 0:
    no cap)."""
    cdef double t = threshold_of(best, mm, N * N, NULL, 0, alpha)
    cdef Py_ssize_t i
    for i in range(N * N):
        out[i] = <uint8_t>(mm[i] >= t and mm[i] > -INFINITY)
    if cap > 0:
        cap_heads(N, mm, cap, column, out)


cdef void vine_prune(Py_ssize_t N, double best, const double* arc_mm, const double* outer_mm, double alpha,
                     Py_ssize_t band, uint8_t* out) noexcept nogil:
    """The first-order arcs a vine pass passes on: short arcs and root arcs on their own max-marginals, and
    every head more than `band` words left (right) of m when m's outer-left (outer-right) arc survives."""
    cdef double t = threshold_of(best, arc_mm, N * N, outer_mm + 2, 2 * (N - 1), alpha)
    cdef Py_ssize_t h, m, i
    cdef bint left, right
    for i in range(N * N):
        out[i] = <uint8_t>(arc_mm[i] >= t and arc_mm[i] > -INFINITY)
    for m in range(1, N):
        left = outer_mm[2 * m] >= t and outer_mm[2 * m] > -INFINITY
        right = outer_mm[2 * m + 1] >= t and outer_mm[2 * m + 1] > -INFINITY
        if left:
            for h in range(1, m - band):
                out[h * N + m] = 1
        if right:
            for h in range(m + band + 1, N):
                out[h * N + m] = 1


cdef const double[:, ::1] _square(arc_mm) except *:
    cdef const double[:, ::1] values = np.ascontiguousarray(arc_mm, dtype=np.float64)
    if values.shape[0] != values.shape[1] or values.shape[0] < 1:
        raise ValueError(f"arc max-marginals must have shape (n + 1, n + 1), got {np.shape(arc_mm)}")
    return values


cdef const double[:, ::1] _outer(outer_mm, Py_ssize_t N) except *:
    cdef const double[:, ::1] values = np.ascontiguousarray(outer_mm, dtype=np.float64)
    if values.shape[0] != N or values.shape[1] != 2:
        raise ValueError(f"outer max-marginals must have shape ({N}, 2), got {np.shape(outer_mm)}")
    return values


def threshold(double best, arc_mm, outer_mm=None, double alpha=0.5):
    """t_a over the finite arc max-marginals (and, for a vine, the outer ones of words 1..n)."""
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef const double[:, ::1] outer
    cdef Py_ssize_t N = arcs.shape[0]
    if outer_mm is None:
        return threshold_of(best, &arcs[0, 0], N * N, NULL, 0, alpha)
    outer = _outer(outer_mm, N)
    return threshold_of(best, &arcs[0, 0], N * N, &outer[0, 0] + 2, 2 * (N - 1), alpha)


def prune_mask(double best, arc_mm, outer_mm=None, double alpha=0.5, int cap=0, Py_ssize_t band=0):
    """The arc mask a pruning level leaves: the C thresholds every caller of the cascade uses.

    arc_mm (float (n + 1, n + 1)): arc max-marginals, -inf for arcs no structure uses.
    outer_mm (float (n + 1, 2) or None): a vine's outer-arc max-marginals (then `band` is its band);
        None for an Eisner-order or local level (then `cap` > 0 keeps at most that many heads per word).
    RETURNS (np.ndarray): bool (n + 1, n + 1).
    """
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef const double[:, ::1] outer
    cdef Py_ssize_t N = arcs.shape[0]
    mask = np.zeros((N, N), dtype=np.bool_)
    cdef uint8_t[:, ::1] out = mask.view(np.uint8)
    cdef double* column
    if outer_mm is not None:
        outer = _outer(outer_mm, N)
        if band < 1:
            raise ValueError(f"a vine level needs band >= 1, got {band}")
        with nogil:
            vine_prune(N, best, &arcs[0, 0], &outer[0, 0], alpha, band, &out[0, 0])
        return mask
    column = <double*>malloc(N * sizeof(double))
    if column == NULL:
        raise MemoryError()
    with nogil:
        eisner_prune(N, best, &arcs[0, 0], alpha, cap, column, &out[0, 0])
    free(column)
    return mask


def cap_mask(mask, arc_mm, int cap):
    """`mask` (bool (n + 1, n + 1)) with each word m >= 1 keeping at most `cap` allowed heads, those of highest
    max-marginal (ties at the cap-th value kept, so the best structure's arcs survive)."""
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef Py_ssize_t N = arcs.shape[0]
    out_array = np.array(mask, dtype=np.bool_, order="C", copy=True)
    if out_array.shape != (N, N):
        raise ValueError(f"mask has shape {out_array.shape}, the max-marginals {(N, N)}")
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    cdef uint8_t[:, ::1] out = out_array.view(np.uint8)
    cdef double* column = <double*>malloc(N * sizeof(double))
    if column == NULL:
        raise MemoryError()
    with nogil:
        cap_heads(N, &arcs[0, 0], cap, column, &out[0, 0])
    free(column)
    return out_array


cdef void local_max_marginals(Py_ssize_t N, const double* scores, double* column, double* best,
                              double* mm) noexcept nogil:
    """Max-marginals of the unstructured arc classifier: mm(h, m) = best - max_h' s(h', m) + s(h, m)."""
    cdef Py_ssize_t h, m
    cdef double top, total = 0.0
    for m in range(1, N):
        top = -INFINITY
        for h in range(N):
            if scores[h * N + m] > top:
                top = scores[h * N + m]
        column[m] = top
        total += top
    best[0] = total
    for h in range(N):
        mm[h * N] = -INFINITY
        for m in range(1, N):
            mm[h * N + m] = total - column[m] + scores[h * N + m]


def local_marginals(scores):
    """Best score and max-marginals of the unstructured arc classifier (every word picks its best head):
    mm(h, m) = best - max_h' s(h', m) + s(h, m). scores: float (n + 1, n + 1), -inf for arcs not allowed.
    RETURNS (float, np.ndarray): best, float64 (n + 1, n + 1) (column 0: -inf)."""
    cdef const double[:, ::1] s = _square(scores)
    cdef Py_ssize_t N = s.shape[0]
    out = np.empty((N, N))
    cdef double[:, ::1] mm = out
    cdef double[::1] column = np.empty(N)
    cdef double best
    with nogil:
        local_max_marginals(N, &s[0, 0], &column[0], &best, &mm[0, 0])
    return best, out
