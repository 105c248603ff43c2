"""Confidences of vine_cascade (issue 35): head and label probabilities on the Doc, their temperatures,
sampled parses; the calibration measures against brute force."""
import itertools

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc

from vineparse import kernels
from vineparse.pipeline.confidence import (TemperatureTracker, calibration_error, coverage_accuracy, fit_logistic,
                                           head_distribution, head_marginals, logistic_map, softmax, top_probability)
from oracle import projective_trees


def test_head_marginals_are_the_crf_marginals_at_the_temperature():
    """Brute force: p(tree) ∝ exp(s(tree) / T) over single-rooted projective trees of 4 words."""
    rng = np.random.default_rng(0)
    n = 4
    scores = rng.normal(size=(n + 1, n + 1)) * 2
    trees = [np.asarray(t) for t in projective_trees(n) if (np.asarray(t)[1:] == 0).sum() == 1]
    m = np.arange(1, n + 1)
    for temperature in (0.5, 1.0, 3.0):
        weights = np.exp([scores[t[1:], m].sum() / temperature for t in trees])
        expected = np.zeros((n + 1, n + 1))
        for t, w in zip(trees, weights / weights.sum()):
            expected[t[1:], m] += w
        found = head_marginals([scores], temperature)[0]
        np.testing.assert_allclose(found[:, 1:], expected[:, 1:], atol=1e-9)
        distribution = head_distribution(found, 2, floor=0.0)
        assert [h for h, _ in distribution] == list(np.argsort(-found[:, 2], kind="stable"))
        assert sum(p for _, p in distribution) == pytest.approx(1.0)


def test_the_tracker_picks_the_temperature_of_least_log_loss():
    """Labels drawn from softmax(logits / 2): the label temperature found is 2 (to the grid); heads whose
    probabilities are right at T = 1 give T = 1."""
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(20000, 5)) * 3
    probs = softmax(logits, 2.0)
    gold = np.array([rng.choice(5, p=row) for row in probs])
    tracker = TemperatureTracker(decay=1.0)
    tracker.observe_labels(logits, gold)
    assert tracker.temperatures(min_arcs=1)[1] == pytest.approx(2.0, rel=0.2)
    dense, predicted, truth = [], [], []
    for _ in range(300):
        n = int(rng.integers(2, 7))
        scores = rng.normal(size=(n + 1, n + 1)) * 2
        dense.append(scores)
        predicted.append(kernels.eisner(scores))
        truth.append(kernels.eisner_sample(scores, count=1, seed=int(rng.integers(1 << 30)))[0])
    tracker.observe_heads(dense, predicted, truth)
    assert tracker.temperatures(min_arcs=1)[0] == pytest.approx(1.0, rel=0.2)
    empty = TemperatureTracker()
    assert empty.temperatures() == (None, None)


def test_the_logistic_map_and_its_fit():
    """Outcomes drawn from sigmoid(a logit(p) + b): the fit finds (a, b) and lowers the calibration error;
    the map is the identity at (1, 0) and increasing; constant outcomes leave it at (1, 0)."""
    rng = np.random.default_rng(0)
    probs = rng.beta(2.0, 1.0, size=200_000)
    truth = logistic_map(probs, (0.7, 0.5))
    correct = rng.random(len(probs)) < truth
    a, b = fit_logistic(probs, correct)
    assert a == pytest.approx(0.7, abs=0.02) and b == pytest.approx(0.5, abs=0.02)
    assert calibration_error(logistic_map(probs, (a, b)), correct)[0] < 0.005 < calibration_error(probs, correct)[0]
    np.testing.assert_allclose(logistic_map(probs[:100], (1.0, 0.0)), probs[:100])
    ordered = np.sort(probs[:1000])
    assert (np.diff(logistic_map(ordered, (a, b))) >= 0).all()
    assert fit_logistic(probs[:50], np.ones(50, dtype=bool)) == (1.0, 0.0)
    assert fit_logistic(np.zeros(0), np.zeros(0, dtype=bool)) == (1.0, 0.0)


def test_top_probability_is_the_softmax_at_the_column():
    rng = np.random.default_rng(2)
    logits = rng.normal(size=(50, 7)) * 3
    logits[3, 2] = -np.inf
    best = rng.integers(0, 7, size=50)
    best[3] = 0
    for temperature in (0.5, 1.0, 2.5):
        expected = softmax(logits, temperature)[np.arange(50), best]
        np.testing.assert_allclose(top_probability(logits, best, temperature), expected, rtol=1e-12)
    as_float32 = top_probability(logits.astype(np.float32), best, 2.0)
    assert as_float32.dtype == np.float32
    np.testing.assert_allclose(as_float32, softmax(logits, 2.0)[np.arange(50), best], rtol=1e-5)


def test_calibration_error_and_coverage_by_hand():
    probs = np.array([0.95, 0.95, 0.55, 0.15, 0.15, 0.15, 0.15])
    correct = np.array([1, 1, 0, 0, 0, 0, 1], dtype=bool)
    error, rows = calibration_error(probs, correct, bins=10)
    # bins: 0.9-1.0 conf .95 acc 1; 0.5-0.6 conf .55 acc 0; 0.1-0.2 conf .15 acc .25
    assert error == pytest.approx((2 * 0.05 + 0.55 + 4 * 0.10) / 7)
    assert [r["count"] for r in rows if r["count"]] == [4, 1, 2]
    curve = coverage_accuracy(probs, correct, [2 / 7, 3 / 7, 1.0])
    assert [r["accuracy"] for r in curve] == pytest.approx([1.0, 2 / 3, 3 / 7])


@pytest.fixture(scope="module")
def pipeline(trained, tmp_path_factory):
    """A copy of the tiny trained pipeline with confidences on."""
    nlp, examples = trained
    path = tmp_path_factory.mktemp("confidence") / "pipeline"
    nlp.to_disk(path)
    copy = spacy.load(path)
    copy.get_pipe("vine_cascade").configure(confidences=True)
    return copy, examples


def test_confidences_on_the_doc(pipeline):
    nlp, examples = pipeline
    scaling = [1.3, 0.4]           # head_prob is the predicted head's marginal through the logistic map
    nlp.get_pipe("vine_cascade").configure(head_scaling=scaling)
    words = [t.text for eg in examples[:3] for t in eg.predicted]
    docs = [Doc(nlp.vocab, words=[t.text for t in eg.predicted]) for eg in examples[:20]]
    docs.append(Doc(nlp.vocab, words=(words * 60)[:600], sent_starts=[i == 0 for i in range(600)]))   # joined pieces
    plain = spacy.blank("en")
    for doc in nlp.pipe(docs):
        assert all(0.0 <= t._.head_prob <= 1.0 and 0.0 < t._.dep_prob <= 1.0 for t in doc)
        for token in doc:
            distribution = token._.head_distribution
            heads = [h.i for h, _ in distribution]
            probs = [p for _, p in distribution]
            assert probs == sorted(probs, reverse=True) and sum(probs) <= 1.0 + 1e-6
            if len(doc) <= 128:          # one piece: the predicted head is in the distribution when likely
                assert token._.head_prob < logistic_map([0.01], scaling)[0] or token.head.i in heads
                if token.head.i in heads:
                    marginal = dict(zip(heads, probs))[token.head.i]
                    assert logistic_map([marginal], scaling)[0] == pytest.approx(token._.head_prob, rel=1e-5)
                assert sum(probs) >= 1.0 - 0.01 * (len(doc) + 1)      # the heads left out are each below 1%
        assert Doc(plain.vocab, words=["a"])[0]._.head_prob is None
    nlp.get_pipe("vine_cascade").configure(confidences=False)
    try:
        doc = nlp(docs[0].text)
        assert doc._.vine_confidence is None and doc[0]._.head_prob is None
    finally:
        nlp.get_pipe("vine_cascade").configure(confidences=True, head_scaling=[1.0, 0.0])


def test_confidences_survive_a_docbin(pipeline):
    from spacy.tokens import DocBin
    nlp, examples = pipeline
    doc = nlp(" ".join(t.text for t in examples[0].predicted))
    copy = list(DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab))[0]
    assert [t._.head_prob for t in copy] == pytest.approx([t._.head_prob for t in doc])


def test_samples_are_trees_and_follow_the_temperature(pipeline):
    nlp, examples = pipeline
    parser = nlp.get_pipe("vine_cascade")
    docs = [nlp(" ".join(t.text for t in eg.predicted)) for eg in examples[:5]]
    drawn = parser.sample(docs, k=8, seed=3)
    assert [len(s) for s in drawn] == [8] * 5
    for doc, samples in zip(docs, drawn):
        for sample in samples:
            assert [t.text for t in sample] == [t.text for t in doc]
            assert [s.start for s in sample.sents] == [s.start for s in doc.sents]
            assert sum(t.head.i == t.i for t in sample) == len(list(sample.sents))
    again = parser.sample(docs, k=8, seed=3)
    assert [[t.head.i for t in s] for s in drawn[0]] == [[t.head.i for t in s] for s in again[0]]
    with pytest.raises(ValueError, match="k must be"):
        parser.sample(docs, k=0)


def test_training_and_calibrate_set_the_temperatures(ewt_sentences):
    from vineparse.pipeline import calibration
    from vineparse.pipeline.confidence import TEMPERATURES

    from .tiny import train_tiny
    nlp, examples = train_tiny(ewt_sentences[:60], steps=6, threshold_interval=2, held_out=0.3)
    parser = nlp.get_pipe("vine_cascade")
    assert parser.temperatures.head_arcs > 0 and parser.temperatures.label_arcs > 0
    assert parser.settings.head_temperature in TEMPERATURES + (1.0,)
    found = calibration.calibrate_temperatures(parser, nlp, examples)
    assert found["head_temperature"] in TEMPERATURES and found["label_temperature"] in TEMPERATURES
    assert parser.cfg["head_temperature"] == found["head_temperature"]
    a, b = parser.cfg["head_scaling"]
    assert a > 0 and found["head_scaling"] == [a, b]
