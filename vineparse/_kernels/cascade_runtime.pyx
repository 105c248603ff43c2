# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled cascade runtime: vine -> first -> second -> third order for a batch of sentences.

Rush & Petrov (2012), "Vine pruning for efficient multi-pass dependency parsing": every level but the
last computes max-marginals over its parts and passes on the arcs whose max-marginal reaches

    t_a = a * best + (1 - a) * mean over parts of mm(part)

(the vine also passes every far head of a word whose outer arc survives), optionally keeping at most
`cap` heads per word (those of highest max-marginal; ties kept, so the best structure survives). The
last level decodes. A pruned mask that admits no structure at the next level (possible after the vine:
a vine structure need not be one tree) is replaced by the mask before it, and counted as a fallback.

Scores come from a `Scorer` (cascade_runtime.pxd): the hashed sparse features of `SparseScorer` here,
or neural part scores. For the sparse scorer each arc's feature indices are computed once per sentence
(on the first level that needs the arc) and every later level only gathers its own weights at them.
All buffers live in a per-thread `Workspace` and are reused across sentences.

Level orders: VINE (0), FIRST..THIRD (1..3) and LOCAL (-1, an unstructured arc classifier whose
max-marginals are closed-form: mm(h, m) = best - max_h' s(h', m) + s(h, m)).
"""
cimport cython
from libc.math cimport INFINITY, isfinite
from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset, memcpy
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from .features cimport (SentenceFeatures, sentence_init, sentence_set, sentence_free, arc_features,
                        part_features, part_width, MAX_FEATURES, COLUMNS, ARC, OUTER, SIBLING,
                        GRANDPARENT, GRAND_SIBLING)

from .memory cimport STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex
from .eisner cimport FirstOrder
from .eisner2 cimport SecondOrder
from .eisner3 cimport ThirdOrder
from .vine cimport Vine
from .parallel cimport run_jobs, MAX_THREADS

import numpy as np
from .memory import KernelSizeError, check_status, get_memory_limit

cdef enum:
    LOCAL = -1
    VINE = 0
    SCORER_FAILED = 100    # a scorer returned -1 (it ran out of memory)


cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + 1e-9 * t.tv_nsec


# ---------------------------------------------------------------------------
# Thresholds (the only implementation: training, calibration and prediction all call these)

cdef double threshold_of(double best, const double* values, Py_ssize_t count, const double* more,
                         Py_ssize_t more_count, double alpha) noexcept nogil:
    """t_a over the finite entries of values[0:count] and more[0:more_count] (mean := best if none), at most
    best."""
    cdef double total = 0.0
    cdef Py_ssize_t i, finite = 0
    for i in range(count):
        if values[i] > -INFINITY:
            total += values[i]
            finite += 1
    for i in range(more_count):
        if more[i] > -INFINITY:
            total += more[i]
            finite += 1
    cdef double t = alpha * best + (1.0 - alpha) * (total / finite if finite else best)
    return t if t < best else best      # mean <= best, but rounding must never prune the best structure


cdef double kth_largest(double* values, Py_ssize_t count, Py_ssize_t k) noexcept nogil:
    """The k-th largest of values[0:count] (1 <= k <= count), by quickselect (reorders `values`)."""
    cdef Py_ssize_t lo = 0, hi = count - 1, i, j, target = k - 1
    cdef double pivot, tmp
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] > pivot:
                i += 1
            while values[j] < pivot:
                j -= 1
            if i <= j:
                tmp = values[i]; values[i] = values[j]; values[j] = tmp
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            break
    return values[target]


cdef void cap_heads(Py_ssize_t N, const double* mm, int cap, double* column, uint8_t* mask) noexcept nogil:
    """Keep in each column m of `mask` only the allowed heads whose max-marginal reaches the cap-th largest
    allowed one (all of them when fewer than `cap` are allowed)."""
    cdef Py_ssize_t h, m, count
    cdef double kth
    for m in range(1, N):
        count = 0
        for h in range(N):
            if mask[h * N + m]:
                column[count] = mm[h * N + m]
                count += 1
        if count <= cap:
            continue
        kth = kth_largest(column, count, cap)
        for h in range(N):
            if mask[h * N + m] and mm[h * N + m] < kth:
                mask[h * N + m] = 0


cdef void eisner_prune(Py_ssize_t N, double best, const double* mm, double alpha, int cap, double* column,
                       uint8_t* out) noexcept nogil:
    """The arcs an Eisner-order (or local) level passes on: mm >= t_a, at most `cap` heads a word (cap <= 0:
    no cap)."""
    cdef double t = threshold_of(best, mm, N * N, NULL, 0, alpha)
    cdef Py_ssize_t i
    for i in range(N * N):
        out[i] = <uint8_t>(mm[i] >= t and mm[i] > -INFINITY)
    if cap > 0:
        cap_heads(N, mm, cap, column, out)


cdef void vine_prune(Py_ssize_t N, double best, const double* arc_mm, const double* outer_mm, double alpha,
                     Py_ssize_t band, uint8_t* out) noexcept nogil:
    """The first-order arcs a vine pass passes on: short arcs and root arcs on their own max-marginals, and
    every head more than `band` words left (right) of m when m's outer-left (outer-right) arc survives."""
    cdef double t = threshold_of(best, arc_mm, N * N, outer_mm + 2, 2 * (N - 1), alpha)
    cdef Py_ssize_t h, m, i
    cdef bint left, right
    for i in range(N * N):
        out[i] = <uint8_t>(arc_mm[i] >= t and arc_mm[i] > -INFINITY)
    for m in range(1, N):
        left = outer_mm[2 * m] >= t and outer_mm[2 * m] > -INFINITY
        right = outer_mm[2 * m + 1] >= t and outer_mm[2 * m + 1] > -INFINITY
        if left:
            for h in range(1, m - band):
                out[h * N + m] = 1
        if right:
            for h in range(m + band + 1, N):
                out[h * N + m] = 1


cdef const double[:, ::1] _square(arc_mm) except *:
    cdef const double[:, ::1] values = np.ascontiguousarray(arc_mm, dtype=np.float64)
    if values.shape[0] != values.shape[1] or values.shape[0] < 1:
        raise ValueError(f"arc max-marginals must have shape (n + 1, n + 1), got {np.shape(arc_mm)}")
    return values


cdef const double[:, ::1] _outer(outer_mm, Py_ssize_t N) except *:
    cdef const double[:, ::1] values = np.ascontiguousarray(outer_mm, dtype=np.float64)
    if values.shape[0] != N or values.shape[1] != 2:
        raise ValueError(f"outer max-marginals must have shape ({N}, 2), got {np.shape(outer_mm)}")
    return values


def threshold(double best, arc_mm, outer_mm=None, double alpha=0.5):
    """t_a over the finite arc max-marginals (and, for a vine, the outer ones of words 1..n)."""
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef const double[:, ::1] outer
    cdef Py_ssize_t N = arcs.shape[0]
    if outer_mm is None:
        return threshold_of(best, &arcs[0, 0], N * N, NULL, 0, alpha)
    outer = _outer(outer_mm, N)
    return threshold_of(best, &arcs[0, 0], N * N, &outer[0, 0] + 2, 2 * (N - 1), alpha)


def prune_mask(double best, arc_mm, outer_mm=None, double alpha=0.5, int cap=0, Py_ssize_t band=0):
    """The arc mask a pruning level leaves: the C thresholds every caller of the cascade uses.

    arc_mm (float (n + 1, n + 1)): arc max-marginals, -inf for arcs no structure uses.
    outer_mm (float (n + 1, 2) or None): a vine's outer-arc max-marginals (then `band` is its band);
        None for an Eisner-order or local level (then `cap` > 0 keeps at most that many heads per word).
    RETURNS (np.ndarray): bool (n + 1, n + 1).
    """
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef const double[:, ::1] outer
    cdef Py_ssize_t N = arcs.shape[0]
    mask = np.zeros((N, N), dtype=np.bool_)
    cdef uint8_t[:, ::1] out = mask.view(np.uint8)
    cdef double* column
    if outer_mm is not None:
        outer = _outer(outer_mm, N)
        if band < 1:
            raise ValueError(f"a vine level needs band >= 1, got {band}")
        with nogil:
            vine_prune(N, best, &arcs[0, 0], &outer[0, 0], alpha, band, &out[0, 0])
        return mask
    column = <double*>malloc(N * sizeof(double))
    if column == NULL:
        raise MemoryError()
    with nogil:
        eisner_prune(N, best, &arcs[0, 0], alpha, cap, column, &out[0, 0])
    free(column)
    return mask


def cap_mask(mask, arc_mm, int cap):
    """`mask` (bool (n + 1, n + 1)) with each word m >= 1 keeping at most `cap` allowed heads, those of highest
    max-marginal (ties at the cap-th value kept, so the best structure's arcs survive)."""
    cdef const double[:, ::1] arcs = _square(arc_mm)
    cdef Py_ssize_t N = arcs.shape[0]
    out_array = np.array(mask, dtype=np.bool_, order="C", copy=True)
    if out_array.shape != (N, N):
        raise ValueError(f"mask has shape {out_array.shape}, the max-marginals {(N, N)}")
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    cdef uint8_t[:, ::1] out = out_array.view(np.uint8)
    cdef double* column = <double*>malloc(N * sizeof(double))
    if column == NULL:
        raise MemoryError()
    with nogil:
        cap_heads(N, &arcs[0, 0], cap, column, &out[0, 0])
    free(column)
    return out_array


# ---------------------------------------------------------------------------
# Workspace and scorers

cdef int grow(void** pointer, Py_ssize_t size) noexcept nogil:
    cdef void* grown = realloc(pointer[0], size if size > 0 else 1)
    if grown == NULL:
        return -1
    pointer[0] = grown
    return 0


cdef class Workspace:

    def __cinit__(self):
        cdef int i
        self.capacity = 0
        self.n = -1
        for i in range(3):
            self.masks[i] = NULL
            self.rows[i] = NULL
            self.part_scores[i] = NULL
            self.part_capacity[i] = 0
            self.part_count[i] = 0
        self.scores = self.mm = self.outer = self.outer_mm = self.column = NULL
        self.heads = NULL
        self.arc_known = NULL
        self.arc_cache = NULL
        self.cache_capacity = 0
        sentence_init(&self.features)
        self.band_mask = NULL
        memset(self.stats, 0, sizeof(self.stats))

    def __init__(self):
        self.first, self.second, self.third, self.vine = FirstOrder(), SecondOrder(), ThirdOrder(), Vine()

    def __dealloc__(self):
        cdef int i
        for i in range(3):
            free(self.masks[i]); free(self.rows[i]); free(self.part_scores[i])
        free(self.scores); free(self.mm); free(self.outer); free(self.outer_mm); free(self.column)
        free(self.heads); free(self.arc_known); free(self.arc_cache); free(self.band_mask)
        sentence_free(&self.features)

    cdef int reserve(self, Py_ssize_t n) noexcept nogil:
        """Room for a sentence of n words (0 or -1 when memory runs out)."""
        cdef Py_ssize_t N = n + 1, size
        cdef int i
        if N <= self.capacity:
            return 0
        size = N * N
        for i in range(3):
            if grow(<void**>&self.masks[i], size) < 0:
                return -1
        if (grow(<void**>&self.scores, size * sizeof(double)) < 0
                or grow(<void**>&self.mm, size * sizeof(double)) < 0
                or grow(<void**>&self.outer, 2 * N * sizeof(double)) < 0
                or grow(<void**>&self.outer_mm, 2 * N * sizeof(double)) < 0
                or grow(<void**>&self.column, N * sizeof(double)) < 0
                or grow(<void**>&self.heads, N * sizeof(int64_t)) < 0
                or grow(<void**>&self.arc_known, size) < 0
                or grow(<void**>&self.band_mask, size) < 0):
            return -1
        self.capacity = N
        return 0

    cdef int reserve_parts(self, int slot, Py_ssize_t count) noexcept nogil:
        """Room for `count` parts (rows of up to 4 positions and their scores) in slot 0..2."""
        cdef Py_ssize_t size = count + 16
        if count <= self.part_capacity[slot]:
            return 0
        if (grow(<void**>&self.rows[slot], 4 * size * sizeof(int64_t)) < 0
                or grow(<void**>&self.part_scores[slot], size * sizeof(double)) < 0):
            return -1
        self.part_capacity[slot] = size
        return 0


    def bytes_needed(self):
        """What the grammars' last resets needed (for a size error)."""
        return max(self.first.bytes_needed, self.second.bytes_needed, self.third.bytes_needed,
                   self.vine.bytes_needed, self.second.arcs.bytes_needed, self.third.arcs.bytes_needed)

    cdef int reserve_cache(self, Py_ssize_t count) noexcept nogil:
        """Room for `count` cached arc scores."""
        if count <= self.cache_capacity:
            return 0
        if grow(<void**>&self.arc_cache, count * sizeof(double)) < 0:
            return -1
        self.cache_capacity = count
        return 0


cdef class Scorer:
    """Scores of parts for the runtime (abstract; see cascade_runtime.pxd)."""

    cpdef Py_ssize_t length(self, Py_ssize_t i):
        """The number of words of sentence i."""
        raise NotImplementedError

    def arc_scores(self, Py_ssize_t i, int level, mask):
        """Level `level`'s dense arc scores of sentence i under `mask` (bool (n + 1, n + 1)), -inf
        outside it: float64 (n + 1, n + 1). For inspection and tests."""
        cdef Workspace ws = Workspace()
        cdef Py_ssize_t N
        cdef const uint8_t[:, ::1] allowed
        if not 0 <= i < self.n_sentences or not 0 <= level < MAX_LEVELS:
            raise IndexError(f"sentence {i} of {self.n_sentences} or level {level}")
        if self.begin(ws, i) < 0:
            raise MemoryError()
        N = ws.n + 1
        allowed = np.ascontiguousarray(mask, dtype=np.bool_).view(np.uint8)
        if allowed.shape[0] != N or allowed.shape[1] != N:
            raise ValueError(f"mask must have shape ({N}, {N})")
        out = np.empty((N, N))
        cdef double[:, ::1] view = out
        if self.arcs(ws, level, &allowed[0, 0], &view[0, 0]) < 0:
            raise MemoryError()
        return out

    def part_scores(self, Py_ssize_t i, int level, int kind, rows):
        """Level `level`'s scores of parts `rows` (int64 (P, width)) of sentence i: float64 (P,)."""
        cdef Workspace ws = Workspace()
        cdef const int64_t[:, ::1] parts = np.ascontiguousarray(rows, dtype=np.int64)
        if not 0 <= i < self.n_sentences or not 0 <= level < MAX_LEVELS:
            raise IndexError(f"sentence {i} of {self.n_sentences} or level {level}")
        if kind == ARC or part_width(kind) != parts.shape[1]:
            raise ValueError(f"part kind {kind} takes rows of width {part_width(kind)} (arcs: use arc_scores)")
        if self.begin(ws, i) < 0:
            raise MemoryError()
        if parts.shape[0] and (np.min(rows) < 0 or np.max(rows) > ws.n):
            raise ValueError(f"parts refer to positions outside 0..{ws.n}")
        out = np.empty(parts.shape[0])
        cdef double[::1] view = out
        if parts.shape[0] and self.parts(ws, level, kind, &parts[0, 0], parts.shape[0], &view[0]) < 0:
            raise MemoryError()
        return out

    cdef Py_ssize_t begin(self, Workspace ws, Py_ssize_t i) noexcept nogil:
        return -1

    cdef int arcs(self, Workspace ws, int level, const uint8_t* mask, double* out) noexcept nogil:
        return -1

    cdef int outer_arcs(self, Workspace ws, int level, double* out) noexcept nogil:
        return -1

    cdef int parts(self, Workspace ws, int level, int kind, const int64_t* rows, Py_ssize_t count,
                   double* out) noexcept nogil:
        return -1


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


# ---------------------------------------------------------------------------
# The dynamic programs of the levels, on the workspace's grammar objects (no GIL). Each returns a
# STATUS_* code of memory.pxd (STATUS_NO_STRUCTURE: the mask admits no structure).

cdef int list_parts(Workspace ws, int order, const uint8_t* mask) noexcept nogil:
    """The higher-order parts of `order` over the arcs of `mask`, in the grammar's layout order, into the
    part slots (0: sibling, 1: grandparent, 2: grand-sibling); the grammar's ArcIndex keeps the layout."""
    if order == 2:
        return layout_parts(ws, ws.second.arcs, False, mask)
    return layout_parts(ws, ws.third.arcs, True, mask)


cdef int layout_parts(Workspace ws, ArcIndex arcs, bint third, const uint8_t* mask) noexcept nogil:
    cdef int status = arcs.reset(ws.n, mask, ws.n + 1), slot
    if status != STATUS_OK:
        return status
    ws.part_count[0] = arcs.n_sibling_parts
    ws.part_count[1] = arcs.n_grandparent_parts if third else 0
    ws.part_count[2] = arcs.n_grand_sibling_parts if third else 0
    for slot in range(3):
        if ws.reserve_parts(slot, ws.part_count[slot]) < 0:
            return STATUS_OUT_OF_MEMORY
    arcs.sibling_parts_into(ws.rows[0])
    if third:
        arcs.grandparent_parts_into(ws.rows[1])
        arcs.grand_sibling_parts_into(ws.rows[2])
    return STATUS_OK


cdef int eisner_pass(Workspace ws, int order, const uint8_t* mask, bint decode, double* best) noexcept nogil:
    """Order 1-3 over ws.scores (and, for orders 2 and 3, the part scores listed by `list_parts` for the same
    mask): decode into ws.heads, or max-marginals into best and ws.mm."""
    cdef Py_ssize_t N = ws.n + 1
    cdef int status
    if order == 1:
        status = ws.first.reset(ws.n, ws.scores, N, mask, N, True)
        return status if status != STATUS_OK else run_grammar(ws, ws.first, decode, best)
    if order == 2:
        status = ws.second.reset(ws.scores, N, ws.part_scores[0], True)
        return status if status != STATUS_OK else run_grammar(ws, ws.second, decode, best)
    status = ws.third.reset(ws.scores, N, ws.part_scores[0], ws.part_scores[1], ws.part_scores[2], True)
    return status if status != STATUS_OK else run_grammar(ws, ws.third, decode, best)


cdef int run_grammar(Workspace ws, Hypergraph graph, bint decode, double* best) noexcept nogil:
    cdef double score
    if decode:
        return graph.best(&score, ws.heads)
    return graph.max_marginals(best, ws.mm, ws.n + 1)


cdef int vine_pass(Workspace ws, Py_ssize_t band, double* best) noexcept nogil:
    """Vine max-marginals over ws.scores (short and root arcs) and ws.outer: best, ws.mm, ws.outer_mm."""
    cdef Py_ssize_t N = ws.n + 1
    cdef int status = ws.vine.reset(ws.n, band, ws.scores, N, ws.outer, 2, NULL, 0, NULL, 0)
    if status != STATUS_OK:
        return status
    return ws.vine.max_marginals_vine(best, ws.mm, N, ws.outer_mm)


cdef int tree_exists(Workspace ws, const uint8_t* mask) noexcept nogil:
    """STATUS_OK if `mask` admits a projective tree, STATUS_NO_STRUCTURE if not (else an error code).
    Uses ws.mm as zero scores."""
    cdef Py_ssize_t N = ws.n + 1
    cdef double score
    cdef int status
    memset(ws.mm, 0, N * N * sizeof(double))
    status = ws.first.reset(ws.n, ws.mm, N, mask, N, True)
    if status != STATUS_OK:
        return status
    return ws.first.run_best(&score)


cdef void local_max_marginals(Py_ssize_t N, const double* scores, double* column, double* best,
                              double* mm) noexcept nogil:
    """Max-marginals of the unstructured arc classifier: mm(h, m) = best - max_h' s(h', m) + s(h, m)."""
    cdef Py_ssize_t h, m
    cdef double top, total = 0.0
    for m in range(1, N):
        top = -INFINITY
        for h in range(N):
            if scores[h * N + m] > top:
                top = scores[h * N + m]
        column[m] = top
        total += top
    best[0] = total
    for h in range(N):
        mm[h * N] = -INFINITY
        for m in range(1, N):
            mm[h * N + m] = total - column[m] + scores[h * N + m]


def local_marginals(scores):
    """Best score and max-marginals of the unstructured arc classifier (every word picks its best head):
    mm(h, m) = best - max_h' s(h', m) + s(h, m). scores: float (n + 1, n + 1), -inf for arcs not allowed.
    RETURNS (float, np.ndarray): best, float64 (n + 1, n + 1) (column 0: -inf)."""
    cdef const double[:, ::1] s = _square(scores)
    cdef Py_ssize_t N = s.shape[0]
    out = np.empty((N, N))
    cdef double[:, ::1] mm = out
    cdef double[::1] column = np.empty(N)
    cdef double best
    with nogil:
        local_max_marginals(N, &s[0, 0], &column[0], &best, &mm[0, 0])
    return best, out


# ---------------------------------------------------------------------------
# The runtime

cdef class Stats:
    """Per level: arcs kept by its pruning, n^2 possible, gold arcs kept and total, fallbacks, seconds."""
    cdef readonly double[:, ::1] table      # (levels, STATS)
    cdef readonly Py_ssize_t sentences

    def __init__(self, Py_ssize_t levels):
        self.table = np.zeros((levels, STATS))
        self.sentences = 0


cdef struct SentenceJob:
    void* runtime                 # CascadeRuntime, borrowed for the batch
    void* scorer                  # Scorer, likewise
    Py_ssize_t i
    int upto
    const int64_t* gold           # n + 1 heads or NULL
    int64_t* heads                # out: n + 1 (when parsing)
    uint8_t* mask                 # out: (n + 1)^2 (when upto >= 0)
    double seconds


cdef int sentence_job(void* workspace, void* job) noexcept nogil:
    cdef SentenceJob* j = <SentenceJob*>job
    cdef Py_ssize_t N
    cdef uint8_t* mask = NULL
    cdef double start = now()
    cdef int status = (<CascadeRuntime>j.runtime).sentence(<Scorer>j.scorer, <Workspace>workspace, j.i, j.upto,
                                                            j.gold, &mask)
    if status == STATUS_OK:
        N = (<Workspace>workspace).n + 1
        if j.upto >= 0:
            memcpy(j.mask, mask, N * N)
        else:
            memcpy(j.heads, (<Workspace>workspace).heads, N * sizeof(int64_t))
    j.seconds = now() - start
    return status


cdef class CascadeRuntime:
    """One cascade: level orders, pruning parameters a, head caps and the vine's band.

    orders (Sequence[int]): 0 = vine, -1 = local, 1-3 = Eisner orders; the last one decodes.
    alphas (Sequence[float]): a per pruning level; caps (Sequence[int]): heads kept per word at most
        per pruning level (0 = no cap); band (int): the vine's longest short arc.
    """
    cdef readonly int n_levels
    cdef int order[MAX_LEVELS]
    cdef double alpha[MAX_LEVELS]
    cdef int cap[MAX_LEVELS]
    cdef readonly Py_ssize_t band
    cdef list _workspaces           # one per thread, kept across calls (their buffers stay allocated)

    def __init__(self, orders, alphas, caps, Py_ssize_t band):
        cdef int k
        self._workspaces = []
        orders = [-1 if o == "local" else int(o) for o in orders]
        if not 1 <= len(orders) <= MAX_LEVELS:
            raise ValueError(f"a cascade has 1..{MAX_LEVELS} levels, got {len(orders)}")
        if len(alphas) != len(orders) - 1 or len(caps) != len(orders) - 1:
            raise ValueError(f"{len(orders) - 1} pruning levels need as many alphas and caps, got "
                             f"{len(alphas)} and {len(caps)}")
        if orders[len(orders) - 1] not in (1, 2, 3) or any(o not in (-1, 0, 1, 2, 3) for o in orders):
            raise ValueError(f"levels must be -1 (local), 0 (vine) or 1-3, the last 1-3; got {orders}")
        if band < 1:
            raise ValueError(f"band must be >= 1, got {band}")
        self.n_levels = len(orders)
        self.band = band
        for k in range(self.n_levels):
            self.order[k] = orders[k]
            self.alpha[k] = float(alphas[k]) if k < self.n_levels - 1 else 0.0
            self.cap[k] = int(caps[k] or 0) if k < self.n_levels - 1 else 0

    cdef int level_inputs(self, Scorer scorer, Workspace ws, int k, const uint8_t* mask) noexcept nogil:
        """Scores of level k's parts under `mask`: ws.scores (and ws.outer, the part slots)."""
        cdef Py_ssize_t N = ws.n + 1, h, m, slot
        cdef int order = self.order[k], status
        cdef uint8_t* band_mask
        if order == VINE:
            band_mask = ws.band_mask           # the vine scores short and root arcs
            for h in range(N):
                for m in range(N):
                    band_mask[h * N + m] = <uint8_t>(m > 0 and h != m and (h == 0 or (
                        h - m <= self.band and m - h <= self.band)))
            if scorer.arcs(ws, k, band_mask, ws.scores) < 0 or scorer.outer_arcs(ws, k, ws.outer) < 0:
                return SCORER_FAILED
            return STATUS_OK
        if scorer.arcs(ws, k, mask, ws.scores) < 0:
            return SCORER_FAILED
        if order >= 2:
            status = list_parts(ws, order, mask)
            if status != STATUS_OK:
                return status
            for slot in range(3):
                if ws.part_count[slot] and scorer.parts(ws, k, SIBLING + slot, ws.rows[slot], ws.part_count[slot],
                                                        ws.part_scores[slot]) < 0:
                    return SCORER_FAILED
        return STATUS_OK

    cdef int prune(self, Scorer scorer, Workspace ws, int k, const uint8_t* mask, uint8_t* out) noexcept nogil:
        """Level k's pruned mask for level k + 1 from its input `mask` (a STATUS_* code)."""
        cdef Py_ssize_t N = ws.n + 1
        cdef int order = self.order[k], status
        cdef double best
        status = self.level_inputs(scorer, ws, k, mask)
        if status != STATUS_OK:
            return status
        if order == VINE:
            status = vine_pass(ws, self.band, &best)
            if status == STATUS_OK:
                vine_prune(N, best, ws.mm, ws.outer_mm, self.alpha[k], self.band, out)
            return status
        if order == LOCAL:
            local_max_marginals(N, ws.scores, ws.column, &best, ws.mm)
        else:
            status = eisner_pass(ws, order, mask, False, &best)
            if status != STATUS_OK:
                return status
        eisner_prune(N, best, ws.mm, self.alpha[k], self.cap[k], ws.column, out)
        return STATUS_OK

    cdef int decode(self, Scorer scorer, Workspace ws, int k, const uint8_t* mask) noexcept nogil:
        cdef int status = self.level_inputs(scorer, ws, k, mask)
        if status != STATUS_OK:
            return status
        return eisner_pass(ws, self.order[k], mask, True, NULL)

    cdef int sentence(self, Scorer scorer, Workspace ws, Py_ssize_t i, int upto, const int64_t* gold,
                      uint8_t** mask_out) noexcept nogil:
        """Run the cascade on sentence i: the best tree into ws.heads, or with upto >= 0 point mask_out at
        the input mask of level `upto` (a workspace buffer). Adds to ws.stats. RETURNS a STATUS_* code.

        A mask that admits no structure at the next level is replaced by the one before (a fallback of
        the level that pruned): when that level runs, or, for `upto`, when the mask is handed out."""
        cdef Py_ssize_t n = scorer.begin(ws, i), N, m, j, kept, gold_kept
        cdef int k, last, status
        cdef uint8_t* before
        cdef uint8_t* current
        cdef uint8_t* out
        cdef uint8_t* spare
        cdef double* stats = ws.stats
        cdef double start
        if n < 0:
            return SCORER_FAILED
        N = n + 1
        last = self.n_levels - 1 if upto < 0 else upto
        before, current, out = ws.masks[0], ws.masks[1], ws.masks[2]
        for j in range(N * N):                       # level 0 runs on every arc
            current[j] = <uint8_t>(j % N != 0 and j % N != j // N)
        memcpy(before, current, N * N)
        for k in range(last + 1):
            start = now()
            if k == last and upto >= 0:
                status = tree_exists(ws, current) if k > 0 else STATUS_OK
                if status == STATUS_NO_STRUCTURE:
                    current = before
                    stats[(k - 1) * STATS + 4] += 1
                elif status != STATUS_OK:
                    return status
                mask_out[0] = current
                return STATUS_OK
            if k == last:
                status = self.decode(scorer, ws, k, current)
                if status == STATUS_NO_STRUCTURE and k > 0:
                    stats[(k - 1) * STATS + 4] += 1
                    status = self.decode(scorer, ws, k, before)
                stats[k * STATS + 5] += now() - start
                return status
            status = self.prune(scorer, ws, k, current, out)
            if status == STATUS_NO_STRUCTURE and k > 0:
                stats[(k - 1) * STATS + 4] += 1
                memcpy(current, before, N * N)
                status = self.prune(scorer, ws, k, current, out)
            if status != STATUS_OK:
                return status
            stats[k * STATS + 5] += now() - start
            kept = gold_kept = 0
            for j in range(N * N):
                if out[j] and j % N != 0:
                    kept += 1
            stats[k * STATS + 0] += kept
            stats[k * STATS + 1] += n * n
            if gold != NULL:
                for m in range(1, N):
                    gold_kept += out[gold[m] * N + m]
                stats[k * STATS + 2] += gold_kept
                stats[k * STATS + 3] += n
            spare = before
            before, current, out = current, out, spare
        return STATUS_OK

    def run(self, Scorer scorer, int upto=-1, gold=None, Stats stats=None, double[::1] seconds=None,
            int n_threads=1):
        """Run every sentence of `scorer` through the cascade, on `n_threads` threads (OpenMP; one
        workspace per thread, sentences handed out dynamically).

        upto (int): -1 to parse; k > 0 for the arc mask level k runs on (the input of level k).
        gold (Sequence[np.ndarray] or None): int64 heads (length n + 1) per sentence, for the gold-arc
            recall in `stats`.
        seconds (float64 array or None): filled with each sentence's time (scoring included).
        RETURNS (list): heads (int64 (n + 1,), heads[0] = -1) or masks (bool (n + 1, n + 1)) per sentence.
        Raises NoStructureError, KernelSizeError (over the kernels' memory limit) or MemoryError naming the
        sentence.
        """
        cdef Py_ssize_t count = scorer.n_sentences, i, t, N
        cdef int threads = max(1, min(n_threads, MAX_THREADS, max(count, 1)))
        cdef void* pointers[MAX_THREADS]
        if n_threads < 1:
            raise ValueError(f"n_threads must be >= 1, got {n_threads}")
        if not -1 <= upto < self.n_levels:
            raise ValueError(f"upto must be -1 or 0..{self.n_levels - 1}, got {upto}")
        if seconds is not None and seconds.shape[0] != count:
            raise ValueError(f"{count} sentences but room for {seconds.shape[0]} times")
        if gold is not None and len(gold) != count:
            raise ValueError(f"{count} sentences but {len(gold)} gold trees")
        if stats is not None and stats.table.shape[0] != self.n_levels:
            raise ValueError(f"stats for {stats.table.shape[0]} levels, the cascade has {self.n_levels}")
        lengths = np.array([scorer.length(i) for i in range(count)], dtype=np.int64) + 1
        if count:
            i = int(np.argmax(lengths))
            needed = workspace_bytes(lengths[i], self.n_levels)
            if needed > get_memory_limit():
                raise KernelSizeError(
                    f"sentence {i}: its {lengths[i] - 1:,} words need about {needed / 2**20:,.0f} MiB of cascade "
                    f"buffers, over the memory limit of {get_memory_limit() / 2**20:,.0f} MiB (raise it with "
                    f"vineparse.kernels.set_memory_limit, or split the sentence)")
        golds = None
        if gold is not None:
            golds = [np.ascontiguousarray(g, dtype=np.int64) for g in gold]
            for i in range(count):
                if golds[i].shape != (lengths[i],) or (lengths[i] > 1 and (golds[i][1:].min() < 0
                                                                            or golds[i][1:].max() >= lengths[i])):
                    raise ValueError(f"sentence {i}: gold heads must be {lengths[i]} positions in 0..{lengths[i] - 1}")
        sizes = lengths * lengths if upto >= 0 else lengths
        starts = np.concatenate([[0], np.cumsum(sizes)])
        flat = np.empty(max(int(starts[count]), 1), dtype=np.uint8 if upto >= 0 else np.int64)
        jobs = np.zeros(max(count, 1) * sizeof(SentenceJob), dtype=np.uint8)
        statuses = np.zeros(max(count, 1), dtype=np.intc)
        cdef SentenceJob* job
        cdef uint8_t[::1] job_bytes = jobs
        cdef int[::1] status_view = statuses
        cdef uint8_t[::1] flat_masks
        cdef int64_t[::1] flat_heads
        cdef const int64_t[::1] g
        cdef Workspace stats_of
        job = <SentenceJob*>&job_bytes[0]
        if upto >= 0:
            flat_masks = flat
        else:
            flat_heads = flat
        for i in range(count):
            job[i].runtime = <void*>self
            job[i].scorer = <void*>scorer
            job[i].i = i
            job[i].upto = upto
            job[i].gold = NULL
            if golds is not None:
                g = golds[i]
                job[i].gold = &g[0]
            if upto >= 0:
                job[i].mask = &flat_masks[starts[i]]
            else:
                job[i].heads = &flat_heads[starts[i]]
        while len(self._workspaces) < threads:
            self._workspaces.append(Workspace())
        workspaces = self._workspaces[:threads]
        for worker in workspaces:
            memset(&(<Workspace>worker).stats[0], 0, sizeof((<Workspace>worker).stats))
        for t in range(threads):
            pointers[t] = <void*>workspaces[t]
        if count:
            with nogil:
                run_jobs(sentence_job, pointers, threads, <char*>job, sizeof(SentenceJob), count, &status_view[0])
        for i in range(count):
            if status_view[i] != STATUS_OK:
                _raise(status_view[i], i, workspaces)
        if seconds is not None:
            for i in range(count):
                seconds[i] = job[i].seconds
        if stats is not None:
            for worker in workspaces:
                stats_of = <Workspace>worker
                np.asarray(stats.table)[:] += np.asarray(<double[:self.n_levels, :STATS]>&stats_of.stats[0])
            stats.sentences += count
        if upto >= 0:
            return [flat[starts[i]:starts[i + 1]].reshape(lengths[i], lengths[i]).view(np.bool_)
                    for i in range(count)]
        return [flat[starts[i]:starts[i + 1]] for i in range(count)]


def workspace_bytes(Py_ssize_t N, Py_ssize_t levels):
    """What a workspace holds for a sentence of N - 1 words, before the grammars' own charts: the dense
    masks, scores, max-marginals, arc flags and cached arc scores of every level."""
    return N * N * (3 + 1 + 1 + 8 + 8 + 8 * levels) + N * (2 * 16 + 16)


def _raise(int status, Py_ssize_t i, workspaces):
    if status == STATUS_NO_STRUCTURE:
        from ..kernels import NoStructureError
        raise NoStructureError(f"sentence {i}: the cascade's masks admit no tree")
    if status == SCORER_FAILED:
        raise MemoryError(f"sentence {i}: the scorer could not allocate its buffers")
    try:
        check_status(status, max((<Workspace>w).bytes_needed() for w in workspaces), "the cascade's dynamic program")
    except Exception as error:
        error.args = (f"sentence {i}: {error.args[0]}",) + error.args[1:]
        raise
    raise RuntimeError(f"sentence {i}: the cascade failed with status {status}")
