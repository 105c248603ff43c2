# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Second-order (adjacent-sibling) projective dependency parsing as a hypergraph.

Model: McDonald & Pereira (2006), "Online learning of approximate dependency
parsing algorithms", EACL: the second-order extension of Eisner (1996), "Three
new probabilistic models for dependency parsing: an exploration", COLING. The
part is the "sibling" part of Koo & Collins (2010), "Efficient third-order
dependency parsers", ACL. A tree scores

    sum over its arcs h -> m of  scores[h, m] + sib(h, s, m)

where s is the modifier of h on m's side next closer to h, or s = h when m is
h's closest child on that side. Root arcs take sibling parts too: with
`single_root` the root has one child m and only (0, 0, m) applies; otherwise
the root's children chain like any head's right children.

Part scores: the grammar reads one compact float64 vector `sib` in the
canonical layout of `ArcIndex` (arcs.pxd): the part (h, s, m) of the arc
a = (h, m) at list position j is `sib[sib_ptr[a] + k]`, k = 0 for s = h and
k = 1 + j' for the inner sibling at list position j' < j, in the row order of
`ArcIndex.sibling_parts()`. The Python layer (vineparse/kernels/second_order.py)
gathers dense (n + 1)^3 inputs into it.

Items, positions 0..n (0 the root), a < b:

    S[a, b]  a's right half and b's left half, meeting between them (the split
             of first-order J), for the pairs that are same-side allowed
             modifiers of a common head:
             S[a, b] = (+)_{a <= r < b}  C[a, r] * C[b, r + 1]
    I[h, m]  the arc h -> m with h's modifiers between h and m (one per arc):
             h < m:  I[h, m] = s(h, m) * ( sib(h, h, m) * C[m, h + 1]
                          (+) (+)_{s in right(h), s < m}  I[h, s] * S[s, m] * sib(h, s, m) )
             m < h:  I[h, m] = s(h, m) * ( sib(h, h, m) * C[m, h - 1]
                          (+) (+)_{s in left(h), s > m}   S[m, s] * I[h, s] * sib(h, s, m) )
             With `single_root`, I[0, m] = s(0, m) * sib(0, 0, m) * C[m, 1] only.
    C[h, e]  complete span headed by h reaching e, as in first order:
             C[h, e] = (+)_{r in right(h), r <= e}  I[h, r] * C[r, e]     (h < e)
             C[h, e] = (+)_{r in left(h),  r >= e}  C[r, e] * I[h, r]     (e < h)
             C[h, h] is the unit item 0; the goal is C[0, n] (no other span of
             the root is ever used).

Work follows the mask: S items exist only for sibling pairs, I items only for
allowed arcs, and edge lists walk allowed modifiers only. Complete spans are
the one kind of item whose count does not follow the arcs (under a vine-style
mask nearly every C[h, e] with h < e can be built), so they are scheduled only
if an over-approximation of "can be built and is used on the way to the goal"
admits them (`SecondOrder._useful_spans`, bitsets over span ends): at n = 100
that is ~15% of the spans a closest modifier allows, within ~2% of the exact
set. Edges with an unscheduled tail are left out.

Time O(n^3) unpruned (O(n^2) items of O(n) edges each); memory O(n^2) for the
(n + 1)^2 tables of C items and sibling pairs plus one double per item in the
engine's charts. Setup per sentence: O(arcs * n / 64 + pairs + items) plus
filling the C table (O(n^2), like reading the mask). Every table lives in
buffers of the grammar object that grow with the longest sentence and are
reused (see eisner2.pxd for the C API).
"""
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memset
import numpy as np
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex
from .memory cimport (grow, memory_limit, STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY,
                      STATUS_TOO_LARGE)
from .memory import check_status


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int vineparse_ctz64(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i;
    }
    static inline int vineparse_popcount64(unsigned long long x) { return (int)__popcnt64(x); }
    static inline int vineparse_clz64(unsigned long long x) {
        unsigned long i; _BitScanReverse64(&i, x); return 63 - (int)i;
    }
    #else
    static inline int vineparse_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int vineparse_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int vineparse_clz64(unsigned long long x) { return __builtin_clzll(x); }
    #endif
    """
    int _ctz64 "vineparse_ctz64" (unsigned long long x) noexcept nogil
    int _popcount64 "vineparse_popcount64" (unsigned long long x) noexcept nogil
    int _clz64 "vineparse_clz64" (unsigned long long x) noexcept nogil


cdef enum:
    DEAD = 1        # the item of every complete span left unscheduled: never built, so -inf


cdef inline uint64_t _range_mask(Py_ssize_t word, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The bits of [lo, hi] that fall in 64-bit word `word` (lo <= hi)."""
    cdef uint64_t mask = ~(<uint64_t>0)
    if word == lo >> 6:
        mask &= mask << (lo & 63)
    if word == hi >> 6:
        mask &= (~(<uint64_t>0)) >> (63 - (hi & 63))
    return mask


cdef inline void _or_masked(uint64_t* dst, const uint64_t* src, Py_ssize_t W, Py_ssize_t lo,
                            Py_ssize_t hi, int shift) noexcept nogil:
    """dst |= src' & [lo, hi], where bit e of src' is bit e + shift of src (shift in -1, 0, 1)."""
    cdef Py_ssize_t i
    cdef uint64_t v
    for i in range(lo >> 6, (hi >> 6) + 1 if lo <= hi else lo >> 6):
        v = src[i]
        if shift == 1:
            v >>= 1
            if i + 1 < W:
                v |= src[i + 1] << 63
        elif shift == -1:
            v <<= 1
            if i > 0:
                v |= src[i - 1] >> 63
        dst[i] |= v & _range_mask(i, lo, hi)


cdef inline void _and_masked(uint64_t* dst, const uint64_t* src, Py_ssize_t W, Py_ssize_t lo,
                             Py_ssize_t hi) noexcept nogil:
    """dst &= src & [lo, hi] (every word of dst)."""
    cdef Py_ssize_t i
    for i in range(W):
        if lo > hi or i < lo >> 6 or i > hi >> 6:
            dst[i] = 0
        else:
            dst[i] &= src[i] & _range_mask(i, lo, hi)


cdef class SecondOrder(Hypergraph):
    """The sibling-model grammar over the arcs of its `ArcIndex` (`self.arcs`).

    Python set-up (tests): SecondOrder(scores, sib, arcs, single_root, prune_spans)
    copies the layout of `arcs` (an ArcIndex), checks the arrays and resets;
    SecondOrder() gives an empty object for the C API.
    scores: float64 (n + 1, n + 1), scores[h, m] (arcs of `arcs` only are read).
    sib: float64 of length `arcs.n_sibling_parts`, canonical layout.
    prune_spans: schedule only the complete spans that `_useful_spans` admits
        (False schedules every span a closest modifier allows; for testing).

    Items: 0 the unit, 1 DEAD (never scheduled), C items 2 .. i_base - 1 row by
    row, the I item of arc a at i_base + a, the S item of pair t at s_base + t.
    """

    def __init__(self, scores=None, sib=None, ArcIndex arcs=None, bint single_root=True,
                 bint prune_spans=True):
        self.arcs = ArcIndex()
        self.prune_spans = prune_spans
        if scores is None:
            return
        cdef Py_ssize_t N = arcs.n + 1
        cdef const double[:, ::1] sc = np.ascontiguousarray(scores, dtype=np.float64)
        cdef const double[::1] sb = np.ascontiguousarray(sib, dtype=np.float64)
        if sc.shape[0] != N or sc.shape[1] != N:
            raise ValueError(f"scores must have shape ({N}, {N}), got {np.shape(scores)}")
        if sb.shape[0] != arcs.n_sibling_parts:
            raise ValueError(f"sib must have length {arcs.n_sibling_parts}, got {sb.shape[0]}")
        cdef int status
        with nogil:
            status = self.arcs.reset(N - 1, arcs.allowed, N)
            if status == STATUS_OK:
                status = self.reset(&sc[0, 0], N, &sb[0] if sb.shape[0] else NULL, single_root)
        check_status(status, self.bytes_needed, "second-order parsing")
        self._keep = (sc.base, sb.base)

    def __dealloc__(self):
        free(self.ints)
        free(self.bits)
        free(self.table)
        free(self.c_span)
        free(self.order_buf)

    cdef int reset(self, const double* scores, Py_ssize_t stride, const double* sib,
                   bint single_root) noexcept nogil:
        cdef Py_ssize_t N = self.arcs.n + 1, n_arcs = self.arcs.n_arcs, W = (N + 63) >> 6, pairs, n_ints
        cdef size_t square = <size_t>N * <size_t>N
        cdef int64_t P
        self.n_items = self.n_order = 0
        if self.arcs.n < 0:
            return STATUS_NO_STRUCTURE
        # P bounds the pairs: one per sibling part with an inner sibling, one per a < b
        P = self.arcs.n_sibling_parts - n_arcs
        if P > <int64_t>(N * (N - 1) // 2):
            P = N * (N - 1) // 2
        pairs = <Py_ssize_t>P
        n_ints = 2 * N + 2 * pairs + (3 * N + 4) + (4 * N + 2 + pairs)
        # the tables, then the charts and schedule at most (C items < N^2)
        self.bytes_needed = (self.arcs.bytes_needed + n_ints * sizeof(int) + (6 * N + 1) * W * sizeof(uint64_t)
                             + 2 * square * sizeof(int)
                             + (square + n_arcs + pairs + 2) * (2 * sizeof(double) + 3 * sizeof(int)))
        if self.bytes_needed > memory_limit() or square + n_arcs + pairs + 2 > 2147483647:
            return STATUS_TOO_LARGE
        if (grow(<void**>&self.ints, &self.ints_cap, n_ints, sizeof(int)) != 0
                or grow(<void**>&self.bits, &self.bits_cap, (6 * N + 1) * W, sizeof(uint64_t)) != 0
                or grow(<void**>&self.table, &self.table_cap, 2 * square, sizeof(int)) != 0):
            return STATUS_OUT_OF_MEMORY
        memset(self.bits, 0, (6 * N + 1) * W * sizeof(uint64_t))
        self.N, self.W = N, W
        self.scores, self.stride, self.sib, self.single_root = scores, stride, sib, single_root
        self.allowed, self.right_ptr, self.right = self.arcs.allowed, self.arcs.right_ptr, self.arcs.right
        self.left_ptr, self.left, self.sib_ptr, self.n_right = self.arcs.left_ptr, self.arcs.left, self.arcs.sib_ptr, self.arcs.n_right
        self.arc_head, self.arc_mod = self.arcs.arc_head, self.arcs.arc_mod
        self.first_right, self.first_left = self.ints, self.ints + N
        self.pair_a, self.pair_b = self.ints + 2 * N, self.ints + 2 * N + pairs
        self.pair_item, self.c_item = self.table, self.table + square
        self._first_modifiers()
        self._pair_siblings(self.bits, self.bits + N * W, self.bits + 6 * N * W)
        if self.prune_spans:
            self._useful_spans(self.bits + 2 * N * W, self.bits + 3 * N * W, self.bits + 4 * N * W,
                               self.bits + 5 * N * W, self.pair_b + pairs + 3 * N + 4)
        else:
            self._all_spans(self.bits + 4 * N * W, self.bits + 5 * N * W)
        if self._schedule(self.bits + 4 * N * W, self.bits + 5 * N * W, self.pair_b + pairs) != 0:
            return STATUS_OUT_OF_MEMORY
        self.n_items = self.s_base + self.n_pairs
        self.max_edges = N + 1
        self.goal = self.c_item[N - 1]          # C[0, n] (the unit when n = 0)
        return STATUS_OK

    cdef void _first_modifiers(self) noexcept nogil:
        """Each head's closest modifier on each side (N / 0 if none)."""
        cdef Py_ssize_t N = self.N, h
        for h in range(N):
            self.first_right[h] = <int>N
            self.first_left[h] = 0
            if self.right_ptr[h] < self.right_ptr[h + 1]:
                self.first_right[h] = self.right[self.right_ptr[h]]
            if self.left_ptr[h] < self.left_ptr[h + 1]:
                self.first_left[h] = self.left[self.left_ptr[h]]

    cdef void _pair_siblings(self, uint64_t* right_set, uint64_t* left_set, uint64_t* partners) noexcept nogil:
        """Number the sibling pairs (a, b), a < b: the pairs of same-side allowed
        modifiers of a common head (not the root's with `single_root`).

        With bitsets of each head's modifiers, the left partners of b are
            U_{h -> b, h < b} right(h) & (h, b)   u   U_{h -> b, h > b} left(h) & [1, b)
        so this costs O(arcs * n / 64 + pairs), not O(parts). `pair_item[a, b]`
        is written for the pairs only (the rest of it is never read).
        """
        cdef Py_ssize_t N = self.N, W = self.W, a, b, h, i, word, count = 0
        cdef uint64_t bits
        for h in range(N):
            for i in range(self.arcs.right_ptr[h], self.arcs.right_ptr[h + 1]):
                right_set[h * W + (self.arcs.right[i] >> 6)] |= (<uint64_t>1) << (self.arcs.right[i] & 63)
            for i in range(self.arcs.left_ptr[h], self.arcs.left_ptr[h + 1]):
                left_set[h * W + (self.arcs.left[i] >> 6)] |= (<uint64_t>1) << (self.arcs.left[i] & 63)
        for b in range(2, N):
            for word in range(W):
                partners[word] = 0
            for i in range(self.arcs.head_ptr[b], self.arcs.head_ptr[b + 1]):
                h = self.arcs.heads[i]
                if h < b and not (h == 0 and self.single_root):
                    _or_masked(partners, &right_set[h * W], W, h + 1, b - 1, 0)
                elif h > b:
                    _or_masked(partners, &left_set[h * W], W, 1, b - 1, 0)
            for word in range(W):
                bits = partners[word]
                while bits:
                    a = (word << 6) + _ctz64(bits)
                    bits &= bits - 1
                    self.pair_a[count] = <int>a
                    self.pair_b[count] = <int>b
                    self.pair_item[a * N + b] = <int>count
                    count += 1
        self.n_pairs = count

    cdef void _useful_spans(self, uint64_t* rf, uint64_t* lf, uint64_t* need_r, uint64_t* need_l,
                            int* work) noexcept nogil:
        """The complete spans worth scheduling, as bitsets over their far end:
        bit e of need_r[h] for C[h, e] (h < e), of need_l[h] for C[h, e] (e < h).

        An item is useful if it can be built (inside) and is a tail of an edge
        of a useful item whose other tail can be built too (outside). Both are
        over-approximated, so no useful item is left out:

          built:   RF(h) = {h} u U_{r in right(h)} RF(r)   (right ends C[h, .] may reach)
                   LF(h) = {h} u U_{r in left(h)}  LF(r)
          used:    C[h, e], h < e, by  C[g, e] = I[g, h] * C[h, e]     (g < h, e in need_r[g])
                                       S[h, b] at r = e if e + 1 in LF(b)
                                       I[g, h], g = e + 1  (first child on the left)
                                       the goal if e = n and 0 -> h is allowed
                   C[h, e], e < h, by  C[g, e] = C[h, e] * I[g, h]     (g > h, e in need_l[g])
                                       S[a, h] at r = e - 1 if e - 1 in RF(a)
                                       I[g, h], g = e - 1  (first child on the right)

        where an I or S item counts only if it may be used itself: I[g, h] with
        g < h only if need_r[g] reaches h (hi_r[g] >= h: C[g, e] = I[g, h] *
        C[h, e] for some needed e, or an outer sibling's I needs it), with g > h
        only if lo_l[g] <= h; S[a, b] only if one of the I items using it counts.
        need_l is filled first, by decreasing h (its heads g > h first), taking
        every right I as used; then need_r by increasing h, with the final lo_l.
        At n = 100 under a vine-style mask this schedules ~2% more C items than
        exact reachability would (~25% more without the I/S conditions). Each
        arc and pair costs O(n / 64).
        """
        cdef Py_ssize_t N = self.N, n = N - 1, W = self.W, h, g, i, t, a, b, x, word
        cdef int* hi_r = work                       # largest e in need_r[g] (-1 if none); n for the root
        cdef int* lo_l = work + N                   # smallest e in need_l[g] (N if none)
        cdef int* a_ptr = work + 2 * N              # pairs by left end a: by_a[a_ptr[a]:a_ptr[a + 1]]
        cdef int* b_ptr = work + 3 * N + 1
        cdef int* by_a = work + 4 * N + 2
        for h in range(n, 0, -1):
            rf[h * W + (h >> 6)] |= (<uint64_t>1) << (h & 63)
            for i in range(self.arcs.right_ptr[h], self.arcs.right_ptr[h + 1]):
                _or_masked(&rf[h * W], &rf[self.arcs.right[i] * W], W, 0, n, 0)
        for h in range(1, N):
            lf[h * W + (h >> 6)] |= (<uint64_t>1) << (h & 63)
            for i in range(self.arcs.left_ptr[h], self.arcs.left_ptr[h + 1]):
                _or_masked(&lf[h * W], &lf[self.arcs.left[i] * W], W, 0, n, 0)
        # pairs come numbered by increasing b; index them by a as well
        for x in range(N + 1):
            a_ptr[x] = 0
            b_ptr[x] = 0
        for t in range(self.n_pairs):
            a_ptr[self.pair_a[t] + 1] += 1
            b_ptr[self.pair_b[t] + 1] += 1
        for x in range(N):
            a_ptr[x + 1] += a_ptr[x]
            b_ptr[x + 1] += b_ptr[x]
        for t in range(self.n_pairs):
            by_a[a_ptr[self.pair_a[t]]] = <int>t
            a_ptr[self.pair_a[t]] += 1
        for x in range(N - 1, -1, -1):
            a_ptr[x + 1] = a_ptr[x]
        a_ptr[0] = 0
        for x in range(N):
            hi_r[x] = <int>n
        for h in range(n, 0, -1):
            for x in range(b_ptr[h], b_ptr[h + 1]):     # S[a, h] at r = e - 1
                a = self.pair_a[x]
                if self._pair_used(a, h, hi_r, lo_l):
                    _or_masked(&need_l[h * W], &rf[a * W], W, a + 1, h - 1, -1)
            for i in range(self.arcs.head_ptr[h], self.arcs.head_ptr[h + 1]):
                g = self.arcs.heads[i]
                if g < h - 1 and hi_r[g] >= h:           # first child of g on the right
                    need_l[h * W + ((g + 1) >> 6)] |= (<uint64_t>1) << ((g + 1) & 63)
                elif g > h:
                    _or_masked(&need_l[h * W], &need_l[g * W], W, 1, h - 1, 0)
            _and_masked(&need_l[h * W], &lf[h * W], W, 1, h - 1)
            lo_l[h] = <int>N
            for word in range(W):
                if need_l[h * W + word]:
                    lo_l[h] = <int>((word << 6) + _ctz64(need_l[h * W + word]))
                    break
        for h in range(1, N):
            for x in range(a_ptr[h], a_ptr[h + 1]):     # S[h, b] at r = e
                b = self.pair_b[by_a[x]]
                if self._pair_used(h, b, hi_r, lo_l):
                    _or_masked(&need_r[h * W], &lf[b * W], W, h + 1, b - 1, 1)
            for i in range(self.arcs.head_ptr[h], self.arcs.head_ptr[h + 1]):
                g = self.arcs.heads[i]
                if g > h + 1 and lo_l[g] <= h:            # first child of g on the left
                    need_r[h * W + ((g - 1) >> 6)] |= (<uint64_t>1) << ((g - 1) & 63)
                elif g == 0 and h < n:                   # the goal
                    need_r[h * W + (n >> 6)] |= (<uint64_t>1) << (n & 63)
                elif 0 < g < h:
                    _or_masked(&need_r[h * W], &need_r[g * W], W, h + 1, n, 0)
            _and_masked(&need_r[h * W], &rf[h * W], W, h + 1, n)
            hi_r[h] = -1
            for word in range(W - 1, -1, -1):
                if need_r[h * W + word]:
                    hi_r[h] = <int>((word << 6) + 63 - _clz64(need_r[h * W + word]))
                    break

    cdef inline bint _pair_used(self, Py_ssize_t a, Py_ssize_t b, const int* hi_r,
                                const int* lo_l) noexcept nogil:
        """Whether an I item that uses S[a, b] may be used: I[g, b] for a head
        g < a of both (right pair), I[g, a] for a head g > b of both (left pair)."""
        cdef Py_ssize_t i, g, N = self.N
        for i in range(self.arcs.head_ptr[b], self.arcs.head_ptr[b + 1]):
            g = self.arcs.heads[i]
            if g < a:
                if self.allowed[g * N + a] and hi_r[g] >= b and not (g == 0 and self.single_root):
                    return True
            elif g > b:
                if self.allowed[g * N + a] and lo_l[g] <= a:
                    return True
        return False

    cdef void _all_spans(self, uint64_t* need_r, uint64_t* need_l) noexcept nogil:
        """Every complete span that a head's closest modifier allows (no
        reachability pruning; for tests and comparisons)."""
        cdef Py_ssize_t N = self.N, W = self.W, h, e
        for h in range(1, N):
            for e in range(self.first_right[h], N):
                need_r[h * W + (e >> 6)] |= (<uint64_t>1) << (e & 63)
            for e in range(1, self.first_left[h] + 1):
                need_l[h * W + (e >> 6)] |= (<uint64_t>1) << (e & 63)

    cdef int _schedule(self, const uint64_t* need_r, const uint64_t* need_l, int* start) noexcept nogil:
        """Number the C items and return all items in topological order.

        C[h, e] exists for bit e of need_r[h] (h < e) or need_l[h] (e < h) and
        for the goal; C items are numbered row by row (h, then e) so that the
        split loops of S and C walk the chart in order. The order is by span
        width, and within a width S, then I, then C (C[h, e] uses the I of its
        own span): one counting sort with key 3 * width + kind, O(items + n).
        RETURNS 0, or -1 if the schedule could not be allocated.
        """
        cdef Py_ssize_t N = self.N, n = N - 1, W = self.W, h, e, t, x, word, side
        cdef Py_ssize_t n_keys = 3 * N + 3, n_spans = 0
        cdef uint64_t bits
        cdef int item
        cdef int* c_item = self.c_item
        cdef int* order
        for h in range(N):
            for e in range(N):
                c_item[h * N + e] = DEAD
            c_item[h * N + h] = 0
            for word in range(W):
                n_spans += _popcount64(need_l[h * W + word]) + _popcount64(need_r[h * W + word])
        if n > 0 and self.first_right[0] <= n:
            n_spans += 1
        self.i_base = 2 + n_spans
        self.s_base = self.i_base + self.arcs.n_arcs
        if (grow(<void**>&self.c_span, &self.c_span_cap, 2 * n_spans + 2, sizeof(int)) != 0
                or grow(<void**>&self.order_buf, &self.order_cap, n_spans + self.arcs.n_arcs + self.n_pairs + 1,
                        sizeof(int)) != 0):
            return -1
        self.c_head, self.c_end = self.c_span, self.c_span + n_spans
        order = self.order_buf
        for x in range(n_keys + 1):
            start[x] = 0
        # count the items per key (numbering the C items), then place them
        for t in range(self.n_pairs):
            start[3 * (self.pair_b[t] - self.pair_a[t]) + 1] += 1
        for t in range(self.arcs.n_arcs):
            start[3 * abs(self.arc_mod[t] - self.arc_head[t]) + 2] += 1
        n_spans = 0
        for h in range(N):
            for side in range(2):
                for word in range(W):
                    bits = need_l[h * W + word] if side == 0 else need_r[h * W + word]
                    while bits:
                        e = (word << 6) + _ctz64(bits)
                        bits &= bits - 1
                        c_item[h * N + e] = <int>(2 + n_spans)
                        self.c_head[n_spans] = <int>h
                        self.c_end[n_spans] = <int>e
                        n_spans += 1
                        start[3 * (e - h if e > h else h - e) + 3] += 1
        if n > 0 and self.first_right[0] <= n:
            c_item[n] = <int>(2 + n_spans)
            self.c_head[n_spans] = 0
            self.c_end[n_spans] = <int>n
            n_spans += 1
            start[3 * n + 3] += 1
        for x in range(n_keys):
            start[x + 1] += start[x]
        for t in range(self.n_pairs):
            x = 3 * (self.pair_b[t] - self.pair_a[t])
            order[start[x]] = <int>(self.s_base + t); start[x] += 1
        for t in range(self.arcs.n_arcs):
            x = 3 * abs(self.arc_mod[t] - self.arc_head[t]) + 1
            order[start[x]] = <int>(self.i_base + t); start[x] += 1
        for item in range(2, 2 + <int>n_spans):
            x = 3 * abs(self.c_end[item - 2] - self.c_head[item - 2]) + 2
            order[start[x]] = item; start[x] += 1
        self.order = order
        self.n_order = n_spans + self.arcs.n_arcs + self.n_pairs
        return 0

    cdef inline int item_C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        return self.c_item[h * self.N + e]

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        # Edges with a DEAD tail are left out: they could only add -inf.
        cdef Py_ssize_t h, e, m, s, a, b, r, i, j, k, arc, start, lo, hi, n_out = 0
        cdef int64_t p
        cdef int tail
        cdef double base
        if item < self.i_base:
            h = self.c_head[item - 2]
            e = self.c_end[item - 2]
            if h < e:
                # C[h, e] = (+)_{r in right(h), r <= e}  I[h, r] * C[r, e]
                for i in range(self.right_ptr[h], self.right_ptr[h + 1]):
                    r = self.right[i]
                    if r > e:
                        break
                    tail = self.item_C(r, e)
                    if tail != DEAD:
                        t1[n_out] = <int>(self.i_base + i); t2[n_out] = tail; w[n_out] = 0.0
                        n_out += 1
                return n_out
            # C[h, e] = (+)_{r in left(h), r >= e}  C[r, e] * I[h, r]
            for i in range(self.left_ptr[h], self.left_ptr[h + 1]):
                r = self.left[i]
                if r < e:
                    break
                tail = self.item_C(r, e)
                if tail != DEAD:
                    t1[n_out] = tail; t2[n_out] = <int>(self.i_base + self.n_right + i); w[n_out] = 0.0
                    n_out += 1
            return n_out
        if item < self.s_base:
            arc = item - self.i_base
            h = self.arc_head[arc]
            m = self.arc_mod[arc]
            p = self.sib_ptr[arc]
            base = self.scores[h * self.stride + m]
            # first child: sib(h, h, m) * C[m, h +- 1]
            tail = self.item_C(m, h + 1) if h < m else self.item_C(m, h - 1)
            if tail != DEAD:
                t1[0] = tail; t2[0] = 0; w[0] = base + self.sib[p]
                n_out = 1
            if h == 0 and self.single_root:
                return n_out
            # inner sibling s at list position k - 1: I[h, s] * S[s, m] * sib(h, s, m)
            j = <Py_ssize_t>(self.sib_ptr[arc + 1] - p - 1)     # list position of m
            start = arc - j                           # arc id of h's closest modifier on this side
            for k in range(1, j + 1):
                s = self.arc_mod[start + k - 1]
                t1[n_out] = <int>(self.i_base + start + k - 1)
                t2[n_out] = <int>self.s_base + (self.pair_item[s * self.N + m] if h < m
                                                else self.pair_item[m * self.N + s])
                w[n_out] = base + self.sib[p + k]
                n_out += 1
            return n_out
        # S[a, b] = (+)_{a <= r < b}  C[a, r] * C[b, r + 1], over the split points whose
        # halves can exist: r == a or r >= first_right[a] (for C[a, r]), and
        # r == b - 1 or r < first_left[b] (for C[b, r + 1]).
        a = self.pair_a[item - self.s_base]
        b = self.pair_b[item - self.s_base]
        n_out = self._split(a, b, a, t1, t2, w, 0)
        lo = max(self.first_right[a], a + 1)
        hi = min(self.first_left[b] - 1, b - 2)
        for r in range(lo, hi + 1):
            n_out = self._split(a, b, r, t1, t2, w, n_out)
        if b - 1 > a:
            n_out = self._split(a, b, b - 1, t1, t2, w, n_out)
        return n_out

    cdef inline Py_ssize_t _split(self, Py_ssize_t a, Py_ssize_t b, Py_ssize_t r, int* t1, int* t2,
                                  double* w, Py_ssize_t n_out) noexcept nogil:
        """Add the edge C[a, r] * C[b, r + 1] of S[a, b] unless a tail is DEAD."""
        cdef int left = self.item_C(a, r), right = self.item_C(b, r + 1)
        if left != DEAD and right != DEAD:
            t1[n_out] = left; t2[n_out] = right; w[n_out] = 0.0
            n_out += 1
        return n_out

    cdef Py_ssize_t n_words(self) noexcept nogil:
        return self.N - 1

    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil:
        cdef Py_ssize_t arc
        for arc in range(self.N):
            heads[arc] = -1
        for arc in range(self.s_base - self.i_base):
            if q[self.i_base + arc] > 0.5:
                heads[self.arc_mod[arc]] = self.arc_head[arc]

    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil:
        cdef Py_ssize_t h, m, arc
        for h in range(self.N):
            for m in range(self.N):
                out[h * stride + m] = fill
        for arc in range(self.s_base - self.i_base):
            out[self.arc_head[arc] * stride + self.arc_mod[arc]] = q[self.i_base + arc]

    # -- Python views (tests) ---------------------------------------------------

    def schedule(self):
        """The scheduled items in topological order (int32 array)."""
        return np.array(<int[:self.n_order]>self.order if self.n_order else [], dtype=np.int32)

    def complete_spans(self):
        """(heads, ends) of the C items 2, 3, ... (int32 arrays)."""
        cdef Py_ssize_t count = self.i_base - 2
        if count == 0:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
        return (np.array(<int[:count]>self.c_head, dtype=np.int32),
                np.array(<int[:count]>self.c_end, dtype=np.int32))

    def heads(self, q):
        """int64 heads (length n + 1, heads[0] = -1) of the arcs whose I item has
        q > 0.5 (one derivation marked by `best_derivation` or a sample)."""
        cdef const double[::1] qv = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty(self.N, dtype=np.int64)
        cdef int64_t[::1] o = out
        self.read_heads(&qv[0], &o[0])
        return out

    def arc_values(self, q):
        """(heads, modifiers, values): the arcs in arc-id order and the entries of
        a per-item array (an engine's q) at their I items. Each arc has exactly
        one I item, so these are the arc max-marginals, marginals or indicators."""
        arcs = self.arcs.arcs()
        return arcs[:, 0], arcs[:, 1], np.asarray(q)[self.i_base:self.s_base]
