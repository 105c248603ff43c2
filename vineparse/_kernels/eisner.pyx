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
Time O(n^3) unpruned; memory 3 (n + 1)^2 doubles.
"""
import numpy as np
from .hypergraph cimport Hypergraph, AXIOM
from .arcs cimport ArcIndex


cdef class FirstOrder(Hypergraph):
    cdef readonly ArcIndex arcs
    cdef const double[:, ::1] scores
    cdef readonly bint single_root
    cdef Py_ssize_t N

    def __init__(self, scores, ArcIndex arcs, bint single_root=True):
        cdef Py_ssize_t N = arcs.n + 1
        self.arcs = arcs
        self.scores = scores
        self.single_root = single_root
        self.N = N
        self.n_items = 1 + 3 * N * N
        self.max_edges = N
        self.goal = self.C(0, N - 1)
        self.order = self._schedule()

    cdef inline int J(self, Py_ssize_t s, Py_ssize_t t) noexcept nogil:
        return <int>(1 + s * self.N + t)

    cdef inline int I(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
        return <int>(1 + self.N * self.N + h * self.N + m)

    cdef inline int C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        return <int>(1 + 2 * self.N * self.N + h * self.N + e)

    def arc_view(self, q):
        """The (n + 1, n + 1) block of a per-item array that belongs to I[h, m]."""
        N = self.N
        return np.asarray(q)[1 + N * N: 1 + 2 * N * N].reshape(N, N)

    cdef int[::1] _schedule(self):
        cdef ArcIndex a = self.arcs
        cdef Py_ssize_t N = self.N, n = N - 1, width, s, t, k = 0
        cdef int[::1] order = np.empty(4 * N * N, dtype=np.int32)
        for s in range(N):
            order[k] = self.C(s, s); k += 1
        for width in range(1, N):
            for s in range(N - width):
                t = s + width
                if a.allowed[s, t] or (s > 0 and a.allowed[t, s]):
                    order[k] = self.J(s, t); k += 1
                    if a.allowed[s, t]:
                        order[k] = self.I(s, t); k += 1
                    if s > 0 and a.allowed[t, s]:
                        order[k] = self.I(t, s); k += 1
                if (a.right_ptr[s] < a.right_ptr[s + 1] and a.right[a.right_ptr[s]] <= t
                        and not (s == 0 and self.single_root and t != n)):
                    order[k] = self.C(s, t); k += 1
                if s > 0 and a.left_ptr[t] < a.left_ptr[t + 1] and a.left[a.left_ptr[t]] >= s:
                    order[k] = self.C(t, s); k += 1
        return order[:k]

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t N = self.N, kind = (item - 1) // (N * N), rest = (item - 1) % (N * N)
        cdef Py_ssize_t a = rest // N, b = rest % N, r, i, k = 0
        if kind == 0:                                   # J[a, b], a < b
            if a == 0 and self.single_root:
                t1[0] = self.C(0, 0); t2[0] = self.C(b, 1); w[0] = 0.0
                return 1
            for r in range(a, b):
                t1[k] = self.C(a, r); t2[k] = self.C(b, r + 1); w[k] = 0.0
                k += 1
            return k
        if kind == 1:                                   # I[a, b]: arc a -> b
            t1[0] = self.J(a, b) if a < b else self.J(b, a)
            t2[0] = 0
            w[0] = self.scores[a, b]
            return 1
        if a == b:
            return AXIOM
        if a < b:                                       # C[a, b], head a on the left
            for i in range(self.arcs.right_ptr[a], self.arcs.right_ptr[a + 1]):
                r = self.arcs.right[i]
                if r > b:
                    break
                t1[k] = self.I(a, r); t2[k] = self.C(r, b); w[k] = 0.0
                k += 1
            return k
        for i in range(self.arcs.left_ptr[a], self.arcs.left_ptr[a + 1]):   # C[a, b], head a on the right
            r = self.arcs.left[i]
            if r < b:
                break
            t1[k] = self.C(r, b); t2[k] = self.I(a, r); w[k] = 0.0
            k += 1
        return k
