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
`grand_sibling_parts()` list the parts in that order; None (NULL) means all
zero. Arcs of the layout scored -inf stay in it (their items are -inf).

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
Every table lives in buffers of the grammar object that grow with the largest
sentence and are reused (see eisner3.pxd for the C API).
"""
from libc.stdint cimport int64_t
from libc.stdlib cimport free
import numpy as np
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex
from .memory cimport grow, memory_limit, STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY, STATUS_TOO_LARGE
from .memory import check_status


cdef enum:
    DEAD = 1        # an item never scheduled (inside value -inf): the empty complete span


cdef double ZERO = 0.0


cdef class ThirdOrder(Hypergraph):
    """The grand-sibling grammar over the arcs of its `ArcIndex` (`self.arcs`).

    Python set-up (tests): ThirdOrder(scores, arcs, sib, grand, gsib, single_root)
    copies the layout of `arcs`, checks lengths and resets; ThirdOrder() gives an
    empty object for the C API.
    scores: float64 (n + 1, n + 1), finite or -inf on the arcs of the layout.
    sib, grand, gsib: float64 compact part vectors (see the module docstring) or
    None for all zero.

    Item ids: 0 the unit, 1 dead, then the complete spans that can be built
    (each (h, slot of g, side) owns a run of consecutive span ends e), then
    I^g[h, m] at i_base + arc * H + slot, then S^h[s, m] at s_base + its
    sibling part id. Setup is O(n H + arcs max_heads + parts + items) on top of
    the ArcIndex (H the power of two >= max_heads).
    """

    def __init__(self, scores=None, ArcIndex arcs=None, sib=None, grand=None, gsib=None,
                 bint single_root=True):
        self.arcs = ArcIndex()
        if scores is None:
            return
        cdef Py_ssize_t N = arcs.n + 1
        cdef const double[:, ::1] sc = np.ascontiguousarray(scores, dtype=np.float64)
        if sc.shape[0] != N or sc.shape[1] != N:
            raise ValueError(f"scores must have shape ({N}, {N}), got {np.shape(scores)}")
        vectors = []
        for name, given, size in (("sib", sib, arcs.n_sibling_parts), ("grand", grand, arcs.n_grandparent_parts),
                                  ("gsib", gsib, arcs.n_grand_sibling_parts)):
            if given is not None and len(given) != size:
                raise ValueError(f"{name} has {len(given)} scores, the part layout {size}")
            vectors.append(None if given is None else np.ascontiguousarray(given, dtype=np.float64))
        cdef const double* parts[3]
        cdef const double[::1] view
        for i in range(3):
            parts[i] = NULL
            if vectors[i] is not None:
                view = vectors[i]
                parts[i] = &view[0] if view.shape[0] else &ZERO
        cdef int status
        with nogil:
            status = self.arcs.reset(N - 1, arcs.allowed, N)
            if status == STATUS_OK:
                status = self.reset(&sc[0, 0], N, parts[0], parts[1], parts[2], single_root)
        check_status(status, self.bytes_needed, "third-order parsing")
        self._keep = (sc.base, vectors)

    def __dealloc__(self):
        free(self.ints)
        free(self.runs)
        free(self.c_key)
        free(self.part_arc)
        free(self.order_buf)

    cdef int reset(self, const double* scores, Py_ssize_t stride, const double* sib, const double* grand,
                   const double* gsib, bint single_root) noexcept nogil:
        cdef Py_ssize_t N = self.arcs.n + 1, n_runs, n_c, a
        cdef int64_t p, n_items
        self.n_items = self.n_order = 0
        if self.arcs.n < 0:
            return STATUS_NO_STRUCTURE
        self.N, self.single_root, self.scores, self.stride = N, single_root, scores, stride
        self.has_sib, self.has_grand, self.has_gsib = sib != NULL, grand != NULL, gsib != NULL
        self.sib = sib if sib != NULL else &ZERO
        self.grand = grand if grand != NULL else &ZERO
        self.gsib = gsib if gsib != NULL else &ZERO
        self.rptr, self.right, self.lptr, self.left = self.arcs.right_ptr, self.arcs.right, self.arcs.left_ptr, self.arcs.left
        self.hptr, self.heads = self.arcs.head_ptr, self.arcs.heads
        self.sib_ptr, self.grand_ptr, self.gsib_ptr = self.arcs.sib_ptr, self.arcs.grand_ptr, self.arcs.gsib_ptr
        self.arc_head, self.arc_mod, self.arc_pos, self.arc_mslot = (self.arcs.arc_head, self.arcs.arc_mod,
                                                                     self.arcs.arc_pos, self.arcs.arc_mslot)
        self.n_right, self.shift = self.arcs.n_right, 0
        while (1 << self.shift) < self.arcs.max_heads:
            self.shift += 1
        self.H = 1 << self.shift
        n_runs = 2 * N * self.H
        # per-word bounds and runs first (small), then count the items and check the whole
        self.bytes_needed = self.arcs.bytes_needed + (4 * N + 2 * N + 2 + 3 * n_runs) * sizeof(int)
        if self.bytes_needed > memory_limit():
            return STATUS_TOO_LARGE
        if (grow(<void**>&self.ints, &self.ints_cap, 4 * N + 2 * N + 2, sizeof(int)) != 0
                or grow(<void**>&self.runs, &self.runs_cap, 3 * n_runs, sizeof(int)) != 0):
            return STATUS_OUT_OF_MEMORY
        self.first_right, self.first_left = self.ints, self.ints + N
        self.reach_right, self.reach_left, self.start = self.ints + 2 * N, self.ints + 3 * N, self.ints + 4 * N
        self.c_lo, self.c_hi, self.c_base = self.runs, self.runs + n_runs, self.runs + 2 * n_runs
        self._modifier_bounds()
        n_c = self._complete_ranges()
        n_items = 2 + n_c + <int64_t>self.arcs.n_arcs * self.H + self.arcs.n_sibling_parts
        self.bytes_needed += ((n_c + self.arcs.n_sibling_parts) * sizeof(int)
                              + <size_t>n_items * (2 * sizeof(double) + sizeof(int)) + N * 24)
        if self.bytes_needed > memory_limit() or n_items > 2147483647:
            return STATUS_TOO_LARGE
        if (grow(<void**>&self.c_key, &self.c_key_cap, n_c + 1, sizeof(int)) != 0
                or grow(<void**>&self.part_arc, &self.part_arc_cap, self.arcs.n_sibling_parts + 1, sizeof(int)) != 0
                or grow(<void**>&self.order_buf, &self.order_cap, <size_t>n_items, sizeof(int)) != 0):
            return STATUS_OUT_OF_MEMORY
        self._key_complete_items()
        for a in range(self.arcs.n_arcs):
            for p in range(self.sib_ptr[a], self.sib_ptr[a + 1]):
                self.part_arc[p] = <int>a
        self.i_base = 2 + n_c
        self.s_base = self.i_base + self.arcs.n_arcs * self.H
        self.n_items = <Py_ssize_t>(self.s_base + self.arcs.n_sibling_parts)
        self.max_edges = N
        self.goal = self.item_C(0, N - 1, 0) if N > 1 else 0
        self._schedule()
        return STATUS_OK

    cdef void _modifier_bounds(self) noexcept nogil:
        """Per word: the closest allowed modifier on the right (n + 1 if none) and on
        the left (-1 if none), and how far its subtree can reach to the right and to
        the left (a bound: the reach of its farthest-reaching modifier). O(n + arcs)."""
        cdef Py_ssize_t h, i, N = self.N
        for h in range(N):
            self.first_right[h] = <int>N
            self.first_left[h] = -1
            self.reach_right[h] = self.reach_left[h] = <int>h
            if self.rptr[h] < self.rptr[h + 1]:
                self.first_right[h] = self.right[self.rptr[h]]
            if self.lptr[h] < self.lptr[h + 1]:
                self.first_left[h] = self.left[self.lptr[h]]
            for i in range(self.lptr[h], self.lptr[h + 1]):          # left modifiers come first
                if self.reach_left[self.left[i]] < self.reach_left[h]:
                    self.reach_left[h] = self.reach_left[self.left[i]]
        for h in range(N - 1, -1, -1):
            for i in range(self.rptr[h], self.rptr[h + 1]):
                if self.reach_right[self.right[i]] > self.reach_right[h]:
                    self.reach_right[h] = self.reach_right[self.right[i]]

    cdef Py_ssize_t _complete_ranges(self) noexcept nogil:
        """Fill the run tables of the complete spans; return their number.

        C^g[h, e] can be built when h has a modifier between h and e and its
        subtree can reach e, and used only when e is on h's side of g; with
        `single_root`, a child of the root needs only its spans to 1 and to n,
        the root only C[0, n].
        """
        cdef Py_ssize_t N = self.N, n = N - 1, h, slot, g, k, lo, hi, total = 0
        for k in range(2 * N * self.H):
            self.c_lo[k], self.c_hi[k], self.c_base[k] = 1, 0, 0
        for h in range(N):
            for slot in range(1 if h == 0 else self.hptr[h + 1] - self.hptr[h]):
                g = -1 if h == 0 else self.heads[self.hptr[h] + slot]
                k = 2 * ((h << self.shift) + slot)
                lo, hi = self.first_right[h], min(self.reach_right[h], n if g < h else g - 1)
                if (h == 0 or g == 0) and self.single_root:
                    lo = max(lo, n)
                self.c_lo[k], self.c_hi[k], self.c_base[k] = <int>lo, <int>hi, <int>(2 + total)
                total += max(hi - lo + 1, 0)
                if h > 0:
                    lo, hi = max(self.reach_left[h], 1 if g > h else g + 1), self.first_left[h]
                    if g == 0 and self.single_root:
                        hi = min(hi, 1)
                    self.c_lo[k + 1], self.c_hi[k + 1], self.c_base[k + 1] = <int>lo, <int>hi, <int>(2 + total)
                    total += max(hi - lo + 1, 0)
        return total

    cdef void _key_complete_items(self) noexcept nogil:
        cdef Py_ssize_t k, i
        for k in range(2 * self.N * self.H):
            for i in range(self.c_base[k], self.c_base[k] + max(self.c_hi[k] - self.c_lo[k] + 1, 0)):
                self.c_key[i - 2] = <int>k

    cdef inline int item_C(self, Py_ssize_t h, Py_ssize_t e, Py_ssize_t slot) noexcept nogil:
        """C^g[h, e] for g at `slot` among h's heads; the unit when e == h, DEAD
        when the span cannot be built or used."""
        cdef Py_ssize_t k = 2 * ((h << self.shift) + slot) + (e < h)
        if h == e:
            return 0
        if e < self.c_lo[k] or e > self.c_hi[k]:
            return DEAD
        return <int>(self.c_base[k] + e - self.c_lo[k])

    cdef inline int item_I(self, Py_ssize_t arc, Py_ssize_t slot) noexcept nogil:
        return <int>(self.i_base + (arc << self.shift) + slot)

    cdef void _schedule(self) noexcept nogil:
        """The items in order of span width (a counting sort), the incomplete
        and sibling items of a width before its complete ones (C^g[h, e] uses
        I^g[h, e]); every other tail spans fewer words."""
        cdef Py_ssize_t keys = 2 * self.N + 1, key
        for key in range(keys + 1):
            self.start[key] = 0
        self._items(&self.start[1], NULL)
        for key in range(keys):
            self.start[key + 1] += self.start[key]
        self.n_order = self.start[keys]
        self.order = self.order_buf
        self._items(self.start, self.order_buf)

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
                        order[cursor[key]] = self.item_I(a, slot)
                    cursor[key] += 1
        for k in range(2 * self.N * self.H):                                 # C^g[h, e]
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
                t1[k] = self.item_I(i, slot); t2[k] = self.item_C(m, e, self.arc_mslot[i]); w[k] = 0.0
                k += t2[k] != DEAD
            return k
        for i in range(self.lptr[h], self.lptr[h + 1]):
            m = self.left[i]
            if m < e:
                break
            a = self.n_right + i
            t1[k] = self.item_C(m, e, self.arc_mslot[a]); t2[k] = self.item_I(a, slot); w[k] = 0.0
            k += t1[k] != DEAD
        return k

    cdef inline double _part(self, Py_ssize_t h, int64_t sib_part, int64_t gsib_part) noexcept nogil:
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
        cdef Py_ssize_t inner = h + 1 if m > h else h - 1, k, n = 0
        cdef int64_t sp = self.sib_ptr[a], gs = 0
        cdef double base = self.scores[h * self.stride + m]
        if h > 0:
            gs = self.gsib_ptr[a] + slot * (j + 1)
            if self.has_grand:
                base += self.grand[self.grand_ptr[a] + slot]
        t1[0] = self.item_C(m, inner, self.arc_mslot[a]); t2[0] = 0; w[0] = base + self._part(h, sp, gs)
        n = t1[0] != DEAD
        if h == 0 and self.single_root:
            return n
        for k in range(1, j + 1):
            t1[n] = self.item_I(a - j + k - 1, slot); t2[n] = <int>(self.s_base + sp + k)
            w[n] = base + self._part(h, sp + k, gs + k)
            n += 1
        return n

    cdef Py_ssize_t _siblings(self, Py_ssize_t p, int* t1, int* t2, double* w) noexcept nogil:
        # S^h[s, m] = (+)_{lo <= r < hi} C^h[lo, r] * C^h[hi, r + 1]; r only where both halves exist
        cdef Py_ssize_t a = self.part_arc[p], k = <Py_ssize_t>(p - self.sib_ptr[a])
        cdef Py_ssize_t a_in = a - self.arc_pos[a] + k - 1, lo_arc = a, hi_arc = a_in
        cdef Py_ssize_t lo, hi, lo_slot, hi_slot, k_lo, k_hi, r, n = 0
        if self.arc_mod[a] > self.arc_head[a]:
            lo_arc, hi_arc = a_in, a
        lo, hi = self.arc_mod[lo_arc], self.arc_mod[hi_arc]
        lo_slot, hi_slot = self.arc_mslot[lo_arc], self.arc_mslot[hi_arc]
        t2[0] = self.item_C(hi, lo + 1, hi_slot)                     # r = lo: C^h[lo, lo] is the unit
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
            t1[n] = self.item_C(lo, hi - 1, lo_slot); t2[n] = 0; w[n] = 0.0
            n += t1[n] != DEAD
        return n

    cdef Py_ssize_t n_words(self) noexcept nogil:
        return self.N - 1

    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil:
        cdef Py_ssize_t a, slot
        cdef double total
        for a in range(self.N):
            heads[a] = -1
        for a in range(self.arcs.n_arcs):
            total = 0.0
            for slot in range(self.H):
                total += q[self.item_I(a, slot)]
            if total > 0.5:
                heads[self.arc_mod[a]] = self.arc_head[a]

    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil:
        """q of the I^g[h, m] items combined over the slots of g: max (max-marginals)
        or sum (marginals)."""
        cdef Py_ssize_t h, m, a, slot
        cdef double total, v
        for h in range(self.N):
            for m in range(self.N):
                out[h * stride + m] = fill
        for a in range(self.arcs.n_arcs):
            total = q[self.item_I(a, 0)]
            for slot in range(1, self.H):
                v = q[self.item_I(a, slot)]
                if maximum:
                    total = v if v > total else total
                else:
                    total += v
            out[self.arc_head[a] * stride + self.arc_mod[a]] = total

    def arc_view(self, q, reduce="max"):
        """The (n + 1, n + 1) arc quantities of a per-item array: q of the
        I^g[h, m] items combined over the slots of g by "max" (max-marginals;
        -inf where no arc) or "sum" (marginals, best-derivation indicators; 0)."""
        cdef const double[::1] qv = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty((self.N, self.N))
        cdef double[:, ::1] o = out
        self.read_arcs(&qv[0], &o[0, 0], self.N, -np.inf if reduce == "max" else 0.0, reduce == "max")
        return out


cdef inline Py_ssize_t _width(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a - b if a > b else b - a
