# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The forward pass of a one-layer bidirectional thinc `LSTM` at prediction, on scipy's BLAS: what
`thinc.api.LSTM(nO, nI, bi=True, depth=1)` computes under `with_padded`, for the spaCy component's own
BiLSTM (`pipeline/architectures.with_lstm`). thinc's CPU forward pass calls blis directly (its reference
kernels on CPUs its build does not know) and keeps the training state; this one keeps nothing but the output.

Parameters as thinc lays them out: `params` holds per direction (forward, then backward) Wx (4h, nI), bx (4h,),
Wh (4h, h), bh (4h,), the 4h rows in blocks of h for the forget, input and output gates and the cell
candidate; `HC0` (2, 1, 2, h). thinc's forward pass starts each direction from hidden state HC0[1, 0, d] and
cell state HC0[0, 0, d] (it passes them in that order), and so does this one.

The sequences are packed time-major, longest first, so that step t reads the rows of the b_t sequences that
are at least t + 1 long: the input product of both directions is one sgemm over every word (the biases its
starting value), each step the product of the b_t previous hidden states by Wh (one sgemm; for b_t <= 12,
where a long doc runs alone and a BLAS call costs more in set-up than in arithmetic, `lstm_gates.h`'s
product), then the gates in C (`lstm_gates.h`: a polynomial exp that gcc vectorizes, within 1e-6 of libm's
sigmoid and tanh), the hidden states written straight to their word's output row. A sequence starts the
backward direction at its last word from the initial state. Output per sequence (n, 2h): [forward | backward].
Time O(N h (nI + h)).
"""
import numpy as np
cimport numpy as cnp
from libc.string cimport memcpy
from libc.stdint cimport int64_t

from .scipy_cblas cimport row_major_sgemm

cnp.import_array()


cdef extern from "lstm_gates.h" nogil:
    void lstm_gates_row(float* g, float* c, float* out, int h)
    void lstm_recur_rows(float* g, int ldg, const float* hp, const float* WT, int b, int h)
    int vexp_avx2_in_use()

# steps with at most this many sequences left take lstm_gates.h's product, the others one sgemm: the two cross
# between 12 and 16 rows (h = 128, one core)
cdef enum:
    SMALL_STEP = 12


cdef void run_direction(float* G, int ldg, const float* Wh, const float* WhT, float* Y, Py_ssize_t ldy,
                        const int64_t* dest, float* h_prev, float* c_prev, const int64_t* offsets,
                        const int64_t* sizes, int steps, int h, bint backward) noexcept nogil:
    """One direction over the packed steps: G (N, ldg), the 4h columns of this direction, holds X Wx^T + b
    and becomes the gates; Wh (4h, h) and WhT, its transpose; the hidden state of packed row p goes to row
    dest[p] of Y (rows ldy floats apart); h_prev, c_prev (B, h) hold the initial state of every sequence."""
    cdef int k, t, r, b
    cdef float* g
    for k in range(steps):
        t = steps - 1 - k if backward else k
        b = <int>sizes[t]
        g = G + offsets[t] * ldg
        if b <= SMALL_STEP:
            lstm_recur_rows(g, ldg, h_prev, WhT, b, h)
        else:
            row_major_sgemm(False, True, b, 4 * h, h, 1.0, h_prev, h, Wh, h, 1.0, g, ldg)
        for r in range(b):
            lstm_gates_row(g + r * ldg, c_prev + r * h, h_prev + r * h, h)
            memcpy(Y + dest[offsets[t] + r] * ldy, h_prev + r * h, h * sizeof(float))


def uses_avx2() -> bool:
    """Whether the compiled kernels take their AVX2 + FMA paths: on x86-64 CPUs that have both, unless the
    environment variable VINEPARSE_NO_AVX2 (anything but "" or "0") was set when the kernels first ran
    (`vexp.h`). Each kernel module reads it once; the portable paths give the same values within rounding."""
    return bool(vexp_avx2_in_use())


def bilstm_forward(list X, const float[::1] params, const float[:, :, :, ::1] HC0, int h, out=None) -> list:
    """Per sequence of `X` (float32 (n_k, nI) arrays, n_k >= 0), the BiLSTM's output (float32 (n_k, 2h)).
    params: thinc's LSTM parameter vector (see the module docstring), of length 2 (4h (nI + h) + 8h); HC0
    (2, 1, 2, h). out: None, or a float32 (sum n_k, 2h) array whose rows are contiguous (a column block of a
    wider array will do) that receives the outputs, the sequences' rows in order; RETURNS views of it then.
    RAISES ValueError on other shapes."""
    cdef Py_ssize_t nI = X[0].shape[1] if X else 0, n_seq = len(X)
    if h < 1 or params.shape[0] != 2 * (4 * h * (nI + h) + 8 * h):
        raise ValueError(f"params has {params.shape[0]} values; a one-layer BiLSTM of width {h} per direction "
                         f"over {nI} inputs has {2 * (4 * h * (nI + h) + 8 * h)}")
    if HC0.shape[0] != 2 or HC0.shape[1] != 1 or HC0.shape[2] != 2 or HC0.shape[3] != h:
        raise ValueError(f"HC0 must be (2, 1, 2, {h}), got {tuple(np.asarray(HC0).shape)}")
    lengths = np.array([x.shape[0] for x in X], dtype=np.int64)
    if any(x.ndim != 2 or x.shape[1] != nI for x in X):
        raise ValueError(f"every sequence must be (n, {nI})")
    n_total = int(lengths.sum())
    if out is None:
        out = np.empty((n_total, 2 * h), dtype=np.float32)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (n_total, 2 * h)
          or n_total and (out.strides[1] != sizeof(float) or out.strides[0] % sizeof(float))):
        raise ValueError(f"out must be a float32 ({n_total}, {2 * h}) array with contiguous rows")
    ends = np.cumsum(lengths)
    outputs = [out[end - n:end] for end, n in zip(ends, lengths)]
    if not n_total:
        return outputs
    order = np.argsort(-lengths, kind="stable")
    cdef int d, steps = int(lengths[order[0]])
    sizes = (n_seq - np.cumsum(np.bincount(lengths, minlength=steps + 1))[:steps]).astype(np.int64)  # b_t
    offsets = (np.cumsum(sizes) - sizes).astype(np.int64)
    # packed row of (rank r, step t) = offsets[t] + r
    rank_of = np.empty(n_seq, dtype=np.int64)
    rank_of[order] = np.arange(n_seq)
    starts = np.cumsum(lengths) - lengths
    seq = np.repeat(np.arange(n_seq), lengths)
    step = np.arange(n_total) - np.repeat(starts, lengths)
    packed_row = offsets[step] + rank_of[seq]
    packed = np.empty((n_total, nI), dtype=np.float32)
    packed[packed_row] = np.concatenate(X)
    dest = np.empty(n_total, dtype=np.int64)          # the output row of each packed row
    dest[packed_row] = np.arange(n_total)
    p = np.asarray(params)
    size = 4 * h * (nI + h) + 8 * h
    blocks = [p[d * size:(d + 1) * size] for d in range(2)]
    Wx = np.ascontiguousarray(np.concatenate([block[:4 * h * nI] for block in blocks]).reshape(8 * h, nI))
    gates = np.empty((n_total, 8 * h), dtype=np.float32)           # [forward | backward] per packed row
    gates[...] = np.concatenate([block[4 * h * nI:4 * h * nI + 4 * h] + block[4 * h * (nI + 1) + 4 * h * h:]
                                 for block in blocks])
    cdef float[:, ::1] X_packed = packed, W = Wx, G = gates
    cdef float[:, :] Y = out
    cdef Py_ssize_t ldy = out.strides[0] // sizeof(float)
    cdef const int64_t[::1] rows = dest
    cdef float[:, ::1] Wh, WhT
    cdef float[:, ::1] h_prev, c_prev
    cdef int64_t[::1] offs = offsets, szs = sizes
    cdef int words = n_total
    with nogil:
        row_major_sgemm(False, True, words, 8 * h, <int>nI, 1.0, &X_packed[0, 0], <int>nI, &W[0, 0],
                        <int>nI, 1.0, &G[0, 0], 8 * h)
    for d in range(2):
        Wh = np.ascontiguousarray(blocks[d][4 * h * (nI + 1):4 * h * (nI + 1) + 4 * h * h].reshape(4 * h, h))
        WhT = np.ascontiguousarray(np.asarray(Wh).T)
        h_prev = np.tile(np.asarray(HC0[1, 0, d]), (n_seq, 1))
        c_prev = np.tile(np.asarray(HC0[0, 0, d]), (n_seq, 1))
        with nogil:
            run_direction(&G[0, d * 4 * h], 8 * h, &Wh[0, 0], &WhT[0, 0], &Y[0, d * h], ldy, &rows[0], &h_prev[0, 0],
                          &c_prev[0, 0], &offs[0], &szs[0], steps, h, d == 1)
    return outputs
