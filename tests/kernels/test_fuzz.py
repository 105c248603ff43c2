"""Fuzzing the public kernel entry points (issue 15): sizes 0-400, masks, extreme finite
scores, -inf arcs, float32, read-only, Fortran-ordered and strided arrays, batches.

Run longer with FUZZ_EXAMPLES=N (examples per test). Every call must either return a valid answer (a projective tree of allowed arcs whose
score is the best score, max-marginals topped by it, marginals that are distributions,
both first-order engines agreeing) or raise a ValueError that names the problem; it
must never crash, hang or return garbage.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from vineparse import kernels
from vineparse.trees import is_projective
from oracle import vine_style_mask

BOUND = 1e300
SCALES = [1e-3, 1.0, 30.0, 1e4, 1e150, 1e300]

# The test profile's example count (25 under HYPOTHESIS_PROFILE=ci, else 100); FUZZ_EXAMPLES=5000 for a long run.
fuzz = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
                **({"max_examples": int(os.environ["FUZZ_EXAMPLES"])} if os.environ.get("FUZZ_EXAMPLES") else {}))

sizes = st.one_of(st.integers(0, 12), st.integers(0, 400))


@st.composite
def arc_scores(draw, max_n=400, n=None):
    """A (scores, mask) pair with the layouts and values a user might pass."""
    if n is None:
        n = draw(st.one_of(st.integers(0, 12), st.integers(0, max_n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from(SCALES))
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    if scale < BOUND:
        scores = np.clip(scores, -BOUND, BOUND)
    else:
        scores = np.clip(scores, -1.0, 1.0) * BOUND
    impossible = draw(st.sampled_from([0.0, 0.0, 0.1, 0.6]))
    scores[rng.random(scores.shape) < impossible] = -np.inf
    if draw(st.booleans()):                                   # a few extreme finite values
        k = draw(st.integers(1, 5))
        scores[rng.integers(0, n + 1, k), rng.integers(0, n + 1, k)] = rng.choice([BOUND, -BOUND, 1e-300, -0.0], k)
    bad = draw(st.sampled_from([None, None, None, None, np.nan, np.inf, -1e308]))
    if bad is not None and n > 0:
        scores[rng.integers(0, n + 1), rng.integers(1, n + 1)] = bad
    kind = draw(st.sampled_from(["none", "none", "random", "vine", "sparse"]))
    mask = None
    if kind == "random":
        mask = rng.random((n + 1, n + 1)) < draw(st.floats(0.05, 1.0))
    elif kind == "vine" and n > 0:
        mask = vine_style_mask(n, rng)
    elif kind == "sparse":
        mask = rng.random((n + 1, n + 1)) < 0.02
        mask[np.arange(n), np.arange(1, n + 1)] = True        # the chain keeps a tree possible
    scores = layout(draw, scores)
    if mask is not None:
        mask = layout(draw, mask)
    return scores, mask


def layout(draw, array):
    """The same values as `array`, in a memory layout drawn at random."""
    form = draw(st.sampled_from(["c", "fortran", "strided", "read_only", "float32"]))
    if form == "fortran":
        return np.asfortranarray(array)
    if form == "strided":
        wide = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), dtype=array.dtype)
        wide[..., ::2] = array
        return wide[..., ::2]
    if form == "read_only":
        array = array.copy()
        array.setflags(write=False)
        return array
    if form == "float32" and array.dtype == np.float64:
        with np.errstate(over="ignore"):
            return array.astype(np.float32)
    return array


def invalid_entry(array, columns=None):
    """Whether a checked entry is NaN, +inf or beyond the finite bound (as float64)."""
    values = np.asarray(array, dtype=np.float64)
    if columns is not None:
        values = values[columns]
    return bool(np.any(np.isnan(values) | (values > BOUND) | ((values < -BOUND) & (values > -np.inf))))


def check_tree(heads, allowed, single_root):
    n = len(heads) - 1
    assert heads.dtype == np.int64 and heads[0] == -1
    assert is_projective(heads)
    assert all(allowed[heads[m], m] for m in range(1, n + 1))
    assert not single_root or n == 0 or (heads[1:] == 0).sum() == 1


def tree_score(heads, scores):
    return float(sum(scores[heads[m], m] for m in range(1, len(heads))))


def resolution(*arrays):
    """What rounding can change in the sums of one structure's scores and their maxima
    or logsumexps, summed in any order: (n + 1) (4 n + 4) roundings of partial sums of at
    most 4 (n + 1) terms of the largest finite magnitude (scores of 1e300 leave no digits
    below ~1e284)."""
    finite = [np.abs(np.asarray(a, dtype=np.float64)) for a in arrays]
    finite = [a[np.isfinite(a)] for a in finite]
    top = max([a.max() for a in finite if a.size], default=0.0)
    count = max(np.shape(arrays[0])[0], 1) * 4
    return 1e-6 + top * np.finfo(float).eps * count * count


def close(a, b, tolerance=1e-6):
    return a == pytest.approx(b, rel=1e-9, abs=tolerance)


@fuzz
@given(case=arc_scores(), single_root=st.booleans())
def test_first_order(case, single_root):
    scores, mask = case
    s64 = np.asarray(scores, dtype=np.float64)
    allowed = np.isfinite(s64) & (True if mask is None else np.asarray(mask))
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    engines = ["dense", "hypergraph"] if s64.shape[0] <= 150 or allowed.mean() < 0.2 else ["dense"]
    if invalid_entry(s64):
        for engine in engines:
            with pytest.raises(ValueError, match="NaN|\\+inf|outside the finite score range"):
                kernels.eisner(scores, mask, single_root, engine=engine)
        return
    tolerance = resolution(s64)
    results = []
    for engine in engines:
        try:
            heads = kernels.eisner(scores, mask, single_root, engine=engine)
        except kernels.NoStructureError:
            results.append(None)
            continue
        check_tree(heads, allowed, single_root)
        best, mm = kernels.eisner_max_marginals(scores, mask, single_root, engine=engine)
        assert np.isfinite(best) and close(tree_score(heads, s64), best, tolerance)
        assert len(heads) == 1 or close(mm.max(), best, tolerance)
        assert np.all(mm[~allowed] == -np.inf) and np.all(mm <= best + tolerance)
        log_z, marg = kernels.eisner_marginals(scores, mask, single_root, engine=engine)
        assert np.isfinite(log_z) and log_z >= best - tolerance
        assert np.all(marg >= 0) and np.all(marg <= 1 + 1e-9) and np.all(marg[~allowed] == 0)
        np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)
        results.append((best, log_z, mm, marg))
    assert all(r is None for r in results) or all(r is not None for r in results)
    if len(results) == 2 and results[0] is not None:
        (b0, z0, mm0, m0), (b1, z1, mm1, m1) = results
        assert close(b0, b1, tolerance) and close(z0, z1, tolerance)
        if tolerance < 1e-5:                                  # else rounding may move single arcs' values
            np.testing.assert_allclose(mm0, mm1, rtol=1e-9, atol=1e-6)
            np.testing.assert_allclose(m0, m1, atol=1e-7)


def sibling_score(heads, scores, sib_of):
    total = 0.0
    n = len(heads) - 1
    for h in range(n + 1):
        for side in (range(h + 1, n + 1), range(h - 1, 0, -1)):
            previous = h
            for m in side:
                if heads[m] == h:
                    total += scores[h, m] + sib_of[(h, previous, m)]
                    previous = m
    return total


def draw_problem(data, dense_max, scales, **mask_options):
    """n (up to 400 under a vine-style mask, up to `dense_max` without one), a generator, a score scale, arc
    scores (n + 1, n + 1) at that scale and the mask (None when unmasked or n = 0)."""
    masked = data.draw(st.booleans())
    n = data.draw(st.integers(0, 400) if masked else st.integers(0, dense_max))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    scale = data.draw(st.sampled_from(scales))
    scores = rng.normal(size=(n + 1, n + 1)) * scale
    mask = vine_style_mask(n, rng, **mask_options) if masked and n > 0 else None
    return n, rng, scale, scores, mask


@fuzz
@given(data=st.data(), single_root=st.booleans())
def test_second_order(data, single_root):
    n, rng, scale, scores, mask = draw_problem(data, 40, SCALES[:5])
    parts = kernels.second_order_parts(mask, n)
    sib = layout(data.draw, rng.normal(size=len(parts)) * scale)
    if data.draw(st.booleans()) and len(sib):
        sib = np.array(sib)
        with np.errstate(over="ignore"):                      # float32 turns 1e301 (and 1e300) into inf
            sib[rng.integers(0, len(sib))] = data.draw(st.sampled_from([-np.inf, np.nan, 1e301, BOUND]))
    scores = layout(data.draw, scores)
    if invalid_entry(sib) or invalid_entry(scores):
        with pytest.raises(ValueError, match="contains NaN|contains \\+inf|outside the finite score range"):
            kernels.eisner2(scores, sib, mask, single_root)
        return
    try:
        heads = kernels.eisner2(scores, sib, mask, single_root)
    except kernels.NoStructureError:                          # only -inf parts can rule out every tree here
        assert np.any(np.asarray(sib, dtype=np.float64) == -np.inf)
        return
    allowed = np.ones((n + 1, n + 1), dtype=bool) if mask is None else mask.copy()
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    check_tree(heads, allowed, single_root)
    best, mm = kernels.eisner2_max_marginals(scores, sib, mask, single_root)
    sib_of = {tuple(p): float(v) for p, v in zip(parts.tolist(), np.asarray(sib, dtype=np.float64))}
    tolerance = resolution(scores, sib)
    assert close(sibling_score(heads, np.asarray(scores, dtype=np.float64), sib_of), best, tolerance)
    assert n == 0 or close(mm.max(), best, tolerance)
    log_z, marg = kernels.eisner2_marginals(scores, sib, mask, single_root)
    assert np.isfinite(log_z) and np.all(marg >= 0) and np.all(marg[~allowed] == 0)
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


@fuzz
@given(data=st.data(), single_root=st.booleans())
def test_third_order(data, single_root):
    n, rng, _, scores, mask = draw_problem(data, 12, SCALES[:4], heads_per_word=2)
    parts = kernels.third_order_parts(mask, n)
    given_parts = {}
    for name, key in (("sib", "sibling"), ("grand", "grandparent"), ("gsib", "grand_sibling")):
        if data.draw(st.booleans()):
            given_parts[name] = layout(data.draw, rng.normal(size=len(parts[key])))
    scores = layout(data.draw, scores)
    if invalid_entry(scores) or any(invalid_entry(v) for v in given_parts.values()):
        with pytest.raises(ValueError, match="contains \\+inf|outside the finite score range"):
            kernels.eisner3(scores, mask=mask, single_root=single_root, **given_parts)
        return
    heads = kernels.eisner3(scores, mask=mask, single_root=single_root, **given_parts)
    allowed = np.ones((n + 1, n + 1), dtype=bool) if mask is None else mask.copy()
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    check_tree(heads, allowed, single_root)
    best, mm = kernels.eisner3_max_marginals(scores, mask=mask, single_root=single_root, **given_parts)
    assert np.isfinite(best) and (n == 0 or close(mm.max(), best))
    np.testing.assert_allclose(mm[heads[1:], np.arange(1, n + 1)], best, rtol=1e-9, atol=1e-6)
    log_z, marg = kernels.eisner3_marginals(scores, mask=mask, single_root=single_root, **given_parts)
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


@fuzz
@given(case=arc_scores(), band=st.integers(1, 12), outer_scale=st.sampled_from(SCALES))
def test_vine(case, band, outer_scale):
    scores, mask = case
    n = scores.shape[0] - 1
    rng = np.random.default_rng(n)
    outer = np.clip(rng.normal(size=(n + 1, 2)) * outer_scale, -BOUND, BOUND)
    outer_mask = rng.random((n + 1, 2)) < 0.7
    s64 = np.asarray(scores, dtype=np.float64)
    h, m = np.nonzero(np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))) <= min(band, max(n - 1, 1)))
    read = (h >= 1) & (m >= 1) & (h != m)
    entries = (np.concatenate([h[read], np.zeros(n, dtype=int)]), np.concatenate([m[read], np.arange(1, n + 1)]))
    if invalid_entry(s64, entries):
        with pytest.raises(ValueError, match="NaN|\\+inf|outside the finite score range"):
            kernels.vine(scores, outer, band, mask, outer_mask)
        return
    try:
        heads, attach = kernels.vine(scores, outer, band, mask, outer_mask)
    except kernels.NoStructureError as error:
        assert "admit no vine structure" in str(error)
        return
    assert heads[0] == -1 and attach[0] == 0 and len(heads) == n + 1
    short = attach[1:] == kernels.ATTACH_SHORT
    assert np.all((heads[1:] == 0) == ~short)
    assert np.all(np.abs(heads[1:][short] - np.arange(1, n + 1)[short]) <= band)
    best, arcs, outer_mm = kernels.vine_max_marginals(scores, outer, band, mask, outer_mask)
    assert np.isfinite(best) and (n == 0 or close(max(arcs.max(), outer_mm.max()), best, resolution(s64, outer)))
    log_z, arcs, outer_marg = kernels.vine_marginals(scores, outer, band, mask, outer_mask)
    np.testing.assert_allclose(arcs[:, 1:].sum(axis=0) + outer_marg[1:].sum(axis=1), 1.0, atol=1e-9)


@fuzz
@given(cases=st.lists(arc_scores(max_n=60), min_size=0, max_size=6), n_threads=st.integers(1, 3),
       padded=st.booleans())
def test_batches(cases, n_threads, padded):
    scores = [np.asarray(s, dtype=np.float64) for s, _ in cases]
    masks = [None if m is None else np.asarray(m) for _, m in cases]
    if padded:
        N = max([len(s) for s in scores], default=1)
        P = np.zeros((len(scores), N, N))
        M = np.zeros(P.shape, dtype=bool)
        for i, (s, m) in enumerate(zip(scores, masks)):
            P[i, :len(s), :len(s)] = s
            M[i, :len(s), :len(s)] = True if m is None else m
        lengths = [len(s) - 1 for s in scores]
        masks = [M[i, :len(s), :len(s)] for i, s in enumerate(scores)]
        call = lambda: kernels.eisner_marginals_batch(P, lengths, M, n_threads=n_threads)   # noqa: E731
    else:
        call = lambda: kernels.eisner_marginals_batch(scores, mask=masks, n_threads=n_threads)   # noqa: E731
    expected, failure = [], None
    for i, (s, m) in enumerate(zip(scores, masks)):
        try:
            expected.append(kernels.eisner_marginals(s, m))
        except ValueError as error:
            failure = (i, str(error)) if failure is None else failure
            break
    if failure is not None:
        with pytest.raises(ValueError) as caught:
            call()
        assert str(caught.value) == f"sentence {failure[0]}: {failure[1]}"
        return
    log_z, marg = call()
    for i, (z, p) in enumerate(expected):
        assert log_z[i] == z
        n = len(p)
        np.testing.assert_array_equal(marg[i][:n, :n], p)
