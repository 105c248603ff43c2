# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The memory limit of one kernel request and the one-pass score check (see memory.pxd).

The limit bounds the bytes one grammar object holds for one sentence (charts,
schedules, arc and part indexes); a batch run on T threads may hold T times it.
Default 2 GiB; set by the environment variable VINEPARSE_MEMORY_LIMIT (bytes, or
with a suffix K, M, G, T: "512M") when vineparse is imported, or at any time with
`vineparse.kernels.set_memory_limit`.
"""
import os

cimport cython

from libc.math cimport INFINITY

DEFAULT_MEMORY_LIMIT = 2 << 30
MAX_INDEX = 2**31 - 1     # item ids and arc ids are int32

cdef size_t _limit = DEFAULT_MEMORY_LIMIT


cdef size_t memory_limit() noexcept nogil:
    return _limit


@cython.wraparound(True)
def parse_size(value):
    """Bytes from an int or a string such as "2G", "512M", "1000000" (case-insensitive)."""
    if isinstance(value, str):
        text = value.strip().upper().removesuffix("B")
        factor = 1
        if text and text[-1] in "KMGT":
            factor = 1024 ** ("KMGT".index(text[-1]) + 1)
            text = text[:-1]
        try:
            value = int(float(text) * factor)
        except ValueError:
            raise ValueError(f"cannot read a memory size from {value!r} (examples: 2G, 512M, 1000000)") from None
    value = int(value)
    if value <= 0:
        raise ValueError(f"the memory limit must be positive, got {value}")
    return value


def set_memory_limit(nbytes):
    """Set the most memory one kernel request may hold (bytes, or a string like "4G").

    A request beyond it raises `KernelSizeError` before allocating.
    RETURNS (int): the previous limit.
    """
    global _limit
    previous = _limit
    _limit = <size_t>parse_size(nbytes)
    return previous


def get_memory_limit():
    """The most memory (bytes) one kernel request may hold."""
    return _limit


if os.environ.get("VINEPARSE_MEMORY_LIMIT"):
    set_memory_limit(os.environ["VINEPARSE_MEMORY_LIMIT"])


cdef int check_scores(const double* x, Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t stride,
                      Py_ssize_t* where) noexcept nogil:
    """STATUS_OK if every entry of the rows x cols block (row stride `stride`) is -inf
    or finite with |x| <= SCORE_BOUND; else STATUS_BAD_SCORE with the flat index
    (row * cols + col) of the first bad entry, row-major, in `where`."""
    cdef Py_ssize_t i, j
    cdef double v
    cdef bint bad
    for i in range(rows):
        bad = False
        for j in range(cols):                   # branch-free test first: one pass, vectorised
            v = x[i * stride + j]
            bad |= not (v <= SCORE_BOUND and (v >= -SCORE_BOUND or v == -INFINITY))
        if bad:
            for j in range(cols):
                v = x[i * stride + j]
                if not (v <= SCORE_BOUND and (v >= -SCORE_BOUND or v == -INFINITY)):
                    where[0] = i * cols + j
                    return STATUS_BAD_SCORE
    return STATUS_OK


def first_bad_score(const double[:, :] x):
    """(row, col) of the first entry of x that is NaN, +inf or finite beyond SCORE_BOUND, or None."""
    cdef Py_ssize_t where = 0, i
    cdef Py_ssize_t rows = x.shape[0], cols = x.shape[1]
    if rows == 0 or cols == 0:
        return None
    if x.strides[1] == sizeof(double) and x.strides[0] % sizeof(double) == 0:
        with nogil:
            i = check_scores(&x[0, 0], rows, cols, x.strides[0] // sizeof(double), &where)
        return None if i == STATUS_OK else divmod(where, cols)
    for i in range(rows):
        for where in range(cols):
            v = x[i, where]
            if not (v <= SCORE_BOUND and (v >= -SCORE_BOUND or v == -INFINITY)):
                return i, where
    return None


SCORE_LIMIT = SCORE_BOUND


class KernelSizeError(ValueError):
    """A kernel request would exceed the memory limit (`vineparse.kernels.set_memory_limit`)."""


def check_status(int status, size_t needed=0, what="the dynamic program"):
    """Raise the exception of a failed STATUS_* code other than STATUS_NO_STRUCTURE
    (which the caller words itself); do nothing for STATUS_OK."""
    if status == STATUS_TOO_LARGE:
        raise KernelSizeError(
            f"{what} would need about {needed / 2**20:,.1f} MiB, over the memory limit of "
            f"{_limit / 2**20:,.0f} MiB (or its index would pass {MAX_INDEX:,} entries); raise the "
            f"limit with vineparse.kernels.set_memory_limit or the VINEPARSE_MEMORY_LIMIT environment variable")
    if status == STATUS_OUT_OF_MEMORY:
        raise MemoryError(f"could not allocate the memory of {what}")


def check_size(nbytes, what="the result"):
    """Raise KernelSizeError if allocating `nbytes` would pass the memory limit."""
    if nbytes > _limit:
        check_status(STATUS_TOO_LARGE, nbytes, what)
