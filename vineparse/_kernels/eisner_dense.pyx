# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""First-order projective parsing (Eisner 1996) on dense charts, all spans of a width at once.

The same items and recurrences as the hypergraph grammar of eisner.pyx, positions
0..n, for each width w and left end s (t = s + w):

    J[s, t] = (+)_{0 <= r < w}  C[s, s + r] * C[t, s + r + 1]
    I[s, t] = J[s, t] * s(s, t),   I[t, s] = J[s, t] * s(t, s)
    C[s, t] = (+)_{0 < r <= w}  I[s, s + r] * C[s + r, t]
    C[t, s] = (+)_{0 <= r < w}  C[s + r, s] * I[t, s + r]

Every chart is stored by width (row w, column s), so for a fixed split offset r
each operand of every recurrence is contiguous over s: the spans of one width are
computed side by side with elementwise SIMD loops (dense.h), in O(n) steps per
width, instead of one short scan per span. With `single_root`, C[0, t] is -inf
for t < n, which makes J[0, t] = C[t, 1] and leaves C[0, n] the root's one span.

The passes are written over the semirings of semiring.pxd like the engine's:
inside in Max or Log, backward in Max (max-marginals), Log (marginals), Path (one
best tree) or Sample (a tree drawn from p ∝ exp(score)), pushing each parent's q
to the tails of its edges with the same rules (Path and Sample walk only the
items of the chosen tree, span by span; RealSample samples over a Real chart).
Work O(n^3) whatever the mask (masked
arcs are -inf), memory 13 (n + 1)^2 doubles; the engine's sparse grammar wins
when the mask keeps few arcs.

Marginals without logarithms. A tree has exactly one arc into each word m, so
subtracting c_m = max_h s(h, m) from column m shifts every tree's score by the
same sum C = sum_m c_m. The weights exp(s(h, m) - c_m) lie in [0, 1], so every
item's value in linear space lies in [0, 4^n] (the number of structures bounds
it), and the Real semiring (sums of products: FMA loops, no exp) computes
Z' = Z exp(-C) and the same marginals as the Log semiring, unless values fall
below the smallest doubles: weights under exp(-707) are flushed to 0 and items
can underflow, losing at most N^2 1e-307 4^n of Z'. `real_is_safe` accepts Z'
only when that loss is below 1e-18 Z' (and n <= 450, so that 4^n stays far from
overflow); otherwise the caller runs the Log semiring.
"""
from libc.math cimport INFINITY, log
from libc.stdint cimport int64_t
from .semiring cimport (MaxSemiring, LogSemiring, PathSemiring, SampleSemiring, RealSemiring, RealSampleSemiring,
                        vexp_inplace, uniform, q_zero, q_goal, parent_state, prepare_shares, share, accumulate)

cdef double LOG_10 = 2.302585092994046
cdef double LOG_4 = 1.3862943611198906

cdef extern from "dense.h" nogil:
    void lanes_max(double* out, const double* a, const double* b, Py_ssize_t a_step, Py_ssize_t b_step,
                   Py_ssize_t count, Py_ssize_t lanes)
    void lanes_sum_exp(double* total, const double* m, const double* a, const double* b, Py_ssize_t a_step,
                       Py_ssize_t b_step, Py_ssize_t count, Py_ssize_t lanes)
    void lanes_push_max(double* qa, double* qb, const double* a, const double* b, Py_ssize_t a_step,
                        Py_ssize_t b_step, Py_ssize_t count, const double* c, Py_ssize_t lanes)
    void lanes_push_exp(double* qa, double* qb, const double* a, const double* b, Py_ssize_t a_step,
                        Py_ssize_t b_step, Py_ssize_t count, const double* c, const double* scale,
                        Py_ssize_t lanes)
    void lanes_dot(double* out, const double* a, const double* b, Py_ssize_t a_step, Py_ssize_t b_step,
                   Py_ssize_t count, Py_ssize_t lanes)
    void lanes_push_mul(double* qa, double* qb, const double* a, const double* b, Py_ssize_t a_step,
                        Py_ssize_t b_step, Py_ssize_t count, const double* scale, Py_ssize_t lanes)


cdef void dense_point(DenseCharts* d, double* memory, Py_ssize_t N, bint single_root) noexcept nogil:
    """Lay the charts out in `memory` (DENSE_ARRAYS * N * N + 3 * N doubles)."""
    cdef Py_ssize_t sq = N * N
    d.N, d.single_root = N, single_root
    d.sr, d.sl, d.jw, d.irw, d.ilw = memory, memory + sq, memory + 2 * sq, memory + 3 * sq, memory + 4 * sq
    d.crw, d.clw = memory + 5 * sq, memory + 6 * sq
    d.qir, d.qil, d.qcr, d.qcl = memory + 7 * sq, memory + 8 * sq, memory + 9 * sq, memory + 10 * sq
    d.wr, d.wl = memory + 11 * sq, memory + 12 * sq
    d.lane1, d.lane2, d.lane3 = memory + 13 * sq, memory + 13 * sq + N, memory + 13 * sq + 2 * N


cdef void dense_scores(DenseCharts* d, const double* scores, Py_ssize_t stride,
                       const unsigned char* allowed) noexcept nogil:
    """Copy the arc scores by width; -inf where allowed[h * N + m] is 0."""
    cdef Py_ssize_t N = d.N, w, s
    for w in range(1, N):
        for s in range(N - w):
            d.sr[w * N + s] = scores[s * stride + s + w] if allowed[s * N + s + w] else -INFINITY
            d.sl[w * N + s] = scores[(s + w) * stride + s] if allowed[(s + w) * N + s] else -INFINITY


cdef bint dense_weights(DenseCharts* d) noexcept nogil:
    """The Real semiring's arc weights exp(s(h, m) - c_m), c_m the best arc score into
    m, and their shift C = sum_m c_m. RETURNS False if a word has no allowed head."""
    cdef Py_ssize_t N = d.N, w, s, m
    cdef double* best = d.lane1
    for m in range(N):
        best[m] = -INFINITY
    for w in range(1, N):
        for s in range(N - w):
            if d.sr[w * N + s] > best[s + w]:
                best[s + w] = d.sr[w * N + s]
            if d.sl[w * N + s] > best[s]:
                best[s] = d.sl[w * N + s]
    d.shift = 0.0
    for m in range(1, N):
        if best[m] == -INFINITY:
            return False
        d.shift += best[m]
    for w in range(1, N):
        for s in range(N - w):
            d.wr[w * N + s] = d.sr[w * N + s] - best[s + w]
            d.wl[w * N + s] = d.sl[w * N + s] - best[s]
        vexp_inplace(&d.wr[w * N], N - w)
        vexp_inplace(&d.wl[w * N], N - w)
    return True


cdef bint real_is_safe(const DenseCharts* d, double z) noexcept nogil:
    """Whether Z' from the Real semiring is exact to 1e-18 (see the module docstring)."""
    cdef Py_ssize_t n = d.N - 1
    if n > 450 or not (z > 0.0 and z < 1e300):
        return False
    return log(z) >= 2.0 * log(<double>d.N) - 289.0 * LOG_10 + n * LOG_4


cdef inline void reduce(DenseInside* sr, DenseCharts* d, double* out, const double* a, const double* b,
                        Py_ssize_t count, Py_ssize_t lanes) noexcept nogil:
    """out[s] = (+)_r a[r N + s] * b[r (1 - N) + s]: max or logsumexp of the sums, or
    the sum of the products (Real)."""
    cdef Py_ssize_t s
    if DenseInside is RealSemiring:
        lanes_dot(out, a, b, d.N, 1 - d.N, count, lanes)
    else:
        lanes_max(out, a, b, d.N, 1 - d.N, count, lanes)
    if DenseInside is LogSemiring:
        lanes_sum_exp(d.lane1, out, a, b, d.N, 1 - d.N, count, lanes)
        for s in range(lanes):
            if out[s] > -INFINITY:
                out[s] += log(d.lane1[s])


cdef double dense_inside(DenseInside* sr, DenseCharts* d) noexcept nogil:
    """Fill the inside charts from the arc scores (weights for Real); RETURNS
    in[C[0, n]]: -inf (0 for Real) if no tree."""
    cdef Py_ssize_t N = d.N, n = N - 1, w, s, L
    cdef double one = 1.0 if DenseInside is RealSemiring else 0.0
    cdef double zero = 0.0 if DenseInside is RealSemiring else -INFINITY
    for s in range(N):
        d.crw[s] = d.clw[s] = one
    for w in range(1, N):
        L = N - w
        # J[s, s + w]: C[s, s + r] (row r) * C[s + w, s + r + 1] (row w - r - 1, column s + r + 1)
        reduce(sr, d, &d.jw[w * N], d.crw, &d.clw[(w - 1) * N + 1], w, L)
        if DenseInside is RealSemiring:
            for s in range(L):
                d.irw[w * N + s] = d.jw[w * N + s] * d.wr[w * N + s]
                d.ilw[w * N + s] = d.jw[w * N + s] * d.wl[w * N + s]
        else:
            for s in range(L):
                d.irw[w * N + s] = d.jw[w * N + s] + d.sr[w * N + s]
                d.ilw[w * N + s] = d.jw[w * N + s] + d.sl[w * N + s]
        # C[s, s + w]: I[s, s + r] (row r, from 1) * C[s + r, s + w] (row w - r, column s + r)
        reduce(sr, d, &d.crw[w * N], &d.irw[N], &d.crw[(w - 1) * N + 1], w, L)
        if d.single_root and w < n:
            d.crw[w * N] = zero
        # C[s + w, s]: C[s + r, s] (row r) * I[s + w, s + r] (row w - r, column s + r)
        reduce(sr, d, &d.clw[w * N], d.clw, &d.ilw[w * N], w, L)
    return d.crw[n * N] if N > 1 else one


cdef inline void push(DenseBackward* sr, DenseCharts* d, const double* qp, const double* in_p,
                      const double* a, const double* b, double* qa, double* qb, Py_ssize_t count,
                      Py_ssize_t lanes) noexcept nogil:
    """Push the q of the parents of one width (lanes s) to the tails a[r N + s],
    b[r (1 - N) + s] of their edges: the engine's backward step, all lanes at once
    for Max and Log, lane by lane along the chosen edges for Path and Sample."""
    cdef Py_ssize_t N = d.N, s, r, best_r
    cdef double zero, state, c, total
    cdef double* x = d.lane3                    # Path and Sample (Max, Log, Real use lane2, lane3 otherwise)
    if DenseBackward is RealSampleSemiring:
        for s in range(lanes):                  # draw one edge with probability a b / sum over the edges
            if qp[s] == 0.0:
                continue
            best_r, total = 0, 0.0
            for r in range(count):
                x[r] = a[r * N + s] * b[r * (1 - N) + s]
                total += x[r]
                if x[r] > x[best_r]:
                    best_r = r
            state = uniform(<SampleSemiring*>sr) * total
            for r in range(count):
                if state < x[r]:
                    best_r = r                  # the drawn edge (else rounding left mass: the best edge)
                    break
                state -= x[r]
            qa[best_r * N + s] += 1.0
            qb[best_r * (1 - N) + s] += 1.0
    elif DenseBackward is RealSemiring:
        for s in range(lanes):
            d.lane2[s] = qp[s] / in_p[s] if qp[s] != 0.0 and in_p[s] > 0.0 else 0.0
        lanes_push_mul(qa, qb, a, b, N, 1 - N, count, d.lane2, lanes)
    elif DenseBackward is MaxSemiring:
        for s in range(lanes):
            d.lane2[s] = qp[s] - in_p[s] if qp[s] > -INFINITY else -INFINITY
        lanes_push_max(qa, qb, a, b, N, 1 - N, count, d.lane2, lanes)
    elif DenseBackward is LogSemiring:
        # normalised shares (see semiring.pxd): exp(a + b - m) / sum, m the lane's largest a + b
        lanes_max(d.lane2, a, b, N, 1 - N, count, lanes)
        lanes_sum_exp(d.lane3, d.lane2, a, b, N, 1 - N, count, lanes)
        for s in range(lanes):
            if qp[s] != 0.0 and d.lane3[s] > 0.0:
                d.lane2[s], d.lane3[s] = -d.lane2[s], qp[s] / d.lane3[s]
            else:
                d.lane2[s], d.lane3[s] = -INFINITY, 0.0
        lanes_push_exp(qa, qb, a, b, N, 1 - N, count, d.lane2, d.lane3, lanes)
    else:
        zero = q_zero(sr)
        for s in range(lanes):
            if qp[s] == zero:
                continue
            best_r = 0
            for r in range(count):
                x[r] = a[r * N + s] + b[r * (1 - N) + s] - in_p[s]
                if x[r] > x[best_r]:
                    best_r = r
            prepare_shares(sr, x, count, x[best_r])
            state = parent_state(sr, qp[s])
            for r in range(count):
                c = share(sr, &state, x[r])
                if c != zero:
                    qa[r * N + s] = accumulate(sr, qa[r * N + s], c)
                    qb[r * (1 - N) + s] = accumulate(sr, qb[r * (1 - N) + s], c)
                    break
            # Rounding can leave a sampled mass or a tie unmatched; fall back on the best edge.
            if state > 0.0 if DenseBackward is PathSemiring else state >= 0.0:
                qa[best_r * N + s] += 1.0
                qb[best_r * (1 - N) + s] += 1.0


cdef void dense_backward(DenseBackward* sr, DenseCharts* d) noexcept nogil:
    """Fill the q charts from the goal down (see semiring.pxd); the inside charts
    must be of the matching semiring (Real for Real) and in[C[0, n]] finite (> 0)."""
    cdef Py_ssize_t N = d.N, n = N - 1, w, s, L, i
    cdef double zero
    if DenseBackward is RealSemiring or DenseBackward is RealSampleSemiring:
        zero = 0.0
    else:
        zero = q_zero(sr)
    for i in range(4 * N * N):                  # qir, qil, qcr, qcl are consecutive
        d.qir[i] = zero
    if N == 1:
        return
    if DenseBackward is RealSemiring or DenseBackward is RealSampleSemiring:
        d.qcr[n * N] = 1.0
    else:
        d.qcr[n * N] = q_goal(sr, d.crw[n * N])
    for w in range(n, 0, -1):
        L = N - w
        # complete items of width w (tails: incomplete items of width <= w, complete ones narrower)
        push(sr, d, &d.qcr[w * N], &d.crw[w * N], &d.irw[N], &d.crw[(w - 1) * N + 1],
             &d.qir[N], &d.qcr[(w - 1) * N + 1], w, L)
        push(sr, d, &d.qcl[w * N], &d.clw[w * N], d.clw, &d.ilw[w * N], d.qcl, &d.qil[w * N], w, L)
        # J of width w, through its two incomplete items (one edge each, delta 0)
        for s in range(L):
            if DenseBackward is RealSemiring or DenseBackward is RealSampleSemiring:
                d.lane1[s] = d.qir[w * N + s] + d.qil[w * N + s]
            else:
                d.lane1[s] = accumulate(sr, d.qir[w * N + s], d.qil[w * N + s])
        push(sr, d, d.lane1, &d.jw[w * N], d.crw, &d.clw[(w - 1) * N + 1], d.qcr, &d.qcl[(w - 1) * N + 1], w, L)


cdef inline double arc_q(const DenseCharts* d, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
    if h < m:
        return d.qir[(m - h) * d.N + h]
    return d.qil[(h - m) * d.N + m]


cdef void dense_heads(const DenseCharts* d, int64_t* heads) noexcept nogil:
    """Heads of the tree marked in the q charts (a Path or Sample pass)."""
    cdef Py_ssize_t N = d.N, h, m
    heads[0] = -1
    for m in range(1, N):
        heads[m] = -1
        for h in range(N):
            if h != m and arc_q(d, h, m) > 0.5:
                heads[m] = h
                break


cdef void dense_arcs(const DenseCharts* d, const unsigned char* allowed, double* out, Py_ssize_t stride,
                     double fill) noexcept nogil:
    """out[h * stride + m] = q of the arc h -> m where allowed[h * N + m], else fill."""
    cdef Py_ssize_t N = d.N, h, m
    for h in range(N):
        for m in range(N):
            out[h * stride + m] = arc_q(d, h, m) if allowed[h * N + m] else fill
