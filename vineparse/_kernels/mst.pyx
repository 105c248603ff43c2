# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The maximum spanning arborescence of a dense arc-score matrix: Chu-Liu-Edmonds with Tarjan's greedy walk.

Nodes 0..n (0 the root, which takes no head); arc h -> m scores W[h, m], -inf where not allowed. The walk
starts at a node without a head, gives it its best incoming arc among the live nodes, and follows heads until
it reaches a finished node (the path is finished) or closes a cycle. A cycle C becomes one new node c:
    W[u, c] = max over v in C of W[u, v] - W[head(v), v]    (u outside C: entering C at v replaces v's arc)
    W[c, w] = max over v in C of W[v, w]
remembering, for every such entry, which original arc it stands for; the walk continues from c. Each node
(the n words and at most n - 1 cycle nodes) chooses its head once, in O(n), and a contraction costs
O(n |C|): O(n^2) time in all, O(n^2) memory (two (2n + 1)^2 matrices). Expanding the cycles newest first
gives every word its original head: the member of c that the arc into c enters takes that arc, the others
keep their cycle arcs.

One root child: the kernel works on a copy rescaled to [0, 1] (an affine map of every finite score, which
keeps the order of trees with the same number of root arcs) and lowers every root arc by n + 1; a tree with
k root arcs then scores in [-k (n + 1), n - k (n + 1)], so any single-rooted tree beats every tree with more
root children, and among single-rooted trees the order is the original one.
"""
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport malloc, free

import numpy as np

from .memory cimport memory_limit, STATUS_TOO_LARGE
from .memory import MAX_INDEX, check_status

cnp.import_array()

cdef enum:
    UNSEEN = 0
    ON_PATH = 1
    DONE = 2


def mst_heads(const double[:, ::1] scores, const unsigned char[:, ::1] allowed, bint single_root):
    """The heads of the best arborescence rooted at 0.

    scores, allowed: (n + 1, n + 1) arc scores [h, m] and usable arcs (checked by the caller: finite where
    allowed, column 0 and the diagonal not allowed). single_root: exactly one arc leaves node 0.
    RETURNS (np.ndarray or None): int64 heads (n + 1,), heads[0] = -1; None if no arborescence exists (some
    word cannot be reached from the root through allowed arcs). With single_root, a tree with several root
    arcs comes back only when no single-rooted one exists (the caller checks).
    Raises KernelSizeError beyond the kernel memory limit (`vineparse.kernels.set_memory_limit`) before
    allocating, MemoryError if the allocation fails.
    """
    cdef Py_ssize_t size = scores.shape[0], n = size - 1
    cdef Py_ssize_t cap = 2 * size, nodes = size
    cdef Py_ssize_t u, v, x, c, start, top, best_u, member, arc
    cdef double lo = INFINITY, hi = -INFINITY, scale, value, best, penalty
    cdef cnp.ndarray[int64_t, ndim=1] heads = np.full(size, -1, dtype=np.int64)
    if n <= 0:
        return heads
    needed = <size_t>cap * cap * (sizeof(double) + sizeof(int32_t)) + <size_t>cap * 6 * sizeof(int64_t)
    if needed > memory_limit() or size * size > MAX_INDEX:
        check_status(STATUS_TOO_LARGE, needed, f"the maximum spanning tree of {n} words")
    cdef double* W = <double*>malloc(cap * cap * sizeof(double))
    cdef int32_t* origin = <int32_t*>malloc(cap * cap * sizeof(int32_t))     # h * size + m of the original arc
    cdef int64_t* work = <int64_t*>malloc(cap * 6 * sizeof(int64_t))
    if W == NULL or origin == NULL or work == NULL:
        free(W); free(origin); free(work)
        raise MemoryError("maximum spanning tree: allocation failed")
    cdef int64_t* state = work
    cdef int64_t* head = work + cap          # the node each node chose as its head
    cdef int64_t* chosen = work + 2 * cap    # the original arc of that choice
    cdef int64_t* owner = work + 3 * cap     # the cycle node that absorbed a node, -1 while live
    cdef int64_t* path = work + 4 * cap
    cdef int64_t* assigned = work + 5 * cap  # expansion: the original arc each node ends with
    cdef bint found = True
    with nogil:
        for u in range(size):
            for v in range(1, size):
                if allowed[u, v]:
                    if scores[u, v] < lo:
                        lo = scores[u, v]
                    if scores[u, v] > hi:
                        hi = scores[u, v]
        scale = 1.0 / (hi - lo) if hi > lo else 1.0
        penalty = <double>(n + 1) if single_root else 0.0
        for u in range(cap):
            state[u] = UNSEEN
            head[u] = -1
            owner[u] = -1
            for v in range(cap):
                W[u * cap + v] = -INFINITY
        for u in range(size):
            for v in range(1, size):
                if allowed[u, v]:
                    W[u * cap + v] = (scores[u, v] - lo) * scale - (penalty if u == 0 else 0.0)
                    origin[u * cap + v] = <int32_t>(u * size + v)
        state[0] = DONE
        for start in range(1, size):
            x = start
            while owner[x] >= 0:
                x = owner[x]
            if state[x] != UNSEEN:
                continue
            top = 0
            while True:                         # x: the newest node of the path, without a head yet
                state[x] = ON_PATH
                path[top] = x
                top += 1
                best, best_u = -INFINITY, -1
                for u in range(nodes):
                    if owner[u] < 0 and u != x and W[u * cap + x] > best:
                        best, best_u = W[u * cap + x], u
                if best_u < 0:
                    found = False
                    break
                head[x] = best_u
                chosen[x] = origin[best_u * cap + x]
                if state[best_u] == DONE:
                    for u in range(top):
                        state[path[u]] = DONE
                    break
                if state[best_u] == UNSEEN:
                    x = best_u
                    continue
                c = nodes                        # best_u is on the path: contract the cycle into c
                nodes += 1
                for u in range(nodes):
                    W[u * cap + c] = -INFINITY
                    W[c * cap + u] = -INFINITY
                v = x
                while True:
                    owner[v] = c
                    v = head[v]
                    if v == x:
                        break
                for u in range(c):
                    if owner[u] >= 0:
                        continue
                    v = x
                    while True:                  # u outside the cycle: the best arc into it, and out of it
                        value = W[u * cap + v] - W[head[v] * cap + v]
                        if value > W[u * cap + c]:
                            W[u * cap + c] = value
                            origin[u * cap + c] = origin[u * cap + v]
                        if W[v * cap + u] > W[c * cap + u]:
                            W[c * cap + u] = W[v * cap + u]
                            origin[c * cap + u] = origin[v * cap + u]
                        v = head[v]
                        if v == x:
                            break
                while path[top - 1] != best_u:
                    top -= 1
                top -= 1
                if top > 0:                      # the path's node before the cycle now points at c
                    head[path[top - 1]] = c
                x = c
            if not found:
                break
        if found:
            for u in range(nodes):
                assigned[u] = chosen[u] if owner[u] < 0 else -1
            for c in range(nodes - 1, size - 1, -1):
                arc = assigned[c]
                member = arc % size          # the original word the arc enters; climb to c's member
                while owner[member] != c:
                    member = owner[member]
                for v in range(c):
                    if owner[v] == c:
                        assigned[v] = arc if v == member else chosen[v]
            for v in range(1, size):
                heads[v] = assigned[v] // size
    free(W)
    free(origin)
    free(work)
    return heads if found else None
