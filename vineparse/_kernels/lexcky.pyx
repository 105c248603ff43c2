# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exhaustive lexicalized CKY as a grammar over the shared hypergraph engine: the model-optimal parse, the
reference every A* search is checked against (Collins 1999; Eisner & Satta 1999 for the O(n^5) bound).

Items are lexicalized edges X[h][i, j] in two layers (see vineparse/astar/treebank.py): layer 0 built by a
binary rule (or a tag, the axiom X[i][i, i+1] for the tag X of word i), layer 1 by a unary rule or the
identity over the layer-0 item with the same span and head. With costs from lexgrammar.pxd (negated: the
engine maximises):

    X[h][i, j, 0] = max over rules X -> Y Z with the head on the left, i <= h < k < j, k <= a < j:
                        Y[h][i, k, 1] + Z[a][k, j, 1] - binary_cost(r, h, a, ...)
                    and symmetrically for rules with the head on the right (a < k <= h)
    X[h][i, j, 1] = max over unary rules u = X <- C:  C[h][i, j, 0] - unary_cost(u, h, ...)
    goal          = max over h:  ROOT[h][0, n, 1]        (the ROOT rules carry the sentence-head costs)

Only lexicalized items whose CFG projection X[i, j] survives (`keep`, from the projection's finite outside
costs: an item whose projection is in no complete CFG parse is in no complete lexicalized parse) get ids, so
the chart follows the grammar's coverage. Time O(|G| n^5) in the worst case; memory one double per kept
item. The best derivation is read back by following, from the goal down, the edge that attains each
item's inside cost (`derivation`).
"""
import numpy as np
from libc.math cimport INFINITY, fabs
from .hypergraph cimport Hypergraph, AXIOM
from .lexgrammar cimport RuleIndex, CostTables, children_cost, unary_cost, cfg_item, HEAD_LEFT


cdef class LexicalizedChart(Hypergraph):
    """The exhaustive chart of one sentence (see the module docstring)."""
    cdef RuleIndex rules
    cdef CostTables costs
    cdef readonly int n, N, S
    cdef int[::1] base          # CFG id -> offset of its block of heads (-1: not kept)
    cdef int[::1] item_cid      # lexicalized id -> CFG id
    cdef int[::1] item_head     # lexicalized id -> head word
    cdef int[::1] edge_rule     # the rule of each edge listed by the last `edges` call

    def __init__(self, RuleIndex rules, CostTables costs, const unsigned char[::1] keep):
        """keep: uint8 per dense CFG id (lexgrammar.cfg_item), 1 for the CFG items to expand."""
        cdef int n = costs.n, N = n + 1, S = rules.n_symbols, width, i, j, layer, X, h
        cdef Py_ssize_t cid, rest, count = 0
        if keep.shape[0] != 1 + 2 * <Py_ssize_t>S * N * N:
            raise ValueError(f"keep must have one entry per CFG item ({1 + 2 * S * N * N}), got {keep.shape[0]}")
        self.rules = rules
        self.costs = costs
        self.n, self.N, self.S = n, N, S
        self.base = np.full(keep.shape[0], -1, dtype=np.int32)
        for width in range(1, n + 1):
            for i in range(n - width + 1):
                j = i + width
                for layer in range(2):
                    for X in range(S):
                        cid = cfg_item(S, N, X, i, j, layer)
                        if keep[cid]:
                            self.base[cid] = <int>count
                            count += width
        if count >= 2 ** 31 - 2:
            raise ValueError(f"the exhaustive chart would need {count} items; the sentence is too long for it")
        self.item_cid = np.empty(count, dtype=np.int32)
        self.item_head = np.empty(count, dtype=np.int32)
        for cid in range(keep.shape[0]):
            if self.base[cid] >= 0:
                rest = (cid - 1) // S
                j = rest % N
                i = (rest // N) % N
                for h in range(i, j):
                    self.item_cid[self.base[cid] + h - i] = <int>cid
                    self.item_head[self.base[cid] + h - i] = h
        self.n_items = count + 2
        self.goal = count + 1
        self.set_order(np.arange(1, count + 2, dtype=np.int32))
        self.max_edges = max(n + 1, rules.max_binary_per_parent * (n * n // 2 + 1), rules.max_unary_per_parent)
        self.edge_rule = np.empty(self.max_edges, dtype=np.int32)

    cdef inline Py_ssize_t cfg(self, int X, int i, int j, int layer) noexcept nogil:
        return cfg_item(self.S, self.N, X, i, j, layer)

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        cdef Py_ssize_t k = 0, cid, rest
        cdef int h, i, j, X, layer, r, u, split, a, lb, rb, root_block, side, lh, rh, lo, hi, a_lo, a_hi
        if item == self.goal:
            root_block = self.base[self.cfg(self.rules.root, 0, self.n, 1)]
            if root_block < 0:
                return 0
            for h in range(self.n):
                t1[k] = 1 + root_block + h; t2[k] = 0; w[k] = 0.0; self.edge_rule[k] = -1
                k += 1
            return k
        cid = self.item_cid[item - 1]
        h = self.item_head[item - 1]
        rest = cid - 1
        X = rest % self.S; rest //= self.S
        j = rest % self.N; rest //= self.N
        i = rest % self.N
        layer = rest // self.N
        if layer == 1:
            for u in range(self.rules.u_ptr[X], self.rules.u_ptr[X + 1]):
                lb = self.base[self.cfg(self.rules.u_child[u], i, j, 0)]
                if lb >= 0:
                    t1[k] = 1 + lb + h - i; t2[k] = 0
                    w[k] = -unary_cost(self.costs, u, X == self.rules.root, h, i, j)
                    self.edge_rule[k] = u
                    k += 1
            return k
        if j - i == 1:
            return AXIOM
        for r in range(self.rules.b_ptr[X], self.rules.b_ptr[X + 1]):
            side = self.rules.b_side[r]
            # the head child holds h: [i, split) for a left head, [split, j) for a right one
            lo = h + 1 if side == HEAD_LEFT else i + 1
            hi = j if side == HEAD_LEFT else h + 1
            for split in range(lo, hi):
                lb = self.base[self.cfg(self.rules.b_left[r], i, split, 1)]
                rb = self.base[self.cfg(self.rules.b_right[r], split, j, 1)]
                if lb < 0 or rb < 0:
                    continue
                a_lo = split if side == HEAD_LEFT else i
                a_hi = j if side == HEAD_LEFT else split
                for a in range(a_lo, a_hi):
                    lh = h if side == HEAD_LEFT else a
                    rh = a if side == HEAD_LEFT else h
                    t1[k] = 1 + lb + lh - i; t2[k] = 1 + rb + rh - split
                    w[k] = -children_cost(self.costs, r, side, lh, rh, i, split, j)
                    self.edge_rule[k] = r
                    k += 1
        return k

    def item(self, int X, int h, int i, int j, int layer):
        """The engine id of X[h][i, j] in `layer`, or -1 if it is not in the chart."""
        cdef int b = self.base[self.cfg(X, i, j, layer)]
        return -1 if b < 0 or not (i <= h < j) else 1 + b + h - i

    def describe(self, Py_ssize_t item):
        """(symbol, head, start, end, layer) of a lexicalized item id (not the goal)."""
        cdef Py_ssize_t cid = self.item_cid[item - 1], rest = cid - 1
        cdef int X = rest % self.S, i, j
        rest //= self.S
        j = rest % self.N
        rest //= self.N
        i = rest % self.N
        return int(X), int(self.item_head[item - 1]), int(i), int(j), int(rest // self.N)

    def derivation(self, const double[::1] inside_cost):
        """Follow the best edges down from the goal, given the inside costs of every item.

        RETURNS (dict): the nodes of the best derivation, parents before children, as int arrays
            ``symbol, head, start, end, layer, rule, left, right`` (rule -1 for a tag; left/right index the
            children in these arrays, -1 when absent).
        """
        cdef int[::1] t1 = np.empty(self.max_edges, dtype=np.int32)
        cdef int[::1] t2 = np.empty(self.max_edges, dtype=np.int32)
        cdef double[::1] w = np.empty(self.max_edges)
        cdef Py_ssize_t k, e, best
        cdef double value, best_value
        goal_edges = self.edges(self.goal, &t1[0], &t2[0], &w[0])
        best = -1
        for e in range(goal_edges):
            if best < 0 or inside_cost[t1[e]] < best_value:
                best, best_value = e, inside_cost[t1[e]]
        if best < 0 or best_value == INFINITY:
            raise ValueError("the chart has no derivation of the goal")
        nodes = {"symbol": [], "head": [], "start": [], "end": [], "layer": [], "rule": [], "left": [], "right": []}
        stack = [(t1[best], -1, 0)]
        while stack:
            item, parent, slot = stack.pop()
            index = len(nodes["symbol"])
            if parent >= 0:
                nodes["left" if slot == 0 else "right"][parent] = index
            X, h, i, j, layer = self.describe(item)
            for key, value_ in zip(("symbol", "head", "start", "end", "layer"), (X, h, i, j, layer)):
                nodes[key].append(value_)
            nodes["left"].append(-1)
            nodes["right"].append(-1)
            k = self.edges(item, &t1[0], &t2[0], &w[0])
            if k == AXIOM:
                nodes["rule"].append(-1)
                continue
            best = -1
            for e in range(k):
                value = inside_cost[t1[e]] + inside_cost[t2[e]] - w[e]
                if value < INFINITY and fabs(value - inside_cost[item]) <= 1e-9 * (1.0 + fabs(value)) and best < 0:
                    best = e
            if best < 0:
                raise ValueError(f"no edge of item {item} attains its inside cost")
            nodes["rule"].append(int(self.edge_rule[best]))
            if t2[best] != 0:
                stack.append((t2[best], index, 1))
            stack.append((t1[best], index, 0))
        return {key: np.asarray(value_, dtype=np.int64) for key, value_ in nodes.items()}
