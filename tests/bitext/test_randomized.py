"""Screening M' for the randomized-pruning chain: the pilot charts' link doubts against brute force, and what
screening does to the chain."""
import numpy as np
import pytest

from vineparse.bitext import BitextConfig, BitextModel, expectations, pud_pairs
from vineparse.bitext.grammar import PairScores
from vineparse.bitext.randomized import link_doubts, pilot_thirds, randomized_statistics
from itg_oracle import enumerate_derivations, score


def random_scores(p, q, seed):
    rng = np.random.default_rng(seed)
    return PairScores(rng.normal(size=(p, q)), rng.normal(size=p), rng.normal(size=q), rng.normal(size=9),
                      rng.normal(size=9))


def conditional_posterior(derivations, scores, given, link):
    """P(link made | every link of `given` made), by enumeration."""
    allowed = [d for d in derivations if all(g in d.links for g in given)]
    weights = np.exp([score(d, scores.emit, scores.null_src, scores.null_tgt, scores.rule, scores.mismatch)
                      for d in allowed])
    made = np.array([link in d.links for d in allowed])
    return weights[made].sum() / weights.sum()


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_link_doubts_equal_brute_force_posteriors_given_the_other_thirds(grammar, seed):
    p, q = 3, 3
    scores = random_scores(p, q, seed)
    links = np.array([(0, 0), (1, 2), (2, 1)])
    everything = enumerate_derivations(p, q, ternary=grammar == "ternary")
    doubts = link_doubts(scores, links, grammar, np.random.default_rng(seed))
    order = np.random.default_rng(seed).permutation(len(links))          # the thirds link_doubts draws
    for third in pilot_thirds(order):
        given = [tuple(links[i]) for i in range(len(links)) if i not in third]
        for i in third:
            want = 1.0 - conditional_posterior(everything, scores, given, tuple(links[i]))
            assert doubts[i] == pytest.approx(want, abs=1e-10)


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("screen", [0.05, 0.3])
def test_link_doubts_with_screening_free_the_links_found_doubtful_before(grammar, screen):
    p, q = 3, 3
    scores = random_scores(p, q, 5)
    links = [(0, 1), (1, 0), (2, 2)]
    everything = enumerate_derivations(p, q, ternary=grammar == "ternary")
    for seed in range(4):
        doubts = link_doubts(scores, np.array(links), grammar, np.random.default_rng(seed), screen=screen)
        want = np.zeros(3)
        seen = set()
        for third in pilot_thirds(np.random.default_rng(seed).permutation(3)):
            free = set(third.tolist()) | {i for i in seen if want[i] > screen}
            given = [links[i] for i in range(3) if i not in free]
            for i in free:
                want[i] = max(want[i], 1.0 - conditional_posterior(everything, scores, given, links[i]))
            seen |= free
        np.testing.assert_allclose(doubts, want, atol=1e-10)


@pytest.mark.parametrize("m", range(8))
def test_pilot_thirds_cover_every_link_once_smallest_first(m):
    parts = pilot_thirds(np.arange(m)[::-1])
    assert sorted(np.concatenate(parts or [np.zeros(0, int)]).tolist()) == list(range(m))
    assert [len(p) for p in parts] == sorted(len(p) for p in parts) and len(parts) == min(m, 3)
    assert max((len(p) for p in parts), default=0) - min((len(p) for p in parts), default=0) <= 1


def test_link_doubts_of_no_links_and_of_thirds_the_grammar_cannot_make():
    scores = random_scores(8, 8, 3)
    assert link_doubts(scores, np.zeros((0, 2), dtype=np.int64), "binary", np.random.default_rng(0)).shape == (0,)
    # Two 2-4-1-3 permutations side by side: conditioning sets of five or six of these links can hold one the
    # binary ITG cannot make.
    links = np.array([(0, 1), (1, 3), (2, 0), (3, 2), (4, 5), (5, 7), (6, 4), (7, 6)])
    for seed in range(6):
        doubts = link_doubts(scores, links, "binary", np.random.default_rng(seed))
        assert doubts.shape == (8,) and np.all((doubts >= 0) & (doubts <= 1))


PAIRS = pud_pairs()


@pytest.fixture(scope="module")
def model():
    return BitextModel.train([(p.src, p.tgt) for p in PAIRS[:300]], BitextConfig(model1_iterations=5))


@pytest.fixture(scope="module")
def uncertain(model):
    """A short PUD pair under flattened weights (its M' links are doubtful) and its exact expectations."""
    flat = model.with_weights(model.weights * 0.3)
    pair = next(p for p in PAIRS if p.product <= 40 and len(model.links(p.src, p.tgt)) >= 4)
    return flat, pair, expectations(pair.src, pair.tgt, "exact", model=flat)


def test_screening_every_link_out_leaves_the_exact_chart(uncertain):
    flat, pair, exact = uncertain
    run = expectations(pair.src, pair.tgt, "randomized", 5, 0, model=flat, screen=0.0, checkpoints=[1, 3])
    assert run.diagnostics["screened"] == run.diagnostics["links"] > 0 and len(run.diagnostics["masks"]) == 5
    np.testing.assert_allclose(run.counts, exact.counts, rtol=1e-10, atol=1e-10)
    # The first iterations are the pilot charts, and the last one's estimate stands until the chain has one:
    # the first is conditioned on two thirds of M'; the third on none (the others were all found doubtful).
    first, third = (mark["counts"] for mark in run.checkpoints)
    assert np.sum((first - exact.counts) ** 2) > 1e-6
    np.testing.assert_allclose(third, exact.counts, rtol=1e-10, atol=1e-10)
    assert [m["positive"] for m in run.diagnostics["masks"][:3]][0] > 0 == run.diagnostics["masks"][2]["positive"]
    np.testing.assert_array_equal(expectations(pair.src, pair.tgt, "randomized", 1, 0, model=flat,
                                               screen=0.0).counts, first)


def test_screening_keeps_every_link_at_one(uncertain):
    flat, pair, _ = uncertain
    assert expectations(pair.src, pair.tgt, "randomized", 5, 0, model=flat, screen=1.0).diagnostics["screened"] == 0


def test_screening_lowers_the_bias_of_short_chains(model):
    # A pair whose M' mixes links the model is sure of with links it doubts a little (3 or 4 of 4 above 1e-3).
    pair = next(p for p in PAIRS if p.id == "n01052004")
    exact = expectations(pair.src, pair.tgt, "exact", model=model)
    l2 = {}
    for screen in (None, 1e-3):
        runs = [expectations(pair.src, pair.tgt, "randomized", 8, seed, model=model, screen=screen)
                for seed in range(5)]
        l2[screen] = np.mean([np.sum((r.counts - exact.counts) ** 2) for r in runs])
        if screen is not None:
            assert all(r.diagnostics["screened"] > 0 for r in runs)
            assert any(r.diagnostics["screened"] < r.diagnostics["links"] for r in runs)
    assert l2[1e-3] < l2[None] / 100


def test_screen_outside_zero_one_is_a_clear_error(uncertain):
    flat, pair, _ = uncertain
    with pytest.raises(ValueError, match="screen must be in"):
        expectations(pair.src, pair.tgt, "randomized", 3, 0, model=flat, screen=1.5)
    scores = random_scores(2, 2, 0)
    with pytest.raises(ValueError, match="screen must be in"):
        randomized_statistics(scores, np.array([(0, 0)]), "binary", 1, screen=-0.1)
