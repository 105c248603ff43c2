# cython: language_level=3
"""Hashed part features (features.pyx) for C callers such as the cascade runtime.

    cdef SentenceFeatures s
    sentence_init(&s)                                 # once; buffers are reused
    if sentence_set(&s, &tokens[0, 0], n) < 0: ...    # per sentence: O(n) prefix tables (-1: out of memory)
    k = part_features(&s, ARC, part, out)             # k <= MAX_FEATURES raw 64-bit indices into `out`
    sentence_free(&s)

Mask an index with `& (table_size - 1)` before reading a weight.
"""
from libc.stdint cimport uint64_t, int64_t

cdef enum:
    MAX_FEATURES = 512          # indices one part can have at most (arcs: 50 + 2 per distinct tag between)
    COLUMNS = 4                 # token hash columns: word, tag, coarse tag, prefix
    HEAD_SLOTS = 23             # per-token prefixes of the arc templates that start with the head's values
    MOD_SLOTS = 3               # per-token values of the arc templates made of the modifier alone

cpdef enum PartKind:
    ARC = 0
    OUTER = 1
    SIBLING = 2
    GRANDPARENT = 3
    GRAND_SIBLING = 4

cdef struct SentenceFeatures:
    Py_ssize_t n
    Py_ssize_t capacity         # tokens the buffers hold
    const uint64_t* tokens      # (n + 1) x COLUMNS, row 0 the root token (not owned)
    uint64_t* head              # (n + 1) x HEAD_SLOTS
    uint64_t* mod               # (n + 1) x MOD_SLOTS
    int* previous_tag           # previous_tag[b]: the last position < b with b's tag, -1 if none

cdef void sentence_init(SentenceFeatures* s) noexcept nogil
cdef int sentence_set(SentenceFeatures* s, const uint64_t* tokens, Py_ssize_t n) noexcept nogil
cdef void sentence_free(SentenceFeatures* s) noexcept nogil
cdef int part_width(int kind) noexcept nogil
cdef int part_features(const SentenceFeatures* s, int kind, const int64_t* part, uint64_t* out) noexcept nogil
cdef int arc_features(const SentenceFeatures* s, Py_ssize_t h, Py_ssize_t m, uint64_t* out) noexcept nogil
