"""Reading each word's column of the arc marginals (`_kernels/head_columns.pyx`) against its definition,
written with numpy, for random marginals with ties and every floor; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.head_columns import head_columns
from vineparse.kernels import eisner_marginals


def by_definition(marginals, trees, floor):
    head, offsets, heads, probs = [], [0], [], []
    for found, tree in zip(marginals, trees):
        for m in range(1, len(tree)):
            head.append(found[tree[m], m])
            column = found[:, m]
            kept = [h for h in range(len(tree)) if column[h] >= floor]
            kept.sort(key=lambda h: (-column[h], h))
            heads += kept
            probs += [column[h] for h in kept]
            offsets.append(len(heads))
    return np.array(head), np.array(offsets), np.array(heads, dtype=np.int64), np.array(probs)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(0, 9), min_size=0, max_size=6), st.sampled_from([1e-9, 0.01, 0.1, 0.5, 1.0]),
       st.integers(0, 10_000))
def test_equals_the_definition(lengths, floor, seed):
    rng = np.random.default_rng(seed)
    marginals, trees = [], []
    for n in lengths:
        # values from a small set, so that ties and values equal to the floor occur
        marginals.append(rng.choice([0.0, 0.01, 0.1, 0.25, 0.5, 1.0], size=(n + 1, n + 1)))
        trees.append(np.concatenate([[-1], rng.integers(0, n + 1, size=n)]).astype(np.int64))
    found = head_columns(marginals, trees, floor)
    for got, expected in zip(found, by_definition(marginals, trees, floor)):
        np.testing.assert_array_equal(got, expected.reshape(got.shape))


def test_real_marginals_keep_the_mass_above_the_floor():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(8, 8))
    _, marginals = eisner_marginals(scores)
    tree = np.array([-1, 0, 1, 1, 2, 2, 4, 4])
    head, offsets, heads, probs = head_columns([marginals], [tree], 1e-12)
    np.testing.assert_allclose(head, marginals[tree[1:], np.arange(1, 8)])
    for m in range(1, 8):
        kept = slice(offsets[m - 1], offsets[m])
        assert np.all(np.diff(probs[kept]) <= 0)
        np.testing.assert_allclose(probs[kept].sum(), 1.0, atol=1e-9)    # every head of marginal > 0 is kept


def test_errors_name_the_problem():
    good = [np.eye(3)], [np.array([-1, 0, 1])]
    with pytest.raises(ValueError, match="floor"):
        head_columns(*good, 0.0)
    with pytest.raises(ValueError, match="1 marginal arrays but 2 trees"):
        head_columns(good[0], good[1] * 2, 0.1)
    with pytest.raises(ValueError, match="sentence 0: marginals of shape"):
        head_columns([np.eye(4)], good[1], 0.1)
    with pytest.raises(ValueError, match="sentence 0: heads must be"):
        head_columns(good[0], [np.array([-1, 0, 5])], 0.1)
