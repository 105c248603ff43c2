# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The arc scorer's span term added to dense arc scores of many sentences: the spaCy component's span term at
prediction (`pipeline/scorers.py`: `span_scores` is the same function with its gradient, `span_row_terms`
gives the terms).

A sentence is its rows r_0 (the root row) .. r_n of the batch; for an arc (h, m) with i = min(h, m) and
j = max(h, m), what lies between head and dependent is the mean of Z over the rows r_{i+1} .. r_{j-1}:

    S[h, m] += (A[r_h] + B[r_m]) . (C[j] - C[i + 1]) / (j - i - 1)     (nothing when j - i < 2)

with C[t] = Z[r_0] + ... + Z[r_{t-1}] the sentence's prefix sums (C[0] = 0). A C^T and B C^T are two sgemm
calls (scipy's BLAS) per sentence over its gathered rows, in float32; the sum is added to the float64 scores.
Time O((n + 1)^2 k) per sentence, scratch O((n + 1)^2 + (n + 1) k) for the longest.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from .scipy_cblas cimport row_major_sgemm
from .strided cimport row_stride

cnp.import_array()


def add_span_dense(const float[:, :] A, const float[:, :] B, const float[:, :] Z, rows, list dense) -> list:
    """Add the span term of each sentence of `rows` (int arrays of rows into the (R, k) terms, the root row
    first) to its dense scores in `dense` (float64 (n + 1, n + 1), C-contiguous, written in place); RETURNS
    dense.

    A = H G, B = D G', Z (R, k), k >= 1, float32 (rows may be strided, the columns of a row adjacent).
    Raises ValueError on mismatched shapes, a row outside 0..R-1 or a score array of the wrong shape or
    layout, before writing anything."""
    cdef Py_ssize_t R = A.shape[0], k = A.shape[1]
    if k < 1 or B.shape[0] != R or B.shape[1] != k or Z.shape[0] != R or Z.shape[1] != k:
        raise ValueError(f"A ({A.shape[0]}, {A.shape[1]}), B ({B.shape[0]}, {B.shape[1]}) and Z "
                         f"({Z.shape[0]}, {Z.shape[1]}) must share R and k >= 1")
    if len(rows) != len(dense):
        raise ValueError(f"{len(rows)} row lists for {len(dense)} score arrays")
    sizes = [len(sentence) for sentence in rows]
    flat = np.concatenate([np.asarray(sentence, dtype=np.int64) for sentence in rows] or [np.zeros(0, np.int64)])
    if flat.ndim != 1 or len(flat) != sum(sizes):
        raise ValueError("rows must be 1-d arrays")
    if len(flat) and (flat.min() < 0 or flat.max() >= R):
        raise ValueError(f"row {flat.min() if flat.min() < 0 else flat.max()} is outside 0..{R - 1}")
    for index, (size, S) in enumerate(zip(sizes, dense)):
        if (not isinstance(S, np.ndarray) or S.dtype != np.float64 or S.shape != (size, size)
                or not S.flags["C_CONTIGUOUS"] or not S.flags["WRITEABLE"]):
            raise ValueError(f"scores of sentence {index} must be a writeable C-contiguous float64 ({size}, "
                             f"{size}) array")
    cdef Py_ssize_t longest = max(sizes, default=0)
    if longest < 3:             # no arc has a word between its ends
        return dense
    cdef const int64_t[::1] all_rows = flat
    cdef Py_ssize_t a_stride = row_stride(A, "A"), b_stride = row_stride(B, "B"), z_stride = row_stride(Z, "Z")
    cdef float* heads = <float*>malloc(longest * k * sizeof(float))
    cdef float* deps = <float*>malloc(longest * k * sizeof(float))
    cdef float* prefix = <float*>malloc((longest + 1) * k * sizeof(float))
    cdef float* head_dots = <float*>malloc(longest * (longest + 1) * sizeof(float))
    cdef float* dep_dots = <float*>malloc(longest * (longest + 1) * sizeof(float))
    cdef const int64_t* r = &all_rows[0]
    cdef const float* z
    cdef double* s
    cdef Py_ssize_t i, n1, t, c, h, m, lo, hi, w = longest + 1
    cdef float between
    try:
        if heads == NULL or deps == NULL or prefix == NULL or head_dots == NULL or dep_dots == NULL:
            raise MemoryError()
        for i in range(len(sizes)):
            n1 = sizes[i]
            if n1 < 3:
                r += n1
                continue
            s = <double*>cnp.PyArray_DATA(dense[i])
            memset(prefix, 0, k * sizeof(float))
            for t in range(n1):
                memcpy(heads + t * k, &A[0, 0] + r[t] * a_stride, k * sizeof(float))
                memcpy(deps + t * k, &B[0, 0] + r[t] * b_stride, k * sizeof(float))
                z = &Z[0, 0] + r[t] * z_stride
                for c in range(k):
                    prefix[(t + 1) * k + c] = prefix[t * k + c] + z[c]
            # head_dots[h, t] = A[r_h] . C[t], dep_dots[m, t] = B[r_m] . C[t], t = 0 .. n1, rows w apart
            row_major_sgemm(False, True, <int>n1, <int>(n1 + 1), <int>k, 1.0, heads, <int>k, prefix, <int>k, 0.0,
                            head_dots, <int>w)
            row_major_sgemm(False, True, <int>n1, <int>(n1 + 1), <int>k, 1.0, deps, <int>k, prefix, <int>k, 0.0,
                            dep_dots, <int>w)
            for h in range(n1):
                for m in range(n1):
                    lo = h if h < m else m
                    hi = m if h < m else h
                    if hi - lo < 2:
                        continue
                    between = (head_dots[h * w + hi] - head_dots[h * w + lo + 1]
                               + dep_dots[m * w + hi] - dep_dots[m * w + lo + 1])
                    s[h * n1 + m] += between / <float>(hi - lo - 1)
            r += n1
    finally:
        free(heads)
        free(deps)
        free(prefix)
        free(head_dots)
        free(dep_dots)
    return dense
