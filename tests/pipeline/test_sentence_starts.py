"""The sentence-start scorer of vine_cascade: docs without boundaries cut where it says, its loss, its
calibration, and what a model trained on documents learns."""
import numpy as np
import pytest
from spacy.tokens import Doc
from spacy.training import Example

from vineparse.pipeline import calibration
from vineparse.pipeline.batch import Batch
from vineparse.pipeline.splitting import MAX_SEGMENT
from vineparse.pipeline.training import start_cross_entropy

from .tiny import TINY_MODEL, check_split_calibration, make_examples, train_tiny

START_MODEL = {**TINY_MODEL, "@architectures": "vineparse.VineCascadeModel.v3", "start_width": 8}


@pytest.fixture(scope="module")
def doc_trained(ewt_sentences):
    """(nlp, held-out examples): trained on docs of three EWT sentences (the first 60 sentences); the held-out
    examples are docs of two of the other sentences."""
    nlp, _ = train_tiny(ewt_sentences[:60], steps=40, model=START_MODEL, per_doc=3)
    return nlp, make_examples(nlp, ewt_sentences[60:], per_doc=2)


def unbounded(nlp, example):
    return Doc(nlp.vocab, words=[t.text for t in example.reference])


def test_a_model_without_the_scorer_has_no_starts(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    assert not parser.model.has_ref("starts")
    docs = [unbounded(nlp, eg) for eg in examples[:3]]
    batch = Batch(parser.model, parser.model.predict(docs), parts=False).predict()
    assert parser.sentence_starts(batch, docs) == [None, None, None]


def test_docs_are_cut_where_the_start_probability_exceeds_the_threshold(doc_trained, monkeypatch):
    """With the scorer's probabilities replaced by known ones (random, fixed per encoder output), a doc
    without boundaries becomes the sentences that begin at the tokens above the threshold (the first
    always), each parsed as one tree: one root per sentence, every head inside its sentence. Docs with
    boundaries keep theirs."""
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [unbounded(nlp, eg) for eg in examples[:4]]
    preset = examples[4].reference.copy()
    rng = np.random.default_rng(3)
    probs = {}

    def fake(batch):
        key = batch.X.tobytes()
        if key not in probs:
            probs[key] = rng.uniform(0.0, 1.0, batch.X.shape[0])
        return probs[key]

    monkeypatch.setattr(Batch, "start_probabilities", fake)
    batch = Batch(parser.model, parser.model.predict(docs[:1] + [preset]), parts=False).predict()
    assert parser.sentence_starts(batch, docs[:1] + [preset])[1] is None
    cuts = 0
    for threshold in (0.3, 0.8, 1.0):
        parser.configure(start_threshold=threshold)
        try:
            for doc in docs:
                batch = Batch(parser.model, parser.model.predict([doc]), parts=False).predict()
                p = batch.start_probabilities()
                expected = [0] + [j for j in range(1, len(doc)) if p[1 + j] > threshold]
                assert parser.sentence_starts(batch, [doc])[0].tolist() == expected
                assert [a for a, _ in parser.sentence_spans(doc)] == expected
                parsed = parser(doc.copy())
                assert [s.start for s in parsed.sents] == expected
                for sent in parsed.sents:
                    assert sum(t.head == t for t in sent) == 1
                    assert all(sent.start <= t.head.i < sent.end for t in sent)
                cuts += len(expected) - 1
                if threshold == 1.0:
                    assert expected == [0]
            parsed = parser(preset.copy())
            assert [s.start for s in parsed.sents] == [s.start for s in preset.sents]
        finally:
            parser.configure(start_threshold=0.5)
    assert cuts > 0


def test_start_probabilities_are_the_scorers_whether_or_not_the_batch_projected_them(doc_trained):
    """`Batch.predict(starts=True)` projects the start scorer in the batch's one product; without it the
    probabilities are projected when asked for. Both are the scorer's own forward pass."""
    from scipy.special import expit
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [unbounded(nlp, eg) for eg in examples[:6]]
    joint = Batch(parser.model, parser.model.predict(docs)).predict(starts=True)
    later = Batch(parser.model, parser.model.predict(docs)).predict()
    assert joint.start_projection is not None and later.start_projection is None
    own = expit(parser.model.get_ref("starts").predict(joint.X).astype(np.float64))
    np.testing.assert_allclose(joint.start_probabilities(), own, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(later.start_probabilities(), own, rtol=1e-5, atol=1e-6)
    labelled = Batch(parser.model, parser.model.predict(docs)).predict(labels=True, starts=True)
    np.testing.assert_allclose(labelled.start_probabilities(), own, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.9])
def test_the_starts_of_a_batch_are_each_docs_own(doc_trained, threshold):
    """Docs of one batch, with and without boundaries (a doc of one token has them): each doc without
    boundaries gets its first token and its other tokens whose start probability (rows of the batch)
    exceeds the threshold."""
    from vineparse.pipeline.component import has_boundaries
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [unbounded(nlp, eg) for eg in examples[:5]]
    docs.insert(2, examples[5].reference.copy())
    docs.insert(4, Doc(nlp.vocab, words=["Yes"]))
    batch = Batch(parser.model, parser.model.predict(docs)).predict(starts=True)
    probs = batch.start_probabilities()
    found = parser.sentence_starts(batch, docs, threshold)
    assert [f is None for f in found] == [has_boundaries(doc) for doc in docs]
    assert [i for i, f in enumerate(found) if f is None] == [2, 4]
    for i, doc in enumerate(docs):
        if found[i] is None:
            continue
        first = int(batch.doc_rows[i]) + 1
        expected = [0] + [j for j in range(1, len(doc)) if probs[first + j] > threshold]
        assert found[i].tolist() == expected and found[i].dtype == np.int64
    assert any(len(f) > 1 for f in found if f is not None) or threshold == 0.9


def test_start_loss_is_the_logistic_loss_of_the_gold_starts(doc_trained):
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    gold = examples[3].reference
    merged = [gold[0].text + gold[1].text] + [t.text for t in gold[2:]]       # not one to one: aligned starts
    chosen = examples[:3] + [Example(Doc(nlp.vocab, words=merged), gold)]
    vectors = parser.model.predict([eg.predicted for eg in chosen])
    batch = Batch(parser.model, vectors)
    loss, d_X = start_cross_entropy(parser.model, batch.X, batch, chosen)
    p = 1.0 / (1.0 + np.exp(-parser.model.get_ref("starts").predict(batch.X).astype(np.float64)))
    expected = 0.0
    for i, eg in enumerate(chosen):
        first = int(batch.doc_rows[i]) + 1
        starts = [t.is_sent_start for t in eg.reference] if i < 3 else [False] + [t.is_sent_start for t in gold[2:]]
        for j, start in enumerate(starts):
            if j:
                expected -= np.log(p[first + j] if start else 1.0 - p[first + j])
    assert loss == pytest.approx(expected, rel=1e-4)
    assert d_X.shape == batch.X.shape and np.abs(d_X).sum() > 0


def test_a_model_trained_on_documents_rates_gold_starts_above_other_tokens(doc_trained):
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [unbounded(nlp, eg) for eg in examples]
    batch = Batch(parser.model, parser.model.predict(docs), parts=False).predict()
    p = batch.start_probabilities()
    at_starts, elsewhere = [], []
    for i, eg in enumerate(examples):
        first = int(batch.doc_rows[i]) + 1
        for j, token in enumerate(eg.reference):
            if j:
                (at_starts if token.is_sent_start else elsewhere).append(p[first + j])
    assert at_starts and np.mean(at_starts) > 2 * np.mean(elsewhere)


def test_calibrate_splitting_takes_the_start_threshold_of_best_boundary_f1(doc_trained):
    """Each threshold's predicted and correct boundaries are those of `sentence_spans` at that threshold, the
    threshold set is the largest of those with the best F1, and 1.0 never cuts (a doc longer than MAX_SEGMENT
    among them: the pieces a long sentence is parsed in are not boundaries); settings survive saving."""
    nlp, examples = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    long_doc = Doc.from_docs([eg.reference for eg in examples])
    assert len(long_doc) > MAX_SEGMENT
    chosen = [Example(unbounded(nlp, eg), eg.reference) for eg in examples]
    chosen.append(Example(Doc(nlp.vocab, words=[t.text for t in long_doc]), long_doc))
    saved = dict(parser.cfg)
    try:
        result = calibration.calibrate_splitting(parser, nlp, chosen)
        assert result["docs"] == len(chosen)
        check_split_calibration(parser, result, chosen, "start_threshold")
        assert result["rows"][-1]["value"] == 1.0 and result["rows"][-1]["predicted"] == 0
        parser.configure(start_threshold=result["value"])
        copy = type(parser)(parser.vocab, parser.model, "copy").from_bytes(parser.to_bytes())
        assert copy.cfg["start_threshold"] == result["value"]
        assert ([a for a, _ in copy.sentence_spans(chosen[0].predicted)]
                == [a for a, _ in parser.sentence_spans(chosen[0].predicted)])
    finally:
        parser.load_cfg(saved)


@pytest.mark.parametrize("value", [-0.1, 1.5, "0.5", True])
def test_start_threshold_is_checked(doc_trained, value):
    parser = doc_trained[0].get_pipe("vine_cascade")
    with pytest.raises(ValueError, match="start_threshold"):
        parser.configure(start_threshold=value)


def test_single_sentence_docs_leave_the_start_threshold(doc_trained, ewt_sentences):
    nlp, _ = doc_trained
    parser = nlp.get_pipe("vine_cascade")
    single = [Example(unbounded(nlp, eg), eg.reference) for eg in make_examples(nlp, ewt_sentences[60:70])]
    parser.configure(start_threshold=0.7)
    try:
        assert calibration.calibrate_splitting(parser, nlp, single) is None
        assert parser.cfg["start_threshold"] == 0.7
    finally:
        parser.configure(start_threshold=0.5)
