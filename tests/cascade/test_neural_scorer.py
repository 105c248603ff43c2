"""The runtime on neural scores: part scores equal the component's part MLP kernel, and a whole cascade
equals a reference loop written with the checked kernels and the thresholds."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse import kernels
from vineparse._kernels.cascade_runtime import CascadeRuntime
from vineparse._kernels.thresholds import prune_mask
from vineparse._kernels.neural_scorer import NeuralScorer
from vineparse._kernels.part_mlp import part_mlp_scores

EDGES = (2, 3, 4, 5, 6, 8, 11, 16, 21, 31)
ROLES = {0: 3, 1: 3, 2: 4}                  # sibling, grandparent, grand-sibling
SIBLING_COLUMN = {0: 1, 1: -1, 2: 2}
HEAD_COLUMN = {0: 0, 1: 1, 2: 1}


def buckets(n):
    h, m = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    classes = np.searchsorted(np.array(EDGES), np.abs(h - m), side="right")
    return np.where(h == 0, 0, 1 + classes + (len(EDGES) + 1) * (h > m)).astype(np.int64)


def random_batch(rng, lengths, p=5):
    rows_total = sum(n + 1 for n in lengths) + 3
    tables = []
    for kind in range(3):
        tables.append((rng.normal(size=(rows_total, ROLES[kind] * p)).astype(np.float32),
                       np.arange(ROLES[kind], dtype=np.int64) * p,
                       rng.normal(size=p).astype(np.float32), rng.normal(size=p).astype(np.float32),
                       rng.normal(size=(1 + 2 * (len(EDGES) + 1), p)).astype(np.float32),
                       SIBLING_COLUMN[kind], HEAD_COLUMN[kind]))
    arcs, outer, rows, start = [], [], [], 3
    for n in lengths:
        arcs.append(rng.normal(size=(n + 1, n + 1)) * 2)
        outer.append(rng.normal(size=(n + 1, 2)))
        rows.append(np.arange(start, start + n + 1, dtype=np.int64))
        start += n + 1
    return arcs, outer, rows, tables


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 12))
def test_part_scores_are_the_part_mlp(seed, n):
    rng = np.random.default_rng(seed)
    arcs, outer, rows, tables = random_batch(rng, [n])
    scorer = NeuralScorer(arcs, outer, rows, tables, EDGES)
    mask = rng.random((n + 1, n + 1)) < 0.6
    np.testing.assert_array_equal(scorer.arc_scores(0, 2, mask), np.where(mask, arcs[0], -np.inf))
    for kind in range(3):
        P, starts, v, none, Q, sibling, head = tables[kind]
        parts = rng.integers(0, n + 1, size=(9, ROLES[kind])).astype(np.int64)
        parts[:3, SIBLING_COLUMN[kind] if SIBLING_COLUMN[kind] > 0 else 1] = parts[:3, 0]
        expected = part_mlp_scores(np.ascontiguousarray(P[rows[0]]), parts, starts, v,
                                   sibling, none if sibling > 0 else np.zeros(0, np.float32), Q, buckets(n), head)
        np.testing.assert_allclose(scorer.part_scores(0, 3, 2 + kind, parts), expected, rtol=1e-5, atol=1e-5)


def test_column_blocks_of_a_wider_projection_are_read_in_place():
    """Part tables whose P is a column block of one wide array (the component projects a batch once for
    every scorer) score and parse exactly as their contiguous copies."""
    rng = np.random.default_rng(7)
    lengths = [5, 9, 13]
    arcs, outer, rows, tables = random_batch(rng, lengths)
    wide = np.hstack([rng.normal(size=(tables[0][0].shape[0], 3)).astype(np.float32)]
                     + [t[0] for t in tables])
    starts = np.cumsum([3] + [t[0].shape[1] for t in tables])
    blocks = [(wide[:, a:b],) + t[1:] for a, b, t in zip(starts[:-1], starts[1:], tables)]
    assert not blocks[0][0].flags.c_contiguous
    runtime = CascadeRuntime([0, 1, 2, 3], [0.3, 0.2, 0.1], [0, 4, 3], 3)
    copied, in_place = (NeuralScorer(arcs, outer, rows, t, EDGES) for t in (tables, blocks))
    for kind in range(3):
        parts = rng.integers(0, lengths[1] + 1, size=(9, ROLES[kind])).astype(np.int64)
        np.testing.assert_array_equal(in_place.part_scores(1, 3, 2 + kind, parts),
                                      copied.part_scores(1, 3, 2 + kind, parts))
    for a, b in zip(runtime.run(copied), runtime.run(in_place)):
        np.testing.assert_array_equal(a, b)


def reference(arcs, outer, sib, grand, gsib, alphas, caps, band):
    """The vine -> 1 -> 2 -> 3 cascade of one sentence, written with the checked kernels."""
    n = arcs.shape[0] - 1
    short = np.zeros_like(arcs, dtype=bool)
    h, m = np.indices(arcs.shape)
    short[(m > 0) & (h != m) & ((h == 0) | (np.abs(h - m) <= band))] = True
    best, arc_mm, outer_mm = kernels.vine_max_marginals(np.where(short, arcs, -np.inf), outer, band)
    masks = [prune_mask(best, arc_mm, outer_mm, alphas[0], band=band)]
    previous = None
    for order in (1, 2):
        mask = masks[-1]
        try:
            kernels.eisner(np.zeros_like(arcs), mask)
        except kernels.NoStructureError:
            mask = masks[-1] = previous if previous is not None else kernels_full(n)
        scores = np.where(mask, arcs, -np.inf)
        if order == 1:
            best, mm = kernels.eisner_max_marginals(scores, mask)
        else:
            best, mm = kernels.eisner2_max_marginals(scores, sib(kernels.second_order_parts(mask)), mask)
        previous = mask
        masks.append(prune_mask(best, mm, None, alphas[order], caps[order]))
    mask = masks[-1]
    parts = kernels.third_order_parts(mask)
    return kernels.eisner3(np.where(mask, arcs, -np.inf), sib(parts["sibling"]), grand(parts["grandparent"]),
                           gsib(parts["grand_sibling"]), mask)


def kernels_full(n):
    mask = np.ones((n + 1, n + 1), dtype=bool)
    mask[:, 0] = False
    np.fill_diagonal(mask, False)
    return mask


@pytest.mark.parametrize("seed", range(6))
def test_runtime_on_neural_scores_equals_a_kernel_level_cascade(seed):
    rng = np.random.default_rng(seed)
    lengths = [int(x) for x in rng.integers(1, 16, size=8)]
    arcs, outer, rows, tables = random_batch(rng, lengths)
    alphas, caps, band = [0.3, 0.2, 0.1], [0, 4, 3], 3
    scorer = NeuralScorer(arcs, outer, rows, tables, EDGES)
    got = CascadeRuntime([0, 1, 2, 3], alphas, caps, band).run(scorer)
    for i, n in enumerate(lengths):
        score = lambda kind: (lambda parts: scorer.part_scores(i, 0, 2 + kind, parts) if len(parts) else None)
        expected = reference(arcs[i], outer[i], score(0), score(1), score(2), alphas, caps, band)
        np.testing.assert_array_equal(got[i], expected)
    assert all(np.array_equal(a, b) for a, b in zip(got, CascadeRuntime([0, 1, 2, 3], alphas, caps, band).run(
        scorer, n_threads=2)))


def test_one_projection_shared_by_the_kinds_reads_each_kinds_role_columns():
    """The three kinds reading one projection of four role blocks (g, h, s, m) at their roles' columns score
    and parse exactly as tables of their own holding copies of those columns."""
    rng = np.random.default_rng(11)
    lengths, p = [4, 8, 12], 5
    arcs, outer, rows, tables = random_batch(rng, lengths, p)
    shared = rng.normal(size=(tables[0][0].shape[0], 4 * p)).astype(np.float32)
    roles = {0: "hsm", 1: "ghm", 2: "ghsm"}
    starts = {kind: np.array(["ghsm".index(r) * p for r in roles[kind]], dtype=np.int64) for kind in range(3)}
    reading = [(shared, starts[kind]) + t[2:] for kind, t in enumerate(tables)]
    copies = [(np.hstack([shared[:, c:c + p] for c in starts[kind]]), np.arange(ROLES[kind]) * p) + t[2:]
              for kind, t in enumerate(tables)]
    runtime = CascadeRuntime([0, 1, 2, 3], [0.3, 0.2, 0.1], [0, 4, 3], 3)
    a, b = (NeuralScorer(arcs, outer, rows, t, EDGES) for t in (reading, copies))
    for kind in range(3):
        parts = rng.integers(0, lengths[2] + 1, size=(15, ROLES[kind])).astype(np.int64)
        np.testing.assert_array_equal(a.part_scores(2, 3, 2 + kind, parts), b.part_scores(2, 3, 2 + kind, parts))
    for x, y in zip(runtime.run(a), runtime.run(b)):
        np.testing.assert_array_equal(x, y)


def test_bad_tables_are_refused():
    rng = np.random.default_rng(0)
    arcs, outer, rows, tables = random_batch(rng, [4])
    with pytest.raises(ValueError, match="arc matrices"):
        NeuralScorer(arcs, outer, [], tables, EDGES)
    for broken in ((tables[0][0][:, :7],) + tables[0][1:],                     # roles beyond P's columns
                   (tables[0][0], tables[0][1][:2]) + tables[0][2:],             # two roles
                   (tables[0][0], tables[0][1] - 1) + tables[0][2:]):            # a column before P's first
        with pytest.raises(ValueError, match="do not fit a part MLP"):
            NeuralScorer(arcs, outer, rows, [broken] + list(tables[1:]), EDGES)
    with pytest.raises(ValueError, match="rows outside"):
        NeuralScorer(arcs, outer, [rows[0] + 1000], tables, EDGES)


@pytest.mark.parametrize("seed", range(4))
def test_vine_max_marginals_handed_over_replace_the_vine_pass(seed):
    """A scorer given a sentence's unmasked vine max-marginals (as the component hands them on) makes the
    runtime prune with them instead of running the vine pass: the true ones change nothing, and those of
    other scores give exactly the mask the thresholds make of them (or, where that mask admits no tree, the
    runtime's fallback to every arc)."""
    rng = np.random.default_rng(seed)
    lengths = [int(x) for x in rng.integers(1, 14, size=6)]
    arcs, outer, rows, tables = random_batch(rng, lengths)
    alphas, caps, band = [0.4, 0.2, 0.1], [0, 4, 3], 3
    runtime = CascadeRuntime([0, 1, 2, 3], alphas, caps, band)
    plain = NeuralScorer(arcs, outer, rows, tables, EDGES)
    true = [kernels.vine_max_marginals(a, o, band) for a, o in zip(arcs, outer)]
    known = NeuralScorer(arcs, outer, rows, tables, EDGES, vine=[t if i % 2 else None for i, t in enumerate(true)])
    for a, b in zip(runtime.run(plain), runtime.run(known)):
        np.testing.assert_array_equal(a, b)
    made_up = [kernels.vine_max_marginals(rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, 2)), band)
               for n in lengths]
    handed = NeuralScorer(arcs, outer, rows, tables, EDGES, vine=made_up)
    for (best, arc_mm, outer_mm), mask in zip(made_up, runtime.run(handed, upto=1)):
        expected = prune_mask(best, arc_mm, outer_mm, alphas[0], band=band)
        try:
            kernels.eisner(np.zeros(expected.shape), expected)
        except kernels.NoStructureError:
            expected = kernels_full(len(mask) - 1)
        np.testing.assert_array_equal(mask, expected)
    with pytest.raises(ValueError, match="vine max-marginals"):
        NeuralScorer(arcs, outer, rows, tables, EDGES, vine=[(0.0, np.zeros((2, 2)), np.zeros((2, 2)))] * len(lengths))
    with pytest.raises(ValueError, match="vine entries"):
        NeuralScorer(arcs, outer, rows, tables, EDGES, vine=[None])
