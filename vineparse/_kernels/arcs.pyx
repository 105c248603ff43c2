# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Adjacency lists and part layouts of the arcs a mask allows (see arcs.pxd).

Shared by every Eisner grammar so that all of them, and the code that scores
their parts, agree on one order of arcs and parts. Resetting it is O(n^2) for
reading the mask plus O(arcs); listing parts is O(parts). Its buffers grow with
the largest sentence seen and are reused.
"""
import numpy as np
from libc.stdint cimport int64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from .memory cimport grow_many, memory_limit, STATUS_OK, STATUS_OUT_OF_MEMORY, STATUS_TOO_LARGE
from .memory import check_status


cdef class ArcIndex:

    def __init__(self, allowed=None):
        """allowed: uint8 or bool array (n + 1, n + 1), allowed[h, m] (the diagonal
        and the root column are cleared); None gives an empty index to reset later."""
        self.n = -1
        if allowed is None:
            return
        cdef const unsigned char[:, ::1] a = np.ascontiguousarray(allowed).view(np.uint8)
        if a.shape[0] != a.shape[1] or a.shape[0] < 1:
            raise ValueError(f"allowed must have shape (n + 1, n + 1), got {np.shape(allowed)}")
        cdef int status
        with nogil:
            status = self.reset(a.shape[0] - 1, &a[0, 0], a.shape[0])
        check_status(status, self.bytes_needed)

    def __dealloc__(self):
        free(self.allowed); free(self.arc_id); free(self.head_slot)
        free(self.right_ptr); free(self.left_ptr); free(self.head_ptr)
        free(self.right); free(self.left); free(self.heads)
        free(self.arc_head); free(self.arc_mod); free(self.arc_pos); free(self.arc_mslot)
        free(self.sib_ptr); free(self.grand_ptr); free(self.gsib_ptr)

    cdef int reset(self, Py_ssize_t n, const unsigned char* allowed, Py_ssize_t stride) noexcept nogil:
        """Index the arcs of `allowed` (row stride `stride`; NULL: every arc) for a
        sentence of n words. RETURNS a STATUS_* code; on an error the index is empty."""
        cdef Py_ssize_t N = n + 1, h, m, i, j, arc
        cdef int64_t count
        cdef size_t square, arcs
        cdef void** bufs[10]
        cdef size_t sizes[10]
        self.n, self.n_arcs, self.n_right = -1, 0, 0
        self.n_sibling_parts = self.n_grandparent_parts = self.n_grand_sibling_parts = 0
        square = <size_t>N * <size_t>N
        self.bytes_needed = square * (1 + 2 * sizeof(int)) + 3 * (N + 1) * sizeof(int)
        if N > MAX_POSITIONS or self.bytes_needed > memory_limit():
            return STATUS_TOO_LARGE
        bufs[0], sizes[0] = <void**>&self.allowed, 1
        bufs[1], sizes[1] = <void**>&self.arc_id, sizeof(int)
        bufs[2], sizes[2] = <void**>&self.head_slot, sizeof(int)
        if grow_many(&self.cap_square, square, bufs, sizes, 3) != 0:
            return STATUS_OUT_OF_MEMORY
        bufs[0], sizes[0] = <void**>&self.right_ptr, sizeof(int)
        bufs[1], sizes[1] = <void**>&self.left_ptr, sizeof(int)
        bufs[2], sizes[2] = <void**>&self.head_ptr, sizeof(int)
        if grow_many(&self.cap_ptr, N + 1, bufs, sizes, 3) != 0:
            return STATUS_OUT_OF_MEMORY
        # the mask without the diagonal and the root column; counts per head side and per modifier
        cdef unsigned char* a = self.allowed
        cdef int* rptr = self.right_ptr
        cdef int* lptr = self.left_ptr
        cdef int* hptr = self.head_ptr
        for h in range(N):
            if allowed == NULL:
                memset(&a[h * N], 1, N)
            else:
                memcpy(&a[h * N], &allowed[h * stride], N)
            a[h * N] = 0
            a[h * N + h] = 0
        memset(hptr, 0, (N + 1) * sizeof(int))
        rptr[0] = lptr[0] = 0
        for h in range(N):
            i = 0
            for m in range(1, h):
                i += a[h * N + m] != 0
                hptr[m + 1] += a[h * N + m] != 0
            lptr[h + 1] = lptr[h] + <int>i
            i = 0
            for m in range(h + 1, N):
                i += a[h * N + m] != 0
                hptr[m + 1] += a[h * N + m] != 0
            rptr[h + 1] = rptr[h] + <int>i
        for m in range(N):
            hptr[m + 1] += hptr[m]
        arcs = <size_t>(rptr[N] + lptr[N])
        self.bytes_needed += arcs * (9 * sizeof(int) + 3 * sizeof(int64_t)) + 3 * sizeof(int64_t)
        if self.bytes_needed > memory_limit():
            return STATUS_TOO_LARGE
        bufs[0], sizes[0] = <void**>&self.right, sizeof(int)
        bufs[1], sizes[1] = <void**>&self.left, sizeof(int)
        bufs[2], sizes[2] = <void**>&self.heads, sizeof(int)
        bufs[3], sizes[3] = <void**>&self.arc_head, sizeof(int)
        bufs[4], sizes[4] = <void**>&self.arc_mod, sizeof(int)
        bufs[5], sizes[5] = <void**>&self.arc_pos, sizeof(int)
        bufs[6], sizes[6] = <void**>&self.arc_mslot, sizeof(int)
        bufs[7], sizes[7] = <void**>&self.sib_ptr, sizeof(int64_t)
        bufs[8], sizes[8] = <void**>&self.grand_ptr, sizeof(int64_t)
        bufs[9], sizes[9] = <void**>&self.gsib_ptr, sizeof(int64_t)
        if grow_many(&self.cap_arcs, arcs + 1, bufs, sizes, 10) != 0:
            return STATUS_OUT_OF_MEMORY
        self.n_right = rptr[N]
        self.n_arcs = <Py_ssize_t>arcs
        # adjacency lists, arc ids (closest modifier first on each side)
        cdef int* arc_id = self.arc_id
        cdef int* head_slot = self.head_slot
        for h in range(N):
            i = rptr[h]
            for m in range(N):
                arc_id[h * N + m] = -1
                head_slot[h * N + m] = -1
            for m in range(h + 1, N):
                if a[h * N + m]:
                    self.right[i] = <int>m
                    arc_id[h * N + m] = <int>i
                    self.arc_head[i], self.arc_mod[i], self.arc_pos[i] = <int>h, <int>m, <int>(i - rptr[h])
                    i += 1
            i = lptr[h]
            for m in range(h - 1, 0, -1):
                if a[h * N + m]:
                    self.left[i] = <int>m
                    arc = self.n_right + i
                    arc_id[h * N + m] = <int>arc
                    self.arc_head[arc], self.arc_mod[arc], self.arc_pos[arc] = <int>h, <int>m, <int>(i - lptr[h])
                    i += 1
        self.max_heads = 1
        for m in range(1, N):
            i = hptr[m]
            for h in range(N):
                if a[h * N + m]:
                    self.heads[i] = <int>h
                    head_slot[h * N + m] = <int>(i - hptr[m])
                    i += 1
            if hptr[m + 1] - hptr[m] > self.max_heads:
                self.max_heads = hptr[m + 1] - hptr[m]
        for arc in range(self.n_arcs):
            self.arc_mslot[arc] = head_slot[self.arc_head[arc] * N + self.arc_mod[arc]]
        # part offsets, int64: arcs in id order (right arcs of every head, then left arcs)
        self.sib_ptr[0] = self.grand_ptr[0] = self.gsib_ptr[0] = 0
        for arc in range(self.n_arcs):
            h, j = self.arc_head[arc], self.arc_pos[arc]
            count = hptr[h + 1] - hptr[h]          # allowed grandparents (0 for the root)
            self.sib_ptr[arc + 1] = self.sib_ptr[arc] + j + 1
            self.grand_ptr[arc + 1] = self.grand_ptr[arc] + count
            self.gsib_ptr[arc + 1] = self.gsib_ptr[arc] + count * (j + 1)
        self.n_sibling_parts = self.sib_ptr[self.n_arcs]
        self.n_grandparent_parts = self.grand_ptr[self.n_arcs]
        self.n_grand_sibling_parts = self.gsib_ptr[self.n_arcs]
        self.n = n
        return STATUS_OK

    cdef void sibling_parts_into(self, int64_t* rows) noexcept nogil:
        """Rows (h, s, m) of the sibling parts in layout order; s == h for a first child."""
        cdef Py_ssize_t arc, k, first
        cdef int64_t row = 0
        cdef const int* mods
        for arc in range(self.n_arcs):
            mods = self.right if arc < self.n_right else self.left
            first = (arc if arc < self.n_right else arc - self.n_right) - self.arc_pos[arc]
            for k in range(self.arc_pos[arc] + 1):
                rows[3 * row] = self.arc_head[arc]
                rows[3 * row + 1] = self.arc_head[arc] if k == 0 else mods[first + k - 1]
                rows[3 * row + 2] = self.arc_mod[arc]
                row += 1

    cdef void grandparent_parts_into(self, int64_t* rows) noexcept nogil:
        """Rows (g, h, m) of the grandparent parts in layout order."""
        cdef Py_ssize_t arc, i, h
        cdef int64_t row = 0
        for arc in range(self.n_arcs):
            h = self.arc_head[arc]
            for i in range(self.head_ptr[h], self.head_ptr[h + 1]):
                rows[3 * row] = self.heads[i]
                rows[3 * row + 1] = h
                rows[3 * row + 2] = self.arc_mod[arc]
                row += 1

    cdef void grand_sibling_parts_into(self, int64_t* rows) noexcept nogil:
        """Rows (g, h, s, m) of the grand-sibling parts in layout order."""
        cdef Py_ssize_t arc, i, k, h, first
        cdef int64_t row = 0
        cdef const int* mods
        for arc in range(self.n_arcs):
            h = self.arc_head[arc]
            mods = self.right if arc < self.n_right else self.left
            first = (arc if arc < self.n_right else arc - self.n_right) - self.arc_pos[arc]
            for i in range(self.head_ptr[h], self.head_ptr[h + 1]):
                for k in range(self.arc_pos[arc] + 1):
                    rows[4 * row] = self.heads[i]
                    rows[4 * row + 1] = h
                    rows[4 * row + 2] = h if k == 0 else mods[first + k - 1]
                    rows[4 * row + 3] = self.arc_mod[arc]
                    row += 1

    # -- Python views ---------------------------------------------------------

    def arcs(self):
        """(n_arcs, 2) int64 array of (h, m) in arc-id order."""
        out = np.empty((self.n_arcs, 2), dtype=np.int64)
        cdef int64_t[:, ::1] o = out
        cdef Py_ssize_t a
        for a in range(self.n_arcs):
            o[a, 0] = self.arc_head[a]
            o[a, 1] = self.arc_mod[a]
        return out

    def sibling_parts(self):
        """(P, 3) int64 array of sibling parts (h, s, m) in layout order; s == h for a first child."""
        out = _rows(self.n_sibling_parts, 3, self.bytes_needed)
        cdef int64_t[:, ::1] o = out
        if o.shape[0]:
            with nogil:
                self.sibling_parts_into(&o[0, 0])
        return out

    def grandparent_parts(self):
        """(G, 3) int64 array of grandparent parts (g, h, m) in layout order."""
        out = _rows(self.n_grandparent_parts, 3, self.bytes_needed)
        cdef int64_t[:, ::1] o = out
        if o.shape[0]:
            with nogil:
                self.grandparent_parts_into(&o[0, 0])
        return out

    def grand_sibling_parts(self):
        """(Q, 4) int64 array of grand-sibling parts (g, h, s, m) in layout order."""
        out = _rows(self.n_grand_sibling_parts, 4, self.bytes_needed)
        cdef int64_t[:, ::1] o = out
        if o.shape[0]:
            with nogil:
                self.grand_sibling_parts_into(&o[0, 0])
        return out

    def allowed_mask(self):
        """The indexed mask as a bool (n + 1, n + 1) array (a copy)."""
        cdef Py_ssize_t N = self.n + 1
        out = np.zeros((max(N, 0), max(N, 0)), dtype=np.uint8)
        cdef unsigned char[:, ::1] o = out
        if N > 0:
            memcpy(&o[0, 0], self.allowed, N * N)
        return out.view(bool)


def _rows(int64_t count, int width, size_t index_bytes):
    """An empty int64 (count, width) array, after checking it against the memory limit."""
    cdef size_t need = <size_t>count * width * sizeof(int64_t)
    if need + index_bytes > memory_limit():
        check_status(STATUS_TOO_LARGE, need + index_bytes)
    return np.empty((count, width), dtype=np.int64)
