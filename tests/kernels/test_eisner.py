"""First-order Eisner: every returned quantity against brute-force enumeration."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse import kernels
from vineparse.trees import is_projective
from oracle import projective_trees, first_order_score, allowed_trees, oracle, random_mask

CASES = [(n, single_root, masked, seed)
         for n in range(1, 8) for single_root in (True, False) for masked in (False, True)
         for seed in range(3)]
ENGINES = ("dense", "hypergraph")       # both first-order engines answer to every oracle


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("n,single_root,masked,seed", CASES)
def test_against_brute_force(n, single_root, masked, seed, engine):
    rng = np.random.default_rng(1000 * n + 10 * seed + 2 * single_root + masked)
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    mask = random_mask(rng, n) if masked else None
    trees = allowed_trees(projective_trees(n, single_root), mask)
    best, best_trees, maxmarg, log_z, marg = oracle(trees, lambda t: first_order_score(t, scores))

    heads = kernels.eisner(scores, mask, single_root=single_root, engine=engine)
    assert any(np.array_equal(heads, t) for t in best_trees)
    assert first_order_score(heads, scores) == pytest.approx(best)

    got_best, got_maxmarg = kernels.eisner_max_marginals(scores, mask, single_root=single_root, engine=engine)
    assert got_best == pytest.approx(best)
    np.testing.assert_allclose(got_maxmarg, maxmarg, rtol=1e-9, atol=1e-9)

    got_log_z, got_marg = kernels.eisner_marginals(scores, mask, single_root=single_root, engine=engine)
    assert got_log_z == pytest.approx(log_z)
    np.testing.assert_allclose(got_marg, marg, atol=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_samples_follow_the_gibbs_distribution(engine):
    n = 4
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(n + 1, n + 1))
    trees = projective_trees(n)
    _, _, _, _, marg = oracle(trees, lambda t: first_order_score(t, scores))
    samples = kernels.eisner_sample(scores, count=20000, seed=3, engine=engine)
    assert samples.shape == (20000, n + 1)
    freq = np.zeros((n + 1, n + 1))
    for heads in samples:
        freq[heads[1:], np.arange(1, n + 1)] += 1
    np.testing.assert_allclose(freq / len(samples), marg, atol=0.015)
    again = kernels.eisner_sample(scores, count=50, seed=3, engine=engine)
    np.testing.assert_array_equal(again, samples[:50])


@pytest.mark.parametrize("engine", ENGINES)
def test_sampled_trees_are_trees_of_the_mask(engine):
    rng = np.random.default_rng(11)
    n = 12
    scores = rng.normal(size=(n + 1, n + 1))
    mask = random_mask(rng, n, 0.5)
    for single_root in (True, False):
        for heads in kernels.eisner_sample(scores, count=200, seed=5, mask=mask, single_root=single_root,
                                           engine=engine):
            assert heads[0] == -1 and is_projective(heads)
            assert all(mask[heads[m], m] for m in range(1, n + 1))
            assert not single_root or (heads[1:] == 0).sum() == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_large_scores_are_stable(engine):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(31, 31)) * 5000
    log_z, marg = kernels.eisner_marginals(scores, engine=engine)
    best, _ = kernels.eisner_max_marginals(scores, engine=engine)
    assert np.isfinite(log_z) and log_z >= best
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_sentence(engine):
    assert kernels.eisner(np.zeros((1, 1)), engine=engine).tolist() == [-1]
    assert kernels.eisner_marginals(np.zeros((1, 1)), engine=engine)[0] == 0.0
    assert kernels.eisner_max_marginals(np.zeros((1, 1)), engine=engine) == (0.0, np.full((1, 1), -np.inf))


@pytest.mark.parametrize("scores,mask,message", [
    (np.zeros((3, 4)), None, "shape"),
    (np.zeros((3,)), None, "shape"),
    (np.array([["a"]]), None, "dtype"),
    (np.array([[0, np.nan], [0, 0]]), None, "NaN"),
    (np.array([[0, np.inf], [0, 0]]), None, r"\+inf"),
    (np.zeros((3, 3)), np.ones((3, 3), dtype=int), "boolean"),
    (np.zeros((3, 3)), np.ones((2, 2), dtype=bool), "mask has shape"),
    (np.zeros((3, 3)), np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool), "word 2 has no allowed head"),
    (np.zeros((4, 4)), np.array([[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]], dtype=bool),
     "admits no projective tree"),
])
def test_bad_input(scores, mask, message):
    for fn in (kernels.eisner, kernels.eisner_max_marginals, kernels.eisner_marginals):
        for engine in ENGINES:
            with pytest.raises(ValueError, match=message):
                fn(scores, mask, engine=engine)


def test_unknown_engine():
    with pytest.raises(ValueError, match="engine must be one of"):
        kernels.eisner(np.zeros((3, 3)), engine="gpu")


@settings(deadline=None)
@given(n=st.integers(8, 40), seed=st.integers(0, 2**31), single_root=st.booleans(),
       keep=st.floats(0.05, 1.0))
def test_properties(n, seed, single_root, keep):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 4
    mask = random_mask(rng, n, keep)
    heads = kernels.eisner(scores, mask, single_root=single_root)
    assert heads[0] == -1 and is_projective(heads)
    assert all(mask[heads[m], m] for m in range(1, n + 1))
    if single_root:
        assert (heads[1:] == 0).sum() == 1
    best, mm = kernels.eisner_max_marginals(scores, mask, single_root=single_root)
    assert best == pytest.approx(first_order_score(heads, scores))
    assert mm.max() == pytest.approx(best)
    np.testing.assert_allclose(mm[heads[1:], np.arange(1, n + 1)], best)
    assert np.all(mm[~mask] == -np.inf)
    log_z, marg = kernels.eisner_marginals(scores, mask, single_root=single_root)
    assert log_z >= best - 1e-9
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)
    assert np.all(marg[~mask] == 0)


@settings(deadline=None)
@given(n=st.integers(1, 60), seed=st.integers(0, 2**31), single_root=st.booleans(),
       keep=st.floats(0.05, 1.0), masked=st.booleans())
def test_engines_agree(n, seed, single_root, keep, masked):
    """The dense charts and the hypergraph engine give the same trees, scores and marginals."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    mask = random_mask(rng, n, keep) if masked else None
    kw = dict(single_root=single_root)
    dense_best, dense_mm = kernels.eisner_max_marginals(scores, mask, engine="dense", **kw)
    sparse_best, sparse_mm = kernels.eisner_max_marginals(scores, mask, engine="hypergraph", **kw)
    assert dense_best == pytest.approx(sparse_best, abs=1e-9)
    np.testing.assert_allclose(dense_mm, sparse_mm, atol=1e-9)
    heads = kernels.eisner(scores, mask, engine="dense", **kw)
    assert first_order_score(heads, scores) == pytest.approx(dense_best, abs=1e-9)
    dense_z, dense_marg = kernels.eisner_marginals(scores, mask, engine="dense", **kw)
    sparse_z, sparse_marg = kernels.eisner_marginals(scores, mask, engine="hypergraph", **kw)
    assert dense_z == pytest.approx(sparse_z, abs=1e-9)
    np.testing.assert_allclose(dense_marg, sparse_marg, atol=1e-9)


@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0, 300.0, 5000.0])
@pytest.mark.parametrize("n", [5, 30, 120])
def test_dense_marginals_in_linear_and_log_space(scale, n):
    """The dense marginals run in linear space (normalised weights) when no value can
    under- or overflow and in log space otherwise: both agree with the engine."""
    rng = np.random.default_rng(n)
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    mask = random_mask(rng, n, 0.7)
    for single_root in (True, False):
        dense_z, dense = kernels.eisner_marginals(scores, mask, single_root, engine="dense")
        sparse_z, sparse = kernels.eisner_marginals(scores, mask, single_root, engine="hypergraph")
        assert dense_z == pytest.approx(sparse_z, rel=1e-12, abs=1e-9)
        np.testing.assert_allclose(dense, sparse, atol=1e-9)
        np.testing.assert_allclose(dense[:, 1:].sum(axis=0), 1.0, atol=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scale", [0.3, 40.0])
def test_sample_frequencies_match_marginals(engine, scale):
    """Samples follow the marginals whether the dense charts sample in linear space
    (moderate scores) or in log space (scores whose normalised weights underflow)."""
    n = 5
    rng = np.random.default_rng(int(scale))
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    if scale > 1:
        scores[0, 3] += 900.0                  # normalised weights of some trees underflow: the log-space path
    _, marg = kernels.eisner_marginals(scores, engine="hypergraph")
    samples = kernels.eisner_sample(scores, count=20000, seed=9, engine=engine)
    freq = np.zeros((n + 1, n + 1))
    for m in range(1, n + 1):
        np.add.at(freq[:, m], samples[:, m], 1)
    np.testing.assert_allclose(freq / len(samples), marg, atol=0.015)
