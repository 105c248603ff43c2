import numpy as np
import pytest
from thinc.api import Linear, Maxout, Relu

from vineparse.pipeline.batch import project, project_all


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
