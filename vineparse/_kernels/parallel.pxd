# cython: language_level=3
"""Running independent jobs (one per sentence) on several threads: the one place vineparse
uses threads. OpenMP (`prange`, dynamic schedule), so the loop runs without the GIL and
starts in microseconds; without OpenMP at build time (see setup.py) it runs serially.

    cdef int my_job(void* workspace, void* job) noexcept nogil:    # one sentence
        return (<MyGrammar>workspace).reset(...)                  # a STATUS_* code
    ...
    cdef void* workspaces[MAX_THREADS]     # one object per thread, kept alive by the caller
    with nogil:
        run_jobs(my_job, workspaces, n_threads, <char*>jobs, sizeof(MyJob), count, statuses)

With n_threads <= 1 no thread pool is ever started (so a process that forks, as spaCy's
`n_process` does, stays safe unless it asked for threads itself).
"""

cdef enum:
    MAX_THREADS = 256

ctypedef int (*JobFn)(void* workspace, void* job) noexcept nogil

cdef void run_jobs(JobFn fn, void** workspaces, int n_threads, char* jobs, size_t job_size,
                   Py_ssize_t count, int* statuses) noexcept nogil
cdef int openmp_available() noexcept nogil
