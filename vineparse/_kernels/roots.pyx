# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Which words prefer the root: the test before a doc without boundaries is cut.

Word m (1 <= m <= n) prefers the root when s(0, m) > s(h, m) + margin for every head h != m with
1 <= h <= n and |h - m| <= window. A doc is cut only between two such words (`pipeline/splitting.py`), so a
sentence with fewer than two needs no vine pass. `prefers_root` answers for chosen words of one sentence,
`root_counts` counts them in every sentence of a batch in one call. Time O(min(n, window)) per word.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t

import numpy as np


cdef bint prefers(const double[:, ::1] s, Py_ssize_t m, Py_ssize_t window, double margin) noexcept nogil:
    cdef Py_ssize_t n = s.shape[0] - 1, h
    cdef double best = -INFINITY
    for h in range(max(1, m - window), min(n, m + window) + 1):
        if h != m and s[h, m] > best:
            best = s[h, m]
    return s[0, m] > best + margin


cdef const double[:, ::1] checked_scores(array, Py_ssize_t window, str name):
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    cdef const double[:, ::1] s = array
    if s.shape[0] != s.shape[1] or s.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n + 1, n + 1), got {np.shape(array)}")
    return s


def prefers_root(scores, words, Py_ssize_t window, double margin):
    """For each word m of `words` (int, 1..n): does it prefer the root? scores: float64 C-contiguous
    (n + 1, n + 1) arc scores [h, m] (row and column 0: the root); window >= 1. RETURNS bool (len(words),).
    Raises ValueError on a score array that is not square or a word outside 1..n."""
    cdef const double[:, ::1] s = checked_scores(scores, window, "scores")
    cdef const int64_t[::1] w = np.ascontiguousarray(words, dtype=np.int64)
    cdef Py_ssize_t i, n = s.shape[0] - 1
    out = np.zeros(w.shape[0], dtype=bool)
    cdef unsigned char[::1] result = out.view(np.uint8)
    for i in range(w.shape[0]):
        if not 1 <= w[i] <= n:
            raise ValueError(f"word {w[i]} is outside 1..{n}")
        result[i] = prefers(s, w[i], window, margin)
    return out


def root_counts(scores, Py_ssize_t window, double margin):
    """Per sentence, the number of its words that prefer the root. scores: a sequence of arc score arrays as
    `prefers_root` takes them. RETURNS int64 (len(scores),). Raises ValueError on a score array that is not
    square."""
    counts = np.zeros(len(scores), dtype=np.int64)
    cdef int64_t[::1] out = counts
    cdef const double[:, ::1] s
    cdef Py_ssize_t i, m
    for i, array in enumerate(scores):
        s = checked_scores(array, window, f"scores[{i}]")
        for m in range(1, s.shape[0]):
            out[i] += prefers(s, m, window, margin)
    return counts
