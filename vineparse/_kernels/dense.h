/* Lane-parallel scans for the dense first-order Eisner (eisner_dense.pyx).
 *
 * The charts are stored by span width, so all spans of one width sit side by side
 * ("lanes", one per left end s) and every recurrence reads, for split offset r,
 * a[r * a_step + s] and b[r * b_step + s]: contiguous in s, so four lanes are one
 * SIMD step and nothing is reduced across lanes. The hot scans (Max: best trees and
 * max-marginals; Real: marginals) take a block of lanes at a time and run over r
 * inside it, keeping the block's running maximum, sum or c in registers; the Log
 * semiring's (the fallback where Real could underflow) loop over r outside and over
 * the lanes inside.
 *
 * AVX2 + FMA on x86-64 CPUs that have them (checked once, see vexp.h), the last one
 * to three lanes of a width with masked loads and stores; elsewhere the same loops in
 * plain C. Inputs hold -inf (impossible items) but no NaN;
 * max(v, q) is written so that a NaN v (from -inf - -inf) would leave q. */
#ifndef VINEPARSE_DENSE_H
#define VINEPARSE_DENSE_H
#include <math.h>
#include <stddef.h>
#include "vexp.h"

#ifdef VINEPARSE_VEXP_AVX2
/* The lanes s..s+rem-1 (rem 1..3) of a four-lane step, for masked loads and stores. */
__attribute__((target("avx2,fma")))
static inline __m256i lanes_tail_mask(Py_ssize_t rem) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)rem), _mm256_setr_epi64x(0, 1, 2, 3));
}

__attribute__((target("avx2,fma")))
static void lanes_max_avx2(double* out, const double* a, const double* b, Py_ssize_t as, Py_ssize_t bs,
                           Py_ssize_t count, Py_ssize_t lanes) {
    /* Lanes outside, split points inside: each lane's maximum stays in a register (two blocks of four
     * lanes at a time, so that two max chains overlap). */
    Py_ssize_t r, s;
    for (s = 0; s + 7 < lanes; s += 8) {
        __m256d m0 = _mm256_set1_pd(-INFINITY), m1 = m0;
        for (r = 0; r < count; r++) {
            const double* ar = a + r * as + s;
            const double* br = b + r * bs + s;
            m0 = _mm256_max_pd(_mm256_add_pd(_mm256_loadu_pd(ar), _mm256_loadu_pd(br)), m0);
            m1 = _mm256_max_pd(_mm256_add_pd(_mm256_loadu_pd(ar + 4), _mm256_loadu_pd(br + 4)), m1);
        }
        _mm256_storeu_pd(out + s, m0);
        _mm256_storeu_pd(out + s + 4, m1);
    }
    for (; s + 3 < lanes; s += 4) {
        __m256d m0 = _mm256_set1_pd(-INFINITY);
        for (r = 0; r < count; r++)
            m0 = _mm256_max_pd(_mm256_add_pd(_mm256_loadu_pd(a + r * as + s), _mm256_loadu_pd(b + r * bs + s)),
                               m0);
        _mm256_storeu_pd(out + s, m0);
    }
    if (s < lanes) {
        __m256i mask = lanes_tail_mask(lanes - s);
        __m256d m0 = _mm256_set1_pd(-INFINITY);
        for (r = 0; r < count; r++)
            m0 = _mm256_max_pd(_mm256_add_pd(_mm256_maskload_pd(a + r * as + s, mask),
                                             _mm256_maskload_pd(b + r * bs + s, mask)), m0);
        _mm256_maskstore_pd(out + s, mask, m0);
    }
}

__attribute__((target("avx2,fma")))
static void lanes_sum_exp_avx2(double* sum, const double* m, const double* a, const double* b, Py_ssize_t as,
                               Py_ssize_t bs, Py_ssize_t count, Py_ssize_t lanes) {
    Py_ssize_t r, s;
    for (s = 0; s < lanes; s++) sum[s] = 0.0;
    for (r = 0; r < count; r++) {
        const double* ar = a + r * as;
        const double* br = b + r * bs;
        for (s = 0; s + 3 < lanes; s += 4) {
            __m256d v = _mm256_sub_pd(_mm256_add_pd(_mm256_loadu_pd(ar + s), _mm256_loadu_pd(br + s)),
                                      _mm256_loadu_pd(m + s));
            _mm256_storeu_pd(sum + s, _mm256_add_pd(_mm256_loadu_pd(sum + s), vexp4(v)));
        }
        for (; s < lanes; s++) sum[s] += vexp1(ar[s] + br[s] - m[s]);
    }
}

__attribute__((target("avx2,fma")))
static void lanes_push_max_avx2(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                Py_ssize_t bs, Py_ssize_t count, const double* c, Py_ssize_t lanes) {
    Py_ssize_t r, s;
    for (s = 0; s + 3 < lanes; s += 4) {        /* lanes outside, so c stays in a register */
        __m256d cs = _mm256_loadu_pd(c + s);
        for (r = 0; r < count; r++) {
            __m256d v = _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(a + r * as + s),
                                                    _mm256_loadu_pd(b + r * bs + s)), cs);
            _mm256_storeu_pd(qa + r * as + s, _mm256_max_pd(v, _mm256_loadu_pd(qa + r * as + s)));
            _mm256_storeu_pd(qb + r * bs + s, _mm256_max_pd(v, _mm256_loadu_pd(qb + r * bs + s)));
        }
    }
    if (s < lanes) {
        __m256i mask = lanes_tail_mask(lanes - s);
        __m256d cs = _mm256_maskload_pd(c + s, mask);
        for (r = 0; r < count; r++) {
            double* qar = qa + r * as + s;
            double* qbr = qb + r * bs + s;
            __m256d v = _mm256_add_pd(_mm256_add_pd(_mm256_maskload_pd(a + r * as + s, mask),
                                                    _mm256_maskload_pd(b + r * bs + s, mask)), cs);
            _mm256_maskstore_pd(qar, mask, _mm256_max_pd(v, _mm256_maskload_pd(qar, mask)));
            _mm256_maskstore_pd(qbr, mask, _mm256_max_pd(v, _mm256_maskload_pd(qbr, mask)));
        }
    }
}

__attribute__((target("avx2,fma")))
static void lanes_push_exp_avx2(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                Py_ssize_t bs, Py_ssize_t count, const double* c, const double* scale,
                                Py_ssize_t lanes) {
    Py_ssize_t r, s;
    for (r = 0; r < count; r++) {
        const double* ar = a + r * as;
        const double* br = b + r * bs;
        double* qar = qa + r * as;
        double* qbr = qb + r * bs;
        for (s = 0; s + 3 < lanes; s += 4) {
            __m256d v = _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(ar + s), _mm256_loadu_pd(br + s)),
                                      _mm256_loadu_pd(c + s));
            v = _mm256_mul_pd(vexp4(v), _mm256_loadu_pd(scale + s));
            _mm256_storeu_pd(qar + s, _mm256_add_pd(_mm256_loadu_pd(qar + s), v));
            _mm256_storeu_pd(qbr + s, _mm256_add_pd(_mm256_loadu_pd(qbr + s), v));
        }
        for (; s < lanes; s++) {
            double v = scale[s] * vexp1(ar[s] + br[s] + c[s]);
            qar[s] += v;
            qbr[s] += v;
        }
    }
}

__attribute__((target("avx2,fma")))
static void lanes_dot_avx2(double* out, const double* a, const double* b, Py_ssize_t as, Py_ssize_t bs,
                           Py_ssize_t count, Py_ssize_t lanes) {
    /* Lanes outside, split points inside, sums in registers; the last one to three lanes masked. */
    Py_ssize_t r, s;
    for (s = 0; s + 7 < lanes; s += 8) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0;
        for (r = 0; r < count; r++) {
            const double* ar = a + r * as + s;
            const double* br = b + r * bs + s;
            m0 = _mm256_fmadd_pd(_mm256_loadu_pd(ar), _mm256_loadu_pd(br), m0);
            m1 = _mm256_fmadd_pd(_mm256_loadu_pd(ar + 4), _mm256_loadu_pd(br + 4), m1);
        }
        _mm256_storeu_pd(out + s, m0);
        _mm256_storeu_pd(out + s + 4, m1);
    }
    for (; s + 3 < lanes; s += 4) {
        __m256d m0 = _mm256_setzero_pd();
        for (r = 0; r < count; r++)
            m0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + r * as + s), _mm256_loadu_pd(b + r * bs + s), m0);
        _mm256_storeu_pd(out + s, m0);
    }
    if (s < lanes) {
        __m256i mask = lanes_tail_mask(lanes - s);
        __m256d m0 = _mm256_setzero_pd();
        for (r = 0; r < count; r++)
            m0 = _mm256_fmadd_pd(_mm256_maskload_pd(a + r * as + s, mask), _mm256_maskload_pd(b + r * bs + s, mask),
                                 m0);
        _mm256_maskstore_pd(out + s, mask, m0);
    }
}

__attribute__((target("avx2,fma")))
static void lanes_push_mul_avx2(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                Py_ssize_t bs, Py_ssize_t count, const double* scale, Py_ssize_t lanes) {
    /* Lanes outside, so the scale stays in a register; the last one to three lanes masked. */
    Py_ssize_t r, s;
    for (s = 0; s + 3 < lanes; s += 4) {
        __m256d sc = _mm256_loadu_pd(scale + s);
        for (r = 0; r < count; r++) {
            double* qar = qa + r * as + s;
            double* qbr = qb + r * bs + s;
            __m256d v = _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(a + r * as + s), _mm256_loadu_pd(b + r * bs + s)),
                                      sc);
            _mm256_storeu_pd(qar, _mm256_add_pd(_mm256_loadu_pd(qar), v));
            _mm256_storeu_pd(qbr, _mm256_add_pd(_mm256_loadu_pd(qbr), v));
        }
    }
    if (s < lanes) {
        __m256i mask = lanes_tail_mask(lanes - s);
        __m256d sc = _mm256_maskload_pd(scale + s, mask);
        for (r = 0; r < count; r++) {
            double* qar = qa + r * as + s;
            double* qbr = qb + r * bs + s;
            __m256d v = _mm256_mul_pd(_mm256_mul_pd(_mm256_maskload_pd(a + r * as + s, mask),
                                                    _mm256_maskload_pd(b + r * bs + s, mask)), sc);
            _mm256_maskstore_pd(qar, mask, _mm256_add_pd(_mm256_maskload_pd(qar, mask), v));
            _mm256_maskstore_pd(qbr, mask, _mm256_add_pd(_mm256_maskload_pd(qbr, mask), v));
        }
    }
}
#endif

/* out[s] = sum_{r < count} a[r * as + s] * b[r * bs + s] */
static inline void lanes_dot(double* out, const double* a, const double* b, Py_ssize_t as, Py_ssize_t bs,
                             Py_ssize_t count, Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_dot_avx2(out, a, b, as, bs, count, lanes); return; }
#endif
    for (s = 0; s < lanes; s++) out[s] = 0.0;
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) out[s] += a[r * as + s] * b[r * bs + s];
}

/* qa[r * as + s] += v and qb[r * bs + s] += v, v = scale[s] * a * b */
static inline void lanes_push_mul(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                  Py_ssize_t bs, Py_ssize_t count, const double* scale, Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_push_mul_avx2(qa, qb, a, b, as, bs, count, scale, lanes); return; }
#endif
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) {
            double v = scale[s] * a[r * as + s] * b[r * bs + s];
            qa[r * as + s] += v;
            qb[r * bs + s] += v;
        }
}

/* out[s] = max_{r < count} a[r * as + s] + b[r * bs + s] */
static inline void lanes_max(double* out, const double* a, const double* b, Py_ssize_t as, Py_ssize_t bs,
                             Py_ssize_t count, Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_max_avx2(out, a, b, as, bs, count, lanes); return; }
#endif
    for (s = 0; s < lanes; s++) out[s] = -INFINITY;
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) {
            double v = a[r * as + s] + b[r * bs + s];
            if (v > out[s]) out[s] = v;
        }
}

/* sum[s] = sum_{r < count} exp(a[r * as + s] + b[r * bs + s] - m[s]) */
static inline void lanes_sum_exp(double* sum, const double* m, const double* a, const double* b,
                                 Py_ssize_t as, Py_ssize_t bs, Py_ssize_t count, Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_sum_exp_avx2(sum, m, a, b, as, bs, count, lanes); return; }
#endif
    for (s = 0; s < lanes; s++) sum[s] = 0.0;
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) sum[s] += vexp1(a[r * as + s] + b[r * bs + s] - m[s]);
}

/* qa[r * as + s] = max(qa[..], v) and qb[r * bs + s] = max(qb[..], v), v = a + b + c[s] */
static inline void lanes_push_max(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                  Py_ssize_t bs, Py_ssize_t count, const double* c, Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_push_max_avx2(qa, qb, a, b, as, bs, count, c, lanes); return; }
#endif
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) {
            double v = a[r * as + s] + b[r * bs + s] + c[s];
            if (v > qa[r * as + s]) qa[r * as + s] = v;
            if (v > qb[r * bs + s]) qb[r * bs + s] = v;
        }
}

/* qa[r * as + s] += v and qb[r * bs + s] += v, v = scale[s] * exp(a + b + c[s]) */
static inline void lanes_push_exp(double* qa, double* qb, const double* a, const double* b, Py_ssize_t as,
                                  Py_ssize_t bs, Py_ssize_t count, const double* c, const double* scale,
                                  Py_ssize_t lanes) {
    Py_ssize_t r, s;
#ifdef VINEPARSE_VEXP_AVX2
    if (vexp_use_avx2()) { lanes_push_exp_avx2(qa, qb, a, b, as, bs, count, c, scale, lanes); return; }
#endif
    for (r = 0; r < count; r++)
        for (s = 0; s < lanes; s++) {
            double v = scale[s] * vexp1(a[r * as + s] + b[r * bs + s] + c[s]);
            qa[r * as + s] += v;
            qb[r * bs + s] += v;
        }
}
#endif
