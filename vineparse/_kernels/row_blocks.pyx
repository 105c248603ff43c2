# cython: language_level=3, boundscheck=False, wraparound=False
"""Whether numpy arrays are consecutive row blocks of one array, without copying them (for
`pipeline.batch.stacked`, which then takes that array instead of stacking the blocks)."""
import numpy as np
cimport numpy as cnp

cnp.import_array()


def consecutive_rows(list arrays):
    """The rows of one array that `arrays` cover, where they are consecutive row blocks of it in order: its
    base is a C-contiguous 2-d numpy array, every array a C-contiguous view of whole rows of it (same
    dtype), each starting where the one before ends. RETURNS that slice of the base (a view), or None
    when `arrays` are anything else (or empty). O(len(arrays)), a few pointer comparisons each."""
    if not arrays or type(arrays[0]) is not np.ndarray:
        return None
    base = arrays[0].base
    if type(base) is not np.ndarray:
        return None
    cdef cnp.ndarray whole = base, block
    if whole.ndim != 2 or not cnp.PyArray_IS_C_CONTIGUOUS(whole) or whole.shape[0] == 0:
        return None
    cdef Py_ssize_t row_bytes = whole.strides[0], rows = 0
    cdef char* origin = <char*>cnp.PyArray_DATA(whole)
    cdef char* expected = <char*>cnp.PyArray_DATA(<cnp.ndarray>arrays[0])
    cdef Py_ssize_t first = (expected - origin) // row_bytes
    for item in arrays:
        if type(item) is not np.ndarray:
            return None
        block = item
        if (item.base is not base or block.ndim != 2 or not cnp.PyArray_IS_C_CONTIGUOUS(block)
                or block.shape[1] != whole.shape[1] or cnp.PyArray_TYPE(block) != cnp.PyArray_TYPE(whole)
                or <char*>cnp.PyArray_DATA(block) != expected):
            return None
        expected += block.shape[0] * row_bytes
        rows += block.shape[0]
    return base[first:first + rows]
