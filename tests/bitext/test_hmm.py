"""The HMM alignment kernel against brute force, and the agreement-trained aligner that gives M'."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse._kernels import hmm_align
from vineparse.bitext import pud_pairs
from vineparse.bitext.hmm import AgreementHMM, HMMConfig, one_to_one
from vineparse.bitext.model1 import BidirectionalModel1
from hmm_oracle import brute_force


def random_hmm(rng, p, q, max_jump=2, forbid=0.0, p0=None):
    log_emit = rng.normal(size=(q, p))
    log_emit[rng.random((q, p)) < forbid] = -np.inf
    log_null = rng.normal(size=q) - 1.0
    jump = rng.random(2 * max_jump + 1) * (rng.random(2 * max_jump + 1) > 0.2)
    jump[max_jump + 1] += 0.1                   # not all zero
    return log_emit, log_null, jump, rng.uniform(0.0, 0.6) if p0 is None else p0


def check_against_brute_force(log_emit, log_null, jump, p0):
    want = brute_force(log_emit, log_null, jump, p0)
    got = hmm_align.posteriors(log_emit, log_null, jump, p0)
    if want["log_likelihood"] == -np.inf:
        assert got["log_likelihood"] == -np.inf
        assert not got["post"].any() and not got["null"].any() and not got["jumps"].any()
        return
    assert got["log_likelihood"] == pytest.approx(want["log_likelihood"], rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(got["post"], want["post"], atol=1e-10)
    np.testing.assert_allclose(got["null"], want["null"], atol=1e-10)
    np.testing.assert_allclose(got["jumps"], want["jumps"], atol=1e-10)
    best, align = hmm_align.viterbi(log_emit, log_null, jump, p0)
    assert best == pytest.approx(want["best"], rel=1e-10, abs=1e-10)
    np.testing.assert_array_equal(align, want["viterbi"])


@pytest.mark.parametrize("p,q", [(1, 1), (1, 3), (3, 1), (2, 3), (3, 3), (4, 2)])
@pytest.mark.parametrize("seed", range(3))
def test_every_quantity_equals_brute_force(p, q, seed):
    rng = np.random.default_rng(100 * p + 10 * q + seed)
    check_against_brute_force(*random_hmm(rng, p, q, max_jump=1 + seed))


def test_brute_force_with_forbidden_states_and_no_null():
    rng = np.random.default_rng(5)
    check_against_brute_force(*random_hmm(rng, 3, 3, forbid=0.5, p0=0.0))
    log_emit, log_null, jump, _ = random_hmm(rng, 2, 2)
    log_emit[:] = -np.inf
    check_against_brute_force(log_emit, log_null, jump, 0.0)       # nothing can be generated: -inf


@given(p=st.integers(1, 4), q=st.integers(1, 4), seed=st.integers(0, 10 ** 6), forbid=st.sampled_from([0.0, 0.3]),
       max_jump=st.integers(1, 3))
def test_property_equals_brute_force(p, q, seed, forbid, max_jump):
    rng = np.random.default_rng(seed)
    check_against_brute_force(*random_hmm(rng, p, q, max_jump=max_jump, forbid=forbid))


@given(p=st.integers(1, 30), q=st.integers(1, 30), seed=st.integers(0, 10 ** 6))
def test_property_posteriors_are_distributions(p, q, seed):
    rng = np.random.default_rng(seed)
    log_emit, log_null, jump, p0 = random_hmm(rng, p, q, max_jump=5)
    out = hmm_align.posteriors(log_emit * 5, log_null, jump, p0)
    np.testing.assert_allclose(out["post"].sum(axis=1) + out["null"], 1.0, atol=1e-9)
    assert (out["post"] >= 0).all() and out["jumps"].sum() == pytest.approx(q - out["null"].sum(), abs=1e-8)
    best, align = hmm_align.viterbi(log_emit * 5, log_null, jump, p0)
    assert best <= out["log_likelihood"] + 1e-9 and ((align >= -1) & (align < p)).all()


def test_bad_input_is_a_clear_error():
    e, n, j = np.zeros((2, 3)), np.zeros(2), np.ones(3)
    with pytest.raises(ValueError, match="log_emit must have shape"):
        hmm_align.posteriors(np.zeros((0, 3)), np.zeros(0), j, 0.2)
    with pytest.raises(ValueError, match="log_null must have shape"):
        hmm_align.posteriors(e, np.zeros(3), j, 0.2)
    with pytest.raises(ValueError, match="odd-length vector of non-negative"):
        hmm_align.posteriors(e, n, np.ones(4), 0.2)
    with pytest.raises(ValueError, match="odd-length vector of non-negative"):
        hmm_align.posteriors(e, n, np.zeros(3), 0.2)
    with pytest.raises(ValueError, match="NaN"):
        hmm_align.posteriors(np.full((2, 3), np.nan), n, j, 0.2)
    with pytest.raises(ValueError, match=r"p0 must be in \[0, 1\)"):
        hmm_align.viterbi(e, n, j, 1.0)


def test_one_to_one_takes_the_best_links_first():
    scores = np.array([[0.9, 0.6, 0.0], [0.7, 0.2, 0.0], [0.0, 0.0, 0.4]])
    assert one_to_one(scores, 0.5).tolist() == [[0, 0]]
    assert one_to_one(scores, 0.15).tolist() == [[0, 0], [1, 1], [2, 2]]
    assert one_to_one(np.zeros((2, 2)), 0.5).shape == (0, 2)


@pytest.fixture(scope="module")
def pud_aligner():
    pairs = [(p.src, p.tgt) for p in pud_pairs()[:300]]
    return pairs, AgreementHMM.train(pairs, BidirectionalModel1.train(pairs), HMMConfig(iterations=3))


def test_agreement_links_are_one_to_one_and_denser_than_model1(pud_aligner):
    pairs, hmm = pud_aligner
    model1 = BidirectionalModel1.train(pairs)
    ours = [hmm.links(s, t) for s, t in pairs]
    for links in ours:
        assert len(set(links[:, 0])) == len(links) == len(set(links[:, 1]))
    assert np.mean([len(x) for x in ours]) > 1.3 * np.mean([len(model1.intersection(s, t)) for s, t in pairs])
    post = hmm.posterior(*pairs[0])
    assert post.shape == (len(pairs[0][0]), len(pairs[0][1])) and (post >= 0).all() and (post <= 1).all()
    # A higher threshold keeps a subset.
    strict = {tuple(x) for x in hmm.links(*pairs[0], threshold=0.9)}
    assert strict <= {tuple(x) for x in hmm.links(*pairs[0], threshold=0.5)}


def test_aligner_round_trips_and_handles_unknown_and_empty_input(pud_aligner):
    pairs, hmm = pud_aligner
    again = AgreementHMM.from_dict(hmm.to_dict())
    for s, t in pairs[:5]:
        np.testing.assert_array_equal(again.posterior(s, t), hmm.posterior(s, t))
    assert hmm.links(["zzqx", "qqzx"], ["未知"]).shape[1] == 2
    assert hmm.posterior([], ["x"]).shape == (0, 1) and hmm.links(["a"], []).shape == (0, 2)
    assert len(hmm.log_likelihoods) == 3


def test_agreement_training_finds_the_obvious_links():
    corpus = [("das haus".split(), "the house".split()), ("das buch".split(), "the book".split()),
              ("ein buch".split(), "a book".split()), ("ein haus".split(), "a house".split())] * 3
    hmm = AgreementHMM.train(corpus, BidirectionalModel1.train(corpus, 10), HMMConfig(iterations=5, p0=0.05))
    assert hmm.links("das haus".split(), "the house".split()).tolist() == [[0, 0], [1, 1]]
    assert hmm.links("ein buch".split(), "a book".split()).tolist() == [[0, 0], [1, 1]]


def test_config_errors():
    for bad in ({"max_jump": 0}, {"p0": 1.0}, {"iterations": -1}, {"threshold": 0.0}, {"floor": 0.0}):
        with pytest.raises(ValueError):
            HMMConfig(**bad)
