# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The spaCy component's neural part scores as a scorer of the compiled cascade runtime.

Per sentence: dense arc scores (n + 1, n + 1) and vine outer-arc scores (n + 1, 2), both float64, and the
rows of the batch's projections that hold its positions (the root row, then its words). Higher-order parts
(sibling, grandparent, grand-sibling) are scored by the part MLP (part_mlp.pxd) over those rows, with the
distance row of the part's arc h -> m. Every level reads the same scores (one network scores all levels).
"""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from .cascade_runtime cimport Scorer, Workspace
from .features cimport SIBLING, GRAND_SIBLING
from .part_mlp cimport PartMLP, part_mlp_parts, MAX_ROLES

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef enum:
    KINDS = 3                   # sibling, grandparent, grand-sibling
    MAX_EDGES = 32              # distance classes at most


cdef class NeuralScorer(Scorer):
    """Neural scores of a batch of sentences for `CascadeRuntime.run`.

    arcs, outer, rows (Sequence[np.ndarray]): per sentence its dense arc scores (n + 1, n + 1), outer-arc
        scores (n + 1, 2) and batch rows (n + 1,) int64.
    tables (Sequence or None): per part kind (sibling, grandparent, grand-sibling) a tuple (P, starts, v,
        none, Q, sibling_column, head_column) as the component's scorers give them: P (R, c) projections
        of the batch's rows (read in place where its rows are contiguous, as in a column block of the
        batch's one projection; the kinds may share one), starts (roles,) int64 the first column of each
        role in P, v (p,), none (p,), Q (buckets, p) distance rows, all float32; None for a first-order
        model.
    distance_edges (Sequence[int]): upper bounds (exclusive) of the distance classes of |h - m|; the bucket of
        h -> m is 0 for the root, 1 + class for a head left of m, 1 + classes + class for one right of m.
    vine (Sequence or None): per sentence None or its unmasked vine max-marginals computed before, as
        (best, arc max-marginals (n + 1, n + 1), outer-arc max-marginals (n + 1, 2)) for the vine level's
        band, which the runtime then takes instead of running the vine pass again.
    With part tables the scorer keeps those buckets for every arc of its longest sentence ((n + 1)^2 int64,
    as much as one sentence's arc scores), and the part MLP sums an arc's terms once per run of its parts.
    """
    cdef list _keep
    cdef const double** arc_ptr
    cdef const double** outer_ptr
    cdef const int64_t** row_ptr
    cdef const double** vine_mm_ptr         # NULL where the vine max-marginals are not known
    cdef const double** vine_outer_ptr
    cdef double* vine_best
    cdef Py_ssize_t* lengths
    cdef PartMLP mlp[KINDS]
    cdef bint has_parts
    cdef const int64_t* buckets     # (stride, stride): the distance row of every arc h -> m of the batch
    cdef Py_ssize_t stride, max_p

    def __cinit__(self):
        self.arc_ptr = NULL
        self.outer_ptr = NULL
        self.row_ptr = NULL
        self.vine_mm_ptr = NULL
        self.vine_outer_ptr = NULL
        self.vine_best = NULL
        self.lengths = NULL

    def __init__(self, arcs, outer, rows, tables=None, distance_edges=(), vine=None):
        cdef Py_ssize_t i, kind, j, count = len(arcs)
        cdef cnp.ndarray a, o, r
        cdef Py_ssize_t N
        cdef const float[:, :] P
        cdef const float[:, ::1] Q
        cdef const float[::1] v, none
        if not len(outer) == len(rows) == count:
            raise ValueError(f"{count} arc matrices, {len(outer)} outer arrays and {len(rows)} row lists")
        self._keep = []
        self.n_sentences = count
        self.arc_ptr = <const double**>malloc(max(count, 1) * sizeof(double*))
        self.outer_ptr = <const double**>malloc(max(count, 1) * sizeof(double*))
        self.row_ptr = <const int64_t**>malloc(max(count, 1) * sizeof(int64_t*))
        self.lengths = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        self.vine_mm_ptr = <const double**>malloc(max(count, 1) * sizeof(double*))
        self.vine_outer_ptr = <const double**>malloc(max(count, 1) * sizeof(double*))
        self.vine_best = <double*>malloc(max(count, 1) * sizeof(double))
        if (self.arc_ptr == NULL or self.outer_ptr == NULL or self.row_ptr == NULL or self.lengths == NULL
                or self.vine_mm_ptr == NULL or self.vine_outer_ptr == NULL or self.vine_best == NULL):
            raise MemoryError()
        if vine is not None and len(vine) != count:
            raise ValueError(f"{count} sentences but {len(vine)} vine entries")
        self.has_parts = tables is not None
        self.max_p = 1
        if self.has_parts:
            if len(tables) != KINDS:
                raise ValueError(f"tables needs {KINDS} entries (sibling, grandparent, grand-sibling)")
            for kind, (P_, starts_, v_, none_, Q_, sibling_column, head_column) in enumerate(tables):
                P = rows_in_place(P_)
                v, none, Q = (np.ascontiguousarray(x, dtype=np.float32) for x in (v_, none_, Q_))
                starts = np.asarray(starts_, dtype=np.int64).ravel()
                self._keep += [P, v, none, Q]
                roles = len(starts)
                if (roles < 3 or roles > MAX_ROLES or v.shape[0] < 1 or Q.shape[1] != v.shape[0]
                        or starts.min() < 0 or starts.max() + v.shape[0] > P.shape[1]):
                    raise ValueError(f"part kind {kind}: P {np.shape(P_)}, role starts {starts.tolist()}, "
                                     f"v {np.shape(v_)} and Q {np.shape(Q_)} do not fit a part MLP of "
                                     f"3..{MAX_ROLES} roles")
                if not (sibling_column == -1 or 1 <= sibling_column < roles) or not 0 <= head_column < roles:
                    raise ValueError(f"part kind {kind}: sibling column {sibling_column} or head column "
                                     f"{head_column} outside the {roles} roles")
                if sibling_column > 0 and none.shape[0] != v.shape[0]:
                    raise ValueError(f"part kind {kind}: the no-sibling row has {none.shape[0]} values")
                self.mlp[kind].Z = &P[0, 0]
                self.mlp[kind].columns = P.strides[0] // sizeof(float)
                self.mlp[kind].k = roles
                self.mlp[kind].p = v.shape[0]
                for j in range(roles):
                    self.mlp[kind].starts[j] = starts[j]
                self.mlp[kind].v = &v[0]
                self.mlp[kind].none = &none[0] if sibling_column > 0 else NULL
                self.mlp[kind].sibling_column = sibling_column
                self.mlp[kind].distance = &Q[0, 0] if Q.shape[0] else NULL
                self.mlp[kind].head_column = head_column
                self.max_p = max(self.max_p, v.shape[0])
                if Q.shape[0] and Q.shape[0] < 1 + 2 * (len(distance_edges) + 1):
                    raise ValueError(f"part kind {kind}: {Q.shape[0]} distance rows for "
                                     f"{1 + 2 * (len(distance_edges) + 1)} buckets")
        if len(distance_edges) > MAX_EDGES:
            raise ValueError(f"at most {MAX_EDGES} distance edges")
        if self.has_parts and count:
            every = np.concatenate([np.asarray(r).ravel() for r in rows])
            limit = min(self._keep[4 * kind].shape[0] for kind in range(KINDS))
            if every.size and (every.min() < 0 or every.max() >= limit):
                raise ValueError(f"rows outside the {limit} rows of P")
        for i in range(count):
            a = np.ascontiguousarray(arcs[i], dtype=np.float64)
            o = np.ascontiguousarray(outer[i], dtype=np.float64)
            r = np.ascontiguousarray(rows[i], dtype=np.int64)
            N = cnp.PyArray_DIM(a, 0) if cnp.PyArray_NDIM(a) == 2 else 0
            if (N < 1 or cnp.PyArray_DIM(a, 1) != N or cnp.PyArray_NDIM(o) != 2 or cnp.PyArray_DIM(o, 0) != N
                    or cnp.PyArray_DIM(o, 1) != 2 or cnp.PyArray_NDIM(r) != 1 or cnp.PyArray_DIM(r, 0) != N):
                raise ValueError(f"sentence {i}: arcs {np.shape(arcs[i])}, outer {np.shape(outer[i])} and rows "
                                 f"{np.shape(rows[i])} must be (n + 1, n + 1), (n + 1, 2) and (n + 1,)")
            self._keep += [a, o, r]
            self.arc_ptr[i] = <const double*>cnp.PyArray_DATA(a)
            self.outer_ptr[i] = <const double*>cnp.PyArray_DATA(o)
            self.row_ptr[i] = <const int64_t*>cnp.PyArray_DATA(r)
            self.lengths[i] = N - 1
            self.vine_mm_ptr[i] = self.vine_outer_ptr[i] = NULL
            if vine is not None and vine[i] is not None:
                best, vine_mm, vine_outer = vine[i]
                vine_mm = np.ascontiguousarray(vine_mm, dtype=np.float64)
                vine_outer = np.ascontiguousarray(vine_outer, dtype=np.float64)
                if vine_mm.shape != (N, N) or vine_outer.shape != (N, 2):
                    raise ValueError(f"sentence {i}: vine max-marginals {vine_mm.shape} and {vine_outer.shape}, "
                                     f"expected ({N}, {N}) and ({N}, 2)")
                self._keep += [vine_mm, vine_outer]
                self.vine_mm_ptr[i] = <const double*>cnp.PyArray_DATA(vine_mm)
                self.vine_outer_ptr[i] = <const double*>cnp.PyArray_DATA(vine_outer)
                self.vine_best[i] = float(best)
        self.buckets = NULL
        if self.has_parts:      # bucket of h -> m: 0 for the root, else 1 + distance class, + classes if h > m
            self.stride = max([self.lengths[i] + 1 for i in range(count)], default=1)
            h, m = np.indices((self.stride, self.stride))
            classes = np.searchsorted(np.asarray(distance_edges, dtype=np.int64), np.abs(h - m), side="right")
            table = np.where(h == 0, 0, 1 + classes + (len(distance_edges) + 1) * (h > m)).astype(np.int64)
            self._keep.append(table)
            self.buckets = <const int64_t*>cnp.PyArray_DATA(table)

    def __dealloc__(self):
        free(self.arc_ptr)
        free(self.outer_ptr)
        free(self.row_ptr)
        free(self.vine_mm_ptr)
        free(self.vine_outer_ptr)
        free(self.vine_best)
        free(self.lengths)

    cpdef Py_ssize_t length(self, Py_ssize_t i):
        return self.lengths[i]

    cdef Py_ssize_t begin(self, Workspace ws, Py_ssize_t i) noexcept nogil:
        cdef Py_ssize_t n = self.lengths[i]
        if ws.reserve(n) < 0 or ws.reserve_cache(self.max_p) < 0:      # the arc cache: the MLP's scratch
            return -1
        ws.n = n
        ws.sentence = i
        return n

    cdef int arcs(self, Workspace ws, int level, const uint8_t* mask, double* out) noexcept nogil:
        cdef Py_ssize_t N = ws.n + 1, j
        cdef const double* dense = self.arc_ptr[ws.sentence]
        for j in range(N * N):
            out[j] = dense[j] if mask[j] else -INFINITY
        return 0

    cdef int outer_arcs(self, Workspace ws, int level, double* out) noexcept nogil:
        cdef Py_ssize_t j
        cdef const double* outer = self.outer_ptr[ws.sentence]
        for j in range(2 * (ws.n + 1)):
            out[j] = outer[j]
        return 0

    cdef int vine_max_marginals(self, Workspace ws, int level, double* best, double* mm,
                                double* outer_mm) noexcept nogil:
        cdef Py_ssize_t i = ws.sentence, N = ws.n + 1
        if self.vine_mm_ptr[i] == NULL:
            return 0
        best[0] = self.vine_best[i]
        memcpy(mm, self.vine_mm_ptr[i], N * N * sizeof(double))
        memcpy(outer_mm, self.vine_outer_ptr[i], 2 * N * sizeof(double))
        return 1

    cdef int parts(self, Workspace ws, int level, int kind, const int64_t* rows, Py_ssize_t count,
                   double* out) noexcept nogil:
        cdef Py_ssize_t slot = kind - SIBLING
        if not self.has_parts or slot < 0 or slot >= KINDS:
            return -1
        part_mlp_parts(&self.mlp[slot], rows, count, self.row_ptr[ws.sentence], self.buckets, self.stride,
                       <float*>ws.arc_cache, out)
        return 0


def rows_in_place(x):
    """x as a float32 2-D array whose rows are contiguous and 4-byte aligned (a column block of a wider
    C-contiguous array qualifies and is not copied); anything else is copied into a C-contiguous array."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 2 and x.size and x.strides[1] == 4 and x.strides[0] >= 4 * x.shape[1] and x.strides[0] % 4 == 0:
        return x
    return np.ascontiguousarray(x)
