"""Second-order (sibling) Eisner: every returned quantity against brute-force enumeration."""
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse import kernels
from vineparse._kernels.arcs import ArcIndex
from vineparse._kernels import hypergraph as engine
from vineparse._kernels.eisner2 import SecondOrder
from vineparse.kernels.second_order import (eisner2, eisner2_marginals, eisner2_max_marginals,
                                            eisner2_sample, second_order_parts)
from vineparse.trees import is_projective
from oracle import brute_force_cases, projective_trees, random_mask, vine_style_mask


@lru_cache(maxsize=None)
def tree_matrix(n, single_root):
    """Every projective tree of n words as the rows of a (K, n + 1) int64 array."""
    return np.stack(projective_trees(n, single_root))


def inner_siblings(trees):
    """s[k, m]: the sibling part's middle index for word m in tree k (its head
    when m is the head's closest child on that side)."""
    K, N = trees.shape
    sibs = trees.copy()
    for m in range(1, N):
        h = trees[:, m]
        s = h.copy()
        for c in range(1, m):                      # right: the largest h < c < m with head h
            s = np.where((trees[:, c] == h) & (c > h), c, s)
        for c in range(N - 1, m, -1):              # left: the smallest m < c < h with head h
            s = np.where((trees[:, c] == h) & (c < h), c, s)
        sibs[:, m] = s
    return sibs


def sibling_scores(trees, scores, sib):
    """Total second-order score of every row of `trees`; sib dense (n + 1)^3."""
    N = trees.shape[1]
    if N == 1:
        return np.zeros(len(trees))
    m = np.arange(1, N)
    heads = trees[:, 1:]
    return scores[heads, m].sum(axis=1) + sib[heads, inner_siblings(trees)[:, 1:], m].sum(axis=1)


def brute_force(trees, values):
    """Best score, best trees, arc max-marginals, log Z and arc marginals."""
    K, N = trees.shape
    best = values.max()
    log_z = np.logaddexp.reduce(values)
    probs = np.exp(values - log_z)
    maxmarg = np.full((N, N), -np.inf)
    marg = np.zeros((N, N))
    for m in range(1, N):
        np.maximum.at(maxmarg[:, m], trees[:, m], values)
        np.add.at(marg[:, m], trees[:, m], probs)
    return best, trees[values == best], maxmarg, log_z, marg


def allowed(trees, mask):
    if mask is None:
        return trees
    keep = mask[trees[:, 1:], np.arange(1, trees.shape[1])].all(axis=1)
    return trees[keep]


def compact(sib, mask, n):
    h, s, m = second_order_parts(mask, n).T
    return sib[h, s, m]


def random_problem(rng, n, masked, arc_inf):
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    sib = rng.normal(size=(n + 1, n + 1, n + 1)) * 3
    sib[rng.random(sib.shape) < 0.1] = -np.inf          # impossible sibling parts
    if arc_inf:
        scores[rng.random(scores.shape) < 0.15] = -np.inf
    mask = random_mask(rng, n) if masked else None
    return scores, sib, mask


CASES = brute_force_cases(3)


@pytest.mark.parametrize("n,single_root,masked,seed", CASES)
def test_against_brute_force(n, single_root, masked, seed):
    rng = np.random.default_rng(1000 * n + 10 * seed + 2 * single_root + masked)
    scores, sib, mask = random_problem(rng, n, masked, arc_inf=seed == 2)
    trees = allowed(tree_matrix(n, single_root), mask)
    values = sibling_scores(trees, scores, sib)
    if values.max() == -np.inf:
        with pytest.raises(ValueError, match="admits no projective tree"):
            eisner2(scores, sib, mask, single_root=single_root)
        return
    best, best_trees, maxmarg, log_z, marg = brute_force(trees, values)

    for form in (sib, compact(sib, mask, n)):
        heads = eisner2(scores, form, mask, single_root=single_root)
        assert any(np.array_equal(heads, t) for t in best_trees)
        assert sibling_scores(heads[None], scores, sib)[0] == pytest.approx(best)

        got_best, got_maxmarg = eisner2_max_marginals(scores, form, mask, single_root=single_root)
        assert got_best == pytest.approx(best)
        np.testing.assert_allclose(got_maxmarg, maxmarg, rtol=1e-9, atol=1e-9)

        got_log_z, got_marg = eisner2_marginals(scores, form, mask, single_root=single_root)
        assert got_log_z == pytest.approx(log_z)
        np.testing.assert_allclose(got_marg, marg, atol=1e-9)


@pytest.mark.parametrize("single_root", [True, False])
@pytest.mark.parametrize("masked", [False, True])
def test_dense_and_compact_agree_exactly(single_root, masked):
    rng = np.random.default_rng(11 + single_root + 2 * masked)
    n = 12
    scores, sib, mask = random_problem(rng, n, masked, arc_inf=True)
    small = compact(sib, mask, n)
    np.testing.assert_array_equal(eisner2(scores, sib, mask, single_root),
                                  eisner2(scores, small, mask, single_root))
    for fn in (eisner2_max_marginals, eisner2_marginals):
        value, arcs = fn(scores, sib, mask, single_root)
        value_compact, arcs_compact = fn(scores, small, mask, single_root)
        assert value == value_compact
        np.testing.assert_array_equal(arcs, arcs_compact)


@pytest.mark.parametrize("single_root", [True, False])
@pytest.mark.parametrize("masked", [False, True])
def test_zero_sibling_scores_give_first_order(single_root, masked):
    rng = np.random.default_rng(5 + single_root + 2 * masked)
    for n in (1, 6, 25):
        scores = rng.normal(size=(n + 1, n + 1))
        mask = random_mask(rng, n, 0.4) if masked else None
        zeros = np.zeros(len(second_order_parts(mask, n)))
        np.testing.assert_array_equal(eisner2(scores, zeros, mask, single_root),
                                      kernels.eisner(scores, mask, single_root))
        best2, mm2 = eisner2_max_marginals(scores, zeros, mask, single_root)
        best1, mm1 = kernels.eisner_max_marginals(scores, mask, single_root)
        assert best2 == pytest.approx(best1)
        np.testing.assert_allclose(mm2, mm1, rtol=1e-9, atol=1e-9)
        log_z2, marg2 = eisner2_marginals(scores, zeros, mask, single_root)
        log_z1, marg1 = kernels.eisner_marginals(scores, mask, single_root)
        assert log_z2 == pytest.approx(log_z1)
        np.testing.assert_allclose(marg2, marg1, atol=1e-9)


def test_second_order_parts_follow_the_canonical_layout():
    rng = np.random.default_rng(3)
    for n in range(0, 10):
        mask = random_mask(rng, n, 0.5)
        layout = mask.astype(np.uint8)
        layout[:, 0] = 0
        np.fill_diagonal(layout, 0)
        expected = ArcIndex(layout).sibling_parts()
        np.testing.assert_array_equal(second_order_parts(mask), expected)
        np.testing.assert_array_equal(second_order_parts(mask, n), expected)
    parts = second_order_parts(None, 3)
    # root: 1 + 2 + 3; word 1: 1 + 2 (right); word 2: 1 (right) + 1 (left); word 3: 1 + 2 (left)
    assert parts.dtype == np.int64 and parts.shape == (14, 3)
    assert {tuple(p) for p in parts} >= {(0, 0, 1), (0, 1, 3), (3, 3, 1), (3, 2, 1)}


def test_samples_follow_the_gibbs_distribution():
    n = 4
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(n + 1, n + 1))
    sib = rng.normal(size=(n + 1, n + 1, n + 1))
    trees = tree_matrix(n, False)
    *_, marg = brute_force(trees, sibling_scores(trees, scores, sib))
    samples = eisner2_sample(scores, sib, count=20000, seed=3, single_root=False)
    assert samples.shape == (20000, n + 1)
    freq = np.zeros((n + 1, n + 1))
    for m in range(1, n + 1):
        np.add.at(freq[:, m], samples[:, m], 1)
    np.testing.assert_allclose(freq / len(samples), marg, atol=0.015)
    np.testing.assert_array_equal(eisner2_sample(scores, sib, count=50, seed=3, single_root=False),
                                  samples[:50])


def test_large_scores_are_stable():
    rng = np.random.default_rng(0)
    n = 30
    scores = rng.normal(size=(n + 1, n + 1)) * 5000
    sib = rng.normal(size=len(second_order_parts(None, n))) * 5000
    log_z, marg = eisner2_marginals(scores, sib)
    best, _ = eisner2_max_marginals(scores, sib)
    assert np.isfinite(log_z) and log_z >= best
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


def test_empty_sentence():
    assert eisner2(np.zeros((1, 1)), np.zeros((1, 1, 1))).tolist() == [-1]
    assert eisner2_marginals(np.zeros((1, 1)), np.zeros(0))[0] == 0.0
    assert second_order_parts(None, 0).shape == (0, 3)


def test_schedule_follows_the_mask():
    """I items exactly for the allowed arcs, S items only for same-side
    modifier pairs of a common head, and span pruning only drops items."""
    rng = np.random.default_rng(2)
    n = 60
    mask = vine_style_mask(n, rng)
    layout = mask.astype(np.uint8)
    layout[:, 0] = 0
    np.fill_diagonal(layout, 0)
    arcs = ArcIndex(layout)
    scores = rng.normal(size=(n + 1, n + 1))
    sib = rng.normal(size=arcs.n_sibling_parts)
    pruned = SecondOrder(scores, sib, arcs, True)
    full = SecondOrder(scores, sib, arcs, True, False)
    order = pruned.schedule()
    assert len(set(order.tolist())) == len(order)
    assert set(order.tolist()) <= set(full.schedule().tolist())
    assert ((order >= pruned.i_base) & (order < pruned.s_base)).sum() == arcs.n_arcs
    pairs = {(min(s, m), max(s, m)) for h, s, m in arcs.sibling_parts() if s != h and h != 0}
    assert (order >= pruned.s_base).sum() == pruned.n_pairs == len(pairs)
    assert len(order) < 0.5 * len(full.schedule())
    span_heads, span_ends = pruned.complete_spans()
    assert len(span_heads) == pruned.i_base - 2 and np.all(span_heads != span_ends)


@pytest.mark.parametrize("kwargs,message", [
    (dict(scores=np.zeros((3, 4))), "shape"),
    (dict(scores=np.array([[0, np.nan], [0, 0]]), sib=np.zeros((2, 2, 2))), "NaN"),
    (dict(scores=np.array([[0, np.inf], [0, 0]]), sib=np.zeros((2, 2, 2))), r"\+inf"),
    (dict(sib=np.zeros((3, 3))), "dense .* or a compact 1-D vector, got shape \\(3, 3\\)"),
    (dict(sib=np.zeros((3, 3, 4))), r"dense sib must have shape \(3, 3, 3\)"),
    (dict(sib=np.zeros(6)), "expected length 5 .* got 6"),
    (dict(sib=np.array(["a"] * 5)), "dtype"),
    (dict(sib=np.where(np.arange(27).reshape(3, 3, 3) == 13, np.nan, 0.0)),
     r"sib contains NaN \(first at \[1, 1, 1\]\)"),
    (dict(sib=np.array([0, 0, 0, np.inf, 0])), r"sib contains \+inf \(first at \[3\]\)"),
    (dict(sib=np.array([0, 0, np.nan, np.inf, 0])), "sib contains NaN"),
    (dict(mask=np.ones((3, 3), dtype=int)), "boolean"),
    (dict(mask=np.ones((2, 2), dtype=bool)), "mask has shape"),
    (dict(mask=np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool), sib=np.zeros(1)),
     "admits no projective tree.*word 2 has no allowed head"),
    (dict(sib=np.full(5, -np.inf)), "admits no projective tree"),
])
def test_bad_input(kwargs, message):
    args = dict(scores=np.zeros((3, 3)), sib=np.zeros(5), mask=None)
    args.update(kwargs)
    for fn in (eisner2, eisner2_max_marginals, eisner2_marginals):
        with pytest.raises(ValueError, match=message):
            fn(args["scores"], args["sib"], args["mask"])


def test_bad_part_requests():
    with pytest.raises(ValueError, match="needs a mask or the sentence length"):
        second_order_parts(None)
    with pytest.raises(ValueError, match="but n = 3"):
        second_order_parts(np.ones((3, 3), dtype=bool), 3)
    with pytest.raises(ValueError, match="boolean"):
        second_order_parts(np.ones((3, 3), dtype=int))
    with pytest.raises(ValueError, match="shape"):
        second_order_parts(np.ones((3, 2), dtype=bool))


def tree_score(heads, scores, sib):
    """Score of one tree; `sib` maps parts (h, s, m) to their scores."""
    total = 0.0
    N = len(heads)
    for m in range(1, N):
        h = heads[m]
        if m > h:
            inner = [c for c in range(h + 1, m) if heads[c] == h]
            s = max(inner) if inner else h
        else:
            inner = [c for c in range(m + 1, h) if heads[c] == h]
            s = min(inner) if inner else h
        total += scores[h, m] + sib[(h, s, m)]
    return total


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 40), seed=st.integers(0, 2**31), single_root=st.booleans(),
       keep=st.floats(0.1, 1.0), vine=st.booleans())
def test_properties(n, seed, single_root, keep, vine):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 4
    mask = vine_style_mask(n, rng) if vine else random_mask(rng, n, keep)
    parts = second_order_parts(mask)
    sib = rng.normal(size=len(parts)) * 4
    by_part = dict(zip(map(tuple, parts.tolist()), sib))

    heads = eisner2(scores, sib, mask, single_root=single_root)
    assert heads[0] == -1 and is_projective(heads)
    assert all(mask[heads[m], m] for m in range(1, n + 1))
    if single_root:
        assert (heads[1:] == 0).sum() == 1
    best, mm = eisner2_max_marginals(scores, sib, mask, single_root=single_root)
    assert best == pytest.approx(tree_score(heads, scores, by_part))
    assert mm.max() == pytest.approx(best)
    np.testing.assert_allclose(mm[heads[1:], np.arange(1, n + 1)], best)
    assert np.all(mm[~mask] == -np.inf)
    log_z, marg = eisner2_marginals(scores, sib, mask, single_root=single_root)
    assert log_z >= best - 1e-9
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)
    assert np.all(marg[~mask] == 0)

    # pruning the complete spans by reachability changes nothing
    layout = mask.astype(np.uint8)
    layout[:, 0] = 0
    np.fill_diagonal(layout, 0)
    arcs = ArcIndex(layout)
    for run in (engine.max_marginals, engine.marginals):
        pruned = SecondOrder(scores, sib, arcs, single_root)
        full = SecondOrder(scores, sib, arcs, single_root, False)
        (v1, q1), (v0, q0) = run(pruned), run(full)
        assert v1 == pytest.approx(v0, abs=1e-9)
        np.testing.assert_allclose(pruned.arc_values(q1)[2], full.arc_values(q0)[2], atol=1e-9)
