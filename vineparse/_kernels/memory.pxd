# cython: language_level=3
"""Status codes, growable buffers, the score range and the memory limit shared by every kernel.

Every `noexcept nogil` entry point of the kernels returns one of the STATUS_* codes
(errors travel as codes, never as exceptions, so that C callers can run without the
GIL); the checked Python faces turn them into exceptions (`raise_status`).

Buffers are grown, never shrunk, so an object reused sentence after sentence stops
allocating once it has seen its longest sentence:

    cdef double* chart = NULL          # owned by some object, free()d in __dealloc__
    cdef size_t chart_cap = 0
    if grow(<void**>&chart, &chart_cap, n_items, sizeof(double)) != 0:
        return STATUS_OUT_OF_MEMORY

Before growing for a sentence, an object compares the bytes it would then hold with
`memory_limit()` (the process-wide limit of one kernel request, see memory.pyx) and
returns STATUS_TOO_LARGE instead of allocating.
"""
from libc.stdint cimport SIZE_MAX
from libc.stdlib cimport realloc

cdef enum:
    STATUS_OK = 0
    STATUS_NO_STRUCTURE = 1     # the mask (or -inf scores) admit no structure
    STATUS_OUT_OF_MEMORY = 2    # malloc / realloc failed
    STATUS_TOO_LARGE = 3        # the request would exceed memory_limit() or an index type's range
    STATUS_BAD_SCORE = 4        # a check found NaN, +inf or a finite score beyond SCORE_BOUND
    STATUS_BAD_LENGTH = 5       # a compact part vector's length differs from the layout's part count

cdef extern from *:
    """
    #define VINEPARSE_SCORE_BOUND 1e300
    """
    # Finite scores must satisfy |score| <= SCORE_BOUND: sums of a structure's part
    # scores then stay finite (a structure sums fewer than 1e7 of them), so a finite
    # best score is never mistaken for "no structure" (-inf).
    const double SCORE_BOUND "VINEPARSE_SCORE_BOUND"


cdef inline int grow(void** buf, size_t* cap, size_t need, size_t itemsize) noexcept nogil:
    """Make `*buf` hold at least `need` items of `itemsize` bytes (contents kept);
    grows by half again at least. RETURNS 0, or -1 if the allocation failed."""
    cdef size_t new_cap
    cdef void* p
    if need <= cap[0]:
        return 0
    new_cap = cap[0] + cap[0] // 2
    if new_cap < need:
        new_cap = need
    if new_cap > SIZE_MAX // itemsize:
        new_cap = need
        if need > SIZE_MAX // itemsize:
            return -1
    p = realloc(buf[0], new_cap * itemsize)
    if p == NULL:
        return -1
    buf[0] = p
    cap[0] = new_cap
    return 0


cdef inline int grow_many(size_t* cap, size_t need, void*** bufs, const size_t* itemsizes,
                          int count) noexcept nogil:
    """`grow` for `count` buffers sharing one capacity (in items): all hold at least
    `need` items afterwards, or -1 is returned (and `*cap` is unchanged)."""
    cdef size_t c = cap[0]
    cdef int i
    if need <= c:
        return 0
    for i in range(count):
        c = cap[0]
        if grow(bufs[i], &c, need, itemsizes[i]) != 0:
            return -1
    cap[0] = c
    return 0


cdef size_t memory_limit() noexcept nogil

cdef int check_scores(const double* x, Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t stride,
                      Py_ssize_t* where) noexcept nogil
