"""The component's BiLSTM (`architectures.with_lstm`): the compiled forward pass at prediction gives what
thinc's gives, and training goes through thinc's. The tag embedding (`architectures.with_tag_embedding`):
what it adds, its gradient, and a pipeline whose tagger annotates in training."""
import numpy as np
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import LSTM, Model

from vineparse.pipeline.architectures import MAX_TAG_ROWS, build_vine_cascade_model, with_lstm, with_tag_embedding

from .tiny import TINY_TOK2VEC, parses, sentence_doc


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


def test_a_deeper_bilstm_runs_through_thinc_and_its_depth_is_checked():
    model = with_lstm(LSTM(nO=8, nI=6, bi=True, depth=2))
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(n, 6)).astype(np.float32) for n in (5, 2)]
    model.initialize(X=X)
    predicted, _ = model(X, is_train=False)       # no compiled kernel for two layers: thinc's forward pass
    trained, _ = model(X, is_train=True)
    for p, t, x in zip(predicted, trained, X):
        assert p.shape == (len(x), 6 + 8)
        np.testing.assert_allclose(p, t, atol=1e-6)
    tok2vec, _ = _fixed_vectors(6)
    assert build_vine_cascade_model(tok2vec, lstm_width=8, lstm_depth=2).get_dim("nO") == 6 + 8
    for depth in (0, True, 1.0, 5):
        with pytest.raises(ValueError, match="lstm_depth"):
            build_vine_cascade_model(tok2vec, lstm_width=8, lstm_depth=depth)


def _fixed_vectors(width):
    """A stand-in tok2vec: each doc's (n, width) vectors are a function of its words, with a backward pass
    that records the gradient it gets."""
    seen = []

    def forward(model, docs, is_train):
        X = [np.array([[len(t.text) / 10.0] * width for t in doc], dtype=np.float32).reshape(-1, width)
             for doc in docs]

        def backprop(dX):
            seen.append(dX)
            return []
        return X, backprop
    return Model("fixed", forward, dims={"nO": width}), seen


def test_tag_embedding_adds_one_row_per_tag_and_learns_from_its_gradient():
    vocab = spacy.blank("en").vocab
    tok2vec, seen = _fixed_vectors(4)
    model = with_tag_embedding(tok2vec, 16)
    docs = [Doc(vocab, words=["a", "b", "a"], tags=["DT", "NN", "NN"]), Doc(vocab, words=["b"], tags=["DT"])]
    model.initialize(X=docs)
    base, _ = tok2vec(docs, False)
    before, _ = model(docs, False)                    # zero at the start: the tok2vec's vectors as they are
    for b, x in zip(before, base):
        np.testing.assert_array_equal(b, x)
    embed = model.layers[1]
    embed.set_param("E", np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32))
    after, backprop = model(docs, True)
    added = np.vstack([a - x for a, x in zip(after, base)])
    # the same tag adds the same row, other tags other rows, whatever the word
    np.testing.assert_allclose(added[0], added[3], atol=1e-6)
    np.testing.assert_allclose(added[1], added[2], atol=1e-6)
    assert np.abs(added[0] - added[1]).max() > 1e-3
    dY = [np.ones((3, 4), dtype=np.float32), 2 * np.ones((1, 4), dtype=np.float32)]
    backprop(dY)
    assert seen[-1] is dY                            # the tok2vec gets the gradient unchanged
    # HashEmbed sums four rows per key, so each row's gradient is the sum over the tokens that hash to it
    dE = embed.get_grad("E")
    assert dE.sum() == pytest.approx(4 * (3 + 2) * 4)


def test_a_weighted_span_term_is_checked():
    tok2vec, _ = _fixed_vectors(6)
    arcs = build_vine_cascade_model(tok2vec, span_width=4, span_weighted=True).get_ref("arcs")
    assert "v" in arcs.param_names and arcs.get_dim("span") == 4
    assert "v" not in build_vine_cascade_model(tok2vec, span_width=4).get_ref("arcs").param_names
    for width, weighted in ((0, True), (4, 1), (4, "yes")):
        with pytest.raises(ValueError, match="span_weighted"):
            build_vine_cascade_model(tok2vec, span_width=width, span_weighted=weighted)


def test_tag_embedding_refuses_docs_without_tags_and_bad_sizes():
    vocab = spacy.blank("en").vocab
    tok2vec, _ = _fixed_vectors(4)
    model = with_tag_embedding(tok2vec, 8)
    model.initialize()
    with pytest.raises(ValueError, match="annotating_components"):
        model([Doc(vocab, words=["no", "tags"])], True)
    assert [len(y) for y in model([Doc(vocab, words=[])], False)[0]] == [0]
    for rows in (0, -1, True, 1.5, MAX_TAG_ROWS + 1):
        with pytest.raises(ValueError, match="tag_rows"):
            with_tag_embedding(tok2vec, rows)
    with pytest.raises(ValueError, match="tag_rows"):
        build_vine_cascade_model(tok2vec, tag_rows=-1)


def _tagged_pipeline(sentences, steps, annotates):
    """tok2vec, tagger and vine_cascade (tag_rows 32, both components listening to the tok2vec), trained for
    `steps` batches of 10 docs with `annotates` as the annotating components."""
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": TINY_TOK2VEC})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": TINY_TOK2VEC["width"], "upstream": "*"}
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": listener}})
    nlp.add_pipe("vine_cascade", config={"model": {
        "@architectures": "vineparse.VineCascadeModel.v3", "arc_width": 32, "part_width": 8, "label_width": 16,
        "start_width": 0, "tag_rows": 32, "tok2vec": listener}})
    examples = [Example(Doc(nlp.vocab, words=list(s.words)), sentence_doc(nlp.vocab, s)) for s in sentences]
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        batch = [examples[(step * 10 + i) % len(examples)] for i in range(10)]
        nlp.update(batch, sgd=optimizer, annotates=annotates)
    return nlp, examples


def test_pipeline_reads_the_taggers_tags(ewt_sentences, tmp_path):
    with pytest.raises(ValueError, match="annotating_components"):
        _tagged_pipeline(ewt_sentences[:20], 1, annotates=[])
    nlp, examples = _tagged_pipeline(ewt_sentences[:40], 6, annotates=["tok2vec", "tagger"])
    embed = nlp.get_pipe("vine_cascade").model.get_ref("encoder").layers[0].layers[1]
    assert np.abs(embed.get_param("E")).max() > 0            # it learned from the tagger's tags
    texts = [[t.text for t in eg.reference] for eg in examples[:10]]
    docs = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in texts))
    assert all(t.tag for doc in docs for t in doc)
    nlp.to_disk(tmp_path / "tagged")
    nlp2 = spacy.load(tmp_path / "tagged")
    assert parses(nlp2.pipe(Doc(nlp2.vocab, words=w) for w in texts)) == parses(docs)
    # other tags, other parses' scores: the component reads the tags it is given
    component = nlp.get_pipe("vine_cascade")
    retagged = [Doc(nlp.vocab, words=w, tags=["NN"] * len(w)) for w in texts]
    tok2vec_docs = list(nlp.get_pipe("tok2vec").pipe(retagged))
    a = component.model.predict(docs)
    b = component.model.predict(tok2vec_docs)
    assert max(np.abs(x - y).max() for x, y in zip(a, b)) > 1e-4
    with pytest.raises(ValueError, match="tagger before it"):
        component.model.predict([Doc(nlp.vocab, words=w) for w in texts])
