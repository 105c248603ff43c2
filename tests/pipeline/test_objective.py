"""The training objective: the bound on the last level's mask (`objective.bounded_mask`) and the matrix-tree
arc loss (`objective.matrix_tree_loss`)."""
import numpy as np
import pytest

from vineparse import kernels
from vineparse.cascade.structures import full_mask
from vineparse.pipeline.objective import bounded_mask, matrix_tree_loss
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


@pytest.mark.parametrize("seed", range(4))
def test_the_matrix_tree_loss_against_every_tree(seed):
    """log Z - s(y) over every single-rooted tree (crossing ones too) and its gradient, the marginals minus
    the gold arcs, against enumeration; a crossing gold tree is learnt as it is."""
    from oracle import all_trees, first_order_score
    rng = np.random.default_rng(seed)
    n = 5
    scores = rng.normal(size=(n + 1, n + 1)) * 2
    trees = all_trees(n)
    gold = np.array([-1, 0, 3, 1, 2, 3])            # 1 -> 3 and 2 -> 4 cross
    sent = _sentence(scores)
    loss = matrix_tree_loss(sent, gold)
    values = np.array([first_order_score(t, scores) for t in trees])
    log_z = np.logaddexp.reduce(values)
    assert loss == pytest.approx(log_z - first_order_score(gold, scores))
    expected = np.zeros((n + 1, n + 1))
    for t, p in zip(trees, np.exp(values - log_z)):
        expected[t[1:], np.arange(1, n + 1)] += p
    expected[gold[1:], np.arange(1, n + 1)] -= 1.0
    np.testing.assert_allclose(sent.d_arcs, expected, atol=1e-9)


def test_the_matrix_tree_loss_falls_back_to_the_best_tree_when_too_peaked(monkeypatch):
    """Where float64 cannot hold the determinant, the loss is s(best) - s(y) with the best tree's arcs
    standing for the marginals."""
    def ill_conditioned(scores, *args, **kwargs):
        raise kernels.IllConditionedError("too peaked")

    rng = np.random.default_rng(5)
    n = 6
    scores = rng.normal(size=(n + 1, n + 1))
    gold = np.array([-1, 0, 1, 1, 2, 2, 3])
    monkeypatch.setattr(kernels, "matrix_tree_marginals", ill_conditioned)
    sent = _sentence(scores)
    loss = matrix_tree_loss(sent, gold)
    best = kernels.mst(scores)
    m = np.arange(1, n + 1)
    assert loss == pytest.approx(scores[best[1:], m].sum() - scores[gold[1:], m].sum())
    expected = np.zeros((n + 1, n + 1))
    expected[best[1:], m] += 1.0
    expected[gold[1:], m] -= 1.0
    np.testing.assert_array_equal(sent.d_arcs, expected)
