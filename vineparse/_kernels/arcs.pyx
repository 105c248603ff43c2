# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Adjacency lists and part layouts of the arcs a mask allows (see arcs.pxd).

Shared by every Eisner grammar so that all of them, and the code that scores
their parts, agree on one order of arcs and parts. Building it is O(n^2) for
reading the mask plus O(arcs + parts).
"""
import numpy as np


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
        out = np.empty((self.n_arcs, 2), dtype=np.int64)
        cdef Py_ssize_t h, i
        for h in range(self.n + 1):
            for i in range(self.right_ptr[h], self.right_ptr[h + 1]):
                out[i] = (h, self.right[i])
            for i in range(self.left_ptr[h], self.left_ptr[h + 1]):
                out[self.n_right + i] = (h, self.left[i])
        return out

    def _siblings(self, Py_ssize_t h, Py_ssize_t arc):
        """The sibling slots of an arc of h: [h, inner siblings closest first]."""
        if arc < self.n_right:
            start, j = self.right_ptr[h], arc - self.right_ptr[h]
            return [h] + [self.right[start + k] for k in range(j)]
        start, j = self.left_ptr[h], arc - self.n_right - self.left_ptr[h]
        return [h] + [self.left[start + k] for k in range(j)]

    def sibling_parts(self):
        """(P, 3) int64 array of sibling parts (h, s, m) in layout order; s == h for a first child."""
        rows = []
        for arc, (h, m) in enumerate(self.arcs()):
            rows.extend((h, s, m) for s in self._siblings(h, arc))
        return np.array(rows, dtype=np.int64).reshape(-1, 3)

    def grandparent_parts(self):
        """(G, 3) int64 array of grandparent parts (g, h, m) in layout order."""
        rows = []
        for h, m in self.arcs():
            rows.extend((self.heads[i], h, m) for i in range(self.head_ptr[h], self.head_ptr[h + 1]))
        return np.array(rows, dtype=np.int64).reshape(-1, 3)

    def grand_sibling_parts(self):
        """(Q, 4) int64 array of grand-sibling parts (g, h, s, m) in layout order."""
        rows = []
        for arc, (h, m) in enumerate(self.arcs()):
            siblings = self._siblings(h, arc)
            for i in range(self.head_ptr[h], self.head_ptr[h + 1]):
                rows.extend((self.heads[i], h, s, m) for s in siblings)
        return np.array(rows, dtype=np.int64).reshape(-1, 4)

    @property
    def n_sibling_parts(self):
        return self.sib_ptr[self.n_arcs]

    @property
    def n_grandparent_parts(self):
        return self.grand_ptr[self.n_arcs]

    @property
    def n_grand_sibling_parts(self):
        return self.gsib_ptr[self.n_arcs]
