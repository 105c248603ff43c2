"""IBM Model 1: EM never lowers the likelihood; the tables are distributions; Viterbi and M'."""
import numpy as np
import pytest

from vineparse.bitext import pud_pairs
from vineparse.bitext.model1 import BidirectionalModel1, Model1, corpus_log_likelihood, train_model1

TOY = [("das haus".split(), "the house".split()), ("das buch".split(), "the book".split()),
       ("ein buch".split(), "a book".split()), ("ein haus ist klein".split(), "a house is small".split())]


@pytest.fixture(scope="module")
def pud_slice():
    return [(p.src, p.tgt) for p in pud_pairs()[:150]]


@pytest.mark.parametrize("corpus", ["toy", "pud"])
def test_em_increases_the_likelihood_every_iteration(corpus, pud_slice):
    pairs = TOY if corpus == "toy" else pud_slice
    model = train_model1(pairs, iterations=8)
    lls = model.log_likelihoods
    assert len(lls) == 8
    assert all(b > a for a, b in zip(lls, lls[1:]))
    # The recorded values are the likelihood of the tables before each M-step: recomputing agrees.
    assert corpus_log_likelihood(train_model1(pairs, 3), pairs) == pytest.approx(lls[3], rel=1e-9)


def test_tables_are_conditional_distributions(pud_slice):
    model = train_model1(pud_slice, iterations=4)
    totals = np.bincount(model.keys // len(model.tgt_vocab), weights=model.prob)
    used = np.unique(model.keys // len(model.tgt_vocab))
    np.testing.assert_allclose(totals[used], 1.0)


def test_toy_corpus_learns_the_obvious_links():
    model = BidirectionalModel1.train(TOY, iterations=20)
    links = model.intersection("das haus".split(), "the house".split())
    assert links.tolist() == [[0, 0], [1, 1]]
    assert model.forward.viterbi("ein buch".split(), "a book".split()).tolist() == [0, 1]


def test_intersection_is_one_to_one(pud_slice):
    model = BidirectionalModel1.train(pud_slice, iterations=5)
    for src, tgt in pud_slice[:50]:
        links = model.intersection(src, tgt)
        assert len(set(links[:, 0])) == len(links) == len(set(links[:, 1]))


def test_unknown_words_get_zero_probability():
    model = train_model1(TOY, iterations=3)
    table, null = model.table(["das", "zebra"], ["the", "unicorn"])
    assert table[0, 0] > 0 and table[1, 0] == 0 and table[0, 1] == 0 and null[1] == 0
    assert model.viterbi(["zebra"], ["unicorn"]).tolist() == [-1]


def test_round_trip_and_empty_corpus():
    model = BidirectionalModel1.train(TOY, iterations=3)
    again = BidirectionalModel1.from_dict(model.to_dict())
    np.testing.assert_array_equal(again.forward.prob, model.forward.prob)
    assert again.intersection("das haus".split(), "the house".split()).tolist() == \
        model.intersection("das haus".split(), "the house".split()).tolist()
    empty = train_model1([([], ["a"]), (["b"], [])], iterations=2)
    assert isinstance(empty, Model1) and len(empty.keys) == 0
    with pytest.raises(ValueError, match="iterations must be >= 0"):
        train_model1(TOY, iterations=-1)
