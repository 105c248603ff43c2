# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The two projections of a lexicalized grammar whose Viterbi outside costs make A* heuristics
(Klein & Manning 2003, *Factored A* search for models over sequences and trees*; Haghighi, DeNero &
Klein 2007, *Approximate factoring for A* search*).

A lexicalized edge X[h][i, j] (layer 0: built by a binary rule or a tag; layer 1: after a unary rule or
the identity) projects to the CFG item X[i, j] (same layer) and to the dependency item D(h, i, j): "h
heads exactly the words i .. j-1". Every lexicalized derivation projects to one derivation in each, and the
cost of a lexicalized rule application is at least the sum of its two projected costs (exactly, for a
factored model), so outside(X[i, j]) + outside(D(h, i, j)) never exceeds the lexicalized outside cost.

CFG projection, over the live items X[i, j, layer] (N = n + 1, S symbols; see CFGProjection for ids):

    X[i, i+1, 0]  axiom iff X is the tag of word i
    X[i, j, 0]    = max over rules X -> Y Z, i < k < j:   Y[i, k, 1] + Z[k, j, 1] - c(X -> Y Z)
    X[i, j, 1]    = max over unary rules u = X <- C:      C[i, j, 0] - c(u)        (ROOT only over [0, n])
    goal ROOT[0, n, 1]

Dependency projection, items D(h, i, j) = 1 + (h N + i) N + j and the goal 1 + n N N:

    D(h, h, h+1)  axiom
    D(h, i, j)    = max over i < k <= h, i <= a < k:  D(a, i, k) + D(h, k, j) - arc(h, a, k == h) - close(a, i, k)
                    max over h < k < j,  k <= a < j:  D(h, i, k) + D(a, k, j) - arc(h, a, k == h+1) - close(a, k, j)
    goal          = max over h:  D(h, 0, n) - root(h) - close(h, 0, n)

The dependency projection is a grammar on the shared hypergraph engine (scores are negated costs: the
engine maximises). The CFG projection runs its own recognizer and Viterbi sweep (CFGProjection), listing
only edges whose children can be built: work O(live edges) rather than O(R n^3). Time O(R n^3) in the
worst case for the CFG projection, O(n^5 / 60) for the dependency projection; memory one double per item
and chart (2 S N^2 and n N^2 items).
"""
import numpy as np
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset
from .hypergraph cimport Hypergraph, AXIOM, inside, backward
from .semiring cimport MaxSemiring
from .lexgrammar cimport RuleIndex, CostTables, close_cost, cfg_item


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int vp_ctz64(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #else
    static inline int vp_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #endif
    """
    int vp_ctz64(unsigned long long x) nogil


cdef struct Edge:
    int parent          # compact ids
    int t1
    int t2              # -1 for a unary edge
    int rule            # binary rule id, or unary rule id when t2 == -1 (16 bytes an edge: the sweeps stream them)


cdef struct EdgeVec:
    Edge* data
    Py_ssize_t size, cap


cdef struct IntVec:
    int* data
    Py_ssize_t size, cap


cdef inline int reserve(void** data, Py_ssize_t* cap, Py_ssize_t size, size_t itemsize) noexcept nogil:
    """Room for item `size` (at most the capacity) of a growable array, doubling the capacity when needed; -1
    when out of memory."""
    cdef void* p
    if size >= cap[0]:
        p = realloc(data[0], (2 * cap[0] + 1024) * itemsize)
        if p == NULL:
            return -1
        data[0] = p
        cap[0] = 2 * cap[0] + 1024
    return 0


cdef inline int ipush(IntVec* v, int x) noexcept nogil:
    """Append x; -1 when out of memory."""
    if reserve(<void**>&v.data, &v.cap, v.size, sizeof(int)) < 0:
        return -1
    v.data[v.size] = x
    v.size += 1
    return 0


cdef inline int epush(EdgeVec* v, int parent, int t1, int t2, int rule) noexcept nogil:
    """Append an edge; -1 when out of memory."""
    if reserve(<void**>&v.data, &v.cap, v.size, sizeof(Edge)) < 0:
        return -1
    v.data[v.size].parent, v.data[v.size].t1, v.data[v.size].t2, v.data[v.size].rule = parent, t1, t2, rule
    v.size += 1
    return 0


cdef class CFGProjection:
    """The CFG projection of one sentence: rule costs from `proj` (rule_cost (R, 1), unary_cost (U, 1)).

    Building it runs a bottom-up recognizer, span by span in order of width, that gives ids only to the
    items with a derivation and records every edge once, in discovery order: for each split k, each live
    Y[i, k] and each rule group (Y, Z) of the rule index with Z[k, j] live, then the span's unary edges. That
    order is topological (children before parents), so the Viterbi inside cost of an item is final when its
    span is done and is computed on the way; `viterbi` gets the outside costs by one sweep over the edges
    in reverse. Work O(live edges) rather than O(R n^3); unlike the other grammars of the package this one
    bypasses the hypergraph engine, whose per-item edge callbacks would need the edges regrouped by parent
    (twice the recognizer's memory traffic, for the same result).

    Item ids here are compact (``n_items`` is small; id 0 is unused); ``dense_id(X, i, j, layer)`` = 1 + ((layer
    N + i) N + j) S + X (lexgrammar.cfg_item) is the numbering the A* agenda and the exhaustive chart read, and
    ``to_dense`` spreads per-item values over it.
    """
    cdef RuleIndex rules
    cdef CostTables proj
    cdef const int[::1] tags
    cdef readonly int n, N, S
    cdef readonly Py_ssize_t n_dense, n_items, goal
    cdef readonly bint parsable         # ROOT[0, n] has a derivation
    cdef int[::1] compact               # dense id -> compact id, -1 when the item has no derivation
    cdef IntVec item_sym, item_dense
    cdef double* cost                   # Viterbi inside cost per compact id (capacity cost_cap)
    cdef Py_ssize_t cost_cap
    cdef IntVec live                    # compact ids, span by span: layer 0 then layer 1
    cdef int[:, ::1] live0_start, live0_end, live1_start, live1_end
    cdef EdgeVec edges                  # every edge, in discovery (topological) order
    cdef unsigned long long* live_bits  # per span, a bitset of its live layer-1 symbols (cache-resident)
    cdef int words_per_span             # 64-bit words per bitset
    cdef int* local0                    # symbol -> compact id of the current span's layer-0 items (-1)
    cdef int* local1                    # the same for layer 1

    def __cinit__(self):
        memset(&self.item_sym, 0, sizeof(IntVec)); memset(&self.item_dense, 0, sizeof(IntVec))
        memset(&self.live, 0, sizeof(IntVec)); memset(&self.edges, 0, sizeof(EdgeVec))
        self.cost = NULL
        self.cost_cap = 0
        self.live_bits = NULL
        self.local0 = self.local1 = NULL

    def __dealloc__(self):
        free(self.item_sym.data); free(self.item_dense.data); free(self.live.data); free(self.edges.data)
        free(self.cost); free(self.live_bits); free(self.local0); free(self.local1)

    def __init__(self, RuleIndex rules, CostTables proj, const int[::1] tags):
        cdef int n = tags.shape[0], N = n + 1, status
        cdef Py_ssize_t x
        self.rules = rules
        self.proj = proj
        self.tags = tags
        self.n, self.N, self.S = n, N, rules.n_symbols
        self.n_dense = 1 + 2 * <Py_ssize_t>self.S * N * N
        if self.n_dense >= 2 ** 31:
            raise ValueError(f"a sentence of {n} words is too long for the CFG projection chart")
        self.compact = np.full(self.n_dense, -1, dtype=np.int32)
        self.live0_start = np.zeros((N, N), dtype=np.int32)
        self.live0_end = np.zeros((N, N), dtype=np.int32)
        self.live1_start = np.zeros((N, N), dtype=np.int32)
        self.live1_end = np.zeros((N, N), dtype=np.int32)
        self.words_per_span = (self.S + 63) // 64
        self.live_bits = <unsigned long long*>calloc(<size_t>N * N * self.words_per_span, sizeof(unsigned long long))
        self.local0 = <int*>malloc(self.S * sizeof(int))
        self.local1 = <int*>malloc(self.S * sizeof(int))
        if self.live_bits == NULL or self.local0 == NULL or self.local1 == NULL:
            raise MemoryError("cannot allocate the CFG projection chart")
        for x in range(self.S):
            self.local0[x] = self.local1[x] = -1
        with nogil:
            status = self._recognize()
        if status < 0:
            raise MemoryError("out of memory while building the CFG projection chart")
        self.goal = self.compact[self.dense(rules.root, 0, n, 1)]
        self.parsable = self.goal >= 0
        self.n_items = self.item_sym.size

    cdef inline Py_ssize_t dense(self, int X, int i, int j, int layer) noexcept nogil:
        return cfg_item(self.S, self.N, X, i, j, layer)

    def dense_id(self, int X, int i, int j, int layer):
        """The dense (sentence-independent) id of the CFG item X[i, j] in `layer`."""
        return self.dense(X, i, j, layer)

    def compact_ids(self):
        """The compact id of every dense id (-1 for items without a derivation): int32 (n_dense,)."""
        return np.asarray(self.compact)

    def to_dense(self, values, double fill=INFINITY):
        """Spread per-item values (indexed by compact id) over dense ids; `fill` for items without a
        derivation. RETURNS (np.ndarray): float64 (n_dense,)."""
        cdef int[::1] view = <int[:self.item_dense.size]>self.item_dense.data
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (self.n_items,):
            raise ValueError(f"expected one value per item ({self.n_items}), got shape {values.shape}")
        out = np.full(self.n_dense, fill)
        ids = np.array(view[1:], dtype=np.int64)
        known = ids >= 0
        out[ids[known]] = values[1:][known]
        return out

    def viterbi(self):
        """Best cost, Viterbi inside and outside costs of every item (as `viterbi_inside_outside`).

        RETURNS (float, np.ndarray or None, np.ndarray or None): the best parse's cost (+inf if none), and
            float64 inside and outside costs per compact id (+inf for id 0 and for items in no parse; None
            when there is no parse). Time O(edges).
        """
        cdef double[::1] inside, outside
        cdef Py_ssize_t e
        cdef Edge* edge
        cdef double o
        cdef const double* rule_cost = &self.proj.rule_cost[0, 0] if self.proj.rule_cost.shape[0] else NULL
        cdef const double* unary_cost = &self.proj.unary_cost[0, 0] if self.proj.unary_cost.shape[0] else NULL
        if not self.parsable or self.cost[self.goal] == INFINITY:
            return INFINITY, None, None
        inside = np.array(<double[:self.n_items]>self.cost)
        outside = np.full(self.n_items, INFINITY)
        inside[0] = INFINITY
        outside[self.goal] = 0.0
        with nogil:
            for e in range(self.edges.size - 1, -1, -1):
                edge = &self.edges.data[e]
                o = outside[edge.parent]
                if o == INFINITY:
                    continue
                if edge.t2 < 0:
                    o += unary_cost[edge.rule]
                    if o < outside[edge.t1]:
                        outside[edge.t1] = o
                else:
                    o += rule_cost[edge.rule]
                    if o + inside[edge.t2] < outside[edge.t1]:
                        outside[edge.t1] = o + inside[edge.t2]
                    if o + inside[edge.t1] < outside[edge.t2]:
                        outside[edge.t2] = o + inside[edge.t1]
        return inside[self.goal], np.asarray(inside), np.asarray(outside)

    cdef int _new_item(self, int X, int i, int j, int layer) noexcept nogil:
        """Give X[i, j, layer] the next compact id (inside cost +inf); returns it, or -1 when out of memory."""
        cdef int item = <int>self.item_sym.size
        cdef Py_ssize_t d = self.dense(X, i, j, layer)
        if ipush(&self.item_sym, X) < 0 or ipush(&self.item_dense, <int>d) < 0 or ipush(&self.live, item) < 0:
            return -1
        if reserve(<void**>&self.cost, &self.cost_cap, item, sizeof(double)) < 0:
            return -1
        self.cost[item] = INFINITY
        self.compact[d] = item
        return item

    cdef inline int _edge(self, int parent, int t1, int t2, int rule, double cost) noexcept nogil:
        """Record an edge (rule of cost `cost`) and relax its parent's inside cost; -1 when out of memory."""
        cdef double total = self.cost[t1] + cost + (self.cost[t2] if t2 >= 0 else 0.0)
        if total < self.cost[parent]:
            self.cost[parent] = total
        return epush(&self.edges, parent, t1, t2, rule)

    cdef int _recognize(self) noexcept nogil:
        """The recognizer of the class docstring. Returns 0, or -1 when out of memory."""
        cdef int n = self.n, N = self.N, W = self.words_per_span
        cdef int width, i, j, split, a, Y, Z, yid, grp, e, X, xid, c, cid, u, ws, word
        cdef unsigned long long* bits
        cdef unsigned long long mask
        # The rule index as raw pointers: read through `self.rules` they would be reloaded after every store.
        cdef const int* lg_ptr = &self.rules.lg_ptr[0]
        cdef const int* lg_other = &self.rules.lg_other[0] if self.rules.lg_other.shape[0] else NULL
        cdef const int* wide_slot = &self.rules.wide_slot[0]
        cdef const unsigned long long* wide_bits = (&self.rules.wide_bits[0, 0]
                                                    if self.rules.wide_bits.shape[0] else NULL)
        cdef const int* wide_group = &self.rules.wide_group[0, 0] if self.rules.wide_group.shape[0] else NULL
        cdef Py_ssize_t wide_words = self.rules.wide_bits.shape[1], wide_syms = self.rules.wide_group.shape[1]
        cdef const int* uc_ptr = &self.rules.uc_ptr[0]
        cdef const int* uc_rules = &self.rules.uc_rules[0] if self.rules.uc_rules.shape[0] else NULL
        cdef const int* u_parent = &self.rules.u_parent[0] if self.rules.u_parent.shape[0] else NULL
        cdef const double* unary_cost = (&self.proj.unary_cost[0, 0]       # (U, 1): rule u at offset u
                                         if self.proj.unary_cost.shape[0] else NULL)
        cdef int* local1 = self.local1
        cdef int root = self.rules.root
        if ipush(&self.item_sym, -1) < 0 or ipush(&self.item_dense, -1) < 0:     # id 0: unused
            return -1
        for width in range(1, n + 1):
            for i in range(n - width + 1):
                j = i + width
                self.live0_start[i, j] = <int>self.live.size
                if width == 1:
                    xid = self._new_item(self.tags[i], i, j, 0)
                    if xid < 0:
                        return -1
                    self.cost[xid] = 0.0
                else:
                    for split in range(i + 1, j):
                        bits = self.live_bits + (<Py_ssize_t>split * N + j) * W
                        for a in range(self.live1_start[i, split], self.live1_end[i, split]):
                            yid = self.live.data[a]
                            Y = self.item_sym.data[yid]
                            ws = wide_slot[Y]
                            if ws >= 0:                 # intersect Y's partners with the live symbols
                                for word in range(W):
                                    mask = bits[word] & wide_bits[ws * wide_words + word]
                                    while mask:
                                        Z = word * 64 + vp_ctz64(mask)
                                        mask &= mask - 1
                                        if self._emit(wide_group[ws * wide_syms + Z], yid, Z, i, split, j) < 0:
                                            return -1
                            else:
                                for grp in range(lg_ptr[Y], lg_ptr[Y + 1]):
                                    Z = lg_other[grp]
                                    if (bits[Z >> 6] >> (Z & 63)) & 1:
                                        if self._emit(grp, yid, Z, i, split, j) < 0:
                                            return -1
                self.live0_end[i, j] = <int>self.live.size
                self.live1_start[i, j] = <int>self.live.size
                bits = self.live_bits + (<Py_ssize_t>i * N + j) * W
                for a in range(self.live0_start[i, j], self.live0_end[i, j]):
                    cid = self.live.data[a]
                    c = self.item_sym.data[cid]
                    for e in range(uc_ptr[c], uc_ptr[c + 1]):
                        u = uc_rules[e]
                        X = u_parent[u]
                        if X == root and width != n:
                            continue
                        xid = local1[X]
                        if xid < 0:
                            xid = self._new_item(X, i, j, 1)
                            if xid < 0:
                                return -1
                            local1[X] = xid
                            bits[X >> 6] |= (<unsigned long long>1) << (X & 63)
                        if self._edge(xid, cid, -1, u, unary_cost[u]) < 0:
                            return -1
                self.live1_end[i, j] = <int>self.live.size
                for a in range(self.live0_start[i, j], self.live1_end[i, j]):   # reset the span's local maps
                    X = self.item_sym.data[self.live.data[a]]
                    self.local0[X] = local1[X] = -1
        return 0

    cdef inline int _emit(self, int grp, int yid, int Z, int i, int split, int j) noexcept nogil:
        """Record the edges of rule group (Y, Z) over [i, split) + [split, j), creating parents as needed."""
        cdef int zid = self.compact[self.dense(Z, split, j, 1)], e, r, X, xid
        cdef const int* lg_rules = &self.rules.lg_rules[0]
        cdef const int* b_parent = &self.rules.b_parent[0]
        cdef const double* rule_cost = &self.proj.rule_cost[0, 0]      # (R, 1): rule r at offset r
        cdef int* local0 = self.local0
        for e in range(self.rules.lg_start[grp], self.rules.lg_start[grp + 1]):
            r = lg_rules[e]
            X = b_parent[r]
            xid = local0[X]
            if xid < 0:
                xid = self._new_item(X, i, j, 0)
                if xid < 0:
                    return -1
                local0[X] = xid
            if self._edge(xid, yid, zid, r, rule_cost[r]) < 0:
                return -1
        return 0


cdef class DependencyProjection(Hypergraph):
    """The dependency projection of one sentence: arc, stop and root costs from `proj`."""
    cdef CostTables proj
    cdef readonly int n, N

    def __init__(self, CostTables proj):
        cdef int n = proj.n
        self.proj = proj
        self.n = n
        self.N = n + 1
        self.n_items = 2 + <Py_ssize_t>n * self.N * self.N
        self.goal = self.n_items - 1
        self.max_edges = max(1, n * n)
        self.set_order(self._schedule())

    cdef inline Py_ssize_t id(self, int h, int i, int j) noexcept nogil:
        return 1 + (<Py_ssize_t>h * self.N + i) * self.N + j

    cdef int[::1] _schedule(self):
        cdef int n = self.n, width, i, h
        cdef Py_ssize_t k = 0
        cdef int[::1] order = np.empty(<Py_ssize_t>n * (n + 1) * (n + 2) // 6 + 1, dtype=np.int32)
        for width in range(1, n + 1):
            for i in range(n - width + 1):
                for h in range(i, i + width):
                    order[k] = self.id(h, i, i + width); k += 1
        order[k] = self.goal
        return order[:k + 1]

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t k = 0, rest = item - 1, N = self.N
        cdef int i, j, h, split, a
        if item == self.goal:
            for h in range(self.n):
                t1[k] = <int>self.id(h, 0, self.n); t2[k] = 0
                w[k] = -(self.proj.root_cost[h] + close_cost(self.proj, h, 0, self.n))
                k += 1
            return k
        j = rest % N
        rest //= N
        i = rest % N
        h = rest // N
        if j - i == 1:
            return AXIOM
        for split in range(i + 1, h + 1):               # left argument a in [i, split), head child [split, j)
            for a in range(i, split):
                t1[k] = <int>self.id(a, i, split); t2[k] = <int>self.id(h, split, j)
                w[k] = -(self.proj.arc_cost[0, h, a, 1 if split == h else 0] + close_cost(self.proj, a, i, split))
                k += 1
        for split in range(h + 1, j):                   # right argument a in [split, j), head child [i, split)
            for a in range(split, j):
                t1[k] = <int>self.id(h, i, split); t2[k] = <int>self.id(a, split, j)
                w[k] = -(self.proj.arc_cost[0, h, a, 1 if split == h + 1 else 0] + close_cost(self.proj, a, split, j))
                k += 1
        return k


def viterbi_inside_outside(graph):
    """Best cost, Viterbi inside and outside costs of every item of a grammar, from the engine's Max inside
    and max-marginal passes: outside(x) = inside score(x) - max-marginal(x), +inf where no derivation of the
    goal uses x; inside(x) = +inf where x has no derivation. A CFGProjection computes them itself.

    RETURNS (float, np.ndarray or None, np.ndarray or None): the best derivation's cost (+inf if none), and
        float64 inside and outside costs, one per item (None when the goal has no derivation).
    """
    if isinstance(graph, CFGProjection):
        return graph.viterbi()
    return _engine_viterbi(graph)


def _engine_viterbi(Hypergraph graph):
    cdef MaxSemiring mx
    cdef double[::1] chart = np.empty(graph.n_items)
    cdef double[::1] q = np.empty(graph.n_items)
    cdef double best
    cdef Py_ssize_t x
    cdef int status
    with nogil:
        status = inside(&mx, graph, &chart[0], &best)
        if status == 0 and best > -INFINITY:
            status = backward(&mx, graph, &chart[0], &q[0])
        if status == 0 and best > -INFINITY:
            for x in range(graph.n_items):
                q[x] = chart[x] - q[x] if q[x] > -INFINITY else INFINITY
                chart[x] = -chart[x]
    if status != 0:
        raise MemoryError("could not allocate the Viterbi passes' buffers")
    if best == -INFINITY:
        return INFINITY, None, None
    return -best, np.asarray(chart), np.asarray(q)
