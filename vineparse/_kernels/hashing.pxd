# cython: language_level=3
"""Mixing 64-bit feature hashes, shared by the kernels that hash feature templates to weight rows, the
columns of the token hash rows they read (`vineparse.cascade.encoding`) and the distance buckets of their
templates."""
from libc.stdint cimport int64_t, uint64_t

cdef enum:
    WORD = 0
    TAG = 1
    COARSE = 2
    PREFIX = 3
    COLUMNS = 4


cdef inline uint64_t mix(uint64_t a, uint64_t b) noexcept nogil:
    """A hash of the pair (a, b): chain it to hash a template's values."""
    cdef uint64_t x = (a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2))) * 0xBF58476D1CE4E5B9ULL
    x ^= x >> 29
    x *= 0x94D049BB133111EBULL
    return x ^ (x >> 32)


cdef inline int64_t bucket(Py_ssize_t d) noexcept nogil:
    """The bucket of a distance |d|: 0, 1, 2, 3, 4, 5 as they are, 6 for 6-10, 7 for 11 and more."""
    if d < 0:
        d = -d
    if d <= 5:
        return d
    if d <= 10:
        return 6
    return 7
