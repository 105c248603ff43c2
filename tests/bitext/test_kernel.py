"""The ITG chart (vineparse/_kernels/itg.pyx) against brute-force enumeration of derivations."""
import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse.bitext.grammar import (Chart, PairScores, exact_items, keep_all, keep_from_links, keep_from_mask,
                                      n_spans)
from itg_oracle import enumerate_derivations, expectations, score

SIZES = [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3)]


def random_scores(rng, p, q, scale=1.0):
    return PairScores(rng.normal(size=(p, q)) * scale, rng.normal(size=p) * scale, rng.normal(size=q) * scale,
                      rng.normal(size=9) * scale, rng.normal(size=9) * scale)


def random_keep(rng, p, q, share=0.75):
    """A dense boolean mask keeping each bispan with probability `share` (the whole pair always)."""
    mask = rng.random((p + 1, p + 1, q + 1, q + 1)) < share
    mask[0, p, 0, q] = True
    return mask


def check_against_oracle(scores, grammar, mask=None, emit_allowed=None):
    p, q = scores.shape
    keep = keep_all(p, q) if mask is None else keep_from_mask(mask)
    chart = Chart(scores, keep, grammar)
    result = chart.run(statistics=True)
    derivations = enumerate_derivations(p, q, None if mask is None else (lambda *b: mask[b]), emit_allowed,
                                        ternary=grammar == "ternary")
    if not derivations:
        assert result.log_z == -np.inf and result.statistics is None
        return 0
    values = [score(d, scores.emit, scores.null_src, scores.null_tgt, scores.rule, scores.mismatch)
              for d in derivations]
    log_z, totals, _ = expectations(derivations, values, p, q)
    assert result.log_z == pytest.approx(log_z, rel=1e-10, abs=1e-10)
    got = result.statistics
    for name, want in zip(("emit", "null_src", "null_tgt", "count", "mismatch"), totals):
        np.testing.assert_allclose(getattr(got, name), want, atol=1e-9, err_msg=name)
    return len(derivations)


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("p,q", SIZES)
def test_unpruned_chart_equals_brute_force(p, q, grammar):
    rng = np.random.default_rng(100 * p + q)
    assert check_against_oracle(random_scores(rng, p, q), grammar) > 0


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("p,q", [(2, 2), (2, 3), (3, 3), (3, 4), (4, 3)])
@pytest.mark.parametrize("seed", range(3))
def test_masked_chart_equals_brute_force(p, q, grammar, seed):
    rng = np.random.default_rng(1000 * seed + 10 * p + q)
    scores = random_scores(rng, p, q)
    emit_allowed = rng.random((p, q)) < 0.8
    scores.emit[~emit_allowed] = -np.inf
    check_against_oracle(scores, grammar, random_keep(rng, p, q), emit_allowed)


def test_some_random_masks_admit_no_derivation():
    rng = np.random.default_rng(5)
    empty = 0
    for _ in range(30):
        scores = random_scores(rng, 3, 3)
        empty += check_against_oracle(scores, "binary", random_keep(rng, 3, 3, share=0.3)) == 0
    assert 0 < empty < 30


def test_ternary_rules_add_derivations():
    # Every permutation of three is an ITG permutation, but ternary rules are derivations of their own.
    assert len(enumerate_derivations(3, 3, ternary=True)) > len(enumerate_derivations(3, 3))


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
def test_samples_follow_the_distribution(grammar):
    rng = np.random.default_rng(11)
    p, q = 2, 3
    scores = random_scores(rng, p, q)
    derivations = enumerate_derivations(p, q, ternary=grammar == "ternary")
    values = [score(d, scores.emit, scores.null_src, scores.null_tgt, scores.rule, scores.mismatch)
              for d in derivations]
    _, _, probs = expectations(derivations, values, p, q)
    want = Counter()
    for d, prob in zip(derivations, probs):
        want[frozenset(d.bispans)] += prob
    assert len(want) == len(derivations)            # a derivation is identified by its bispans
    count = 20000
    result = Chart(scores, keep_all(p, q), grammar).run(statistics=False, samples=count, seed=3,
                                                         sample_bispans=True)
    got = Counter(frozenset(b) for b in result.bispans)
    assert set(got) <= set(want)
    total_variation = 0.5 * sum(abs(got[k] / count - want[k]) for k in want)
    assert total_variation < 0.04
    # The links of each sample are the emissions among its bispans.
    for links, bispans in zip(result.links[:50], result.bispans[:50]):
        emitted = {(i, k) for i, j, k, l in bispans if j - i == 1 and l - k == 1} & set(zip(*np.nonzero(links)))
        assert set(zip(*np.nonzero(links))) == emitted
    again = Chart(scores, keep_all(p, q), grammar).run(statistics=False, samples=50, seed=3)
    np.testing.assert_array_equal(again.links, result.links[:50])


def test_large_scores_are_stable():
    rng = np.random.default_rng(2)
    scores = random_scores(rng, 8, 7, scale=2000.0)
    result = Chart(scores, keep_all(8, 7), "binary").run()
    stats = result.statistics
    assert np.isfinite(result.log_z)
    np.testing.assert_allclose(stats.emit.sum(axis=1) + stats.null_src, 1.0, atol=1e-9)


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("p,q", [(1, 1), (3, 5), (6, 4)])
def test_exact_items_counts_the_unpruned_chart(p, q, grammar):
    scores = random_scores(np.random.default_rng(0), p, q)
    chart = Chart(scores, keep_all(p, q), grammar)
    assert chart.graph.n_items == exact_items(p, q, grammar)


@st.composite
def pairs_and_links(draw):
    p = draw(st.integers(1, 7))
    q = draw(st.integers(1, 7))
    cells = list(itertools.product(range(p), range(q)))
    chosen = draw(st.lists(st.sampled_from(cells), max_size=3, unique_by=(lambda c: c[0], lambda c: c[1])))
    return p, q, np.array(chosen, dtype=np.int64).reshape(-1, 2), draw(st.integers(0, 2 ** 32 - 1))


@given(pairs_and_links(), st.sampled_from(["binary", "ternary"]))
def test_every_word_is_emitted_once_and_positive_links_hold(case, grammar):
    p, q, links, seed = case
    rng = np.random.default_rng(seed)
    scores = random_scores(rng, p, q)
    full = Chart(scores, keep_all(p, q), grammar).run(samples=3, seed=seed)
    stats = full.statistics
    np.testing.assert_allclose(stats.emit.sum(axis=1) + stats.null_src, 1.0, atol=1e-8)
    np.testing.assert_allclose(stats.emit.sum(axis=0) + stats.null_tgt, 1.0, atol=1e-8)
    assert (full.links.sum(axis=2) <= 1).all() and (full.links.sum(axis=1) <= 1).all()
    masked = Chart(scores, keep_from_links(p, q, links), grammar).run(samples=3, seed=seed)
    if masked.log_z == -np.inf:          # e.g. two links crossing in a way the ITG cannot make
        return
    assert masked.log_z <= full.log_z + 1e-9
    for i, k in links:
        assert masked.statistics.emit[i, k] == pytest.approx(1.0)
        assert masked.links[:, i, k].all()
    # Conditioning on the links: their joint posterior under the full chart is Z_masked / Z.
    if len(links) == 1:
        i, k = links[0]
        assert np.exp(masked.log_z - full.log_z) == pytest.approx(stats.emit[i, k], rel=1e-7, abs=1e-12)


def test_keep_tables_have_the_documented_shape():
    keep = keep_all(3, 2)
    assert keep.shape == (n_spans(3), n_spans(2))
    mask = np.ones((4, 4, 3, 3), dtype=bool)
    np.testing.assert_array_equal(keep_from_mask(mask), keep)


def test_chart_checks_its_inputs():
    rng = np.random.default_rng(0)
    scores = random_scores(rng, 2, 2)
    with pytest.raises(ValueError, match="keep table must have shape"):
        Chart(scores, np.ones((3, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="grammar must be one of"):
        Chart(scores, keep_all(2, 2), "quaternary")
    with pytest.raises(ValueError, match="null_src scores must have shape"):
        PairScores(np.zeros((2, 2)), np.zeros(3), np.zeros(2), np.zeros(9), np.zeros(9))
    with pytest.raises(ValueError, match="must be finite"):
        PairScores(np.zeros((2, 2)), np.array([0.0, np.nan]), np.zeros(2), np.zeros(9), np.zeros(9))
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        PairScores(np.full((2, 2), np.inf), np.zeros(2), np.zeros(2), np.zeros(9), np.zeros(9))
