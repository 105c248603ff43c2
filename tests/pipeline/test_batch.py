import numpy as np
import pytest
from thinc.api import Linear, Maxout, Relu

from vineparse.pipeline.batch import project, project_all, stacked
from vineparse.pipeline.scorers import with_root_row


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_project_all_gives_each_layers_own_prediction(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(23, 7)).astype("f")
    layers = [Relu(nO=5, nI=7), Linear(nO=2, nI=7), Maxout(nO=3, nI=7, nP=2), Linear(nO=4, nI=7)]
    for layer in layers:
        layer.initialize()
        for name in ("W", "b"):
            layer.set_param(name, rng.normal(size=layer.get_param(name).shape).astype("f"))
    fused = project_all(layers, X)
    for layer, Y in zip(layers, fused):
        assert Y.shape == (23, layer.get_dim("nO"))
        np.testing.assert_allclose(Y, layer.predict(X), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(project(layer, X), layer.predict(X), rtol=1e-5, atol=1e-5)
    assert (fused[0] == 0).any() and (fused[0] >= 0).all()      # the relu layer's slice is rectified
    assert (fused[1] < 0).any()                                  # the linear one's is not


def test_a_layer_listed_twice_is_projected_once():
    """A projection several scorers share (the part kinds' `shared_part_roles`) is one block of the product:
    every listing of it gets the same view, and the product is no wider than the distinct layers."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 7)).astype("f")
    shared, other = Linear(nO=8, nI=7), Linear(nO=3, nI=7)
    for layer in (shared, other):
        layer.initialize()
        layer.set_param("W", rng.normal(size=layer.get_param("W").shape).astype("f"))
    out = project_all([shared, other, shared, shared], X)
    assert out[0] is out[2] is out[3] and out[0].base.shape == (9, 11)
    np.testing.assert_allclose(out[2], shared.predict(X), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[1], other.predict(X), rtol=1e-5, atol=1e-5)


def test_stacked_reuses_consecutive_views_and_copies_anything_else():
    base = np.random.default_rng(0).normal(size=(9, 4)).astype("f")
    joined = stacked(np, [base[0:2], base[2:7], base[7:9]])
    assert np.shares_memory(joined, base) and np.array_equal(joined, base)
    others = [base[2:7], base[0:2], base[7:9]]
    found = stacked(np, others)
    assert not np.shares_memory(found, base) and np.array_equal(found, np.vstack(others))


def test_the_root_row_layer_gives_consecutive_views_that_the_batch_does_not_copy():
    layer = with_root_row(3)
    layer.initialize()
    X = [np.ones((2, 3), dtype="f"), np.zeros((0, 3), dtype="f"), np.full((4, 3), 2.0, dtype="f")]
    Y = layer.predict(X)
    root = layer.get_param("root")
    assert [y.shape for y in Y] == [(3, 3), (1, 3), (5, 3)]
    for y, x in zip(Y, X):
        np.testing.assert_array_equal(y[0], root)
        np.testing.assert_array_equal(y[1:], x)
    joined = stacked(np, Y)
    assert joined.shape == (9, 3) and all(np.shares_memory(joined, y) for y in Y)
    assert layer.predict([]) == []
