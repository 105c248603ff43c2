"""The compiled BiLSTM forward pass (`_kernels/bilstm.pyx`) against thinc's `LSTM` under `with_padded`, for
any sequence lengths and parameters; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from thinc.api import LSTM, with_padded

from vineparse._kernels.bilstm import bilstm_forward


def thinc_bilstm(h, nI, seed):
    """A thinc BiLSTM (h per direction) with random parameters and initial states."""
    model = with_padded(LSTM(nO=2 * h, nI=nI, bi=True, depth=1))
    model.initialize(X=[np.zeros((2, nI), dtype=np.float32)])
    lstm = model.layers[0]
    rng = np.random.default_rng(seed)
    for name in ("LSTM", "HC0"):
        lstm.set_param(name, rng.normal(0.0, 0.5, lstm.get_param(name).shape).astype(np.float32))
    return model, lstm


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=20), st.sampled_from([1, 3, 8, 9, 16]),
       st.sampled_from([1, 5, 12]), st.integers(0, 10_000))
def test_equals_thincs_forward_pass(lengths, h, nI, seed):
    """Steps of more than 12 sequences take the sgemm, the others lstm_gates.h's product (rows in pairs or
    alone, 32 columns at a time and the rest): h = 9 and 16 have both kinds of columns."""
    model, lstm = thinc_bilstm(h, nI, seed)
    rng = np.random.default_rng(seed + 1)
    X = [rng.normal(0.0, 2.0, size=(n, nI)).astype(np.float32) for n in lengths]
    expected = model.predict(X)
    found = bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), h)
    assert [y.shape for y in found] == [(n, 2 * h) for n in lengths]
    for y, e in zip(found, expected):
        np.testing.assert_allclose(y, e, atol=2e-5)


def test_empty_sequences_and_extreme_inputs():
    model, lstm = thinc_bilstm(4, 3, 0)
    X = [np.zeros((0, 3), dtype=np.float32), np.full((5, 3), 1e6, dtype=np.float32),
         np.full((2, 3), -1e30, dtype=np.float32), np.zeros((0, 3), dtype=np.float32)]
    found = bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), 4)
    assert [y.shape for y in found] == [(0, 8), (5, 8), (2, 8), (0, 8)]
    assert all(np.isfinite(y).all() and (np.abs(y) <= 1.0).all() for y in found)
    np.testing.assert_allclose(found[1], model.predict([X[1]])[0], atol=2e-5)
    assert bilstm_forward([np.zeros((0, 3), dtype=np.float32)], lstm.get_param("LSTM"),
                          lstm.get_param("HC0"), 4)[0].shape == (0, 8)


def test_errors_name_the_shape():
    _, lstm = thinc_bilstm(4, 3, 0)
    X = [np.zeros((2, 3), dtype=np.float32)]
    with pytest.raises(ValueError, match="params has"):
        bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), 5)
    with pytest.raises(ValueError, match="HC0"):
        bilstm_forward(X, lstm.get_param("LSTM"), np.zeros((2, 1, 1, 4), dtype=np.float32), 4)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        bilstm_forward(X + [np.zeros((2, 4), dtype=np.float32)], lstm.get_param("LSTM"), lstm.get_param("HC0"), 4)


@settings(deadline=None, max_examples=20)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=8), st.integers(0, 10_000))
def test_writes_into_a_column_block_of_a_wider_array(lengths, seed):
    """With `out` (here the right-hand columns of a wider array), the outputs land in its rows in order,
    equal to those of the returned arrays without it, and nothing else of the wider array is touched."""
    h, nI = 3, 5
    _, lstm = thinc_bilstm(h, nI, seed)
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(n, nI)).astype(np.float32) for n in lengths]
    expected = bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), h)
    wide = np.full((sum(lengths), 4 + 2 * h), 7.0, dtype=np.float32)
    found = bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), h, out=wide[:, 4:])
    assert [y.shape for y in found] == [(n, 2 * h) for n in lengths]
    for y, e in zip(found, expected):
        np.testing.assert_array_equal(y, e)
    np.testing.assert_array_equal(wide[:, 4:], np.concatenate(expected))
    assert (wide[:, :4] == 7.0).all()


def test_out_of_the_wrong_shape_or_dtype_is_refused():
    _, lstm = thinc_bilstm(4, 3, 0)
    X = [np.zeros((2, 3), dtype=np.float32), np.zeros((3, 3), dtype=np.float32)]
    for out in (np.zeros((4, 8), dtype=np.float32), np.zeros((5, 8)), np.zeros((8, 5), dtype=np.float32).T,
                np.zeros((5, 16), dtype=np.float32)[:, ::2]):
        with pytest.raises(ValueError, match=r"out must be a float32 \(5, 8\) array"):
            bilstm_forward(X, lstm.get_param("LSTM"), lstm.get_param("HC0"), 4, out=out)
