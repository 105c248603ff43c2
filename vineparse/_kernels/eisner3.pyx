# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Third-order projective dependency parsing with grand-siblings as a hypergraph.

Koo & Collins (2010), "Efficient Third-Order Dependency Parsers", ACL, Model 1
("grand-sibling"); the sibling spans follow Eisner (1996) and McDonald &
Pereira (2006), the pruned charts Rush & Petrov (2012).

Positions 0..n, 0 the root. A tree scores, for every arc h -> m,

    scores[h, m] + sib(h, s, m) + grand(g, h, m) + gsib(g, h, s, m)

where s is the adjacent inner sibling of m on its side of h (s = h when m is
h's closest child on that side) and g the head of h. Arcs of the root take only
scores[0, m] + sib(0, s, m).

Part scores are compact float64 vectors in the canonical layout of `ArcIndex`
(arcs.pxd) over the allowed arcs: `sib[sib_ptr[a] + k]`, `grand[grand_ptr[a] +
slot(g)]`, `gsib[gsib_ptr[a] + slot(g) * (j + 1) + k]` for arc a at list
position j, sibling slot k (0 for s = h) and slot(g) the position of g among
h's allowed heads. `ArcIndex.sibling_parts()`, `grandparent_parts()` and
`grand_sibling_parts()` list the parts in that order; None means all zero.
`part_index` carries a layout over to a subset of its arcs (arcs dropped for a
-inf arc score after the caller laid out its vectors for the mask).

Items (a "g-span" carries the head g of its head word h, as the slot of g among
h's allowed heads; the root's spans have one slot):

    S^h[s, m]  the two halves between adjacent siblings s, m of h, one item per
               sibling part (h, s, m) with s != h; for lo = min(s, m), hi = max(s, m):
               S^h[s, m] = (+)_{lo <= r < hi}  C^h[lo, r] * C^h[hi, r + 1]
    I^g[h, m]  incomplete span with the arc h -> m, one item per (arc, slot of g):
               I^g[h, m] = w(g, h, h, m) * C^h[m, h + 1]
                           (+) (+)_{s inner sibling}  I^g[h, s] * S^h[s, m] * w(g, h, s, m)
               with w(g, h, s, m) = scores[h, m] * sib(h, s, m) * grand(g, h, m) * gsib(g, h, s, m)
               (right side shown; on the left h + 1 becomes h - 1)
    C^g[h, e]  complete span of h's subtree on one side, ending at e:
               C^g[h, e] = (+)_{m modifier of h between h and e}  I^g[h, m] * C^h[m, e]
    C^g[h, h]  axiom (the unit item 0); goal C[0, n] of the root.

With `single_root`, the root has one child m: I[0, m] = w(0, 0, m) * C^0[m, 1]
and the root's only complete span is C[0, n].

Only allowed arcs create I and S items, I^g[h, m] only for the g that can head
h (g outside [h, m]: projectivity), and C^g[h, e] only when h has a modifier
between h and e, its subtree can reach e and e lies on h's side of g; only
those items get an id, and S^h[s, m] splits only where both halves exist. So the
chart holds at most (n + 1)^2 * max_heads complete items, one incomplete item
per (arc, slot of g) and one sibling item per sibling part: O(n^3) unpruned,
O(n^2) under a mask that leaves each word a bounded number of heads (vine
pruning). Time O(n^4) unpruned; pruned, one step per edge of a scheduled item.
"""
import numpy as np
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex


cdef enum:
    DEAD = 1        # an item never scheduled (inside value -inf): the empty complete span


cdef class ThirdOrder(Hypergraph):
    """The grand-sibling grammar over the arcs of an `ArcIndex`.

    scores: C-contiguous float64 (n + 1, n + 1), finite on allowed arcs.
    sib, grand, gsib: C-contiguous float64 compact part vectors (see the module
    docstring) or None for all zero.

    Item ids: 0 the unit, 1 dead, then the complete spans that can be built
    (each (h, slot of g, side) owns a run of consecutive span ends e), then
    I^g[h, m] at i_base + arc * H + slot, then S^h[s, m] at s_base + its
    sibling part id. Setup is O(n max_heads + arcs max_heads + parts + items)
    on top of the ArcIndex.
    """
    cdef readonly ArcIndex arcs
    cdef readonly bint single_root
    cdef const double[:, ::1] scores
    cdef const double[::1] sib
    cdef const double[::1] grand
    cdef const double[::1] gsib
    cdef bint has_sib, has_grand, has_gsib
    cdef Py_ssize_t N, H, shift, n_right, i_base, s_base     # H = 2 ** shift >= max_heads
    cdef int[::1] rptr, right, lptr, left, hptr, heads, sib_ptr, grand_ptr, gsib_ptr
    cdef int[::1] arc_head, arc_mod, arc_pos, arc_mslot, part_arc
    cdef int[::1] first_right, first_left, reach_right, reach_left
    # The complete spans of h, slot and side (0: right of h, 1: left) have the
    # run key k = 2 * (h * H + slot) + side, the ends c_lo[k] .. c_hi[k] and the
    # ids c_base[k] + (e - c_lo[k]); c_key[id - 2] is the run key of an id.
    cdef int[::1] c_lo, c_hi, c_base, c_key

    def __init__(self, scores, ArcIndex arcs, sib=None, grand=None, gsib=None, bint single_root=True):
        cdef Py_ssize_t N = arcs.n + 1
        cdef double[::1] none = np.zeros(1)
        self.arcs = arcs
        self.single_root = single_root
        self.scores = scores
        self.has_sib, self.has_grand, self.has_gsib = sib is not None, grand is not None, gsib is not None
        self.sib = none if sib is None else sib
        self.grand = none if grand is None else grand
        self.gsib = none if gsib is None else gsib
        for name, given, size in (("sib", sib, arcs.n_sibling_parts), ("grand", grand, arcs.n_grandparent_parts),
                                  ("gsib", gsib, arcs.n_grand_sibling_parts)):
            if given is not None and len(given) != size:
                raise ValueError(f"{name} has {len(given)} scores, the part layout {size}")
        self.rptr, self.right, self.lptr, self.left = arcs.right_ptr, arcs.right, arcs.left_ptr, arcs.left
        self.hptr, self.heads = arcs.head_ptr, arcs.heads
        self.sib_ptr, self.grand_ptr, self.gsib_ptr = arcs.sib_ptr, arcs.grand_ptr, arcs.gsib_ptr
        self.arc_head, self.arc_mod, self.arc_pos, self.arc_mslot = _arc_table(arcs)
        self.part_arc = _sibling_part_arcs(arcs)
        self.first_right, self.first_left, self.reach_right, self.reach_left = _modifier_bounds(arcs)
        self.N, self.n_right, self.shift = N, arcs.n_right, 0
        while (1 << self.shift) < arcs.max_heads:
            self.shift += 1
        self.H = 1 << self.shift
        self.i_base = 2 + self._complete_ranges()
        self.s_base = self.i_base + arcs.n_arcs * self.H
        self.n_items = self.s_base + arcs.n_sibling_parts
        self.max_edges = N
        self.goal = self.C(0, N - 1, 0) if N > 1 else 0
        self.order = self._schedule()

    cdef Py_ssize_t _complete_ranges(self):
        """Fill the run tables of the complete spans; return their number.

        C^g[h, e] can be built when h has a modifier between h and e and its
        subtree can reach e, and used only when e is on h's side of g; with
        `single_root`, a child of the root needs only its spans to 1 and to n,
        the root only C[0, n].
        """
        cdef Py_ssize_t N = self.N, n = N - 1, H = self.H, h, slot, g, k, lo, hi, total = 0
        self.c_lo = np.ones(2 * N * H, dtype=np.int32)
        self.c_hi = np.zeros(2 * N * H, dtype=np.int32)
        self.c_base = np.zeros(2 * N * H, dtype=np.int32)
        for h in range(N):
            for slot in range(1 if h == 0 else self.hptr[h + 1] - self.hptr[h]):
                g = -1 if h == 0 else self.heads[self.hptr[h] + slot]
                k = 2 * ((h << self.shift) + slot)
                lo, hi = self.first_right[h], min(self.reach_right[h], n if g < h else g - 1)
                if (h == 0 or g == 0) and self.single_root:
                    lo = max(lo, n)
                self.c_lo[k], self.c_hi[k], self.c_base[k] = lo, hi, 2 + total
                total += max(hi - lo + 1, 0)
                if h > 0:
                    lo, hi = max(self.reach_left[h], 1 if g > h else g + 1), self.first_left[h]
                    if g == 0 and self.single_root:
                        hi = min(hi, 1)
                    self.c_lo[k + 1], self.c_hi[k + 1], self.c_base[k + 1] = lo, hi, 2 + total
                    total += max(hi - lo + 1, 0)
        self.c_key = np.empty(total, dtype=np.int32)
        for k in range(2 * N * H):
            for lo in range(self.c_base[k], self.c_base[k] + max(self.c_hi[k] - self.c_lo[k] + 1, 0)):
                self.c_key[lo - 2] = <int>k
        return total

    cdef inline int C(self, Py_ssize_t h, Py_ssize_t e, Py_ssize_t slot) noexcept nogil:
        """C^g[h, e] for g at `slot` among h's heads; the unit when e == h, DEAD
        when the span cannot be built or used."""
        cdef Py_ssize_t k = 2 * ((h << self.shift) + slot) + (e < h)
        if h == e:
            return 0
        if e < self.c_lo[k] or e > self.c_hi[k]:
            return DEAD
        return <int>(self.c_base[k] + e - self.c_lo[k])

    cdef inline int I(self, Py_ssize_t arc, Py_ssize_t slot) noexcept nogil:
        return <int>(self.i_base + (arc << self.shift) + slot)

    def arc_view(self, q, reduce="max"):
        """The (n + 1, n + 1) arc quantities of a per-item array: q of the
        I^g[h, m] items combined over the slots of g by "max" (max-marginals;
        -inf where no arc) or "sum" (marginals, best-derivation indicators; 0)."""
        block = np.asarray(q)[self.i_base:self.s_base].reshape(-1, self.H)
        out = np.full((self.N, self.N), -np.inf if reduce == "max" else 0.0)
        values = block.max(axis=1) if reduce == "max" else block.sum(axis=1)
        out[np.asarray(self.arc_head), np.asarray(self.arc_mod)] = values
        return out

    cdef int[::1] _schedule(self):
        """The items in order of span width (a counting sort), the incomplete
        and sibling items of a width before its complete ones (C^g[h, e] uses
        I^g[h, e]); every other tail spans fewer words."""
        cdef Py_ssize_t keys = 2 * self.N + 1, key
        cdef int[::1] start = np.zeros(keys + 1, dtype=np.int32)
        cdef int[::1] order
        with nogil:
            self._items(&start[1], NULL)
            for key in range(keys):
                start[key + 1] += start[key]
        order = np.empty(start[keys], dtype=np.int32)
        with nogil:
            self._items(&start[0], &order[0] if order.shape[0] else NULL)
        return order

    cdef void _items(self, int* cursor, int* order) noexcept nogil:
        """Every item with its sort key 2 * width (+ 1 for complete spans):
        counted in cursor[key], or written to order[cursor[key]++]."""
        cdef Py_ssize_t a, h, m, j, k, slot, g, key, e
        for a in range(self.arcs.n_arcs):
            h, m, j = self.arc_head[a], self.arc_mod[a], self.arc_pos[a]
            if not (h == 0 and self.single_root):
                for k in range(1, j + 1):                                 # S^h[s, m]
                    key = 2 * _width(m, self.arc_mod[a - j + k - 1])
                    if order != NULL:
                        order[cursor[key]] = <int>(self.s_base + self.sib_ptr[a] + k)
                    cursor[key] += 1
            key = 2 * _width(m, h)
            for slot in range(1 if h == 0 else self.hptr[h + 1] - self.hptr[h]):   # I^g[h, m]
                g = -1 if h == 0 else self.heads[self.hptr[h] + slot]
                if g < min(h, m) or g > max(h, m):
                    if order != NULL:
                        order[cursor[key]] = self.I(a, slot)
                    cursor[key] += 1
        for k in range(self.c_lo.shape[0]):                                    # C^g[h, e]
            h = k >> (self.shift + 1)
            for e in range(self.c_lo[k], self.c_hi[k] + 1):
                key = 2 * _width(e, h) + 1
                if order != NULL:
                    order[cursor[key]] = <int>(self.c_base[k] + e - self.c_lo[k])
                cursor[key] += 1

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        if item < self.i_base:
            return self._complete(item, t1, t2, w)
        if item < self.s_base:
            return self._incomplete(item - self.i_base, t1, t2, w)
        return self._siblings(item - self.s_base, t1, t2, w)

    cdef Py_ssize_t _complete(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        # C^g[h, e] = (+)_m I^g[h, m] * C^h[m, e], m over h's modifiers between h and e
        cdef Py_ssize_t key = self.c_key[item - 2], h = key >> (self.shift + 1), slot = (key >> 1) & (self.H - 1)
        cdef Py_ssize_t e = self.c_lo[key] + item - self.c_base[key], i, a, m, k = 0
        if e > h:
            for i in range(self.rptr[h], self.rptr[h + 1]):
                m = self.right[i]
                if m > e:
                    break
                t1[k] = self.I(i, slot); t2[k] = self.C(m, e, self.arc_mslot[i]); w[k] = 0.0
                k += t2[k] != DEAD
            return k
        for i in range(self.lptr[h], self.lptr[h + 1]):
            m = self.left[i]
            if m < e:
                break
            a = self.n_right + i
            t1[k] = self.C(m, e, self.arc_mslot[a]); t2[k] = self.I(a, slot); w[k] = 0.0
            k += t1[k] != DEAD
        return k

    cdef inline double _part(self, Py_ssize_t h, Py_ssize_t sib_part, Py_ssize_t gsib_part) noexcept nogil:
        """sib(h, s, m) + gsib(g, h, s, m) for one sibling slot of an arc."""
        cdef double total = 0.0
        if self.has_sib:
            total += self.sib[sib_part]
        if self.has_gsib and h > 0:
            total += self.gsib[gsib_part]
        return total

    cdef Py_ssize_t _incomplete(self, Py_ssize_t r, int* t1, int* t2, double* w) noexcept nogil:
        # I^g[h, m] = w(g,h,h,m) C^h[m, h+-1]  (+)  (+)_s I^g[h, s] S^h[s, m] w(g,h,s,m)
        cdef Py_ssize_t slot = r & (self.H - 1), a = r >> self.shift
        cdef Py_ssize_t h = self.arc_head[a], m = self.arc_mod[a], j = self.arc_pos[a]
        cdef Py_ssize_t inner = h + 1 if m > h else h - 1, sp = self.sib_ptr[a], gs = 0, k, n = 0
        cdef double base = self.scores[h, m]
        if h > 0:
            gs = self.gsib_ptr[a] + slot * (j + 1)
            if self.has_grand:
                base += self.grand[self.grand_ptr[a] + slot]
        t1[0] = self.C(m, inner, self.arc_mslot[a]); t2[0] = 0; w[0] = base + self._part(h, sp, gs)
        n = t1[0] != DEAD
        if h == 0 and self.single_root:
            return n
        for k in range(1, j + 1):
            t1[n] = self.I(a - j + k - 1, slot); t2[n] = <int>(self.s_base + sp + k)
            w[n] = base + self._part(h, sp + k, gs + k)
            n += 1
        return n

    cdef Py_ssize_t _siblings(self, Py_ssize_t p, int* t1, int* t2, double* w) noexcept nogil:
        # S^h[s, m] = (+)_{lo <= r < hi} C^h[lo, r] * C^h[hi, r + 1]; r only where both halves exist
        cdef Py_ssize_t a = self.part_arc[p], k = p - self.sib_ptr[a]
        cdef Py_ssize_t a_in = a - self.arc_pos[a] + k - 1, lo_arc = a, hi_arc = a_in
        cdef Py_ssize_t lo, hi, lo_slot, hi_slot, k_lo, k_hi, r, n = 0
        if self.arc_mod[a] > self.arc_head[a]:
            lo_arc, hi_arc = a_in, a
        lo, hi = self.arc_mod[lo_arc], self.arc_mod[hi_arc]
        lo_slot, hi_slot = self.arc_mslot[lo_arc], self.arc_mslot[hi_arc]
        t2[0] = self.C(hi, lo + 1, hi_slot)                     # r = lo: C^h[lo, lo] is the unit
        if t2[0] != DEAD:
            t1[0] = 0; w[0] = 0.0
            n = 1
        k_lo = 2 * ((lo << self.shift) + lo_slot)              # runs: lo's right spans, hi's left spans
        k_hi = 2 * ((hi << self.shift) + hi_slot) + 1
        for r in range(max(lo + 1, self.c_lo[k_lo], self.c_lo[k_hi] - 1),
                       min(hi - 2, self.c_hi[k_lo], self.c_hi[k_hi] - 1) + 1):
            t1[n] = <int>(self.c_base[k_lo] + r - self.c_lo[k_lo])
            t2[n] = <int>(self.c_base[k_hi] + r + 1 - self.c_lo[k_hi])
            w[n] = 0.0
            n += 1
        if hi - 1 > lo:                                         # r = hi - 1: C^h[hi, hi] is the unit
            t1[n] = self.C(lo, hi - 1, lo_slot); t2[n] = 0; w[n] = 0.0
            n += t1[n] != DEAD
        return n


cdef inline Py_ssize_t _width(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a - b if a > b else b - a


cdef tuple _arc_table(ArcIndex ai):
    """Per arc id: head, modifier, position j in the head's list for that side,
    and the slot of the head among the modifier's heads."""
    cdef Py_ssize_t h, i, a, n_right = ai.n_right
    cdef int[::1] head = np.empty(ai.n_arcs, dtype=np.int32)
    cdef int[::1] mod = np.empty(ai.n_arcs, dtype=np.int32)
    cdef int[::1] pos = np.empty(ai.n_arcs, dtype=np.int32)
    cdef int[::1] mslot = np.empty(ai.n_arcs, dtype=np.int32)
    for h in range(ai.n + 1):
        for i in range(ai.right_ptr[h], ai.right_ptr[h + 1]):
            head[i], mod[i], pos[i] = h, ai.right[i], i - ai.right_ptr[h]
        for i in range(ai.left_ptr[h], ai.left_ptr[h + 1]):
            a = n_right + i
            head[a], mod[a], pos[a] = h, ai.left[i], i - ai.left_ptr[h]
    for a in range(ai.n_arcs):
        mslot[a] = ai.head_slot[head[a], mod[a]]
    return head, mod, pos, mslot


cdef int[::1] _sibling_part_arcs(ArcIndex ai):
    """The arc id of every sibling part."""
    cdef int[::1] out = np.empty(ai.sib_ptr[ai.n_arcs], dtype=np.int32)
    cdef Py_ssize_t a, p
    for a in range(ai.n_arcs):
        for p in range(ai.sib_ptr[a], ai.sib_ptr[a + 1]):
            out[p] = a
    return out


cdef tuple _modifier_bounds(ArcIndex ai):
    """Per word: the closest allowed modifier on the right (n + 1 if none) and on
    the left (-1 if none), and how far its subtree can reach to the right and to
    the left (a bound: the reach of its farthest-reaching modifier). O(n + arcs)."""
    cdef Py_ssize_t h, i, N = ai.n + 1
    cdef int[::1] first_right = np.full(N, N, dtype=np.int32)
    cdef int[::1] first_left = np.full(N, -1, dtype=np.int32)
    cdef int[::1] reach_right = np.arange(N, dtype=np.int32)
    cdef int[::1] reach_left = np.arange(N, dtype=np.int32)
    for h in range(N):
        if ai.right_ptr[h] < ai.right_ptr[h + 1]:
            first_right[h] = ai.right[ai.right_ptr[h]]
        if ai.left_ptr[h] < ai.left_ptr[h + 1]:
            first_left[h] = ai.left[ai.left_ptr[h]]
        for i in range(ai.left_ptr[h], ai.left_ptr[h + 1]):          # left modifiers come first
            reach_left[h] = min(reach_left[h], reach_left[ai.left[i]])
    for h in range(N - 1, -1, -1):
        for i in range(ai.right_ptr[h], ai.right_ptr[h + 1]):
            reach_right[h] = max(reach_right[h], reach_right[ai.right[i]])
    return first_right, first_left, reach_right, reach_left


def part_index(ArcIndex full, ArcIndex sub):
    """Where each part of `sub` sits in the layout of `full`, whose allowed arcs
    include sub's (arcs dropped for a -inf arc score): int64 arrays of length
    sub's sibling, grandparent and grand-sibling part counts. O(parts of sub)."""
    cdef long long[::1] sib = np.empty(sub.n_sibling_parts, dtype=np.int64)
    cdef long long[::1] grand = np.empty(sub.n_grandparent_parts, dtype=np.int64)
    cdef long long[::1] gsib = np.empty(sub.n_grand_sibling_parts, dtype=np.int64)
    cdef long long[::1] k_full = np.empty(sub.n + 1, dtype=np.int64)
    cdef int[::1] head, mod, pos, mslot
    cdef Py_ssize_t a, fa, h, m, j, jf, k, slot, slot_full, first
    head, mod, pos, mslot = _arc_table(sub)
    for a in range(sub.n_arcs):
        h, m, j = head[a], mod[a], pos[a]
        fa = full.arc_id[h, m]
        first = full.right_ptr[h] if m > h else full.n_right + full.left_ptr[h]     # full's arc id at j = 0
        jf = fa - first
        k_full[0] = 0                               # sibling slot k in sub -> in full
        for k in range(1, j + 1):
            k_full[k] = 1 + full.arc_id[h, mod[a - j + k - 1]] - first
        for k in range(j + 1):
            sib[sub.sib_ptr[a] + k] = full.sib_ptr[fa] + k_full[k]
        for slot in range(sub.head_ptr[h + 1] - sub.head_ptr[h]):
            slot_full = full.head_slot[sub.heads[sub.head_ptr[h] + slot], h]
            grand[sub.grand_ptr[a] + slot] = full.grand_ptr[fa] + slot_full
            for k in range(j + 1):
                gsib[sub.gsib_ptr[a] + slot * (j + 1) + k] = full.gsib_ptr[fa] + slot_full * (jf + 1) + k_full[k]
    return np.asarray(sib), np.asarray(grand), np.asarray(gsib)

