# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""First-order projective dependency parsing (Eisner 1996) as a hypergraph.

Positions 0..n, 0 the root; `scores[h, m]` the score of arc h -> m. Items, for
s < t and any head h:

    J[s, t]  the two halves of a span whose end points are about to be linked:
             J[s, t] = (+)_{s <= r < t}  C[s, r] * C[t, r + 1]
    I[h, m]  incomplete span with the arc h -> m:   I[h, m] = J[min, max] * s(h, m)
    C[h, e]  complete span headed by h reaching e (either side):
             C[s, t] = (+)_{r in right(s), r <= t}  I[s, r] * C[r, t]
             C[t, s] = (+)_{r in left(t),  r >= s}  C[r, s] * I[t, r]
    C[h, h]  axiom; goal C[0, n].

Sharing J between the two directions of a span halves the O(n^3) work of the
incomplete items. With `single_root`, the root has exactly one child m:
J[0, m] = C[m, 1] and only C[0, n] is built from the root's side. Only arcs in
the mask create I items and C items iterate over allowed modifiers only.
Time O(n^3) unpruned; memory 3 (n + 1)^2 doubles per chart.

When the mask keeps many arcs, the same recurrences run on dense charts laid out
for contiguous split-point scans (eisner_dense.pyx), several times faster; the
choice is made per sentence (`dense_pays`) or forced with `engine`, behind the
same runs and read-outs.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free
from .hypergraph cimport Hypergraph, AXIOM
from .arcs cimport ArcIndex
from .memory cimport (grow, memory_limit, STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY,
                      STATUS_TOO_LARGE)
from libc.math cimport log
from .semiring cimport MaxSemiring, LogSemiring, PathSemiring, SampleSemiring, RealSemiring, RealSampleSemiring
from .eisner_dense cimport (DenseCharts, DENSE_ARRAYS, dense_point, dense_scores, dense_weights, real_is_safe,
                            dense_inside, dense_backward, dense_heads, dense_arcs)


cdef inline bint dense_pays(Py_ssize_t N, Py_ssize_t arcs) noexcept nogil:
    """Whether the dense charts beat the engine: they do all O(n^3) steps, but several
    times faster each, so unless the mask keeps less than ~4% of the arcs (measured
    on random and vine-style masks, n = 10..150: the two cost the same there)."""
    return 25 * arcs >= N * (N - 1) or N <= 24


cdef inline int J(Py_ssize_t N, Py_ssize_t s, Py_ssize_t t) noexcept nogil:
    return <int>(1 + s * N + t)


cdef inline int I(Py_ssize_t N, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
    return <int>(1 + N * N + h * N + m)


cdef inline int C(Py_ssize_t N, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
    return <int>(1 + 2 * N * N + h * N + e)


cdef class FirstOrder(Hypergraph):

    def __init__(self):
        self.arcs = ArcIndex()
        self.n = -1

    def __dealloc__(self):
        free(self.mask_buf)
        free(self.order_buf)
        free(self.dense_buf)

    cdef int reset(self, Py_ssize_t n, const double* scores, Py_ssize_t stride,
                   const unsigned char* allowed, Py_ssize_t allowed_stride, bint single_root) noexcept nogil:
        cdef Py_ssize_t N = n + 1, h, m, count = 0
        cdef int status
        cdef size_t square = <size_t>N * <size_t>N
        cdef unsigned char a
        self.n = -1
        self.n_items = self.n_order = 0
        self.bytes_needed = square
        if self.bytes_needed > memory_limit():
            return STATUS_TOO_LARGE
        if grow(<void**>&self.mask_buf, &self.mask_cap, square, 1) != 0:
            return STATUS_OUT_OF_MEMORY
        for h in range(N):              # allowed: the mask, a finite score, not into the root, no loop
            for m in range(N):
                a = (m != 0 and m != h and scores[h * stride + m] > -INFINITY
                     and (allowed == NULL or allowed[h * allowed_stride + m] != 0))
                self.mask_buf[h * N + m] = a
                count += a
        self.scores, self.stride, self.single_root, self.N = scores, stride, single_root, N
        self.dense = self.engine == ENGINE_DENSE or (self.engine == ENGINE_AUTO and dense_pays(N, count))
        if self.dense:
            status = self._reset_dense()
        else:
            status = self._reset_hypergraph()
        if status == STATUS_OK:
            self.n = n
        return status

    cdef int _reset_dense(self) noexcept nogil:
        cdef Py_ssize_t N = self.N, h, m
        cdef size_t need = DENSE_ARRAYS * <size_t>N * <size_t>N + 3 * N
        self.bytes_needed += need * sizeof(double)
        if self.bytes_needed > memory_limit():
            return STATUS_TOO_LARGE
        if grow(<void**>&self.dense_buf, &self.dense_cap, need, sizeof(double)) != 0:
            return STATUS_OUT_OF_MEMORY
        dense_point(&self.charts, self.dense_buf, N, self.single_root)
        dense_scores(&self.charts, self.scores, self.stride, self.mask_buf)
        return STATUS_OK

    cdef int _reset_hypergraph(self) noexcept nogil:
        cdef Py_ssize_t N = self.N
        cdef size_t square = <size_t>N * <size_t>N
        cdef int status = self.arcs.reset(N - 1, self.mask_buf, N)
        self.bytes_needed += self.arcs.bytes_needed + square * (3 * 2 * sizeof(double) + 4 * sizeof(int)) + N * 24
        if status != STATUS_OK:
            return status
        if self.bytes_needed > memory_limit() or 4 * square + 1 > 2147483647:
            return STATUS_TOO_LARGE
        if grow(<void**>&self.order_buf, &self.order_cap, 4 * square, sizeof(int)) != 0:
            return STATUS_OUT_OF_MEMORY
        self.n_items = 1 + 3 * N * N
        self.max_edges = N
        self.goal = C(N, 0, N - 1)
        self.order = self.order_buf
        self.n_order = self._schedule()
        return STATUS_OK

    # -- runs: the dense charts or the engine (Hypergraph's), read out alike ----------

    cdef int run_best(self, double* score) noexcept nogil:
        cdef MaxSemiring mx
        cdef PathSemiring path
        if not self.dense:
            return Hypergraph.run_best(self, score)
        self.chart = CHART_MAX
        score[0] = dense_inside(&mx, &self.charts)
        if score[0] == -INFINITY:
            return STATUS_NO_STRUCTURE
        dense_backward(&path, &self.charts)
        return STATUS_OK

    cdef int run_max_marginals(self, double* best) noexcept nogil:
        cdef MaxSemiring mx
        if not self.dense:
            return Hypergraph.run_max_marginals(self, best)
        self.chart = CHART_MAX
        best[0] = dense_inside(&mx, &self.charts)
        if best[0] == -INFINITY:
            return STATUS_NO_STRUCTURE
        dense_backward(&mx, &self.charts)
        return STATUS_OK

    cdef bint _real_inside(self, double* log_z) noexcept nogil:
        """The dense inside pass in linear space, if no value can under- or overflow."""
        cdef RealSemiring real
        cdef double z
        if not dense_weights(&self.charts):
            return False
        z = dense_inside(&real, &self.charts)
        if not real_is_safe(&self.charts, z):
            return False
        log_z[0] = log(z) + self.charts.shift
        self.chart = CHART_REAL
        return True

    cdef int run_marginals(self, double* log_z) noexcept nogil:
        cdef LogSemiring lg
        cdef RealSemiring real
        if not self.dense:
            return Hypergraph.run_marginals(self, log_z)
        if self._real_inside(log_z):
            dense_backward(&real, &self.charts)
            return STATUS_OK
        self.chart = CHART_LOG
        log_z[0] = dense_inside(&lg, &self.charts)
        if log_z[0] == -INFINITY:
            return STATUS_NO_STRUCTURE
        dense_backward(&lg, &self.charts)
        return STATUS_OK

    cdef int run_log_inside(self, double* log_z) noexcept nogil:
        cdef LogSemiring lg
        if not self.dense:
            return Hypergraph.run_log_inside(self, log_z)
        if self._real_inside(log_z):
            return STATUS_OK
        self.chart = CHART_LOG
        log_z[0] = dense_inside(&lg, &self.charts)
        return STATUS_NO_STRUCTURE if log_z[0] == -INFINITY else STATUS_OK

    cdef int run_sample(self, uint64_t* state) noexcept nogil:
        cdef SampleSemiring smp
        cdef RealSampleSemiring real
        if not self.dense:
            return Hypergraph.run_sample(self, state)
        if self.chart == CHART_REAL:
            real.state = state[0]
            dense_backward(&real, &self.charts)
            state[0] = real.state
        else:
            smp.state = state[0]
            dense_backward(&smp, &self.charts)
            state[0] = smp.state
        return STATUS_OK

    cdef Py_ssize_t _schedule(self) noexcept nogil:
        cdef Py_ssize_t N = self.N, n = N - 1, width, s, t, k = 0
        cdef const unsigned char* allowed = self.arcs.allowed
        cdef const int* right_ptr = self.arcs.right_ptr
        cdef const int* right = self.arcs.right
        cdef const int* left_ptr = self.arcs.left_ptr
        cdef const int* left = self.arcs.left
        cdef int* order = self.order_buf
        for s in range(N):
            order[k] = C(self.N, s, s); k += 1
        for width in range(1, N):
            for s in range(N - width):
                t = s + width
                if allowed[s * N + t] or (s > 0 and allowed[t * N + s]):
                    order[k] = J(self.N, s, t); k += 1
                    if allowed[s * N + t]:
                        order[k] = I(self.N, s, t); k += 1
                    if s > 0 and allowed[t * N + s]:
                        order[k] = I(self.N, t, s); k += 1
                if (right_ptr[s] < right_ptr[s + 1] and right[right_ptr[s]] <= t
                        and not (s == 0 and self.single_root and t != n)):
                    order[k] = C(self.N, s, t); k += 1
                if s > 0 and left_ptr[t] < left_ptr[t + 1] and left[left_ptr[t]] >= s:
                    order[k] = C(self.N, t, s); k += 1
        return k

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t N = self.N, kind = (item - 1) // (N * N), rest = (item - 1) % (N * N)
        cdef Py_ssize_t a = rest // N, b = rest % N, r, i, k = 0
        if kind == 0:                                   # J[a, b], a < b
            if a == 0 and self.single_root:
                t1[0] = C(self.N, 0, 0); t2[0] = C(self.N, b, 1); w[0] = 0.0
                return 1
            for r in range(a, b):
                t1[k] = C(self.N, a, r); t2[k] = C(self.N, b, r + 1); w[k] = 0.0
                k += 1
            return k
        if kind == 1:                                   # I[a, b]: arc a -> b
            t1[0] = J(self.N, a, b) if a < b else J(self.N, b, a)
            t2[0] = 0
            w[0] = self.scores[a * self.stride + b]
            return 1
        if a == b:
            return AXIOM
        if a < b:                                       # C[a, b], head a on the left
            for i in range(self.arcs.right_ptr[a], self.arcs.right_ptr[a + 1]):
                r = self.arcs.right[i]
                if r > b:
                    break
                t1[k] = I(self.N, a, r); t2[k] = C(self.N, r, b); w[k] = 0.0
                k += 1
            return k
        for i in range(self.arcs.left_ptr[a], self.arcs.left_ptr[a + 1]):   # C[a, b], head a on the right
            r = self.arcs.left[i]
            if r < b:
                break
            t1[k] = C(self.N, r, b); t2[k] = I(self.N, a, r); w[k] = 0.0
            k += 1
        return k

    cdef Py_ssize_t n_words(self) noexcept nogil:
        return self.n

    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil:
        cdef Py_ssize_t arc
        if self.dense:
            dense_heads(&self.charts, heads)
            return
        for arc in range(self.N):
            heads[arc] = -1
        for arc in range(self.arcs.n_arcs):
            if q[I(self.N, self.arcs.arc_head[arc], self.arcs.arc_mod[arc])] > 0.5:
                heads[self.arcs.arc_mod[arc]] = self.arcs.arc_head[arc]

    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil:
        cdef Py_ssize_t h, m, arc
        if self.dense:
            dense_arcs(&self.charts, self.mask_buf, out, stride, fill)
            return
        for h in range(self.N):
            for m in range(self.N):
                out[h * stride + m] = fill
        for arc in range(self.arcs.n_arcs):
            h, m = self.arcs.arc_head[arc], self.arcs.arc_mod[arc]
            out[h * stride + m] = q[I(self.N, h, m)]
