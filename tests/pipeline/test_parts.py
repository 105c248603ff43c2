"""Neural part scores and the training losses: finite-difference gradients, the part cache, and brute-force
oracles (every projective tree of a tiny sentence) for the losses' maximisations."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse.pipeline.levels import NeuralFirstOrderLevel, NeuralThirdOrderLevel, NeuralVineLevel, check_orders
from vineparse.pipeline.objective import head_selection_loss, hinge_loss, label_loss, vine_hinge_loss
from vineparse.pipeline.parts import (ARC, DISTANCE_CLASSES, GRAND_SIBLING, GRANDPARENT, N_BUCKETS, OUTER, SIBLING,
                                      FeatureLayout,
                                      SentenceScores, dense_buckets, distance_buckets)
from oracle import projective_trees

LAYOUT = FeatureLayout(4, 3, 5)
N_LABELS = 4


def random_scores(seed, n, distance=False):
    rng = np.random.default_rng(seed)
    params = {"U": rng.normal(size=(4, 4)), "u": rng.normal(size=4), "v_sib": rng.normal(size=3),
              "v_gp": rng.normal(size=3), "v_gs": rng.normal(size=3), "none_sib": rng.normal(size=3),
              "none_gs": rng.normal(size=3), "L": rng.normal(size=(N_LABELS, 5)), "l_b": rng.normal(size=N_LABELS)}
    if distance:
        params.update(E_dist=rng.normal(size=(N_BUCKETS, 4)), F_dist=rng.normal(size=(N_BUCKETS, 4)),
                      c_dist=rng.normal(size=N_BUCKETS), M_dist=rng.normal(size=(N_BUCKETS, 5)),
                      **{name: rng.normal(size=(N_BUCKETS, 3)) for name in ("Q_sib", "Q_gp", "Q_gs")})
    return rng.normal(size=(n + 1, LAYOUT.width)), params


ROWS = {ARC: [[0, 1], [1, 2], [3, 2], [2, 5]], OUTER: [[1, 0], [3, 1]],
        SIBLING: [[1, 1, 2], [1, 2, 4], [0, 0, 3]], GRANDPARENT: [[0, 1, 2], [2, 1, 5]],
        GRAND_SIBLING: [[0, 1, 1, 2], [3, 1, 2, 4]]}


@pytest.mark.parametrize("distance", [False, True])
def test_backward_matches_finite_differences(distance):
    Z, params = random_scores(0, 5, distance)
    rng = np.random.default_rng(1)
    weights = {kind: rng.normal(size=len(rows)) for kind, rows in ROWS.items()}
    heads, mods, labels = np.array([1, 3, 0]), np.array([2, 1, 3]), np.array([0, 2, 3])

    def loss(Z, params):
        sent = SentenceScores(Z, params, LAYOUT)
        total = sum(float(weights[k] @ sent.part_scores(k, np.array(r))) for k, r in ROWS.items())
        probs = sent.label_probabilities(heads, mods)
        return total - np.log(probs[np.arange(3), labels]).sum()

    sent = SentenceScores(Z, params, LAYOUT)
    for kind, rows in ROWS.items():
        sent.add_gradient(kind, np.array(rows), weights[kind])
    probs = sent.label_probabilities(heads, mods)
    probs[np.arange(3), labels] -= 1.0
    d_params = {k: np.zeros_like(v) for k, v in params.items()}
    dZ = sent.backward(d_params, (heads, mods, probs))
    eps = 1e-6
    for index in np.ndindex(Z.shape):
        plus, minus = Z.copy(), Z.copy()
        plus[index] += eps
        minus[index] -= eps
        assert dZ[index] == pytest.approx((loss(plus, params) - loss(minus, params)) / (2 * eps), abs=1e-5)
    for name, value in params.items():
        for index in np.ndindex(value.shape):
            plus, minus = dict(params), dict(params)
            plus[name], minus[name] = value.copy(), value.copy()
            plus[name][index] += eps
            minus[name][index] -= eps
            numeric = (loss(Z, plus) - loss(Z, minus)) / (2 * eps)
            assert d_params[name][index] == pytest.approx(numeric, abs=1e-5), name


@given(st.integers(0, 10_000), st.integers(1, 8))
def test_part_scores_do_not_depend_on_the_cache(seed, n):
    Z, params = random_scores(seed, n)
    rng = np.random.default_rng(seed)
    cached = SentenceScores(Z, params, LAYOUT)
    for kind, width in ((SIBLING, 3), (GRANDPARENT, 3), (GRAND_SIBLING, 4)):
        for _ in range(3):
            rows = rng.integers(0, n + 1, size=(rng.integers(0, 12), width))
            fresh = SentenceScores(Z, params, LAYOUT)
            expected = fresh.part_scores(kind, rows)
            assert np.allclose(cached.part_scores(kind, rows), expected)


@given(st.integers(0, 10_000), st.integers(1, 9), st.booleans())
def test_sparse_and_dense_arc_scores_agree(seed, n, distance):
    Z, params = random_scores(seed, n, distance)
    arcs = np.argwhere(np.ones((n + 1, n + 1), dtype=bool))[:3]
    sparse = SentenceScores(Z, params, LAYOUT).arc_scores(arcs)
    dense = SentenceScores(Z, params, LAYOUT).dense_arcs()[arcs[:, 0], arcs[:, 1]]
    assert np.allclose(sparse, dense)


def test_distance_buckets():
    h = np.array([0, 0, 1, 2, 3, 1, 40, 3])
    m = np.array([1, 7, 2, 1, 9, 40, 1, 3 + 16])
    # root; root; left 1; right 1; left 6 (class 6-7); left 39 (31+); right 39; left 16 (class 16-20)
    expected = [0, 0, 1, 1 + DISTANCE_CLASSES, 1 + 5, 1 + 10, 1 + DISTANCE_CLASSES + 10, 1 + 8]
    assert list(distance_buckets(h, m)) == expected
    assert distance_buckets(h, m).max() < N_BUCKETS
    dense = dense_buckets(6)
    assert all(dense[a, b] == distance_buckets(a, b) for a in range(7) for b in range(7))


def test_distance_terms_tell_equal_words_apart():
    Z, params = random_scores(0, 4, distance=True)
    Z[2] = Z[4]                                # two equal head candidates for word 1, at distance 1 and 3
    params["c_dist"][:] = 0.0
    params["c_dist"][distance_buckets(2, 1)] = 5.0
    scores = SentenceScores(Z, params, LAYOUT).dense_arcs()
    assert scores[2, 1] > scores[4, 1]


def tree_score(level, sent, heads):
    return level.score(sent, np.asarray(heads))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("level_class", [NeuralFirstOrderLevel, NeuralThirdOrderLevel])
def test_hinge_loss_is_the_brute_force_cost_augmented_margin(n, level_class):
    for seed in range(4):
        Z, params = random_scores(seed, n)
        sent = SentenceScores(Z, params, LAYOUT)
        level = level_class()
        trees = [np.asarray(t) for t in projective_trees(n)]
        gold = trees[seed % len(trees)]
        worst = max(tree_score(level, sent, t) + float((t[1:] != gold[1:]).sum()) for t in trees)
        expected = worst - tree_score(level, sent, gold)
        assert hinge_loss(level, sent, gold, None) == pytest.approx(max(expected, 0.0))
        if expected > 1e-9:
            # the subgradient: -1 on the gold tree's arcs, +1 on the cost-augmented best tree's arcs
            d = sent.d_arcs
            assert d.sum() == pytest.approx(0.0)
            assert (d[gold[1:], np.arange(1, n + 1)] <= 0).all()


@given(st.integers(0, 10_000), st.integers(1, 7))
def test_head_selection_loss_is_the_local_log_loss(seed, n):
    Z, params = random_scores(seed, n)
    rng = np.random.default_rng(seed)
    gold = np.asarray(projective_trees(n)[rng.integers(len(projective_trees(n)))])
    sent = SentenceScores(Z, params, LAYOUT)
    scores = sent.dense_arcs()
    expected = 0.0
    for m in range(1, n + 1):
        column = [scores[h, m] for h in range(n + 1) if h != m]
        expected -= scores[gold[m], m] - np.log(np.sum(np.exp(column)))
    assert head_selection_loss(sent, gold) == pytest.approx(expected)
    assert np.allclose(sent.d_arcs[:, 1:].sum(axis=0), 0.0)


def test_label_loss_skips_unseen_labels():
    Z, params = random_scores(3, 4)
    sent = SentenceScores(Z, params, LAYOUT)
    heads = np.array([-1, 2, 0, 2, 3])
    loss, unseen, (h, m, d) = label_loss(sent, heads, np.array([-1, 1, -1, 0, 3]))
    assert unseen == 1 and list(m) == [1, 3, 4] and list(h) == [2, 2, 3]
    probs = sent.label_probabilities(h, m)
    assert loss == pytest.approx(-np.log(probs[[0, 1, 2], [1, 0, 3]]).sum())


@pytest.mark.parametrize("orders, message", [([], "at least one"), ([2, 1], "increasing"), ([0], "last level"),
                                             ([0, 5], "unknown"), ([True, 2], "unknown")])
def test_check_orders_names_the_problem(orders, message):
    with pytest.raises(ValueError, match=message):
        check_orders(orders)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_vine_hinge_loss_is_the_brute_force_cost_augmented_margin(n):
    band = 2
    for seed in range(4):
        Z, params = random_scores(seed, n)
        sent = SentenceScores(Z, params, LAYOUT)
        level = NeuralVineLevel(band)
        trees = [np.asarray(t) for t in projective_trees(n)]
        gold_heads, gold_attach = level.vine_structure(trees[seed % len(trees)])
        # every vine structure: the vine kernel's best under random part scores, over many draws, would miss
        # some; enumerate instead every (short head or label) assignment that forms a vine structure
        best = -np.inf
        for structure in vine_structures(n, band):
            heads, attach = structure
            wrong = ((heads[1:] != gold_heads[1:]) | (attach[1:] != gold_attach[1:])).sum()
            best = max(best, level.score_structure(sent, heads, attach) + wrong)
        expected = best - level.score_structure(sent, gold_heads, gold_attach)
        assert vine_hinge_loss(level, sent, trees[seed % len(trees)]) == pytest.approx(max(expected, 0.0))


def vine_structures(n, band):
    """Every vine structure of n words: projective forests of short arcs (length <= band) whose roots carry
    a vine label (ROOT, OUTER-LEFT if m - band > 1, OUTER-RIGHT if m + band < n)."""
    from itertools import product
    from vineparse import kernels
    from vineparse.trees import is_projective
    options = []
    for m in range(1, n + 1):
        heads = [(h, kernels.ATTACH_SHORT) for h in range(1, n + 1) if h != m and abs(h - m) <= band]
        labels = [(0, kernels.ATTACH_ROOT)]
        if m - band > 1:
            labels.append((0, kernels.ATTACH_OUTER_LEFT))
        if m + band < n:
            labels.append((0, kernels.ATTACH_OUTER_RIGHT))
        options.append(heads + labels)
    for choice in product(*options):
        heads = np.array([-1] + [h for h, _ in choice], dtype=np.int64)
        attach = np.array([0] + [a for _, a in choice], dtype=np.int8)
        if is_projective(heads) and _acyclic(heads):
            yield heads, attach


def _acyclic(heads):
    from vineparse.trees import find_cycle
    return find_cycle(heads) is None


@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 5))
def test_prefers_root_compares_with_every_head_in_the_window(seed, n, window):
    Z, params = random_scores(seed, n)
    sent = SentenceScores(Z, params, LAYOUT)
    scores = sent.dense_arcs()
    words = np.arange(1, n + 1)
    expected = [scores[0, m] > max([scores[h, m] for h in range(max(1, m - window), min(n, m + window) + 1)
                                    if h != m], default=-np.inf) for m in words]
    assert list(SentenceScores(Z, params, LAYOUT).prefers_root(words, window)) == expected


@given(st.integers(0, 10_000), st.integers(1, 8))
def test_uncached_scores_equal_cached_ones(seed, n):
    Z, params = random_scores(seed, n)
    rows = np.random.default_rng(seed).integers(0, n + 1, size=(10, 4))
    cached = SentenceScores(Z, params, LAYOUT).part_scores(GRAND_SIBLING, rows)
    assert np.allclose(SentenceScores(Z, params, LAYOUT, cache=False).part_scores(GRAND_SIBLING, rows), cached)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 9), distance=st.booleans())
def test_fused_part_scores_equal_the_numpy_mlp(dtype, seed, n, distance):
    """The fused kernel (`part_mlp_scores`) against v . relu(sum of role rows) computed by numpy, for every
    part kind, with the "no sibling" row and the distance rows, in float32 (the model's) and float64."""
    Z, params = random_scores(seed, n, distance)
    Z, params = Z.astype(dtype), {k: v.astype(dtype) for k, v in params.items()}
    rng = np.random.default_rng(seed)
    sent = SentenceScores(Z, params, LAYOUT, cache=False)
    for kind in (SIBLING, GRANDPARENT, GRAND_SIBLING):
        rows = rng.integers(0, n + 1, size=(20, 4 if kind == GRAND_SIBLING else 3))
        if kind != GRANDPARENT:                       # some parts without an inner sibling
            column = 1 if kind == SIBLING else 2
            rows[::3, column] = rows[::3, column - 1]
        expected = np.maximum(sent._hidden(kind, rows), 0) @ params[{SIBLING: "v_sib", GRANDPARENT: "v_gp",
                                                                     GRAND_SIBLING: "v_gs"}[kind]]
        assert np.allclose(sent.part_scores(kind, rows), expected, rtol=1e-5, atol=1e-4)


def test_fused_part_scores_reject_words_outside_the_sentence():
    Z, params = random_scores(0, 4)
    sent = SentenceScores(Z, params, LAYOUT, cache=False)
    for bad in ([[1, 2, 5]], [[-1, 2, 3]]):
        with pytest.raises(IndexError, match="outside"):
            sent.part_scores(SIBLING, np.array(bad))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_vine_structure_from_max_marginals_is_the_decoded_one(n):
    """The prediction shortcut: the best vine structure read off the max-marginals, and the one-sentence
    test on them, agree with the vine's decode (and with brute force over every vine structure)."""
    from vineparse import kernels
    band = 2
    for seed in range(6):
        Z, params = random_scores(seed, n, distance=True)
        if seed % 3 == 0:              # a strong root row: often more than one ROOT word
            Z[0] *= 3.0
        level = NeuralVineLevel(band)
        decoded = level.decode(SentenceScores(Z, params, LAYOUT, cache=False))
        sent = SentenceScores(Z, params, LAYOUT, cache=False)
        heads, attach = level.best_structure(sent)
        assert np.array_equal(heads, decoded[0]) and np.array_equal(attach, decoded[1])
        best = max(level.score_structure(sent, h, a) for h, a in vine_structures(n, band))
        assert level.score_structure(sent, heads, attach) == pytest.approx(best)
        one_root = level.at_most_one_root(SentenceScores(Z, params, LAYOUT, cache=False))
        if one_root:
            assert np.count_nonzero(decoded[1] == kernels.ATTACH_ROOT) <= 1
        assert sent.vine_max_marginals is not None
        assert level.max_marginals(sent) is sent.vine_max_marginals[1]     # the cascade reuses them


def test_structure_from_max_marginals_gives_up_on_ties():
    from vineparse.pipeline.levels import structure_from_max_marginals
    arc_mm = np.full((3, 3), -np.inf)
    arc_mm[0, 1] = arc_mm[0, 2] = arc_mm[1, 2] = arc_mm[2, 1] = 1.0     # two best structures
    outer_mm = np.full((3, 2), -np.inf)
    assert structure_from_max_marginals(1.0, arc_mm, outer_mm) is None
