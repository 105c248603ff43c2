/* v . relu(a + b (+ c)) over p floats: the hidden layer and output of the part MLP (part_mlp.pyx) for one
 * part, whose hidden width p is small (16 in the shipped configs).
 *
 * AVX2 + FMA eight floats at a time on x86-64 CPUs that have them (checked once, see vexp.h); elsewhere
 * four independent scalar sums. Either way the partial sums stay in registers: a float array of sums
 * would be kept on the stack and every step would wait on the store before it. */
#ifndef VINEPARSE_RELU_DOT_H
#define VINEPARSE_RELU_DOT_H
#include <stddef.h>
#include "vexp.h"

#ifdef VINEPARSE_VEXP_AVX2
__attribute__((target("avx2,fma")))
static float relu_dot_avx2(const float* a, const float* b, const float* c, const float* v, Py_ssize_t p) {
    __m256 sum = _mm256_setzero_ps(), zero = _mm256_setzero_ps(), x;
    __m128 half;
    Py_ssize_t i = 0;
    float total, y;
    for (; i + 8 <= p; i += 8) {
        x = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        if (c != NULL) x = _mm256_add_ps(x, _mm256_loadu_ps(c + i));
        sum = _mm256_fmadd_ps(_mm256_max_ps(x, zero), _mm256_loadu_ps(v + i), sum);
    }
    half = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    total = _mm_cvtss_f32(_mm_add_ss(half, _mm_movehdup_ps(half)));
    for (; i < p; i++) {
        y = a[i] + b[i] + (c != NULL ? c[i] : 0.0f);
        total += (y > 0 ? y : 0) * v[i];
    }
    return total;
}
#endif

static inline float relu_dot(const float* a, const float* b, const float* c, const float* v, Py_ssize_t p) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, x0, x1, x2, x3;
    Py_ssize_t i = 0;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) return relu_dot_avx2(a, b, c, v, p);
#endif
    for (; i + 4 <= p; i += 4) {
        x0 = a[i] + b[i]; x1 = a[i + 1] + b[i + 1]; x2 = a[i + 2] + b[i + 2]; x3 = a[i + 3] + b[i + 3];
        if (c != NULL) { x0 += c[i]; x1 += c[i + 1]; x2 += c[i + 2]; x3 += c[i + 3]; }
        s0 += (x0 > 0 ? x0 : 0) * v[i];
        s1 += (x1 > 0 ? x1 : 0) * v[i + 1];
        s2 += (x2 > 0 ? x2 : 0) * v[i + 2];
        s3 += (x3 > 0 ? x3 : 0) * v[i + 3];
    }
    for (; i < p; i++) {
        x0 = a[i] + b[i] + (c != NULL ? c[i] : 0.0f);
        s0 += (x0 > 0 ? x0 : 0) * v[i];
    }
    return (s0 + s1) + (s2 + s3);
}

#endif
