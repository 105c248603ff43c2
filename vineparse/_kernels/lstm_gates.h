/* The gates of an LSTM step in float32, in loops gcc vectorizes (no calls, no branches).
 *
 * fexp(x) = 2^k exp(r), k = round(x / ln 2), r = x - k ln 2 (|r| <= 0.347), exp(r) by its Taylor polynomial
 * of degree 6 (relative error below 2e-7 on [-87, 88]; x is clamped to that range, so exp(-inf) is a tiny
 * positive number and exp(inf) a large finite one). sigmoid(x) = 1 / (1 + fexp(-x)),
 * tanh(x) = 2 / (1 + fexp(-2x)) - 1 (absolute error below 1e-6). */
#ifndef VINEPARSE_LSTM_GATES_H
#define VINEPARSE_LSTM_GATES_H
#include <stdint.h>
#include <string.h>

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

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* eight lanes on x86 CPUs with AVX2 and FMA, checked once at run time (as vexp.h does) */
__attribute__((target("avx2,fma"))) LSTM_GATES_ROW(lstm_gates_row_avx2)

static int lstm_avx2 = -1;

static inline void lstm_gates_row(float* g, float* c, float* out, int h) {
    if (lstm_avx2 < 0)
        lstm_avx2 = (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    if (lstm_avx2)
        lstm_gates_row_avx2(g, c, out, h);
    else
        lstm_gates_row_portable(g, c, out, h);
}
#else
#define lstm_gates_row lstm_gates_row_portable
#endif
#endif
