"""The compiled hidden layer of the label classifier (`_kernels/label_hidden.pyx`) equals the numpy expression
it replaces, bit for bit, with and without the children, on strided projections; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.label_hidden import label_hidden_rows


def numpy_hidden(P, l, heads, mods, M, buckets, children=None, none=None):
    hidden = P[heads, :l] + P[mods, l:2 * l]
    hidden += M[buckets]
    if children is not None:
        missing = children < 0
        safe = np.where(missing, 0, children)
        for side in (0, 1):
            block = P[safe[:, side], (2 + side) * l:(3 + side) * l]
            hidden += np.where(missing[:, side, None], none[side][None, :], block)
    return np.maximum(hidden, 0)


def arcs(rng, R, A, l, buckets=5, children=True):
    wide = rng.normal(size=(R, 4 * l + 7)).astype(np.float32)
    P = wide[:, 3:3 + (4 if children else 2) * l]              # a column block: strided rows
    heads, mods = (rng.integers(0, R, A).astype(np.intc) for _ in range(2))
    M = rng.normal(size=(buckets, l)).astype(np.float32)
    b = rng.integers(0, buckets, A).astype(np.intc)
    kids = rng.integers(-1, R, (A, 2)).astype(np.intc) if children else None
    none = rng.normal(size=(2, l)).astype(np.float32) if children else None
    return P, heads, mods, M, b, kids, none


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 10_000), st.integers(1, 30), st.integers(0, 40), st.integers(1, 11), st.booleans())
def test_equals_the_numpy_expression(seed, R, A, l, children):
    P, heads, mods, M, b, kids, none = arcs(np.random.default_rng(seed), R, A, l, children=children)
    got = label_hidden_rows(P, l, heads, mods, M, b, kids, none)
    assert got.dtype == np.float32 and got.shape == (A, l)
    assert np.array_equal(got, numpy_hidden(P, l, heads, mods, M, b, kids, none))


def test_errors_name_the_problem():
    P, heads, mods, M, b, kids, none = arcs(np.random.default_rng(0), 6, 4, 3)
    with pytest.raises(ValueError, match="together"):
        label_hidden_rows(P, 3, heads, mods, M, b, kids, None)
    with pytest.raises(ValueError, match="do not fit width"):
        label_hidden_rows(P, 4, heads, mods, M, b, kids, none)
    with pytest.raises(ValueError, match="describe 4 arcs"):
        label_hidden_rows(P, 3, heads, mods[:3], M, b, kids, none)
    bad = heads.copy()
    bad[1] = 6
    with pytest.raises(ValueError, match="arc 1: a row or bucket out of range"):
        label_hidden_rows(P, 3, bad, mods, M, b, kids, none)
    bad_kids = kids.copy()
    bad_kids[2, 1] = 9
    with pytest.raises(ValueError, match="arc 2: a child row out of range"):
        label_hidden_rows(P, 3, heads, mods, M, b, bad_kids, none)
