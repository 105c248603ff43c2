# cython: language_level=3
"""Mixing 64-bit feature hashes, shared by the kernels that hash feature templates to weight rows, and the
columns of the token hash rows they read (`vineparse.cascade.encoding`)."""
from libc.stdint cimport uint64_t

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
