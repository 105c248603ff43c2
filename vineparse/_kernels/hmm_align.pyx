# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The HMM word-alignment model of one sentence pair in one direction, as a hypergraph.

References:
* S. Vogel, H. Ney and C. Tillmann. HMM-based word alignment in statistical
  translation. COLING 1996. (Alignment positions as hidden states, jump-width
  transitions.)
* F. J. Och and H. Ney. A systematic comparison of various statistical
  alignment models. Computational Linguistics 2003. (NULL states that remember
  the last aligned position.)
* P. Liang, B. Taskar and D. Klein. Alignment by agreement. NAACL 2006. (Two
  directions trained together; this kernel is one direction's E-step.)

Model. A "generating" sentence of p words and a "generated" sentence of q
words; each generated word k is aligned to a state: a position i in [0, p) of
the generating sentence (it emits with t(f_k | e_i)) or NULL (t(f_k | NULL)).
A NULL state remembers the last position aligned before it (Och & Ney), so
states are s = i in [0, p) and s = p + 1 + m, NULL with memory m in [-1, p)
(m = -1: no word aligned yet): S = 2p + 1 states. From memory m (a real state
m or a NULL state remembering m; the chain starts from memory -1):

    P(i | m)        = (1 - p0) J(c(i - m)) / (n_m(c(i - m)) sum_{d in D_m} J(d))
    P(NULL_m | m)   = p0

where c clamps a jump width to [-B, B], J is a table over clamped widths
(`jump[d + B]`), D_m the clamped widths reachable from m and n_m(d) the number
of positions with clamped width d from m (so an end bucket's mass is shared by
the positions it covers, and a count of J's M-step matches what J means). The
probability of a generated sentence is the sum over state sequences of the
transitions times the emissions.

Items: 0 the unit; A[k, s] = 1 + k S + s (the words 0..k generated, word k in
state s); the goal 1 + q S. Edges (log space, emissions on the edge into the
state that emits):

    A[0, s]     <- unit                     log P(s | -1) + log emit[0, s]
    A[k, s]     <- A[k-1, s']               log P(s | mem(s')) + log emit[k, s]       k >= 1
    goal        <- A[q-1, s]                0

(only the allowed transitions: NULL_m is entered from m and NULL_m alone). So
the Log inside value of the goal is log P(f | e) (the length term left out),
q[A[k, s]] under the Log backward pass is the posterior of word k being in
state s, and the Path backward pass marks the Viterbi alignment. The
statistics pass adds the expected jump counts (the edges into real states,
by clamped width). Time O(q p^2) per pass, memory one double per item.
"""
import numpy as np
from libc.math cimport log, INFINITY
from libc.stdlib cimport malloc, free
from .hypergraph cimport Hypergraph, inside, backward
from .semiring cimport LogSemiring, MaxSemiring, PathSemiring, vexp_inplace


cdef inline Py_ssize_t clamp(Py_ssize_t d, Py_ssize_t b) noexcept nogil:
    return -b if d < -b else (b if d > b else d)


cdef class AlignmentHMM(Hypergraph):
    """One direction of the HMM alignment model for one sentence pair (see the module docstring).

    log_emit (float64 (q, p)): log t(f_k | e_i); -inf forbids the state.
    log_null (float64 (q,)): log t(f_k | NULL).
    jump (float64 (2B + 1,)): non-negative jump weights J(d) at [d + B], not all zero.
    p0 (float): the NULL transition probability, in [0, 1).

    Transitions are tabulated once per chart (log_trans[m + 1, s], (p + 1) x S), so an edge costs a lookup.
    """
    cdef readonly Py_ssize_t p, q, n_states, max_jump
    cdef readonly double p0
    cdef const double[:, ::1] log_emit
    cdef const double[::1] log_null
    cdef double[:, ::1] log_trans      # [memory + 1, state]

    def __init__(self, log_emit, log_null, jump, double p0):
        cdef Py_ssize_t q = log_emit.shape[0], p = log_emit.shape[1], m, i, b, d
        cdef const double[::1] j = jump
        cdef double total
        cdef double[::1] size = np.zeros(j.shape[0])
        self.p = p
        self.q = q
        self.p0 = p0
        self.max_jump = (j.shape[0] - 1) // 2
        self.n_states = 2 * p + 1
        self.log_emit = log_emit
        self.log_null = log_null
        self.log_trans = np.full((p + 1, self.n_states), -INFINITY)
        b = self.max_jump
        for m in range(-1, p):
            # J holds the mass of each clamped width: an end bucket shares it among the positions it covers.
            size[:] = 0.0
            for i in range(p):
                size[clamp(i - m, b) + b] += 1.0
            total = 0.0
            for i in range(2 * b + 1):
                if size[i] > 0.0:
                    total += j[i]
            for i in range(p):
                d = clamp(i - m, b) + b
                if total > 0.0 and j[d] > 0.0:
                    self.log_trans[m + 1, i] = log((1.0 - p0) * j[d] / (size[d] * total))
            if p0 > 0.0:
                self.log_trans[m + 1, p + 1 + m] = log(p0)
        self.n_items = 2 + q * self.n_states
        self.goal = 1 + q * self.n_states
        self.max_edges = max(self.n_states, 2)
        self.set_order(self._schedule())

    cdef int[::1] _schedule(self):
        """A[k, s] by position; at k = 0 only the real states and NULL_{-1} can be reached."""
        cdef Py_ssize_t k, s, n = 0
        cdef int[::1] order = np.empty(self.q * self.n_states + 1, dtype=np.int32)
        for k in range(self.q):
            for s in range(self.n_states):
                if k == 0 and s > self.p:
                    continue
                order[n] = <int>(1 + k * self.n_states + s)
                n += 1
        order[n] = <int>self.goal
        return order[:n + 1]

    cdef inline Py_ssize_t memory(self, Py_ssize_t s) noexcept nogil:
        return s if s < self.p else s - self.p - 1

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t S = self.n_states, k, s, src, m, e = 0
        cdef double em
        if item == self.goal:
            for s in range(S):
                t1[s] = <int>(1 + (self.q - 1) * S + s); t2[s] = 0; w[s] = 0.0
            return S
        k = (item - 1) // S
        s = (item - 1) % S
        em = self.log_emit[k, s] if s < self.p else self.log_null[k]
        if k == 0:
            t1[0] = 0; t2[0] = 0; w[0] = self.log_trans[0, s] + em
            return 1
        if s >= self.p:
            # NULL_m is entered from the real state m (if m >= 0) and from NULL_m.
            m = s - self.p - 1
            if m >= 0:
                t1[e] = <int>(1 + (k - 1) * S + m); t2[e] = 0; w[e] = self.log_trans[m + 1, s] + em
                e += 1
            t1[e] = <int>(item - S); t2[e] = 0; w[e] = self.log_trans[m + 1, s] + em
            return e + 1
        for src in range(S):
            t1[src] = <int>(1 + (k - 1) * S + src); t2[src] = 0
            w[src] = self.log_trans[self.memory(src) + 1, s] + em
        return S


cdef int jump_statistics(AlignmentHMM g, const double* chart, const double* post, double* counts) noexcept nogil:
    """Add the expected number of jumps of each clamped width (edges into real states) to counts (2B + 1).

    Edge posterior: q[parent] * exp(in[tail] + w - in[parent]). Returns -1 on allocation failure.
    """
    cdef Py_ssize_t S = g.n_states, b = g.max_jump, k, s, src, e, n, item
    cdef int* t1 = <int*>malloc(S * sizeof(int))
    cdef int* t2 = <int*>malloc(S * sizeof(int))
    cdef double* w = <double*>malloc(S * sizeof(double))
    if t1 == NULL or t2 == NULL or w == NULL:
        free(t1); free(t2); free(w)
        return -1
    for k in range(g.q):
        for s in range(g.p):
            item = 1 + k * S + s
            if post[item] <= 0.0:
                continue
            n = g.edges(item, t1, t2, w)
            for e in range(n):
                w[e] = chart[t1[e]] + w[e] - chart[item]
            vexp_inplace(w, n)
            for e in range(n):
                src = -1 if k == 0 else g.memory(e)
                counts[clamp(s - src, b) + b] += post[item] * w[e]
    free(t1); free(t2); free(w)
    return 0


def _checked(log_emit, log_null, jump, double p0):
    log_emit = np.ascontiguousarray(log_emit, dtype=np.float64)
    log_null = np.ascontiguousarray(log_null, dtype=np.float64)
    jump = np.ascontiguousarray(jump, dtype=np.float64)
    if log_emit.ndim != 2 or 0 in log_emit.shape:
        raise ValueError(f"log_emit must have shape (q, p) with p, q >= 1, got {log_emit.shape}")
    if log_null.shape != (log_emit.shape[0],):
        raise ValueError(f"log_null must have shape ({log_emit.shape[0]},), got {log_null.shape}")
    if jump.ndim != 1 or jump.shape[0] % 2 != 1 or not (jump >= 0).all() or not jump.sum() > 0:
        raise ValueError("jump must be an odd-length vector of non-negative weights, not all 0")
    if np.isnan(log_emit).any() or np.isnan(log_null).any() or (log_emit == INFINITY).any() \
            or (log_null == INFINITY).any():
        raise ValueError("log emissions must not be NaN or +inf")
    if not 0.0 <= p0 < 1.0:
        raise ValueError(f"p0 must be in [0, 1), got {p0}")
    return AlignmentHMM(log_emit, log_null, jump, p0)


def posteriors(log_emit, log_null, jump, double p0, bint statistics=True):
    """Forward-backward of one direction.

    log_emit (float64 (q, p)), log_null (float64 (q,)), jump (float64 (2B + 1,)), p0: see AlignmentHMM.
    RETURNS (dict): "log_likelihood" (log P(f | e) without the length term; -inf if no alignment has
        weight), "post" (q, p) P(word k aligned to position i), "null" (q,) P(word k aligned to NULL), and
        with `statistics` "jumps" (2B + 1,) expected jump counts by clamped width. Time O(q p^2).
    """
    cdef AlignmentHMM g = _checked(log_emit, log_null, jump, p0)
    cdef LogSemiring lg
    cdef Py_ssize_t S = g.n_states, B = g.max_jump
    cdef double[::1] chart = np.empty(g.n_items)
    cdef double[::1] q = np.zeros(g.n_items)
    cdef double[::1] counts = np.zeros(2 * B + 1)
    cdef double log_z
    cdef int status = 0
    cdef int failed = 0
    with nogil:
        failed = inside(&lg, g, &chart[0], &log_z)
        if failed == 0 and log_z > -INFINITY:
            failed = backward(&lg, g, &chart[0], &q[0])
            if failed == 0 and statistics:
                status = jump_statistics(g, &chart[0], &q[0], &counts[0])
    if failed != 0 or status < 0:
        raise MemoryError("could not allocate the HMM pass buffers")
    states = np.asarray(q)[1:1 + g.q * S].reshape(g.q, S)
    out = {"log_likelihood": float(log_z), "post": states[:, :g.p].copy(), "null": states[:, g.p:].sum(axis=1)}
    if statistics:
        out["jumps"] = np.asarray(counts)
    return out


def viterbi(log_emit, log_null, jump, double p0):
    """The best alignment of one direction.

    RETURNS (tuple): (best log score, int64 (q,) the aligned position of each word, -1 for NULL); the score
        is -inf (and the alignment all -1) if no alignment has weight. Time O(q p^2).
    """
    cdef AlignmentHMM g = _checked(log_emit, log_null, jump, p0)
    cdef MaxSemiring mx
    cdef PathSemiring path
    cdef Py_ssize_t S = g.n_states
    cdef double[::1] chart = np.empty(g.n_items)
    cdef double[::1] q = np.zeros(g.n_items)
    cdef double best
    cdef int failed = 0
    with nogil:
        failed = inside(&mx, g, &chart[0], &best)
        if failed == 0 and best > -INFINITY:
            failed = backward(&path, g, &chart[0], &q[0])
    if failed != 0:
        raise MemoryError("could not allocate the HMM pass buffers")
    align = np.full(g.q, -1, dtype=np.int64)
    if best > -INFINITY:
        states = np.asarray(q)[1:1 + g.q * S].reshape(g.q, S)
        chosen = states.argmax(axis=1)
        align = np.where(chosen < g.p, chosen, -1).astype(np.int64)
    return float(best), align
