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

The charts and the edge scratch belong to the grammar object and grow with the
largest sentence it has seen (never per call); see hypergraph.pxd for the C API.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport free
from libc.stdint cimport int64_t, uint64_t
from .memory cimport grow, STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY
from .semiring cimport (Inside, Backward, MaxSemiring, LogSemiring, PathSemiring, SampleSemiring,
                        reduce_sum, q_zero, q_goal, parent_state, prepare_shares, share, accumulate)

import numpy as np


cdef class Hypergraph:

    def __dealloc__(self):
        free(self.chart)
        free(self.q)
        free(self.t1)
        free(self.t2)
        free(self.w)
        free(self.x)

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        return 0

    cdef int set_order(self, order) except -1:
        """Use an int32 array built with numpy as the schedule (kept alive by the object)."""
        array = np.ascontiguousarray(order, dtype=np.int32)
        cdef int[::1] view = array
        self._order_ref = array
        self.n_order = view.shape[0]
        self.order = &view[0] if view.shape[0] else NULL
        return 0

    cdef int reserve_edges(self) noexcept nogil:
        cdef size_t need = <size_t>(self.max_edges if self.max_edges > 0 else 1), cap
        if need <= self.edge_cap:
            return STATUS_OK
        cap = self.edge_cap         # the four buffers share one capacity: each grows alike
        if grow(<void**>&self.t1, &cap, need, sizeof(int)) != 0:
            return STATUS_OUT_OF_MEMORY
        cap = self.edge_cap
        if grow(<void**>&self.t2, &cap, need, sizeof(int)) != 0:
            return STATUS_OUT_OF_MEMORY
        cap = self.edge_cap
        if grow(<void**>&self.w, &cap, need, sizeof(double)) != 0:
            return STATUS_OUT_OF_MEMORY
        cap = self.edge_cap
        if grow(<void**>&self.x, &cap, need, sizeof(double)) != 0:
            return STATUS_OUT_OF_MEMORY
        self.edge_cap = cap
        return STATUS_OK

    cdef int reserve_charts(self) noexcept nogil:
        cdef size_t need = <size_t>(self.n_items if self.n_items > 0 else 1)
        if (grow(<void**>&self.chart, &self.chart_cap, need, sizeof(double)) != 0
                or grow(<void**>&self.q, &self.q_cap, need, sizeof(double)) != 0):
            return STATUS_OUT_OF_MEMORY
        return STATUS_OK

    # -- runs over the object's charts ---------------------------------------

    cdef int run_best(self, double* score) noexcept nogil:
        """Max inside, then Path: q marks the items of one best derivation."""
        cdef MaxSemiring mx
        cdef PathSemiring path
        cdef int status = self.reserve_charts()
        if status == STATUS_OK:
            status = inside(&mx, self, self.chart, score)
        if status == STATUS_OK and score[0] == -INFINITY:
            status = STATUS_NO_STRUCTURE
        if status == STATUS_OK:
            status = backward(&path, self, self.chart, self.q)
        return status

    cdef int run_max_marginals(self, double* best) noexcept nogil:
        """Max inside, then Max backward: q[x] = the best score of a derivation using x."""
        cdef MaxSemiring mx
        cdef int status = self.reserve_charts()
        if status == STATUS_OK:
            status = inside(&mx, self, self.chart, best)
        if status == STATUS_OK and best[0] == -INFINITY:
            status = STATUS_NO_STRUCTURE
        if status == STATUS_OK:
            status = backward(&mx, self, self.chart, self.q)
        return status

    cdef int run_marginals(self, double* log_z) noexcept nogil:
        """Log inside, then Log backward: q[x] = the probability that a derivation uses x."""
        cdef LogSemiring lg
        cdef int status = self.reserve_charts()
        if status == STATUS_OK:
            status = inside(&lg, self, self.chart, log_z)
        if status == STATUS_OK and log_z[0] == -INFINITY:
            status = STATUS_NO_STRUCTURE
        if status == STATUS_OK:
            status = backward(&lg, self, self.chart, self.q)
        return status

    cdef int run_log_inside(self, double* log_z) noexcept nogil:
        """Log inside only (the log partition); `run_sample` may follow."""
        cdef LogSemiring lg
        cdef int status = self.reserve_charts()
        if status == STATUS_OK:
            status = inside(&lg, self, self.chart, log_z)
        if status == STATUS_OK and log_z[0] == -INFINITY:
            status = STATUS_NO_STRUCTURE
        return status

    cdef int run_sample(self, uint64_t* state) noexcept nogil:
        """Sample backward over the Log chart of the last `run_log_inside` or
        `run_marginals` of this sentence: q marks one derivation drawn from
        p ∝ exp(score). `state` (non-zero) is advanced."""
        cdef SampleSemiring smp
        cdef int status
        smp.state = state[0]
        status = backward(&smp, self, self.chart, self.q)
        state[0] = smp.state
        return status

    cdef int best(self, double* score, int64_t* heads) noexcept nogil:
        cdef int status = self.run_best(score)
        if status == STATUS_OK:
            self.read_heads(self.q, heads)
        return status

    cdef int max_marginals(self, double* best, double* arc_mm, Py_ssize_t stride) noexcept nogil:
        cdef int status = self.run_max_marginals(best)
        if status == STATUS_OK:
            self.read_arcs(self.q, arc_mm, stride, -INFINITY, True)
        return status

    cdef int marginals(self, double* log_z, double* arc_marg, Py_ssize_t stride) noexcept nogil:
        cdef int status = self.run_marginals(log_z)
        if status == STATUS_OK:
            self.read_arcs(self.q, arc_marg, stride, 0.0, False)
        return status

    cdef int sample(self, uint64_t* state, Py_ssize_t count, int64_t* heads,
                    Py_ssize_t heads_stride) noexcept nogil:
        """`count` derivations drawn independently from p ∝ exp(score); the heads of
        the i-th at heads[i * heads_stride:]. `state` (non-zero) is advanced."""
        cdef double log_z
        cdef Py_ssize_t i
        cdef int status = self.run_log_inside(&log_z)
        for i in range(count):
            if status != STATUS_OK:
                break
            status = self.run_sample(state)
            if status == STATUS_OK:
                self.read_heads(self.q, heads + i * heads_stride)
        return status

    cdef Py_ssize_t n_words(self) noexcept nogil:
        return 0

    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil:
        pass

    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil:
        pass


cdef int inside(Inside* sr, Hypergraph graph, double* chart, double* goal) noexcept nogil:
    """Fill `chart` (n_items doubles) with inside values; set goal to in[goal].

    Items outside `graph.order` keep -inf, except item 0 (the unit, 0.0); goal is
    -inf if the goal has no derivation. RETURNS STATUS_OK or STATUS_OUT_OF_MEMORY.
    """
    cdef Py_ssize_t i, j, k, p
    cdef int* t1
    cdef int* t2
    cdef double* w
    cdef double* buf
    if graph.reserve_edges() != STATUS_OK:
        return STATUS_OUT_OF_MEMORY
    t1, t2, w, buf = graph.t1, graph.t2, graph.w, graph.x
    for i in range(graph.n_items):
        chart[i] = -INFINITY
    chart[0] = 0.0
    for i in range(graph.n_order):
        p = graph.order[i]
        k = graph.edges(p, t1, t2, w)
        if k == AXIOM:
            chart[p] = 0.0
            continue
        for j in range(k):
            buf[j] = chart[t1[j]] + chart[t2[j]] + w[j]
        chart[p] = reduce_sum(sr, buf, k)
    goal[0] = chart[graph.goal]
    return STATUS_OK


cdef int backward(Backward* sr, Hypergraph graph, const double* chart, double* q) noexcept nogil:
    """Fill `q` (n_items doubles) by pushing from the goal down (see semiring.pxd).

    `chart` must be the inside chart of the matching semiring (Max for Max and
    Path, Log for Log and Sample) and in[goal] must be finite.
    RETURNS STATUS_OK or STATUS_OUT_OF_MEMORY.
    """
    cdef Py_ssize_t i, j, k, p, best_j
    cdef double zero = q_zero(sr), state, c, in_p
    cdef int* t1
    cdef int* t2
    cdef double* w
    cdef double* x
    if graph.reserve_edges() != STATUS_OK:
        return STATUS_OUT_OF_MEMORY
    t1, t2, w, x = graph.t1, graph.t2, graph.w, graph.x
    for i in range(graph.n_items):
        q[i] = zero
    q[graph.goal] = q_goal(sr, chart[graph.goal])
    for i in range(graph.n_order - 1, -1, -1):
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
        prepare_shares(sr, x, k, x[best_j])
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
    return STATUS_OK


cdef uint64_t seed_state(uint64_t seed) noexcept nogil:
    """A non-zero xorshift64* state from any seed."""
    cdef uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL
    return state if state != 0 else 1


# ---------------------------------------------------------------------------
# Python entry points: one per (inside, backward) pairing, for grammars set up
# in Python. Each returns the goal's inside value and a copy of the backward
# quantity of every item as a flat array; the grammar knows where its arcs live
# in it. A goal without derivation gives -inf and an all-zero array.

def _raise(int status):
    if status == STATUS_OUT_OF_MEMORY:
        raise MemoryError("could not allocate the charts of the dynamic program")


cdef object _q_copy(Hypergraph graph, int status):
    out = np.zeros(graph.n_items)
    cdef double[::1] view = out
    cdef Py_ssize_t i
    if status == STATUS_OK:
        for i in range(graph.n_items):
            view[i] = graph.q[i]
    return out


def best_derivation(Hypergraph graph):
    """(best score, q) with q[x] == 1 on the items of one best derivation."""
    cdef double best = -INFINITY
    cdef int status
    with nogil:
        status = graph.run_best(&best)
    _raise(status)
    return best, _q_copy(graph, status)


def max_marginals(Hypergraph graph):
    """(best score, q) with q[x] the best score of a derivation through x (-inf if none)."""
    cdef double best = -INFINITY
    cdef int status
    with nogil:
        status = graph.run_max_marginals(&best)
    _raise(status)
    return best, _q_copy(graph, status)


def marginals(Hypergraph graph):
    """(log partition, q) with q[x] the probability that a derivation uses x."""
    cdef double log_z = -INFINITY
    cdef int status
    with nogil:
        status = graph.run_marginals(&log_z)
    _raise(status)
    return log_z, _q_copy(graph, status)


def log_partition(Hypergraph graph):
    """The log of the summed weight of all derivations (inside pass only)."""
    cdef double log_z = -INFINITY
    cdef int status
    with nogil:
        status = graph.run_log_inside(&log_z)
    _raise(status)
    return log_z
