"""Non-projective first order: the maximum spanning tree and the matrix-tree marginals against every tree."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse import kernels
from vineparse.kernels.nonprojective import COLUMN_TOLERANCE, IllConditionedError
from vineparse.trees import find_cycle, is_projective
from oracle import all_trees, allowed_trees, first_order_score, oracle, random_mask

CASES = [(n, single_root, masked, seed)
         for n in range(1, 7) for single_root in (True, False) for masked in (False, True) for seed in range(3)]


@pytest.mark.parametrize("n,single_root,masked,seed", CASES)
def test_against_brute_force(n, single_root, masked, seed):
    rng = np.random.default_rng(1000 * n + 10 * seed + 2 * single_root + masked)
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    if seed == 2:
        scores = np.round(scores)                 # ties
    mask = random_mask(rng, n) if masked else None
    trees = allowed_trees(all_trees(n, single_root), mask)
    best, best_trees, _, log_z, marg = oracle(trees, lambda t: first_order_score(t, scores))

    heads = kernels.mst(scores, mask, single_root=single_root)
    assert any(np.array_equal(heads, t) for t in best_trees)
    assert first_order_score(heads, scores) == pytest.approx(best)

    got_log_z, got_marg = kernels.matrix_tree_marginals(scores, mask, single_root=single_root)
    assert got_log_z == pytest.approx(log_z, abs=1e-9)
    np.testing.assert_allclose(got_marg, marg, atol=1e-9)


PEAKED = [(seed, scale) for seed in range(40) for scale in (10.0, 30.0, 100.0)]


@pytest.mark.parametrize("seed,scale", PEAKED)
def test_peaked_scores_against_brute_force(seed, scale):
    """Where the Laplacian is ill-conditioned, log Z and the marginals are refused or within 2 * COLUMN_TOLERANCE
    of every tree's; a refusal needs float64 to fail (peaked scores only)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    single_root = bool(rng.integers(2))
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    mask = random_mask(rng, n, 0.4) if rng.integers(2) else None
    trees = allowed_trees(all_trees(n, single_root), mask)
    _, _, _, log_z, marg = oracle(trees, lambda t: first_order_score(t, scores))
    try:
        got_log_z, got_marg = kernels.matrix_tree_marginals(scores, mask, single_root=single_root)
    except IllConditionedError:
        assert marg.max() > 1 - 1e-6            # refused only where one tree holds all but 1e-6 of the mass
        return
    assert abs(got_log_z - log_z) <= 2 * COLUMN_TOLERANCE
    np.testing.assert_allclose(got_marg, marg, atol=2 * COLUMN_TOLERANCE)


def test_a_peaked_case_within_the_promise():
    # test_properties' example n 4, seed 7360, one root, masked, scale 30: its log Z comes out 4.7e-7 below
    # the best tree's score (three trees, 32.5 apart), within 2 * COLUMN_TOLERANCE, not within 1e-9
    rng = np.random.default_rng(7360)
    scores = rng.normal(size=(5, 5)) * 30.0
    mask = random_mask(rng, 4, 0.4)
    _, _, _, log_z, marg = oracle(allowed_trees(all_trees(4, True), mask), lambda t: first_order_score(t, scores))
    got_log_z, got_marg = kernels.matrix_tree_marginals(scores, mask, single_root=True)
    assert 1e-7 < log_z - got_log_z <= 2 * COLUMN_TOLERANCE
    np.testing.assert_allclose(got_marg, marg, atol=2 * COLUMN_TOLERANCE)


def test_the_oracle_counts_cayley():
    assert len(all_trees(4, single_root=False)) == 5 ** 3
    assert len(all_trees(4, single_root=True)) == 4 ** 3       # n^(n - 1): a root child, then a tree under it


def test_a_crossing_tree_is_found():
    # 1 -> 3 and 2 -> 4 cross: the only tree the mask allows with them
    scores = np.full((5, 5), -5.0)
    for h, m in [(0, 1), (1, 3), (3, 2), (2, 4)]:
        scores[h, m] = 5.0
    heads = kernels.mst(scores)
    np.testing.assert_array_equal(heads, [-1, 0, 3, 1, 2])
    assert not is_projective(heads)
    assert kernels.eisner(scores)[1:].tolist() != heads[1:].tolist()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**32 - 1), single_root=st.booleans(),
       masked=st.booleans(), scale=st.sampled_from([0.01, 1.0, 30.0, 1e6]))
def test_properties(n, seed, single_root, masked, scale):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    mask = random_mask(rng, n, 0.4) if masked else None
    heads = kernels.mst(scores, mask, single_root=single_root)
    assert heads[0] == -1 and find_cycle(heads) is None
    assert (heads[1:] >= 0).all() and (heads[1:] != np.arange(1, n + 1)).all()
    if single_root:
        assert int((heads[1:] == 0).sum()) == 1
    if mask is not None:
        assert mask[heads[1:], np.arange(1, n + 1)].all()
    # every projective tree is a tree: the best tree scores at least Eisner's best
    projective = kernels.eisner(scores, mask, single_root=single_root)
    assert first_order_score(heads, scores) >= first_order_score(projective, scores) - 1e-9 * max(scale, 1) * n
    try:
        log_z, marginals = kernels.matrix_tree_marginals(scores, mask, single_root=single_root)
    except IllConditionedError:
        assert scale > 1        # refused only where float64 cannot hold the determinant
    else:                       # never silently wrong
        np.testing.assert_allclose(marginals[:, 1:].sum(axis=0), 1.0, atol=COLUMN_TOLERANCE)
        assert marginals.min() >= -1e-9 and marginals[:, 0].max() == 0.0
        best = first_order_score(heads, scores)
        assert log_z >= best - 2 * COLUMN_TOLERANCE       # the precision the function promises
        if mask is not None:
            assert marginals[~mask].max(initial=0.0) == 0.0


def test_scores_in_the_thousands():
    rng = np.random.default_rng(3)
    n = 30
    scores = rng.normal(size=(n + 1, n + 1)) * 2
    log_z, marginals = kernels.matrix_tree_marginals(scores + 5000.0)       # the shift is exact
    assert log_z == pytest.approx(kernels.matrix_tree_marginals(scores)[0] + 5000.0 * n)
    np.testing.assert_allclose(marginals, kernels.matrix_tree_marginals(scores)[1], atol=1e-9)
    weak_roots = np.zeros((4, 4))
    weak_roots[0] = -800.0                      # exp(-800) is 0 in float64: a singular Laplacian
    with pytest.raises(IllConditionedError, match="temperature"):
        kernels.matrix_tree_marginals(weak_roots, single_root=False)
    assert kernels.matrix_tree_marginals(weak_roots)[1][0, 1:].sum() == pytest.approx(1.0)
    heads = kernels.mst(scores * 1000)
    assert first_order_score(heads, scores) >= first_order_score(kernels.eisner(scores * 1000), scores)


def test_no_tree_is_a_clear_error():
    scores = np.zeros((4, 4))
    mask = np.ones((4, 4), dtype=bool)
    mask[:, 2] = False
    for call in (kernels.mst, kernels.matrix_tree_marginals):
        with pytest.raises(kernels.NoStructureError, match="word 2 has no allowed head"):
            call(scores, mask)
    # only the root reaches word 1 and only word 1 reaches words 2 and 3... but the root also must reach 2:
    unreachable = np.zeros((4, 4), dtype=bool)
    unreachable[0, 1] = unreachable[3, 2] = unreachable[2, 3] = True
    for call in (kernels.mst, kernels.matrix_tree_marginals):
        with pytest.raises(kernels.NoStructureError, match="cannot be reached"):
            call(scores, unreachable)
    two_roots = np.zeros((3, 3), dtype=bool)
    two_roots[0, 1] = two_roots[0, 2] = True
    assert kernels.mst(scores[:3, :3], two_roots, single_root=False).tolist() == [-1, 0, 0]
    for call in (kernels.mst, kernels.matrix_tree_marginals):
        with pytest.raises(kernels.NoStructureError, match="single-rooted"):
            call(scores[:3, :3], two_roots)


@pytest.mark.parametrize("bad,match", [
    (np.full((3, 3), np.nan), "NaN"), (np.full((3, 3), np.inf), r"\+inf"), (np.zeros((2, 3)), "shape"),
    (np.full((3, 3), 1e301), "finite score range"), (np.array([["a"]]), "real-valued")])
def test_bad_scores(bad, match):
    for call in (kernels.mst, kernels.matrix_tree_marginals):
        with pytest.raises(ValueError, match=match):
            call(bad)


def test_empty_and_one_word():
    assert kernels.mst(np.zeros((1, 1))).tolist() == [-1]
    assert kernels.matrix_tree_marginals(np.zeros((1, 1)))[0] == 0.0
    log_z, marginals = kernels.matrix_tree_marginals(np.array([[0.0, 2.0], [0.0, 0.0]]))
    assert log_z == pytest.approx(2.0) and marginals[0, 1] == pytest.approx(1.0)


def test_memory_limit_is_checked_first():
    previous = kernels.get_memory_limit()
    kernels.set_memory_limit(2**20)
    try:
        for call in (kernels.mst, kernels.matrix_tree_marginals):
            with pytest.raises(kernels.KernelSizeError, match="memory limit"):
                call(np.zeros((400, 400)))
    finally:
        kernels.set_memory_limit(previous)
