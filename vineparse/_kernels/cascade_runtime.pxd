# cython: language_level=3
"""The compiled cascade runtime (cascade_runtime.pyx): declarations for scorers written elsewhere.

A scorer answers the runtime's three questions about the sentence it was last pointed at (`begin`):
the scores of the arcs a mask allows, of the vine's outer arcs, and of a list of higher-order parts,
each for one level (levels may share part kinds but have their own parameters). Every method runs
without the GIL and reports failure by returning -1. A scorer may also hand over the sentence's unmasked
vine max-marginals when they were computed before (`vine_max_marginals`: 1 if it did, 0 if not).
"""
from libc.stdint cimport int64_t, uint8_t
from .features cimport SentenceFeatures
from .eisner cimport FirstOrder
from .eisner2 cimport SecondOrder
from .eisner3 cimport ThirdOrder
from .vine cimport Vine

cdef enum:
    MAX_LEVELS = 8
    STATS = 6                            # per level: kept, possible, gold kept, gold, fallbacks, seconds


cdef class Workspace:
    """One thread's buffers, grown on demand and reused from sentence to sentence; a call of the runtime
    holds its workspaces alone (checked out of the runtime's pool, see `CascadeRuntime.run`).

    Dense (n + 1) x (n + 1) arrays are row-major over [h, m].
    """
    cdef Py_ssize_t capacity             # positions (n + 1) the dense buffers hold
    cdef Py_ssize_t n                    # the current sentence's length
    cdef Py_ssize_t sentence             # and its index in the scorer's batch
    cdef uint8_t* masks[3]               # input masks of levels k - 1 and k, and the output of k
    cdef double* scores                  # dense arc scores, -inf outside the mask
    cdef double* mm                      # dense arc max-marginals
    cdef double* outer                   # (n + 1) x 2 outer-arc scores of the vine
    cdef double* outer_mm                # (n + 1) x 2 outer-arc max-marginals
    cdef double* column                  # n + 1 scratch values (head caps)
    cdef int64_t* heads                  # n + 1
    cdef uint8_t* band_mask              # the vine's scored arcs
    cdef double stats[MAX_LEVELS * STATS]
    cdef FirstOrder first                # the grammars, reset per sentence
    cdef SecondOrder second
    cdef ThirdOrder third
    cdef Vine vine
    # higher-order parts: rows (positions) and scores per kind, in the layout order of the mask
    cdef int64_t* rows[3]
    cdef double* part_scores[3]
    cdef Py_ssize_t part_capacity[3]
    cdef Py_ssize_t part_count[3]
    # the sparse scorer's per-sentence state
    cdef SentenceFeatures features
    cdef uint8_t* arc_known              # [h * (n + 1) + m]: arc h -> m's scores are in arc_cache
    cdef double* arc_cache               # [(h * (n + 1) + m) * levels + k]: arc h -> m's score at level k
    cdef Py_ssize_t cache_capacity

    cdef int reserve(self, Py_ssize_t n) noexcept nogil
    cdef int reserve_parts(self, int slot, Py_ssize_t count) noexcept nogil
    cdef int reserve_cache(self, Py_ssize_t count) noexcept nogil


cdef class Scorer:
    cdef Py_ssize_t n_sentences
    cpdef Py_ssize_t length(self, Py_ssize_t i)
    cdef Py_ssize_t begin(self, Workspace ws, Py_ssize_t i) noexcept nogil
    cdef int arcs(self, Workspace ws, int level, const uint8_t* mask, double* out) noexcept nogil
    cdef int outer_arcs(self, Workspace ws, int level, double* out) noexcept nogil
    cdef int parts(self, Workspace ws, int level, int kind, const int64_t* rows, Py_ssize_t count,
                   double* out) noexcept nogil
    cdef int vine_max_marginals(self, Workspace ws, int level, double* best, double* mm,
                                double* outer_mm) noexcept nogil
