# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Checked calls of the grammars from numpy arrays, one sentence or a batch.

The Python faces (vineparse/kernels/*.py) call these. Each call is a list of jobs
(one C struct per sentence: pointers into the caller's arrays and into the
outputs), run without the GIL by a job function that checks the scores (NaN,
+inf, |score| > SCORE_BOUND: one pass in C), resets a grammar object and runs it
(parallel.run_jobs; several threads for batches). Grammar objects are pooled and
reused across calls, so their charts are allocated once per size class, not per
call; an array that is already float64 with contiguous rows is read in place.
Errors come back as STATUS_* codes and are raised here, naming the sentence of a
batch.
"""
cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from .memory cimport (check_scores, STATUS_OK, STATUS_NO_STRUCTURE, STATUS_OUT_OF_MEMORY,
                      STATUS_TOO_LARGE, STATUS_BAD_SCORE, STATUS_BAD_LENGTH)
from .parallel cimport run_jobs, JobFn, MAX_THREADS
from .hypergraph cimport seed_state
from .eisner cimport FirstOrder, ENGINE_AUTO, ENGINE_DENSE, ENGINE_HYPERGRAPH
from .eisner2 cimport SecondOrder
from .eisner3 cimport ThirdOrder
from .vine cimport Vine
from .arcs cimport ArcIndex

import numpy as np
from .memory import check_size, check_status, SCORE_LIMIT

cnp.import_array()

cdef enum:
    BEST = 0
    MAX_MARGINALS = 1
    MARGINALS = 2
    SAMPLE = 3

WHAT = {"best": BEST, "max_marginals": MAX_MARGINALS, "marginals": MARGINALS, "sample": SAMPLE}
ENGINES = {"auto": ENGINE_AUTO, "dense": ENGINE_DENSE, "hypergraph": ENGINE_HYPERGRAPH}


def engine_code(engine):
    """The first-order engine by name: "auto", "dense" or "hypergraph"."""
    try:
        return ENGINES[engine]
    except (KeyError, TypeError):
        raise ValueError(f"engine must be one of {sorted(ENGINES)}, got {engine!r}") from None


# ---------------------------------------------------------------------------
# Arrays in, arrays out

cdef inline bint _rows_contiguous(cnp.ndarray a, int itemsize) noexcept:
    """2-D with contiguous rows and a non-negative row stride that is a multiple of the item size."""
    cdef cnp.npy_intp* st = cnp.PyArray_STRIDES(a)
    return st[1] == itemsize and st[0] >= 0 and st[0] % itemsize == 0


cdef object square_scores(object scores, str name="scores"):
    """`scores` as a float64 (N, N) array with contiguous rows: the input itself when
    it already is one (read in place), else a checked C-contiguous copy."""
    cdef cnp.ndarray a
    if cnp.PyArray_Check(scores):
        a = <cnp.ndarray>scores
        if (cnp.PyArray_TYPE(a) == cnp.NPY_DOUBLE and cnp.PyArray_NDIM(a) == 2
                and cnp.PyArray_DIMS(a)[0] == cnp.PyArray_DIMS(a)[1] and cnp.PyArray_DIMS(a)[0] >= 1
                and _rows_contiguous(a, sizeof(double))):
            return a
    array = np.asarray(scores)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n + 1, n + 1), got {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float64)


cdef object bool_mask(object mask, tuple shape, str name="mask", str what="scores"):
    """`mask` as a bool array of `shape` with contiguous rows (None stays None)."""
    cdef cnp.ndarray a
    if mask is None:
        return None
    if cnp.PyArray_Check(mask):
        a = <cnp.ndarray>mask
        if (cnp.PyArray_TYPE(a) == cnp.NPY_BOOL and cnp.PyArray_NDIM(a) == len(shape)
                and (<object>a).shape == shape and (len(shape) != 2 or _rows_contiguous(a, 1))):
            return a
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise ValueError(f"{name} must be a boolean array, got dtype {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape} but {what} has shape {shape}")
    return np.ascontiguousarray(array)


cdef inline Py_ssize_t row_stride(cnp.ndarray a, int itemsize) noexcept:
    return cnp.PyArray_STRIDES(a)[0] // itemsize


def bad_score_error(scores, Py_ssize_t flat, str name="scores", Py_ssize_t cols=-1):
    """The ValueError for the first bad entry (flat row-major index) of a 2-D array."""
    scores = np.asarray(scores)
    index = tuple(int(i) for i in np.unravel_index(flat, scores.shape))
    value = float(scores[index])
    where = ", ".join(str(i) for i in index)
    if value != value:
        return ValueError(f"{name} contains NaN (first at [{where}])")
    if value == INFINITY:
        return ValueError(f"{name} contains +inf (first at [{where}])")
    return ValueError(f"{name}[{where}] = {value!r} is outside the finite score range "
                      f"[-{SCORE_LIMIT:g}, {SCORE_LIMIT:g}] (use -inf for an impossible arc)")


# ---------------------------------------------------------------------------
# Pools of grammar objects, reused across calls (charts allocated once per size)

cdef class Pool:
    """Grammar objects of one class, handed out to calls and returned after."""
    cdef list free
    cdef object factory

    def __init__(self, factory):
        self.free = []
        self.factory = factory

    cdef object take(self):
        if self.free:
            return self.free.pop()
        return self.factory()

    cdef void give(self, obj):
        if len(self.free) < 2 * MAX_THREADS:
            self.free.append(obj)


cdef Pool FIRST_ORDER_POOL = Pool(FirstOrder)
cdef Pool SECOND_ORDER_POOL = Pool(SecondOrder)
cdef Pool THIRD_ORDER_POOL = Pool(ThirdOrder)
cdef Pool VINE_POOL = Pool(Vine)


cdef class Workers:
    """`count` objects taken from a pool for one batch, as the PyObject* array run_jobs wants."""
    cdef Pool pool
    cdef list objects
    cdef void* pointers[MAX_THREADS]
    cdef int count

    def __init__(self, Pool pool, int count):
        self.pool = pool
        self.count = max(1, min(count, MAX_THREADS))
        self.objects = [pool.take() for _ in range(self.count)]
        for i, obj in enumerate(self.objects):
            self.pointers[i] = <void*>obj

    cdef void release(self):
        for obj in self.objects:
            self.pool.give(obj)
        self.objects = []


cdef object job_buffer(Py_ssize_t count, size_t size):
    """Zeroed memory for `count` job structs, owned by the returned numpy array."""
    return np.zeros(max(count, 1) * size, dtype=np.uint8)


cdef list run_batch(Pool pool, JobFn fn, char* jobs, size_t size, Py_ssize_t count, int n_threads):
    """Run the jobs on up to n_threads threads; RETURNS the status of each."""
    statuses = np.zeros(max(count, 1), dtype=np.intc)
    cdef int[::1] st = statuses
    cdef Workers workers = Workers(pool, min(n_threads, count))
    try:
        with nogil:
            run_jobs(fn, workers.pointers, workers.count, jobs, size, count, &st[0])
    finally:
        workers.release()
    return statuses[:count].tolist()


cdef void prefix_error(error, Py_ssize_t index):
    if index >= 0:
        error.args = (f"sentence {index}: {error.args[0]}",) + error.args[1:]


def thread_count(n_threads):
    """n_threads checked: an int >= 1."""
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
        raise ValueError(f"n_threads must be an integer >= 1, got {n_threads!r}")
    return int(min(n_threads, MAX_THREADS))


# ---------------------------------------------------------------------------
# One job struct for every Eisner grammar (first order uses no part vectors)

cdef struct EisnerJob:
    Py_ssize_t n
    const double* scores
    Py_ssize_t stride
    const unsigned char* mask       # NULL: every arc
    Py_ssize_t mask_stride
    const double* parts[3]          # sib, grand, gsib in the layout of the mask (NULL: none / zero)
    int64_t lengths[3]
    int single_root
    int what
    int engine                      # first order: ENGINE_AUTO / _DENSE / _HYPERGRAPH
    double* value                   # best score or log Z
    int64_t* heads                  # BEST: n + 1; SAMPLE: count rows of heads_stride
    Py_ssize_t heads_stride
    double* arcs                    # MAX_MARGINALS / MARGINALS: n + 1 rows of arcs_stride
    Py_ssize_t arcs_stride
    Py_ssize_t count
    uint64_t seed
    int bad_vector                  # out: -1 the scores, else the part vector with a bad score ...
    Py_ssize_t bad_at               # ... at this flat index
    int64_t expected                # out: the layout's part count (STATUS_BAD_LENGTH)
    size_t bytes                    # out: memory the request needed (STATUS_TOO_LARGE)


cdef int check_job(EisnerJob* j, int vectors) noexcept nogil:
    cdef int k, status
    j.bad_vector = -1
    status = check_scores(j.scores, j.n + 1, j.n + 1, j.stride, &j.bad_at)
    for k in range(vectors):
        if status == STATUS_OK and j.parts[k] != NULL:
            j.bad_vector = k
            status = check_scores(j.parts[k], 1, <Py_ssize_t>j.lengths[k], <Py_ssize_t>j.lengths[k], &j.bad_at)
    return status


cdef int check_length(EisnerJob* j, int k, int64_t expected) noexcept nogil:
    if j.parts[k] != NULL and j.lengths[k] != expected:
        j.bad_vector, j.expected = k, expected
        return STATUS_BAD_LENGTH
    return STATUS_OK


cdef int first_order_job(void* ws, void* job) noexcept nogil:
    cdef EisnerJob* j = <EisnerJob*>job
    cdef uint64_t state
    cdef int status = check_job(j, 0)
    if status != STATUS_OK:
        return status
    (<FirstOrder>ws).engine = j.engine
    status = (<FirstOrder>ws).reset(j.n, j.scores, j.stride, j.mask, j.mask_stride, j.single_root != 0)
    j.bytes = (<FirstOrder>ws).bytes_needed
    if status != STATUS_OK:
        return status
    if j.what == BEST:
        return (<FirstOrder>ws).best(j.value, j.heads)
    if j.what == MAX_MARGINALS:
        return (<FirstOrder>ws).max_marginals(j.value, j.arcs, j.arcs_stride)
    if j.what == MARGINALS:
        return (<FirstOrder>ws).marginals(j.value, j.arcs, j.arcs_stride)
    state = seed_state(j.seed)
    return (<FirstOrder>ws).sample(&state, j.count, j.heads, j.heads_stride)


cdef int second_order_job(void* ws, void* job) noexcept nogil:
    cdef EisnerJob* j = <EisnerJob*>job
    cdef uint64_t state
    cdef int status = check_job(j, 1)
    if status == STATUS_OK:
        status = (<SecondOrder>ws).arcs.reset(j.n, j.mask, j.mask_stride)
        j.bytes = (<SecondOrder>ws).arcs.bytes_needed
    if status == STATUS_OK:
        status = check_length(j, 0, (<SecondOrder>ws).arcs.n_sibling_parts)
    if status == STATUS_OK:
        status = (<SecondOrder>ws).reset(j.scores, j.stride, j.parts[0], j.single_root != 0)
        j.bytes = (<SecondOrder>ws).bytes_needed
    if status != STATUS_OK:
        return status
    if j.what == BEST:
        return (<SecondOrder>ws).best(j.value, j.heads)
    if j.what == MAX_MARGINALS:
        return (<SecondOrder>ws).max_marginals(j.value, j.arcs, j.arcs_stride)
    if j.what == MARGINALS:
        return (<SecondOrder>ws).marginals(j.value, j.arcs, j.arcs_stride)
    state = seed_state(j.seed)
    return (<SecondOrder>ws).sample(&state, j.count, j.heads, j.heads_stride)


cdef int third_order_job(void* ws, void* job) noexcept nogil:
    cdef EisnerJob* j = <EisnerJob*>job
    cdef uint64_t state
    cdef int status = check_job(j, 3)
    if status == STATUS_OK:
        status = (<ThirdOrder>ws).arcs.reset(j.n, j.mask, j.mask_stride)
        j.bytes = (<ThirdOrder>ws).arcs.bytes_needed
    if status == STATUS_OK:
        status = check_length(j, 0, (<ThirdOrder>ws).arcs.n_sibling_parts)
    if status == STATUS_OK:
        status = check_length(j, 1, (<ThirdOrder>ws).arcs.n_grandparent_parts)
    if status == STATUS_OK:
        status = check_length(j, 2, (<ThirdOrder>ws).arcs.n_grand_sibling_parts)
    if status == STATUS_OK:
        status = (<ThirdOrder>ws).reset(j.scores, j.stride, j.parts[0], j.parts[1], j.parts[2],
                                        j.single_root != 0)
        j.bytes = (<ThirdOrder>ws).bytes_needed
    if status != STATUS_OK:
        return status
    if j.what == BEST:
        return (<ThirdOrder>ws).best(j.value, j.heads)
    if j.what == MAX_MARGINALS:
        return (<ThirdOrder>ws).max_marginals(j.value, j.arcs, j.arcs_stride)
    if j.what == MARGINALS:
        return (<ThirdOrder>ws).marginals(j.value, j.arcs, j.arcs_stride)
    state = seed_state(j.seed)
    return (<ThirdOrder>ws).sample(&state, j.count, j.heads, j.heads_stride)


cdef class EisnerSpec:
    """What differs between the grammars in their checked calls."""
    cdef Pool pool
    cdef JobFn fn
    cdef int vectors                # compact part vectors taken
    cdef str what                   # for messages
    cdef str no_tree                # "the arc mask admits no {no_tree}"

    @staticmethod
    cdef EisnerSpec make(Pool pool, JobFn fn, int vectors, str what, str no_tree):
        cdef EisnerSpec spec = EisnerSpec.__new__(EisnerSpec)
        spec.pool, spec.fn, spec.vectors, spec.what, spec.no_tree = pool, fn, vectors, what, no_tree
        return spec


cdef EisnerSpec FIRST = EisnerSpec.make(FIRST_ORDER_POOL, first_order_job, 0, "first-order parsing",
                                        "projective tree")
cdef EisnerSpec SECOND = EisnerSpec.make(SECOND_ORDER_POOL, second_order_job, 1, "second-order parsing",
                                         "projective tree with finite arc and sibling scores")
cdef EisnerSpec THIRD = EisnerSpec.make(THIRD_ORDER_POOL, third_order_job, 3, "third-order parsing",
                                        "projective tree with finite arc and part scores")

PART_NAMES = ("sib", "grand", "gsib")
PART_KINDS = ("sibling", "grandparent", "grand-sibling")
PART_DIMS = (3, 3, 4)
PART_LISTINGS = ("sibling_parts", "grandparent_parts", "grand_sibling_parts")


cdef object point_outputs(EisnerJob* j, int what, Py_ssize_t N, Py_ssize_t count):
    """Allocate one sentence's output and point the job at it."""
    cdef cnp.ndarray out
    check_size(8 * N * (1 if what == BEST else count if what == SAMPLE else N), "the result arrays")
    if what == BEST:
        out = np.empty(N, dtype=np.int64)
    elif what == SAMPLE:
        out = np.empty((count, N), dtype=np.int64)
    else:
        out = np.empty((N, N))
        j.arcs, j.arcs_stride = <double*>cnp.PyArray_DATA(out), N
        return out
    j.heads, j.heads_stride = <int64_t*>cnp.PyArray_DATA(out), N
    return out


cdef object part_vectors(EisnerSpec spec, tuple given, Py_ssize_t N, mask, EisnerJob* j):
    """Point the job at the compact part vectors (dense ones gathered in the
    layout of the mask); RETURNS the arrays to keep alive."""
    cdef cnp.ndarray typed
    cdef int k
    keep = []
    layout = None
    for k in range(spec.vectors):
        value = given[k]
        j.parts[k], j.lengths[k] = NULL, 0
        if value is None:
            continue
        array = np.asarray(value)
        name = PART_NAMES[k]
        if array.dtype.kind not in "fiu":
            raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
        if array.ndim != 1:
            if spec.vectors == 1 and array.ndim != 3:
                raise ValueError(f"sib must be a dense (n + 1, n + 1, n + 1) array or a compact 1-D vector, "
                                 f"got shape {array.shape}")
            if array.shape != (N,) * PART_DIMS[k]:
                if spec.vectors == 1:
                    raise ValueError(f"dense sib must have shape {(N, N, N)}, got {array.shape}")
                raise ValueError(f"{name} must be a compact vector or have shape {(N,) * PART_DIMS[k]}, "
                                 f"got {array.shape}")
            flat = np.ascontiguousarray(array, dtype=np.float64).reshape(1, -1)
            bad = first_bad(flat)
            if bad >= 0:
                raise bad_score_error(array, bad, name)
            if layout is None:
                layout = ArcIndex(np.ones((N, N), dtype=np.uint8) if mask is None else mask)
            array = np.ascontiguousarray(array[tuple(getattr(layout, PART_LISTINGS[k])().T)], dtype=np.float64)
        else:
            array = np.ascontiguousarray(array, dtype=np.float64)
        typed = array
        keep.append(typed)
        j.parts[k], j.lengths[k] = <const double*>cnp.PyArray_DATA(typed), cnp.PyArray_DIMS(typed)[0]
    return keep


cdef Py_ssize_t first_bad(const double[:, ::1] flat):
    cdef Py_ssize_t where = -1
    cdef int status = STATUS_OK
    if flat.shape[1]:
        with nogil:
            status = check_scores(&flat[0, 0], 1, flat.shape[1], flat.shape[1], &where)
    return where if status != STATUS_OK else -1


cdef object point_sentence(EisnerSpec spec, EisnerJob* j, scores, mask, tuple parts, bint single_root,
                           int what, Py_ssize_t count, uint64_t seed):
    """Check one sentence's arrays and point the job at them; RETURNS what to keep alive."""
    cdef cnp.ndarray s = square_scores(scores)
    cdef cnp.ndarray m
    cdef Py_ssize_t N = cnp.PyArray_DIMS(s)[0]
    mask = bool_mask(mask, (N, N))
    j.n, j.scores, j.stride = N - 1, <const double*>cnp.PyArray_DATA(s), row_stride(s, sizeof(double))
    j.mask, j.mask_stride = NULL, 0
    if mask is not None:
        m = <cnp.ndarray>mask
        j.mask, j.mask_stride = <const unsigned char*>cnp.PyArray_DATA(m), row_stride(m, 1)
    j.single_root, j.what, j.count, j.seed = single_root, what, count, seed
    keep = part_vectors(spec, parts, N, mask, j) if spec.vectors else None
    return (s, mask, keep)


cdef object eisner_error(EisnerSpec spec, int status, EisnerJob* j, scores, mask, Py_ssize_t index):
    """The exception for a failed job (sentence `index` of a batch, -1 for a single call)."""
    from ..kernels._checks import allowed_arcs, no_tree_error
    cdef int k = j.bad_vector
    if status == STATUS_BAD_SCORE:
        if k < 0:
            error = bad_score_error(scores, j.bad_at)
        else:
            error = bad_score_error(np.asarray(<double[:j.lengths[k]]>j.parts[k]), j.bad_at, PART_NAMES[k])
    elif status == STATUS_BAD_LENGTH:
        got, name = j.lengths[k], PART_NAMES[k]
        if spec.vectors == 1:
            error = ValueError(f"compact sib must have one score per sibling part: expected length "
                               f"{j.expected} (second_order_parts of the mask), got {got}")
        else:
            error = ValueError(f"{name} has {got} scores but the mask admits {j.expected} {PART_KINDS[k]} "
                               f"parts (expected length {j.expected}, got {got}; see third_order_parts)")
    elif status == STATUS_NO_STRUCTURE:
        error = no_tree_error(allowed_arcs(np.asarray(scores), mask), spec.no_tree)
    else:
        try:
            check_status(status, j.bytes, spec.what)
            error = RuntimeError(f"{spec.what} failed with status {status}")
        except (MemoryError, ValueError) as caught:
            error = caught
    prefix_error(error, index)
    return error


cdef object eisner_call(EisnerSpec spec, scores, mask, tuple parts, bint single_root, int what,
                        Py_ssize_t count, uint64_t seed, int engine=ENGINE_AUTO):
    cdef EisnerJob job
    cdef double value = 0.0 / 0.0
    cdef int status
    memset(&job, 0, sizeof(job))
    keep = point_sentence(spec, &job, scores, mask, parts, single_root, what, count, seed)
    job.engine = engine
    job.value = &value
    out = point_outputs(&job, what, job.n + 1, count)
    if what == SAMPLE and count == 0:
        return value, out
    ws = spec.pool.take()
    with nogil:
        status = spec.fn(<void*>ws, &job)
    spec.pool.give(ws)
    if status != STATUS_OK:
        raise eisner_error(spec, status, &job, keep[0], keep[1], -1)
    return value, out


def first_order(scores, mask, bint single_root, int what, Py_ssize_t count=1, uint64_t seed=0,
                int engine=ENGINE_AUTO):
    """One sentence: (value, output); value is the best score / log Z (NaN for
    BEST and SAMPLE), output the heads, the (n + 1)^2 arc values or the samples."""
    return eisner_call(FIRST, scores, mask, (), single_root, what, count, seed, engine)


def second_order(scores, sib, mask, bint single_root, int what, Py_ssize_t count=1, uint64_t seed=0):
    """As `first_order`, with sibling part scores (dense or compact)."""
    return eisner_call(SECOND, scores, mask, (sib,), single_root, what, count, seed)


def third_order(scores, sib, grand, gsib, mask, bint single_root, int what, Py_ssize_t count=1,
                uint64_t seed=0):
    """As `first_order`, with sibling, grandparent and grand-sibling part scores (each
    dense, compact or None)."""
    return eisner_call(THIRD, scores, mask, (sib, grand, gsib), single_root, what, count, seed)


# ---------------------------------------------------------------------------
# Batches of Eisner calls

cdef object padded_scores(scores, lengths):
    """(B, N, N) float64 with contiguous rows, and the int64 lengths (checked)."""
    array = np.asarray(scores)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"scores must be a real-valued array, got dtype {array.dtype}")
    if array.ndim != 3 or array.shape[1] != array.shape[2] or array.shape[1] < 1:
        raise ValueError(f"padded scores must have shape (B, N, N), got {array.shape}")
    if array.dtype != np.float64 or array.strides[2] != 8 or array.strides[1] % 8 or array.strides[0] % 8 \
            or array.strides[1] < 0 or array.strides[0] < 0:
        array = np.ascontiguousarray(array, dtype=np.float64)
    B, N = array.shape[0], array.shape[1]
    if lengths is None:
        lengths = np.full(B, N - 1, dtype=np.int64)
    else:
        lengths = np.asarray(lengths)
        if lengths.size == 0:
            lengths = lengths.astype(np.int64)
        if lengths.dtype.kind not in "iu" or lengths.shape != (B,):
            raise ValueError(f"lengths must be {B} integers (words per sentence), got {lengths.dtype} "
                             f"of shape {lengths.shape}")
        if B and (lengths.min() < 0 or lengths.max() > N - 1):
            raise ValueError(f"lengths must lie in 0..{N - 1} (the padded size minus the root)")
        lengths = lengths.astype(np.int64)
    return array, lengths


def eisner_batch(str grammar, scores, lengths, masks, tuple parts, bint single_root, int what,
                 int n_threads, Py_ssize_t count=1, uint64_t seed=0, int engine=ENGINE_AUTO):
    """A batch: scores a list of (n_i + 1, n_i + 1) arrays (masks and part vectors
    lists or None), or for first order a padded (B, N, N) array with `lengths`
    (masks padded (B, N, N) or None). RETURNS (values (B,), outputs): a list of
    per-sentence outputs, or one padded array (heads -1, max-marginals -inf,
    marginals 0 beyond each sentence)."""
    cdef EisnerSpec spec = {"first": FIRST, "second": SECOND, "third": THIRD}[grammar]
    cdef cnp.ndarray s, m, out_arr, values
    cdef Py_ssize_t B, N = 0, i, k
    cdef EisnerJob* jobs
    cdef char* base
    cdef bint padded = isinstance(scores, np.ndarray) and np.ndim(scores) == 3
    n_threads = thread_count(n_threads)
    if padded and spec.vectors:
        raise ValueError("padded scores are for first order; pass lists of arrays for higher orders")
    if not padded:
        if isinstance(scores, np.ndarray) or not hasattr(scores, "__len__"):
            raise ValueError("scores must be a list of (n + 1, n + 1) arrays or a padded (B, N, N) array")
        if lengths is not None:
            raise ValueError("lengths go with padded scores only")
        B = len(scores)
        for k, given in enumerate(parts):
            if given is not None and len(given) != B:
                raise ValueError(f"{PART_NAMES[k]} must give one vector per sentence ({B}), got {len(given)}")
        if masks is not None and len(masks) != B:
            raise ValueError(f"masks must give one mask per sentence ({B}), got {len(masks)}")
    else:
        scores, lengths = padded_scores(scores, lengths)
        B = scores.shape[0]
    values = np.full(B, np.nan)
    buffer = job_buffer(B, sizeof(EisnerJob))
    jobs = <EisnerJob*>cnp.PyArray_DATA(<cnp.ndarray>buffer)
    keep = []
    outputs = []
    if padded:
        s = <cnp.ndarray>scores
        N = cnp.PyArray_DIMS(s)[1]
        if masks is not None:
            masks = np.asarray(masks)
            if masks.dtype != np.bool_ or masks.shape != (<object>s).shape:
                raise ValueError(f"padded masks must be boolean of shape {(<object>s).shape}, got "
                                 f"{masks.dtype} {masks.shape}")
            m = np.ascontiguousarray(masks)
        check_size(8 * B * N * (1 if what == BEST else count if what == SAMPLE else N), "the result arrays")
        if what == BEST:
            out_arr = np.full((B, N), -1, dtype=np.int64)
        elif what == SAMPLE:
            out_arr = np.full((B, count, N), -1, dtype=np.int64)
        else:
            out_arr = np.full((B, N, N), -np.inf if what == MAX_MARGINALS else 0.0)
        for i in range(B):
            jobs[i].n = lengths[i]
            jobs[i].scores = <const double*>(<char*>cnp.PyArray_DATA(s) + i * cnp.PyArray_STRIDES(s)[0])
            jobs[i].stride = cnp.PyArray_STRIDES(s)[1] // sizeof(double)
            if masks is not None:
                jobs[i].mask = <const unsigned char*>cnp.PyArray_DATA(m) + i * N * N
                jobs[i].mask_stride = N
            jobs[i].single_root, jobs[i].what, jobs[i].count, jobs[i].seed = single_root, what, count, seed + i
            jobs[i].engine = engine
            jobs[i].value = <double*>cnp.PyArray_DATA(values) + i
            base = <char*>cnp.PyArray_DATA(out_arr) + i * cnp.PyArray_STRIDES(out_arr)[0]
            if what == BEST or what == SAMPLE:
                jobs[i].heads, jobs[i].heads_stride = <int64_t*>base, N
            else:
                jobs[i].arcs, jobs[i].arcs_stride = <double*>base, N
        outputs = out_arr
    else:
        for i in range(B):
            given = tuple(None if p is None else p[i] for p in parts) + (None,) * (3 - len(parts))
            keep.append(point_sentence(spec, &jobs[i], scores[i], None if masks is None else masks[i],
                                       given, single_root, what, count, seed + <uint64_t>i))
            jobs[i].engine = engine
            jobs[i].value = <double*>cnp.PyArray_DATA(values) + i
            outputs.append(point_outputs(&jobs[i], what, jobs[i].n + 1, count))
    statuses = run_batch(spec.pool, spec.fn, <char*>jobs, sizeof(EisnerJob), B, n_threads)
    for i, status in enumerate(statuses):
        if status != STATUS_OK:
            if padded:
                k = lengths[i] + 1
                sentence = scores[i, :k, :k]
                mask = None if masks is None else masks[i, :k, :k]
            else:
                sentence, mask = keep[i][0], keep[i][1]
            raise eisner_error(spec, status, &jobs[i], sentence, mask, i)
    return values, outputs


# ---------------------------------------------------------------------------
# The vine

cdef struct VineJob:
    Py_ssize_t n
    Py_ssize_t band
    const double* scores
    Py_ssize_t stride
    const double* outer
    Py_ssize_t outer_stride
    const unsigned char* mask
    Py_ssize_t mask_stride
    const unsigned char* outer_mask
    Py_ssize_t outer_mask_stride
    int what
    double* value
    int64_t* heads
    signed char* attach
    double* arcs
    Py_ssize_t arcs_stride
    double* outer_out
    int bad_in_outer
    Py_ssize_t bad_i, bad_j
    size_t bytes


cdef int vine_job(void* ws, void* job) noexcept nogil:
    cdef VineJob* j = <VineJob*>job
    cdef int status = (<Vine>ws).reset(j.n, j.band, j.scores, j.stride, j.outer, j.outer_stride, j.mask,
                                      j.mask_stride, j.outer_mask, j.outer_mask_stride)
    j.bytes = (<Vine>ws).bytes_needed
    if status == STATUS_BAD_SCORE:
        j.bad_in_outer, j.bad_i, j.bad_j = (<Vine>ws).bad_in_outer, (<Vine>ws).bad_i, (<Vine>ws).bad_j
    if status != STATUS_OK:
        return status
    if j.what == BEST:
        return (<Vine>ws).best_vine(j.value, j.heads, j.attach)
    if j.what == MAX_MARGINALS:
        return (<Vine>ws).max_marginals_vine(j.value, j.arcs, j.arcs_stride, j.outer_out)
    return (<Vine>ws).marginals_vine(j.value, j.arcs, j.arcs_stride, j.outer_out)


cdef object outer_scores(outer, Py_ssize_t N, str name="outer"):
    """`outer` as float64 (N, 2) with contiguous rows (the input itself when it is one)."""
    cdef cnp.ndarray a
    if cnp.PyArray_Check(outer):
        a = <cnp.ndarray>outer
        if (cnp.PyArray_TYPE(a) == cnp.NPY_DOUBLE and cnp.PyArray_NDIM(a) == 2 and cnp.PyArray_DIMS(a)[0] == N
                and cnp.PyArray_DIMS(a)[1] == 2 and _rows_contiguous(a, sizeof(double))):
            return a
    array = np.asarray(outer)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
    if array.shape != (N, 2):
        raise ValueError(f"{name} must have shape {(N, 2)}, got {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float64)


cdef object point_vine(VineJob* j, scores, outer, Py_ssize_t band, mask, outer_mask, int what):
    cdef cnp.ndarray s = square_scores(scores)
    cdef Py_ssize_t N = cnp.PyArray_DIMS(s)[0]
    cdef cnp.ndarray o = outer_scores(outer, N)
    cdef cnp.ndarray m
    mask = bool_mask(mask, (N, N))
    outer_mask = bool_mask(outer_mask, (N, 2), "outer_mask", "outer")
    j.n, j.band, j.what = N - 1, band, what
    j.scores, j.stride = <const double*>cnp.PyArray_DATA(s), row_stride(s, sizeof(double))
    j.outer, j.outer_stride = <const double*>cnp.PyArray_DATA(o), row_stride(o, sizeof(double))
    j.mask = j.outer_mask = NULL
    if mask is not None:
        m = <cnp.ndarray>mask
        j.mask, j.mask_stride = <const unsigned char*>cnp.PyArray_DATA(m), row_stride(m, 1)
    if outer_mask is not None:
        m = <cnp.ndarray>outer_mask
        j.outer_mask, j.outer_mask_stride = <const unsigned char*>cnp.PyArray_DATA(m), row_stride(m, 1)
    return (s, o, mask, outer_mask)


cdef object point_vine_outputs(VineJob* j, int what, Py_ssize_t N):
    cdef cnp.ndarray a, b
    check_size(8 * N * (2 if what == BEST else N + 2), "the result arrays")
    if what == BEST:
        a = np.empty(N, dtype=np.int64)
        b = np.empty(N, dtype=np.int8)
        j.heads, j.attach = <int64_t*>cnp.PyArray_DATA(a), <signed char*>cnp.PyArray_DATA(b)
    else:
        a = np.empty((N, N))
        b = np.empty((N, 2))
        j.arcs, j.arcs_stride, j.outer_out = <double*>cnp.PyArray_DATA(a), N, <double*>cnp.PyArray_DATA(b)
    return a, b


cdef object vine_error(int status, VineJob* j, keep, Py_ssize_t index):
    cdef Py_ssize_t N = j.n + 1
    if status == STATUS_BAD_SCORE:
        array, name = (keep[1], "outer") if j.bad_in_outer else (keep[0], "scores")
        error = bad_score_error(array, j.bad_i * np.shape(array)[1] + j.bad_j, name)
    elif status == STATUS_NO_STRUCTURE:
        error = no_vine_error(keep, j.band)
    else:
        try:
            check_status(status, j.bytes, "the vine pass")
            error = RuntimeError(f"the vine pass failed with status {status}")
        except (MemoryError, ValueError) as caught:
            error = caught
    prefix_error(error, index)
    return error


cdef object no_vine_error(keep, Py_ssize_t band):
    """The error for masks that admit no vine structure, naming a stranded word if any."""
    from ..kernels._checks import NoStructureError
    cdef Vine graph = Vine(keep[0], keep[1], band, keep[2], keep[3])
    used = np.ones(graph.n_items)
    has_head = graph.arc_matrix(used, 0.0)[:, 1:].any(axis=0)
    has_label = graph.outer_matrix(used, 0.0)[1:].any(axis=1)
    stranded = np.flatnonzero(~has_head & ~has_label) + 1
    detail = f": word {stranded[0]} has no allowed short head or vine label" if len(stranded) else ""
    return NoStructureError(f"the masks admit no vine structure{detail}")


def vine(scores, outer, Py_ssize_t band, mask, outer_mask, int what):
    """One sentence: (value, output); for BEST output = (heads, attach), else
    (arc values (n + 1, n + 1), outer-label values (n + 1, 2))."""
    cdef VineJob job
    cdef double value = 0.0 / 0.0
    cdef int status
    memset(&job, 0, sizeof(job))
    keep = point_vine(&job, scores, outer, band, mask, outer_mask, what)
    job.value = &value
    out = point_vine_outputs(&job, what, job.n + 1)
    ws = VINE_POOL.take()
    with nogil:
        status = vine_job(<void*>ws, &job)
    VINE_POOL.give(ws)
    if status != STATUS_OK:
        raise vine_error(status, &job, keep, -1)
    return value, out


def vine_batch(scores, outer, Py_ssize_t band, masks, outer_masks, lengths, int what, int n_threads):
    """A batch of vine passes: lists of arrays, or padded scores (B, N, N) and outer
    (B, N, 2) with `lengths` (masks likewise padded or None). RETURNS (values (B,),
    outputs): per sentence (heads, attach) or (arcs, outer) in lists, or padded
    arrays (heads -1, attach 0, max-marginals -inf, marginals 0 beyond a sentence)."""
    cdef cnp.ndarray s, o, values, a, b, m, om
    cdef Py_ssize_t B, N = 0, i, k
    cdef VineJob* jobs
    cdef bint padded = isinstance(scores, np.ndarray) and np.ndim(scores) == 3
    n_threads = thread_count(n_threads)
    if padded:
        scores, lengths = padded_scores(scores, lengths)
        B, N = scores.shape[0], scores.shape[1]
        outer = np.asarray(outer)
        if outer.dtype.kind not in "fiu" or outer.shape != (B, N, 2):
            raise ValueError(f"padded outer must be real-valued of shape {(B, N, 2)}, got {outer.dtype} {outer.shape}")
        outer = np.ascontiguousarray(outer, dtype=np.float64)
        for name, given, shape in (("masks", masks, (B, N, N)), ("outer_masks", outer_masks, (B, N, 2))):
            if given is not None and (np.asarray(given).dtype != np.bool_ or np.shape(given) != shape):
                raise ValueError(f"padded {name} must be boolean of shape {shape}")
        if masks is not None:
            m = np.ascontiguousarray(masks)
        if outer_masks is not None:
            om = np.ascontiguousarray(outer_masks)
    else:
        if isinstance(scores, np.ndarray) or not hasattr(scores, "__len__"):
            raise ValueError("scores must be a list of (n + 1, n + 1) arrays or a padded (B, N, N) array")
        B = len(scores)
        for name, given in (("outer", outer), ("masks", masks), ("outer_masks", outer_masks)):
            if given is not None and len(given) != B:
                raise ValueError(f"{name} must give one array per sentence ({B}), got {len(given)}")
    values = np.full(B, np.nan)
    buffer = job_buffer(B, sizeof(VineJob))
    jobs = <VineJob*>cnp.PyArray_DATA(<cnp.ndarray>buffer)
    keep = []
    if padded:
        s, o = scores, outer
        check_size(8 * B * N * (2 if what == BEST else N + 2), "the result arrays")
        if what == BEST:
            a = np.full((B, N), -1, dtype=np.int64)
            b = np.zeros((B, N), dtype=np.int8)
        else:
            fill = -np.inf if what == MAX_MARGINALS else 0.0
            a = np.full((B, N, N), fill)
            b = np.full((B, N, 2), fill)
        for i in range(B):
            jobs[i].n, jobs[i].band, jobs[i].what = lengths[i], band, what
            jobs[i].scores = <const double*>(<char*>cnp.PyArray_DATA(s) + i * cnp.PyArray_STRIDES(s)[0])
            jobs[i].stride = cnp.PyArray_STRIDES(s)[1] // sizeof(double)
            jobs[i].outer, jobs[i].outer_stride = <const double*>cnp.PyArray_DATA(o) + i * N * 2, 2
            if masks is not None:
                jobs[i].mask, jobs[i].mask_stride = <const unsigned char*>cnp.PyArray_DATA(m) + i * N * N, N
            if outer_masks is not None:
                jobs[i].outer_mask = <const unsigned char*>cnp.PyArray_DATA(om) + i * N * 2
                jobs[i].outer_mask_stride = 2
            jobs[i].value = <double*>cnp.PyArray_DATA(values) + i
            if what == BEST:
                jobs[i].heads = <int64_t*>cnp.PyArray_DATA(a) + i * N
                jobs[i].attach = <signed char*>cnp.PyArray_DATA(b) + i * N
            else:
                jobs[i].arcs, jobs[i].arcs_stride = <double*>cnp.PyArray_DATA(a) + i * N * N, N
                jobs[i].outer_out = <double*>cnp.PyArray_DATA(b) + i * N * 2
        outputs = (a, b)
    else:
        outputs = []
        for i in range(B):
            keep.append(point_vine(&jobs[i], scores[i], outer[i], band, None if masks is None else masks[i],
                                   None if outer_masks is None else outer_masks[i], what))
            jobs[i].value = <double*>cnp.PyArray_DATA(values) + i
            outputs.append(point_vine_outputs(&jobs[i], what, jobs[i].n + 1))
    statuses = run_batch(VINE_POOL, vine_job, <char*>jobs, sizeof(VineJob), B, n_threads)
    for i, status in enumerate(statuses):
        if status != STATUS_OK:
            if padded:
                k = lengths[i] + 1
                sentence = (scores[i, :k, :k], outer[i, :k], None if masks is None else masks[i, :k, :k],
                            None if outer_masks is None else outer_masks[i, :k])
            else:
                sentence = keep[i]
            raise vine_error(status, &jobs[i], sentence, i)
    return values, outputs
