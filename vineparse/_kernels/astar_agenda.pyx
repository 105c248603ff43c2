# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Agenda-based A* search for the best lexicalized derivation (Klein & Manning 2003, *A* parsing: fast exact
Viterbi parse selection*; Haghighi, DeNero & Klein 2007, *Approximate factoring for A* search*).

Edges are lexicalized items X[h][i, j] in two layers (vineparse/astar/treebank.py): layer 0 built by a
binary rule or a tag, layer 1 by a unary rule or the identity. An edge's priority is g + h: g its best cost
found so far (the inside cost once it is popped), h a heuristic estimate of its outside cost, read from the
projection charts: h = outside_CFG(X[i, j, layer]) + outside_DEP(h, i, j) (either may be absent: the null heuristic is
uniform-cost search). Then, until the goal ROOT[h][0, n] is popped:

    pop the edge e with the least g + h and close it (its g is final when h is consistent);
    layer 0: for each unary rule u = P <- X:        relax P[h][i, j, 1]  with  g(e) + unary_cost(u)
    layer 1: for each closed layer-1 edge f adjacent to e and each rule P -> e f (or P -> f e):
             relax P[h'][span, 0]  with  g(e) + g(f) + binary_cost(r)

where relaxing creates the edge (unless its heuristic is infinite: the edge is *blocked*, it can be in no
complete parse) or lowers its g (decrease-key). With an admissible and consistent heuristic the first goal
popped is optimal and no closed edge ever improves; with an inconsistent one a cheaper path to a closed
edge may turn up later, and the edge is reopened (put back on the agenda, `reopened`), so that the cost
found exceeds the optimum by at most the heuristic's largest overestimate on the optimal derivation.

Data structures, all C arrays grown by doubling: the agenda is a binary heap of edge ids with positions
stored in the edges (decrease-key in O(log agenda)); the chart maps X[h][i, j, layer] to an edge id through
one slot per CFG item (a block of j - i head entries allocated on first use), O(1) without hashing; closed
layer-1 edges are threaded into lists by (start, symbol) and (end, symbol), which is how a popped edge finds
its partners. Each scored rule application is also compared with its projected cost (for the share of
configurations violating pointwise admissibility). The loop runs without the GIL; it stops with a status at
`max_pops` popped edges or `max_edges` created ones, never hangs.
"""
import numpy as np
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.math cimport INFINITY
from .lexgrammar cimport RuleIndex, CostTables, children_cost, unary_cost, cfg_item, HEAD_LEFT

cpdef enum SearchStatus:
    FOUND = 0           # the goal was popped
    EXHAUSTED = 1       # the agenda ran empty: the grammar has no parse
    POP_LIMIT = 2       # max_pops edges were popped first
    EDGE_LIMIT = 3      # max_edges edges were created first
    NO_MEMORY = 4

cdef enum:
    NO_BLOCK = -1       # slot: no head block allocated for this CFG item yet
    BLOCKED = -2        # slot: the CFG item's outside cost is infinite


cdef struct Item:
    double g
    double h
    int sym
    int head
    int start
    int end
    int layer
    int heap            # position on the agenda, -1 when not on it
    int closed
    int linked          # already threaded into the closed layer-1 lists
    int rule            # binary or unary rule of the best way found; -1 for a tag
    int left            # children (edge ids) of that way; -1 when absent
    int right
    int next_start      # closed layer-1 lists
    int next_end


cdef struct Counters:
    long long popped
    long long created
    long long improved
    long long blocked
    long long scored
    long long violations
    long long reopened


cdef struct Search:
    Item* items
    Py_ssize_t n_items, cap_items
    int* heap
    Py_ssize_t heap_size, cap_heap
    int* slot           # per CFG id: offset of its head block in `pool`, NO_BLOCK or BLOCKED
    int* pool           # edge ids per (CFG item, head), -1 when absent
    Py_ssize_t pool_size, cap_pool
    int* start_head     # (N * S): first closed layer-1 edge with this start and symbol, -1 if none
    int* end_head
    int n, N, S, root
    const int* cfg_index    # dense CFG id -> index into cfg_outside (-1: no derivation), or NULL
    const double* hcfg  # outside costs of the CFG items, or NULL
    const double* hdep  # outside costs per dependency id 1 + (h N + i) N + j, or NULL


cdef inline Py_ssize_t cfg_id(Search* s, int X, int i, int j, int layer) noexcept nogil:
    return cfg_item(s.S, s.N, X, i, j, layer)


cdef inline bint before(Search* s, int a, int b) noexcept nogil:
    """Agenda order: lower g + h first, then the older edge."""
    cdef double fa = s.items[a].g + s.items[a].h, fb = s.items[b].g + s.items[b].h
    if fa != fb:
        return fa < fb
    return a < b


cdef void sift_up(Search* s, Py_ssize_t pos) noexcept nogil:
    cdef int item = s.heap[pos]
    cdef Py_ssize_t parent
    while pos > 0:
        parent = (pos - 1) // 2
        if not before(s, item, s.heap[parent]):
            break
        s.heap[pos] = s.heap[parent]
        s.items[s.heap[pos]].heap = <int>pos
        pos = parent
    s.heap[pos] = item
    s.items[item].heap = <int>pos


cdef void sift_down(Search* s, Py_ssize_t pos) noexcept nogil:
    cdef int item = s.heap[pos]
    cdef Py_ssize_t child
    while True:
        child = 2 * pos + 1
        if child >= s.heap_size:
            break
        if child + 1 < s.heap_size and before(s, s.heap[child + 1], s.heap[child]):
            child += 1
        if not before(s, s.heap[child], item):
            break
        s.heap[pos] = s.heap[child]
        s.items[s.heap[pos]].heap = <int>pos
        pos = child
    s.heap[pos] = item
    s.items[item].heap = <int>pos


cdef int heap_push(Search* s, int item) noexcept nogil:
    cdef int* grown
    if s.heap_size == s.cap_heap:
        grown = <int*>realloc(s.heap, 2 * s.cap_heap * sizeof(int))
        if grown == NULL:
            return -1
        s.heap = grown
        s.cap_heap *= 2
    s.heap[s.heap_size] = item
    s.heap_size += 1
    sift_up(s, s.heap_size - 1)
    return 0


cdef int heap_pop(Search* s) noexcept nogil:
    cdef int top = s.heap[0]
    s.heap_size -= 1
    s.items[top].heap = -1
    if s.heap_size > 0:
        s.heap[0] = s.heap[s.heap_size]
        sift_down(s, 0)
    return top


cdef inline double cfg_outside(Search* s, Py_ssize_t cid) noexcept nogil:
    cdef int k
    if s.hcfg == NULL:
        return 0.0
    k = s.cfg_index[cid]
    return s.hcfg[k] if k >= 0 else INFINITY


cdef inline double heuristic(Search* s, Py_ssize_t cid, int h, int i, int j) noexcept nogil:
    cdef double v = cfg_outside(s, cid)
    if s.hdep != NULL and v < INFINITY:
        v += s.hdep[1 + (<Py_ssize_t>h * s.N + i) * s.N + j]
    return v


cdef int new_item(Search* s, Py_ssize_t cid, int X, int h, int i, int j, int layer, double g, int rule,
                  int left, int right, Counters* c) noexcept nogil:
    """Look up or create X[h][i, j, layer] and offer it cost g. Returns 0, or -1 when out of memory."""
    cdef Py_ssize_t base = s.slot[cid], k
    cdef int idx, width = j - i
    cdef double hv
    cdef Item* it
    cdef void* grown
    if base == BLOCKED:
        c.blocked += 1
        return 0
    if base == NO_BLOCK:
        if cfg_outside(s, cid) == INFINITY:
            s.slot[cid] = BLOCKED
            c.blocked += 1
            return 0
        if s.pool_size + width > s.cap_pool:
            grown = realloc(s.pool, 2 * (s.cap_pool + width) * sizeof(int))
            if grown == NULL:
                return -1
            s.pool = <int*>grown
            s.cap_pool = 2 * (s.cap_pool + width)
        base = s.pool_size
        for k in range(width):
            s.pool[base + k] = -1
        s.pool_size += width
        s.slot[cid] = <int>base
    idx = s.pool[base + h - i]
    if idx >= 0:
        it = &s.items[idx]
        if g < it.g:
            it.g = g
            it.rule, it.left, it.right = rule, left, right
            if it.closed:                   # inconsistent heuristic: reopen the edge
                it.closed = 0
                c.reopened += 1
                return heap_push(s, idx)
            sift_up(s, it.heap)
            c.improved += 1
        return 0
    if layer == 1 and X == s.root:
        hv = 0.0                        # a goal edge: its g already holds the sentence-head costs
    else:
        hv = heuristic(s, cid, h, i, j)
    if hv == INFINITY:
        c.blocked += 1
        return 0
    if s.n_items == s.cap_items:
        grown = realloc(s.items, 2 * s.cap_items * sizeof(Item))
        if grown == NULL:
            return -1
        s.items = <Item*>grown
        s.cap_items *= 2
    idx = <int>s.n_items
    s.n_items += 1
    it = &s.items[idx]
    it.g, it.h = g, hv
    it.sym, it.head, it.start, it.end, it.layer = X, h, i, j, layer
    it.heap, it.closed, it.linked = -1, 0, 0
    it.rule, it.left, it.right = rule, left, right
    it.next_start = it.next_end = -1
    s.pool[base + h - i] = idx
    c.created += 1
    return heap_push(s, idx)


cdef inline int relax(Search* s, int X, int h, int i, int j, int layer, double g, int rule, int left,
                      int right, double step, double projected, Counters* c) noexcept nogil:
    """Score one rule application (step: its true cost, projected: its cost in the projections)."""
    c.scored += 1
    if projected > step + 1e-9 * (1.0 + step):
        c.violations += 1
    return new_item(s, cfg_id(s, X, i, j, layer), X, h, i, j, layer, g, rule, left, right, c)


cdef int apply_rules(Search* s, RuleIndex R, CostTables C, CostTables P, const int* rules, int first,
                     int last, int left, int right, Counters* c) noexcept nogil:
    """Rules rules[first:last] over the adjacent closed edges left = Y[lh][i, split] and
    right = Z[rh][split, j]."""
    cdef int lh = s.items[left].head, i = s.items[left].start, split = s.items[left].end
    cdef int rh = s.items[right].head, j = s.items[right].end
    cdef double g = s.items[left].g + s.items[right].g, step, proj
    cdef int e, r, side
    for e in range(first, last):
        r = rules[e]
        side = R.b_side[r]
        step = children_cost(C, r, side, lh, rh, i, split, j)
        proj = children_cost(P, r, side, lh, rh, i, split, j)
        if relax(s, R.b_parent[r], lh if side == HEAD_LEFT else rh, i, j, 0, g + step, r, left, right,
                 step, proj, c) < 0:
            return -1
    return 0


cdef int combine(Search* s, RuleIndex R, CostTables C, CostTables P, int x, Counters* c) noexcept nogil:
    """All rule applications with the just-closed layer-1 edge x as a child and a closed partner."""
    cdef int X = s.items[x].sym, i = s.items[x].start, j = s.items[x].end
    cdef int grp, y, following
    for grp in range(R.lg_ptr[X], R.lg_ptr[X + 1]):             # x is the left child, y starts at j
        y = s.start_head[<Py_ssize_t>j * s.S + R.lg_other[grp]]
        while y >= 0:
            following = s.items[y].next_start                   # read before apply_rules may move items
            if apply_rules(s, R, C, P, &R.lg_rules[0], R.lg_start[grp], R.lg_start[grp + 1], x, y, c) < 0:
                return -1
            y = following
    for grp in range(R.rg_ptr[X], R.rg_ptr[X + 1]):             # x is the right child, y ends at i
        y = s.end_head[<Py_ssize_t>i * s.S + R.rg_other[grp]]
        while y >= 0:
            following = s.items[y].next_end
            if apply_rules(s, R, C, P, &R.rg_rules[0], R.rg_start[grp], R.rg_start[grp + 1], y, x, c) < 0:
                return -1
            y = following
    return 0


cdef int search(Search* s, RuleIndex R, CostTables C, CostTables P, const int* tags,
                long long max_pops, long long max_edges, Counters* c, int* goal) noexcept nogil:
    """The A* loop (module docstring). Returns a status; `goal` receives the goal edge when FOUND."""
    cdef int x, X, h, i, j, e, u, p
    cdef double g, step, proj
    cdef bint is_root
    for p in range(s.n):
        if new_item(s, cfg_id(s, tags[p], p, p + 1, 0), tags[p], p, p, p + 1, 0, 0.0, -1, -1, -1, c) < 0:
            return NO_MEMORY
    while s.heap_size > 0:
        if c.popped >= max_pops:
            return POP_LIMIT
        if s.n_items > max_edges:
            return EDGE_LIMIT
        x = heap_pop(s)
        c.popped += 1
        s.items[x].closed = 1
        X, h, i, j, g = s.items[x].sym, s.items[x].head, s.items[x].start, s.items[x].end, s.items[x].g
        if s.items[x].layer == 1:
            if X == R.root:
                goal[0] = x
                return FOUND
            if not s.items[x].linked:
                s.items[x].linked = 1
                s.items[x].next_start = s.start_head[<Py_ssize_t>i * s.S + X]
                s.start_head[<Py_ssize_t>i * s.S + X] = x
                s.items[x].next_end = s.end_head[<Py_ssize_t>j * s.S + X]
                s.end_head[<Py_ssize_t>j * s.S + X] = x
            if combine(s, R, C, P, x, c) < 0:
                return NO_MEMORY
        else:
            for e in range(R.uc_ptr[X], R.uc_ptr[X + 1]):
                u = R.uc_rules[e]
                is_root = R.u_parent[u] == R.root
                if is_root and (i != 0 or j != s.n):
                    continue
                step = unary_cost(C, u, is_root, h, i, j)
                proj = unary_cost(P, u, is_root, h, i, j)
                if relax(s, R.u_parent[u], h, i, j, 1, g + step, u, x, -1, step, proj, c) < 0:
                    return NO_MEMORY
    return EXHAUSTED


def astar_search(RuleIndex rules, CostTables costs, CostTables projection, const int[::1] tags,
                 cfg_index=None, cfg_outside=None, dep_outside=None, long long max_pops=2000000,
                 long long max_edges=20000000):
    """Run the search on one sentence.

    rules (RuleIndex), costs (CostTables): the grammar and the sentence's costs (n words).
    projection (CostTables): projected costs (rule_cost (R, 1), unary_cost (U, 1), arc_cost (1, n, n, 2)),
        only used to count configurations whose projected cost exceeds their cost.
    tags (int32 (n,)): the tag symbol of each word.
    cfg_index (int32 (1 + 2 S (n+1)^2,) or None): for each dense CFG id (lexgrammar.cfg_item), the index
        of its outside cost in cfg_outside, -1 for items without a derivation; None for no CFG part.
    cfg_outside (float64 or None): the CFG items' outside costs.
    dep_outside (float64 (2 + n (n+1)^2,) or None): dependency outside costs per dependency id; None for
        no dependency part.
    max_pops, max_edges (int): stop after popping / creating this many edges.
    RETURNS (dict): status (FOUND, EXHAUSTED, POP_LIMIT, EDGE_LIMIT or NO_MEMORY), cost (of the goal, inf
        unless FOUND), the counters (popped, created, improved, blocked, scored, violations, reopened), and
        when FOUND the derivation as int arrays symbol, head, start, end, layer, rule, left, right
        (parents before children; left/right index into the arrays, -1 when absent).
    """
    cdef int n = tags.shape[0], S = rules.n_symbols, N = n + 1, goal = -1, status
    cdef Py_ssize_t n_cfg = 1 + 2 * <Py_ssize_t>S * N * N, k
    cdef const int[::1] ci
    cdef const double[::1] hc
    cdef const double[::1] hd
    cdef Search s
    cdef Counters c
    memset(&s, 0, sizeof(Search))
    memset(&c, 0, sizeof(Counters))
    if n < 1:
        raise ValueError("cannot search an empty sentence")
    if costs.n != n or projection.n != n:
        raise ValueError(f"costs are for {costs.n} words and the projection for {projection.n}, tags for {n}")
    s.n, s.N, s.S, s.root = n, N, S, rules.root
    if (cfg_index is None) != (cfg_outside is None):
        raise ValueError("give both cfg_index and cfg_outside, or neither")
    if cfg_index is not None:
        ci = cfg_index
        hc = cfg_outside
        if ci.shape[0] != n_cfg:
            raise ValueError(f"cfg_index must have {n_cfg} entries, got {ci.shape[0]}")
        if hc.shape[0] == 0 or np.max(cfg_index) >= hc.shape[0]:
            raise ValueError("cfg_index points outside cfg_outside")
        s.cfg_index = &ci[0]
        s.hcfg = &hc[0]
    if dep_outside is not None:
        hd = dep_outside
        if hd.shape[0] != 2 + <Py_ssize_t>n * N * N:
            raise ValueError(f"dep_outside must have {2 + n * N * N} entries, got {hd.shape[0]}")
        s.hdep = &hd[0]
    s.cap_items = s.cap_heap = s.cap_pool = 1024
    s.items = <Item*>malloc(s.cap_items * sizeof(Item))
    s.heap = <int*>malloc(s.cap_heap * sizeof(int))
    s.pool = <int*>malloc(s.cap_pool * sizeof(int))
    s.slot = <int*>malloc(n_cfg * sizeof(int))
    s.start_head = <int*>malloc(<Py_ssize_t>N * S * sizeof(int))
    s.end_head = <int*>malloc(<Py_ssize_t>N * S * sizeof(int))
    try:
        if (s.items == NULL or s.heap == NULL or s.pool == NULL or s.slot == NULL or s.start_head == NULL
                or s.end_head == NULL):
            raise MemoryError("cannot allocate the A* chart")
        with nogil:
            for k in range(n_cfg):
                s.slot[k] = NO_BLOCK
            for k in range(<Py_ssize_t>N * S):
                s.start_head[k] = -1
                s.end_head[k] = -1
            status = search(&s, rules, costs, projection, &tags[0], max_pops, max_edges, &c, &goal)
        result = {"status": status, "cost": s.items[goal].g if status == FOUND else INFINITY,
                  "popped": c.popped, "created": c.created, "improved": c.improved, "blocked": c.blocked,
                  "scored": c.scored, "violations": c.violations, "reopened": c.reopened}
        if status == FOUND:
            result["derivation"] = _derivation(&s, goal)
        return result
    finally:
        free(s.items); free(s.heap); free(s.pool); free(s.slot); free(s.start_head); free(s.end_head)


cdef dict _derivation(Search* s, int goal):
    """The best derivation below the goal edge, parents before children (format of astar_search)."""
    cdef Item* it
    nodes = {key: [] for key in ("symbol", "head", "start", "end", "layer", "rule", "left", "right")}
    stack = [(goal, -1, 0)]
    while stack:
        x, parent, slot = stack.pop()
        index = len(nodes["symbol"])
        if parent >= 0:
            nodes["left" if slot == 0 else "right"][parent] = index
        it = &s.items[<int>x]
        for key, value in (("symbol", it.sym), ("head", it.head), ("start", it.start), ("end", it.end),
                           ("layer", it.layer), ("rule", it.rule), ("left", -1), ("right", -1)):
            nodes[key].append(value)
        if it.right >= 0:
            stack.append((it.right, index, 1))
        if it.left >= 0:
            stack.append((it.left, index, 0))
    return {key: np.asarray(value, dtype=np.int64) for key, value in nodes.items()}
