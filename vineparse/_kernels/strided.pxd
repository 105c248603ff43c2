# cython: language_level=3
"""Row strides of float32 matrices whose rows may be strided (column blocks of a wider array) but whose columns
are adjacent, for kernels that read rows through pointers (biaffine.pyx, label_hidden.pyx)."""


cdef inline Py_ssize_t row_stride(const float[:, :] a, str name) except -1:
    """The distance between a's rows, in floats; ValueError if a row's columns are not adjacent."""
    if a.shape[1] > 1 and a.strides[1] != sizeof(float):
        raise ValueError(f"{name}: the columns of a row must be adjacent (float32, unit column stride)")
    if a.strides[0] % sizeof(float):
        raise ValueError(f"{name}: rows must start on float boundaries")
    return a.strides[0] // sizeof(float)
