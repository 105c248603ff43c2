# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Independent jobs on several threads with OpenMP (see parallel.pxd)."""
from cython.parallel cimport prange, threadid

cdef extern from *:
    """
    #ifdef _OPENMP
    #define VINEPARSE_OPENMP 1
    #else
    #define VINEPARSE_OPENMP 0
    #endif
    """
    const int VINEPARSE_OPENMP


cdef int openmp_available() noexcept nogil:
    return VINEPARSE_OPENMP


cdef void run_jobs(JobFn fn, void** workspaces, int n_threads, char* jobs, size_t job_size,
                   Py_ssize_t count, int* statuses) noexcept nogil:
    """statuses[i] = fn(workspaces[thread], jobs + i * job_size) for i < count, on
    min(n_threads, count) threads (workspaces must hold that many objects)."""
    cdef Py_ssize_t i
    if n_threads > count:
        n_threads = <int>count
    if n_threads <= 1 or not VINEPARSE_OPENMP:
        for i in range(count):
            statuses[i] = fn(workspaces[0], jobs + i * job_size)
        return
    for i in prange(count, nogil=True, num_threads=n_threads, schedule="dynamic"):
        statuses[i] = fn(workspaces[threadid()], jobs + i * job_size)


def has_openmp():
    """Whether the kernels were built with OpenMP (else batches run on one thread)."""
    return bool(VINEPARSE_OPENMP)
