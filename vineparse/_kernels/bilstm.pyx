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
are at least t + 1 long: the input product of a direction is one sgemm over every word, each step one sgemm
of the b_t previous hidden states by Wh, then the gates in C (`lstm_gates.h`: a polynomial exp that gcc
vectorizes, within 1e-6 of libm's sigmoid and tanh). A sequence starts the backward direction at its
last word from the initial state. Output per sequence (n, 2h): [forward | backward]. Time O(N h (nI + h)).
"""
import numpy as np
cimport numpy as cnp
from libc.string cimport memcpy
from libc.stdint cimport int64_t

from .scipy_cblas cimport row_major_sgemm

cnp.import_array()


cdef extern from "lstm_gates.h" nogil:
    void lstm_gates_row(float* g, float* c, float* out, int h)


cdef void run_direction(float* G, const float* Wh, float* Y, int ldy, float* h_prev, float* c_prev,
                        const int64_t* offsets, const int64_t* sizes, int steps, int h, bint backward) noexcept nogil:
    """One direction over the packed steps: G (N, 4h) holds X Wx^T + b and becomes the gates; hidden states
    go to Y (N, ldy), rows in packed order; h_prev, c_prev (B, h) hold the initial state of every sequence."""
    cdef int k, t, r, b
    cdef float* g
    for k in range(steps):
        t = steps - 1 - k if backward else k
        b = <int>sizes[t]
        g = G + offsets[t] * 4 * h
        row_major_sgemm(False, True, b, 4 * h, h, 1.0, h_prev, h, Wh, h, 1.0, g, 4 * h)
        for r in range(b):
            lstm_gates_row(g + r * 4 * h, c_prev + r * h, h_prev + r * h, h)
            memcpy(Y + (offsets[t] + r) * ldy, h_prev + r * h, h * sizeof(float))


def bilstm_forward(list X, const float[::1] params, const float[:, :, :, ::1] HC0, int h) -> list:
    """Per sequence of `X` (float32 (n_k, nI) arrays, n_k >= 0), the BiLSTM's output (float32 (n_k, 2h)).
    params: thinc's LSTM parameter vector (see the module docstring), of length 2 (4h (nI + h) + 8h); HC0
    (2, 1, 2, h). RAISES ValueError on other shapes."""
    cdef Py_ssize_t nI = X[0].shape[1] if X else 0, n_seq = len(X)
    if h < 1 or params.shape[0] != 2 * (4 * h * (nI + h) + 8 * h):
        raise ValueError(f"params has {params.shape[0]} values; a one-layer BiLSTM of width {h} per direction "
                         f"over {nI} inputs has {2 * (4 * h * (nI + h) + 8 * h)}")
    if HC0.shape[0] != 2 or HC0.shape[1] != 1 or HC0.shape[2] != 2 or HC0.shape[3] != h:
        raise ValueError(f"HC0 must be (2, 1, 2, {h}), got {tuple(np.asarray(HC0).shape)}")
    lengths = np.array([x.shape[0] for x in X], dtype=np.int64)
    if any(x.ndim != 2 or x.shape[1] != nI for x in X):
        raise ValueError(f"every sequence must be (n, {nI})")
    if not n_seq or not lengths.sum():
        return [np.zeros((n, 2 * h), dtype=np.float32) for n in lengths]
    order = np.argsort(-lengths, kind="stable")
    cdef int d, steps = int(lengths[order[0]])
    sizes = (n_seq - np.cumsum(np.bincount(lengths, minlength=steps + 1))[:steps]).astype(np.int64)  # b_t
    offsets = (np.cumsum(sizes) - sizes).astype(np.int64)
    # packed row of (rank r, step t) = offsets[t] + r
    rank_of = np.empty(n_seq, dtype=np.int64)
    rank_of[order] = np.arange(n_seq)
    starts = np.cumsum(lengths) - lengths
    seq = np.repeat(np.arange(n_seq), lengths)
    step = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    packed_row = offsets[step] + rank_of[seq]
    stacked = np.concatenate([np.asarray(x, dtype=np.float32) for x in X])
    packed = np.empty_like(stacked)
    packed[packed_row] = stacked
    n_total = stacked.shape[0]
    out = np.empty((n_total, 2 * h), dtype=np.float32)
    p = np.asarray(params)
    size = 4 * h * (nI + h) + 8 * h
    cdef float[:, ::1] Y = out
    cdef float[:, ::1] G
    cdef float[:, ::1] Wh
    cdef float[:, ::1] h_prev, c_prev
    cdef int64_t[::1] offs = offsets, szs = sizes
    for d in range(2):
        block = p[d * size:(d + 1) * size]
        Wx = block[:4 * h * nI].reshape(4 * h, nI)
        bias = block[4 * h * nI:4 * h * nI + 4 * h] + block[4 * h * (nI + 1) + 4 * h * h:]
        G = np.ascontiguousarray(packed @ Wx.T + bias, dtype=np.float32)
        Wh = np.ascontiguousarray(block[4 * h * (nI + 1):4 * h * (nI + 1) + 4 * h * h].reshape(4 * h, h))
        h_prev = np.tile(np.asarray(HC0[1, 0, d]), (n_seq, 1))
        c_prev = np.tile(np.asarray(HC0[0, 0, d]), (n_seq, 1))
        with nogil:
            run_direction(&G[0, 0], &Wh[0, 0], &Y[0, d * h], 2 * h, &h_prev[0, 0], &c_prev[0, 0], &offs[0],
                          &szs[0], steps, h, d == 1)
    result = out[packed_row]
    ends = np.cumsum(lengths)
    return [result[end - n:end] for end, n in zip(ends, lengths)]
