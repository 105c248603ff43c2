# cython: language_level=3
"""Second-order (sibling) projective parsing on the shared engine; see eisner2.pyx.

C API (`noexcept nogil`, STATUS_* codes of memory.pxd; the runs are those of
hypergraph.pxd: best, max_marginals, marginals, sample). The part layout is fixed
by the grammar's own ArcIndex, which the caller resets first and lists the parts
of, so that it scores exactly those:

    cdef SecondOrder g = SecondOrder()                     # once per thread, with the GIL
    with nogil:
        status = g.arcs.reset(n, allowed, n + 1)           # the layout mask (NULL: every arc)
        g.arcs.sibling_parts_into(rows)                    # n_sibling_parts rows (h, s, m)
        ... score the rows into sib[0:g.arcs.n_sibling_parts] ...
        status = g.reset(scores, n + 1, sib, single_root)  # both read until the next reset
        status = g.best(&score, heads)

Arcs of the layout scored -inf stay in it (they cost work, never win); NaN or +inf
scores give undefined results (see memory.check_scores).
"""
from libc.stdint cimport int64_t, uint64_t
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex


cdef class SecondOrder(Hypergraph):
    cdef readonly ArcIndex arcs
    cdef readonly bint single_root
    cdef public bint prune_spans
    cdef readonly Py_ssize_t i_base
    cdef readonly Py_ssize_t s_base
    cdef readonly Py_ssize_t n_pairs
    cdef readonly size_t bytes_needed
    cdef object _keep
    cdef const double* scores
    cdef Py_ssize_t stride
    cdef const double* sib
    cdef Py_ssize_t N, W
    # views of the ArcIndex, for the edge lists
    cdef const unsigned char* allowed
    cdef const int* right_ptr
    cdef const int* right
    cdef const int* left_ptr
    cdef const int* left
    cdef const int64_t* sib_ptr
    cdef const int* arc_head
    cdef const int* arc_mod
    cdef Py_ssize_t n_right
    # owned buffers and the views into them
    cdef int* ints
    cdef uint64_t* bits
    cdef int* table
    cdef int* c_span
    cdef int* order_buf
    cdef size_t ints_cap, bits_cap, table_cap, c_span_cap, order_cap
    cdef int* first_right       # closest right modifier of h (N if none)
    cdef int* first_left        # closest left modifier of h (0 if none)
    cdef int* pair_a
    cdef int* pair_b
    cdef int* pair_item         # [a * N + b]: the number of pair (a, b), written for pairs only
    cdef int* c_item            # [h * N + e]: the item C[h, e]; 0 on the diagonal, DEAD if unscheduled
    cdef int* c_head            # head and end of C item 2 + i
    cdef int* c_end

    cdef int reset(self, const double* scores, Py_ssize_t stride, const double* sib,
                   bint single_root) noexcept nogil
    cdef void _first_modifiers(self) noexcept nogil
    cdef void _pair_siblings(self, uint64_t* right_set, uint64_t* left_set, uint64_t* partners) noexcept nogil
    cdef void _useful_spans(self, uint64_t* rf, uint64_t* lf, uint64_t* need_r, uint64_t* need_l,
                            int* work) noexcept nogil
    cdef bint _pair_used(self, Py_ssize_t a, Py_ssize_t b, const int* hi_r, const int* lo_l) noexcept nogil
    cdef void _all_spans(self, uint64_t* need_r, uint64_t* need_l) noexcept nogil
    cdef int _schedule(self, const uint64_t* need_r, const uint64_t* need_l, int* start) noexcept nogil
    cdef int item_C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil
    cdef Py_ssize_t _split(self, Py_ssize_t a, Py_ssize_t b, Py_ssize_t r, int* t1, int* t2,
                           double* w, Py_ssize_t n_out) noexcept nogil
