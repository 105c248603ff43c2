# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Vine parsing: projective dependency parsing with arcs of bounded length, in
time linear in the sentence length, as a hypergraph.

References:
* J. Eisner and N. A. Smith. Parsing with soft and hard constraints on
  dependency length. IWPT 2005. (Vine grammars: short arcs inside projective
  subtrees, subtree roots strung on a "vine" at the root.)
* A. M. Rush and S. Petrov. Vine pruning for efficient multi-pass dependency
  parsing. NAACL 2012. (The vine as the first pass of a cascade; outer arcs
  summarise the long arcs a vine word would take.)

Model. Positions 0..n, 0 the root (the vine); band b >= 1. A vine structure
splits words 1..n, left to right, into projective subtrees whose arcs h -> m
all have 1 <= |h - m| <= b. The root of each subtree (a vine word) m takes
one of three labels: ROOT (score root[m]), OUTER-LEFT (its true head lies
more than b to its left; offered only when m - b > 1; score outer[m, 0]) or
OUTER-RIGHT (more than b to its right; only when m + b < n; outer[m, 1]).
The score of a structure is the sum of its short arcs and its labels.

Items (b' = the band; every span below has width <= b'):

    J[s, t]   the halves of a span whose end points are about to be linked,
              0 < t - s <= b':      J[s, t] = (+)_{s <= r < t} C[s, r] * C[t, r + 1]
    I[h, m]   the short arc h -> m: I[h, m] = J[min, max] * s(h, m)
    C[h, e]   complete span of h reaching e, 0 < |h - e| < b':
              C[s, t] = (+)_{r in right(s), r <= t} I[s, r] * C[r, t]
              C[t, s] = (+)_{r in left(t),  r >= s} C[r, s] * I[t, r]
              C[h, h] is the unit (item 0).

A vine word's subtree may be arbitrarily wide, but its outermost arcs form two
spines (the farthest-left child of the farthest-left child ..., and the same
to the right) whose links are short; the vine items walk along them left to
right instead of building wide complete spans:

    Lsp[x]    words before x are finished and x heads a left spine:
              Lsp[x] = V[x - 1]  (+)  (+)_{c in left(x)} Lsp[c] * I[x, c]
    R/OL/OR[x] x is a vine word with that label:  R[x] = Lsp[x] * root[x], ...
    W[x]      x is on the right spine of the current vine word:
              W[x] = R[x] (+) OL[x] (+) OR[x]  (+)  (+)_{p in heads_left(x)} W[p] * I[p, x]
    V[x]      = W[x] (the spine ends at x, so does the subtree); V[0] = unit;
              goal V[n].

Each structure has exactly one derivation (Eisner's decomposition of the
spans inside the spines, and the spines themselves are determined by the
tree), so Max and Log over derivations are max and logsumexp over
structures. Each arc is carried by one I item and each label by one item, so
their max-marginals and marginals are read off q directly.

Only allowed arcs (finite scores) create I items and are iterated; complete
spans are scheduled only where their head has an allowed modifier in range.
Time O(n b^2), items and memory O(n b), per-sentence setup O(n b); the tables
live in buffers of the grammar object that grow with the largest sentence and
are reused (see vine.pxd for the C API).
"""
import numpy as np
from libc.math cimport INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport free
from .hypergraph cimport Hypergraph
from .memory cimport (grow, memory_limit, STATUS_OK, STATUS_OUT_OF_MEMORY, STATUS_TOO_LARGE,
                      STATUS_BAD_SCORE, SCORE_BOUND)
from .memory import check_status


cdef inline bint _bad(double v) noexcept nogil:
    """NaN, +inf, or a finite value beyond SCORE_BOUND (-inf is fine)."""
    return not (v <= SCORE_BOUND and (v >= -SCORE_BOUND or v == -INFINITY))


cdef class Vine(Hypergraph):
    """The vine grammar, read from the band of full-size score arrays.

    Python set-up: Vine(scores, outer, band, mask=None, outer_mask=None) (tests;
    the checked faces use the C API through calls.pyx); Vine() is empty.
    scores (float64 (n + 1, n + 1)): short arc scores [h, m] for h, m >= 1 and
        1 <= |h - m| <= band, ROOT label scores [0, m]; no other entry is read.
        -inf = impossible.
    outer (float64 (n + 1, 2)): OUTER-LEFT [m, 0] / OUTER-RIGHT [m, 1] label
        scores; row 0 is not read. Labels impossible by geometry are never
        offered.
    band (int >= 1): the longest short arc. A band past n - 1 admits the same
        structures as n - 1 (no outer label is possible), so it is clamped.
    mask (bool or uint8 (n + 1, n + 1) or None), outer_mask (bool or uint8
        (n + 1, 2) or None): allowed short arcs and ROOT labels, allowed outer
        labels; read on the same entries.
    NaN, +inf or finite values beyond SCORE_BOUND among the entries read, masked
    or not, are reported (scanned row-major, the first one). Construction is
    O(n b): the band is copied into an (n + 1, 2 b) table, validated and turned
    into allowed-arc lists in one pass.
    """

    def __init__(self, scores=None, outer=None, Py_ssize_t band=1, mask=None, outer_mask=None):
        self.n = -1
        if scores is None:
            return
        cdef Py_ssize_t N = np.shape(scores)[0]
        if np.shape(scores) != (N, N) or N < 1:
            raise ValueError(f"scores must have shape (n + 1, n + 1), got {np.shape(scores)}")
        if np.shape(outer) != (N, 2):
            raise ValueError(f"outer must have shape ({N}, 2), got {np.shape(outer)}")
        if band < 1:
            raise ValueError(f"band must be >= 1, got {band}")
        cdef const double[:, ::1] sc = np.ascontiguousarray(scores, dtype=np.float64)
        cdef const double[:, ::1] ou = np.ascontiguousarray(outer, dtype=np.float64)
        cdef const unsigned char[:, ::1] mk
        cdef const unsigned char[:, ::1] omk
        cdef const unsigned char* mp = NULL
        cdef const unsigned char* omp = NULL
        if mask is not None:
            mk = np.ascontiguousarray(mask).view(np.uint8)
            if mk.shape[0] != N or mk.shape[1] != N:
                raise ValueError(f"mask has shape {np.shape(mask)} but scores have shape {(N, N)}")
            mp = &mk[0, 0]
        if outer_mask is not None:
            omk = np.ascontiguousarray(outer_mask).view(np.uint8)
            if omk.shape[0] != N or omk.shape[1] != 2:
                raise ValueError(f"outer_mask has shape {np.shape(outer_mask)} but outer has shape {(N, 2)}")
            omp = &omk[0, 0]
        cdef int status
        with nogil:
            status = self.reset(N - 1, band, &sc[0, 0], N, &ou[0, 0], 2, mp, N, omp, 2)
        if status == STATUS_BAD_SCORE:
            name = "scores" if self.bad_in_outer == 0 else "outer"
            value = (sc if self.bad_in_outer == 0 else ou)[self.bad_i, self.bad_j]
            if value != value:
                raise ValueError(f"{name} contains NaN (first at [{self.bad_i}, {self.bad_j}])")
            if value == INFINITY:
                raise ValueError(f"{name} contains +inf (first at [{self.bad_i}, {self.bad_j}])")
            raise ValueError(f"{name}[{self.bad_i}, {self.bad_j}] = {value!r} is outside the finite score "
                             f"range [-{SCORE_BOUND:g}, {SCORE_BOUND:g}] (use -inf for an impossible arc)")
        check_status(status, self.bytes_needed, "the vine pass")

    def __dealloc__(self):
        free(self.doubles)
        free(self.ints)
        free(self.order_buf)

    cdef int reset(self, Py_ssize_t n, Py_ssize_t band, const double* scores, Py_ssize_t stride,
                   const double* outer, Py_ssize_t outer_stride, const unsigned char* mask,
                   Py_ssize_t mask_stride, const unsigned char* outer_mask,
                   Py_ssize_t outer_mask_stride) noexcept nogil:
        cdef Py_ssize_t N = n + 1, b
        self.n = -1
        self.n_items = self.n_order = 0
        b = band if band < N - 2 else N - 2
        if b < 1:
            b = 1
        self.N, self.band = N, b
        self.block = N * b
        self.vine_base = 1 + 5 * self.block
        self.bytes_needed = (<size_t>N * (2 * b + 3) * sizeof(double) + <size_t>N * (3 * b + 3) * sizeof(int)
                             + <size_t>(self.vine_base + 5 * N) * (2 * sizeof(double) + sizeof(int))
                             + (b + 3) * 24)
        if self.bytes_needed > memory_limit() or self.vine_base + 5 * N > 2147483647:
            return STATUS_TOO_LARGE
        if (grow(<void**>&self.doubles, &self.doubles_cap, N * (2 * b + 3), sizeof(double)) != 0
                or grow(<void**>&self.ints, &self.ints_cap, N * (3 * b + 3), sizeof(int)) != 0
                or grow(<void**>&self.order_buf, &self.order_cap, self.vine_base + 5 * N, sizeof(int)) != 0):
            return STATUS_OUT_OF_MEMORY
        self.arcs, self.root, self.outer = self.doubles, self.doubles + 2 * N * b, self.doubles + N * (2 * b + 1)
        self.right, self.left, self.lheads = self.ints, self.ints + N * b, self.ints + 2 * N * b
        self.n_right, self.n_left, self.n_lheads = self.ints + 3 * N * b, self.ints + 3 * N * b + N, self.ints + 3 * N * b + 2 * N
        self.n_items = self.vine_base + 5 * N
        self.max_edges = b + 3
        self.goal = self.V(N - 1) if N > 1 else 0
        if self._read(scores, stride, outer, outer_stride, mask, mask_stride, outer_mask,
                      outer_mask_stride) != STATUS_OK:
            self.n_items = 0
            return STATUS_BAD_SCORE
        self._index()
        self.order = self.order_buf
        self.n_order = self._schedule()
        self.n = n
        return STATUS_OK

    cdef int _read(self, const double* scores, Py_ssize_t stride, const double* outer,
                   Py_ssize_t outer_stride, const unsigned char* mask, Py_ssize_t mask_stride,
                   const unsigned char* outer_mask, Py_ssize_t outer_mask_stride) noexcept nogil:
        """Copy and check the entries the model reads, row-major: O(n b)."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, j
        cdef double v
        for h in range(N):
            for j in range(2 * b):
                self.arcs[h * 2 * b + j] = -INFINITY
            self.root[h] = -INFINITY
            self.outer[2 * h] = self.outer[2 * h + 1] = -INFINITY
        for m in range(1, N):
            v = scores[m]
            if _bad(v):
                return self._report(0, 0, m)
            if mask == NULL or mask[m]:
                self.root[m] = v
        for h in range(1, N):
            for m in range(max(1, h - b), min(N, h + b + 1)):     # increasing m: row-major
                if m == h:
                    continue
                v = scores[h * stride + m]
                if _bad(v):
                    return self._report(0, h, m)
                if v == -INFINITY or (mask != NULL and not mask[h * mask_stride + m]):
                    continue
                if m < h:
                    self.arcs[h * 2 * b + b + h - m - 1] = v
                else:
                    self.arcs[h * 2 * b + m - h - 1] = v
            for j in range(2):
                v = outer[h * outer_stride + j]
                if _bad(v):
                    return self._report(1, h, j)
                if outer_mask == NULL or outer_mask[h * outer_mask_stride + j]:
                    self.outer[2 * h + j] = v
        return STATUS_OK

    cdef int _report(self, int in_outer, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
        self.bad_in_outer, self.bad_i, self.bad_j = in_outer, i, j
        return STATUS_BAD_SCORE

    cdef void _index(self) noexcept nogil:
        """The allowed-arc lists, closest first, from the band copy: O(n b)."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, d
        for h in range(N):
            self.n_right[h] = self.n_left[h] = self.n_lheads[h] = 0
        for h in range(1, N):
            for d in range(1, b + 1):
                m = h + d
                if m < N and self.arc(h, m) > -INFINITY:
                    self.right[h * b + self.n_right[h]] = <int>m
                    self.n_right[h] += 1
                m = h - d
                if m >= 1 and self.arc(h, m) > -INFINITY:
                    self.left[h * b + self.n_left[h]] = <int>m
                    self.n_left[h] += 1
                if m >= 1 and self.arc(m, h) > -INFINITY:    # m = h - d heads h
                    self.lheads[h * b + self.n_lheads[h]] = <int>m
                    self.n_lheads[h] += 1

    # Item layout: the unit, then five (N, b) blocks J, right I, left I, right C,
    # left C indexed by (left end or head, width - 1), then five length-N blocks
    # Lsp, R, OL, OR, W.
    cdef inline int item_J(self, Py_ssize_t s, Py_ssize_t t) noexcept nogil:
        return <int>(1 + s * self.band + (t - s - 1))

    cdef inline int item_I(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
        if h < m:
            return <int>(1 + self.block + h * self.band + (m - h - 1))
        return <int>(1 + 2 * self.block + h * self.band + (h - m - 1))

    cdef inline int item_C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        if h < e:
            return <int>(1 + 3 * self.block + h * self.band + (e - h - 1))
        if h > e:
            return <int>(1 + 4 * self.block + h * self.band + (h - e - 1))
        return 0

    cdef inline int Lsp(self, Py_ssize_t x) noexcept nogil:
        return <int>(self.vine_base + x)

    cdef inline int Label(self, Py_ssize_t x, Py_ssize_t label) noexcept nogil:
        """label 0 = ROOT, 1 = OUTER-LEFT, 2 = OUTER-RIGHT."""
        return <int>(self.vine_base + (1 + label) * self.N + x)

    cdef inline int V(self, Py_ssize_t x) noexcept nogil:
        """The item W[x] (V[x] = W[x] is the same item); V[0] is the unit."""
        if x == 0:
            return 0
        return <int>(self.vine_base + 4 * self.N + x)

    cdef inline bint offered(self, Py_ssize_t x, Py_ssize_t label) noexcept nogil:
        """Whether vine word x may take the label (geometry and a finite score)."""
        if label == 0:
            return self.root[x] > -INFINITY
        if label == 1:
            return x - self.band > 1 and self.outer[2 * x] > -INFINITY
        return x + self.band < self.N - 1 and self.outer[2 * x + 1] > -INFINITY

    cdef inline double arc(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
        if h < m:
            return self.arcs[h * 2 * self.band + m - h - 1]
        return self.arcs[h * 2 * self.band + self.band + h - m - 1]

    cdef inline bint has_c(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        """Whether C[h, e] is scheduled: e == h, or h has an allowed modifier
        between itself and e (the closest one is first in its list)."""
        if h < e:
            return self.n_right[h] > 0 and self.right[h * self.band] <= e
        if h > e:
            return self.n_left[h] > 0 and self.left[h * self.band] >= e
        return True

    cdef Py_ssize_t _schedule(self) noexcept nogil:
        """Items in topological order: by right end t, then by increasing width;
        after all spans ending at t, the vine items of t."""
        cdef Py_ssize_t N = self.N, b = self.band, s, t, width, label, k = 0
        cdef int* order = self.order_buf
        cdef bint arc_st, arc_ts
        for t in range(1, N):
            for width in range(1, min(b, t - 1) + 1):
                s = t - width
                arc_st = self.arc(s, t) > -INFINITY
                arc_ts = self.arc(t, s) > -INFINITY
                if arc_st or arc_ts:
                    order[k] = self.item_J(s, t); k += 1
                    if arc_st:
                        order[k] = self.item_I(s, t); k += 1
                    if arc_ts:
                        order[k] = self.item_I(t, s); k += 1
                if width < b:
                    if self.has_c(s, t):
                        order[k] = self.item_C(s, t); k += 1
                    if self.has_c(t, s):
                        order[k] = self.item_C(t, s); k += 1
            order[k] = self.Lsp(t); k += 1
            for label in range(3):
                if self.offered(t, label):
                    order[k] = self.Label(t, label); k += 1
            order[k] = self.V(t); k += 1
        return k

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t kind, rest, a, e, d, r, i, k = 0
        if item >= self.vine_base:
            kind = (item - self.vine_base) // self.N
            a = (item - self.vine_base) % self.N
            if kind == 0:                   # Lsp[a] = V[a - 1] (+) Lsp[c] * I[a, c]
                t1[0] = self.V(a - 1); t2[0] = 0; w[0] = 0.0
                k = 1
                for i in range(self.n_left[a]):
                    r = self.left[a * self.band + i]
                    t1[k] = self.Lsp(r); t2[k] = self.item_I(a, r); w[k] = 0.0
                    k += 1
                return k
            if kind <= 3:                   # label item: Lsp[a] * label score
                t1[0] = self.Lsp(a); t2[0] = 0
                w[0] = self.root[a] if kind == 1 else self.outer[2 * a + kind - 2]
                return 1
            for i in range(3):              # W[a] = labels (+) W[p] * I[p, a]
                if self.offered(a, i):
                    t1[k] = self.Label(a, i); t2[k] = 0; w[k] = 0.0
                    k += 1
            for i in range(self.n_lheads[a]):
                r = self.lheads[a * self.band + i]
                t1[k] = self.V(r); t2[k] = self.item_I(r, a); w[k] = 0.0     # V(r) is W[r]
                k += 1
            return k
        kind = (item - 1) // self.block
        rest = (item - 1) % self.block
        a = rest // self.band
        d = rest % self.band + 1
        if kind == 0:                       # J[a, a + d] = C[a, r] * C[a + d, r + 1]
            e = a + d
            for r in range(a, e):
                if self.has_c(a, r) and self.has_c(e, r + 1):
                    t1[k] = self.item_C(a, r); t2[k] = self.item_C(e, r + 1); w[k] = 0.0
                    k += 1
            return k
        if kind <= 2:                       # I[a, e] = J[min, max] * s(a, e)
            e = a + d if kind == 1 else a - d
            t1[0] = self.item_J(a, e) if kind == 1 else self.item_J(e, a)
            t2[0] = 0
            w[0] = self.arc(a, e)
            return 1
        if kind == 3:                       # C[a, a + d] = I[a, r] * C[r, a + d]
            e = a + d
            for i in range(self.n_right[a]):
                r = self.right[a * self.band + i]
                if r > e:
                    break
                if self.has_c(r, e):
                    t1[k] = self.item_I(a, r); t2[k] = self.item_C(r, e); w[k] = 0.0
                    k += 1
            return k
        e = a - d                           # C[a, a - d] = C[r, a - d] * I[a, r]
        for i in range(self.n_left[a]):
            r = self.left[a * self.band + i]
            if r < e:
                break
            if self.has_c(r, e):
                t1[k] = self.item_C(r, e); t2[k] = self.item_I(a, r); w[k] = 0.0
                k += 1
        return k

    # -----------------------------------------------------------------------
    # Reading arc and label quantities out of a per-item array q (O(n b) plus
    # the dense output).

    cdef Py_ssize_t n_words(self) noexcept nogil:
        return self.N - 1

    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil:
        """q of I[h, m] at allowed short arcs [h, m], of the ROOT label at allowed
        [0, m], `fill` elsewhere. Written row by row, so each page of the dense
        output is touched once."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, i
        for h in range(N):
            for m in range(N):
                out[h * stride + m] = fill
            if h == 0:
                for m in range(1, N):
                    if self.offered(m, 0):
                        out[m] = q[self.Label(m, 0)]
                continue
            for i in range(self.n_right[h]):
                m = self.right[h * b + i]
                out[h * stride + m] = q[self.item_I(h, m)]
            for i in range(self.n_left[h]):
                m = self.left[h * b + i]
                out[h * stride + m] = q[self.item_I(h, m)]

    cdef void read_outer(self, const double* q, double* out, double fill) noexcept nogil:
        """(n + 1) x 2, contiguous: q of the OUTER-LEFT / OUTER-RIGHT label items
        where offered, `fill` elsewhere (row 0 included)."""
        cdef Py_ssize_t m, label
        for m in range(self.N):
            for label in range(1, 3):
                out[2 * m + label - 1] = q[self.Label(m, label)] if m > 0 and self.offered(m, label) else fill

    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil:
        """Heads of the structure marked by q == 1 (a Path or Sample result):
        heads[0] = -1, 0 for vine words."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, i, label
        for m in range(N):
            heads[m] = -1
        for h in range(1, N):
            for i in range(self.n_right[h]):
                m = self.right[h * b + i]
                if q[self.item_I(h, m)] > 0.5:
                    heads[m] = h
            for i in range(self.n_left[h]):
                m = self.left[h * b + i]
                if q[self.item_I(h, m)] > 0.5:
                    heads[m] = h
        for m in range(1, N):
            for label in range(3):
                if self.offered(m, label) and q[self.Label(m, label)] > 0.5:
                    heads[m] = 0

    cdef void read_attach(self, const double* q, signed char* attach) noexcept nogil:
        """Attachment of each word in the structure marked by q: 0 = short head,
        1 = ROOT, 2 = OUTER-LEFT, 3 = OUTER-RIGHT (attach[0] = 0)."""
        cdef Py_ssize_t m, label
        for m in range(self.N):
            attach[m] = 0
            if m == 0:
                continue
            for label in range(3):
                if self.offered(m, label) and q[self.Label(m, label)] > 0.5:
                    attach[m] = <signed char>(1 + label)

    cdef int best_vine(self, double* score, int64_t* heads, signed char* attach) noexcept nogil:
        cdef int status = self.best(score, heads)
        if status == STATUS_OK:
            self.read_attach(self.q, attach)
        return status

    cdef int max_marginals_vine(self, double* best, double* arc_mm, Py_ssize_t stride,
                                double* outer_mm) noexcept nogil:
        cdef int status = self.max_marginals(best, arc_mm, stride)
        if status == STATUS_OK:
            self.read_outer(self.q, outer_mm, -INFINITY)
        return status

    cdef int marginals_vine(self, double* log_z, double* arc_marg, Py_ssize_t stride,
                            double* outer_marg) noexcept nogil:
        cdef int status = self.marginals(log_z, arc_marg, stride)
        if status == STATUS_OK:
            self.read_outer(self.q, outer_marg, 0.0)
        return status

    # -- Python views (tests) ----------------------------------------------------

    def arc_matrix(self, q, double fill):
        """(n + 1, n + 1) array of q at allowed short arcs and ROOT labels (`read_arcs`)."""
        cdef const double[::1] qv = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty((self.N, self.N))
        cdef double[:, ::1] o = out
        self.read_arcs(&qv[0], &o[0, 0], self.N, fill, True)
        return out

    def outer_matrix(self, q, double fill):
        """(n + 1, 2) array of q at offered outer labels (`read_outer`)."""
        cdef const double[::1] qv = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty((self.N, 2))
        cdef double[:, ::1] o = out
        self.read_outer(&qv[0], &o[0, 0], fill)
        return out

    def decode(self, q):
        """(heads, labels) of the structure marked by q == 1: heads int64 and
        labels int8 (see `read_attach`)."""
        cdef const double[::1] qv = np.ascontiguousarray(q, dtype=np.float64)
        heads = np.empty(self.N, dtype=np.int64)
        labels = np.empty(self.N, dtype=np.int8)
        cdef int64_t[::1] hv = heads
        cdef signed char[::1] lv = labels
        self.read_heads(&qv[0], &hv[0])
        self.read_attach(&qv[0], &lv[0])
        return heads, labels

    @property
    def n_scheduled(self):
        """How many items the schedule lists (O(n b))."""
        return self.n_order
