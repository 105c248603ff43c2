import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse import kernels
from vineparse.cascade.thresholds import (arc_mask, cap_heads, gold_ranks, gold_recall, kept_share, prune_mask, threshold,
                                         vine_mask)


def test_threshold_interpolates_between_mean_and_best():
    values = np.array([[1.0, 3.0], [-np.inf, 5.0]])
    assert threshold(5.0, values, None, 0.0) == pytest.approx(3.0)
    assert threshold(5.0, values, None, 1.0) == pytest.approx(5.0)
    assert threshold(5.0, values, None, 0.5) == pytest.approx(4.0)
    assert threshold(5.0, values, None, -1.0) == pytest.approx(1.0)
    outer = np.array([[100.0, 100.0], [7.0, -np.inf]])      # row 0 (the root) never counts
    assert threshold(5.0, values, outer, 0.0) == pytest.approx(4.0)


def test_arc_mask_keeps_the_best_tree_and_drops_unused_arcs():
    mm = np.full((3, 3), -np.inf)
    mm[0, 1], mm[1, 2], mm[0, 2], mm[2, 1] = 4.0, 4.0, 1.0, 1.0
    keep = arc_mask(mm, 4.0, 0.5)
    assert keep.tolist() == [[False, True, False], [False, False, True], [False, False, False]]
    assert kept_share(keep) == pytest.approx(2 / 4)
    assert gold_recall(keep, np.array([-1, 0, 1])) == (2, 2)
    assert gold_recall(keep, np.array([-1, 2, 0])) == (0, 2)


def test_vine_mask_lets_long_arcs_through_surviving_outer_arcs():
    n, band = 8, 2
    arc_mm = np.full((n + 1, n + 1), -np.inf)
    arc_mm[0, 1] = 10.0
    for m in range(2, n + 1):
        arc_mm[m - 1, m] = 10.0
    outer = np.full((n + 1, 2), -np.inf)
    outer[6, 0] = 10.0        # word 6 may take a head left of 6 - 2 = 4: heads 1, 2, 3
    outer[2, 1] = 0.0         # below the threshold
    mask = vine_mask(arc_mm, outer, 10.0, 0.5, band)
    assert np.flatnonzero(mask[:, 6]).tolist() == [1, 2, 3, 5]
    assert np.flatnonzero(mask[:, 2]).tolist() == [1]
    assert mask[0, 1] and not mask[0, 2:].any()


@given(st.integers(0, 10_000), st.integers(1, 14), st.integers(1, 6), st.floats(-1.0, 0.9))
def test_vine_mask_follows_its_definition(seed, n, band, alpha):
    """Every cell against the definition: an arc survives on its own max-marginal, or it is longer than the
    band on the side of a surviving outer arc of its modifier."""
    rng = np.random.default_rng(seed)
    arc_mm = np.where(rng.random((n + 1, n + 1)) < 0.5, rng.normal(size=(n + 1, n + 1)), -np.inf)
    outer = np.where(rng.random((n + 1, 2)) < 0.5, rng.normal(size=(n + 1, 2)), -np.inf)
    outer[0] = -np.inf
    best = 3.0
    finite = np.concatenate([arc_mm.ravel(), outer[1:].ravel()])
    finite = finite[np.isfinite(finite)]
    t = alpha * best + (1 - alpha) * (finite.mean() if len(finite) else best)
    mask = vine_mask(arc_mm, outer, best, alpha, band)
    for h in range(n + 1):
        for m in range(n + 1):
            expected = (arc_mm[h, m] >= t or (1 <= h < m - band and outer[m, 0] >= t)
                        or (h > m + band and outer[m, 1] >= t))
            margin = min(abs(arc_mm[h, m] - t), abs(outer[m, 0] - t), abs(outer[m, 1] - t))
            if margin > 1e-9:           # the C mean may differ from numpy's in the last bits
                assert mask[h, m] == expected


def test_cap_heads_keeps_the_k_best_heads_per_word_with_ties():
    rng = np.random.default_rng(3)
    n = 9
    mm = np.round(rng.normal(size=(n + 1, n + 1)), 1)      # rounding makes ties
    mm[:, 0] = -np.inf
    mask = np.isfinite(mm) & (rng.random((n + 1, n + 1)) < 0.8)
    for k in (1, 2, 4, 20):
        capped = cap_heads(mask, mm, k)
        assert not (capped & ~mask).any()
        for m in range(1, n + 1):
            allowed = np.flatnonzero(mask[:, m])
            if len(allowed) <= k:
                assert capped[:, m].tolist() == mask[:, m].tolist()
                continue
            kth = np.sort(mm[allowed, m])[::-1][k - 1]
            assert sorted(np.flatnonzero(capped[:, m])) == sorted(allowed[mm[allowed, m] >= kth])
            assert capped[allowed[np.argmax(mm[allowed, m])], m]      # the best arc always survives


@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(1, 4))
def test_cap_heads_keeps_the_best_tree_and_at_most_k_heads(seed, n, k):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1))
    best, mm = kernels.eisner_max_marginals(scores)
    tree = kernels.eisner(scores)
    mask = cap_heads(np.isfinite(mm), mm, k)
    assert mask[tree[1:], np.arange(1, n + 1)].all()
    assert (mask[:, 1:].sum(axis=0) <= k).all()          # continuous scores: no ties
    assert not (mask & ~np.isfinite(mm)).any()


def test_gold_ranks_say_which_gold_arcs_a_cap_keeps():
    rng = np.random.default_rng(4)
    n = 8
    mm = rng.normal(size=(n + 1, n + 1))
    heads = np.array([-1, 2, 0, 2, 5, 3, 5, 6, 6])
    full = np.ones((n + 1, n + 1), dtype=bool)
    ranks = gold_ranks(mm, heads)
    full[:, 0] = False
    for k in (1, 3, 5):
        capped = cap_heads(full, mm, k)
        assert (capped[heads[1:], np.arange(1, n + 1)] == (ranks < k)).all()


@given(st.integers(0, 10_000), st.integers(1, 8), st.floats(-1.0, 0.99), st.floats(-1e6, 1e6))
def test_the_best_tree_always_survives_rounding(seed, n, alpha, shift):
    """t_a is clamped to the best score: a * best + (1 - a) * best can round above best (regression: a
    one-word sentence lost its only arc at a = 0.1)."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) + shift
    best, mm = kernels.eisner_max_marginals(scores)
    tree = kernels.eisner(scores)
    mask = prune_mask(best, mm, None, alpha, 1)
    assert mask[tree[1:], np.arange(1, n + 1)].all()
