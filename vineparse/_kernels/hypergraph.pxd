# cython: language_level=3
"""The shared inference engine: a grammar is a `Hypergraph` subclass listing edges on demand.

C API (every method `noexcept nogil`, returning a STATUS_* code of memory.pxd). A
grammar object is created once with the GIL and re-initialised per sentence by its
own `reset(...)` (see eisner.pxd, eisner2.pxd, eisner3.pxd, vine.pxd); the runs below
then fill caller buffers and reuse the object's charts, which grow and never shrink:

    cdef FirstOrder g = FirstOrder()                   # once, with the GIL (one per thread)
    cdef double best
    with nogil:
        status = g.reset(n, scores, n + 1, allowed, n + 1, True)
        if status == STATUS_OK:
            status = g.best(&best, heads)              # heads: int64_t[n + 1], heads[0] = -1
        if status == STATUS_OK:
            status = g.max_marginals(&best, arc_mm, n + 1)   # (n + 1)^2, -inf where no tree
        if status == STATUS_OK:
            status = g.marginals(&log_z, arc_marg, n + 1)    # (n + 1)^2, 0 where not allowed
        if status == STATUS_OK:
            status = g.sample(&rng_state, count, samples, n + 1)   # count x (n + 1) heads

STATUS_NO_STRUCTURE means the mask admits no structure (outputs untouched);
STATUS_OUT_OF_MEMORY / STATUS_TOO_LARGE that charts could not be (or may not be)
allocated. An object must not be used by two threads at once; for a parallel loop
(`prange`, OpenMP), give each thread its own object, kept alive in a Python list and
reached as `(<FirstOrder>objects[threadid()])` through a `PyObject*` array.

The engine itself (`inside`, `backward`) works for any grammar, given charts of
`n_items` doubles; its scratch lives in the grammar object.
"""
from libc.stdint cimport int64_t, uint64_t
from .semiring cimport Inside, Backward

cdef enum:
    AXIOM = -1      # returned by Hypergraph.edges for an item whose inside value is 0 (one)


cdef class Hypergraph:
    """A hypergraph given implicitly: items are integers, a grammar lists the
    incoming edges of an item on demand (so no edge is ever stored), and
    `order[0:n_order]` lists the items that can carry weight in topological order.

    Item 0 is the unit axiom (inside value 0 in log space); a grammar uses it
    as the second tail of a unary edge.
    """
    cdef readonly Py_ssize_t n_items
    cdef readonly Py_ssize_t goal
    cdef readonly Py_ssize_t max_edges
    cdef readonly Py_ssize_t n_order
    cdef int* order                 # the schedule, owned by the subclass (or by _order_ref)
    cdef object _order_ref          # keeps a schedule built with numpy alive (set_order)
    # engine workspace, grown on demand
    cdef double* chart
    cdef double* q
    cdef size_t chart_cap, q_cap
    cdef int* t1
    cdef int* t2
    cdef double* w
    cdef double* x
    cdef size_t edge_cap

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* tail1, int* tail2, double* weight) noexcept nogil
    cdef int set_order(self, order) except -1
    cdef int reserve_edges(self) noexcept nogil
    cdef int reserve_charts(self) noexcept nogil

    # Runs over the object's own charts (after the subclass's reset).
    cdef int best(self, double* score, int64_t* heads) noexcept nogil
    cdef int max_marginals(self, double* best, double* arc_mm, Py_ssize_t stride) noexcept nogil
    cdef int marginals(self, double* log_z, double* arc_marg, Py_ssize_t stride) noexcept nogil
    cdef int sample(self, uint64_t* state, Py_ssize_t count, int64_t* heads,
                    Py_ssize_t heads_stride) noexcept nogil
    cdef int run_best(self, double* score) noexcept nogil
    cdef int run_max_marginals(self, double* best) noexcept nogil
    cdef int run_marginals(self, double* log_z) noexcept nogil
    cdef int run_log_inside(self, double* log_z) noexcept nogil
    cdef int run_sample(self, uint64_t* state) noexcept nogil

    # Read-outs of q (the last run's backward quantities), per grammar.
    cdef Py_ssize_t n_words(self) noexcept nogil
    cdef void read_heads(self, const double* q, int64_t* heads) noexcept nogil
    cdef void read_arcs(self, const double* q, double* out, Py_ssize_t stride, double fill,
                        bint maximum) noexcept nogil


cdef int inside(Inside* sr, Hypergraph graph, double* chart, double* goal) noexcept nogil
cdef int backward(Backward* sr, Hypergraph graph, const double* chart, double* q) noexcept nogil
cdef uint64_t seed_state(uint64_t seed) noexcept nogil
