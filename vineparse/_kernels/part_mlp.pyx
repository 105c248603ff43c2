"""Higher-order part scores under the component's part MLP, in one pass per part list.

A part (w_0, ..., w_{k-1}) of one kind scores

    v . relu(sum_j Z[w_j, starts[j] : starts[j] + p]  (none_row in place of the sibling role when s == h)
             + distance[buckets[h, m]])              (the distance term only when distance rows are given)

(`vineparse.pipeline.parts` defines the roles). numpy would gather a (P, p) block per role and add them up:
k + 3 passes over P x p floats and as many temporaries. Here each part is summed into a buffer of p floats
and dotted with v at once. Time O(P k p), memory O(P).
"""
from cython cimport floating
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

import numpy as np


cdef double part_mlp_score(const PartMLP* mlp, const int64_t* words, int64_t bucket, float* pre) noexcept nogil:
    """One part's score: v . relu(sum of its roles' rows of Z (or the "no sibling" row) + its distance row).
    words: the part's k rows of Z; bucket: its distance row (ignored without distance rows); pre: p floats."""
    cdef Py_ssize_t j, c, p = mlp.p
    cdef const float* row
    cdef float x, total = 0      # float sums vectorise (the scores feed max-plus passes, not gradients)
    for c in range(p):
        pre[c] = 0
    for j in range(mlp.k):
        if j == mlp.sibling_column and words[j] == words[j - 1]:
            row = mlp.none
        else:
            row = &mlp.Z[words[j] * mlp.columns + mlp.starts[j]]
        for c in range(p):
            pre[c] += row[c]
    if mlp.distance != NULL:
        row = &mlp.distance[bucket * p]
        for c in range(p):
            pre[c] += row[c]
    for c in range(p):
        x = pre[c]
        total += (x if x > 0 else 0) * mlp.v[c]    # branch-free: the sign of x is not predictable
    return total


def part_mlp_scores(const floating[:, ::1] Z, const int64_t[:, ::1] rows, const int64_t[::1] starts,
                    const floating[::1] v, Py_ssize_t sibling_column, const floating[::1] none_row,
                    const floating[:, ::1] distance, const int64_t[:, ::1] buckets, Py_ssize_t head_column):
    """Scores (float64 (P,)) of the parts `rows` (P, k) with role j read from columns starts[j]:starts[j] + p
    of Z (rows 0..n), p = len(v).

    sibling_column: the role that takes `none_row` (p,) where its word equals the one before it (no inner
        sibling), or -1 for none. distance (D, p): the distance rows, or an empty array (0 rows) for none;
        the part's row is buckets[h, m] (buckets (n + 1, n + 1)) for its arc h -> m, h = the word in
        `head_column`, m = the last word. Raises IndexError for a word outside 0..n, a bucket outside
        0..D-1 or role columns outside Z.
    """
    cdef Py_ssize_t P = rows.shape[0], k = rows.shape[1], p = v.shape[0], n_rows = Z.shape[0]
    cdef Py_ssize_t i, j, c, word
    cdef bint use_distance = distance.shape[0] > 0
    if starts.shape[0] != k:
        raise ValueError(f"{k} roles per part but {starts.shape[0]} column starts")
    for j in range(k):
        if starts[j] < 0 or starts[j] + p > Z.shape[1]:
            raise IndexError(f"role {j} reads columns {starts[j]}..{starts[j] + p - 1} of a {Z.shape[1]}-column Z")
    if sibling_column >= k or sibling_column == 0:
        raise ValueError(f"sibling_column must be -1 or 1..{k - 1}, got {sibling_column}")
    if sibling_column > 0 and none_row.shape[0] != p:
        raise ValueError(f"none_row has {none_row.shape[0]} values, expected {p}")
    if use_distance and (distance.shape[1] != p or buckets.shape[0] < n_rows or buckets.shape[1] < n_rows
                         or not 0 <= head_column < k):
        raise ValueError(f"distance must be (D, {p}), buckets (n + 1, n + 1) and head_column a role")
    cdef int64_t bucket
    out = np.empty(P, dtype=np.float64)
    cdef double[::1] scores = out
    cdef floating* pre = <floating*> malloc(max(p, 1) * sizeof(floating))
    if pre == NULL:
        raise MemoryError()
    cdef const floating* row
    cdef floating x, total
    cdef bint bad = False
    with nogil:
        for i in range(P):
            for c in range(p):
                pre[c] = 0
            for j in range(k):
                word = rows[i, j]
                if word < 0 or word >= n_rows:
                    bad = True
                    break
                if j == sibling_column and word == rows[i, j - 1]:
                    row = &none_row[0]
                else:
                    row = &Z[word, starts[j]]
                for c in range(p):
                    pre[c] += row[c]
            if use_distance and not bad:
                bucket = buckets[rows[i, head_column], rows[i, k - 1]]
                if bucket < 0 or bucket >= distance.shape[0]:
                    bad = True
                else:
                    row = &distance[bucket, 0]
                    for c in range(p):
                        pre[c] += row[c]
            if bad:
                break
            total = 0
            for c in range(p):
                x = pre[c]
                total += (x if x > 0 else 0) * v[c]    # branch-free: the sign of x is not predictable
            scores[i] = total
    free(pre)
    if bad:
        raise IndexError(f"part {i} has a word outside 0..{n_rows - 1} or a bucket outside the distance rows")
    return out
