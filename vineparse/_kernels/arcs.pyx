# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Adjacency lists and part layouts of the arcs a mask allows (see arcs.pxd).

Shared by every Eisner grammar so that all of them, and the code that scores
their parts, agree on one order of arcs and parts. Building it is O(n^2) for
reading the mask plus O(arcs + parts).
"""
import numpy as np
from libc.stdint cimport int64_t


cdef class ArcIndex:

    def __init__(self, allowed):
        """allowed: C-contiguous uint8 array (n + 1, n + 1), allowed[h, m]; the
        caller clears the diagonal and the root column."""
        cdef const unsigned char[:, ::1] a = allowed
        cdef Py_ssize_t N = a.shape[0], h, m, i, j, arc, count
        cdef int[::1] rptr = np.zeros(N + 1, dtype=np.int32)
        cdef int[::1] lptr = np.zeros(N + 1, dtype=np.int32)
        cdef int[::1] hptr = np.zeros(N + 1, dtype=np.int32)
        cdef int[::1] right, left, heads, sib_ptr, grand_ptr, gsib_ptr
        cdef int[:, ::1] arc_id = np.full((N, N), -1, dtype=np.int32)
        cdef int[:, ::1] head_slot = np.full((N, N), -1, dtype=np.int32)
        self.n = N - 1
        self.allowed = a
        for h in range(N):
            rptr[h + 1] = rptr[h]
            lptr[h + 1] = lptr[h]
            for m in range(1, N):
                if a[h, m]:
                    if m > h:
                        rptr[h + 1] += 1
                    else:
                        lptr[h + 1] += 1
                    hptr[m + 1] += 1
        for m in range(N):
            hptr[m + 1] += hptr[m]
        right = np.empty(rptr[N], dtype=np.int32)
        left = np.empty(lptr[N], dtype=np.int32)
        heads = np.empty(hptr[N], dtype=np.int32)
        self.n_right = rptr[N]
        self.n_arcs = rptr[N] + lptr[N]
        for h in range(N):
            i = rptr[h]
            for m in range(h + 1, N):
                if a[h, m]:
                    right[i] = m
                    arc_id[h, m] = i
                    i += 1
            i = lptr[h]
            for m in range(h - 1, 0, -1):
                if a[h, m]:
                    left[i] = m
                    arc_id[h, m] = self.n_right + i
                    i += 1
        self.max_heads = 1
        for m in range(1, N):
            i = hptr[m]
            for h in range(N):
                if a[h, m]:
                    heads[i] = h
                    head_slot[h, m] = i - hptr[m]
                    i += 1
            self.max_heads = max(self.max_heads, hptr[m + 1] - hptr[m])
        sib_ptr = np.empty(self.n_arcs + 1, dtype=np.int32)
        grand_ptr = np.empty(self.n_arcs + 1, dtype=np.int32)
        gsib_ptr = np.empty(self.n_arcs + 1, dtype=np.int32)
        sib_ptr[0] = grand_ptr[0] = gsib_ptr[0] = 0
        for h in range(N):
            count = hptr[h + 1] - hptr[h]          # allowed grandparents (0 for the root)
            for j in range(rptr[h + 1] - rptr[h]):
                arc = rptr[h] + j
                sib_ptr[arc + 1] = sib_ptr[arc] + j + 1
                grand_ptr[arc + 1] = grand_ptr[arc] + count
                gsib_ptr[arc + 1] = gsib_ptr[arc] + count * (j + 1)
        for h in range(N):
            count = hptr[h + 1] - hptr[h]
            for j in range(lptr[h + 1] - lptr[h]):
                arc = self.n_right + lptr[h] + j
                sib_ptr[arc + 1] = sib_ptr[arc] + j + 1
                grand_ptr[arc + 1] = grand_ptr[arc] + count
                gsib_ptr[arc + 1] = gsib_ptr[arc] + count * (j + 1)
        self.right_ptr, self.right, self.left_ptr, self.left = rptr, right, lptr, left
        self.head_ptr, self.heads, self.arc_id, self.head_slot = hptr, heads, arc_id, head_slot
        self.sib_ptr, self.grand_ptr, self.gsib_ptr = sib_ptr, grand_ptr, gsib_ptr

    def arcs(self):
        """(n_arcs, 2) int64 array of (h, m) in arc-id order."""
        cdef int64_t[:, ::1] out = np.empty((self.n_arcs, 2), dtype=np.int64)
        cdef Py_ssize_t h, i
        for h in range(self.n + 1):
            for i in range(self.right_ptr[h], self.right_ptr[h + 1]):
                out[i, 0] = h
                out[i, 1] = self.right[i]
            for i in range(self.left_ptr[h], self.left_ptr[h + 1]):
                out[self.n_right + i, 0] = h
                out[self.n_right + i, 1] = self.left[i]
        return np.asarray(out)

    cdef Py_ssize_t _side(self, Py_ssize_t arc, Py_ssize_t* h, Py_ssize_t* j) noexcept:
        """Set h to the head of `arc` and j to its position in h's list; return
        where that list starts in `right` (right arcs) or `left` (left arcs)."""
        cdef Py_ssize_t lo = 0, hi = self.n + 1, mid, base
        cdef bint is_right = arc < self.n_right
        cdef int[::1] ptr = self.right_ptr if is_right else self.left_ptr
        base = arc if is_right else arc - self.n_right
        while hi - lo > 1:                          # the last h with ptr[h] <= base
            mid = (lo + hi) // 2
            if ptr[mid] <= base:
                lo = mid
            else:
                hi = mid
        h[0] = lo
        j[0] = base - ptr[lo]
        return ptr[lo]

    def sibling_parts(self):
        """(P, 3) int64 array of sibling parts (h, s, m) in layout order; s == h for a first child."""
        cdef int64_t[:, ::1] out = np.empty((self.n_sibling_parts, 3), dtype=np.int64)
        cdef Py_ssize_t arc, h, j, k, start, row = 0
        cdef int[::1] mods
        for arc in range(self.n_arcs):
            start = self._side(arc, &h, &j)
            mods = self.right if arc < self.n_right else self.left
            for k in range(j + 1):
                out[row, 0] = h
                out[row, 1] = h if k == 0 else mods[start + k - 1]
                out[row, 2] = mods[start + j]
                row += 1
        return np.asarray(out)

    def grandparent_parts(self):
        """(G, 3) int64 array of grandparent parts (g, h, m) in layout order."""
        cdef int64_t[:, ::1] out = np.empty((self.n_grandparent_parts, 3), dtype=np.int64)
        cdef Py_ssize_t arc, h, j, i, start, row = 0
        for arc in range(self.n_arcs):
            start = self._side(arc, &h, &j)
            for i in range(self.head_ptr[h], self.head_ptr[h + 1]):
                out[row, 0] = self.heads[i]
                out[row, 1] = h
                out[row, 2] = (self.right if arc < self.n_right else self.left)[start + j]
                row += 1
        return np.asarray(out)

    def grand_sibling_parts(self):
        """(Q, 4) int64 array of grand-sibling parts (g, h, s, m) in layout order."""
        cdef int64_t[:, ::1] out = np.empty((self.n_grand_sibling_parts, 4), dtype=np.int64)
        cdef Py_ssize_t arc, h, j, i, k, start, row = 0
        cdef int[::1] mods
        for arc in range(self.n_arcs):
            start = self._side(arc, &h, &j)
            mods = self.right if arc < self.n_right else self.left
            for i in range(self.head_ptr[h], self.head_ptr[h + 1]):
                for k in range(j + 1):
                    out[row, 0] = self.heads[i]
                    out[row, 1] = h
                    out[row, 2] = h if k == 0 else mods[start + k - 1]
                    out[row, 3] = mods[start + j]
                    row += 1
        return np.asarray(out)

    @property
    def n_sibling_parts(self):
        return self.sib_ptr[self.n_arcs]

    @property
    def n_grandparent_parts(self):
        return self.grand_ptr[self.n_arcs]

    @property
    def n_grand_sibling_parts(self):
        return self.gsib_ptr[self.n_arcs]
