# cython: language_level=3
"""First-order projective parsing (Eisner 1996) on the shared engine; see eisner.pyx.

C API (`noexcept nogil`, STATUS_* codes of memory.pxd; the runs are those of
hypergraph.pxd: best, max_marginals, marginals, sample):

    cdef FirstOrder g = FirstOrder()                       # once per thread, with the GIL
    with nogil:
        status = g.reset(n, scores, n + 1, allowed, n + 1, single_root)
        # scores: float64 (n + 1) x (n + 1), row stride `stride`, read until the next reset;
        # allowed: uint8, row stride `allowed_stride`, or NULL for every arc; arcs scored -inf
        # are not allowed either. The root column and the diagonal never are.
        status = g.best(&score, heads)                     # int64_t heads[n + 1]

The scores are not checked here (see memory.check_scores): NaN or +inf give
undefined results. `engine` (ENGINE_AUTO by default) chooses between dense charts
and the hypergraph engine at each reset; `dense` says which the last reset took.
The results are the same either way.
"""
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex
from .eisner_dense cimport DenseCharts

cdef enum:
    ENGINE_AUTO = 0             # dense charts when the mask keeps enough arcs (see eisner.pyx)
    ENGINE_DENSE = 1            # dense charts, contiguous SIMD scans (eisner_dense.pyx)
    ENGINE_HYPERGRAPH = 2       # the shared engine; work follows the mask
    CHART_MAX = 0
    CHART_LOG = 1
    CHART_REAL = 2


cdef class FirstOrder(Hypergraph):
    cdef readonly ArcIndex arcs
    cdef readonly bint single_root
    cdef readonly Py_ssize_t n
    cdef const double* scores
    cdef Py_ssize_t stride
    cdef Py_ssize_t N
    cdef unsigned char* mask_buf
    cdef size_t mask_cap
    cdef int* order_buf
    cdef size_t order_cap
    cdef readonly size_t bytes_needed
    cdef public int engine
    cdef readonly bint dense
    cdef double* dense_buf
    cdef size_t dense_cap
    cdef DenseCharts charts
    cdef int chart                  # what the dense inside charts hold: CHART_MAX, CHART_LOG or CHART_REAL

    cdef int reset(self, Py_ssize_t n, const double* scores, Py_ssize_t stride,
                   const unsigned char* allowed, Py_ssize_t allowed_stride, bint single_root) noexcept nogil
    cdef bint _real_inside(self, double* log_z) noexcept nogil
    cdef int _reset_dense(self) noexcept nogil
    cdef int _reset_hypergraph(self) noexcept nogil
    cdef Py_ssize_t _schedule(self) noexcept nogil
