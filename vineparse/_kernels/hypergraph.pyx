# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One inference engine for every dynamic program in vineparse.

Each grammar (first-, second- and third-order Eisner, the vine parser, ...) is a
subclass of `Hypergraph` that enumerates the incoming edges of an item on
request. The engine runs two passes over `graph.order`:

* `inside`   forward, in a semiring of `Inside` (Max or Log):
             in[p] = (+)_e  in[a_e] + in[b_e] + w_e
* `backward` reverse, in a semiring of `Backward` (Max, Log, Path, Sample),
             pushing each parent's value to the tails of its edges; see
             semiring.pxd for what Q means in each.

So the best structure (Max inside + Path), max-marginals (Max + Max), the log
partition and marginals (Log + Log) and samples (Log + Sample) all come from one
edge enumeration per grammar. Edges are recomputed in the backward pass rather
than stored, so memory is one double per item and per chart. Work is one
enumeration per scheduled item plus O(1) per edge: a grammar that schedules
only the items its arc mask admits makes the cost follow the mask.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
from .semiring cimport (Inside, Backward, PathSemiring, SampleSemiring, reduce_sum, q_zero,
                        q_goal, parent_state, prepare_shares, share, accumulate)


cdef class Hypergraph:

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* tail1, int* tail2, double* weight) noexcept nogil:
        return 0


cdef double inside(Inside* sr, Hypergraph graph, double* chart) noexcept nogil:
    """Fill `chart` (n_items doubles) with inside values; return in[goal].

    Items outside `graph.order` keep -inf, except item 0 (the unit, 0.0).
    Returns -inf if the goal has no derivation (or NaN on allocation failure).
    """
    cdef Py_ssize_t i, j, k, p, cap = graph.max_edges
    cdef int* t1 = <int*>malloc(cap * sizeof(int))
    cdef int* t2 = <int*>malloc(cap * sizeof(int))
    cdef double* w = <double*>malloc(cap * sizeof(double))
    cdef double* buf = <double*>malloc(cap * sizeof(double))
    if t1 == NULL or t2 == NULL or w == NULL or buf == NULL:
        free(t1); free(t2); free(w); free(buf)
        return 0.0 / 0.0
    for i in range(graph.n_items):
        chart[i] = -INFINITY
    chart[0] = 0.0
    for i in range(graph.order.shape[0]):
        p = graph.order[i]
        k = graph.edges(p, t1, t2, w)
        if k == AXIOM:
            chart[p] = 0.0
            continue
        for j in range(k):
            buf[j] = chart[t1[j]] + chart[t2[j]] + w[j]
        chart[p] = reduce_sum(sr, buf, k)
    free(t1); free(t2); free(w); free(buf)
    return chart[graph.goal]


cdef void backward(Backward* sr, Hypergraph graph, const double* chart, double* q) noexcept nogil:
    """Fill `q` (n_items doubles) by pushing from the goal down (see semiring.pxd).

    `chart` must be the inside chart of the matching semiring (Max for Max and
    Path, Log for Log and Sample) and in[goal] must be finite.
    """
    cdef Py_ssize_t i, j, k, p, best_j
    cdef Py_ssize_t cap = graph.max_edges
    cdef double zero = q_zero(sr), state, c, in_p
    cdef int* t1 = <int*>malloc(cap * sizeof(int))
    cdef int* t2 = <int*>malloc(cap * sizeof(int))
    cdef double* w = <double*>malloc(cap * sizeof(double))
    cdef double* x = <double*>malloc(cap * sizeof(double))
    if t1 == NULL or t2 == NULL or w == NULL or x == NULL:
        free(t1); free(t2); free(w); free(x)
        return
    for i in range(graph.n_items):
        q[i] = zero
    q[graph.goal] = q_goal(sr, chart[graph.goal])
    for i in range(graph.order.shape[0] - 1, -1, -1):
        p = graph.order[i]
        if q[p] == zero:
            continue
        k = graph.edges(p, t1, t2, w)
        if k <= 0:
            continue
        in_p = chart[p]
        best_j = 0
        for j in range(k):
            x[j] = chart[t1[j]] + chart[t2[j]] + w[j] - in_p
            if x[j] > x[best_j]:
                best_j = j
        prepare_shares(sr, x, k)
        state = parent_state(sr, q[p])
        for j in range(k):
            c = share(sr, &state, x[j])
            if c != zero:
                q[t1[j]] = accumulate(sr, q[t1[j]], c)
                q[t2[j]] = accumulate(sr, q[t2[j]], c)
        if Backward is PathSemiring or Backward is SampleSemiring:
            # Rounding can leave a sampled mass or a tie unmatched; fall back on the best edge.
            if state > 0.0 if Backward is PathSemiring else state >= 0.0:
                q[t1[best_j]] += 1.0
                q[t2[best_j]] += 1.0
    free(t1); free(t2); free(w); free(x)


# ---------------------------------------------------------------------------
# Python entry points: one per (inside, backward) pairing. Each returns the
# goal's inside value and the backward quantity of every item as a flat array;
# the grammar knows where its arcs live in it.

import numpy as np
from .semiring cimport MaxSemiring, LogSemiring


def best_derivation(Hypergraph graph):
    """(best score, q) with q[x] == 1 on the items of one best derivation."""
    cdef MaxSemiring mx
    cdef PathSemiring path
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double[::1] q = np.empty(graph.n_items)
    cdef double best
    with nogil:
        best = inside(&mx, graph, &chart[0])
        if best > -INFINITY:
            backward(&path, graph, &chart[0], &q[0])
    return best, np.asarray(q)


def max_marginals(Hypergraph graph):
    """(best score, q) with q[x] the best score of a derivation through x (-inf if none)."""
    cdef MaxSemiring mx
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double[::1] q = np.empty(graph.n_items)
    cdef double best
    with nogil:
        best = inside(&mx, graph, &chart[0])
        if best > -INFINITY:
            backward(&mx, graph, &chart[0], &q[0])
    return best, np.asarray(q)


def marginals(Hypergraph graph):
    """(log partition, q) with q[x] the probability that a derivation uses x."""
    cdef LogSemiring lg
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double[::1] q = np.empty(graph.n_items)
    cdef double log_z
    with nogil:
        log_z = inside(&lg, graph, &chart[0])
        if log_z > -INFINITY:
            backward(&lg, graph, &chart[0], &q[0])
    return log_z, np.asarray(q)


def log_partition(Hypergraph graph):
    """The log of the summed weight of all derivations (inside pass only)."""
    cdef LogSemiring lg
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double log_z
    with nogil:
        log_z = inside(&lg, graph, &chart[0])
    return log_z


def sample_derivations(Hypergraph graph, Py_ssize_t count, unsigned long long seed):
    """(log partition, qs): qs[i, x] == 1 on the items of the i-th derivation,
    drawn independently with probability proportional to exp(score)."""
    cdef LogSemiring lg
    cdef SampleSemiring smp
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double[:, ::1] qs = np.zeros((count, graph.n_items))
    cdef double log_z
    cdef Py_ssize_t i
    smp.state = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL
    if smp.state == 0:
        smp.state = 1
    with nogil:
        log_z = inside(&lg, graph, &chart[0])
        if log_z > -INFINITY:
            for i in range(count):
                backward(&smp, graph, &chart[0], &qs[i, 0])
    return log_z, np.asarray(qs)
