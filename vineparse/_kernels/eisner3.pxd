# cython: language_level=3
"""Third-order (grand-sibling) projective parsing on the shared engine; see eisner3.pyx.

C API (`noexcept nogil`, STATUS_* codes of memory.pxd; the runs are those of
hypergraph.pxd: best, max_marginals, marginals, sample). As for SecondOrder, the
caller resets the grammar's own ArcIndex with the layout mask, lists and scores
its parts, then resets the grammar:

    cdef ThirdOrder g = ThirdOrder()                       # once per thread, with the GIL
    with nogil:
        status = g.arcs.reset(n, allowed, n + 1)
        g.arcs.sibling_parts_into(sib_rows)                # (h, s, m)
        g.arcs.grandparent_parts_into(grand_rows)          # (g, h, m)
        g.arcs.grand_sibling_parts_into(gsib_rows)         # (g, h, s, m)
        ... score them into sib, grand, gsib (NULL: all zero) ...
        status = g.reset(scores, n + 1, sib, grand, gsib, single_root)   # read until the next reset
        status = g.max_marginals(&best, arc_mm, n + 1)

Arcs of the layout scored -inf stay in it (they cost work, never win); NaN or +inf
scores give undefined results (see memory.check_scores).
"""
from libc.stdint cimport int64_t
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex


cdef class ThirdOrder(Hypergraph):
    cdef readonly ArcIndex arcs
    cdef readonly bint single_root
    cdef readonly size_t bytes_needed
    cdef object _keep
    cdef const double* scores
    cdef Py_ssize_t stride
    cdef const double* sib
    cdef const double* grand
    cdef const double* gsib
    cdef bint has_sib, has_grand, has_gsib
    cdef Py_ssize_t N, H, shift, n_right, i_base, s_base     # H = 2 ** shift >= max_heads
    # views of the ArcIndex
    cdef const int* rptr
    cdef const int* right
    cdef const int* lptr
    cdef const int* left
    cdef const int* hptr
    cdef const int* heads
    cdef const int64_t* sib_ptr
    cdef const int64_t* grand_ptr
    cdef const int64_t* gsib_ptr
    cdef const int* arc_head
    cdef const int* arc_mod
    cdef const int* arc_pos
    cdef const int* arc_mslot
    # owned buffers and views into them
    cdef int* ints
    cdef int* runs
    cdef int* c_key
    cdef int* part_arc
    cdef int* order_buf
    cdef size_t ints_cap, runs_cap, c_key_cap, part_arc_cap, order_cap
    cdef int* first_right
    cdef int* first_left
    cdef int* reach_right
    cdef int* reach_left
    cdef int* start
    # The complete spans of h, slot and side (0: right of h, 1: left) have the
    # run key k = 2 * (h * H + slot) + side, the ends c_lo[k] .. c_hi[k] and the
    # ids c_base[k] + (e - c_lo[k]); c_key[id - 2] is the run key of an id.
    cdef int* c_lo
    cdef int* c_hi
    cdef int* c_base

    cdef int reset(self, const double* scores, Py_ssize_t stride, const double* sib, const double* grand,
                   const double* gsib, bint single_root) noexcept nogil
    cdef void _modifier_bounds(self) noexcept nogil
    cdef Py_ssize_t _complete_ranges(self) noexcept nogil
    cdef void _key_complete_items(self) noexcept nogil
    cdef int item_C(self, Py_ssize_t h, Py_ssize_t e, Py_ssize_t slot) noexcept nogil
    cdef int item_I(self, Py_ssize_t arc, Py_ssize_t slot) noexcept nogil
    cdef void _schedule(self) noexcept nogil
    cdef void _items(self, int* cursor, int* order) noexcept nogil
    cdef Py_ssize_t _complete(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil
    cdef double _part(self, Py_ssize_t h, int64_t sib_part, int64_t gsib_part) noexcept nogil
    cdef Py_ssize_t _incomplete(self, Py_ssize_t r, int* t1, int* t2, double* w) noexcept nogil
    cdef Py_ssize_t _siblings(self, Py_ssize_t p, int* t1, int* t2, double* w) noexcept nogil
