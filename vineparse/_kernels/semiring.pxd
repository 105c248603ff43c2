# cython: language_level=3
"""Semirings for the hypergraph engine (vineparse/_kernels/hypergraph.pyx).

Inside values live in log space for every semiring: the chart holds either the
best derivation score (Max, <max, +, -inf, 0>) or the log of the summed weight
(Log, <logsumexp, +, -inf, 0>).

The backward pass is written in "push" form, parent by parent in reverse
topological order. For an edge e = (p <- a, b) with total weight
`in[a] + in[b] + w_e`, let `delta = total - in[p]` (<= 0 for Max and Log). The
quantity Q pushed to the tails is semiring-specific:

* Max:    Q[p] + delta, combined by max.  Q[x] = best score of a derivation of
          the goal that uses x (the max-marginal); Q[goal] = in[goal].
* Log:    Q[p] * exp(delta), combined by +. Q[x] = marginal probability of x
          (the adjoint of log Z); Q[goal] = 1. The exp(delta) of one parent's
          edges sum to 1 in exact arithmetic; they are normalised to, so that
          rounding (scores of magnitude 1e300 leave no digits for the deltas)
          can never push more than Q[p] down.
* Path:   the first edge with delta == 0 gets 1, the others 0: Q marks one best
          derivation (needs a Max inside chart).
* Sample: an edge is drawn with probability exp(delta) (needs a Log inside
          chart, normalised as for Log): Q marks one derivation sampled from the
          Gibbs distribution.

RealSemiring (<+, x, 0, 1> on exp(score), in linear space) is the Log semiring
without logarithms, for the dense first-order charts when the weights are
normalised so that no value can overflow or underflow (eisner_dense.pyx checks
this and falls back on Log otherwise); its Q is the same marginal probability:
Q[a] += Q[p] * in[a] * in[b] * w / in[p]. RealSampleSemiring samples over such a
chart, drawing each edge with probability in[a] in[b] w / in[p] (normalised).
"""
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport uint64_t

cdef extern from "vexp.h" nogil:
    double vexp_sum(const double* x, Py_ssize_t n, double shift)
    void vexp_inplace(double* x, Py_ssize_t n)
    double vexp_shift_inplace(double* x, Py_ssize_t n, double shift)

cdef struct MaxSemiring:
    char unused

cdef struct LogSemiring:
    char unused

cdef struct PathSemiring:
    char unused

cdef struct SampleSemiring:
    uint64_t state    # xorshift64* state; must be non-zero

cdef struct RealSemiring:
    char unused

cdef struct RealSampleSemiring:
    uint64_t state    # as SampleSemiring (same layout), over a Real inside chart


ctypedef fused Inside:
    MaxSemiring
    LogSemiring

ctypedef fused Backward:
    MaxSemiring
    LogSemiring
    PathSemiring
    SampleSemiring


cdef inline double reduce_sum(Inside* sr, const double* buf, Py_ssize_t k) noexcept nogil:
    """The semiring sum of buf[0:k] (-inf for k == 0)."""
    cdef Py_ssize_t i
    cdef double m = -INFINITY, s
    for i in range(k):
        if buf[i] > m:
            m = buf[i]
    if Inside is LogSemiring:
        if m > -INFINITY:
            m += log(vexp_sum(buf, k, m))
    return m


cdef inline double q_zero(Backward* sr) noexcept nogil:
    if Backward is MaxSemiring:
        return -INFINITY
    else:
        return 0.0


cdef inline double q_goal(Backward* sr, double inside_goal) noexcept nogil:
    if Backward is MaxSemiring:
        return inside_goal
    else:
        return 1.0


cdef inline double uniform(SampleSemiring* sr) noexcept nogil:
    """A uniform draw in [0, 1) from the xorshift64* generator."""
    cdef uint64_t x = sr.state
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    sr.state = x
    return <double>((x * <uint64_t>2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double parent_state(Backward* sr, double q_parent) noexcept nogil:
    """Per-parent scratch value handed to `share` for each of its edges."""
    if Backward is SampleSemiring:
        return uniform(sr)          # remaining probability mass to walk through
    else:
        return q_parent


cdef inline void prepare_shares(Backward* sr, double* delta, Py_ssize_t k, double top) noexcept nogil:
    """Turn the deltas of one parent's edges into what `share` consumes: for Log
    and Sample the probabilities exp(delta - top) / sum (top = the largest delta),
    the deltas themselves otherwise."""
    cdef double total
    cdef Py_ssize_t j
    if Backward is LogSemiring or Backward is SampleSemiring:
        total = vexp_shift_inplace(delta, k, top)
        if total > 0.0:
            total = 1.0 / total
            for j in range(k):
                delta[j] *= total


cdef inline double share(Backward* sr, double* state, double x) noexcept nogil:
    """What one edge pushes to each of its tails, from `prepare_shares`' value x."""
    if Backward is MaxSemiring:
        return state[0] + x
    elif Backward is LogSemiring:
        return state[0] * x
    elif Backward is PathSemiring:
        if state[0] > 0.0 and x == 0.0:
            state[0] = 0.0
            return 1.0
        return 0.0
    else:
        if state[0] < 0.0:
            return 0.0
        if state[0] < x:
            state[0] = -1.0
            return 1.0
        state[0] -= x
        return 0.0


cdef inline double accumulate(Backward* sr, double a, double b) noexcept nogil:
    if Backward is MaxSemiring:
        return a if a > b else b
    else:
        return a + b
