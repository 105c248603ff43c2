# cython: language_level=3
from .semiring cimport Inside, Backward

cdef enum:
    AXIOM = -1      # returned by Hypergraph.edges for an item whose inside value is 0 (one)


cdef class Hypergraph:
    """A hypergraph given implicitly: items are integers, a grammar lists the
    incoming edges of an item on demand (so no edge is ever stored), and
    `order` lists the items that can carry weight in topological order.

    Item 0 is the unit axiom (inside value 0 in log space); a grammar uses it
    as the second tail of a unary edge.
    """
    cdef readonly Py_ssize_t n_items
    cdef readonly Py_ssize_t goal
    cdef readonly Py_ssize_t max_edges
    cdef int[::1] order

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* tail1, int* tail2, double* weight) noexcept nogil


cdef double inside(Inside* sr, Hypergraph graph, double* chart) noexcept nogil
cdef void backward(Backward* sr, Hypergraph graph, const double* chart, double* q) noexcept nogil
