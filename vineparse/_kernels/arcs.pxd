# cython: language_level=3

cdef class ArcIndex:
    """The arcs an (n + 1) x (n + 1) mask allows, as adjacency lists, and the
    canonical layout of the higher-order parts over them.

    For head h, `right[right_ptr[h]:right_ptr[h + 1]]` are its allowed
    modifiers m > h in increasing order and `left[left_ptr[h]:left_ptr[h + 1]]`
    its allowed modifiers m < h in decreasing order: both closest first. For a
    modifier m, `heads[head_ptr[m]:head_ptr[m + 1]]` are its allowed heads in
    increasing order.

    Arc ids: the right arc at list position j of h is `right_ptr[h] + j`, the
    left arc at position j is `n_right + left_ptr[h] + j`; `arc_id[h, m]` maps
    back (-1 where not allowed) and `head_slot[h, m]` is the position of h in
    the heads of m (-1 where not allowed).

    Part layout (the order of the compact part-score vectors):
    * sibling parts of arc a = (h, m) at list position j: `sib_ptr[a] + k` for
      k = 0 (m is h's first child on that side, part (h, h, m)) and k = 1 + j'
      (inner sibling s = the modifier at list position j' < j, part (h, s, m));
    * grandparent parts of a: `grand_ptr[a] + slot(g)` for each allowed head g
      of h (none when h is the root);
    * grand-sibling parts of a: `gsib_ptr[a] + slot(g) * (j + 1) + k`.
    """
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t n_arcs
    cdef readonly Py_ssize_t n_right
    cdef readonly Py_ssize_t max_heads
    cdef const unsigned char[:, ::1] allowed
    cdef int[::1] right_ptr
    cdef int[::1] right
    cdef int[::1] left_ptr
    cdef int[::1] left
    cdef int[::1] head_ptr
    cdef int[::1] heads
    cdef int[:, ::1] arc_id
    cdef int[:, ::1] head_slot
    cdef int[::1] sib_ptr
    cdef int[::1] grand_ptr
    cdef int[::1] gsib_ptr

    cdef Py_ssize_t _side(self, Py_ssize_t arc, Py_ssize_t* h, Py_ssize_t* j) noexcept
