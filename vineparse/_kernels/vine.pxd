# cython: language_level=3
"""Vine parsing (Eisner & Smith 2005; Rush & Petrov 2012) on the shared engine; see vine.pyx.

C API (`noexcept nogil`, STATUS_* codes of memory.pxd):

    cdef Vine v = Vine()                                   # once per thread, with the GIL
    with nogil:
        status = v.reset(n, band, scores, n + 1, outer, 2, mask, n + 1, outer_mask, 2)
        # scores (n + 1) x (n + 1) (only the band and the root row are read), outer (n + 1) x 2;
        # mask / outer_mask uint8 or NULL (all allowed). The entries read are checked:
        # STATUS_BAD_SCORE names the first bad one in bad_in_outer, bad_i, bad_j.
        status = v.best_vine(&score, heads, attach)                 # int64_t[n + 1], signed char[n + 1]
        status = v.max_marginals_vine(&best, arc_mm, n + 1, outer_mm)  # outer_mm (n + 1) x 2
        status = v.marginals_vine(&log_z, arc_marg, n + 1, outer_marg)

The generic runs of hypergraph.pxd work too (heads: 0 for vine words); after one,
read_attach / read_outer read the attachments / outer-label values from `q`.
"""
from libc.stdint cimport int64_t
from .hypergraph cimport Hypergraph


cdef class Vine(Hypergraph):
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t band
    cdef readonly size_t bytes_needed
    cdef readonly int bad_in_outer
    cdef readonly Py_ssize_t bad_i, bad_j
    cdef Py_ssize_t N, block, vine_base
    cdef double* doubles
    cdef int* ints
    cdef int* order_buf
    cdef size_t doubles_cap, ints_cap, order_cap
    cdef double* arcs           # [h * 2b + d - 1]: h -> h + d; [h * 2b + b + d - 1]: h -> h - d
    cdef double* root
    cdef double* outer          # [2 m + side]
    # Allowed short arcs, closest first, b per row: right modifiers of h, left
    # modifiers of h, and left heads of m (p < m with p -> m).
    cdef int* right
    cdef int* left
    cdef int* lheads
    cdef int* n_right
    cdef int* n_left
    cdef int* n_lheads

    cdef int reset(self, Py_ssize_t n, Py_ssize_t band, const double* scores, Py_ssize_t stride,
                   const double* outer, Py_ssize_t outer_stride, const unsigned char* mask,
                   Py_ssize_t mask_stride, const unsigned char* outer_mask,
                   Py_ssize_t outer_mask_stride) noexcept nogil
    cdef int best_vine(self, double* score, int64_t* heads, signed char* attach) noexcept nogil
    cdef int max_marginals_vine(self, double* best, double* arc_mm, Py_ssize_t stride,
                                double* outer_mm) noexcept nogil
    cdef int marginals_vine(self, double* log_z, double* arc_marg, Py_ssize_t stride,
                            double* outer_marg) noexcept nogil
    cdef void read_attach(self, const double* q, signed char* attach) noexcept nogil
    cdef void read_outer(self, const double* q, double* out, double fill) noexcept nogil

    cdef int _read(self, const double* scores, Py_ssize_t stride, const double* outer,
                   Py_ssize_t outer_stride, const unsigned char* mask, Py_ssize_t mask_stride,
                   const unsigned char* outer_mask, Py_ssize_t outer_mask_stride) noexcept nogil
    cdef int _report(self, int in_outer, Py_ssize_t i, Py_ssize_t j) noexcept nogil
    cdef void _index(self) noexcept nogil
    cdef int item_J(self, Py_ssize_t s, Py_ssize_t t) noexcept nogil
    cdef int item_I(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil
    cdef int item_C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil
    cdef int Lsp(self, Py_ssize_t x) noexcept nogil
    cdef int Label(self, Py_ssize_t x, Py_ssize_t label) noexcept nogil
    cdef int V(self, Py_ssize_t x) noexcept nogil
    cdef bint offered(self, Py_ssize_t x, Py_ssize_t label) noexcept nogil
    cdef double arc(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil
    cdef bint has_c(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil
    cdef Py_ssize_t _schedule(self) noexcept nogil
