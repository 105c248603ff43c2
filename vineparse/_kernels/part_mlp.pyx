"""Higher-order part scores under the component's part MLP, in one pass per part list.

A part (w_0, ..., w_{k-1}) of one kind scores

    v . relu(sum_j Z[w_j, starts[j] : starts[j] + p]  (none_row in place of the sibling role when s == h)
             + distance[buckets[h, m]])              (the distance term only when distance rows are given)

(`vineparse.pipeline.parts` defines the roles). numpy would gather a (P, p) block per role and add them up:
k + 3 passes over P x p floats and as many temporaries. Here each part is summed into a buffer of p floats
and dotted with v at once. The terms a part shares with its arc h -> m (the rows of h and m and the distance
row) are summed once for a run of parts of the same arc (the runtime's part lists come grouped by arc), so
a part costs one or two row additions beyond them. Time O(P k p), memory O(P).
"""
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

import numpy as np


cdef extern from "relu_dot.h" nogil:
    float relu_dot(const float* a, const float* b, const float* c, const float* v, Py_ssize_t p)


cdef inline const float* role_row(const PartMLP* mlp, const int64_t* words, Py_ssize_t j) noexcept nogil:
    """Role j's row of Z for a part on `words` (the "no sibling" row where the sibling repeats the head)."""
    if j == mlp.sibling_column and words[j] == words[j - 1]:
        return mlp.none
    return &mlp.Z[words[j] * mlp.columns + mlp.starts[j]]


cdef void part_mlp_parts(const PartMLP* mlp, const int64_t* parts, Py_ssize_t count, const int64_t* row_of,
                         const int64_t* buckets, Py_ssize_t stride, float* scratch, double* out) noexcept nogil:
    """Scores of `count` parts (rows of k = 3 or 4 positions, row-major) into out:
    v . relu(rows of h and m + distance row of h -> m + the other roles' rows), summed in that order.
    row_of: the row of Z of each position (NULL: the position itself); buckets: the distance row of arc
    h -> m at h * stride + m (ignored without distance rows); scratch: p floats. No checks: the caller
    keeps positions, rows and buckets in range."""
    cdef Py_ssize_t i, j, c, p = mlp.p, k = mlp.k, head = mlp.head_column
    cdef float* arc = scratch
    cdef const int64_t* part
    cdef const float* row
    cdef const float* other
    cdef const float* others[MAX_ROLES]
    cdef int64_t h = -1, m = -1
    cdef int64_t words[MAX_ROLES]
    cdef Py_ssize_t n_others
    for i in range(count):
        part = &parts[i * k]
        for j in range(k):
            words[j] = part[j] if row_of == NULL else row_of[part[j]]
        if i == 0 or part[head] != h or part[k - 1] != m:
            h, m = part[head], part[k - 1]
            row = role_row(mlp, words, head)
            other = role_row(mlp, words, k - 1)
            for c in range(p):
                arc[c] = row[c] + other[c]
            if mlp.distance != NULL:
                row = &mlp.distance[buckets[h * stride + m] * p]
                for c in range(p):
                    arc[c] += row[c]
        n_others = 0
        for j in range(k - 1):
            if j != head:
                others[n_others] = role_row(mlp, words, j)
                n_others += 1
        out[i] = relu_dot(arc, others[0], others[1] if n_others > 1 else NULL, mlp.v, p)


def part_mlp_scores(const float[:, ::1] Z, const int64_t[:, ::1] rows, const int64_t[::1] starts,
                    const float[::1] v, Py_ssize_t sibling_column, const float[::1] none_row,
                    const float[:, ::1] distance, const int64_t[:, ::1] buckets, Py_ssize_t head_column):
    """Scores (float64 (P,)) of the parts `rows` (P, k) with role j read from columns starts[j]:starts[j] + p
    of Z (rows 0..n), p = len(v); all float32.
    sibling_column: the role that takes `none_row` (p,) where its word equals the one before it (no inner
        sibling), or -1 for none. distance (D, p): the distance rows, or an empty array (0 rows) for none;
        the part's row is buckets[h, m] (buckets (n + 1, n + 1)) for its arc h -> m, h = the word in
        `head_column` (< k - 1), m = the last word. Raises IndexError for a word outside 0..n, a bucket
        outside 0..D-1 or role columns outside Z.
    """
    cdef Py_ssize_t P = rows.shape[0], k = rows.shape[1], p = v.shape[0], n_rows = Z.shape[0], j
    cdef bint use_distance = distance.shape[0] > 0
    cdef PartMLP mlp
    if p < 1:
        raise ValueError("the part MLP needs a hidden width of at least 1")
    if not 3 <= k <= MAX_ROLES or starts.shape[0] != k:
        raise ValueError(f"parts need 3..{MAX_ROLES} roles with one column start each, got {k} roles and "
                         f"{starts.shape[0]} starts")
    for j in range(k):
        if starts[j] < 0 or starts[j] + p > Z.shape[1]:
            raise IndexError(f"role {j} reads columns {starts[j]}..{starts[j] + p - 1} of a {Z.shape[1]}-column Z")
    if sibling_column >= k or sibling_column == 0:
        raise ValueError(f"sibling_column must be -1 or 1..{k - 1}, got {sibling_column}")
    if sibling_column > 0 and none_row.shape[0] != p:
        raise ValueError(f"none_row has {none_row.shape[0]} values, expected {p}")
    if not 0 <= head_column < k - 1:
        raise ValueError(f"head_column must be a role before the last, got {head_column} of {k}")
    if use_distance and (distance.shape[1] != p or buckets.shape[0] < n_rows or buckets.shape[1] < n_rows):
        raise ValueError(f"distance must be (D, {p}) and buckets (n + 1, n + 1) for n + 1 = {n_rows}")
    out = np.empty(P, dtype=np.float64)
    if P == 0:
        return out
    words = np.asarray(rows)
    if words.min() < 0 or words.max() >= n_rows:
        raise IndexError(f"a part has a word outside 0..{n_rows - 1}")
    if use_distance:
        arc_buckets = np.asarray(buckets)[words[:, head_column], words[:, k - 1]]
        if arc_buckets.min() < 0 or arc_buckets.max() >= distance.shape[0]:
            raise IndexError(f"a part's arc has a bucket outside the {distance.shape[0]} distance rows")
    mlp.Z = &Z[0, 0]
    mlp.columns = Z.shape[1]
    mlp.k = k
    mlp.p = p
    for j in range(k):
        mlp.starts[j] = starts[j]
    mlp.v = &v[0]
    mlp.none = &none_row[0] if sibling_column > 0 else NULL
    mlp.sibling_column = sibling_column
    mlp.distance = &distance[0, 0] if use_distance else NULL
    mlp.head_column = head_column
    cdef float* scratch = <float*>malloc(max(p, 1) * sizeof(float))
    cdef double[::1] scores = out
    if scratch == NULL:
        raise MemoryError()
    with nogil:
        part_mlp_parts(&mlp, &rows[0, 0], P, NULL, &buckets[0, 0] if use_distance else NULL,
                       buckets.shape[1] if use_distance else 0, scratch, &scores[0])
    free(scratch)
    return out
