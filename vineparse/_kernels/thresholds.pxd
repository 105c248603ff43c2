# cython: language_level=3
"""Max-marginal thresholds (thresholds.pyx) for the compiled cascade runtime."""
from libc.stdint cimport uint8_t

cdef double threshold_of(double best, const double* values, Py_ssize_t count, const double* more,
                         Py_ssize_t more_count, double alpha) noexcept nogil
cdef void cap_heads(Py_ssize_t N, const double* mm, int cap, double* column, uint8_t* mask) noexcept nogil
cdef void eisner_prune(Py_ssize_t N, double best, const double* mm, double alpha, int cap, double* column,
                       uint8_t* out) noexcept nogil
cdef void vine_prune(Py_ssize_t N, double best, const double* arc_mm, const double* outer_mm, double alpha,
                     Py_ssize_t band, uint8_t* out) noexcept nogil
cdef void local_max_marginals(Py_ssize_t N, const double* scores, double* column, double* best,
                              double* mm) noexcept nogil
