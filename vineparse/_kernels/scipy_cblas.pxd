# cython: language_level=3
"""Row-major sgemm on scipy's BLAS (scipy_cblas.pyx) for C callers: C (M, N) = alpha op(A) op(B) + beta C."""

cdef void row_major_sgemm(bint transA, bint transB, int M, int N, int K, float alpha, const float* A, int lda,
                          const float* B, int ldb, float beta, float* C, int ldc) noexcept nogil
