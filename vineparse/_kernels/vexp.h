/* Batched exp for the Log semiring: glibc's vector math library (libmvec),
 * four lanes with AVX2 when the CPU has it (checked once at run time), else
 * two lanes with SSE; the scalar libm loop on other platforms. */
#ifndef VINEPARSE_VEXP_H
#define VINEPARSE_VEXP_H
#include <math.h>
#include <stddef.h>

#if defined(VINEPARSE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>
__m128d _ZGVbN2v_exp(__m128d);
__m256d _ZGVdN4v_exp(__m256d);

static int vexp_avx2 = -1;

static inline int vexp_use_avx2(void) {
    if (vexp_avx2 < 0) vexp_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    return vexp_avx2;
}

__attribute__((target("avx2")))
static double vexp_sum_avx2(const double* x, Py_ssize_t n, double shift) {
    __m256d acc = _mm256_setzero_pd(), s = _mm256_set1_pd(shift);
    __m128d half;
    Py_ssize_t i = 0;
    double total;
    for (; i + 3 < n; i += 4)
        acc = _mm256_add_pd(acc, _ZGVdN4v_exp(_mm256_sub_pd(_mm256_loadu_pd(x + i), s)));
    half = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd(acc, 1));
    total = _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
    for (; i < n; i++) total += exp(x[i] - shift);
    return total;
}

__attribute__((target("avx2")))
static void vexp_inplace_avx2(double* x, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 3 < n; i += 4)
        _mm256_storeu_pd(x + i, _ZGVdN4v_exp(_mm256_loadu_pd(x + i)));
    for (; i < n; i++) x[i] = exp(x[i]);
}

/* sum_i exp(x[i] - shift) */
static inline double vexp_sum(const double* x, Py_ssize_t n, double shift) {
    __m128d acc = _mm_setzero_pd(), s = _mm_set1_pd(shift);
    Py_ssize_t i = 0;
    double total;
    if (n >= 8 && vexp_use_avx2()) return vexp_sum_avx2(x, n, shift);
    for (; i + 1 < n; i += 2)
        acc = _mm_add_pd(acc, _ZGVbN2v_exp(_mm_sub_pd(_mm_loadu_pd(x + i), s)));
    total = _mm_cvtsd_f64(acc) + _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
    if (i < n) total += exp(x[i] - shift);
    return total;
}

/* x[i] = exp(x[i]) */
static inline void vexp_inplace(double* x, Py_ssize_t n) {
    Py_ssize_t i = 0;
    if (n >= 8 && vexp_use_avx2()) { vexp_inplace_avx2(x, n); return; }
    for (; i + 1 < n; i += 2)
        _mm_storeu_pd(x + i, _ZGVbN2v_exp(_mm_loadu_pd(x + i)));
    if (i < n) x[i] = exp(x[i]);
}
#else
static inline double vexp_sum(const double* x, Py_ssize_t n, double shift) {
    double total = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) total += exp(x[i] - shift);
    return total;
}

static inline void vexp_inplace(double* x, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) x[i] = exp(x[i]);
}
#endif
#endif
