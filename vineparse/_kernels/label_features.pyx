# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Feature rows of labelled arcs, for the cascade's dependency-label classifier (vineparse/cascade/labeler.py).

A sentence is the uint64 token array of `cascade.encoding` ((n + 1, 4): hashes of word form, tag, coarse tag
and prefix; row 0 the root token) with a tree `heads` (int64 (n + 1,), heads[0] == -1). For each word m with
head h (and grandparent g = heads[h], or none when h is the root) the labeller reads N_TEMPLATES templates:

    bias | m word | m tag | m coarse | m prefix | h word | h tag | h coarse | h tag, m tag |
    h coarse, m coarse | h word, m tag | h tag, m word | h word, m word | direction, distance |
    direction, distance, m tag | direction, h tag, m tag | m-1 tag, m tag, m+1 tag |
    h tag, h+1 tag, h-1 tag, m tag | g tag, h tag, m tag | m tag, m's leftmost child's tag |
    m tag, m's rightmost child's tag | m tag, m's left and right child counts (capped at 3) |
    direction, distance, h coarse, m coarse | m word, direction

(distance in buckets 1, 2, 3, 4, 5, 6-10, 11+). Each template value is hashed with its template id to 64
bits and mapped to a row in 0..rows-1 (multiply-high, so rows need not be a power of two); the classifier
keeps one weight per (row, label), so a feature's label weights are contiguous. Time O(n) per sentence.
"""
import numpy as np
from libc.stdint cimport uint64_t, int64_t

from .hashing cimport COARSE, COLUMNS, PREFIX, TAG, WORD, bucket, mix

N_TEMPLATES = 24

cdef enum:
    TEMPLATES = 24

cdef uint64_t OUTSIDE = 0x3c6ef372fe94f82bULL     # a token before or after the sentence
cdef uint64_t NOBODY = 0xa54ff53a5f1d36f1ULL      # no grandparent / no child


cdef inline uint64_t token(const uint64_t* x, Py_ssize_t i, int column, Py_ssize_t n) noexcept nogil:
    """Column `column` of token i; OUTSIDE beyond the sentence."""
    if i < 0 or i > n:
        return OUTSIDE
    return x[i * COLUMNS + column]


cdef inline int64_t row_of(uint64_t template, uint64_t value, uint64_t rows) noexcept nogil:
    cdef uint64_t hashed = mix(template * 0x100000001B3ULL + 1, value)
    return <int64_t>(((hashed >> 32) * rows) >> 32)


cdef void label_rows_core(const uint64_t* x, const int64_t* heads, Py_ssize_t n, uint64_t rows,
                          int64_t* leftmost, int64_t* rightmost, int64_t* n_left, int64_t* n_right,
                          int64_t* out) noexcept nogil:
    """out: (n, TEMPLATES) row-major; the other arrays: n + 1 entries of scratch."""
    cdef Py_ssize_t m, h, g
    cdef int64_t* o
    cdef uint64_t mw, mt, mc, mp, hw, ht, hc, gt, d, dist, lt, rt, counts
    for m in range(n + 1):
        leftmost[m] = -1
        rightmost[m] = -1
        n_left[m] = 0
        n_right[m] = 0
    for m in range(1, n + 1):
        h = heads[m]
        if m < h:
            n_left[h] += 1
            if leftmost[h] < 0:
                leftmost[h] = m
        else:
            n_right[h] += 1
            rightmost[h] = m
    for m in range(1, n + 1):
        h = heads[m]
        g = heads[h] if h > 0 else -1
        mw, mt, mc, mp = token(x, m, WORD, n), token(x, m, TAG, n), token(x, m, COARSE, n), token(x, m, PREFIX, n)
        hw, ht, hc = token(x, h, WORD, n), token(x, h, TAG, n), token(x, h, COARSE, n)
        gt = NOBODY if g < 0 else token(x, g, TAG, n)
        d = <uint64_t>(h < m)
        dist = mix(d, <uint64_t>bucket(m - h))
        lt = NOBODY if leftmost[m] < 0 else token(x, leftmost[m], TAG, n)
        rt = NOBODY if rightmost[m] < 0 else token(x, rightmost[m], TAG, n)
        counts = <uint64_t>((n_left[m] if n_left[m] < 3 else 3) * 4 + (n_right[m] if n_right[m] < 3 else 3))
        o = out + (m - 1) * TEMPLATES
        o[0] = row_of(0, 0, rows)
        o[1] = row_of(1, mw, rows)
        o[2] = row_of(2, mt, rows)
        o[3] = row_of(3, mc, rows)
        o[4] = row_of(4, mp, rows)
        o[5] = row_of(5, hw, rows)
        o[6] = row_of(6, ht, rows)
        o[7] = row_of(7, hc, rows)
        o[8] = row_of(8, mix(ht, mt), rows)
        o[9] = row_of(9, mix(hc, mc), rows)
        o[10] = row_of(10, mix(hw, mt), rows)
        o[11] = row_of(11, mix(ht, mw), rows)
        o[12] = row_of(12, mix(hw, mw), rows)
        o[13] = row_of(13, dist, rows)
        o[14] = row_of(14, mix(dist, mt), rows)
        o[15] = row_of(15, mix(mix(d, ht), mt), rows)
        o[16] = row_of(16, mix(mix(token(x, m - 1, TAG, n), mt), token(x, m + 1, TAG, n)), rows)
        o[17] = row_of(17, mix(mix(mix(ht, token(x, h + 1, TAG, n)), token(x, h - 1, TAG, n)), mt),
                            rows)
        o[18] = row_of(18, mix(mix(gt, ht), mt), rows)
        o[19] = row_of(19, mix(mt, lt), rows)
        o[20] = row_of(20, mix(mt, rt), rows)
        o[21] = row_of(21, mix(mt, counts), rows)
        o[22] = row_of(22, mix(mix(dist, hc), mc), rows)
        o[23] = row_of(23, mix(mw, d), rows)


def label_rows(const uint64_t[:, ::1] tokens, const int64_t[::1] heads, Py_ssize_t rows):
    """The feature rows of every word's arc (see the module docstring).

    tokens (uint64 (n + 1, 4)): the encoded sentence; heads (int64 (n + 1,)): a tree over it (heads[0] ==
    -1, each head in 0..n); rows: the number of feature rows (>= 1).
    RETURNS (np.ndarray): int64 (n, N_TEMPLATES), entries in 0..rows-1; row m - 1 is word m's arc.
    RAISES (ValueError): for mismatched shapes, rows < 1 or a head outside 0..n.
    """
    cdef Py_ssize_t n = heads.shape[0] - 1, m
    if tokens.shape[1] != COLUMNS:
        raise ValueError(f"tokens must have {COLUMNS} columns, got {tokens.shape[1]}")
    if tokens.shape[0] != heads.shape[0]:
        raise ValueError(f"{tokens.shape[0]} token rows but {heads.shape[0]} heads")
    if rows < 1 or rows > (1 << 32):
        raise ValueError(f"rows must be in 1..2^32, got {rows}")
    for m in range(1, n + 1):
        if heads[m] < 0 or heads[m] > n or heads[m] == m:
            raise ValueError(f"head {heads[m]} of word {m} is not a word of the sentence (0..{n}, not itself)")
    out = np.empty((max(n, 0), TEMPLATES), dtype=np.int64)
    if n < 1:
        return out
    scratch = np.empty((4, n + 1), dtype=np.int64)
    cdef int64_t[:, ::1] s = scratch
    cdef int64_t[:, ::1] o = out
    with nogil:
        label_rows_core(&tokens[0, 0], &heads[0], n, <uint64_t>rows, &s[0, 0], &s[1, 0], &s[2, 0], &s[3, 0],
                        &o[0, 0])
    return out
