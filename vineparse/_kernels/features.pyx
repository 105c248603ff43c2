# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Hashed sparse features of dependency parts, in the style of McDonald et al.
(2005) and Koo & Collins (2010), scored and updated without materialising
feature vectors.

A sentence is a uint64 array `tokens` of shape (n + 1, 4) (row 0 is the root
token) holding hashes of each token's word form, tag, coarse tag and word
prefix (columns WORD, TAG, COARSE, PREFIX). A part is a row
of small ints: an arc (h, m), an outer arc (m, side) of the vine, a sibling
part (h, s, m) (s == h: m is the first child on its side), a grandparent part
(g, h, m) or a grand-sibling part (g, h, s, m). Each part kind has one
function that writes the indices of its features into a buffer; scoring sums
weights at those indices and updating adds a step to them, so the templates
are written once for both.

Every template is emitted twice: alone, and conjoined with the direction and
a distance bucket of the arc (1, 2, 3, 4, 5, 6-10, 11+). A feature index is a
64-bit mix of a template id and its values, masked to the weight vector's
power-of-two size. Cost: O(1) templates per part, plus one per distinct tag
between head and modifier for arcs (so O(|h - m|) for long arcs).
"""
import numpy as np
from libc.stdlib cimport free, malloc
from libc.stdint cimport uint64_t, int64_t
from libc.string cimport memset

ctypedef fused weight_t:     # weight vectors: float64 while training, float32 when compacted
    float
    double

cdef enum:
    MAX_FEATURES = 512
    TABLE = 512             # >= MAX_FEATURES: at most MAX_FEATURES / 2 distinct tags are ever inserted
                            # (each takes two feature slots), so the probe always finds a free slot

cpdef enum PartKind:      # also visible from Python
    ARC = 0
    OUTER = 1
    SIBLING = 2
    GRANDPARENT = 3
    GRAND_SIBLING = 4

cdef enum:
    WORD = 0
    TAG = 1
    COARSE = 2
    PREFIX = 3
    COLUMNS = 4

cdef uint64_t BOS = 0x5bd1e9955bd1e995ULL      # tag/word before the sentence
cdef uint64_t EOS = 0x27d4eb2f165667c5ULL      # after it
cdef uint64_t NONE = 0x165667b19e3779f9ULL     # "no sibling" marker


cdef inline uint64_t mix(uint64_t a, uint64_t b) noexcept nogil:
    cdef uint64_t x = (a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2))) * 0xBF58476D1CE4E5B9ULL
    x ^= x >> 31
    return x


cdef inline uint64_t at(const uint64_t* tokens, Py_ssize_t i, int column, Py_ssize_t n) noexcept nogil:
    """Column `column` of token i; BOS/EOS outside the sentence."""
    if i < 0:
        return BOS
    if i > n:
        return EOS
    return tokens[i * COLUMNS + column]


cdef inline int64_t bucket(Py_ssize_t d) noexcept nogil:
    if d < 0:
        d = -d
    if d <= 5:
        return d
    if d <= 10:
        return 6
    return 7


cdef struct Emitter:
    uint64_t* out
    int k
    uint64_t context        # direction and distance of the part, for the conjoined copy


cdef inline void emit(Emitter* e, uint64_t feature) noexcept nogil:
    if e.k + 2 <= MAX_FEATURES:
        e.out[e.k] = feature
        e.out[e.k + 1] = mix(feature, e.context)
        e.k += 2


cdef inline uint64_t f2(uint64_t t, uint64_t a) noexcept nogil:
    return mix(t * 0x100000001B3ULL, a)


cdef inline uint64_t f3(uint64_t t, uint64_t a, uint64_t b) noexcept nogil:
    return mix(f2(t, a), b)


cdef inline uint64_t f4(uint64_t t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    return mix(f3(t, a, b), c)


cdef inline uint64_t f5(uint64_t t, uint64_t a, uint64_t b, uint64_t c, uint64_t d) noexcept nogil:
    return mix(f4(t, a, b, c), d)


cdef int arc_features(const uint64_t* x, Py_ssize_t n, Py_ssize_t h, Py_ssize_t m, uint64_t* out) noexcept nogil:
    cdef Emitter e
    cdef uint64_t hw = at(x, h, WORD, n), ht = at(x, h, TAG, n), hc = at(x, h, COARSE, n)
    cdef uint64_t mw = at(x, m, WORD, n), mt = at(x, m, TAG, n), mc = at(x, m, COARSE, n)
    cdef uint64_t hp = at(x, h, PREFIX, n), mp = at(x, m, PREFIX, n)
    cdef uint64_t hl = at(x, h - 1, TAG, n), hr = at(x, h + 1, TAG, n)
    cdef uint64_t ml = at(x, m - 1, TAG, n), mr = at(x, m + 1, TAG, n)
    cdef Py_ssize_t lo = h if h < m else m, hi = m if h < m else h, b, c
    cdef uint64_t tb
    cdef bint seen
    cdef uint64_t table[TABLE]
    cdef unsigned char used[TABLE]
    e.out, e.k = out, 0
    e.context = f3(1, <uint64_t>(h < m), <uint64_t>bucket(m - h))
    emit(&e, f3(10, hw, ht)); emit(&e, f2(11, hw)); emit(&e, f2(12, ht))
    emit(&e, f3(13, mw, mt)); emit(&e, f2(14, mw)); emit(&e, f2(15, mt))
    emit(&e, f5(16, hw, ht, mw, mt)); emit(&e, f4(17, ht, mw, mt)); emit(&e, f4(18, hw, mw, mt))
    emit(&e, f4(19, hw, ht, mt)); emit(&e, f4(20, hw, ht, mw)); emit(&e, f3(21, hw, mw))
    emit(&e, f3(22, ht, mt))
    emit(&e, f5(23, ht, hr, ml, mt)); emit(&e, f5(24, hl, ht, ml, mt))
    emit(&e, f5(25, ht, hr, mt, mr)); emit(&e, f5(26, hl, ht, mt, mr))
    emit(&e, f3(28, hc, mc)); emit(&e, f3(29, hw, mc)); emit(&e, f3(30, hc, mw))
    emit(&e, f3(31, hp, mt)); emit(&e, f3(32, ht, mp)); emit(&e, f3(33, hp, mp))
    emit(&e, f4(34, hp, ht, mt)); emit(&e, f4(35, ht, mp, mt))
    if h == 0:
        return e.k
    if hi - lo <= 9:
        for b in range(lo + 1, hi):               # each distinct tag between head and modifier
            tb = at(x, b, TAG, n)
            seen = False
            for c in range(lo + 1, b):
                if at(x, c, TAG, n) == tb:
                    seen = True
                    break
            if not seen:
                emit(&e, f4(27, ht, tb, mt))
    else:                                         # the same with a small open-addressing set
        memset(used, 0, sizeof(used))
        for b in range(lo + 1, hi):
            if e.k + 2 > MAX_FEATURES:            # full: no more tags can be emitted (bounds the set)
                break
            tb = at(x, b, TAG, n)
            c = (tb ^ (tb >> 29)) & (TABLE - 1)
            while used[c] and table[c] != tb:
                c = (c + 1) & (TABLE - 1)
            if not used[c]:
                used[c] = 1
                table[c] = tb
                emit(&e, f4(27, ht, tb, mt))
    return e.k


cdef int outer_features(const uint64_t* x, Py_ssize_t n, Py_ssize_t m, Py_ssize_t side,
                        uint64_t* out) noexcept nogil:
    cdef Emitter e
    cdef uint64_t mw = at(x, m, WORD, n), mt = at(x, m, TAG, n), mc = at(x, m, COARSE, n)
    cdef uint64_t ml = at(x, m - 1, TAG, n), mr = at(x, m + 1, TAG, n)
    e.out, e.k = out, 0
    e.context = f3(2, <uint64_t>side, <uint64_t>bucket(m if side == 0 else n - m))
    emit(&e, f3(40, side, mt)); emit(&e, f3(41, side, mw)); emit(&e, f4(42, side, mw, mt))
    emit(&e, f4(43, side, ml, mt)); emit(&e, f4(44, side, mt, mr)); emit(&e, f5(45, side, ml, mt, mr))
    emit(&e, f3(46, side, mc)); emit(&e, f3(47, side, at(x, m, PREFIX, n)))
    return e.k


cdef int sibling_features(const uint64_t* x, Py_ssize_t n, Py_ssize_t h, Py_ssize_t s, Py_ssize_t m,
                          uint64_t* out) noexcept nogil:
    cdef Emitter e
    cdef uint64_t ht = at(x, h, TAG, n), mw = at(x, m, WORD, n), mt = at(x, m, TAG, n)
    cdef uint64_t sw = NONE if s == h else at(x, s, WORD, n), st = NONE if s == h else at(x, s, TAG, n)
    cdef uint64_t sc = NONE if s == h else at(x, s, COARSE, n)
    e.out, e.k = out, 0
    e.context = f3(3, <uint64_t>(h < m), <uint64_t>bucket(m - s))
    emit(&e, f3(50, st, mt)); emit(&e, f3(51, sw, mw)); emit(&e, f3(52, sw, mt))
    emit(&e, f3(53, st, mw)); emit(&e, f4(54, ht, st, mt)); emit(&e, f4(55, at(x, h, WORD, n), st, mt))
    emit(&e, f4(56, at(x, h, COARSE, n), sc, at(x, m, COARSE, n)))
    return e.k


cdef int grandparent_features(const uint64_t* x, Py_ssize_t n, Py_ssize_t g, Py_ssize_t h, Py_ssize_t m,
                              uint64_t* out) noexcept nogil:
    cdef Emitter e
    cdef uint64_t gt = at(x, g, TAG, n), ht = at(x, h, TAG, n), mt = at(x, m, TAG, n)
    e.out, e.k = out, 0
    e.context = f3(4, <uint64_t>(g < h), <uint64_t>(h < m))
    emit(&e, f4(60, gt, ht, mt)); emit(&e, f3(61, gt, mt)); emit(&e, f3(62, at(x, g, WORD, n), mt))
    emit(&e, f3(63, gt, at(x, m, WORD, n))); emit(&e, f4(64, at(x, g, WORD, n), ht, mt))
    emit(&e, f4(65, gt, at(x, h, WORD, n), mt))
    emit(&e, f4(66, at(x, g, COARSE, n), at(x, h, COARSE, n), at(x, m, COARSE, n)))
    return e.k


cdef int grand_sibling_features(const uint64_t* x, Py_ssize_t n, Py_ssize_t g, Py_ssize_t h, Py_ssize_t s,
                                Py_ssize_t m, uint64_t* out) noexcept nogil:
    cdef Emitter e
    cdef uint64_t gt = at(x, g, TAG, n), ht = at(x, h, TAG, n), mt = at(x, m, TAG, n)
    cdef uint64_t st = NONE if s == h else at(x, s, TAG, n), sw = NONE if s == h else at(x, s, WORD, n)
    e.out, e.k = out, 0
    e.context = f3(5, <uint64_t>(g < h), <uint64_t>(h < m))
    emit(&e, f5(70, gt, ht, st, mt)); emit(&e, f4(71, gt, st, mt)); emit(&e, f4(72, at(x, g, WORD, n), st, mt))
    emit(&e, f4(73, gt, sw, mt)); emit(&e, f4(74, gt, st, at(x, m, WORD, n)))
    return e.k


cdef int part_features(int kind, const uint64_t* x, Py_ssize_t n, const int64_t* part,
                       uint64_t* out) noexcept nogil:
    if kind == ARC:
        return arc_features(x, n, part[0], part[1], out)
    if kind == OUTER:
        return outer_features(x, n, part[0], part[1], out)
    if kind == SIBLING:
        return sibling_features(x, n, part[0], part[1], part[2], out)
    if kind == GRANDPARENT:
        return grandparent_features(x, n, part[0], part[1], part[2], out)
    return grand_sibling_features(x, n, part[0], part[1], part[2], part[3], out)


cdef Py_ssize_t part_width(int kind) except -1:
    if kind in (ARC, OUTER):
        return 2
    if kind in (SIBLING, GRANDPARENT):
        return 3
    if kind == GRAND_SIBLING:
        return 4
    raise ValueError(f"unknown part kind {kind}")


cdef int _check(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts, Py_ssize_t size) except -1:
    """Shapes, the part positions (in one C pass) and the table size."""
    cdef Py_ssize_t width = part_width(kind), p, j, last = tokens.shape[0] - 1
    cdef bint outside = False
    if tokens.shape[1] != COLUMNS or tokens.shape[0] < 1:
        raise ValueError(f"tokens must have shape (n + 1, {COLUMNS}), got {(tokens.shape[0], tokens.shape[1])}")
    if parts.shape[1] != width:
        raise ValueError(f"parts of kind {kind} must have shape (P, {width}), got {(parts.shape[0], parts.shape[1])}")
    with nogil:
        for p in range(parts.shape[0]):
            for j in range(width):
                outside |= parts[p, j] < 0 or parts[p, j] > last
    if outside:
        raise ValueError(f"parts refer to positions outside 0..{last}")
    if size < 1 or size & (size - 1):
        raise ValueError(f"the weight vector's length must be a power of two, got {size}")
    return 0


cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil


cdef enum:
    BLOCK_FEATURES = 4096   # feature indices held per block (two blocks in flight)


cdef Py_ssize_t fill_block(int kind, const uint64_t* x, Py_ssize_t n, const int64_t* parts,
                           Py_ssize_t width, Py_ssize_t p, Py_ssize_t end, uint64_t size_mask,
                           const void* weights, Py_ssize_t itemsize, uint64_t* indices,
                           int* counts) noexcept nogil:
    """Feature indices (masked) of parts p, p + 1, ... into `indices`, `counts[i]` per part,
    prefetching each weight; stops at `end` or when another part might not fit.
    RETURNS: the first part not taken."""
    cdef Py_ssize_t used = 0, i = 0, j, k
    while p < end and used + MAX_FEATURES <= BLOCK_FEATURES:
        k = part_features(kind, x, n, &parts[p * width], &indices[used])
        for j in range(used, used + k):
            indices[j] &= size_mask
            __builtin_prefetch(<const char*>weights + indices[j] * itemsize)
        counts[i] = <int>k
        used += k
        i += 1
        p += 1
    return p


def score_parts(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts,
                const weight_t[::1] weights):
    """Scores of `parts` (P, width) int64 under `weights` (2^k,) float64 or float32
    (summed in float64).

    The weight reads are random (hashed features in a large table), so they are
    software-pipelined: the feature indices of a block of parts are computed and
    their weights prefetched while the previous block's weights are summed.
    RETURNS (np.ndarray): float64 (P,).
    """
    _check(kind, tokens, parts, weights.shape[0])
    cdef Py_ssize_t P = parts.shape[0], width = parts.shape[1], n = tokens.shape[0] - 1
    cdef Py_ssize_t start, stop, following, p, j, used
    cdef uint64_t size_mask = weights.shape[0] - 1
    cdef double total
    result = np.empty(P)
    cdef double[::1] out = result
    if P == 0:
        return result
    # two blocks of feature indices and per-part counts (one filled while the other is summed)
    cdef uint64_t* indices = <uint64_t*> malloc(2 * BLOCK_FEATURES * sizeof(uint64_t))
    cdef int* counts = <int*> malloc(2 * (BLOCK_FEATURES // 2 + 1) * sizeof(int))
    cdef Py_ssize_t stride = BLOCK_FEATURES // 2 + 1
    cdef int block = 0
    if indices == NULL or counts == NULL:
        free(indices)
        free(counts)
        raise MemoryError()
    with nogil:
        start = 0
        stop = fill_block(kind, &tokens[0, 0], n, &parts[0, 0], width, 0, P, size_mask,
                          &weights[0], sizeof(weight_t), indices, counts)
        while start < P:
            following = stop
            if stop < P:
                following = fill_block(kind, &tokens[0, 0], n, &parts[0, 0], width, stop, P, size_mask,
                                       &weights[0], sizeof(weight_t), indices + (1 - block) * BLOCK_FEATURES,
                                       counts + (1 - block) * stride)
            used = block * BLOCK_FEATURES
            for p in range(start, stop):
                total = 0.0
                for j in range(used, used + counts[block * stride + p - start]):
                    total += weights[indices[j]]
                used += counts[block * stride + p - start]
                out[p] = total
            start, stop = stop, following
            block = 1 - block
    free(indices)
    free(counts)
    return result


def update_parts(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts,
                 double[::1] weights, double step, double[::1] totals=None, double timestamp=0.0):
    """Add `step` to the weight of every feature of every part (repeats count).

    For an averaged perceptron pass `totals` (same length as weights) and the
    current update count: totals accumulates timestamp * step, so that the
    average of the weight vectors over time is weights - totals / timestamp.
    """
    _check(kind, tokens, parts, weights.shape[0])
    if totals is not None and totals.shape[0] != weights.shape[0]:
        raise ValueError("totals and weights differ in length")
    cdef Py_ssize_t p, j, k, n = tokens.shape[0] - 1
    cdef uint64_t size_mask = weights.shape[0] - 1, i
    cdef uint64_t buf[MAX_FEATURES]
    cdef bint averaged = totals is not None
    if parts.shape[0] == 0:
        return
    with nogil:
        for p in range(parts.shape[0]):
            k = part_features(kind, &tokens[0, 0], n, &parts[p, 0], buf)
            for j in range(k):
                i = buf[j] & size_mask
                weights[i] += step
                if averaged:
                    totals[i] += timestamp * step


def feature_indices(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts, Py_ssize_t size):
    """The feature indices (mod `size`) of each part, for tests and inspection.

    RETURNS (list of np.ndarray): one uint64 array per part.
    """
    flat, counts = all_feature_indices(kind, tokens, parts, size)
    return np.split(flat, np.cumsum(counts)[:-1]) if len(counts) else []


def all_feature_indices(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts, Py_ssize_t size):
    """The feature indices (mod `size`) of the parts, all in one array, and the number of each part's.

    RETURNS (Tuple[np.ndarray, np.ndarray]): uint64 (total,) and int64 (P,).
    """
    _check(kind, tokens, parts, size)
    cdef Py_ssize_t p, j, k, used = 0, n = tokens.shape[0] - 1
    flat = np.empty(parts.shape[0] * MAX_FEATURES, dtype=np.uint64)
    counts = np.empty(parts.shape[0], dtype=np.int64)
    cdef uint64_t[::1] out = flat
    cdef int64_t[::1] count = counts
    cdef uint64_t size_mask = <uint64_t>(size - 1)
    with nogil:
        for p in range(parts.shape[0]):
            k = part_features(kind, &tokens[0, 0], n, &parts[p, 0], &out[used])
            for j in range(used, used + k):
                out[j] &= size_mask
            count[p] = k
            used += k
    return flat[:used], counts
