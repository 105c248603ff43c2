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
filling the C table (O(n^2), like reading the mask).
"""
from libc.math cimport INFINITY
from libc.stdint cimport uint64_t
import numpy as np
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex


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
    """The sibling-model grammar over an `ArcIndex`.

    scores: C-contiguous float64 (n + 1, n + 1), scores[h, m] (arcs of `arcs` only are read).
    sib: C-contiguous float64 of length `arcs.n_sibling_parts`, canonical layout.
    single_root: the root takes exactly one child.
    prune_spans: schedule only the complete spans that `_useful_spans` admits
        (False schedules every span a closest modifier allows; for testing).

    Items: 0 the unit, 1 DEAD (never scheduled), C items 2 .. i_base - 1 row by
    row, the I item of arc a at i_base + a, the S item of pair t at s_base + t.
    """
    cdef readonly ArcIndex arcs
    cdef const double[:, ::1] scores
    cdef const double[::1] sib
    cdef readonly bint single_root
    cdef readonly Py_ssize_t i_base
    cdef readonly Py_ssize_t s_base
    cdef readonly Py_ssize_t n_pairs
    cdef Py_ssize_t N
    cdef int[:, ::1] c_item      # c_item[h, e]: the item C[h, e]; 0 on the diagonal, DEAD if unscheduled
    cdef int[::1] c_head         # head and end of C item 2 + i
    cdef int[::1] c_end
    cdef int[::1] arc_head
    cdef int[::1] arc_mod
    cdef int[:, ::1] pair_item   # pair_item[a, b]: the number of pair (a, b), written for pairs only
    cdef int[::1] pair_a
    cdef int[::1] pair_b
    cdef int[::1] first_right    # closest right modifier of h (N if none)
    cdef int[::1] first_left     # closest left modifier of h (0 if none)
    cdef int[::1] right_ptr      # views of `arcs`, kept here for the nogil edge lists
    cdef int[::1] right
    cdef int[::1] left_ptr
    cdef int[::1] left
    cdef int[::1] sib_ptr
    cdef Py_ssize_t n_right

    def __init__(self, scores, sib, ArcIndex arcs, bint single_root=True, bint prune_spans=True):
        cdef Py_ssize_t N = arcs.n + 1
        self.arcs = arcs
        self.scores = scores
        self.sib = sib
        if self.scores.shape[0] != N or self.scores.shape[1] != N:
            raise ValueError(f"scores must have shape ({N}, {N}), got {np.shape(scores)}")
        if self.sib.shape[0] != arcs.sib_ptr[arcs.n_arcs]:
            raise ValueError(f"sib must have length {arcs.sib_ptr[arcs.n_arcs]}, got {self.sib.shape[0]}")
        self.single_root = single_root
        self.N = N
        self.right_ptr, self.right = arcs.right_ptr, arcs.right
        self.left_ptr, self.left = arcs.left_ptr, arcs.left
        self.sib_ptr, self.n_right = arcs.sib_ptr, arcs.n_right
        # Workspaces, few allocations (they dominate the setup of short sentences):
        # `ints` holds the per-arc and per-position arrays, the pair list (P bounds
        # the pairs: one per sibling part with an inner sibling, one per a < b),
        # the counting-sort buckets and the scratch of `_useful_spans`; `bits`
        # six bitset planes of N rows (modifiers, buildable ends and scheduled
        # ends, each side) plus a scratch row; `table` the (N, N) pair numbers
        # and C items.
        cdef Py_ssize_t A = arcs.n_arcs
        cdef Py_ssize_t P = min(arcs.sib_ptr[arcs.n_arcs] - arcs.n_arcs, N * (N - 1) // 2)
        cdef Py_ssize_t pairs_at = 2 * A + 2 * N, start_at = pairs_at + 2 * P
        cdef Py_ssize_t work_at = start_at + 3 * N + 4
        cdef int[::1] ints = np.empty(work_at + 4 * N + 2 + P, dtype=np.int32)
        cdef uint64_t[:, ::1] bits = np.zeros((6 * N + 1, (N + 63) >> 6), dtype=np.uint64)
        cdef int[:, :, ::1] table = np.empty((2, N, N), dtype=np.int32)
        cdef uint64_t[:, ::1] need_r = bits[4 * N:5 * N]
        cdef uint64_t[:, ::1] need_l = bits[5 * N:6 * N]
        self.arc_head, self.arc_mod = ints[:A], ints[A:2 * A]
        self.first_right, self.first_left = ints[2 * A:2 * A + N], ints[2 * A + N:pairs_at]
        self._index_arcs()
        self._pair_siblings(bits[:N], bits[N:2 * N], bits[6 * N], table[0],
                            ints[pairs_at:pairs_at + P], ints[pairs_at + P:start_at])
        if prune_spans:
            self._useful_spans(bits[2 * N:3 * N], bits[3 * N:4 * N], need_r, need_l, ints[work_at:])
        else:
            self._all_spans(need_r, need_l)
        self.order = self._schedule(need_r, need_l, ints[start_at:work_at], table[1])
        self.n_items = self.s_base + self.n_pairs
        self.max_edges = N + 1
        self.goal = self.C(0, N - 1)

    cdef inline int C(self, Py_ssize_t h, Py_ssize_t e) noexcept nogil:
        return self.c_item[h, e]

    cdef void _index_arcs(self):
        """Head and modifier of every arc id, and each head's closest modifiers."""
        cdef ArcIndex a = self.arcs
        cdef Py_ssize_t N = self.N, h, i
        for h in range(N):
            self.first_right[h] = <int>N
            self.first_left[h] = 0
            for i in range(a.right_ptr[h], a.right_ptr[h + 1]):
                self.arc_head[i] = h
                self.arc_mod[i] = a.right[i]
            for i in range(a.left_ptr[h], a.left_ptr[h + 1]):
                self.arc_head[a.n_right + i] = h
                self.arc_mod[a.n_right + i] = a.left[i]
            if a.right_ptr[h] < a.right_ptr[h + 1]:
                self.first_right[h] = a.right[a.right_ptr[h]]
            if a.left_ptr[h] < a.left_ptr[h + 1]:
                self.first_left[h] = a.left[a.left_ptr[h]]

    cdef void _pair_siblings(self, uint64_t[:, ::1] right_set, uint64_t[:, ::1] left_set,
                             uint64_t[::1] partners, int[:, ::1] pair_item, int[::1] pair_a,
                             int[::1] pair_b):
        """Number the sibling pairs (a, b), a < b: the pairs of same-side allowed
        modifiers of a common head (not the root's with `single_root`).

        With bitsets of each head's modifiers, the left partners of b are
            U_{h -> b, h < b} right(h) & (h, b)   u   U_{h -> b, h > b} left(h) & [1, b)
        so this costs O(arcs * n / 64 + pairs), not O(parts). `pair_item[a, b]`
        is written for the pairs only (the rest of it is never read).
        """
        cdef ArcIndex A = self.arcs
        cdef Py_ssize_t N = self.N, W = (N + 63) >> 6, a, b, h, i, word, count = 0
        cdef uint64_t bits
        for h in range(N):
            for i in range(A.right_ptr[h], A.right_ptr[h + 1]):
                right_set[h, A.right[i] >> 6] |= (<uint64_t>1) << (A.right[i] & 63)
            for i in range(A.left_ptr[h], A.left_ptr[h + 1]):
                left_set[h, A.left[i] >> 6] |= (<uint64_t>1) << (A.left[i] & 63)
        for b in range(2, N):
            for word in range(W):
                partners[word] = 0
            for i in range(A.head_ptr[b], A.head_ptr[b + 1]):
                h = A.heads[i]
                if h < b and not (h == 0 and self.single_root):
                    _or_masked(&partners[0], &right_set[h, 0], W, h + 1, b - 1, 0)
                elif h > b:
                    _or_masked(&partners[0], &left_set[h, 0], W, 1, b - 1, 0)
            for word in range(W):
                bits = partners[word]
                while bits:
                    a = (word << 6) + _ctz64(bits)
                    bits &= bits - 1
                    pair_a[count] = <int>a
                    pair_b[count] = <int>b
                    pair_item[a, b] = <int>count
                    count += 1
        self.n_pairs = count
        self.pair_a = pair_a[:count]
        self.pair_b = pair_b[:count]
        self.pair_item = pair_item

    cdef void _useful_spans(self, uint64_t[:, ::1] rf, uint64_t[:, ::1] lf,
                            uint64_t[:, ::1] need_r, uint64_t[:, ::1] need_l, int[::1] work):
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
        cdef ArcIndex A = self.arcs
        cdef Py_ssize_t N = self.N, n = N - 1, W = need_r.shape[1], h, g, i, t, a, b, x, word
        cdef int[::1] hi_r = work[:N]                 # largest e in need_r[g] (-1 if none); n for the root
        cdef int[::1] lo_l = work[N:2 * N]            # smallest e in need_l[g] (N if none)
        cdef int[::1] a_ptr = work[2 * N:3 * N + 1]   # pairs by left end a: by_a[a_ptr[a]:a_ptr[a + 1]]
        cdef int[::1] b_ptr = work[3 * N + 1:4 * N + 2]
        cdef int[::1] by_a = work[4 * N + 2:4 * N + 2 + self.n_pairs]
        for h in range(n, 0, -1):
            rf[h, h >> 6] |= (<uint64_t>1) << (h & 63)
            for i in range(A.right_ptr[h], A.right_ptr[h + 1]):
                _or_masked(&rf[h, 0], &rf[A.right[i], 0], W, 0, n, 0)
        for h in range(1, N):
            lf[h, h >> 6] |= (<uint64_t>1) << (h & 63)
            for i in range(A.left_ptr[h], A.left_ptr[h + 1]):
                _or_masked(&lf[h, 0], &lf[A.left[i], 0], W, 0, n, 0)
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
                if self._pair_used(a, h, &hi_r[0], &lo_l[0]):
                    _or_masked(&need_l[h, 0], &rf[a, 0], W, a + 1, h - 1, -1)
            for i in range(A.head_ptr[h], A.head_ptr[h + 1]):
                g = A.heads[i]
                if g < h - 1 and hi_r[g] >= h:           # first child of g on the right
                    need_l[h, (g + 1) >> 6] |= (<uint64_t>1) << ((g + 1) & 63)
                elif g > h:
                    _or_masked(&need_l[h, 0], &need_l[g, 0], W, 1, h - 1, 0)
            _and_masked(&need_l[h, 0], &lf[h, 0], W, 1, h - 1)
            lo_l[h] = <int>N
            for word in range(W):
                if need_l[h, word]:
                    lo_l[h] = <int>((word << 6) + _ctz64(need_l[h, word]))
                    break
        for h in range(1, N):
            for x in range(a_ptr[h], a_ptr[h + 1]):     # S[h, b] at r = e
                b = self.pair_b[by_a[x]]
                if self._pair_used(h, b, &hi_r[0], &lo_l[0]):
                    _or_masked(&need_r[h, 0], &lf[b, 0], W, h + 1, b - 1, 1)
            for i in range(A.head_ptr[h], A.head_ptr[h + 1]):
                g = A.heads[i]
                if g > h + 1 and lo_l[g] <= h:            # first child of g on the left
                    need_r[h, (g - 1) >> 6] |= (<uint64_t>1) << ((g - 1) & 63)
                elif g == 0 and h < n:                   # the goal
                    need_r[h, n >> 6] |= (<uint64_t>1) << (n & 63)
                elif 0 < g < h:
                    _or_masked(&need_r[h, 0], &need_r[g, 0], W, h + 1, n, 0)
            _and_masked(&need_r[h, 0], &rf[h, 0], W, h + 1, n)
            hi_r[h] = -1
            for word in range(W - 1, -1, -1):
                if need_r[h, word]:
                    hi_r[h] = <int>((word << 6) + 63 - _clz64(need_r[h, word]))
                    break

    cdef inline bint _pair_used(self, Py_ssize_t a, Py_ssize_t b, const int* hi_r,
                                const int* lo_l) noexcept nogil:
        """Whether an I item that uses S[a, b] may be used: I[g, b] for a head
        g < a of both (right pair), I[g, a] for a head g > b of both (left pair)."""
        cdef Py_ssize_t i, g
        for i in range(self.arcs.head_ptr[b], self.arcs.head_ptr[b + 1]):
            g = self.arcs.heads[i]
            if g < a:
                if self.arcs.allowed[g, a] and hi_r[g] >= b and not (g == 0 and self.single_root):
                    return True
            elif g > b:
                if self.arcs.allowed[g, a] and lo_l[g] <= a:
                    return True
        return False

    cdef void _all_spans(self, uint64_t[:, ::1] need_r, uint64_t[:, ::1] need_l):
        """Every complete span that a head's closest modifier allows (no
        reachability pruning; for tests and comparisons)."""
        cdef Py_ssize_t N = self.N, W = need_r.shape[1], h
        cdef uint64_t[::1] ones = np.full(W, ~(<uint64_t>0), dtype=np.uint64)
        for h in range(1, N):
            _or_masked(&need_r[h, 0], &ones[0], W, self.first_right[h], N - 1, 0)
            _or_masked(&need_l[h, 0], &ones[0], W, 1, self.first_left[h], 0)

    cdef int[::1] _schedule(self, uint64_t[:, ::1] need_r, uint64_t[:, ::1] need_l, int[::1] start,
                            int[:, ::1] c_item):
        """Number the C items and return all items in topological order.

        C[h, e] exists for bit e of need_r[h] (h < e) or need_l[h] (e < h) and
        for the goal; C items are numbered row by row (h, then e) so that the
        split loops of S and C walk the chart in order. The order is by span
        width, and within a width S, then I, then C (C[h, e] uses the I of its
        own span): one counting sort with key 3 * width + kind, O(items + n).
        """
        cdef ArcIndex A = self.arcs
        cdef Py_ssize_t N = self.N, n = N - 1, W = need_r.shape[1], h, e, t, x, word, side
        cdef Py_ssize_t n_keys = 3 * N + 3, n_spans = 0
        cdef uint64_t bits
        cdef int item
        for h in range(N):
            for e in range(N):
                c_item[h, e] = DEAD
            c_item[h, h] = 0
            for word in range(W):
                n_spans += _popcount64(need_l[h, word]) + _popcount64(need_r[h, word])
        if n > 0 and self.first_right[0] <= n:
            n_spans += 1
        self.i_base = 2 + n_spans
        self.s_base = self.i_base + A.n_arcs
        cdef int[:, ::1] c_span = np.empty((2, n_spans), dtype=np.int32)
        cdef int[::1] order = np.empty(n_spans + A.n_arcs + self.n_pairs, dtype=np.int32)
        for x in range(n_keys + 1):
            start[x] = 0
        # count the items per key (numbering the C items), then place them
        for t in range(self.n_pairs):
            start[3 * (self.pair_b[t] - self.pair_a[t]) + 1] += 1
        for t in range(A.n_arcs):
            start[3 * abs(self.arc_mod[t] - self.arc_head[t]) + 2] += 1
        n_spans = 0
        for h in range(N):
            for side in range(2):
                for word in range(W):
                    bits = need_l[h, word] if side == 0 else need_r[h, word]
                    while bits:
                        e = (word << 6) + _ctz64(bits)
                        bits &= bits - 1
                        c_item[h, e] = <int>(2 + n_spans)
                        c_span[0, n_spans] = <int>h
                        c_span[1, n_spans] = <int>e
                        n_spans += 1
                        start[3 * (e - h if e > h else h - e) + 3] += 1
        if n > 0 and self.first_right[0] <= n:
            c_item[0, n] = <int>(2 + n_spans)
            c_span[0, n_spans] = 0
            c_span[1, n_spans] = <int>n
            n_spans += 1
            start[3 * n + 3] += 1
        for x in range(n_keys):
            start[x + 1] += start[x]
        for t in range(self.n_pairs):
            x = 3 * (self.pair_b[t] - self.pair_a[t])
            order[start[x]] = <int>(self.s_base + t); start[x] += 1
        for t in range(A.n_arcs):
            x = 3 * abs(self.arc_mod[t] - self.arc_head[t]) + 1
            order[start[x]] = <int>(self.i_base + t); start[x] += 1
        for item in range(2, 2 + n_spans):
            x = 3 * abs(c_span[1, item - 2] - c_span[0, item - 2]) + 2
            order[start[x]] = item; start[x] += 1
        self.c_item = c_item
        self.c_head = c_span[0]
        self.c_end = c_span[1]
        return order

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        # Edges with a DEAD tail are left out: they could only add -inf.
        cdef Py_ssize_t h, e, m, s, a, b, r, i, j, k, arc, start, p, lo, hi, n_out = 0
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
                    tail = self.C(r, e)
                    if tail != DEAD:
                        t1[n_out] = <int>(self.i_base + i); t2[n_out] = tail; w[n_out] = 0.0
                        n_out += 1
                return n_out
            # C[h, e] = (+)_{r in left(h), r >= e}  C[r, e] * I[h, r]
            for i in range(self.left_ptr[h], self.left_ptr[h + 1]):
                r = self.left[i]
                if r < e:
                    break
                tail = self.C(r, e)
                if tail != DEAD:
                    t1[n_out] = tail; t2[n_out] = <int>(self.i_base + self.n_right + i); w[n_out] = 0.0
                    n_out += 1
            return n_out
        if item < self.s_base:
            arc = item - self.i_base
            h = self.arc_head[arc]
            m = self.arc_mod[arc]
            p = self.sib_ptr[arc]
            base = self.scores[h, m]
            # first child: sib(h, h, m) * C[m, h +- 1]
            tail = self.C(m, h + 1) if h < m else self.C(m, h - 1)
            if tail != DEAD:
                t1[0] = tail; t2[0] = 0; w[0] = base + self.sib[p]
                n_out = 1
            if h == 0 and self.single_root:
                return n_out
            # inner sibling s at list position k - 1: I[h, s] * S[s, m] * sib(h, s, m)
            j = self.sib_ptr[arc + 1] - p - 1         # list position of m
            start = arc - j                           # arc id of h's closest modifier on this side
            for k in range(1, j + 1):
                s = self.arc_mod[start + k - 1]
                t1[n_out] = <int>(self.i_base + start + k - 1)
                t2[n_out] = <int>self.s_base + (self.pair_item[s, m] if h < m else self.pair_item[m, s])
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
        cdef int left = self.C(a, r), right = self.C(b, r + 1)
        if left != DEAD and right != DEAD:
            t1[n_out] = left; t2[n_out] = right; w[n_out] = 0.0
            n_out += 1
        return n_out

    def schedule(self):
        """The scheduled items in topological order (int32 array)."""
        return np.asarray(self.order)

    def complete_spans(self):
        """(heads, ends) of the C items 2, 3, ... (int32 arrays)."""
        return np.asarray(self.c_head), np.asarray(self.c_end)

    def heads(self, q):
        """int64 heads (length n + 1, heads[0] = -1) of the arcs whose I item has
        q > 0.5 (one derivation marked by `best_derivation` or a sample)."""
        cdef const double[::1] qv = q
        out = np.full(self.N, -1, dtype=np.int64)
        cdef long long[::1] heads = out
        cdef Py_ssize_t arc
        for arc in range(self.s_base - self.i_base):
            if qv[self.i_base + arc] > 0.5:
                heads[self.arc_mod[arc]] = self.arc_head[arc]
        return out

    def arc_values(self, q):
        """(heads, modifiers, values): the arcs in arc-id order and the entries of
        a per-item array (an engine's q) at their I items. Each arc has exactly
        one I item, so these are the arc max-marginals, marginals or indicators."""
        q = np.asarray(q)
        return (np.asarray(self.arc_head), np.asarray(self.arc_mod),
                q[self.i_base:self.s_base])


def has_impossible_arcs(ArcIndex arcs, const double[:, ::1] scores):
    """Whether an arc of `arcs` has score -inf (O(arcs))."""
    cdef Py_ssize_t h, i
    for h in range(arcs.n + 1):
        for i in range(arcs.right_ptr[h], arcs.right_ptr[h + 1]):
            if scores[h, arcs.right[i]] == -INFINITY:
                return True
        for i in range(arcs.left_ptr[h], arcs.left_ptr[h + 1]):
            if scores[h, arcs.left[i]] == -INFINITY:
                return True
    return False


def restrict_sibling_scores(ArcIndex full, ArcIndex sub, const double[::1] sib):
    """Re-lay a compact sibling vector of `full` for `sub`, whose allowed arcs
    are a subset of full's (arcs dropped for a -inf first-order score).

    RETURNS (np.ndarray): float64 of length sub.n_sibling_parts. O(parts of sub).
    """
    cdef Py_ssize_t h, m, s, j, k, arc, farc, fstart, side, start, p, q
    cdef double[::1] out = np.empty(sub.sib_ptr[sub.n_arcs], dtype=np.float64)
    cdef const int[::1] ptr
    cdef const int[::1] mods
    cdef const int[::1] fptr
    for side in range(2):
        ptr = sub.right_ptr if side == 0 else sub.left_ptr
        mods = sub.right if side == 0 else sub.left
        fptr = full.right_ptr if side == 0 else full.left_ptr
        for h in range(sub.n + 1):
            start = ptr[h]
            fstart = fptr[h] + (0 if side == 0 else full.n_right)
            for j in range(ptr[h + 1] - start):
                m = mods[start + j]
                arc = sub.arc_id[h, m]
                farc = full.arc_id[h, m]
                p = sub.sib_ptr[arc]
                q = full.sib_ptr[farc]
                out[p] = sib[q]
                for k in range(j):
                    s = mods[start + k]
                    out[p + 1 + k] = sib[q + 1 + full.arc_id[h, s] - fstart]
    return np.asarray(out)
