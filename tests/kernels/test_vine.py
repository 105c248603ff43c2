"""Vine parsing: every returned quantity against brute-force enumeration of vine structures."""
import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse.kernels import eisner, eisner_marginals, eisner_max_marginals
from vineparse.kernels.vine import (ATTACH_OUTER_LEFT, ATTACH_OUTER_RIGHT, ATTACH_ROOT, ATTACH_SHORT,
                                    vine, vine_marginals, vine_max_marginals)
from vineparse._kernels.vine import Vine
from vineparse.trees import find_cycle, is_projective
from oracle import projective_trees, random_mask


# ---------------------------------------------------------------------------
# Brute force. A vine structure is a multi-rooted projective tree whose word-to-
# word arcs are at most b long, plus a label for each root child (vine word)
# among those its position offers; every structure appears exactly once.

def offered_labels(m, n, b):
    labels = [ATTACH_ROOT]
    if m - b > 1:
        labels.append(ATTACH_OUTER_LEFT)
    if m + b < n:
        labels.append(ATTACH_OUTER_RIGHT)
    return labels


@lru_cache(maxsize=None)
def vine_structures(n, b):
    """(heads, attach): int64 arrays (S, n + 1) of every vine structure of n words."""
    heads, attach = [], []
    for tree in projective_trees(n, single_root=False):
        words = np.arange(1, n + 1)
        short = tree[1:] != 0
        if np.any(np.abs(tree[1:][short] - words[short]) > b):
            continue
        vine_words = [m for m in range(1, n + 1) if tree[m] == 0]
        for labels in itertools.product(*(offered_labels(m, n, b) for m in vine_words)):
            a = np.zeros(n + 1, dtype=np.int64)
            a[vine_words] = labels
            heads.append(tree)
            attach.append(a)
    return np.array(heads), np.array(attach)


def part_scores(heads, attach, scores, outer, mask=None, outer_mask=None):
    """(S, n) score of the part each word uses (-inf where not allowed)."""
    n = heads.shape[1] - 1
    words = np.arange(1, n + 1)
    h, a = heads[:, 1:], attach[:, 1:]
    arc = np.where(a == ATTACH_SHORT, scores[np.maximum(h, 0), words], scores[0, words])
    if mask is not None:
        arc = np.where(mask[np.where(a == ATTACH_SHORT, h, 0), words], arc, -np.inf)
    out = outer if outer_mask is None else np.where(outer_mask, outer, -np.inf)
    return np.where(a == ATTACH_OUTER_LEFT, out[words, 0], np.where(a == ATTACH_OUTER_RIGHT, out[words, 1], arc))


def structure_score(heads, attach, scores, outer):
    return float(part_scores(heads[None], attach[None], scores, outer).sum())


def oracle(n, b, scores, outer, mask=None, outer_mask=None):
    """Best score, best structures, max-marginals (arcs incl. ROOT at [0, m]; outer),
    log Z and marginals (same layout)."""
    heads, attach = vine_structures(n, b)
    parts = part_scores(heads, attach, scores, outer, mask, outer_mask)
    total = parts.sum(axis=1)
    keep = total > -np.inf
    heads, attach, total = heads[keep], attach[keep], total[keep]
    best = total.max()
    log_z = np.logaddexp.reduce(total)
    prob = np.exp(total - log_z)
    N = n + 1
    # Flat index of the part of each word: arcs in [0, N * N), outer labels after.
    words = np.arange(1, N)
    a = attach[:, 1:]
    flat = np.where(a == ATTACH_SHORT, heads[:, 1:] * N + words,
                    np.where(a == ATTACH_ROOT, words, N * N + 2 * words + (a == ATTACH_OUTER_RIGHT)))
    maxmarg = np.full(N * N + 2 * N, -np.inf)
    marg = np.zeros(N * N + 2 * N)
    np.maximum.at(maxmarg, flat, np.broadcast_to(total[:, None], flat.shape))
    np.add.at(marg, flat, np.broadcast_to(prob[:, None], flat.shape))
    best_set = {(tuple(h), tuple(t)) for h, t, s in zip(heads, attach, total) if s == best}
    return (best, best_set, maxmarg[:N * N].reshape(N, N), maxmarg[N * N:].reshape(N, 2), log_z,
            marg[:N * N].reshape(N, N), marg[N * N:].reshape(N, 2))


def random_problem(rng, n, masked, holes):
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    outer = rng.normal(size=(n + 1, 2)) * 3
    mask = outer_mask = None
    if masked:
        mask = random_mask(rng, n)              # keeps every arc m - 1 -> m: a structure exists
        outer_mask = rng.random((n + 1, 2)) < 0.6
    if holes:                                   # -inf scores act as a mask too
        scores[rng.random(scores.shape) < 0.3] = -np.inf
        outer[rng.random(outer.shape) < 0.3] = -np.inf
        scores[np.arange(n), np.arange(1, n + 1)] = rng.normal(size=n)
    return scores, outer, mask, outer_mask


CASES = [(n, b, masked, holes, seed) for n in range(1, 8) for b in (1, 2, 3)
         for masked, holes in ((False, False), (True, False), (False, True), (True, True)) for seed in range(2)]


@pytest.mark.parametrize("n,b,masked,holes,seed", CASES)
def test_against_brute_force(n, b, masked, holes, seed):
    rng = np.random.default_rng(10000 * n + 1000 * b + 100 * seed + 10 * masked + holes)
    scores, outer, mask, outer_mask = random_problem(rng, n, masked, holes)
    best, best_set, arc_mm, outer_mm, log_z, arc_marg, outer_marg = oracle(
        n, b, scores, outer, mask, outer_mask)

    heads, attach = vine(scores, outer, b, mask, outer_mask)
    assert heads.dtype == np.int64 and attach.dtype == np.int8
    assert (tuple(heads), tuple(attach.astype(np.int64))) in best_set
    assert structure_score(heads, attach.astype(np.int64), scores, outer) == pytest.approx(best)

    got_best, got_arc_mm, got_outer_mm = vine_max_marginals(scores, outer, b, mask, outer_mask)
    assert got_best == pytest.approx(best)
    np.testing.assert_allclose(got_arc_mm, arc_mm, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got_outer_mm, outer_mm, rtol=1e-9, atol=1e-9)

    got_log_z, got_arc_marg, got_outer_marg = vine_marginals(scores, outer, b, mask, outer_mask)
    assert got_log_z == pytest.approx(log_z)
    np.testing.assert_allclose(got_arc_marg, arc_marg, atol=1e-9)
    np.testing.assert_allclose(got_outer_marg, outer_marg, atol=1e-9)


def test_brute_force_counts_each_structure_once():
    # n = 3, b = 1: word 1 may be ROOT or OUTER-RIGHT (1 + 1 < 3), word 2 only ROOT, word 3
    # ROOT or OUTER-LEFT (3 - 1 > 1); the trees are those with unit-length word arcs.
    heads, attach = vine_structures(3, 1)
    assert len({(tuple(h), tuple(a)) for h, a in zip(heads, attach)}) == len(heads)
    n_labels = {1: 2, 2: 1, 3: 2}
    unit = [t for t in projective_trees(3, single_root=False)
            if all(t[m] == 0 or abs(t[m] - m) == 1 for m in range(1, 4))]
    assert len(unit) == 8
    assert len(heads) == sum(np.prod([n_labels[m] for m in range(1, 4) if t[m] == 0]) for t in unit)


@pytest.mark.parametrize("n", range(1, 9))
@pytest.mark.parametrize("masked", [False, True])
def test_wide_band_is_multi_root_eisner(n, masked):
    rng = np.random.default_rng(50 + n + 100 * masked)
    scores = rng.normal(size=(n + 1, n + 1)) * 3
    outer = rng.normal(size=(n + 1, 2))         # never offered when b >= n
    mask = random_mask(rng, n) if masked else None
    for b in (n, n + 3, 10**12):
        heads, attach = vine(scores, outer, b, mask)
        expected = eisner(scores, mask, single_root=False)
        assert structure_score(heads, attach.astype(np.int64), scores, outer) == pytest.approx(
            structure_score(expected, (expected == 0).astype(np.int64), scores, outer))
        assert np.all((attach[1:] == ATTACH_ROOT) == (heads[1:] == 0))
        best, arc_mm, outer_mm = vine_max_marginals(scores, np.full((n + 1, 2), -np.inf), b, mask)
        e_best, e_mm = eisner_max_marginals(scores, mask, single_root=False)
        assert best == pytest.approx(e_best)
        np.testing.assert_allclose(arc_mm, e_mm, rtol=1e-9, atol=1e-9)
        assert np.all(outer_mm == -np.inf)
        log_z, arc_marg, _ = vine_marginals(scores, outer, b, mask)
        e_log_z, e_marg = eisner_marginals(scores, mask, single_root=False)
        assert log_z == pytest.approx(e_log_z)
        np.testing.assert_allclose(arc_marg, e_marg, atol=1e-9)


def test_outer_labels_follow_geometry():
    n, b = 9, 3
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(n + 1, n + 1))
    outer = np.full((n + 1, 2), 50.0)           # outer labels always win where offered
    heads, attach = vine(scores, outer, b)
    words = np.arange(1, n + 1)
    left_ok, right_ok = words - b > 1, words + b < n
    assert np.all(attach[1:][left_ok | right_ok] >= ATTACH_OUTER_LEFT)
    assert np.all(attach[1:][~(left_ok | right_ok)] != ATTACH_OUTER_LEFT)
    _, _, outer_mm = vine_max_marginals(scores, outer, b)
    assert np.all(np.isfinite(outer_mm[1:, 0]) == left_ok)
    assert np.all(np.isfinite(outer_mm[1:, 1]) == right_ok)
    assert np.all(outer_mm[0] == -np.inf)


def test_only_the_band_is_read():
    n, b = 12, 2
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(n + 1, n + 1))
    outer = rng.normal(size=(n + 1, 2))
    mask = rng.random((n + 1, n + 1)) < 0.7
    dirty, dirty_outer, dirty_mask = scores.copy(), outer.copy(), mask.copy()
    h, m = np.indices(scores.shape)
    unread = (np.abs(h - m) > b) & (h > 0) | (m == 0) | (h == m)
    dirty[unread] = np.nan
    dirty[3, 9] = np.inf
    dirty_outer[0] = [np.nan, np.inf]
    dirty_mask[unread] = ~mask[unread]
    clean = vine_max_marginals(scores, outer, b, mask)
    got = vine_max_marginals(dirty, dirty_outer, b, dirty_mask)
    assert got[0] == clean[0]
    np.testing.assert_array_equal(got[1], clean[1])
    np.testing.assert_array_equal(got[2], clean[2])
    assert np.all(got[1][unread] == -np.inf)


def test_strided_and_integer_inputs():
    n, b = 10, 3
    rng = np.random.default_rng(5)
    scores = rng.integers(-5, 5, size=(n + 1, n + 1))
    outer = rng.integers(-5, 5, size=(n + 1, 2))
    expected = vine_max_marginals(scores.astype(float), outer.astype(float), b)
    got = vine_max_marginals(scores, outer, np.int64(b))
    np.testing.assert_array_equal(got[1], expected[1])
    fortran = np.asfortranarray(scores.astype(float))             # not C-contiguous: read without a copy
    np.testing.assert_array_equal(vine_max_marginals(fortran, outer.astype(float), b)[1], expected[1])


def test_empty_sentence():
    heads, attach = vine(np.zeros((1, 1)), np.zeros((1, 2)), 3)
    assert heads.tolist() == [-1] and attach.tolist() == [0]
    assert vine_marginals(np.zeros((1, 1)), np.zeros((1, 2)), 3)[0] == 0.0
    assert vine_max_marginals(np.zeros((1, 1)), np.zeros((1, 2)), 1)[0] == 0.0


def test_large_scores_are_stable():
    n = 60
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(n + 1, n + 1)) * 5000
    outer = rng.normal(size=(n + 1, 2)) * 5000
    log_z, arc_marg, outer_marg = vine_marginals(scores, outer, 4)
    best, _, _ = vine_max_marginals(scores, outer, 4)
    assert np.isfinite(log_z) and log_z >= best
    np.testing.assert_allclose(arc_marg[:, 1:].sum(axis=0) + outer_marg[1:].sum(axis=1), 1.0, atol=1e-9)


def test_work_is_linear_in_the_band():
    n, b = 2000, 4
    graph = Vine(np.zeros((n + 1, n + 1)), np.zeros((n + 1, 2)), b)
    assert graph.n_items <= (5 * b + 6) * (n + 1)
    assert graph.n_scheduled <= graph.n_items
    sparse = Vine(np.zeros((n + 1, n + 1)), np.zeros((n + 1, 2)), b,
                  mask=np.eye(n + 1, k=1, dtype=bool))            # chain arcs only
    assert sparse.n_scheduled < graph.n_scheduled / 2


B = np.zeros((4, 4))
O = np.zeros((4, 2))


@pytest.mark.parametrize("args,kwargs,message", [
    ((B, O, 0), {}, "band must be an integer >= 1, got 0"),
    ((B, O, -2), {}, "band must be"),
    ((B, O, 1.5), {}, "band must be"),
    ((B, O, True), {}, "band must be"),
    ((B, O, "2"), {}, "band must be"),
    ((np.zeros((3, 4)), O, 1), {}, r"scores must have shape \(n \+ 1, n \+ 1\)"),
    ((np.zeros(4), O, 1), {}, "scores must have shape"),
    ((np.zeros((0, 0)), np.zeros((0, 2)), 1), {}, "scores must have shape"),
    ((np.array([["a"]]), np.zeros((1, 2)), 1), {}, "scores must be a real-valued array"),
    ((B, np.zeros((4, 3)), 1), {}, r"outer must have shape \(4, 2\)"),
    ((B, np.zeros((4, 2), dtype=object), 1), {}, "outer must be a real-valued"),
    ((np.where(np.eye(4, k=1) > 0, np.nan, 0.0), O, 1), {}, r"scores contains NaN \(first at \[0, 1\]\)"),
    ((np.where(np.eye(4, k=-1) > 0, np.inf, 0.0), O, 1), {}, r"scores contains \+inf \(first at \[2, 1\]\)"),
    ((B, np.where(np.arange(8).reshape(4, 2) == 5, np.nan, 0.0), 1), {}, r"outer contains NaN \(first at \[2, 1\]\)"),
    ((B, np.where(np.arange(8).reshape(4, 2) == 6, np.inf, 0.0), 1), {}, r"outer contains \+inf \(first at \[3, 0\]\)"),
    ((B, O, 1), {"mask": np.ones((4, 4), dtype=int)}, "mask must be a boolean array"),
    ((B, O, 1), {"mask": np.ones((3, 3), dtype=bool)}, "mask has shape"),
    ((B, O, 1), {"outer_mask": np.ones((4, 2))}, "outer_mask must be a boolean array"),
    ((B, O, 1), {"outer_mask": np.ones((4, 1), dtype=bool)}, "outer_mask has shape"),
    # Word 2 (of 3, band 1) has neither a head nor a label: ROOT masked, no outer label possible.
    ((B, O, 1), {"mask": np.array([[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)},
     "the masks admit no vine structure: word 2 has no allowed short head or vine label"),
    # Words 1 and 2 can only head each other.
    ((np.zeros((3, 3)), np.zeros((3, 2)), 1), {"mask": np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0]], dtype=bool)},
     "the masks admit no vine structure$"),
])
def test_bad_input(args, kwargs, message):
    for fn in (vine, vine_max_marginals, vine_marginals):
        with pytest.raises(ValueError, match=message):
            fn(*args, **kwargs)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 60), b=st.integers(1, 8), seed=st.integers(0, 2**31), keep=st.floats(0.2, 1.0),
       masked=st.booleans())
def test_properties(n, b, seed, keep, masked):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 4
    outer = rng.normal(size=(n + 1, 2)) * 4
    mask = random_mask(rng, n, keep) if masked else None
    outer_mask = rng.random((n + 1, 2)) < keep if masked else None
    words = np.arange(1, n + 1)

    heads, attach = vine(scores, outer, b, mask, outer_mask)
    assert heads[0] == -1 and attach[0] == ATTACH_SHORT
    assert find_cycle(heads) is None and is_projective(heads)
    short = attach[1:] == ATTACH_SHORT
    assert np.all((heads[1:] == 0) == ~short)
    assert np.all(np.abs(heads[1:][short] - words[short]) <= b)
    assert np.all(words[attach[1:] == ATTACH_OUTER_LEFT] - b > 1)
    assert np.all(words[attach[1:] == ATTACH_OUTER_RIGHT] + b < n)
    if masked:
        assert all(mask[heads[m], m] for m in words if attach[m] <= ATTACH_ROOT)
        assert all(outer_mask[m, attach[m] - 2] for m in words if attach[m] >= ATTACH_OUTER_LEFT)

    best, arc_mm, outer_mm = vine_max_marginals(scores, outer, b, mask, outer_mask)
    assert best == pytest.approx(structure_score(heads, attach.astype(np.int64), scores, outer))
    assert max(arc_mm.max(), outer_mm.max()) == pytest.approx(best)
    used_arc = arc_mm[heads[1:][short], words[short]]
    used_root = arc_mm[0, words[attach[1:] == ATTACH_ROOT]]
    used_outer = outer_mm[words[~short & (attach[1:] != ATTACH_ROOT)], attach[1:][~short & (attach[1:] != ATTACH_ROOT)] - 2]
    np.testing.assert_allclose(np.concatenate([used_arc, used_root, used_outer]), best)
    h, m = np.indices(arc_mm.shape)
    far = (h > 0) & (np.abs(h - m) > b)
    assert np.all(arc_mm[far] == -np.inf) and np.all(arc_mm[:, 0] == -np.inf)
    if masked:
        assert np.all(arc_mm[~mask] == -np.inf) and np.all(outer_mm[~outer_mask] == -np.inf)

    log_z, arc_marg, outer_marg = vine_marginals(scores, outer, b, mask, outer_mask)
    assert log_z >= best - 1e-9
    np.testing.assert_allclose(arc_marg[:, 1:].sum(axis=0) + outer_marg[1:].sum(axis=1), 1.0, atol=1e-9)
    assert np.all(arc_marg[far] == 0)
    if masked:
        assert np.all(arc_marg[~mask] == 0) and np.all(outer_marg[~outer_mask] == 0)
