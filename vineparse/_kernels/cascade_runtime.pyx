# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled cascade runtime: vine -> first -> second -> third order for a batch of sentences.

Rush & Petrov (2012), "Vine pruning for efficient multi-pass dependency parsing": every level but the
last computes max-marginals over its parts and passes on the arcs whose max-marginal reaches

    t_a = a * best + (1 - a) * mean over parts of mm(part)

(the vine also passes every far head of a word whose outer arc survives), optionally keeping at most
`cap` heads per word (those of highest max-marginal; ties kept, so the best structure survives). The
last level decodes its best tree on its mask. A pruned mask that admits no structure at the next level
(possible after the vine: a vine structure need not be one tree) is replaced by the mask before it, and
counted as a fallback.

The thresholds are thresholds.pyx's. Scores come from a `Scorer` (cascade_runtime.pxd): the hashed sparse
features of `sparse_scorer.SparseScorer` (each arc hashed and read from memory once per sentence for all
levels) or the component's neural scores (`neural_scorer.NeuralScorer`). The dynamic programs are the
kernels' grammars (eisner*.pyx, vine.pyx) through their nogil C API. All buffers live in `Workspace`s,
one per OpenMP thread of a call, checked out of the runtime's pool for that call only (so any number of
Python threads may run one runtime at once) and reused across sentences and calls; sentences are handed to
OpenMP threads (parallel.pyx) dynamically.

Level orders: VINE (0), FIRST..THIRD (1..3) and LOCAL (-1, an unstructured arc classifier).
Work per sentence: the scorer's, plus the grammars' on the masks (vine O(n b^2); Eisner orders follow the
arcs their mask allows), plus O(n^2) per level for masks and thresholds.
"""
cimport cython
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset, memcpy
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from .features cimport sentence_init, sentence_free, part_width, ARC, OUTER, SIBLING
from .thresholds cimport eisner_prune, vine_prune, local_max_marginals

from .memory cimport STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY
from .hypergraph cimport Hypergraph
from .arcs cimport ArcIndex
from .eisner cimport FirstOrder
from .eisner2 cimport SecondOrder
from .eisner3 cimport ThirdOrder
from .vine cimport Vine
from .parallel cimport run_jobs, MAX_THREADS

import threading

import numpy as np
from .memory import KernelSizeError, check_status, get_memory_limit

cdef enum:
    LOCAL = -1
    VINE = 0
    SCORER_FAILED = 100    # a scorer returned -1 (it ran out of memory)
    MAX_IDLE = 16          # workspaces a runtime keeps between calls at most


cdef inline double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + 1e-9 * t.tv_nsec

# Thresholds (the only implementation: training, calibration and prediction all call these)

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

    cdef int vine_max_marginals(self, Workspace ws, int level, double* best, double* mm,
                                double* outer_mm) noexcept nogil:
        """Level `level`'s unmasked vine max-marginals of the current sentence, when known already: the
        best score into best, (n + 1, n + 1) arc and (n + 1, 2) outer-arc max-marginals into mm and
        outer_mm; RETURNS 1, or 0 when they are not known (the runtime runs the vine pass)."""
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


cdef enum:                  # what `eisner_pass` computes
    MAX_MARGINALS = 0
    BEST_TREE = 1


cdef int eisner_pass(Workspace ws, int order, const uint8_t* mask, int what, double* best) noexcept nogil:
    """Order 1-3 over ws.scores (and, for orders 2 and 3, the part scores listed by `list_parts` for the same
    mask): max-marginals into best and ws.mm (MAX_MARGINALS), or its best tree into ws.heads (BEST_TREE)."""
    cdef Py_ssize_t N = ws.n + 1
    cdef int status
    if order == 1:
        status = ws.first.reset(ws.n, ws.scores, N, mask, N, True)
        return status if status != STATUS_OK else run_grammar(ws, ws.first, what, best)
    if order == 2:
        status = ws.second.reset(ws.scores, N, ws.part_scores[0], True)
        return status if status != STATUS_OK else run_grammar(ws, ws.second, what, best)
    status = ws.third.reset(ws.scores, N, ws.part_scores[0], ws.part_scores[1], ws.part_scores[2], True)
    return status if status != STATUS_OK else run_grammar(ws, ws.third, what, best)


cdef int run_grammar(Workspace ws, Hypergraph graph, int what, double* best) noexcept nogil:
    cdef double score
    if what == BEST_TREE:
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
    cdef list _idle                 # workspaces no call holds, kept across calls (their buffers stay allocated)
    cdef object _lock               # guards _idle: every call checks out workspaces of its own

    def __init__(self, orders, alphas, caps, Py_ssize_t band):
        cdef int k
        self._idle = []
        self._lock = threading.Lock()
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
        if order == VINE and scorer.vine_max_marginals(ws, k, &best, ws.mm, ws.outer_mm) == 1:
            vine_prune(N, best, ws.mm, ws.outer_mm, self.alpha[k], self.band, out)
            return STATUS_OK
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
            status = eisner_pass(ws, order, mask, MAX_MARGINALS, &best)
            if status != STATUS_OK:
                return status
        eisner_prune(N, best, ws.mm, self.alpha[k], self.cap[k], ws.column, out)
        return STATUS_OK

    cdef int decode(self, Scorer scorer, Workspace ws, int k, const uint8_t* mask) noexcept nogil:
        cdef int status = self.level_inputs(scorer, ws, k, mask)
        if status != STATUS_OK:
            return status
        return eisner_pass(ws, self.order[k], mask, BEST_TREE, NULL)

    cdef int sentence(self, Scorer scorer, Workspace ws, Py_ssize_t i, int upto, const int64_t* gold,
                      uint8_t** mask_out) noexcept nogil:
        """Run the cascade on sentence i: the best tree into ws.heads, or with upto >= 0 point mask_out at
        the input mask of level `upto` (a workspace buffer). Adds to ws.stats. RETURNS a STATUS_* code.

        A mask that admits no structure at the next level is replaced by the one before (a fallback of
        the level that pruned): when that level runs, or, for `upto`, when the mask is handed out."""
        cdef Py_ssize_t n = scorer.begin(ws, i), N, h, m, kept, gold_kept
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
        for h in range(N):                           # level 0 runs on every arc
            for m in range(N):
                current[h * N + m] = <uint8_t>(m != 0 and m != h)
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
            for h in range(N):
                for m in range(1, N):
                    kept += out[h * N + m] != 0
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

    def _check_out(self, int count):
        """`count` workspaces that no other call holds: idle ones first (their buffers already grown), then
        new ones. Several Python threads may run one runtime at once; each call owns what it checks out."""
        with self._lock:
            taken = self._idle[len(self._idle) - min(count, len(self._idle)):]
            del self._idle[len(self._idle) - len(taken):]
        return taken + [Workspace() for _ in range(count - len(taken))]

    def _check_in(self, list workspaces):
        """Return workspaces to the idle pool (at most MAX_IDLE stay; the rest are freed)."""
        with self._lock:
            self._idle.extend(workspaces[:max(0, MAX_IDLE - len(self._idle))])

    def idle_workspaces(self):
        """How many workspaces the runtime keeps between calls (for tests and memory accounting)."""
        with self._lock:
            return len(self._idle)

    def run(self, Scorer scorer, int upto=-1, gold=None, Stats stats=None, double[::1] seconds=None,
            int n_threads=1):
        """Run every sentence of `scorer` through the cascade, on `n_threads` threads (OpenMP; one
        workspace per thread, sentences handed out dynamically). Safe to call from several Python threads at
        once: each call checks its workspaces out of the runtime's pool, and the GIL is released while the
        sentences are parsed.

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
        workspaces = self._check_out(threads)
        try:
            for worker in workspaces:
                memset(&(<Workspace>worker).stats[0], 0, sizeof((<Workspace>worker).stats))
            for t in range(threads):
                pointers[t] = <void*>workspaces[t]
            if count:
                with nogil:
                    run_jobs(sentence_job, pointers, threads, <char*>job, sizeof(SentenceJob), count,
                             &status_view[0])
            for i in range(count):
                if status_view[i] != STATUS_OK:
                    _raise(status_view[i], i, workspaces)
            if stats is not None:
                for worker in workspaces:
                    stats_of = <Workspace>worker
                    np.asarray(stats.table)[:] += np.asarray(<double[:self.n_levels, :STATS]>&stats_of.stats[0])
                stats.sentences += count
        finally:
            self._check_in(workspaces)
        if seconds is not None:
            for i in range(count):
                seconds[i] = job[i].seconds
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
