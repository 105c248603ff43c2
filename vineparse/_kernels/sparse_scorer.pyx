# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The cascade parser's hashed sparse features as a scorer of the compiled cascade runtime.

Features are those of features.pyx; the weights of all levels sit side by side in one table (column k
for level k), int8 or int16 on a per-level power-of-two grid, or float32. The first level that needs an
arc hashes its features and sums every level's column at once (a feature's weights for all levels are
adjacent bytes: one memory read), later levels read the cached sums; higher-order parts are hashed and
summed for the level that asks. Reads are random in a table of megabytes, so they are prefetched: arcs
in a two-arc software pipeline, parts in batches of BLOCK.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from .cascade_runtime cimport Scorer, Workspace, MAX_LEVELS
from .features cimport sentence_set, arc_features, part_features, part_width, MAX_FEATURES, COLUMNS, ARC, OUTER

import numpy as np


cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil


cdef enum:
    BLOCK = 32              # arcs scored per call of score_block; parts per prefetched batch
    AHEAD = 2               # arcs hashed (and their weights prefetched) ahead of the one being summed


ctypedef fused table_t:
    int8_t
    int16_t
    float


cdef inline void sum_rows(const table_t* weights, const uint64_t* offsets, Py_ssize_t k, Py_ssize_t L,
                          const double* scale, double* out) noexcept nogil:
    """out[level] = scale[level] * sum_j weights[offsets[j] + level], level < L (integers summed exactly)."""
    cdef Py_ssize_t j, level
    cdef int64_t whole[MAX_LEVELS]
    cdef double total[MAX_LEVELS]
    cdef const table_t* row
    if table_t is float:
        for level in range(L):
            total[level] = 0.0
        for j in range(k):
            row = &weights[offsets[j]]
            for level in range(L):
                total[level] += row[level]
        for level in range(L):
            out[level] = total[level] * scale[level]
    else:
        for level in range(L):
            whole[level] = 0
        for j in range(k):
            row = &weights[offsets[j]]
            for level in range(L):
                whole[level] += row[level]
        for level in range(L):
            out[level] = whole[level] * scale[level]


cdef enum:
    TABLE_INT8 = 0
    TABLE_INT16 = 1
    TABLE_FLOAT32 = 2


cdef class SparseScorer(Scorer):
    """Hashed sparse features (features.pyx) under an interleaved weight table.

    sentences (Sequence[np.ndarray]): uint64 (n + 1, 4) token hashes each (`cascade.encoding`).
    table (np.ndarray): int8, int16 or float32 (size, levels), column k the weights of level k in units of
        scales[k]; size a power of two <= 2^32.
    scales (Sequence[float]): one per level (1.0 for float32 tables).

    The first level that needs an arc computes its feature indices and sums every level's column at
    once (each index is one read of `levels` adjacent weights, so int8 weights of four levels share four
    bytes); later levels read the cached sums, so an arc is hashed and fetched from memory once per
    sentence. Integer weights are summed exactly and scaled once.
    """
    cdef object _tokens, _table
    cdef const uint64_t** token_ptr
    cdef Py_ssize_t* lengths
    cdef const void* weights
    cdef int table_type
    cdef Py_ssize_t itemsize
    cdef double scale[MAX_LEVELS]
    cdef uint64_t size_mask
    cdef Py_ssize_t n_levels

    def __cinit__(self):
        self.token_ptr = NULL
        self.lengths = NULL

    def __init__(self, sentences, table, scales=None):
        cdef Py_ssize_t i
        cdef const uint64_t[:, ::1] tokens
        table = np.asarray(table)
        types = {np.dtype(np.int8): TABLE_INT8, np.dtype(np.int16): TABLE_INT16, np.dtype(np.float32): TABLE_FLOAT32}
        if table.ndim != 2 or table.dtype not in types or not table.flags.c_contiguous:
            raise ValueError(f"the weight table must be a C-contiguous int8, int16 or float32 array (2^k, levels), "
                             f"got {table.dtype} {table.shape}")
        size = table.shape[0]
        if size < 1 or size & (size - 1) or size > 1 << 32 or not 1 <= table.shape[1] <= MAX_LEVELS:
            raise ValueError(f"the weight table must have shape (2^k, levels) with 2^k <= 2^32 and 1..{MAX_LEVELS} "
                             f"levels, got {table.shape}")
        scales = np.ones(table.shape[1]) if scales is None else np.asarray(scales, dtype=np.float64)
        if scales.shape != (table.shape[1],) or not np.isfinite(scales).all():
            raise ValueError(f"scales must be {table.shape[1]} finite numbers, got {scales}")
        self._table = table
        self.table_type = types[table.dtype]
        self.itemsize = table.dtype.itemsize
        self.weights = <const void*><size_t>table.ctypes.data
        self.n_levels = table.shape[1]
        for i in range(self.n_levels):
            self.scale[i] = scales[i]
        self.size_mask = size - 1
        self._tokens = [np.ascontiguousarray(x, dtype=np.uint64) for x in sentences]
        self.n_sentences = len(self._tokens)
        self.token_ptr = <const uint64_t**>malloc(max(self.n_sentences, 1) * sizeof(uint64_t*))
        self.lengths = <Py_ssize_t*>malloc(max(self.n_sentences, 1) * sizeof(Py_ssize_t))
        if self.token_ptr == NULL or self.lengths == NULL:
            raise MemoryError()
        for i in range(self.n_sentences):
            tokens = self._tokens[i]
            if tokens.shape[0] < 1 or tokens.shape[1] != COLUMNS:
                raise ValueError(f"sentence {i}: tokens must have shape (n + 1, {COLUMNS}), got "
                                 f"{(tokens.shape[0], tokens.shape[1])}")
            self.token_ptr[i] = &tokens[0, 0]
            self.lengths[i] = tokens.shape[0] - 1

    def __dealloc__(self):
        free(self.token_ptr)
        free(self.lengths)

    cpdef Py_ssize_t length(self, Py_ssize_t i):
        return self.lengths[i]

    cdef Py_ssize_t begin(self, Workspace ws, Py_ssize_t i) noexcept nogil:
        cdef Py_ssize_t n = self.lengths[i], N = n + 1
        if (ws.reserve(n) < 0 or ws.reserve_cache(N * N * self.n_levels) < 0
                or sentence_set(&ws.features, self.token_ptr[i], n) < 0):
            return -1
        ws.n = n
        memset(ws.arc_known, 0, N * N)
        return n

    cdef inline void prefetch(self, uint64_t offset) noexcept nogil:
        __builtin_prefetch(<const char*>self.weights + offset * self.itemsize)

    cdef inline void sum(self, const uint64_t* offsets, Py_ssize_t k, Py_ssize_t first, Py_ssize_t levels,
                         double* out) noexcept nogil:
        """out[i] = level (first + i)'s score of the features at `offsets` (element offsets of their rows)."""
        if self.table_type == TABLE_INT8:
            sum_rows(<const int8_t*>self.weights + first, offsets, k, levels, &self.scale[first], out)
        elif self.table_type == TABLE_INT16:
            sum_rows(<const int16_t*>self.weights + first, offsets, k, levels, &self.scale[first], out)
        else:
            sum_rows(<const float*>self.weights + first, offsets, k, levels, &self.scale[first], out)

    cdef void score_block(self, Workspace ws, const Py_ssize_t* arcs, Py_ssize_t count) noexcept nogil:
        """Hash the arcs (cells h * N + m) and sum every level's weights, software-pipelined: the weights
        of arc a are prefetched while arc a - AHEAD is summed."""
        cdef Py_ssize_t N = ws.n + 1, L = self.n_levels, a, j, k, slot
        cdef uint64_t raw[AHEAD][MAX_FEATURES]
        cdef int counts[AHEAD]
        for a in range(count + AHEAD):
            slot = a % AHEAD
            if a >= AHEAD:                           # sum the arc hashed AHEAD steps ago
                self.sum(raw[slot], counts[slot], 0, L, &ws.arc_cache[arcs[a - AHEAD] * L])
                ws.arc_known[arcs[a - AHEAD]] = 1
            if a < count:
                k = arc_features(&ws.features, arcs[a] // N, arcs[a] % N, raw[slot])
                for j in range(k):
                    raw[slot][j] = (raw[slot][j] & self.size_mask) * L
                    self.prefetch(raw[slot][j])
                counts[slot] = <int>k

    cdef int arcs(self, Workspace ws, int level, const uint8_t* mask, double* out) noexcept nogil:
        cdef Py_ssize_t N = ws.n + 1, L = self.n_levels, i, pending = 0
        cdef Py_ssize_t block[BLOCK]
        if level >= L:
            return -1
        for i in range(N * N):
            if mask[i] and not ws.arc_known[i]:
                block[pending] = i
                pending += 1
                if pending == BLOCK:
                    self.score_block(ws, block, pending)
                    pending = 0
        if pending:
            self.score_block(ws, block, pending)
        for i in range(N * N):
            out[i] = ws.arc_cache[i * L + level] if mask[i] else -INFINITY
        return 0

    cdef int outer_arcs(self, Workspace ws, int level, double* out) noexcept nogil:
        cdef int64_t part[2]
        cdef Py_ssize_t m, side, N = ws.n + 1
        cdef int i
        for m in range(N):
            for side in range(2):
                part[0] = m
                part[1] = side
                if self.parts(ws, level, OUTER, part, 1, &out[2 * m + side]) < 0:
                    return -1
        return 0

    cdef int parts(self, Workspace ws, int level, int kind, const int64_t* rows, Py_ssize_t count,
                   double* out) noexcept nogil:
        cdef Py_ssize_t L = self.n_levels, width = part_width(kind), p, q, j, k, used, start
        cdef uint64_t raw[BLOCK * 16]
        cdef int counts[BLOCK]
        if width < 0 or kind == ARC or level >= L:     # arcs go through `arcs` (they have many more features)
            return -1
        start = 0
        while start < count:
            # indices of up to BLOCK parts (higher-order parts have at most 16 features), prefetched
            used = 0
            q = 0
            while q < BLOCK and start + q < count:
                k = part_features(&ws.features, kind, &rows[(start + q) * width], &raw[used])
                for j in range(used, used + k):
                    raw[j] = (raw[j] & self.size_mask) * L
                    self.prefetch(raw[j] + level)
                counts[q] = <int>k
                used += k
                q += 1
            used = 0
            for p in range(q):
                self.sum(&raw[used], counts[p], level, 1, &out[start + p])
                used += counts[p]
            start += q
        return 0
