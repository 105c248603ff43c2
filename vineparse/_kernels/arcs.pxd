# cython: language_level=3
"""The arcs a mask allows and the canonical layout of the higher-order parts over them.

C API (`noexcept nogil`, STATUS_* codes of memory.pxd): create once with the GIL,
reset per sentence, then list the parts the caller must score, in layout order:

    cdef ArcIndex arcs = ArcIndex()                       # or grammar.arcs (eisner2/eisner3)
    with nogil:
        status = arcs.reset(n, allowed, n + 1)            # uint8 (n + 1) x (n + 1), row stride n + 1;
                                                          # NULL allows every arc
        if status == STATUS_OK:
            rows = <int64_t*>malloc(3 * arcs.n_sibling_parts * sizeof(int64_t))
            arcs.sibling_parts_into(rows)                 # (h, s, m) per part; s == h: first child
            arcs.grandparent_parts_into(rows3)            # (g, h, m), n_grandparent_parts rows
            arcs.grand_sibling_parts_into(rows4)          # (g, h, s, m), n_grand_sibling_parts rows

Part counts and offsets are int64 (unmasked third-order layouts pass 2^31 parts
near n = 300); `reset` returns STATUS_TOO_LARGE when the index would exceed the
memory limit or n + 1 > MAX_POSITIONS (arc ids are int32).
"""
from libc.stdint cimport int64_t

cdef enum:
    MAX_POSITIONS = 46340       # (n + 1)^2 arc ids fit an int32


cdef class ArcIndex:
    """The arcs an (n + 1) x (n + 1) mask allows, as adjacency lists, and the
    canonical layout of the higher-order parts over them.

    For head h, `right[right_ptr[h]:right_ptr[h + 1]]` are its allowed
    modifiers m > h in increasing order and `left[left_ptr[h]:left_ptr[h + 1]]`
    its allowed modifiers m < h in decreasing order: both closest first. For a
    modifier m, `heads[head_ptr[m]:head_ptr[m + 1]]` are its allowed heads in
    increasing order. The diagonal and the root column are never allowed.

    Arc ids: the right arc at list position j of h is `right_ptr[h] + j`, the
    left arc at position j is `n_right + left_ptr[h] + j`; `arc_id[h * (n + 1) + m]`
    maps back (-1 where not allowed) and `head_slot[h * (n + 1) + m]` is the
    position of h in the heads of m (-1 where not allowed). Per arc id a:
    `arc_head[a]`, `arc_mod[a]`, its list position `arc_pos[a]` and the slot of
    its head among the modifier's heads `arc_mslot[a]`.

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
    cdef readonly int64_t n_sibling_parts
    cdef readonly int64_t n_grandparent_parts
    cdef readonly int64_t n_grand_sibling_parts
    cdef readonly size_t bytes_needed       # what the last reset needed (set also when too large)
    cdef unsigned char* allowed             # (n + 1)^2, row-major
    cdef int* right_ptr
    cdef int* right
    cdef int* left_ptr
    cdef int* left
    cdef int* head_ptr
    cdef int* heads
    cdef int* arc_id
    cdef int* head_slot
    cdef int* arc_head
    cdef int* arc_mod
    cdef int* arc_pos
    cdef int* arc_mslot
    cdef int64_t* sib_ptr
    cdef int64_t* grand_ptr
    cdef int64_t* gsib_ptr
    cdef size_t cap_square, cap_ptr, cap_arcs

    cdef int reset(self, Py_ssize_t n, const unsigned char* allowed, Py_ssize_t stride) noexcept nogil
    cdef void sibling_parts_into(self, int64_t* rows) noexcept nogil
    cdef void grandparent_parts_into(self, int64_t* rows) noexcept nogil
    cdef void grand_sibling_parts_into(self, int64_t* rows) noexcept nogil
