# cython: language_level=3
"""Dense first-order Eisner over charts stored by span width (see eisner_dense.pyx);
FirstOrder (eisner.pxd) runs it behind its usual C API when the mask keeps most arcs."""
from libc.stdint cimport int64_t
from .semiring cimport MaxSemiring, LogSemiring, PathSemiring, SampleSemiring, RealSemiring, RealSampleSemiring

ctypedef fused DenseInside:
    MaxSemiring
    LogSemiring
    RealSemiring

ctypedef fused DenseBackward:
    MaxSemiring
    LogSemiring
    PathSemiring
    SampleSemiring
    RealSemiring
    RealSampleSemiring


cdef struct DenseCharts:
    # Every chart is (n + 1) x (n + 1), row w (the span width) holding the spans
    # [s, s + w] side by side at column s (the "lanes" of that width).
    Py_ssize_t N                # positions 0..n
    bint single_root
    double* sr                  # [w * N + s]: score of the arc s -> s + w (-inf where not allowed)
    double* sl                  # [w * N + s]: score of the arc s + w -> s
    double* wr                  # exp(score - shift of its modifier), for the Real semiring
    double* wl
    double shift                # sum over the modifiers of their best arc score (Real semiring)
    double* jw                  # J[s, s + w]
    double* irw                 # I[s, s + w] (arc s -> s + w)
    double* ilw                 # I[s + w, s] (arc s + w -> s)
    double* crw                 # C[s, s + w] (head s)
    double* clw                 # C[s + w, s] (head s + w)
    double* qir                 # backward quantities of irw, ilw, crw, clw
    double* qil
    double* qcr
    double* qcl
    double* lane1               # scratch, N doubles each
    double* lane2
    double* lane3

cdef enum:
    DENSE_ARRAYS = 13           # N x N arrays in a DenseCharts (plus 3 N scratch doubles)

cdef void dense_point(DenseCharts* d, double* memory, Py_ssize_t N, bint single_root) noexcept nogil
cdef void dense_scores(DenseCharts* d, const double* scores, Py_ssize_t stride,
                       const unsigned char* allowed) noexcept nogil
cdef bint dense_weights(DenseCharts* d) noexcept nogil
cdef bint real_is_safe(const DenseCharts* d, double z) noexcept nogil
cdef double dense_inside(DenseInside* sr, DenseCharts* d) noexcept nogil
cdef void dense_backward(DenseBackward* sr, DenseCharts* d) noexcept nogil
cdef void dense_heads(const DenseCharts* d, int64_t* heads) noexcept nogil
cdef void dense_arcs(const DenseCharts* d, const unsigned char* allowed, double* out, Py_ssize_t stride,
                     double fill) noexcept nogil
