"""The component's BiLSTM (`architectures.with_lstm`): the compiled forward pass at prediction gives what
thinc's gives, and training goes through thinc's."""
import numpy as np
import pytest
from thinc.api import LSTM

from vineparse.pipeline.architectures import with_lstm


def test_prediction_equals_the_training_forward_pass():
    model = with_lstm(LSTM(nO=16, nI=6, bi=True, depth=1))
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(n, 6)).astype(np.float32) for n in (7, 1, 12, 3)]
    model.initialize(X=X)
    lstm = model.layers[0].layers[0]
    lstm.set_param("LSTM", rng.normal(0.0, 0.5, lstm.get_param("LSTM").shape).astype(np.float32))
    predicted, _ = model(X, is_train=False)
    trained, backprop = model(X, is_train=True)          # thinc's forward pass (dropout 0)
    for p, t, x in zip(predicted, trained, X):
        assert p.shape == t.shape == (len(x), 6 + 16)
        np.testing.assert_allclose(p, t, atol=2e-5)
    assert [d.shape for d in backprop([np.ones_like(t) for t in trained])] == [x.shape for x in X]
    _, no_backprop = model(X, is_train=False)
    with pytest.raises(ValueError, match="prediction mode"):
        no_backprop([np.ones_like(p) for p in predicted])


def test_a_deeper_bilstm_runs_through_thinc():
    model = with_lstm(LSTM(nO=8, nI=6, bi=True, depth=2))
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(n, 6)).astype(np.float32) for n in (5, 2)]
    model.initialize(X=X)
    predicted, _ = model(X, is_train=False)       # no compiled kernel for two layers: thinc's forward pass
    trained, _ = model(X, is_train=True)
    for p, t, x in zip(predicted, trained, X):
        assert p.shape == (len(x), 6 + 8)
        np.testing.assert_allclose(p, t, atol=1e-6)

