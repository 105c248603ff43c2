# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Weighted inversion transduction grammars over bispans, as hypergraphs.

Bitext parsing with an ITG (Wu 1997): a derivation of a sentence pair (source
p words, target q words) is a tree of bispans [i, j) x [k, l) whose leaves emit
a word pair, or one word against nothing (a null emission), and whose inner
nodes join adjacent bispans in the same order on both sides (straight) or in
opposite orders (inverted). With `ternary`, rules of branching factor 3 join
three bispans under any of the 6 permutations (the higher-degree setting of
Bouchard-Côté, Petrov & Klein, NIPS 2009, "Randomized pruning: efficiently
calculating expectations in large dynamic programs").

Bispans: both sides non-empty, or a null terminal [i, i+1) x [k, k) (source word
i aligned to nothing) or [i, i) x [k, k+1). Null terminals attach by straight
rules only (their orientation would say nothing). Rule kinds, each with a rule
weight and a weight on its split mismatch

    mismatch = 1/2 * sum over children c of | src_len(c) / src_len(parent) - tgt_len(c) / tgt_len(parent) |

(0 when the children take proportional shares of both sides):

    0 STRAIGHT  X[i,j,k,l] <- X[i,m,k,n] X[m,j,n,l]      both children non-null
    1 INVERTED  X[i,j,k,l] <- X[i,m,n,l] X[m,j,k,n]      both children non-null
    2 ATTACH    straight, one child a null terminal        (mismatch 0)
    3 + r       ternary, permutation r of PERMS: source child s takes target segment PERMS[r][s]

Items: 0 the unit; E[i, k] the emission of the pair (i, k), one edge from the
unit with its score, used only by X[i,i+1,k,k+1] (so q[E] is the link
posterior, and a sample marks E when it aligns i to k); X[b] per kept bispan.

A ternary rule is one hyperedge with three tails and a weight that depends on
all four split points (through the mismatch), so it does not binarise into
items that forget the parent: the engine's binary edges reach it through a
parent-annotated item M[b, r, o]. For every permutation one corner child (the
"outer" child o) shares a corner with the parent b on both sides; the rest of
b is then a bispan, split into the other two children straight or inverted:

    X[b] <- M[b, r, o] X[o]                                weight 0
    M[b, r, o] <- X[c1] X[c2]   over the splits of the rest   rule r's weight

Children are found through per-corner lists of kept bispans (by source width,
then target width), so a parent visits only kept children and M slots exist
only for kept outer children.

Time O(p^3 q^3) for the binary grammar and O(p^4 q^4) with ternary rules,
unpruned; memory one double per item per pass: (p+1)(p+2)/2 * (q+1)(q+2)/2
bispans at most and, with ternary rules, up to 6 (a-2)(c-2) M items (9 more
bytes each) per bispan of widths a, c >= 3. Only bispans the keep table admits
are scheduled and only kept children are joined, so the work follows the mask.
"""
import numpy as np
from libc.math cimport fabs, INFINITY
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from .hypergraph cimport Hypergraph, inside, backward
from .semiring cimport LogSemiring, SampleSemiring, vexp_inplace

KINDS = 9              # rule kinds: STRAIGHT, INVERTED, ATTACH, six ternary permutations
PERMS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))

cdef enum:
    N_KINDS = 9
    STRAIGHT = 0
    INVERTED = 1
    ATTACH = 2
    TERNARY = 3
    NO_KIND = -1
    SS = 0          # corner lists: (source start, target start),
    SE = 1          # (source start, target end),
    ES = 2          # (source end, target start),
    EE = 3          # (source end, target end)

# Per permutation: the outer child's source segment and target segment (0 = left
# corner, 2 = right corner) and whether the other two children are joined
# straight (0) or inverted (1). See the module docstring.
cdef int OUTER_SRC[6]
cdef int OUTER_TGT[6]
cdef int INNER_INV[6]
OUTER_SRC[:] = [0, 0, 2, 2, 0, 0]
OUTER_TGT[:] = [0, 0, 2, 0, 2, 2]
INNER_INV[:] = [0, 1, 1, 0, 0, 1]


cdef inline Py_ssize_t tri(Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    """Index of the span [i, j), i <= j, in the triangular layout."""
    return j * (j + 1) // 2 + i


cdef inline bint valid_bispan(Py_ssize_t a, Py_ssize_t c) noexcept nogil:
    """A bispan of source width a and target width c exists in the grammar."""
    return (a >= 1 and c >= 1) or (a == 1 and c == 0) or (a == 0 and c == 1)


def spans(Py_ssize_t n):
    """Number of spans [i, j), 0 <= i <= j <= n: the side of the keep table."""
    return (n + 1) * (n + 2) // 2


def keep_all(Py_ssize_t p, Py_ssize_t q):
    """The keep table admitting every bispan of the grammar.

    RETURNS (np.ndarray): uint8 (spans(p), spans(q)); [tri(i, j), tri(k, l)] is 1
    for a kept bispan [i, j) x [k, l). Entries of spans that do not exist are 0.
    """
    cdef unsigned char[:, ::1] keep = np.zeros((spans(p), spans(q)), dtype=np.uint8)
    cdef Py_ssize_t i, j, k, l
    for j in range(p + 1):
        for i in range(j + 1):
            for l in range(q + 1):
                for k in range(l + 1):
                    if valid_bispan(j - i, l - k):
                        keep[tri(i, j), tri(k, l)] = 1
    return np.asarray(keep)


def keep_from_mask(mask):
    """The keep table of a dense bispan mask.

    mask (np.ndarray): uint8 or bool (p+1, p+1, q+1, q+1), mask[i, j, k, l] for [i, j) x [k, l).
    RETURNS (np.ndarray): uint8 (spans(p), spans(q)), restricted to bispans of the grammar.
    """
    cdef const unsigned char[:, :, :, ::1] m = np.ascontiguousarray(mask, dtype=np.uint8)
    cdef Py_ssize_t p = m.shape[0] - 1, q = m.shape[2] - 1, i, j, k, l
    cdef unsigned char[:, ::1] keep = np.zeros((spans(p), spans(q)), dtype=np.uint8)
    for j in range(p + 1):
        for i in range(j + 1):
            for l in range(q + 1):
                for k in range(l + 1):
                    if m[i, j, k, l] and valid_bispan(j - i, l - k):
                        keep[tri(i, j), tri(k, l)] = 1
    return np.asarray(keep)


def keep_from_links(Py_ssize_t p, Py_ssize_t q, src, tgt, base=None):
    """CreateMask for positive links: keep the bispans that contain both words of
    every link or neither (Bouchard-Côté et al. 2009, section 4).

    A bispan [i, j) x [k, l) is consistent with the links iff the number of links
    with the source word inside, the number with the target word inside and the
    number with both inside agree; prefix counts make that O(1) per bispan.
    src, tgt (array of int): the links (src[x], tgt[x]), 0 <= src < p, 0 <= tgt < q.
    base (np.ndarray or None): a keep table to intersect with.
    RETURNS (np.ndarray): uint8 (spans(p), spans(q)). Time O(p^2 q^2 + links).
    """
    cdef const long[::1] s = np.ascontiguousarray(src, dtype=np.int_)
    cdef const long[::1] t = np.ascontiguousarray(tgt, dtype=np.int_)
    cdef long[::1] cs = np.zeros(p + 1, dtype=np.int_)
    cdef long[::1] ct = np.zeros(q + 1, dtype=np.int_)
    cdef long[:, ::1] cb = np.zeros((p + 1, q + 1), dtype=np.int_)
    cdef unsigned char[:, ::1] keep
    cdef Py_ssize_t x, i, j, k, l, ns, nt, nb
    if base is None:
        keep = keep_all(p, q)
    else:
        keep = np.array(base, dtype=np.uint8, copy=True, order="C")
    for x in range(s.shape[0]):
        cs[s[x] + 1] += 1
        ct[t[x] + 1] += 1
        cb[s[x] + 1, t[x] + 1] += 1
    for i in range(p):
        cs[i + 1] += cs[i]
    for k in range(q):
        ct[k + 1] += ct[k]
    for i in range(p + 1):
        for k in range(q + 1):
            if i > 0:
                cb[i, k] += cb[i - 1, k]
            if k > 0:
                cb[i, k] += cb[i, k - 1]
            if i > 0 and k > 0:
                cb[i, k] -= cb[i - 1, k - 1]
    with nogil:
        for j in range(p + 1):
            for i in range(j + 1):
                ns = cs[j] - cs[i]
                for l in range(q + 1):
                    for k in range(l + 1):
                        if keep[tri(i, j), tri(k, l)]:
                            nt = ct[l] - ct[k]
                            nb = cb[j, l] - cb[i, l] - cb[j, k] + cb[i, k]
                            if ns != nb or nt != nb:
                                keep[tri(i, j), tri(k, l)] = 0
    return np.asarray(keep)


cdef void _list_consistent(Py_ssize_t p, Py_ssize_t q, const long* by_src_lo, const long* by_src_hi,
                           const long* per_src, const long* per_tgt, const long* prev_t, const long* next_t,
                           long* at, int* out) noexcept nogil:
    """Visit the bispans consistent with the links (see `bispans_from_links`). Without `out`, count them by
    size in at[size]; with it, write each as (i, j, k, l) at row at[size] and advance at[size]."""
    cdef Py_ssize_t i, j, k, l, lo, hi, k0, l1, size, row
    for i in range(p + 1):
        lo = q
        hi = -1
        for j in range(i, p + 1):
            if j > i:
                lo = min(lo, by_src_lo[j - 1])
                hi = max(hi, by_src_hi[j - 1])
            if hi >= 0:
                # Every link with a target in [lo, hi] must have its source in [i, j).
                if per_tgt[hi + 1] - per_tgt[lo] != per_src[j] - per_src[i]:
                    continue
                k0 = prev_t[lo] + 1
                l1 = next_t[hi + 1]
            else:
                k0 = 0
                l1 = -1                     # set per k below: [k, l) must hold no link target
            for k in range(k0, (lo if hi >= 0 else q) + 1):
                for l in range(hi + 1 if hi >= 0 else k, (l1 if hi >= 0 else next_t[k]) + 1):
                    if not valid_bispan(j - i, l - k):
                        continue
                    size = j - i + l - k
                    if out == NULL:
                        at[size] += 1
                    else:
                        row = at[size]
                        at[size] += 1
                        out[4 * row] = <int>i; out[4 * row + 1] = <int>j
                        out[4 * row + 2] = <int>k; out[4 * row + 3] = <int>l


def bispans_from_links(Py_ssize_t p, Py_ssize_t q, src, tgt):
    """The bispans of the grammar consistent with positive links (as `keep_from_links` without a base keeps
    them), listed directly instead of testing every bispan.

    For a source span [i, j), let lo and hi be the first and last target word of the links whose source word
    is inside. If some link does, the consistent target spans are [k, l) with prev < k <= lo and
    hi < l <= next, where prev and next are the nearest link targets outside [lo, hi], provided every link
    with its target in [lo, hi] has its source in [i, j) (counted with prefix sums). If none does, [k, l) must
    hold no link target: it lies in a gap between consecutive link targets.
    src, tgt (array of int): the links (src[x], tgt[x]), 0 <= src < p, 0 <= tgt < q.
    RETURNS (np.ndarray): int32 (n, 4) rows (i, j, k, l), in order of size j - i + l - k (one counting pass,
        one writing pass). Time O(p^2 + p q + n), against O(p^2 q^2) for a keep table.
    """
    cdef const long[::1] s = np.ascontiguousarray(src, dtype=np.int_)
    cdef const long[::1] t = np.ascontiguousarray(tgt, dtype=np.int_)
    cdef long[::1] by_src_lo = np.full(p, q, dtype=np.int_)     # per source word: its links' first target
    cdef long[::1] by_src_hi = np.full(p, -1, dtype=np.int_)    # ... and last target
    cdef long[::1] per_src = np.zeros(p + 1, dtype=np.int_)     # prefix: links by source word
    cdef long[::1] per_tgt = np.zeros(q + 1, dtype=np.int_)     # prefix: links by target word
    cdef long[::1] prev_t = np.empty(q + 1, dtype=np.int_)      # [x]: the last link target < x, or -1
    cdef long[::1] next_t = np.empty(q + 1, dtype=np.int_)      # [x]: the first link target >= x, or q
    cdef long[::1] at = np.zeros(p + q + 2, dtype=np.int_)
    cdef Py_ssize_t x, i, k, n, size, count
    cdef int[:, ::1] out
    for x in range(s.shape[0]):
        by_src_lo[s[x]] = min(by_src_lo[s[x]], t[x])
        by_src_hi[s[x]] = max(by_src_hi[s[x]], t[x])
        per_src[s[x] + 1] += 1
        per_tgt[t[x] + 1] += 1
    for i in range(p):
        per_src[i + 1] += per_src[i]
    for k in range(q):
        per_tgt[k + 1] += per_tgt[k]
    prev_t[0] = -1
    for x in range(q):
        prev_t[x + 1] = x if per_tgt[x + 1] > per_tgt[x] else prev_t[x]
    next_t[q] = q
    for x in range(q - 1, -1, -1):
        next_t[x] = x if per_tgt[x + 1] > per_tgt[x] else next_t[x + 1]
    with nogil:
        _list_consistent(p, q, &by_src_lo[0] if p else NULL, &by_src_hi[0] if p else NULL, &per_src[0],
                         &per_tgt[0], &prev_t[0], &next_t[0], &at[0], NULL)
    n = 0
    for size in range(p + q + 2):                  # counts -> first row of each size
        count = at[size]
        at[size] = n
        n += count
    out = np.empty((max(n, 1), 4), dtype=np.int32)
    with nogil:
        _list_consistent(p, q, &by_src_lo[0] if p else NULL, &by_src_hi[0] if p else NULL, &per_src[0],
                         &per_tgt[0], &prev_t[0], &next_t[0], &at[0], &out[0, 0])
    return np.asarray(out)[:n]


cdef class BitextChart(Hypergraph):
    """The ITG hypergraph of one sentence pair under a keep table (see the module docstring).

    emit (float64 (p, q)): score of emitting the pair (i, k); -inf forbids it.
    null_src (float64 (p,)), null_tgt (float64 (q,)): scores of null emissions.
    rule_weight, mismatch_weight (float64 (9,)): per rule kind.
    keep (uint8 (spans(p), spans(q)) or None): kept bispans (keep_all, keep_from_links, keep_from_mask).
    ternary (bool): add the rules of branching factor 3.
    boxes (int32 (n, 4) or None): instead of `keep`, the kept bispans as rows (i, j, k, l) of the grammar's
        bispans, distinct and in order of size j - i + l - k (as `bispans_from_links` lists them); then the
        set-up costs O(n + p q) instead of a pass over the keep table.

    Kept bispans are also listed by corner: for each corner type (source start or end x target start or
    end), corner position and source width, the bispans there in order of target width. Children are
    found through these lists, so a parent visits only kept children (and, unpruned, no more candidates
    than its split points).
    """
    cdef readonly Py_ssize_t p, q, n_bispans, n_scheduled, n_slots
    cdef readonly bint ternary, has_root
    cdef const double[:, ::1] emit
    cdef const double[::1] null_src
    cdef const double[::1] null_tgt
    cdef double rule_w[N_KINDS]
    cdef double mis_w[N_KINDS]
    cdef Py_ssize_t Tq, base_x, base_m
    cdef int[::1] bid              # tri(i, j) * Tq + tri(k, l) -> kept bispan id, or -1
    cdef int[:, ::1] box           # kept bispan id -> (i, j, k, l), ids in order of size a + c
    cdef int[::1] corner_ptr       # corner key -> range in corner_ids
    cdef int[::1] corner_ids       # kept bispan ids, per key in order of target width
    cdef int[::1] corner_cw        # their target widths (read with the ids, to spare a lookup)
    cdef long[::1] m_start         # kept bispan id -> its first M slot (n + 1 entries)
    cdef int[::1] m_outer          # M slot -> outer child's bispan id
    cdef int[::1] m_parent         # M slot -> parent bispan id
    cdef unsigned char[::1] m_rule # M slot -> permutation r

    def __init__(self, emit, null_src, null_tgt, rule_weight, mismatch_weight, keep, bint ternary=False,
                 boxes=None):
        cdef Py_ssize_t p = emit.shape[0], q = emit.shape[1]
        cdef Py_ssize_t r
        self.p = p
        self.q = q
        self.ternary = ternary
        self.emit = emit
        self.null_src = null_src
        self.null_tgt = null_tgt
        for r in range(N_KINDS):
            self.rule_w[r] = rule_weight[r]
            self.mis_w[r] = mismatch_weight[r]
        self.Tq = spans(q)
        if keep is None:
            self._number_boxes(boxes)
        else:
            self._number(keep)
        self._corners()
        self._slots()
        self.base_x = 1 + p * q
        self.base_m = self.base_x + self.n_bispans
        self.n_items = self.base_m + self.n_slots
        if self.n_items >= 2 ** 31 - 1:
            raise ValueError(f"the chart needs {self.n_items:,} items, more than the engine's int32 ids allow")
        root = self.bid[tri(0, p) * self.Tq + tri(0, q)]
        self.has_root = root >= 0
        self.goal = self.base_x + root if root >= 0 else 0
        self.set_order(self._schedule())
        self.n_scheduled = self.n_order
        self.max_edges = 8 * (p + 1) * (q + 1) + 2

    cdef void _number(self, keep) except *:
        """Number the kept bispans by size a + c, so children come before parents."""
        cdef const unsigned char[:, ::1] kp = keep
        cdef Py_ssize_t p = self.p, q = self.q, size, a, c, i, k, n = 0, rnd
        cdef int[::1] bid = np.full(spans(p) * self.Tq, -1, dtype=np.int32)
        cdef int[:, ::1] box = np.empty((int(np.count_nonzero(keep)), 4), dtype=np.int32)
        for size in range(1, p + q + 1):
            for a in range(max(0, size - q), min(p, size) + 1):
                c = size - a
                if not valid_bispan(a, c):
                    continue
                for i in range(p - a + 1):
                    for k in range(q - c + 1):
                        if kp[tri(i, i + a), tri(k, k + c)]:
                            bid[tri(i, i + a) * self.Tq + tri(k, k + c)] = <int>n
                            box[n, 0] = <int>i; box[n, 1] = <int>(i + a)
                            box[n, 2] = <int>k; box[n, 3] = <int>(k + c)
                            n += 1
        self.bid = bid
        self.box = box[:n]
        self.n_bispans = n

    cdef void _number_boxes(self, boxes) except *:
        """Number bispans listed in order of size (ids follow the list)."""
        cdef const int[:, ::1] bx = boxes
        cdef Py_ssize_t n = bx.shape[0], b
        cdef int[::1] bid = np.full(spans(self.p) * self.Tq, -1, dtype=np.int32)
        for b in range(n):
            bid[tri(bx[b, 0], bx[b, 1]) * self.Tq + tri(bx[b, 2], bx[b, 3])] = <int>b
        self.bid = bid
        self.box = np.array(boxes, dtype=np.int32, copy=True, order="C")
        self.n_bispans = n

    cdef inline Py_ssize_t corner(self, int kind, Py_ssize_t s, Py_ssize_t t, Py_ssize_t w) noexcept nogil:
        """Key of the corner list: kind SS/SE/ES/EE, source position s, target position t, source width w."""
        return ((kind * (self.p + 1) + s) * (self.q + 1) + t) * (self.p + 1) + w

    cdef void _corners(self) except *:
        """Corner lists: a counting sort of the 4 n (key, bispan) entries by key, each key's bispans in order
        of target width (placed from the widest down, so ptr[key] ends at the key's first entry)."""
        cdef Py_ssize_t p = self.p, q = self.q, n = self.n_bispans, b, x, kind, key, c
        cdef Py_ssize_t n_keys = 4 * (p + 1) * (q + 1) * (p + 1), pos
        cdef int[:, ::1] box = self.box
        cdef int[::1] ptr = np.zeros(n_keys + 1, dtype=np.int32)
        cdef int[::1] ids = np.empty(4 * n, dtype=np.int32)
        cdef int[::1] widths = np.empty(4 * n, dtype=np.int32)
        cdef int[::1] by_width = np.empty(n, dtype=np.int32)
        cdef Py_ssize_t[::1] keys = np.empty(4 * n, dtype=np.intp)
        cdef long[::1] fill = np.zeros(q + 2, dtype=np.int_)
        with nogil:
            for b in range(n):                          # counting sort of the bispans by target width
                fill[box[b, 3] - box[b, 2] + 1] += 1
                self._keys(b, &keys[4 * b])
                for kind in range(4):
                    ptr[keys[4 * b + kind]] += 1
            for c in range(q + 1):
                fill[c + 1] += fill[c]
            for b in range(n):
                c = box[b, 3] - box[b, 2]
                by_width[fill[c]] = <int>b
                fill[c] += 1
            for key in range(n_keys - 1):
                ptr[key + 1] += ptr[key]
            ptr[n_keys] = <int>(4 * n)
            for x in range(n - 1, -1, -1):
                b = by_width[x]
                c = box[b, 3] - box[b, 2]
                for kind in range(4):
                    key = keys[4 * b + kind]
                    ptr[key] -= 1
                    pos = ptr[key]
                    ids[pos] = <int>b
                    widths[pos] = <int>c
        self.corner_ptr = ptr
        self.corner_ids = ids
        self.corner_cw = widths

    cdef void _keys(self, Py_ssize_t b, Py_ssize_t* keys) noexcept nogil:
        cdef Py_ssize_t i = self.box[b, 0], j = self.box[b, 1], k = self.box[b, 2], l = self.box[b, 3]
        keys[SS] = self.corner(SS, i, k, j - i)
        keys[SE] = self.corner(SE, i, l, j - i)
        keys[ES] = self.corner(ES, j, k, j - i)
        keys[EE] = self.corner(EE, j, l, j - i)

    cdef void _slots(self) except *:
        """Lay out the M items: one slot per (parent, permutation, kept outer child)."""
        cdef Py_ssize_t n = self.n_bispans, b, total = 0
        cdef long[::1] start = np.zeros(n + 1, dtype=np.int_)
        cdef int[::1] outer, parent
        cdef unsigned char[::1] rule
        if self.ternary:
            for b in range(n):
                start[b] = total
                total += self._outer_slots(b, NULL, NULL)
        start[n] = total
        outer = np.empty(max(total, 1), dtype=np.int32)
        parent = np.empty(max(total, 1), dtype=np.int32)
        rule = np.empty(max(total, 1), dtype=np.uint8)
        self.m_start = start
        if self.ternary:
            for b in range(n):
                self._outer_slots(b, &outer[start[b]], &rule[start[b]])
                parent[start[b]:start[b + 1]] = <int>b
        self.m_outer = outer
        self.m_parent = parent
        self.m_rule = rule
        self.n_slots = total

    cdef Py_ssize_t _outer_slots(self, Py_ssize_t b, int* outer, unsigned char* rule) noexcept nogil:
        """The (outer child, permutation) pairs of the ternary rules of parent b; written if `outer`."""
        cdef Py_ssize_t i = self.box[b, 0], j = self.box[b, 1], k = self.box[b, 2], l = self.box[b, 3]
        cdef Py_ssize_t a = j - i, c = l - k, w, e, o, cw, n = 0, kind, x, r
        cdef Py_ssize_t s_pos, t_pos
        cdef int rules[4][2]
        cdef int n_rules[4]
        if a < 3 or c < 3:
            return 0
        # Corner of the outer child -> permutations whose outer child sits there (see OUTER_SRC/OUTER_TGT).
        rules[SS][0] = 0; rules[SS][1] = 1; n_rules[SS] = 2
        rules[SE][0] = 4; rules[SE][1] = 5; n_rules[SE] = 2
        rules[EE][0] = 2; n_rules[EE] = 1
        rules[ES][0] = 3; n_rules[ES] = 1
        for kind in range(4):
            s_pos = i if kind == SS or kind == SE else j
            t_pos = k if kind == SS or kind == ES else l
            for w in range(1, a - 1):
                x = self.corner(<int>kind, s_pos, t_pos, w)
                for e in range(self.corner_ptr[x], self.corner_ptr[x + 1]):
                    o = self.corner_ids[e]
                    cw = self.corner_cw[e]
                    if cw > c - 2:
                        break
                    if cw < 1:
                        continue
                    for r in range(n_rules[kind]):
                        if outer != NULL:
                            outer[n] = <int>o
                            rule[n] = <unsigned char>rules[kind][r]
                        n += 1
        return n

    cdef int[::1] _schedule(self):
        """Emission items, then per bispan in order of size its M slots and X itself."""
        cdef Py_ssize_t p = self.p, q = self.q, b, i, k, n = 0, slot
        cdef int[::1] order = np.empty(p * q + self.n_bispans + self.n_slots, dtype=np.int32)
        for i in range(p):
            for k in range(q):
                if self.emit[i, k] > -INFINITY and self.x_item(i, i + 1, k, k + 1) >= 0:
                    order[n] = <int>(1 + i * q + k); n += 1
        for b in range(self.n_bispans):
            for slot in range(self.m_start[b], self.m_start[b + 1]):
                order[n] = <int>(self.base_m + slot); n += 1
            order[n] = <int>(self.base_x + b); n += 1
        return order[:n]

    cdef inline int x_item(self, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k, Py_ssize_t l) noexcept nogil:
        """Item of the bispan [i, j) x [k, l), or -1 if it is not kept."""
        cdef int b = self.bid[tri(i, j) * self.Tq + tri(k, l)]
        return <int>(self.base_x + b) if b >= 0 else -1

    cdef Py_ssize_t edges(self, Py_ssize_t item, int* t1, int* t2, double* w) noexcept nogil:
        return self._edges(item, t1, t2, w, NULL, NULL)

    cdef Py_ssize_t _edges(self, Py_ssize_t item, int* t1, int* t2, double* w,
                           int* kind, double* mis) noexcept nogil:
        """The incoming edges of `item`; with `kind` and `mis`, also each edge's rule
        kind (NO_KIND for edges without rule features) and split mismatch."""
        cdef Py_ssize_t b
        if item < self.base_x:
            b = item - 1
            t1[0] = 0; t2[0] = 0; w[0] = self.emit[b // self.q, b % self.q]
            if kind != NULL:
                kind[0] = NO_KIND; mis[0] = 0.0
            return 1
        if item < self.base_m:
            return self._bispan_edges(item - self.base_x, t1, t2, w, kind, mis)
        return self._m_edges(item - self.base_m, t1, t2, w, kind, mis)

    cdef Py_ssize_t _bispan_edges(self, Py_ssize_t b, int* t1, int* t2, double* w,
                                  int* kind, double* mis) noexcept nogil:
        cdef Py_ssize_t i = self.box[b, 0], j = self.box[b, 1], k = self.box[b, 2], l = self.box[b, 3]
        cdef Py_ssize_t a = j - i, c = l - k, e = 0, sw, x, y, left, cw, slot
        cdef int right
        cdef double inv_a, inv_c, d
        if c == 0 or a == 0:
            # Null terminal: a single edge from the unit.
            t1[0] = 0; t2[0] = 0
            w[0] = self.null_src[i] if c == 0 else self.null_tgt[k]
            if kind != NULL:
                kind[0] = NO_KIND; mis[0] = 0.0
            return 1
        if a == 1 and c == 1 and self.emit[i, k] > -INFINITY:
            t1[0] = <int>(1 + i * self.q + k); t2[0] = 0; w[0] = 0.0
            if kind != NULL:
                kind[0] = NO_KIND; mis[0] = 0.0
            e = 1
        inv_a = 1.0 / a
        inv_c = 1.0 / c
        # Straight: left child [i, i+sw) x [k, k+cw) from the (source start, target start) list.
        for sw in range(a + 1):
            x = self.corner(SS, i, k, sw)
            for y in range(self.corner_ptr[x], self.corner_ptr[x + 1]):
                left = self.corner_ids[y]
                cw = self.corner_cw[y]
                if cw > c or (sw == a and cw == c):
                    break
                right = self.x_item(i + sw, j, k + cw, l)
                if right < 0:
                    continue
                t1[e] = <int>(self.base_x + left); t2[e] = right
                if sw == 0 or cw == 0 or sw == a or cw == c:
                    w[e] = self.rule_w[ATTACH]
                    if kind != NULL:
                        kind[e] = ATTACH; mis[e] = 0.0
                else:
                    d = fabs(sw * inv_a - cw * inv_c)
                    w[e] = self.rule_w[STRAIGHT] + self.mis_w[STRAIGHT] * d
                    if kind != NULL:
                        kind[e] = STRAIGHT; mis[e] = d
                e += 1
        # Inverted: left child [i, i+sw) x [l-cw, l) from the (source start, target end) list, both non-null.
        for sw in range(1, a):
            x = self.corner(SE, i, l, sw)
            for y in range(self.corner_ptr[x], self.corner_ptr[x + 1]):
                left = self.corner_ids[y]
                cw = self.corner_cw[y]
                if cw >= c:
                    break
                if cw < 1:
                    continue
                right = self.x_item(i + sw, j, k, l - cw)
                if right < 0:
                    continue
                d = fabs(sw * inv_a - cw * inv_c)
                t1[e] = <int>(self.base_x + left); t2[e] = right
                w[e] = self.rule_w[INVERTED] + self.mis_w[INVERTED] * d
                if kind != NULL:
                    kind[e] = INVERTED; mis[e] = d
                e += 1
        # Ternary: X[b] <- M[slot] X[outer] for every slot of b.
        for slot in range(self.m_start[b], self.m_start[b + 1]):
            t1[e] = <int>(self.base_m + slot); t2[e] = <int>(self.base_x + self.m_outer[slot]); w[e] = 0.0
            if kind != NULL:
                kind[e] = NO_KIND; mis[e] = 0.0
            e += 1
        return e

    cdef Py_ssize_t _m_edges(self, Py_ssize_t slot, int* t1, int* t2, double* w,
                             int* kind, double* mis) noexcept nogil:
        """M[b, r, outer] <- X[c1] X[c2] over the splits of the rest into two non-null children."""
        cdef Py_ssize_t b = self.m_parent[slot], o = self.m_outer[slot]
        cdef int r = self.m_rule[slot]
        cdef Py_ssize_t i = self.box[b, 0], j = self.box[b, 1], k = self.box[b, 2], l = self.box[b, 3]
        cdef Py_ssize_t oi = self.box[o, 0], oj = self.box[o, 1], ok = self.box[o, 2], ol = self.box[o, 3]
        cdef Py_ssize_t ri, rj, rk, rl, sw, x, y, left, cw, e = 0
        cdef int right
        cdef double inv_a = 1.0 / (j - i), inv_c = 1.0 / (l - k), outer_d, d
        cdef double wr = self.rule_w[TERNARY + r], wm = self.mis_w[TERNARY + r]
        if OUTER_SRC[r] == 0:
            ri = oj; rj = j
        else:
            ri = i; rj = oi
        if OUTER_TGT[r] == 0:
            rk = ol; rl = l
        else:
            rk = k; rl = ok
        outer_d = fabs((oj - oi) * inv_a - (ol - ok) * inv_c)
        for sw in range(1, rj - ri):
            x = self.corner(SE if INNER_INV[r] else SS, ri, rl if INNER_INV[r] else rk, sw)
            for y in range(self.corner_ptr[x], self.corner_ptr[x + 1]):
                left = self.corner_ids[y]
                cw = self.corner_cw[y]
                if cw >= rl - rk:
                    break
                if cw < 1:
                    continue
                if INNER_INV[r]:
                    right = self.x_item(ri + sw, rj, rk, rl - cw)
                else:
                    right = self.x_item(ri + sw, rj, rk + cw, rl)
                if right < 0:
                    continue
                d = 0.5 * (outer_d + fabs(sw * inv_a - cw * inv_c)
                           + fabs((rj - ri - sw) * inv_a - (rl - rk - cw) * inv_c))
                t1[e] = <int>(self.base_x + left); t2[e] = right; w[e] = wr + wm * d
                if kind != NULL:
                    kind[e] = <int>(TERNARY + r); mis[e] = d
                e += 1
        return e

    # ------------------------------------------------------------------
    # Python-side helpers (tests, decoding samples)

    def bispan_item(self, i, j, k, l):
        """The item of the bispan [i, j) x [k, l), or -1 if it is not kept."""
        if not (0 <= i <= j <= self.p and 0 <= k <= l <= self.q) or not valid_bispan(j - i, l - k):
            return -1
        return self.x_item(i, j, k, l)

    def bispans_of(self, marks):
        """The bispans (i, j, k, l) whose X items carry a mark > 0.5, in id order."""
        marks = np.asarray(marks)
        ids = np.flatnonzero(marks[self.base_x:self.base_m] > 0.5)
        box = np.asarray(self.box)
        return [tuple(int(v) for v in box[b]) for b in ids]


cdef void posteriors_and_statistics(BitextChart g, const double* chart, double* q,
                                    double* emit_post, double* null_src_post, double* null_tgt_post,
                                    double* count, double* mis_sum, long* n_edges) noexcept nogil:
    """The Log backward pass fused with the expected sufficient statistics: one edge enumeration per item.

    Items are visited in reverse topological order, so q[item] (its posterior) is final when it is reached;
    each of its edges gets the posterior q[item] * exp(in[t1] + in[t2] + w - in[item]), which is pushed to
    both tails (as the engine's Log backward pass does) and added to its rule kind's expected count and
    mismatch sum. The link posterior of (i, k) is q[E[i, k]]; a null emission's is q of its terminal. Sets
    n_edges to the edges visited, or -1 on allocation failure.
    """
    cdef Py_ssize_t cap = g.max_edges, x, e, k_edges, item, b, i, k
    cdef int* t1 = <int*>malloc(cap * sizeof(int))
    cdef int* t2 = <int*>malloc(cap * sizeof(int))
    cdef int* kind = <int*>malloc(cap * sizeof(int))
    cdef double* w = <double*>malloc(cap * sizeof(double))
    cdef double* mis = <double*>malloc(cap * sizeof(double))
    cdef double in_p, qp, c
    if t1 == NULL or t2 == NULL or kind == NULL or w == NULL or mis == NULL:
        free(t1); free(t2); free(kind); free(w); free(mis)
        n_edges[0] = -1
        return
    for x in range(g.n_items):
        q[x] = 0.0
    q[g.goal] = 1.0
    for x in range(g.n_order - 1, -1, -1):
        item = g.order[x]
        qp = q[item]
        if qp <= 0.0:
            continue
        if item < g.base_x:
            emit_post[item - 1] += qp
            continue
        if item < g.base_m:
            b = item - g.base_x
            i = g.box[b, 0]; k = g.box[b, 2]
            if g.box[b, 3] == k:
                null_src_post[i] += qp
                continue
            if g.box[b, 1] == i:
                null_tgt_post[k] += qp
                continue
        k_edges = g._edges(item, t1, t2, w, kind, mis)
        n_edges[0] += k_edges
        in_p = chart[item]
        for e in range(k_edges):
            w[e] = chart[t1[e]] + chart[t2[e]] + w[e] - in_p
        vexp_inplace(w, k_edges)
        for e in range(k_edges):
            c = qp * w[e]
            q[t1[e]] += c
            q[t2[e]] += c
            if kind[e] >= 0:
                count[kind[e]] += c
                mis_sum[kind[e]] += c * mis[e]
    free(t1); free(t2); free(kind); free(w); free(mis)


def run_chart(BitextChart g, bint statistics=True, Py_ssize_t samples=0, uint64_t seed=0,
              bint sample_bispans=False):
    """Inside (Log), then optionally posteriors and expected statistics, then samples.

    RETURNS (dict): "log_z" (float, -inf if the keep table admits no derivation);
    with statistics (one fused backward pass, `posteriors_and_statistics`): "emit" (p, q) link posteriors,
    "null_src" (p,), "null_tgt" (q,), "count" and "mismatch" (9,) expected rule-kind counts and summed
    mismatches, "edges" (edges visited by that pass); with samples: "links" uint8
    (samples, p, q), each a derivation drawn from p(d) ∝ exp(score(d)) in the kept
    chart, and with sample_bispans "bispans" (one list of (i, j, k, l) per sample).
    """
    cdef LogSemiring lg
    cdef SampleSemiring smp
    cdef Py_ssize_t p = g.p, qq = g.q, s, i, k
    cdef double[::1] chart = np.empty(g.n_items)
    cdef double[::1] post
    cdef double[:, ::1] emit_post = np.zeros((p, qq))
    cdef double[::1] null_src_post = np.zeros(p)
    cdef double[::1] null_tgt_post = np.zeros(qq)
    cdef double[::1] count = np.zeros(N_KINDS)
    cdef double[::1] mis_sum = np.zeros(N_KINDS)
    cdef unsigned char[:, :, ::1] links = np.zeros((samples, p, qq), dtype=np.uint8)
    cdef double[::1] marks
    cdef long n_edges = 0
    cdef double log_z
    cdef int status = 0
    cdef bint ok
    out = {"log_z": -INFINITY}
    if not g.has_root:
        return out
    with nogil:
        status = inside(&lg, g, &chart[0], &log_z)
    if status != 0:
        raise MemoryError("could not allocate the inside pass's buffers")
    ok = log_z > -INFINITY and log_z < INFINITY
    out["log_z"] = log_z
    if statistics and ok:
        post = np.empty(g.n_items)
        with nogil:
            posteriors_and_statistics(g, &chart[0], &post[0], &emit_post[0, 0] if p * qq else NULL,
                                      &null_src_post[0], &null_tgt_post[0], &count[0], &mis_sum[0], &n_edges)
        if n_edges < 0:
            raise MemoryError("could not allocate the statistics buffers")
        out.update(emit=np.asarray(emit_post), null_src=np.asarray(null_src_post),
                   null_tgt=np.asarray(null_tgt_post), count=np.asarray(count),
                   mismatch=np.asarray(mis_sum), edges=int(n_edges))
    if samples > 0 and ok:
        marks = np.empty(g.n_items)
        smp.state = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL
        if smp.state == 0:
            smp.state = 1
        drawn = []
        for s in range(samples):
            with nogil:
                status = backward(&smp, g, &chart[0], &marks[0])
                for i in range(p):
                    for k in range(qq):
                        if marks[1 + i * qq + k] > 0.5:
                            links[s, i, k] = 1
            if status != 0:
                raise MemoryError("could not allocate the sampling pass's buffers")
            if sample_bispans:
                drawn.append(g.bispans_of(marks))
        out["links"] = np.asarray(links)
        if sample_bispans:
            out["bispans"] = drawn
    return out

