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
power-of-two size. A sentence's per-token tables (`SentenceFeatures`, see
features.pxd) are built once in O(n); then a part costs O(1) templates, plus
one per distinct tag between head and modifier for arcs (O(|h - m|) for long
arcs; at most (MAX_FEATURES - 50) / 2 = 231 such tags are used, the first ones).
"""
import numpy as np
from libc.stdlib cimport free, malloc
from libc.stdint cimport uint64_t, int64_t

from .hashing cimport COARSE, PREFIX, TAG, WORD, bucket

ctypedef fused weight_t:     # weight vectors: float64 while training, float32 when compacted
    float
    double

cdef uint64_t BOS = 0x5bd1e9955bd1e995ULL      # tag/word before the sentence
cdef uint64_t EOS = 0x27d4eb2f165667c5ULL      # after it
cdef uint64_t NONE = 0x165667b19e3779f9ULL     # "no sibling" marker


cdef inline uint64_t mix(uint64_t a, uint64_t b) noexcept nogil:
    """The part features' own mixer (a shorter finish than `hashing.mix`): saved sparse models index their
    weights by it, so it stays as it is."""
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


# The arc templates. Each is hashed as a chain f(id, head values..., modifier values...), so the chain
# over the head's values is computed once per token (`head` slots) and an arc continues it with the
# modifier's values; the three templates made of the modifier alone are per-token values (`mod` slots).
# Slot order: templates 10, 11, 12, 16-26, 27 (the between-tag prefix) and 28-35.

cdef inline void token_prefixes(const uint64_t* x, Py_ssize_t n, Py_ssize_t i, uint64_t* head,
                                uint64_t* mod) noexcept nogil:
    cdef uint64_t w = at(x, i, WORD, n), t = at(x, i, TAG, n), c = at(x, i, COARSE, n)
    cdef uint64_t p = at(x, i, PREFIX, n), l = at(x, i - 1, TAG, n), r = at(x, i + 1, TAG, n)
    head[0] = f3(10, w, t); head[1] = f2(11, w); head[2] = f2(12, t)
    head[3] = f3(16, w, t); head[4] = f2(17, t); head[5] = f2(18, w); head[6] = f3(19, w, t)
    head[7] = f3(20, w, t); head[8] = f2(21, w); head[9] = f2(22, t)
    head[10] = f3(23, t, r); head[11] = f3(24, l, t); head[12] = f3(25, t, r); head[13] = f3(26, l, t)
    head[14] = f2(27, t)
    head[15] = f2(28, c); head[16] = f2(29, w); head[17] = f2(30, c); head[18] = f2(31, p)
    head[19] = f2(32, t); head[20] = f2(33, p); head[21] = f3(34, p, t); head[22] = f2(35, t)
    mod[0] = f3(13, w, t); mod[1] = f2(14, w); mod[2] = f2(15, t)


cdef void sentence_init(SentenceFeatures* s) noexcept nogil:
    s.n = -1
    s.capacity = 0
    s.tokens = NULL
    s.head = NULL
    s.mod = NULL
    s.previous_tag = NULL


cdef void sentence_free(SentenceFeatures* s) noexcept nogil:
    free(s.head)
    free(s.mod)
    free(s.previous_tag)
    sentence_init(s)


cdef int sentence_set(SentenceFeatures* s, const uint64_t* tokens, Py_ssize_t n) noexcept nogil:
    """Point `s` at a sentence of n words and fill its per-token tables: O(n) expected time.
    RETURNS: 0, or -1 when memory runs out (then `s` holds no sentence)."""
    cdef Py_ssize_t i, size, slot
    cdef uint64_t* grown
    cdef int* table
    cdef uint64_t tag
    if n + 1 > s.capacity:
        sentence_free(s)
        s.head = <uint64_t*>malloc((n + 1) * HEAD_SLOTS * sizeof(uint64_t))
        s.mod = <uint64_t*>malloc((n + 1) * MOD_SLOTS * sizeof(uint64_t))
        s.previous_tag = <int*>malloc((n + 1) * sizeof(int))
        if s.head == NULL or s.mod == NULL or s.previous_tag == NULL:
            sentence_free(s)
            return -1
        s.capacity = n + 1
    s.n = n
    s.tokens = tokens
    for i in range(n + 1):
        token_prefixes(tokens, n, i, &s.head[i * HEAD_SLOTS], &s.mod[i * MOD_SLOTS])
    # previous_tag by an open-addressing table of positions keyed by tag (at most half full)
    size = 16
    while size < 2 * (n + 1):
        size *= 2
    table = <int*>malloc(size * sizeof(int))
    if table == NULL:
        s.n = -1
        return -1
    for i in range(size):
        table[i] = -1
    for i in range(n + 1):
        tag = tokens[i * COLUMNS + TAG]
        slot = <Py_ssize_t>(mix(tag, 0x2545F4914F6CDD1DULL) & <uint64_t>(size - 1))
        while table[slot] >= 0 and tokens[table[slot] * COLUMNS + TAG] != tag:
            slot = (slot + 1) & (size - 1)
        s.previous_tag[i] = table[slot]
        table[slot] = <int>i
    free(table)
    return 0


cdef int arc_features(const SentenceFeatures* s, Py_ssize_t h, Py_ssize_t m, uint64_t* out) noexcept nogil:
    """The feature indices of arc h -> m (1 <= m <= n, h != m): 50, plus 2 per distinct tag strictly
    between h and m (a tag is counted at its first position after the span start)."""
    cdef Emitter e
    cdef const uint64_t* x = s.tokens
    cdef Py_ssize_t n = s.n, lo = h if h < m else m, hi = m if h < m else h, b
    cdef const uint64_t* H = &s.head[h * HEAD_SLOTS]
    cdef const uint64_t* M = &s.mod[m * MOD_SLOTS]
    cdef uint64_t mw = at(x, m, WORD, n), mt = at(x, m, TAG, n), mc = at(x, m, COARSE, n)
    cdef uint64_t mp = at(x, m, PREFIX, n), ml = at(x, m - 1, TAG, n), mr = at(x, m + 1, TAG, n)
    e.out, e.k = out, 0
    e.context = f3(1, <uint64_t>(h < m), <uint64_t>bucket(m - h))
    emit(&e, H[0]); emit(&e, H[1]); emit(&e, H[2])
    emit(&e, M[0]); emit(&e, M[1]); emit(&e, M[2])
    emit(&e, mix(mix(H[3], mw), mt)); emit(&e, mix(mix(H[4], mw), mt)); emit(&e, mix(mix(H[5], mw), mt))
    emit(&e, mix(H[6], mt)); emit(&e, mix(H[7], mw)); emit(&e, mix(H[8], mw))
    emit(&e, mix(H[9], mt))
    emit(&e, mix(mix(H[10], ml), mt)); emit(&e, mix(mix(H[11], ml), mt))
    emit(&e, mix(mix(H[12], mt), mr)); emit(&e, mix(mix(H[13], mt), mr))
    emit(&e, mix(H[15], mc)); emit(&e, mix(H[16], mc)); emit(&e, mix(H[17], mw))
    emit(&e, mix(H[18], mt)); emit(&e, mix(H[19], mp)); emit(&e, mix(H[20], mp))
    emit(&e, mix(H[21], mt)); emit(&e, mix(mix(H[22], mp), mt))
    if h == 0:
        return e.k
    for b in range(lo + 1, hi):                   # each distinct tag between head and modifier, once
        if s.previous_tag[b] <= lo:
            emit(&e, mix(mix(H[14], x[b * COLUMNS + TAG]), mt))
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


cdef int part_width(int kind) noexcept nogil:
    """Positions per part of `kind`, or -1 for an unknown kind."""
    if kind == ARC or kind == OUTER:
        return 2
    if kind == SIBLING or kind == GRANDPARENT:
        return 3
    if kind == GRAND_SIBLING:
        return 4
    return -1


cdef int part_features(const SentenceFeatures* s, int kind, const int64_t* part, uint64_t* out) noexcept nogil:
    """The raw feature indices of one part of `kind` (a row of part_width(kind) positions) into `out`
    (room for MAX_FEATURES); RETURNS their number."""
    cdef const uint64_t* x = s.tokens
    if kind == ARC:
        return arc_features(s, part[0], part[1], out)
    if kind == OUTER:
        return outer_features(x, s.n, part[0], part[1], out)
    if kind == SIBLING:
        return sibling_features(x, s.n, part[0], part[1], part[2], out)
    if kind == GRANDPARENT:
        return grandparent_features(x, s.n, part[0], part[1], part[2], out)
    return grand_sibling_features(x, s.n, part[0], part[1], part[2], part[3], out)


cdef class _Sentence:
    """A sentence's feature tables for one Python-level call (checked input)."""
    cdef SentenceFeatures s
    cdef const uint64_t[:, ::1] tokens

    def __cinit__(self):
        sentence_init(&self.s)

    def __dealloc__(self):
        sentence_free(&self.s)


cdef _Sentence _sentence(int kind, const uint64_t[:, ::1] tokens, const int64_t[:, ::1] parts, Py_ssize_t size):
    """Check shapes, the part positions (in one C pass) and the table size; build the sentence's tables."""
    cdef Py_ssize_t width = part_width(kind), p, j, last = tokens.shape[0] - 1
    cdef bint outside = False
    cdef _Sentence sentence
    if width < 0:
        raise ValueError(f"unknown part kind {kind}")
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
    sentence = _Sentence()
    sentence.tokens = tokens
    if sentence_set(&sentence.s, &tokens[0, 0], last) < 0:
        raise MemoryError()
    return sentence


cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil


cdef enum:
    BLOCK_FEATURES = 4096   # feature indices held per block (two blocks in flight)


cdef Py_ssize_t fill_block(const SentenceFeatures* s, int kind, const int64_t* parts, Py_ssize_t width,
                           Py_ssize_t p, Py_ssize_t end, uint64_t size_mask, const void* weights,
                           Py_ssize_t itemsize, uint64_t* indices, int* counts) noexcept nogil:
    """Feature indices (masked) of parts p, p + 1, ... into `indices`, `counts[i]` per part,
    prefetching each weight; stops at `end` or when another part might not fit.
    RETURNS: the first part not taken."""
    cdef Py_ssize_t used = 0, i = 0, j, k
    while p < end and used + MAX_FEATURES <= BLOCK_FEATURES:
        k = part_features(s, kind, &parts[p * width], &indices[used])
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
    cdef _Sentence sentence = _sentence(kind, tokens, parts, weights.shape[0])
    cdef const SentenceFeatures* s = &sentence.s
    cdef Py_ssize_t P = parts.shape[0], width = parts.shape[1]
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
        stop = fill_block(s, kind, &parts[0, 0], width, 0, P, size_mask, &weights[0], sizeof(weight_t),
                          indices, counts)
        while start < P:
            following = stop
            if stop < P:
                following = fill_block(s, kind, &parts[0, 0], width, stop, P, size_mask, &weights[0],
                                       sizeof(weight_t), indices + (1 - block) * BLOCK_FEATURES,
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
    cdef _Sentence sentence = _sentence(kind, tokens, parts, weights.shape[0])
    if totals is not None and totals.shape[0] != weights.shape[0]:
        raise ValueError("totals and weights differ in length")
    cdef Py_ssize_t p, j, k
    cdef uint64_t size_mask = weights.shape[0] - 1, i
    cdef uint64_t buf[MAX_FEATURES]
    cdef bint averaged = totals is not None
    if parts.shape[0] == 0:
        return
    with nogil:
        for p in range(parts.shape[0]):
            k = part_features(&sentence.s, kind, &parts[p, 0], buf)
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
    cdef _Sentence sentence = _sentence(kind, tokens, parts, size)
    cdef Py_ssize_t p, j, k, used = 0
    flat = np.empty(parts.shape[0] * MAX_FEATURES, dtype=np.uint64)
    counts = np.empty(parts.shape[0], dtype=np.int64)
    cdef uint64_t[::1] out = flat
    cdef int64_t[::1] count = counts
    cdef uint64_t size_mask = <uint64_t>(size - 1)
    with nogil:
        for p in range(parts.shape[0]):
            k = part_features(&sentence.s, kind, &parts[p, 0], &out[used])
            for j in range(used, used + k):
                out[j] &= size_mask
            count[p] = k
            used += k
    return flat[:used], counts
