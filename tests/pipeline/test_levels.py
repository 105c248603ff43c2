"""The non-projective reparse of the cascade's tree (`levels.reparse`) against enumeration."""
import numpy as np
import pytest

from vineparse import kernels
from vineparse.pipeline.levels import reparse
from vineparse.trees import crossing_arcs
from oracle import all_trees


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("bonus", [0.0, 0.3, 0.7])
def test_reparse_maximises_expected_correct_heads_plus_the_bonus(seed, bonus):
    """Over the trees whose every arc is the cascade tree's or crosses one of its arcs."""
    rng = np.random.default_rng(seed)
    n = 5
    scores = rng.normal(size=(n + 1, n + 1)) * 2
    tree = kernels.eisner(rng.normal(size=(n + 1, n + 1)))     # some projective tree
    _, marginals = kernels.matrix_tree_marginals(scores)
    m = np.arange(1, n + 1)
    allowed = crossing_arcs(tree)
    allowed[tree[1:], m] = True

    def value(heads):
        return marginals[heads[1:], m].sum() + bonus * (heads[1:] == tree[1:]).sum()

    candidates = [t for t in all_trees(n) if allowed[t[1:], m].all()]
    found = reparse(scores, tree, bonus)
    assert allowed[found[1:], m].all()
    assert value(found) == pytest.approx(max(value(t) for t in candidates))
    changed = np.flatnonzero(found[1:] != tree[1:]) + 1
    assert all(crossing_arcs(tree)[found[k], k] for k in changed)     # only crossing arcs replace the tree's


def test_a_bonus_of_one_keeps_the_tree_and_short_sentences_stay():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(8, 8)) * 3
    tree = kernels.eisner(-scores)              # the worst-looking projective tree is still kept
    assert reparse(scores, tree, 1.0) is tree
    small = kernels.eisner(scores[:3, :3])
    assert reparse(scores[:3, :3], small, 0.0) is small        # two words cannot cross


def test_too_peaked_scores_keep_the_tree(monkeypatch):
    def ill_conditioned(scores, *args, **kwargs):
        raise kernels.IllConditionedError("too peaked")

    monkeypatch.setattr(kernels, "matrix_tree_marginals", ill_conditioned)
    scores = np.random.default_rng(2).normal(size=(7, 7))
    tree = kernels.eisner(scores)
    assert reparse(scores, tree, 0.0) is tree
