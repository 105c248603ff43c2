"""Each word's column of the first-order marginals at a temperature (`_kernels/head_columns.pyx`): against the
brute-force marginals of every projective tree, against its definition over `kernels.eisner_marginals` for
random scores with ties, masked arcs and every floor; and its errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.head_columns import head_columns
from vineparse.kernels import eisner_marginals

from .oracle import first_order_score, oracle, projective_trees


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


def random_tree(rng, n):
    return np.concatenate([[-1], rng.integers(0, n + 1, size=n)]).astype(np.int64)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.8])
def test_columns_of_the_brute_force_marginals(n, temperature):
    rng = np.random.default_rng(10 * n + int(4 * temperature))
    scores = rng.normal(size=(n + 1, n + 1)) * 2.0
    _, _, _, _, marginals = oracle(projective_trees(n), lambda t: first_order_score(t, scores / temperature))
    tree = random_tree(rng, n)
    head, offsets, heads, probs = head_columns([scores], [tree], temperature, 1e-12)
    np.testing.assert_allclose(head, marginals[tree[1:], np.arange(1, n + 1)], atol=1e-12)
    for m in range(1, n + 1):
        kept = slice(offsets[m - 1], offsets[m])
        np.testing.assert_allclose(probs[kept], marginals[heads[kept], m], atol=1e-12)
        assert set(heads[kept]) == set(np.flatnonzero(marginals[:, m] >= 1e-12))
        assert np.all(np.diff(probs[kept]) <= 0)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(0, 9), min_size=0, max_size=6), st.sampled_from([1e-9, 0.01, 0.1, 0.5, 1.0]),
       st.sampled_from([0.25, 1.0, 2.8284]), st.integers(0, 10_000))
def test_equals_the_definition(lengths, floor, temperature, seed):
    rng = np.random.default_rng(seed)
    scores, trees = [], []
    for n in lengths:
        # scores from a small set, so that tied marginals and marginals equal to the floor occur; some arcs
        # masked (-inf), never the root's or the chain 0 -> 1 -> ... -> n, so a tree remains
        found = rng.choice([0.0, 0.0, 1.0, 2.0, -np.inf], size=(n + 1, n + 1))
        found[0] = rng.choice([0.0, 1.0], size=n + 1)
        found[np.arange(n), np.arange(1, n + 1)] = rng.choice([0.0, 1.0], size=n)
        scores.append(found)
        trees.append(random_tree(rng, n))
    got = head_columns(scores, trees, temperature, floor)
    # the kernel reads scores * (1 / T), so the same product makes the marginals equal to the last bit
    marginals = [eisner_marginals(found * (1.0 / temperature))[1] for found in scores]
    for value, expected in zip(got, by_definition(marginals, trees, floor)):
        np.testing.assert_array_equal(value, expected.reshape(value.shape))


def test_real_marginals_keep_the_mass_above_the_floor():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(8, 8))
    tree = np.array([-1, 0, 1, 1, 2, 2, 4, 4])
    head, offsets, heads, probs = head_columns([scores], [tree], 1.0, 1e-12)
    for m in range(1, 8):
        kept = slice(offsets[m - 1], offsets[m])
        assert np.all(np.diff(probs[kept]) <= 0)
        np.testing.assert_allclose(probs[kept].sum(), 1.0, atol=1e-9)    # every head of marginal > 0 is kept


def test_a_long_sentence_is_read_like_the_marginals():
    rng = np.random.default_rng(5)
    n = 150
    scores = rng.normal(size=(n + 1, n + 1)) * 3.0
    tree = random_tree(rng, n)
    head, *_ = head_columns([scores], [tree], 1.5, 0.01)
    expected = eisner_marginals(scores * (1.0 / 1.5))[1]
    np.testing.assert_allclose(head, expected[tree[1:], np.arange(1, n + 1)], rtol=1e-12, atol=1e-15)


def test_errors_name_the_problem():
    good = [np.zeros((3, 3))], [np.array([-1, 0, 1])]
    with pytest.raises(ValueError, match="floor"):
        head_columns(*good, 1.0, 0.0)
    for temperature in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="temperature"):
            head_columns(*good, temperature, 0.1)
    with pytest.raises(ValueError, match="1 score arrays but 2 trees"):
        head_columns(good[0], good[1] * 2, 1.0, 0.1)
    with pytest.raises(ValueError, match=r"sentence 0: scores of shape \(4, 4\) for a tree of 2 words"):
        head_columns([np.zeros((4, 4))], good[1], 1.0, 0.1)
    with pytest.raises(ValueError, match="sentence 0: scores must be C-contiguous float64"):
        head_columns([np.zeros((3, 3), dtype=np.float32)], good[1], 1.0, 0.1)
    with pytest.raises(ValueError, match="sentence 0: the tree must be a contiguous int64"):
        head_columns(good[0], [np.array([-1, 0, 1], dtype=np.int32)], 1.0, 0.1)
    with pytest.raises(ValueError, match="sentence 0: heads must be"):
        head_columns(good[0], [np.array([-1, 0, 5])], 1.0, 0.1)
    with pytest.raises(ValueError, match="sentence 1: scores / temperature hold NaN"):
        head_columns([good[0][0], np.full((3, 3), np.nan)], [good[1][0]] * 2, 1.0, 0.1)
    with pytest.raises(ValueError, match="beyond"):
        head_columns([np.full((3, 3), 1e300)], good[1], 0.5, 0.1)
    masked = np.full((3, 3), -np.inf)
    with pytest.raises(ValueError, match="sentence 0: the scores admit no projective tree"):
        head_columns([masked], good[1], 1.0, 0.1)
    assert [len(x) for x in head_columns([], [], 1.0, 0.1)] == [0, 1, 0, 0]
