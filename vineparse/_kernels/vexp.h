/* Batched exp for the Log semiring and the dense first-order charts.
 *
 * exp(x) = 2^k exp(r), k = round(x / ln 2), r = x - k ln 2 (Cody-Waite, |r| <= 0.347),
 * exp(r) by its Taylor polynomial of degree 13 (truncation below 1e-17 relative),
 * 2^k written into the exponent bits. Error within a few ulp of the correctly rounded
 * value on [-707, 709]; exp(x) for x < -707 (-inf included) is 0 (the true value is
 * below 1e-307: flushing it keeps denormals, and their slow arithmetic, out of the
 * sums, which hold at least one term near 1). On x86-64 CPUs with AVX2 and FMA
 * (checked once at run time) four lanes at a time, inlined into the loops that use
 * it; elsewhere the same polynomial one value at a time. No libm or libmvec call.
 * `vexp_use_avx2` is every kernel's AVX2 switch (dense.h, relu_dot.h, lstm_gates.h):
 * the environment variable VINEPARSE_NO_AVX2 set to anything but "" or "0" when a
 * module first asks turns it off, so the portable paths run (and are tested) here. */
#ifndef VINEPARSE_VEXP_H
#define VINEPARSE_VEXP_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VEXP_LOW (-707.0)
#define VEXP_LOG2E 1.4426950408889634
#define VEXP_LN2_HI 6.93147180369123816490e-01
#define VEXP_LN2_LO 1.90821492927058770002e-10
#define VEXP_ROUND 6755399441055744.0          /* 2^52 + 2^51: adding it rounds to an integer */
#define VEXP_C2 (1.0 / 2.0)
#define VEXP_C3 (1.0 / 6.0)
#define VEXP_C4 (1.0 / 24.0)
#define VEXP_C5 (1.0 / 120.0)
#define VEXP_C6 (1.0 / 720.0)
#define VEXP_C7 (1.0 / 5040.0)
#define VEXP_C8 (1.0 / 40320.0)
#define VEXP_C9 (1.0 / 362880.0)
#define VEXP_C10 (1.0 / 3628800.0)
#define VEXP_C11 (1.0 / 39916800.0)
#define VEXP_C12 (1.0 / 479001600.0)
#define VEXP_C13 (1.0 / 6227020800.0)

/* One value (the portable path). */
static inline double vexp1(double x) {
    double t, k, r, p, scale;
    int64_t bits;
    if (!(x >= VEXP_LOW)) return 0.0;
    if (x > 709.0) return exp(x);
    t = x * VEXP_LOG2E + VEXP_ROUND;
    k = t - VEXP_ROUND;
    r = x - k * VEXP_LN2_HI;
    r = r - k * VEXP_LN2_LO;
    p = VEXP_C13;
    p = p * r + VEXP_C12; p = p * r + VEXP_C11; p = p * r + VEXP_C10; p = p * r + VEXP_C9;
    p = p * r + VEXP_C8; p = p * r + VEXP_C7; p = p * r + VEXP_C6; p = p * r + VEXP_C5;
    p = p * r + VEXP_C4; p = p * r + VEXP_C3; p = p * r + VEXP_C2; p = p * r + 1.0;
    p = p * r + 1.0;
    bits = ((int64_t)k + 1023) << 52;
    memcpy(&scale, &bits, sizeof(scale));
    return p * scale;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define VINEPARSE_VEXP_AVX2 1

static int vexp_avx2 = -1;

static inline int vexp_use_avx2(void) {
    if (vexp_avx2 < 0) {
        const char* off = getenv("VINEPARSE_NO_AVX2");
        vexp_avx2 = (!(off && *off && strcmp(off, "0")) && __builtin_cpu_supports("avx2")
                     && __builtin_cpu_supports("fma")) ? 1 : 0;
    }
    return vexp_avx2;
}

/* Four lanes; x > 709 is not expected here (the callers pass values <= ~0). */
__attribute__((target("avx2,fma")))
static inline __m256d vexp4(__m256d x) {
    const __m256d low = _mm256_set1_pd(VEXP_LOW), round = _mm256_set1_pd(VEXP_ROUND);
    __m256d tiny = _mm256_cmp_pd(x, low, _CMP_NGE_UQ);          /* x < low, or NaN */
    __m256d t, k, r, p;
    __m256i bits;
    x = _mm256_max_pd(x, low);
    t = _mm256_fmadd_pd(x, _mm256_set1_pd(VEXP_LOG2E), round);
    k = _mm256_sub_pd(t, round);
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(VEXP_LN2_HI), x);
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(VEXP_LN2_LO), r);
    p = _mm256_set1_pd(VEXP_C13);
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C12));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C11));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C10));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C9));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C8));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C7));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C6));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C5));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C4));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C3));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(VEXP_C2));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
    /* t's low mantissa bits hold k (two's complement): 2^k = (k + 1023) << 52 */
    bits = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(round));
    bits = _mm256_slli_epi64(_mm256_add_epi64(bits, _mm256_set1_epi64x(1023)), 52);
    p = _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
    return _mm256_andnot_pd(tiny, p);
}

__attribute__((target("avx2,fma")))
static double vexp_sum_avx2(const double* x, Py_ssize_t n, double shift) {
    __m256d acc = _mm256_setzero_pd(), s = _mm256_set1_pd(shift);
    __m128d half;
    Py_ssize_t i = 0;
    double total;
    for (; i + 3 < n; i += 4)
        acc = _mm256_add_pd(acc, vexp4(_mm256_sub_pd(_mm256_loadu_pd(x + i), s)));
    half = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd(acc, 1));
    total = _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
    for (; i < n; i++) total += vexp1(x[i] - shift);
    return total;
}

__attribute__((target("avx2,fma")))
static double vexp_shift_inplace_avx2(double* x, Py_ssize_t n, double shift) {
    __m256d acc = _mm256_setzero_pd(), s = _mm256_set1_pd(shift), v;
    __m128d half;
    Py_ssize_t i = 0;
    double total;
    for (; i + 3 < n; i += 4) {
        v = vexp4(_mm256_sub_pd(_mm256_loadu_pd(x + i), s));
        _mm256_storeu_pd(x + i, v);
        acc = _mm256_add_pd(acc, v);
    }
    half = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd(acc, 1));
    total = _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
    for (; i < n; i++) {
        x[i] = vexp1(x[i] - shift);
        total += x[i];
    }
    return total;
}

__attribute__((target("avx2,fma")))
static void vexp_inplace_avx2(double* x, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 3 < n; i += 4)
        _mm256_storeu_pd(x + i, vexp4(_mm256_loadu_pd(x + i)));
    for (; i < n; i++) x[i] = vexp1(x[i]);
}
#endif

/* whether this module's kernels take their AVX2 + FMA paths */
static inline int vexp_avx2_in_use(void) {
#ifdef VINEPARSE_VEXP_AVX2
    return vexp_use_avx2();
#else
    return 0;
#endif
}

/* sum_i exp(x[i] - shift) */
static inline double vexp_sum(const double* x, Py_ssize_t n, double shift) {
    double total = 0.0;
    Py_ssize_t i;
#ifdef VINEPARSE_VEXP_AVX2
    if (n >= 4 && vexp_use_avx2()) return vexp_sum_avx2(x, n, shift);
#endif
    for (i = 0; i < n; i++) total += vexp1(x[i] - shift);
    return total;
}

/* x[i] = exp(x[i] - shift); returns the sum of the new x */
static inline double vexp_shift_inplace(double* x, Py_ssize_t n, double shift) {
    double total = 0.0;
    Py_ssize_t i;
#ifdef VINEPARSE_VEXP_AVX2
    if (n >= 4 && vexp_use_avx2()) return vexp_shift_inplace_avx2(x, n, shift);
#endif
    for (i = 0; i < n; i++) {
        x[i] = vexp1(x[i] - shift);
        total += x[i];
    }
    return total;
}

/* x[i] = exp(x[i]) */
static inline void vexp_inplace(double* x, Py_ssize_t n) {
    Py_ssize_t i;
#ifdef VINEPARSE_VEXP_AVX2
    if (n >= 4 && vexp_use_avx2()) { vexp_inplace_avx2(x, n); return; }
#endif
    for (i = 0; i < n; i++) x[i] = vexp1(x[i]);
}
#endif
