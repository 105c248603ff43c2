"""Training's losses: dropout on the scorers' hidden layers (`training.dropped`, the `scorer_dropout` setting)."""
import numpy as np
from thinc.api import NumpyOps

from vineparse.pipeline import training

from .tiny import TINY_MODEL, parses, train_tiny


def test_dropped_masks_the_output_and_its_gradient_alike():
    ops = NumpyOps()
    Y = np.random.default_rng(0).normal(size=(400, 50)).astype("f")
    seen = []

    def backprop(dY):
        seen.append(dY)
        return dY

    same, same_backprop = training.dropped(ops, Y, backprop, 0.0)
    assert same is Y and same_backprop is backprop
    np.random.seed(0)
    out, out_backprop = training.dropped(ops, Y, backprop, 0.25)
    kept = out != 0
    assert 0.73 < kept.mean() < 0.77
    np.testing.assert_allclose(out[kept], Y[kept] / 0.75, rtol=1e-6)
    out_backprop(np.ones_like(Y))
    np.testing.assert_allclose(seen[-1], np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)


def test_scorer_dropout_reaches_each_scorer_in_training_and_leaves_parsing_alone(ewt_sentences, monkeypatch):
    nlp, examples = train_tiny(ewt_sentences[:20], steps=2, scorer_dropout=0.3)
    parser = nlp.get_pipe("vine_cascade")
    calls = []
    real = training.dropped

    def recording(ops, Y, backprop, rate):
        calls.append((Y.shape[1], rate))
        return real(ops, Y, backprop, rate)

    monkeypatch.setattr(training, "dropped", recording)
    batch = examples[:6]
    vectors = parser.model.predict([eg.predicted for eg in batch])

    def loss_of():            # the same dropout masks and witness samples at each call
        np.random.seed(1)
        parser.rng = np.random.default_rng(2)
        return parser.get_loss(batch, vectors)

    loss, d_vectors = loss_of()
    assert np.isfinite(loss) and all(np.isfinite(d).all() for d in d_vectors)
    part_columns = [parser.model.get_ref(name).layers[0].get_dim("nO")        # a projection each (not shared)
                    for name in ("sibling", "grandparent", "grand_sibling")]
    arc_columns = 2 * TINY_MODEL["arc_width"]
    label_columns = TINY_MODEL["label_width"]
    # the arc projection, each part projection, the labeller's hidden layer with and without the children
    assert sorted(calls) == sorted([(arc_columns, 0.3)] + [(c, 0.3) for c in part_columns]
                                   + [(label_columns, 0.3)] * 2)
    assert loss_of()[0] == loss
    parser.configure(scorer_dropout=0.0)
    calls.clear()
    plain, d_plain = loss_of()
    assert {rate for _, rate in calls} == {0.0}
    assert plain != loss and any(not np.allclose(a, b) for a, b in zip(d_vectors, d_plain))
    docs = [eg.predicted for eg in examples[20:]]
    without = parses(nlp.pipe([d.copy() for d in docs]))
    parser.configure(scorer_dropout=0.3)
    assert parses(nlp.pipe([d.copy() for d in docs])) == without
