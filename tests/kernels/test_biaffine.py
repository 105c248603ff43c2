"""The compiled dense biaffine scores (`_kernels/biaffine.pyx`) against the numpy formula, sentence by sentence,
for rows in any order and strided terms; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.biaffine import biaffine_dense
from vineparse.pipeline.scorers import DISTANCE_EDGES, N_BUCKETS, dense_buckets


def terms(rng, R, a):
    """Row terms as `biaffine_row_terms` leaves them: column blocks of wider arrays (strided rows)."""
    head = rng.normal(size=(R, a + 1 + N_BUCKETS)).astype(np.float32)
    HD = rng.normal(size=(R, 2 * a + 3)).astype(np.float32)
    DE = rng.normal(size=(R, N_BUCKETS)).astype(np.float32)
    return head[:, :a], head[:, a], head[:, a + 1:], HD[:, a:2 * a], DE


def expected(HU, Hu, HF, D, DE, rows):
    out = []
    for r in rows:
        b = dense_buckets(len(r) - 1)
        S = HU[r] @ D[r].T + Hu[r][:, None]
        S += np.take_along_axis(HF[r], b, axis=1)
        S += DE[r][np.arange(len(r))[None, :], b]
        out.append(S.astype(np.float64))
    return out


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 45), max_size=8), st.integers(1, 9))
def test_dense_scores_equal_the_formula(seed, lengths, a):
    rng = np.random.default_rng(seed)
    R = 50
    HU, Hu, HF, D, DE = terms(rng, R, a)
    rows = [rng.choice(R, size=n + 1, replace=n + 1 > R) for n in lengths]
    found = biaffine_dense(HU, D, Hu, HF, DE, rows, DISTANCE_EDGES)
    assert len(found) == len(rows)
    for got, want in zip(found, expected(HU, Hu, HF, D, DE, rows)):
        assert got.dtype == np.float64 and got.flags["C_CONTIGUOUS"] and got.shape == want.shape
        assert np.allclose(got, want, rtol=1e-5, atol=1e-4)


def test_empty_inputs():
    HU, Hu, HF, D, DE = terms(np.random.default_rng(0), 4, 3)
    assert biaffine_dense(HU, D, Hu, HF, DE, [], DISTANCE_EDGES) == []
    (empty,) = biaffine_dense(HU, D, Hu, HF, DE, [np.zeros(0, dtype=np.int64)], DISTANCE_EDGES)
    assert empty.shape == (0, 0)


def test_errors_name_the_problem():
    HU, Hu, HF, D, DE = terms(np.random.default_rng(0), 6, 4)
    with pytest.raises(ValueError, match="outside 0..5"):
        biaffine_dense(HU, D, Hu, HF, DE, [np.array([0, 6])], DISTANCE_EDGES)
    with pytest.raises(ValueError, match="outside 0..5"):
        biaffine_dense(HU, D, Hu, HF, DE, [np.array([0, -1])], DISTANCE_EDGES)
    with pytest.raises(ValueError, match="1-d"):
        biaffine_dense(HU, D, Hu, HF, DE, [np.zeros((2, 2), dtype=np.int64)], DISTANCE_EDGES)
    with pytest.raises(ValueError, match="must share R"):
        biaffine_dense(HU, D[:5], Hu, HF, DE, [np.array([0, 1])], DISTANCE_EDGES)
    with pytest.raises(ValueError, match="must be"):
        biaffine_dense(HU, D, Hu, HF[:, 1:], DE, [np.array([0, 1])], DISTANCE_EDGES)
    wide = np.zeros((6, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="adjacent"):
        biaffine_dense(wide[:, ::2], D, Hu, HF, DE, [np.array([0, 1])], DISTANCE_EDGES)
