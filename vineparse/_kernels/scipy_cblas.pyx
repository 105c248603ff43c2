# distutils: language = c++
"""A thinc `CBlas` whose sgemm and saxpy are scipy's BLAS (`scipy.linalg.cython_blas`, the OpenBLAS that scipy
ships), for `vineparse.blas.ScipyBlasOps`. thinc's own `CBlas` calls blis, which falls back to its reference
kernels on CPUs its build does not recognise (seen on a virtualised AMD EPYC: 2.5x slower than OpenBLAS).

sgemm here has thinc's convention: row-major C (M, N) = alpha op(A) op(B) + beta C with leading dimensions
lda, ldb, ldc; Fortran BLAS is column-major, so it is called for C^T = op(B)^T op(A)^T.
"""
from scipy.linalg.cython_blas cimport saxpy as fortran_saxpy, sgemm as fortran_sgemm
from thinc.backends.cblas cimport CBlas, saxpy, set_saxpy, set_sgemm, sgemm

import numpy as np


cdef void row_major_sgemm(bint transA, bint transB, int M, int N, int K, float alpha, const float* A, int lda,
                          const float* B, int ldb, float beta, float* C, int ldc) noexcept nogil:
    cdef char trans_a = b"T" if transA else b"N"
    cdef char trans_b = b"T" if transB else b"N"
    fortran_sgemm(&trans_b, &trans_a, &N, &M, &K, &alpha, <float*>B, &ldb, <float*>A, &lda, &beta, C, &ldc)


cdef void strided_saxpy(int N, float alpha, const float* X, int incX, float* Y, int incY) noexcept nogil:
    fortran_saxpy(&N, &alpha, <float*>X, &incX, Y, &incY)


def scipy_cblas() -> CBlas:
    """A new `CBlas` with scipy's sgemm and saxpy (daxpy stays thinc's)."""
    cdef CBlas cblas = CBlas()
    set_sgemm(cblas, row_major_sgemm)
    set_saxpy(cblas, strided_saxpy)
    return cblas


def cblas_gemm(CBlas cblas, A, B, bint trans_a=False, bint trans_b=False):
    """op(A) @ op(B) through `cblas`'s sgemm, as thinc's C callers make it (float32 C-contiguous A, B; op is the
    transpose where asked). For tests: the function pointer is reachable only from C."""
    cdef float[:, ::1] a = np.ascontiguousarray(A, dtype=np.float32)
    cdef float[:, ::1] b = np.ascontiguousarray(B, dtype=np.float32)
    cdef int M = a.shape[1] if trans_a else a.shape[0]
    cdef int K = a.shape[0] if trans_a else a.shape[1]
    cdef int N = b.shape[0] if trans_b else b.shape[1]
    cdef int rows_b = b.shape[1] if trans_b else b.shape[0]
    if rows_b != K:
        raise ValueError(f"inner dimensions differ: op(A) is ({M}, {K}), op(B) has {rows_b} rows")
    cdef float[:, ::1] c = np.zeros((M, N), dtype=np.float32)
    if M and N and K:
        sgemm(cblas)(trans_a, trans_b, M, N, K, 1.0, &a[0, 0], a.shape[1], &b[0, 0], b.shape[1], 0.0, &c[0, 0],
                     N)
    return np.asarray(c)


def cblas_axpy(CBlas cblas, float alpha, X, Y):
    """Y + alpha X (float32 vectors of one length) through `cblas`'s saxpy. For tests."""
    cdef float[::1] x = np.ascontiguousarray(X, dtype=np.float32)
    cdef float[::1] y = np.array(Y, dtype=np.float32)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"X has {x.shape[0]} values, Y {y.shape[0]}")
    if x.shape[0]:
        saxpy(cblas)(x.shape[0], alpha, &x[0], 1, &y[0], 1)
    return np.asarray(y)
