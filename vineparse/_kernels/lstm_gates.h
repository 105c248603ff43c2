/* An LSTM step in float32 for the compiled BiLSTM (bilstm.pyx): the recurrent product of a few rows, and the
 * gates, in loops gcc vectorizes (no calls, no branches).
 *
 * fexp(x) = 2^k exp(r), k = round(x / ln 2), r = x - k ln 2 (|r| <= 0.347), exp(r) by its Taylor polynomial
 * of degree 6 (relative error below 2e-7 on [-87, 88]; x is clamped to that range, so exp(-inf) is a tiny
 * positive number and exp(inf) a large finite one). sigmoid(x) = 1 / (1 + fexp(-x)),
 * tanh(x) = 2 / (1 + fexp(-2x)) - 1 (absolute error below 1e-6). */
#ifndef VINEPARSE_LSTM_GATES_H
#define VINEPARSE_LSTM_GATES_H
#include <stdint.h>
#include <string.h>
#include "vexp.h"

static inline float lstm_fexp(float x) {
    const float round = 12582912.0f;                 /* 1.5 * 2^23: adding it rounds to an integer */
    float t, k, r, p;
    int32_t bits;
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    t = x * 1.44269504088896341f + round;
    k = t - round;
    r = x - k * 0.693145751953125f;                  /* ln 2 in two parts: exact product, then the rest */
    r = r - k * 1.428606765330187e-06f;
    p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6.0f + r * (1.0f / 24.0f + r * (1.0f / 120.0f
        + r * (1.0f / 720.0f))))));
    bits = ((int32_t)k + 127) << 23;
    memcpy(&t, &bits, sizeof t);
    return p * t;
}

/* One row of a step: g holds the 4h pre-activations [forget | input | output | candidate]; c is the cell
 * state (updated in place); the hidden state goes to out. LSTM_GATES_ROW defines it once per instruction set. */
#define LSTM_GATES_ROW(name)                                                                                   \
    static void name(float* g, float* c, float* out, int h) {                                                 \
        int j;                                                                                                \
        for (j = 0; j < 3 * h; j++) g[j] = 1.0f / (1.0f + lstm_fexp(-g[j]));                                  \
        for (j = 3 * h; j < 4 * h; j++) g[j] = 2.0f / (1.0f + lstm_fexp(-2.0f * g[j])) - 1.0f;                \
        for (j = 0; j < h; j++) c[j] = g[j] * c[j] + g[h + j] * g[3 * h + j];                                 \
        for (j = 0; j < h; j++) out[j] = g[2 * h + j] * (2.0f / (1.0f + lstm_fexp(-2.0f * c[j])) - 1.0f);     \
    }

LSTM_GATES_ROW(lstm_gates_row_portable)

/* The recurrent product of a step for b rows: g (b rows, ldg floats apart, 4h columns) += hp (b, h) WT, WT the
 * transposed recurrent weights (h, 4h). For the steps where few sequences are left (a long doc alone at its end),
 * where a BLAS call costs more in set-up than in arithmetic. */
static void lstm_recur_rows_portable(float* g, int ldg, const float* hp, const float* WT, int b, int h) {
    int r, k, j, n = 4 * h;
    for (r = 0; r < b; r++)
        for (k = 0; k < h; k++) {
            const float x = hp[(size_t)r * h + k];
            const float* w = WT + (size_t)k * n;
            float* gr = g + (size_t)r * ldg;
            for (j = 0; j < n; j++) gr[j] += x * w[j];
        }
}

#ifdef VINEPARSE_VEXP_AVX2
/* eight lanes on x86 CPUs with AVX2 and FMA, where vexp.h's switch says so */
__attribute__((target("avx2,fma"))) LSTM_GATES_ROW(lstm_gates_row_avx2)

/* 32 columns at a time, summed over the h inputs in eight registers: rows in pairs (each weight loaded serves
 * both), a last row alone over even and odd inputs (so that eight sums are in flight either way). */
__attribute__((target("avx2,fma")))
static void lstm_recur_rows_avx2(float* g, int ldg, const float* hp, const float* WT, int b, int h) {
    int r, k, c, n = 4 * h, full = n - n % 32;
    for (r = 0; r < b; r += 2) {
        const int pair = r + 1 < b, kstep = pair ? 1 : 2;
        float* g0 = g + (size_t)r * ldg;
        float* g1 = g0 + ldg;
        const float* h0 = hp + (size_t)r * h;
        const float* h1 = pair ? h0 + h : h0 + 1;             /* the second sums' input: next row or next input */
        const size_t wnext = pair ? 0 : (size_t)n;            /* and their weights: the same row or the next */
        for (c = 0; c < full; c += 32) {
            __m256 a0 = _mm256_loadu_ps(g0 + c), a1 = _mm256_loadu_ps(g0 + c + 8);
            __m256 a2 = _mm256_loadu_ps(g0 + c + 16), a3 = _mm256_loadu_ps(g0 + c + 24);
            __m256 b0 = _mm256_setzero_ps(), b1 = b0, b2 = b0, b3 = b0;
            for (k = 0; k + kstep <= h; k += kstep) {
                const float* w = WT + (size_t)k * n + c;
                const float* v = w + wnext;
                const __m256 x = _mm256_broadcast_ss(h0 + k), y = _mm256_broadcast_ss(h1 + k);
                a0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w), a0);
                a1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 8), a1);
                a2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 16), a2);
                a3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 24), a3);
                b0 = _mm256_fmadd_ps(y, _mm256_loadu_ps(v), b0);
                b1 = _mm256_fmadd_ps(y, _mm256_loadu_ps(v + 8), b1);
                b2 = _mm256_fmadd_ps(y, _mm256_loadu_ps(v + 16), b2);
                b3 = _mm256_fmadd_ps(y, _mm256_loadu_ps(v + 24), b3);
            }
            if (k < h) {                                          /* a row alone and h odd: the last input */
                const float* w = WT + (size_t)k * n + c;
                const __m256 x = _mm256_broadcast_ss(h0 + k);
                a0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w), a0);
                a1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 8), a1);
                a2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 16), a2);
                a3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 24), a3);
            }
            if (pair) {
                _mm256_storeu_ps(g1 + c, _mm256_add_ps(_mm256_loadu_ps(g1 + c), b0));
                _mm256_storeu_ps(g1 + c + 8, _mm256_add_ps(_mm256_loadu_ps(g1 + c + 8), b1));
                _mm256_storeu_ps(g1 + c + 16, _mm256_add_ps(_mm256_loadu_ps(g1 + c + 16), b2));
                _mm256_storeu_ps(g1 + c + 24, _mm256_add_ps(_mm256_loadu_ps(g1 + c + 24), b3));
            } else {
                a0 = _mm256_add_ps(a0, b0); a1 = _mm256_add_ps(a1, b1);
                a2 = _mm256_add_ps(a2, b2); a3 = _mm256_add_ps(a3, b3);
            }
            _mm256_storeu_ps(g0 + c, a0); _mm256_storeu_ps(g0 + c + 8, a1);
            _mm256_storeu_ps(g0 + c + 16, a2); _mm256_storeu_ps(g0 + c + 24, a3);
        }
        for (k = 0; k < h && full < n; k++)                       /* the last n % 32 columns */
            for (c = full; c < n; c++) {
                g0[c] += h0[k] * WT[(size_t)k * n + c];
                if (pair) g1[c] += h1[k] * WT[(size_t)k * n + c];
            }
    }
}

static inline void lstm_gates_row(float* g, float* c, float* out, int h) {
    if (vexp_use_avx2())
        lstm_gates_row_avx2(g, c, out, h);
    else
        lstm_gates_row_portable(g, c, out, h);
}

static inline void lstm_recur_rows(float* g, int ldg, const float* hp, const float* WT, int b, int h) {
    if (vexp_use_avx2())
        lstm_recur_rows_avx2(g, ldg, hp, WT, b, h);
    else
        lstm_recur_rows_portable(g, ldg, hp, WT, b, h);
}
#else
#define lstm_gates_row lstm_gates_row_portable
#define lstm_recur_rows lstm_recur_rows_portable
#endif
#endif
