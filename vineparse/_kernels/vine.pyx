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
Time O(n b^2), items and memory O(n b), per-sentence setup O(n b).
"""
import numpy as np
from libc.math cimport INFINITY
from .hypergraph cimport Hypergraph


cdef inline int _check(double v, str name, Py_ssize_t i, Py_ssize_t j) except -1:
    """Raise for a NaN or +inf input entry [i, j]."""
    if v != v:
        raise ValueError(f"{name} contains NaN (first at [{i}, {j}])")
    if v == INFINITY:
        raise ValueError(f"{name} contains +inf (first at [{i}, {j}])")
    return 0


cdef class Vine(Hypergraph):
    """The vine grammar, read from the band of full-size score arrays.

    scores (float64 (n + 1, n + 1), any strides): short arc scores [h, m] for
        h, m >= 1 and 1 <= |h - m| <= band, ROOT label scores [0, m]; no other
        entry is read. -inf = impossible.
    outer (float64 (n + 1, 2)): OUTER-LEFT [m, 0] / OUTER-RIGHT [m, 1] label
        scores; row 0 is not read. Labels impossible by geometry are never
        offered.
    band (int >= 1): the longest short arc. A band past n - 1 admits the same
        structures as n - 1 (no outer label is possible), so it is clamped.
    mask (bool or uint8 (n + 1, n + 1) or None), outer_mask (bool or uint8
        (n + 1, 2) or None): allowed short arcs and ROOT labels, allowed outer
        labels; read on the same entries.
    Raises ValueError for NaN or +inf among the entries read, masked or not
    (scanned row-major, the first is named). Construction is
    O(n b): the band is copied into an (n + 1, 2 b) array (`arcs`), validated
    and turned into allowed-arc lists in one pass.
    """
    cdef double[:, ::1] arcs        # [h, d - 1]: h -> h + d; [h, b + d - 1]: h -> h - d
    cdef double[::1] root
    cdef double[:, ::1] outer
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t band
    cdef Py_ssize_t N, block, vine_base
    # Allowed short arcs, closest first: right modifiers of h, left modifiers
    # of h, and left heads of m (p < m with p -> m).
    cdef int[:, ::1] right
    cdef int[:, ::1] left
    cdef int[:, ::1] lheads
    cdef int[::1] n_right
    cdef int[::1] n_left
    cdef int[::1] n_lheads

    def __init__(self, scores, outer, Py_ssize_t band, mask=None, outer_mask=None):
        cdef Py_ssize_t N = np.shape(scores)[0]
        if np.shape(scores) != (N, N) or N < 1:
            raise ValueError(f"scores must have shape (n + 1, n + 1), got {np.shape(scores)}")
        if np.shape(outer) != (N, 2):
            raise ValueError(f"outer must have shape ({N}, 2), got {np.shape(outer)}")
        if band < 1:
            raise ValueError(f"band must be >= 1, got {band}")
        if mask is not None:
            mask = np.asarray(mask).view(np.uint8)
            if mask.shape != (N, N):
                raise ValueError(f"mask has shape {mask.shape} but scores have shape {(N, N)}")
        if outer_mask is not None:
            outer_mask = np.asarray(outer_mask).view(np.uint8)
            if outer_mask.shape != (N, 2):
                raise ValueError(f"outer_mask has shape {outer_mask.shape} but outer has shape {(N, 2)}")
        self.N, self.n = N, N - 1
        self.band = min(band, max(N - 2, 1))
        self.block = N * self.band
        self.vine_base = 1 + 5 * self.block
        self.n_items = self.vine_base + 5 * N
        self.max_edges = self.band + 3
        self.goal = self.V(N - 1) if N > 1 else 0
        self._read(scores, outer, mask, outer_mask)
        self.order = self._schedule()

    cdef int _read(self, const double[:, :] scores, const double[:, :] outer,
                    const unsigned char[:, :] mask, const unsigned char[:, :] outer_mask) except -1:
        """Copy, check and index the entries the model reads, row-major: O(n b)."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, j
        cdef double v
        cdef bint masked = mask is not None, outer_masked = outer_mask is not None
        self.arcs = np.full((N, 2 * b), -INFINITY)
        self.root = np.full(N, -INFINITY)
        self.outer = np.full((N, 2), -INFINITY)
        self.right = np.empty((N, b), dtype=np.int32)
        self.left = np.empty((N, b), dtype=np.int32)
        self.lheads = np.empty((N, b), dtype=np.int32)
        self.n_right = np.zeros(N, dtype=np.int32)
        self.n_left = np.zeros(N, dtype=np.int32)
        self.n_lheads = np.zeros(N, dtype=np.int32)
        for m in range(1, N):
            _check(scores[0, m], "scores", 0, m)
            if not masked or mask[0, m]:
                self.root[m] = scores[0, m]
        for h in range(1, N):
            for m in range(max(1, h - b), min(N, h + b + 1)):     # increasing m: row-major
                v = scores[h, m]
                if m == h:
                    continue
                _check(v, "scores", h, m)
                if v == -INFINITY or (masked and not mask[h, m]):
                    continue
                if m < h:
                    self.arcs[h, b + h - m - 1] = v
                else:
                    self.arcs[h, m - h - 1] = v
            for j in range(2):
                _check(outer[h, j], "outer", h, j)
                if not outer_masked or outer_mask[h, j]:
                    self.outer[h, j] = outer[h, j]
        self._index()
        return 0

    cdef void _index(self) noexcept:
        """The allowed-arc lists, closest first, from the band copy: O(n b)."""
        cdef Py_ssize_t N = self.N, b = self.band, h, m, d
        for h in range(1, N):
            for d in range(1, b + 1):
                m = h + d
                if m < N and self.arc(h, m) > -INFINITY:
                    self.right[h, self.n_right[h]] = <int>m
                    self.n_right[h] += 1
                m = h - d
                if m >= 1 and self.arc(h, m) > -INFINITY:
                    self.left[h, self.n_left[h]] = <int>m
                    self.n_left[h] += 1
                if m >= 1 and self.arc(m, h) > -INFINITY:    # m = h - d heads h
                    self.lheads[h, self.n_lheads[h]] = <int>m
                    self.n_lheads[h] += 1

    # Item layout: the unit, then five (N, b) blocks J, right I, left I, right C,
    # left C indexed by (left end or head, width - 1), then five length-N blocks
    # Lsp, R, OL, OR, W.
    cdef inline int J(self, Py_ssize_t s, Py_ssize_t t) noexcept nogil:
        return <int>(1 + s * self.band + (t - s - 1))

    cdef inline int I(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
        if h < m:
            return <int>(1 + self.block + h * self.band + (m - h - 1))
        return <int>(1 + 2 * self.block + h * self.band + (h - m - 1))

    cdef inline int C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
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
            return x - self.band > 1 and self.outer[x, 0] > -INFINITY
        return x + self.band < self.n and self.outer[x, 1] > -INFINITY

    cdef inline double arc(self, Py_ssize_t h, Py_ssize_t m) noexcept nogil:
        if h < m:
            return self.arcs[h, m - h - 1]
        return self.arcs[h, self.band + h - m - 1]

    cdef inline bint has_c(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        """Whether C[h, e] is scheduled: e == h, or h has an allowed modifier
        between itself and e (the closest one is first in its list)."""
        if h < e:
            return self.n_right[h] > 0 and self.right[h, 0] <= e
        if h > e:
            return self.n_left[h] > 0 and self.left[h, 0] >= e
        return True

    cdef int[::1] _schedule(self):
        """Items in topological order: by right end t, then by increasing width;
        after all spans ending at t, the vine items of t."""
        cdef Py_ssize_t N = self.N, b = self.band, s, t, width, label, k = 0
        cdef int[::1] order = np.empty(self.n_items, dtype=np.int32)
        cdef bint arc_st, arc_ts
        for t in range(1, N):
            for width in range(1, min(b, t - 1) + 1):
                s = t - width
                arc_st = self.arc(s, t) > -INFINITY
                arc_ts = self.arc(t, s) > -INFINITY
                if arc_st or arc_ts:
                    order[k] = self.J(s, t); k += 1
                    if arc_st:
                        order[k] = self.I(s, t); k += 1
                    if arc_ts:
                        order[k] = self.I(t, s); k += 1
                if width < b:
                    if self.has_c(s, t):
                        order[k] = self.C(s, t); k += 1
                    if self.has_c(t, s):
                        order[k] = self.C(t, s); k += 1
            order[k] = self.Lsp(t); k += 1
            for label in range(3):
                if self.offered(t, label):
                    order[k] = self.Label(t, label); k += 1
            order[k] = self.V(t); k += 1
        return order[:k]

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t kind, rest, a, e, d, r, i, k = 0
        if item >= self.vine_base:
            kind = (item - self.vine_base) // self.N
            a = (item - self.vine_base) % self.N
            if kind == 0:                   # Lsp[a] = V[a - 1] (+) Lsp[c] * I[a, c]
                t1[0] = self.V(a - 1); t2[0] = 0; w[0] = 0.0
                k = 1
                for i in range(self.n_left[a]):
                    r = self.left[a, i]
                    t1[k] = self.Lsp(r); t2[k] = self.I(a, r); w[k] = 0.0
                    k += 1
                return k
            if kind <= 3:                   # label item: Lsp[a] * label score
                t1[0] = self.Lsp(a); t2[0] = 0
                w[0] = self.root[a] if kind == 1 else self.outer[a, kind - 2]
                return 1
            for i in range(3):              # W[a] = labels (+) W[p] * I[p, a]
                if self.offered(a, i):
                    t1[k] = self.Label(a, i); t2[k] = 0; w[k] = 0.0
                    k += 1
            for i in range(self.n_lheads[a]):
                r = self.lheads[a, i]
                t1[k] = self.V(r); t2[k] = self.I(r, a); w[k] = 0.0     # V(r) is W[r]
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
                    t1[k] = self.C(a, r); t2[k] = self.C(e, r + 1); w[k] = 0.0
                    k += 1
            return k
        if kind <= 2:                       # I[a, e] = J[min, max] * s(a, e)
            e = a + d if kind == 1 else a - d
            t1[0] = self.J(a, e) if kind == 1 else self.J(e, a)
            t2[0] = 0
            w[0] = self.arc(a, e)
            return 1
        if kind == 3:                       # C[a, a + d] = I[a, r] * C[r, a + d]
            e = a + d
            for i in range(self.n_right[a]):
                r = self.right[a, i]
                if r > e:
                    break
                if self.has_c(r, e):
                    t1[k] = self.I(a, r); t2[k] = self.C(r, e); w[k] = 0.0
                    k += 1
            return k
        e = a - d                           # C[a, a - d] = C[r, a - d] * I[a, r]
        for i in range(self.n_left[a]):
            r = self.left[a, i]
            if r < e:
                break
            if self.has_c(r, e):
                t1[k] = self.C(r, e); t2[k] = self.I(a, r); w[k] = 0.0
                k += 1
        return k

    # -----------------------------------------------------------------------
    # Reading arc and label quantities out of a per-item array q (O(n b) plus
    # the dense output).

    def arc_matrix(self, q, double fill):
        """(n + 1, n + 1) array: q of I[h, m] at allowed short arcs [h, m], of
        the ROOT label at allowed [0, m], `fill` elsewhere. Written in one pass,
        row by row, so each page of the dense output is touched once."""
        cdef const double[::1] qv = q
        cdef Py_ssize_t N = self.N, h, m, i
        out = np.empty((N, N))
        cdef double[:, ::1] o = out
        for h in range(N):
            o[h, :] = fill
            if h == 0:
                for m in range(1, N):
                    if self.offered(m, 0):
                        o[0, m] = qv[self.Label(m, 0)]
                continue
            for i in range(self.n_right[h]):
                m = self.right[h, i]
                o[h, m] = qv[self.I(h, m)]
            for i in range(self.n_left[h]):
                m = self.left[h, i]
                o[h, m] = qv[self.I(h, m)]
        return out

    def outer_matrix(self, q, double fill):
        """(n + 1, 2) array: q of the OUTER-LEFT / OUTER-RIGHT label items where
        offered, `fill` elsewhere (row 0 included)."""
        cdef const double[::1] qv = q
        cdef Py_ssize_t m, label
        out = np.full((self.N, 2), fill)
        cdef double[:, ::1] o = out
        for m in range(1, self.N):
            for label in range(1, 3):
                if self.offered(m, label):
                    o[m, label - 1] = qv[self.Label(m, label)]
        return out

    def decode(self, q):
        """(heads, labels) of the structure marked by q == 1 (a Path or Sample
        result): heads int64 (heads[0] = -1, 0 for vine words) and labels int8
        (0 = short head, 1 = ROOT, 2 = OUTER-LEFT, 3 = OUTER-RIGHT)."""
        cdef const double[::1] qv = q
        cdef Py_ssize_t N = self.N, h, m, i, label
        heads = np.full(N, -1, dtype=np.int64)
        labels = np.zeros(N, dtype=np.int8)
        cdef long long[::1] hv = heads
        cdef signed char[::1] lv = labels
        for h in range(1, N):
            for i in range(self.n_right[h]):
                m = self.right[h, i]
                if qv[self.I(h, m)] > 0.5:
                    hv[m] = h
            for i in range(self.n_left[h]):
                m = self.left[h, i]
                if qv[self.I(h, m)] > 0.5:
                    hv[m] = h
        for m in range(1, N):
            for label in range(3):
                if self.offered(m, label) and qv[self.Label(m, label)] > 0.5:
                    hv[m] = 0
                    lv[m] = <signed char>(1 + label)
        return heads, labels

    @property
    def n_scheduled(self):
        """How many items the schedule lists (O(n b))."""
        return self.order.shape[0]
