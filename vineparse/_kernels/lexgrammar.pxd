# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Rules of a lexicalized grammar and the costs of one sentence, as C arrays shared by the A* agenda
(astar_agenda.pyx), the exhaustive chart (lexcky.pyx) and the projection charts (astar_projections.pyx).

The cost formulas live here, once, as inline functions (see vineparse/astar/model.py for their meaning).
"""
cdef enum:
    HEAD_LEFT = 0       # binary rule whose left child is the head child
    HEAD_RIGHT = 1


cdef inline Py_ssize_t cfg_item(int S, int N, int X, int i, int j, int layer) noexcept nogil:
    """The dense id of the CFG item X[i, j] in `layer` for S symbols and N = n + 1 positions:
    1 + ((layer N + i) N + j) S + X, symbols varying fastest (the items of one span are adjacent)."""
    return 1 + ((<Py_ssize_t>layer * N + i) * N + j) * S + X


cdef class RuleIndex:
    cdef readonly int n_symbols, n_binary, n_unary, root
    cdef const int[::1] b_parent
    cdef const int[::1] b_left
    cdef const int[::1] b_right
    cdef const int[::1] b_side
    cdef const int[::1] b_ptr          # binary rules of parent X: b_ptr[X] .. b_ptr[X + 1]
    cdef const int[::1] u_parent
    cdef const int[::1] u_child
    cdef const int[::1] u_ptr          # unary rules of top symbol X: u_ptr[X] .. u_ptr[X + 1]
    # Rules by left child Y, grouped by right child: groups lg_ptr[Y] .. lg_ptr[Y + 1]; group g pairs Y with
    # right symbol lg_other[g] and holds rules lg_rules[lg_start[g] .. lg_start[g + 1]].
    cdef int[::1] lg_ptr, lg_other, lg_start, lg_rules
    # The same by right child Z, grouped by left child.
    cdef int[::1] rg_ptr, rg_other, rg_start, rg_rules
    # Unary rules by bottom symbol: uc_rules[uc_ptr[X] .. uc_ptr[X + 1]].
    cdef int[::1] uc_ptr, uc_rules
    cdef readonly int max_binary_per_parent, max_unary_per_parent
    # Left children with many groups ("wide"): wide_slot[Y] >= 0 indexes wide_bits (their right partners as
    # a bitset of `words` 64-bit words) and wide_group (partner symbol -> group, -1 if none).
    cdef int[::1] wide_slot
    cdef unsigned long long[:, ::1] wide_bits
    cdef int[:, ::1] wide_group
    cdef readonly int words


cdef class CostTables:
    """Costs of one sentence (model.SentenceCosts) or of a projection of them."""
    cdef readonly int n
    cdef const double[:, ::1] rule_cost        # (R, n) or (R, 1) for a projection
    cdef const double[:, ::1] unary_cost       # (U, n) or (U, 1)
    cdef const double[:, :, :, ::1] arc_cost   # (K, n, n, 2)
    cdef const double[:, :, ::1] stop_cost     # (n, 2, 2)
    cdef const double[::1] root_cost           # (n,)
    cdef const int[::1] rule_key               # (R,)
    cdef bint by_head                          # rule and unary costs depend on the head word


cdef inline double close_cost(CostTables c, int a, int s, int e) noexcept nogil:
    """Finishing word a's dependents when its constituent spans [s, e)."""
    return c.stop_cost[a, 0, 1 if s == a else 0] + c.stop_cost[a, 1, 1 if e == a + 1 else 0]


cdef inline double binary_cost(CostTables c, int r, int side, int h, int a,
                               int hs, int he, int s, int e) noexcept nogil:
    """Rule r with head h over a head child [hs, he) and an argument a spanning [s, e)."""
    cdef int adj
    if side == HEAD_LEFT:
        adj = 1 if he == h + 1 else 0
    else:
        adj = 1 if hs == h else 0
    return (c.rule_cost[r, h if c.by_head else 0] + c.arc_cost[c.rule_key[r], h, a, adj]
            + close_cost(c, a, s, e))


cdef inline double children_cost(CostTables c, int r, int side, int lh, int rh,
                                 int i, int split, int j) noexcept nogil:
    """Rule r over a left child [i, split) headed by lh and a right child [split, j) headed by rh."""
    if side == HEAD_LEFT:
        return binary_cost(c, r, HEAD_LEFT, lh, rh, i, split, split, j)
    return binary_cost(c, r, HEAD_RIGHT, rh, lh, split, j, i, split)


cdef inline double unary_cost(CostTables c, int u, bint is_root, int h, int s, int e) noexcept nogil:
    """Unary rule (or identity) u with head h over [s, e); the ROOT rules also pay for the sentence head."""
    cdef double w = c.unary_cost[u, h if c.by_head else 0]
    if is_root:
        w += c.root_cost[h] + close_cost(c, h, s, e)
    return w
