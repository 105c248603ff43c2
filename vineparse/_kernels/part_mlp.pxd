# cython: language_level=3
"""The part MLP of the spaCy component (part_mlp.pyx) for C callers (the cascade runtime's neural scorer).

    cdef PartMLP mlp       # pointers into float32 arrays that outlive the calls
    part_mlp_parts(&mlp, parts, count, row_of, buckets, stride, scratch, out)   # scratch: p floats
"""
from libc.stdint cimport int64_t

cdef enum:
    MAX_ROLES = 4

cdef struct PartMLP:
    const float* Z              # projections of every row, row-major: row r starts at Z + r * columns
    Py_ssize_t columns          # the row stride (at least the columns read)
    Py_ssize_t k                # roles per part
    Py_ssize_t p                # hidden width
    int64_t starts[MAX_ROLES]   # first column of role j in Z
    const float* v              # (p,)
    const float* none           # (p,): replaces the sibling role when it repeats the head; NULL: no such role
    Py_ssize_t sibling_column   # that role, or -1
    const float* distance       # (D, p) distance rows, or NULL
    Py_ssize_t head_column      # the role of h (the distance row is the bucket of h -> the last role's word)

cdef void part_mlp_parts(const PartMLP* mlp, const int64_t* parts, Py_ssize_t count, const int64_t* row_of,
                         const int64_t* buckets, Py_ssize_t stride, float* scratch, double* out) noexcept nogil
