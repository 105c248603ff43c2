"""Batches give exactly the per-sentence results, in list and padded form, on one or several threads."""
import numpy as np
import pytest

from vineparse import kernels
from oracle import random_mask

SIZES = [0, 1, 5, 12, 3, 30, 7]


def sentences(seed, sizes=SIZES, masked=True):
    rng = np.random.default_rng(seed)
    scores = [rng.normal(size=(n + 1, n + 1)) * 2 for n in sizes]
    masks = [random_mask(rng, n, 0.5) for n in sizes] if masked else None
    return rng, scores, masks


def padded(arrays, fill=np.nan, trailing=()):
    N = max(a.shape[0] for a in arrays)
    out = np.full((len(arrays), N) + ((N,) if not trailing else trailing), fill,
                  dtype=arrays[0].dtype if fill is not np.nan else np.float64)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, k) for k in a.shape)] = a
    return out


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("single_root", [True, False])
def test_first_order_batches_equal_single_calls(n_threads, masked, single_root):
    _, scores, masks = sentences(1, masked=masked)
    kw = dict(single_root=single_root, n_threads=n_threads)
    heads = kernels.eisner_batch(scores, mask=masks, **kw)
    best, mm = kernels.eisner_max_marginals_batch(scores, mask=masks, **kw)
    log_z, marg = kernels.eisner_marginals_batch(scores, mask=masks, **kw)
    for i, s in enumerate(scores):
        m = None if masks is None else masks[i]
        np.testing.assert_array_equal(heads[i], kernels.eisner(s, m, single_root))
        b, a = kernels.eisner_max_marginals(s, m, single_root)
        assert best[i] == b
        np.testing.assert_array_equal(mm[i], a)
        z, p = kernels.eisner_marginals(s, m, single_root)
        assert log_z[i] == z
        np.testing.assert_array_equal(marg[i], p)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_padded_first_order_batches(n_threads):
    _, scores, masks = sentences(2)
    lengths = np.array(SIZES)
    P = padded(scores)                      # NaN padding: never read
    M = np.zeros(P.shape, dtype=bool)
    for i, m in enumerate(masks):
        M[i, :len(m), :len(m)] = m
    heads = kernels.eisner_batch(P, lengths, M, n_threads=n_threads)
    best, mm = kernels.eisner_max_marginals_batch(P, lengths, M, n_threads=n_threads)
    log_z, marg = kernels.eisner_marginals_batch(P, lengths, M, n_threads=n_threads)
    assert heads.shape == (len(SIZES), P.shape[1]) and mm.shape == marg.shape == P.shape
    for i, n in enumerate(SIZES):
        np.testing.assert_array_equal(heads[i, :n + 1], kernels.eisner(scores[i], masks[i]))
        assert np.all(heads[i, n + 1:] == -1)
        b, a = kernels.eisner_max_marginals(scores[i], masks[i])
        assert best[i] == b
        np.testing.assert_array_equal(mm[i, :n + 1, :n + 1], a)
        assert np.all(mm[i, n + 1:] == -np.inf) and np.all(mm[i, :, n + 1:] == -np.inf)
        z, p = kernels.eisner_marginals(scores[i], masks[i])
        assert log_z[i] == z
        np.testing.assert_array_equal(marg[i, :n + 1, :n + 1], p)
        assert np.all(marg[i, n + 1:] == 0) and np.all(marg[i, :, n + 1:] == 0)


def test_padded_without_lengths_and_float32_strided_input():
    rng = np.random.default_rng(3)
    P = rng.normal(size=(5, 9, 9)).astype(np.float32)
    wide = np.zeros((5, 9, 18))
    wide[:, :, ::2] = P                    # rows not contiguous: copied
    for given in (P, wide[:, :, ::2]):
        heads = kernels.eisner_batch(given)
        for i in range(5):
            np.testing.assert_array_equal(heads[i], kernels.eisner(P[i].astype(np.float64)))


def test_read_only_inputs_are_read_in_place():
    _, scores, masks = sentences(4)
    for s, m in zip(scores, masks):
        s.setflags(write=False)
        m.setflags(write=False)
    heads = kernels.eisner_batch(scores, mask=masks)
    for i, s in enumerate(scores):
        np.testing.assert_array_equal(heads[i], kernels.eisner(s, masks[i]))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_sample_batches_use_one_seed_per_sentence(n_threads):
    _, scores, masks = sentences(5)
    drawn = kernels.eisner_sample_batch(scores, count=4, seed=11, mask=masks, n_threads=n_threads)
    for i, s in enumerate(scores):
        np.testing.assert_array_equal(drawn[i], kernels.eisner_sample(s, 4, 11 + i, masks[i]))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_second_and_third_order_batches_equal_single_calls(n_threads):
    rng, scores, masks = sentences(6, sizes=[0, 4, 9, 2, 6])
    sib = [rng.normal(size=len(kernels.second_order_parts(m))) for m in masks]
    parts = [kernels.third_order_parts(m) for m in masks]
    third = {k: [rng.normal(size=len(p[key])) for p in parts]
             for k, key in (("sib", "sibling"), ("grand", "grandparent"), ("gsib", "grand_sibling"))}
    heads2 = kernels.eisner2_batch(scores, sib, masks, n_threads=n_threads)
    best2, mm2 = kernels.eisner2_max_marginals_batch(scores, sib, masks, n_threads=n_threads)
    z2, marg2 = kernels.eisner2_marginals_batch(scores, sib, masks, n_threads=n_threads)
    heads3 = kernels.eisner3_batch(scores, mask=masks, n_threads=n_threads, **third)
    best3, mm3 = kernels.eisner3_max_marginals_batch(scores, mask=masks, n_threads=n_threads, **third)
    z3, marg3 = kernels.eisner3_marginals_batch(scores, mask=masks, n_threads=n_threads, **third)
    for i, s in enumerate(scores):
        np.testing.assert_array_equal(heads2[i], kernels.eisner2(s, sib[i], masks[i]))
        b, a = kernels.eisner2_max_marginals(s, sib[i], masks[i])
        assert best2[i] == b
        np.testing.assert_array_equal(mm2[i], a)
        z, p = kernels.eisner2_marginals(s, sib[i], masks[i])
        assert z2[i] == z
        np.testing.assert_array_equal(marg2[i], p)
        mine = {k: v[i] for k, v in third.items()}
        np.testing.assert_array_equal(heads3[i], kernels.eisner3(s, mask=masks[i], **mine))
        b, a = kernels.eisner3_max_marginals(s, mask=masks[i], **mine)
        assert best3[i] == b
        np.testing.assert_array_equal(mm3[i], a)
        z, p = kernels.eisner3_marginals(s, mask=masks[i], **mine)
        assert z3[i] == z
        np.testing.assert_array_equal(marg3[i], p)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_vine_batches_equal_single_calls(n_threads):
    rng, scores, masks = sentences(7, masked=False)
    outer = [rng.normal(size=(s.shape[0], 2)) for s in scores]
    band = 3
    best = kernels.vine_batch(scores, outer, band, n_threads=n_threads)
    top, per = kernels.vine_max_marginals_batch(scores, outer, band, n_threads=n_threads)
    log_z, marg = kernels.vine_marginals_batch(scores, outer, band, n_threads=n_threads)
    P, O = padded(scores), padded(outer, trailing=(2,))
    heads, attach = kernels.vine_batch(P, O, band, lengths=SIZES, n_threads=n_threads)
    top_p, (arcs_p, outer_p) = kernels.vine_max_marginals_batch(P, O, band, lengths=SIZES, n_threads=n_threads)
    for i, n in enumerate(SIZES):
        h, a = kernels.vine(scores[i], outer[i], band)
        np.testing.assert_array_equal(best[i][0], h)
        np.testing.assert_array_equal(best[i][1], a)
        np.testing.assert_array_equal(heads[i, :n + 1], h)
        np.testing.assert_array_equal(attach[i, :n + 1], a)
        b, arcs, out = kernels.vine_max_marginals(scores[i], outer[i], band)
        assert top[i] == b == top_p[i]
        np.testing.assert_array_equal(per[i][0], arcs)
        np.testing.assert_array_equal(per[i][1], out)
        np.testing.assert_array_equal(arcs_p[i, :n + 1, :n + 1], arcs)
        np.testing.assert_array_equal(outer_p[i, :n + 1], out)
        z, arcs, out = kernels.vine_marginals(scores[i], outer[i], band)
        assert log_z[i] == z
        np.testing.assert_array_equal(marg[i][0], arcs)


def test_errors_name_the_sentence():
    _, scores, masks = sentences(8)
    bad = [s.copy() for s in scores]
    bad[3][1, 2] = np.nan
    with pytest.raises(ValueError, match=r"sentence 3: scores contains NaN \(first at \[1, 2\]\)"):
        kernels.eisner_batch(bad, mask=masks)
    bad[3][1, 2] = -1e308
    with pytest.raises(ValueError, match=r"sentence 3: scores\[1, 2\] = -1e\+308 is outside"):
        kernels.eisner_marginals_batch(bad, n_threads=2)
    stranded = [m.copy() for m in masks]
    stranded[2][:, 4] = False
    with pytest.raises(kernels.NoStructureError, match="sentence 2: .*word 4 has no allowed head"):
        kernels.eisner_batch(scores, mask=stranded)
    sib = [np.zeros(len(kernels.second_order_parts(m))) for m in masks]
    sib[5] = sib[5][:-1]
    with pytest.raises(ValueError, match="sentence 5: compact sib must have one score per sibling part"):
        kernels.eisner2_batch(scores, sib, masks)


@pytest.mark.parametrize("call,message", [
    (lambda s: kernels.eisner_batch(s, n_threads=0), "n_threads must be an integer >= 1"),
    (lambda s: kernels.eisner_batch(s, n_threads=1.5), "n_threads"),
    (lambda s: kernels.eisner_batch(np.zeros((2, 3, 3)), lengths=[1, 3]), "lengths must lie in 0..2"),
    (lambda s: kernels.eisner_batch(np.zeros((2, 3, 3)), lengths=[1]), "lengths must be 2 integers"),
    (lambda s: kernels.eisner_batch(np.zeros((2, 3, 4))), r"padded scores must have shape \(B, N, N\)"),
    (lambda s: kernels.eisner_batch(s, lengths=[1, 2]), "lengths go with padded scores"),
    (lambda s: kernels.eisner_batch(s, mask=[None]), "one mask per sentence"),
    (lambda s: kernels.eisner_batch(np.zeros((2, 3, 3)), mask=np.ones((2, 3, 3))), "padded masks must be boolean"),
    (lambda s: kernels.eisner2_batch(s, [np.zeros(0)]), "sib must give one vector per sentence"),
    (lambda s: kernels.eisner_batch(5), "a list of"),
])
def test_bad_batches(call, message):
    _, scores, _ = sentences(9, masked=False)
    with pytest.raises(ValueError, match=message):
        call(scores)


def test_empty_batches():
    assert kernels.eisner_batch([]) == []
    best, mm = kernels.eisner_max_marginals_batch(np.zeros((0, 4, 4)))
    assert best.shape == (0,) and mm.shape == (0, 4, 4)
