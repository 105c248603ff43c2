# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""How many words of each sentence prefer the root: the test before a doc without boundaries is cut.

Word m (1 <= m <= n) prefers the root when s(0, m) > s(h, m) + margin for every head h != m with
1 <= h <= n and |h - m| <= window (`pipeline/parts.SentenceScores.prefers_root` gives the same test word by
word). A doc is cut only between two such words (`pipeline/splitting.py`), so a sentence with fewer than two
needs no vine pass. `root_counts` takes a whole batch in one call. Time O(n min(n, window)) per sentence.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t

import numpy as np


cdef int64_t count_roots(const double[:, ::1] s, Py_ssize_t window, double margin) noexcept nogil:
    cdef Py_ssize_t n = s.shape[0] - 1, m, h
    cdef int64_t count = 0
    cdef double best
    for m in range(1, n + 1):
        best = -INFINITY
        for h in range(max(1, m - window), min(n, m + window) + 1):
            if h != m and s[h, m] > best:
                best = s[h, m]
        if s[0, m] > best + margin:
            count += 1
    return count


def root_counts(scores, Py_ssize_t window, double margin):
    """Per sentence, the number of its words that prefer the root. scores: a sequence of float64 C-contiguous
    (n + 1, n + 1) arc score arrays [h, m] (row and column 0: the root); window >= 1; margin >= 0.
    RETURNS int64 (len(scores),). Raises ValueError on a score array that is not square."""
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    counts = np.zeros(len(scores), dtype=np.int64)
    cdef int64_t[::1] out = counts
    cdef const double[:, ::1] s
    cdef Py_ssize_t i
    for i, array in enumerate(scores):
        s = array
        if s.shape[0] != s.shape[1] or s.shape[0] < 1:
            raise ValueError(f"scores[{i}] must have shape (n + 1, n + 1), got {np.shape(array)}")
        out[i] = count_roots(s, window, margin)
    return counts
