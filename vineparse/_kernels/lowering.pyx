# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The options and feature rows of the lowering model (vineparse/cascade/lowering.py, which states the model).

A sentence is the uint64 token array of `cascade.encoding` ((n + 1, 4): hashes of word form, tag, coarse tag
and prefix; row 0 the root token), a projective tree `heads` (int64 (n + 1,), heads[0] == -1) and the hashes
of its labels (uint64 (n + 1,), entry 0 the root's). For a word m with head h > 0 the candidates are the words
d with heads[d] == h (d != m, depth 1) or heads[heads[d]] == h and heads[d] != m (depth 2) whose subtree's
interval is not adjacent to m's; they are listed by distance |d - m|, the left one first on ties. Each
option has a row of feature indices (template values chained through `hashing.mix`, masked to the table):

    STAY:  m label | m label, m coarse | m label, h coarse | m label, h label | bias |
           m label, candidates (capped at 8) | m label, m tag, h tag | m label, h prefix | m label, m word
    d:     P = (m label, d label) | P, depth | P, sides | P, d coarse | P, m coarse | P, h coarse |
           m coarse, d coarse, h coarse | d label, m word | P, distance(d, m) | P, rank (capped at 3) |
           P, label of d's head | P, d tag, m tag | P, h prefix | P, d prefix | P, m word |
           d label, h prefix, sides | P, h prefix, d prefix | P, h label | P, distance(h, m) |
           P, sides, m coarse, h coarse

(sides: which sides of h m and d lie on; distances in buckets 1-5, 6-10, 11-20, more). STAY rows end in -1
pads. Time O(n^2) per sentence (every pair (m, d) is looked at once), memory O(options).
"""
import numpy as np
from libc.stdint cimport uint64_t, int64_t
from libc.stdlib cimport free, malloc

from .hashing cimport COARSE, COLUMNS, PREFIX, TAG, WORD, mix

ctypedef fused weight_t:
    float
    double

cdef enum:
    WIDTH = 20              # MOVE templates, the widest row
    KEEP = -1               # the target of STAY

STAY = KEEP
N_TEMPLATES = WIDTH


cdef inline int64_t sign(int64_t x) noexcept nogil:
    return (x > 0) - (x < 0)


cdef inline uint64_t distance(int64_t x) noexcept nogil:
    if x < 0:
        x = -x
    if x <= 5:
        return <uint64_t>x
    if x <= 10:
        return 6
    if x <= 20:
        return 7
    return 8


cdef inline uint64_t h1(uint64_t t, uint64_t a) noexcept nogil:
    return mix(mix(t, 0x51ED270B27D3B7C1ULL), a)


cdef inline uint64_t h2(uint64_t t, uint64_t a, uint64_t b) noexcept nogil:
    return mix(h1(t, a), b)


cdef inline uint64_t h3(uint64_t t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    return mix(h2(t, a, b), c)


cdef void intervals(const int64_t* heads, Py_ssize_t n, int64_t* first, int64_t* last) noexcept nogil:
    """first[x], last[x]: the ends of x's subtree (x = 0..n); O(n * depth)."""
    cdef Py_ssize_t m, a
    for m in range(n + 1):
        first[m] = m
        last[m] = m
    for m in range(1, n + 1):
        a = heads[m]
        while a > 0:
            if m < first[a]:
                first[a] = m
            if m > last[a]:
                last[a] = m
            a = heads[a]


cdef inline int depth_of(const int64_t* heads, const int64_t* first, const int64_t* last,
                         Py_ssize_t m, Py_ssize_t d) noexcept nogil:
    """1 or 2 when d is a candidate of m (module docstring), else 0."""
    cdef int64_t h = heads[m]
    cdef int64_t p = heads[d]
    cdef int depth = 0
    if h <= 0 or d == m:
        return 0
    if p == h:
        depth = 1
    elif p > 0 and p != m and heads[p] == h:
        depth = 2
    else:
        return 0
    if d < m:
        return depth if last[d] + 1 < first[m] else 0
    return depth if last[m] + 1 < first[d] else 0


cdef Py_ssize_t each_candidate(const int64_t* heads, const int64_t* first, const int64_t* last,
                               Py_ssize_t n, Py_ssize_t m, int64_t* out_d, int64_t* out_depth) noexcept nogil:
    """m's candidates in order, written to out_d / out_depth when not NULL; RETURNS their number."""
    cdef Py_ssize_t k = 0, gap, d, side
    cdef int depth
    if heads[m] <= 0:
        return 0
    for gap in range(1, n):
        for side in range(2):
            d = m - gap if side == 0 else m + gap
            if d < 1 or d > n:
                continue
            depth = depth_of(heads, first, last, m, d)
            if depth:
                if out_d != NULL:
                    out_d[k] = d
                    out_depth[k] = depth
                k += 1
    return k


def _checked(tokens, heads, labels):
    heads = np.ascontiguousarray(heads, dtype=np.int64)
    n = heads.shape[0] - 1
    if heads.ndim != 1 or n < 0 or heads[0] != -1 or (n and (heads[1:].min() < 0 or heads[1:].max() > n)):
        raise ValueError("heads must be a head array: heads[0] == -1, heads[1:] in 0..n")
    if tokens is not None and (tokens.ndim != 2 or tokens.shape[0] != n + 1 or tokens.shape[1] != COLUMNS):
        raise ValueError(f"tokens must be ({n + 1}, {COLUMNS}), got {tokens.shape}")
    if labels is not None and labels.shape[0] != n + 1:
        raise ValueError(f"label hashes must have {n + 1} entries (the root's first), got {labels.shape[0]}")
    return heads, n


def lowering_candidates(heads):
    """Every (m, d, depth) of the module docstring, by m, then distance, then d.

    heads (array-like of int): a projective tree, (n + 1,), heads[0] == -1 (not checked for cycles).
    RETURNS (Tuple[np.ndarray, np.ndarray, np.ndarray]): int64 arrays m, d and depth.
    """
    heads, size_n = _checked(None, heads, None)
    cdef Py_ssize_t n = size_n
    cdef const int64_t[::1] hv = heads
    cdef int64_t[::1] first = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] last = np.empty(n + 1, dtype=np.int64)
    intervals(&hv[0], n, &first[0], &last[0])
    cdef Py_ssize_t m, total = 0, k
    for m in range(1, n + 1):
        total += each_candidate(&hv[0], &first[0], &last[0], n, m, NULL, NULL)
    words = np.empty(total, dtype=np.int64)
    targets = np.empty(total, dtype=np.int64)
    depths = np.empty(total, dtype=np.int64)
    cdef int64_t[::1] wv = words, tv = targets, dv = depths
    total = 0
    for m in range(1, n + 1):
        if total < wv.shape[0]:
            k = each_candidate(&hv[0], &first[0], &last[0], n, m, &tv[total], &dv[total])
            wv[total:total + k] = m
            total += k
    return words, targets, depths


def lowering_options(const uint64_t[:, ::1] tokens, heads, const uint64_t[::1] labels, uint64_t size):
    """The options of every word with a candidate, grouped by word (STAY first), and their feature rows.

    tokens: uint64 (n + 1, 4); heads: int64 (n + 1,), projective; labels: uint64 (n + 1,) label hashes;
    size: the weight table's size, a power of two.
    RETURNS (Tuple[np.ndarray, ...]): `words` int64 (k,), increasing; `starts` int64 (k + 1,): word i's options
        are starts[i]..starts[i + 1] - 1, its STAY first; per option `targets` int64 (STAY or the candidate)
        and `rows` int64 (options, N_TEMPLATES), -1 pads.
    """
    heads, size_n = _checked(np.asarray(tokens), heads, np.asarray(labels))
    cdef Py_ssize_t n = size_n
    if size == 0 or size & (size - 1):
        raise ValueError(f"the weight table's size must be a power of two, got {size}")
    cdef const int64_t[::1] hv = heads
    cdef int64_t[::1] first = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] last = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] count = np.zeros(n + 1, dtype=np.int64)
    intervals(&hv[0], n, &first[0], &last[0])
    cdef Py_ssize_t m, k = 0, options = 0
    for m in range(1, n + 1):
        count[m] = each_candidate(&hv[0], &first[0], &last[0], n, m, NULL, NULL)
        if count[m]:
            k += 1
            options += 1 + count[m]
    words = np.empty(k, dtype=np.int64)
    starts = np.empty(k + 1, dtype=np.int64)
    targets = np.empty(options, dtype=np.int64)
    rows = np.full((options, WIDTH), -1, dtype=np.int64)
    depths = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] wv = words, sv = starts, tv = targets, dv = depths
    cdef int64_t[:, ::1] rv = rows
    cdef Py_ssize_t i = 0, o = 0, j, c
    cdef int64_t h, d
    cdef uint64_t mask = size - 1, pair, sides, lm, ld, lh
    with nogil:
        for m in range(1, n + 1):
            c = count[m]
            if not c:
                continue
            h = hv[m]
            lm, lh = labels[m], labels[h]
            wv[i] = m
            sv[i] = o
            tv[o] = KEEP
            rv[o, 0] = h1(1, lm) & mask
            rv[o, 1] = h2(2, lm, tokens[m, COARSE]) & mask
            rv[o, 2] = h2(3, lm, tokens[h, COARSE]) & mask
            rv[o, 3] = h2(4, lm, lh) & mask
            rv[o, 4] = h1(5, 0) & mask
            rv[o, 5] = h2(6, lm, <uint64_t>(c if c < 8 else 8)) & mask
            rv[o, 6] = h3(7, lm, tokens[m, TAG], tokens[h, TAG]) & mask
            rv[o, 7] = h2(8, lm, tokens[h, PREFIX]) & mask
            rv[o, 8] = h2(9, lm, tokens[m, WORD]) & mask
            o += 1
            each_candidate(&hv[0], &first[0], &last[0], n, m, &tv[o], &dv[0])
            for j in range(c):
                d = tv[o]
                ld = labels[d]
                pair = h2(20, lm, ld)
                sides = <uint64_t>(3 * sign(d - h) + sign(m - h) + 4)
                rv[o, 0] = pair & mask
                rv[o, 1] = h1(21 + pair, <uint64_t>dv[j]) & mask
                rv[o, 2] = h1(22 + pair, sides) & mask
                rv[o, 3] = h1(23 + pair, tokens[d, COARSE]) & mask
                rv[o, 4] = h1(24 + pair, tokens[m, COARSE]) & mask
                rv[o, 5] = h1(25 + pair, tokens[h, COARSE]) & mask
                rv[o, 6] = h3(26, tokens[m, COARSE], tokens[d, COARSE], tokens[h, COARSE]) & mask
                rv[o, 7] = h2(27, ld, tokens[m, WORD]) & mask
                rv[o, 8] = h1(28 + pair, distance(d - m)) & mask
                rv[o, 9] = h1(29 + pair, <uint64_t>(j if j < 3 else 3)) & mask
                rv[o, 10] = h1(30 + pair, labels[hv[d]]) & mask
                rv[o, 11] = h2(31 + pair, tokens[d, TAG], tokens[m, TAG]) & mask
                rv[o, 12] = h1(32 + pair, tokens[h, PREFIX]) & mask
                rv[o, 13] = h1(33 + pair, tokens[d, PREFIX]) & mask
                rv[o, 14] = h1(34 + pair, tokens[m, WORD]) & mask
                rv[o, 15] = h3(35, ld, tokens[h, PREFIX], sides) & mask
                rv[o, 16] = h2(36 + pair, tokens[h, PREFIX], tokens[d, PREFIX]) & mask
                rv[o, 17] = h1(37 + pair, lh) & mask
                rv[o, 18] = h1(38 + pair, distance(h - m)) & mask
                rv[o, 19] = h3(39 + pair, sides, tokens[m, COARSE], tokens[h, COARSE]) & mask
                o += 1
            i += 1
        sv[k] = o
    return words, starts, targets, rows


def best_options(const weight_t[::1] weights, const int64_t[:, ::1] rows, const int64_t[::1] starts):
    """Each word's best option and its margin over STAY.

    weights: float32 or float64 (size,); rows: int64 (options, T), -1 pads; starts: int64 (k + 1,) as
    `lowering_options` gives them.
    RETURNS (Tuple[np.ndarray, np.ndarray]): int64 (k,) the index of each word's best option (the first of
        equal scores, so STAY on ties) and float64 (k,) its score minus STAY's (0 when STAY is best).
    """
    cdef Py_ssize_t k = starts.shape[0] - 1, i, o, t
    if k < 0 or (k and (starts[0] != 0 or starts[k] != rows.shape[0])):
        raise ValueError("starts must run from 0 to the number of option rows")
    best = np.empty(max(k, 0), dtype=np.int64)
    margin = np.empty(max(k, 0), dtype=np.float64)
    cdef int64_t[::1] bv = best
    cdef double[::1] mv = margin
    cdef double score, top, stay
    cdef int64_t r
    cdef Py_ssize_t size = weights.shape[0]
    for i in range(k):
        for o in range(starts[i], starts[i + 1]):
            score = 0.0
            for t in range(rows.shape[1]):
                r = rows[o, t]
                if r >= 0:
                    if r >= size:
                        raise IndexError(f"feature row {r} outside a table of {size} weights")
                    score += weights[r]
            if o == starts[i]:
                stay = score
                top = score
                bv[i] = o
            elif score > top:
                top = score
                bv[i] = o
        mv[i] = top - stay
    return best, margin
