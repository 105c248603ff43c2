"""The training objective: the bound on the last level's mask (`objective.bounded_mask`)."""
import numpy as np
import pytest

from vineparse import kernels
from vineparse.cascade.structures import full_mask
from vineparse.pipeline.objective import bounded_mask
from vineparse.pipeline.parts import SentenceScores


def _sentence(scores):
    n = scores.shape[0] - 1
    return SentenceScores(scores, np.zeros((n + 1, 2)), None, np.arange(n + 1))


def _random_tree(rng, n):
    """A random projective tree (the best tree of random scores)."""
    return kernels.eisner(rng.normal(size=(n + 1, n + 1)))


@pytest.mark.parametrize("seed", range(6))
def test_ties_are_bounded_and_the_gold_tree_kept(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    scores = np.round(rng.normal(size=(n + 1, n + 1)), 0)          # many ties
    heads = _random_tree(rng, n)
    cap = int(rng.integers(2, 6))
    mask = full_mask(n) if seed % 2 else None
    out = bounded_mask(mask, _sentence(scores), heads, cap)
    assert out[heads[1:], np.arange(1, n + 1)].all()
    assert (out[:, 1:].sum(axis=0) <= cap).all() and not out[:, 0].any() and not out.diagonal().any()
    for m in range(1, n + 1):                    # the kept non-gold heads are the best-scoring ones
        others = np.flatnonzero(full_mask(n)[:, m] & (np.arange(n + 1) != heads[m]))
        kept = np.flatnonzero(out[:, m] & (np.arange(n + 1) != heads[m]))
        if len(kept):
            assert scores[kept, m].min() >= np.sort(scores[others, m])[::-1][len(kept) - 1]
    kernels.eisner(np.where(out, 0.0, -np.inf), out)      # admits a tree (the gold one)


def test_a_mask_within_the_cap_only_gets_the_gold_arcs():
    rng = np.random.default_rng(1)
    n = 12
    heads = _random_tree(rng, n)
    mask = np.zeros((n + 1, n + 1), dtype=bool)
    mask[0, 1:] = True
    out = bounded_mask(mask, _sentence(rng.normal(size=(n + 1, n + 1))), heads, 8)
    expected = mask.copy()
    expected[heads[1:], np.arange(1, n + 1)] = True
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(bounded_mask(None, _sentence(np.zeros((n + 1, n + 1))), heads, None), full_mask(n))
