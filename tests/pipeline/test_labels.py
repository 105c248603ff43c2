"""The labeller at prediction (`pipeline/labels.py`): its projection computed only where the arcs read it equals
the whole projection there, and so the logits and the labels are those of the whole projection."""
import numpy as np
import pytest

from vineparse.pipeline.batch import Batch, project
from vineparse.pipeline.labels import label_logits, label_projection_where_read, predict_labels
from vineparse.pipeline.scorers import distance_buckets


def parser_and_docs(trained, count):
    """The tiny trained pipeline's vine_cascade and the predicted docs of its first `count` examples."""
    nlp, examples = trained
    return nlp.get_pipe("vine_cascade"), [eg.predicted for eg in examples[:count]]


def random_arcs(batch, docs, rng):
    """Head and dependent rows, buckets and outermost children (-1 for some) of random arcs of the batch:
    every token of every doc a dependent, its head any row of its doc (the root row included)."""
    heads, mods, buckets = [], [], []
    for i, doc in enumerate(docs):
        n = len(doc)
        head = rng.integers(0, n + 1, size=n)
        mod = np.arange(1, n + 1)
        heads.append(batch.doc_rows[i] + head)
        mods.append(batch.doc_rows[i] + mod)
        buckets.append(distance_buckets(head, mod))
    heads, mods, buckets = (np.concatenate(a).astype(np.int64) for a in (heads, mods, buckets))
    children = rng.choice(mods, size=(len(mods), 2))
    children[rng.random(children.shape) < 0.4] = -1
    return heads, mods, buckets, children


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_projection_where_read_equals_the_whole_projection_where_read(trained, seed):
    parser, docs = parser_and_docs(trained, 12)
    rng = np.random.default_rng(seed)
    batch = Batch(parser.model, parser.model.predict(docs)).predict()
    heads, mods, _, children = random_arcs(batch, docs, rng)
    scorer = parser.model.get_ref("labels")
    width = scorer.get_dim("width")
    whole = project(scorer.layers[0], batch.X)
    found = label_projection_where_read(batch, scorer, heads, mods, children)
    assert found.shape == whole.shape
    for block, rows in enumerate([heads, mods, children[:, 0], children[:, 1]]):
        rows = rows[rows >= 0]
        assert len(rows)
        columns = slice(block * width, (block + 1) * width)
        np.testing.assert_allclose(found[rows, columns], whole[rows, columns], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_label_logits_are_those_of_the_whole_projection(trained, seed):
    parser, docs = parser_and_docs(trained, 20)
    rng = np.random.default_rng(seed)
    where_read = Batch(parser.model, parser.model.predict(docs)).predict()
    whole = Batch(parser.model, parser.model.predict(docs)).predict(labels=True)
    assert where_read.label_projection is None and whole.label_projection is not None
    arcs = random_arcs(where_read, docs, rng)
    np.testing.assert_allclose(label_logits(where_read, *arcs), label_logits(whole, *arcs), rtol=1e-4, atol=1e-5)
    trees = [np.concatenate([[-1], rng.integers(0, len(doc) + 1, size=len(doc))]) for doc in docs]
    heads = [np.where(tree[1:] == 0, np.arange(len(doc)), tree[1:] - 1) for doc, tree in zip(docs, trees)]
    for a, b in zip(predict_labels(where_read, heads, parser.labels), predict_labels(whole, heads, parser.labels)):
        assert list(a) == list(b)
