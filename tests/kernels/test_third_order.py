"""Third-order grand-sibling Eisner: every returned quantity against brute-force enumeration."""
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from vineparse._kernels.arcs import ArcIndex
from vineparse.kernels._checks import allowed_arcs
from vineparse.kernels.first_order import eisner_marginals, eisner_max_marginals
from vineparse.kernels.third_order import (eisner3, eisner3_marginals, eisner3_max_marginals,
                                           third_order_parts)
from vineparse.trees import is_projective
from oracle import brute_force_cases, projective_trees, random_mask, tree_parts, vine_style_mask


@lru_cache(maxsize=None)
def tree_table(n, single_root):
    """Every projective tree of n words as a (T, n + 1) head matrix, and its
    parts as (tree, *part) index rows for vectorised scoring."""
    trees = projective_trees(n, single_root)
    rows = [[], [], [], []]
    for t, heads in enumerate(trees):
        for kind, parts in enumerate(tree_parts(heads)):
            rows[kind].extend((t,) + p for p in parts)
    widths = (3, 4, 4, 5)
    return np.array(trees), tuple(np.array(r, dtype=np.int64).reshape(-1, w) for r, w in zip(rows, widths))


def brute_force(n, single_root, mask, scores, sib, grand, gsib):
    """Best score, best trees, arc max-marginals, log Z, arc marginals (dense parts)."""
    heads, (arcs, sibs, grands, gsibs) = tree_table(n, single_root)
    total = np.zeros(len(heads))
    for rows, table in ((arcs, scores), (sibs, sib), (grands, grand), (gsibs, gsib)):
        np.add.at(total, rows[:, 0], table[tuple(rows[:, 1:].T)])
    return summarise(heads, total, mask)


def summarise(heads, total, mask):
    """The oracle quantities over the trees (rows of `heads`, scores `total`) the mask allows."""
    N = heads.shape[1]
    if mask is not None:
        ok = np.all(mask[heads[:, 1:], np.arange(1, N)], axis=1)
        heads, total = heads[ok], total[ok]
    best = total.max() if len(total) else -np.inf
    maxmarg, marg = np.full((N, N), -np.inf), np.zeros((N, N))
    if best == -np.inf:
        return best, [], maxmarg, -np.inf, marg
    log_z = best + np.log(np.exp(total - best).sum())
    words = np.broadcast_to(np.arange(1, N), (len(heads), N - 1))
    np.maximum.at(maxmarg, (heads[:, 1:], words), total[:, None])
    np.add.at(marg, (heads[:, 1:], words), np.exp(total - log_z)[:, None])
    return best, heads[total == best], maxmarg, log_z, marg


def random_parts(rng, n, forbid=0.05):
    """Dense random scores for the four part types, a share of them -inf."""
    N = n + 1
    out = []
    for shape in ((N, N), (N, N, N), (N, N, N), (N, N, N, N)):
        x = rng.normal(size=shape) * 2
        x[rng.random(shape) < forbid] = -np.inf
        out.append(x)
    return out


def compact(n, mask, sib, grand, gsib):
    """Dense part scores gathered into compact vectors in the layout of the mask."""
    parts = third_order_parts(mask, n)
    return (sib[tuple(parts["sibling"].T)], grand[tuple(parts["grandparent"].T)],
            gsib[tuple(parts["grand_sibling"].T)])


def tree_score(heads, scores, sib, grand, gsib):
    arcs, sibs, grands, gsibs = tree_parts(heads)
    return sum(table[p] for parts, table in ((arcs, scores), (sibs, sib), (grands, grand), (gsibs, gsib))
               for p in parts)


def check_all(n, single_root, mask, parts, dense, expected):
    """Every kernel on `parts` (sib, grand, gsib in any form) against the brute
    force; `dense` (scores, sib, grand, gsib) scores a tree that ties the best."""
    best, best_trees, maxmarg, log_z, marg = expected
    scores = dense[0]
    if best == -np.inf:
        for fn in (eisner3, eisner3_max_marginals, eisner3_marginals):
            with pytest.raises(ValueError, match="admits no projective tree"):
                fn(scores, *parts, mask=mask, single_root=single_root)
        return None
    heads = eisner3(scores, *parts, mask=mask, single_root=single_root)
    assert any(np.array_equal(heads, t) for t in best_trees) or tree_score(heads, *dense) == pytest.approx(best)
    got_best, got_maxmarg = eisner3_max_marginals(scores, *parts, mask=mask, single_root=single_root)
    assert got_best == pytest.approx(best)
    np.testing.assert_allclose(got_maxmarg, maxmarg, rtol=1e-9, atol=1e-9)
    got_log_z, got_marg = eisner3_marginals(scores, *parts, mask=mask, single_root=single_root)
    assert got_log_z == pytest.approx(log_z)
    np.testing.assert_allclose(got_marg, marg, atol=1e-9)
    return heads, got_best, got_maxmarg, got_log_z, got_marg


CASES = brute_force_cases(2)


@pytest.mark.parametrize("n,single_root,masked,seed", CASES)
def test_against_brute_force(n, single_root, masked, seed):
    rng = np.random.default_rng(1000 * n + 10 * seed + 2 * single_root + masked)
    scores, sib, grand, gsib = random_parts(rng, n)
    mask = random_mask(rng, n) if masked else None
    expected = brute_force(n, single_root, mask, scores, sib, grand, gsib)
    dense = (scores, sib, grand, gsib)
    from_dense = check_all(n, single_root, mask, dense[1:], dense, expected)
    from_compact = check_all(n, single_root, mask, compact(n, mask, sib, grand, gsib), dense, expected)
    if from_dense is not None:                  # dense input is gathered into the same compact vectors
        for a, b in zip(from_dense, from_compact):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(6))
def test_layout_ignores_impossible_arc_scores(seed):
    """Compact vectors follow the mask; arcs scored -inf can never be used, so every
    result equals the one for a mask that excludes them (and vectors laid out for
    that), up to the rounding of sums that include their zero terms."""
    rng = np.random.default_rng(seed)
    n = 9 + seed
    scores, sib, grand, gsib = random_parts(rng, n, forbid=0.0)
    mask = random_mask(rng, n, 0.5)
    scores[rng.random(scores.shape) < 0.3] = -np.inf
    for k in range(1, n + 1):
        scores[k - 1, k] = 0.0
    pruned = mask & np.isfinite(scores)
    for fn in (eisner3, eisner3_max_marginals, eisner3_marginals):
        for single_root in (True, False):
            got = fn(scores, *compact(n, mask, sib, grand, gsib), mask=mask, single_root=single_root)
            want = fn(scores, *compact(n, pruned, sib, grand, gsib), mask=pruned, single_root=single_root)
            for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


@pytest.mark.parametrize("n,single_root,masked", [(n, r, m) for n in (3, 5, 6) for r in (True, False)
                                                  for m in (False, True)])
def test_sibling_model_when_grand_parts_are_zero(n, single_root, masked):
    """With grand = gsib = 0 (or None) the model is the second-order sibling model."""
    rng = np.random.default_rng(77 * n + 2 * single_root + masked)
    N = n + 1
    scores, sib = rng.normal(size=(N, N)) * 2, rng.normal(size=(N, N, N)) * 2
    mask = random_mask(rng, n) if masked else None
    heads, (arcs, sibs, _, _) = tree_table(n, single_root)
    total = np.zeros(len(heads))
    np.add.at(total, arcs[:, 0], scores[arcs[:, 1], arcs[:, 2]])
    np.add.at(total, sibs[:, 0], sib[sibs[:, 1], sibs[:, 2], sibs[:, 3]])
    expected = summarise(heads, total, mask)
    for grand, gsib in ((None, None), (np.zeros((N, N, N)), np.zeros((N, N, N, N)))):
        check_all(n, single_root, mask, (sib, grand, gsib), (scores, sib, 0 * sib, np.zeros((N,) * 4)), expected)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 45), seed=st.integers(0, 2**31), single_root=st.booleans(),
       mask_kind=st.sampled_from(["none", "vine", "random"]))
@example(n=9, seed=352692, single_root=False, mask_kind="random")     # a max-marginal of -7e-4, off by 9e-16
def test_first_order_when_no_parts(n, seed, single_root, mask_kind):
    """Without part scores the model is first-order Eisner: every quantity agrees
    (so the pruned item set loses no tree, at lengths brute force cannot reach)."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    mask = {"none": None, "vine": vine_style_mask(n, rng), "random": random_mask(rng, n, 0.3)}[mask_kind]
    best, mm = eisner3_max_marginals(scores, mask=mask, single_root=single_root)
    best1, mm1 = eisner_max_marginals(scores, mask, single_root=single_root)
    assert best == pytest.approx(best1)
    # the two programs sum the same scores (|s| ~ 10) in other orders: equal up to rounding, also near 0
    np.testing.assert_allclose(mm, mm1, rtol=1e-12, atol=1e-12)
    log_z, marg = eisner3_marginals(scores, mask=mask, single_root=single_root)
    log_z1, marg1 = eisner_marginals(scores, mask, single_root=single_root)
    assert log_z == pytest.approx(log_z1)
    np.testing.assert_allclose(marg, marg1, atol=1e-12)


@pytest.mark.parametrize("n,keep", [(0, 1.0), (1, 1.0), (5, 1.0), (9, 0.4), (16, 0.3)])
def test_third_order_parts_lists_every_possible_part(n, keep):
    rng = np.random.default_rng(n)
    mask = random_mask(rng, n, keep) if n else None
    parts = third_order_parts(mask, n)
    ok = allowed_arcs(np.zeros((n + 1, n + 1)), mask).astype(bool)
    sibling = {(h, s, m) for h, m in zip(*np.nonzero(ok)) for s in range(n + 1)
               if s == h or (ok[h, s] and min(h, m) < s < max(h, m))}
    grandparent = {(g, h, m) for g, h in zip(*np.nonzero(ok)) for m in np.flatnonzero(ok[h])}
    grand_sibling = {(g, h, s, m) for g, h, m in grandparent for h2, s, m2 in sibling if (h2, m2) == (h, m)}
    for key, expected in (("sibling", sibling), ("grandparent", grandparent), ("grand_sibling", grand_sibling)):
        rows = parts[key]
        assert rows.dtype == np.int64 and len(rows) == len(expected)
        assert {tuple(int(v) for v in row) for row in rows} == expected
    assert parts["sibling"].shape[1] == parts["grandparent"].shape[1] == 3 and parts["grand_sibling"].shape[1] == 4


@pytest.mark.parametrize("n", [1, 4, 23, 24, 30])
def test_unmasked_layout_equals_the_full_mask(n):
    """mask=None reads a cached layout for short sentences and builds it past UNMASKED_CACHE_SIZES: both as the
    full mask; then the last-mask memo must not leak into the next call's different mask."""
    full = np.ones((n + 1, n + 1), dtype=bool)
    for key, rows in third_order_parts(None, n).items():
        assert np.array_equal(rows, third_order_parts(full, n)[key]) and not rows.flags.writeable
    rng = np.random.default_rng(n)
    scores = rng.normal(size=(n + 1, n + 1))
    sizes = third_order_parts(None, n)
    sib, grand, gsib = (rng.normal(size=len(sizes[k])) for k in ("sibling", "grandparent", "grand_sibling"))
    assert np.array_equal(eisner3(scores, sib, grand, gsib), eisner3(scores, sib, grand, gsib, full))
    chain = np.zeros((n + 1, n + 1), dtype=bool)
    chain[np.arange(n), np.arange(1, n + 1)] = True
    parts = third_order_parts(chain)
    tree = eisner3(scores, *(np.zeros(len(parts[k])) for k in ("sibling", "grandparent", "grand_sibling")), chain)
    assert tree.tolist() == [-1] + list(range(n))


def test_empty_and_one_word_sentences():
    assert eisner3(np.zeros((1, 1))).tolist() == [-1]
    assert eisner3_marginals(np.zeros((1, 1)))[0] == 0.0
    assert eisner3(np.zeros((2, 2)), sib=np.array([1.5])).tolist() == [-1, 0]
    assert eisner3_max_marginals(np.zeros((2, 2)), sib=np.array([1.5]))[0] == 1.5


def test_large_scores_are_stable():
    rng = np.random.default_rng(0)
    n = 20
    scores = rng.normal(size=(n + 1, n + 1)) * 5000
    sizes = ArcIndex(allowed_arcs(scores, None))
    parts = [rng.normal(size=k) * 5000 for k in
             (sizes.n_sibling_parts, sizes.n_grandparent_parts, sizes.n_grand_sibling_parts)]
    log_z, marg = eisner3_marginals(scores, *parts)
    best, _ = eisner3_max_marginals(scores, *parts)
    assert np.isfinite(log_z) and log_z >= best
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


N3 = np.zeros((3, 3))
ONLY_CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)


@pytest.mark.parametrize("scores,parts,mask,message", [
    (np.zeros((3, 4)), {}, None, "shape"),
    (np.array([["a"]]), {}, None, "dtype"),
    (np.array([[0, np.nan], [0, 0]]), {}, None, "NaN"),
    (np.array([[0, np.inf], [0, 0]]), {}, None, r"\+inf"),
    (N3, {}, np.ones((3, 3), dtype=int), "boolean"),
    (N3, {}, np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool), "word 2 has no allowed head"),
    (np.zeros((4, 4)), {}, np.array([[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]], dtype=bool),
     "admits no projective tree"),
    (N3, {"sib": np.zeros(3)}, ONLY_CHAIN, r"sib has 3 scores .*expected length 2, got 3"),
    (N3, {"grand": np.zeros(0)}, ONLY_CHAIN, r"expected length 1, got 0"),
    (N3, {"gsib": np.zeros(5)}, ONLY_CHAIN, r"gsib .* 1 grand-sibling parts"),
    (N3, {"sib": np.zeros((3, 3))}, None, r"sib must be a compact vector or have shape \(3, 3, 3\)"),
    (N3, {"gsib": np.zeros((3, 3, 3))}, None, r"gsib must be .* shape \(3, 3, 3, 3\)"),
    (N3, {"grand": np.array(["x"])}, None, "grand must be a real-valued array"),
    (N3, {"sib": np.array([0.0, np.nan])}, ONLY_CHAIN, r"sib contains NaN \(first at \[1\]\)"),
    (N3, {"gsib": np.full((3, 3, 3, 3), np.inf)}, None, r"gsib contains \+inf \(first at \[0, 0, 0, 0\]\)"),
    (N3, {"sib": np.array([0.0, -np.inf])}, ONLY_CHAIN, "admits no projective tree with finite arc and part"),
])
def test_bad_input(scores, parts, mask, message):
    for fn in (eisner3, eisner3_max_marginals, eisner3_marginals):
        with pytest.raises(ValueError, match=message):
            fn(scores, mask=mask, **parts)


@pytest.mark.parametrize("mask,n,message", [
    (None, None, "needs a mask or the sentence length n"),
    (np.ones((3, 4), dtype=bool), None, "shape"),
    (np.ones((3, 3), dtype=bool), 5, "n = 5"),
    (np.ones((3, 3), dtype=int), None, "boolean"),
])
def test_bad_parts_request(mask, n, message):
    with pytest.raises(ValueError, match=message):
        third_order_parts(mask, n)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(8, 25), seed=st.integers(0, 2**31), single_root=st.booleans(),
       keep=st.floats(0.15, 1.0))
def test_properties(n, seed, single_root, keep):
    rng = np.random.default_rng(seed)
    N = n + 1
    scores = rng.normal(size=(N, N)) * 3
    mask = random_mask(rng, n, keep)
    parts = third_order_parts(mask, n)
    sib, grand, gsib = (rng.normal(size=len(parts[k])) for k in ("sibling", "grandparent", "grand_sibling"))
    heads = eisner3(scores, sib, grand, gsib, mask, single_root)
    assert heads[0] == -1 and is_projective(heads)
    assert all(mask[heads[m], m] for m in range(1, N))
    if single_root:
        assert (heads[1:] == 0).sum() == 1
    index = {kind: {tuple(p): i for i, p in enumerate(parts[key])}
             for kind, key in ((1, "sibling"), (2, "grandparent"), (3, "grand_sibling"))}
    arcs, sibs, grands, gsibs = tree_parts(heads)
    score = (sum(scores[a] for a in arcs) + sum(sib[index[1][p]] for p in sibs)
             + sum(grand[index[2][p]] for p in grands) + sum(gsib[index[3][p]] for p in gsibs))
    best, mm = eisner3_max_marginals(scores, sib, grand, gsib, mask, single_root)
    assert best == pytest.approx(score)
    assert mm.max() == pytest.approx(best)
    np.testing.assert_allclose(mm[heads[1:], np.arange(1, N)], best)
    assert np.all(mm[~mask] == -np.inf) and np.all(mm <= best + 1e-9)
    log_z, marg = eisner3_marginals(scores, sib, grand, gsib, mask, single_root)
    assert log_z >= best - 1e-9
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)
    assert np.all(marg[~mask] == 0)
    assert np.all(mm[marg > 0] > -np.inf)
