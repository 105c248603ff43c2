"""The compiled span term (`_kernels/span.pyx`) against its definition (the mean of Z over the rows between head
and dependent, summed directly) and against `scorers.span_scores`, sentence by sentence, for
rows in any order and strided terms; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.span import add_span_dense
from vineparse.pipeline.scorers import span_scores


def terms(rng, R, k):
    """(A, B, Z) as `span_row_terms` leaves Z: a column block of a wider array (strided rows)."""
    A, B = (rng.normal(size=(R, k)).astype(np.float32) for _ in range(2))
    HD = rng.normal(size=(R, 5 + k)).astype(np.float32)
    return A, B, HD[:, 5:]


def direct(A, B, Z, r):
    """The span term of the sentence r summed arc by arc: the mean of Z over the rows between."""
    n1 = len(r)
    S = np.zeros((n1, n1))
    for h in range(n1):
        for m in range(n1):
            lo, hi = min(h, m), max(h, m)
            if hi - lo > 1:
                inside = r[lo + 1:hi]
                between = Z[inside].astype(np.float64).mean(axis=0)
                S[h, m] = (A[r[h]].astype(np.float64) + B[r[m]]) @ between
    return S


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 12), max_size=6), st.integers(1, 6))
def test_span_term_equals_its_definition(seed, lengths, k):
    rng = np.random.default_rng(seed)
    R = 30
    A, B, Z = terms(rng, R, k)
    rows = [rng.choice(R, size=n + 1, replace=n + 1 > R) for n in lengths]
    base = [rng.normal(size=(len(r), len(r))) for r in rows]
    dense = [S.copy() for S in base]
    assert add_span_dense(A, B, Z, rows, dense) is dense
    for got, start, r in zip(dense, base, rows):
        assert np.allclose(got - start, direct(A, B, Z, r), rtol=1e-4, atol=1e-4)


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 60), min_size=1, max_size=5))
def test_span_term_equals_the_training_formula(seed, lengths):
    """Long sentences and k = 32, as trained: the same scores as `span_scores` (numpy, with its gradient)."""
    rng = np.random.default_rng(seed)
    R, k = 200, 32
    A, B, Z = terms(rng, R, k)
    rows = [rng.choice(R, size=n + 1, replace=False) for n in lengths]
    dense = add_span_dense(A, B, Z, rows, [np.zeros((len(r), len(r))) for r in rows])
    for got, r in zip(dense, rows):
        want = span_scores(np, A[r], B[r], Z[r])[0]
        assert np.allclose(got, want, rtol=1e-4, atol=1e-3)


def test_empty_and_short_inputs():
    A, B, Z = terms(np.random.default_rng(0), 4, 3)
    assert add_span_dense(A, B, Z, [], []) == []
    short = [np.zeros((0, 0)), np.ones((1, 1)), np.ones((2, 2))]
    add_span_dense(A, B, Z, [np.zeros(0, dtype=np.int64), np.array([1]), np.array([2, 3])], short)
    assert short[1].tolist() == [[1.0]] and short[2].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_errors_name_the_problem_and_write_nothing():
    A, B, Z = terms(np.random.default_rng(0), 6, 4)
    scores = np.zeros((4, 4))
    with pytest.raises(ValueError, match="outside 0..5"):
        add_span_dense(A, B, Z, [np.array([0, 1, 2, 6])], [scores])
    with pytest.raises(ValueError, match="outside 0..5"):
        add_span_dense(A, B, Z, [np.array([0, -1, 2, 3])], [scores])
    assert not scores.any()
    with pytest.raises(ValueError, match="1-d"):
        add_span_dense(A, B, Z, [np.zeros((2, 2), dtype=np.int64)], [scores])
    with pytest.raises(ValueError, match="must share R"):
        add_span_dense(A, B[:5], Z, [np.array([0, 1])], [np.zeros((2, 2))])
    with pytest.raises(ValueError, match="2 row lists for 1"):
        add_span_dense(A, B, Z, [np.array([0, 1]), np.array([2])], [np.zeros((2, 2))])
    for bad in (np.zeros((3, 3)), np.zeros((4, 4), dtype=np.float32), np.zeros((4, 8))[:, ::2]):
        with pytest.raises(ValueError, match="sentence 0 must be a writeable C-contiguous float64 \\(4, 4\\)"):
            add_span_dense(A, B, Z, [np.array([0, 1, 2, 3])], [bad])
    wide = np.zeros((6, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="adjacent"):
        add_span_dense(wide[:, ::2], B, Z, [np.array([0, 1, 2])], [np.zeros((3, 3))])
    assert not scores.any()
