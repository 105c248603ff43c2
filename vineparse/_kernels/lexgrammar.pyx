# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Building the rule indexes and cost tables of lexgrammar.pxd from numpy arrays (checked in Python by
vineparse.astar; the constructors only convert and index). Indexing is O(R log R)."""
import numpy as np


def _grouped(first, second, n_symbols):
    """Rules sorted by (first, second), grouped by equal (first, second): (ptr by first, other, start, rules)."""
    order = np.lexsort((np.arange(first.size), second, first)).astype(np.int32)
    f, s = first[order], second[order]
    new_group = np.ones(order.size, dtype=bool)
    if order.size:
        last = order.size - 1
        new_group[1:] = (f[1:] != f[:last]) | (s[1:] != s[:last])
    starts = np.flatnonzero(new_group).astype(np.int32)
    group_first = f[starts]
    ptr = np.searchsorted(group_first, np.arange(n_symbols + 1)).astype(np.int32)
    start = np.append(starts, order.size).astype(np.int32)
    return ptr, np.ascontiguousarray(s[starts], dtype=np.int32), start, order


cdef class RuleIndex:
    """The rules of a grammar.Grammar, indexed by parent, by each child, and by bottom symbol."""

    def __init__(self, int n_symbols, int root, binary_parent, binary_left, binary_right, binary_side,
                 binary_ptr, unary_parent, unary_child, unary_ptr):
        self.n_symbols = n_symbols
        self.root = root
        self.b_parent = binary_parent
        self.b_left = binary_left
        self.b_right = binary_right
        self.b_side = binary_side
        self.b_ptr = binary_ptr
        self.u_parent = unary_parent
        self.u_child = unary_child
        self.u_ptr = unary_ptr
        self.n_binary = binary_parent.shape[0]
        self.n_unary = unary_parent.shape[0]
        left, right = np.asarray(binary_left), np.asarray(binary_right)
        self.lg_ptr, self.lg_other, self.lg_start, self.lg_rules = _grouped(left, right, n_symbols)
        self.rg_ptr, self.rg_other, self.rg_start, self.rg_rules = _grouped(right, left, n_symbols)
        child = np.asarray(unary_child)
        order = np.argsort(child, kind="stable").astype(np.int32)
        self.uc_rules = order
        self.uc_ptr = np.searchsorted(child[order], np.arange(n_symbols + 1)).astype(np.int32)
        self._index_wide(n_symbols)
        self.max_binary_per_parent = int(np.diff(np.asarray(binary_ptr)).max(initial=0))
        self.max_unary_per_parent = int(np.diff(np.asarray(unary_ptr)).max(initial=0))


    def _index_wide(self, int n_symbols):
        """Partner bitsets for the left children with more groups than a bitset has words (the tags and
        a few phrases), which the CFG recognizer intersects with a span's live symbols instead of walking
        every group."""
        words = (n_symbols + 63) // 64
        ptr, other = np.asarray(self.lg_ptr), np.asarray(self.lg_other)
        wide = np.flatnonzero(np.diff(ptr) > 2 * words)
        slot = np.full(n_symbols, -1, dtype=np.int32)
        slot[wide] = np.arange(wide.size, dtype=np.int32)
        bits = np.zeros((max(wide.size, 1), words), dtype=np.uint64)
        group = np.full((max(wide.size, 1), n_symbols), -1, dtype=np.int32)
        for k, Y in enumerate(wide):
            for grp in range(ptr[Y], ptr[Y + 1]):
                Z = int(other[grp])
                bits[k, Z >> 6] |= np.uint64(1) << np.uint64(Z & 63)
                group[k, Z] = grp
        self.words = words
        self.wide_slot = slot
        self.wide_bits = bits
        self.wide_group = group


cdef class CostTables:
    """Cost arrays of one sentence (model.SentenceCosts), or a projection with head-free rule costs
    (rule_cost of shape (R, 1), unary_cost (U, 1))."""

    def __init__(self, rule_cost, unary_cost, arc_cost, stop_cost, root_cost, rule_key):
        self.rule_cost = rule_cost
        self.unary_cost = unary_cost
        self.arc_cost = arc_cost
        self.stop_cost = stop_cost
        self.root_cost = root_cost
        self.rule_key = rule_key
        self.n = root_cost.shape[0]
        self.by_head = rule_cost.shape[1] == self.n and self.n > 1
        if rule_cost.shape[1] not in (1, self.n) or unary_cost.shape[1] != rule_cost.shape[1]:
            raise ValueError("rule_cost and unary_cost must both have one column per word or both one column")
