# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The hidden layer of the spaCy component's label classifier on the CPU (`pipeline/scorers.label_hidden`).

For each arc i with head row h_i, dependent row m_i and distance bucket b_i, from the projection P (R, k l)
of the batch's rows (column blocks of width l: head, dependent, and with children the outermost left and
right child):

    hidden[i] = relu(P[h_i, 0:l] + P[m_i, l:2l] + M[b_i] (+ left_i + right_i))

where left_i is P[c, 2l:3l] for the dependent's outermost left child row c, or none[0] when it has none (and
right_i likewise from block 3 and none[1]). Added in that order in float32, as the numpy expression does, in
one pass instead of one per term. Time O(A l).
"""
import numpy as np
cimport numpy as cnp

from .strided cimport row_stride

cnp.import_array()


def label_hidden_rows(const float[:, :] P, Py_ssize_t width, const int[::1] heads, const int[::1] mods,
                      const float[:, ::1] M, const int[::1] buckets, const int[:, ::1] children=None,
                      const float[:, ::1] none=None):
    """hidden (A, width) float32 as above. P (R, 2 width, or 4 width with children; rows may be strided, the
    columns of a row adjacent); M (buckets, width); heads, mods, buckets (A,) int32; children (A, 2) int32
    rows (-1: none) and none (2, width), both or neither. Raises ValueError on mismatched shapes or an index
    out of range."""
    cdef Py_ssize_t A = heads.shape[0], R = P.shape[0], l = width, i, j
    cdef bint with_children = children is not None
    if with_children != (none is not None):
        raise ValueError("pass children and none together")
    if l < 1 or P.shape[1] < (4 if with_children else 2) * l or M.shape[1] != l:
        raise ValueError(f"P ({R}, {P.shape[1]}) and M ({M.shape[0]}, {M.shape[1]}) do not fit width {l}")
    if mods.shape[0] != A or buckets.shape[0] != A or (with_children and (children.shape[0] != A
                                                                          or none.shape[0] != 2
                                                                          or none.shape[1] != l)):
        raise ValueError(f"heads, mods, buckets (and children (A, 2), none (2, {l})) must describe {A} arcs")
    for i in range(A):
        if not (0 <= heads[i] < R and 0 <= mods[i] < R and 0 <= buckets[i] < M.shape[0]):
            raise ValueError(f"arc {i}: a row or bucket out of range")
        if with_children and (children[i, 0] >= R or children[i, 1] >= R):
            raise ValueError(f"arc {i}: a child row out of range")
    cdef Py_ssize_t stride = row_stride(P, "P") if R else 0
    out = np.empty((A, l), dtype=np.float32)
    cdef float[:, ::1] hidden = out
    cdef const float* head_row
    cdef const float* dep_row
    cdef const float* bucket_row
    cdef const float* left
    cdef const float* right
    cdef float x
    for i in range(A):
        head_row = &P[0, 0] + heads[i] * stride
        dep_row = &P[0, 0] + mods[i] * stride + l
        bucket_row = &M[buckets[i], 0]
        if with_children:
            left = &none[0, 0] if children[i, 0] < 0 else &P[0, 0] + children[i, 0] * stride + 2 * l
            right = &none[1, 0] if children[i, 1] < 0 else &P[0, 0] + children[i, 1] * stride + 3 * l
            for j in range(l):
                x = head_row[j] + dep_row[j]
                x = x + bucket_row[j]
                x = x + left[j]
                x = x + right[j]
                hidden[i, j] = x if x > 0 else 0
        else:
            for j in range(l):
                x = head_row[j] + dep_row[j]
                x = x + bucket_row[j]
                hidden[i, j] = x if x > 0 else 0
    return out
