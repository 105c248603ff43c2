# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Dense biaffine arc scores of many sentences from per-row terms: the spaCy component's first-order scorer at
prediction (`pipeline/scorers.py`, `biaffine_row_terms` gives the terms).

A sentence is its rows r_0 (the root row) .. r_n of the batch; with b = bucket(h, m) of positions h, m
(`scorers.distance_buckets`: 0 when h is the root, else 1 + the class of |h - m|, + the number of classes
when h > m),

    S[h, m] = HU[r_h] . D[r_m] + Hu[r_h] + HF[r_h, b] + DE[r_m, b]

added in that order in float32 and returned as float64 (n + 1, n + 1). The dot products of a sentence are one
sgemm (scipy's BLAS) over its rows gathered into a scratch buffer. Time O((n + 1)^2 a) per sentence.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from .scipy_cblas cimport row_major_sgemm
from .strided cimport row_stride

cnp.import_array()


def biaffine_dense(const float[:, :] HU, const float[:, :] D, const float[:] Hu, const float[:, :] HF,
                   const float[:, :] DE, rows, distance_edges) -> list:
    """Per sentence of `rows` (int arrays of rows into the (R, ...) terms, the root row first), its dense
    scores S (float64 (n + 1, n + 1), C-contiguous).

    HU, D (R, a), a >= 1; Hu (R,); HF, DE (R, buckets), all float32 (rows may be strided, the columns of a row
    adjacent); distance_edges: the increasing upper bounds (exclusive) of the distance classes, buckets =
    1 + 2 (len(distance_edges) + 1). Raises ValueError on mismatched shapes or a row outside 0..R-1."""
    cdef Py_ssize_t R = HU.shape[0], a = HU.shape[1], classes = len(distance_edges) + 1
    cdef Py_ssize_t buckets = 1 + 2 * classes
    if a < 1 or D.shape[0] != R or D.shape[1] != a or Hu.shape[0] != R:
        raise ValueError(f"HU ({HU.shape[0]}, {HU.shape[1]}), D ({D.shape[0]}, {D.shape[1]}) and Hu "
                         f"({Hu.shape[0]},) must share R and a >= 1")
    if HF.shape[0] != R or DE.shape[0] != R or HF.shape[1] != buckets or DE.shape[1] != buckets:
        raise ValueError(f"HF ({HF.shape[0]}, {HF.shape[1]}) and DE ({DE.shape[0]}, {DE.shape[1]}) must be "
                         f"({R}, {buckets})")
    sizes = [len(sentence) for sentence in rows]
    flat = np.concatenate([np.asarray(sentence, dtype=np.int64) for sentence in rows] or [np.zeros(0, np.int64)])
    if flat.ndim != 1 or len(flat) != sum(sizes):
        raise ValueError("rows must be 1-d arrays")
    cdef Py_ssize_t longest = max(sizes, default=0)
    out = [np.empty((n1, n1), dtype=np.float64) for n1 in sizes]
    if not longest:
        return out
    cdef const int64_t[::1] all_rows = flat
    cdef Py_ssize_t hu_stride = row_stride(HU, "HU"), d_stride = row_stride(D, "D")
    cdef Py_ssize_t hf_stride = row_stride(HF, "HF"), de_stride = row_stride(DE, "DE")
    cdef Py_ssize_t hu1 = Hu.strides[0] // sizeof(float)
    cdef int64_t[::1] distance_class = np.searchsorted(np.asarray(distance_edges, dtype=np.int64),
                                                       np.arange(longest), side="right")
    cdef float* heads = <float*>malloc(longest * a * sizeof(float))
    cdef float* deps = <float*>malloc(longest * a * sizeof(float))
    cdef float* dots = <float*>malloc(longest * longest * sizeof(float))
    cdef const int64_t* r = &all_rows[0]
    cdef double* s
    cdef const float* hf
    cdef Py_ssize_t i, n1, h, m, b
    cdef float value
    try:
        if heads == NULL or deps == NULL or dots == NULL:
            raise MemoryError()
        for i in range(len(sizes)):
            n1 = sizes[i]
            if not n1:
                continue
            s = <double*>cnp.PyArray_DATA(out[i])
            for h in range(n1):
                if r[h] < 0 or r[h] >= R:
                    raise ValueError(f"row {r[h]} of sentence {i} is outside 0..{R - 1}")
                memcpy(heads + h * a, &HU[0, 0] + r[h] * hu_stride, a * sizeof(float))
                memcpy(deps + h * a, &D[0, 0] + r[h] * d_stride, a * sizeof(float))
            row_major_sgemm(False, True, <int>n1, <int>n1, <int>a, 1.0, heads, <int>a, deps, <int>a, 0.0, dots,
                            <int>n1)
            for h in range(n1):
                hf = &HF[0, 0] + r[h] * hf_stride
                for m in range(n1):
                    if h == 0:
                        b = 0
                    else:
                        b = 1 + distance_class[h - m if h > m else m - h] + (classes if h > m else 0)
                    value = dots[h * n1 + m] + (&Hu[0])[r[h] * hu1]
                    value = value + hf[b]
                    s[h * n1 + m] = value + (&DE[0, 0])[r[m] * de_stride + b]
            r += n1
    finally:
        free(heads)
        free(deps)
        free(dots)
    return out
