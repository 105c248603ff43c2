"""The thinc scorer layers: finite-difference checks of every backward pass (inputs and parameters), and the
fused CPU part kernel against the layer."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from thinc.api import NumpyOps, Ops

from vineparse.pipeline.parts import PartTable, SentenceScores
from vineparse.pipeline.scorers import (GRAND_SIBLING, GRANDPARENT, N_BUCKETS, PART_ROLES, SIBLING,
                                        DISTANCE_CLASSES, add_span_scores, arc_scorer,
                                        biaffine_predict, biaffine_row_terms, dense_buckets, distance_buckets,
                                        label_scorer, outer_children, outer_scorer, part_scorer,
                                        role_starts, shared_part_projection, span_row_terms, span_scores,
                                        start_scorer, with_root_row)

W = 5


def float64_model(model, X):
    """Initialize `model` (its projection on X), then give every parameter random float64 values, on thinc's
    generic `Ops` (NumpyOps' BLIS gemm takes float32 only)."""
    for node in model.walk():
        node.ops = Ops()
    if model.layers:
        model.layers[0].initialize(X=X)
        for layer in model.layers[1:]:
            layer.initialize()
    model.initialize()
    rng = np.random.default_rng(7)
    for node in model.walk():
        for name in node.param_names:
            node.set_param(name, rng.normal(0.0, 0.5, node.get_param(name).shape))
    return model


def check_gradients(model, inputs, X, weights_of, eps=1e-6, tol=1e-5):
    """d (sum of weights * outputs) / d X and / d every parameter, against central differences."""
    def loss():
        out, _ = model(inputs(X), is_train=False)
        return weights_of(out)

    out, backprop = model(inputs(X), is_train=True)
    for node in model.walk():
        for name in node.param_names:
            if node.has_grad(name):
                node.set_grad(name, np.zeros_like(node.get_param(name)))
    dX = backprop(grads(out, weights_of))
    dX = np.vstack(dX) if isinstance(dX, list) else dX
    for index in np.ndindex(X.shape):
        assert dX[index] == pytest.approx(central_difference(X, index, loss, eps), abs=tol), index
    for node in model.walk():
        for name in node.param_names:
            value = node.get_param(name)
            grad = node.get_grad(name) if node.has_grad(name) else np.zeros_like(value)
            for index in np.ndindex(value.shape):
                assert grad[index] == pytest.approx(central_difference(value, index, loss, eps), abs=tol), (
                    node.name, name, index)


def central_difference(array, index, loss, eps):
    """(loss(array[index] + eps) - loss(array[index] - eps)) / (2 eps), the array left as it was."""
    saved = array[index]
    array[index] = saved + eps
    plus = loss()
    array[index] = saved - eps
    minus = loss()
    array[index] = saved
    return (plus - minus) / (2 * eps)


def grads(out, weights_of):
    """d (weights_of(out)) / d out for the linear weightings used here."""
    return weights_of(out, gradient=True)


def weighting(seed):
    rng = np.random.default_rng(seed)
    cache = {}

    def weights_of(out, gradient=False):
        parts = out if isinstance(out, list) else [out]
        ws = [cache.setdefault(i, rng.normal(size=o.shape)) for i, o in enumerate(parts)]
        if gradient:
            return ws if isinstance(out, list) else ws[0]
        return float(sum((w * o).sum() for w, o in zip(ws, parts)))

    return weights_of


@pytest.mark.parametrize("span_width", [0, 2])
def test_arc_scorer_backward_matches_finite_differences(span_width):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, W))
    model = float64_model(arc_scorer(3, nI=W, span_width=span_width), X)
    rows = [np.array([0, 1, 2, 3]), np.array([0, 4, 5]), np.array([6, 8, 7, 2])]
    positions = [None, None, np.array([0, 5, 1, 30])]       # a root shared; far positions
    check_gradients(model, lambda X: (X, rows, positions), X, weighting(1))


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("kind", [SIBLING, GRANDPARENT, GRAND_SIBLING])
def test_part_scorer_backward_matches_finite_differences(kind, shared):
    rng = np.random.default_rng(kind)
    X = rng.normal(size=(6, W))
    projection = shared_part_projection(3, nI=W) if shared else None
    model = float64_model(part_scorer(kind, 3, nI=W, projection=projection), X)
    rows = rng.integers(0, 6, size=(7, PART_ROLES[kind]))
    if kind != GRANDPARENT:
        column = 1 if kind == SIBLING else 2
        rows[::2, column] = rows[::2, column - 1]           # parts without an inner sibling
    buckets = rng.integers(0, N_BUCKETS, size=7)
    check_gradients(model, lambda X: (X, rows, buckets), X, weighting(2))


@pytest.mark.parametrize("children", [False, True])
def test_label_scorer_backward_matches_finite_differences(children):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, W))
    model = float64_model(label_scorer(4, nL=3, nI=W, children=children), X)
    heads, mods = np.array([0, 1, 1, 3, 0, 5]), np.array([1, 2, 4, 4, 5, 1])
    buckets = distance_buckets(heads, mods)
    extra = (np.array([[-1, 3], [-1, -1], [2, 4], [-1, -1], [1, -1], [-1, 2]]),) if children else ()
    check_gradients(model, lambda X: (X, heads, mods, buckets) + extra, X, weighting(4))


def test_outer_children():
    #            0   1  2  3  4  5  6 | a second tree: 7 8 9
    heads = [-1, 3, 3, 0, 3, 3, 5, -1, 9, 7]
    assert outer_children(heads).tolist() == [[-1, 3], [-1, -1], [-1, -1], [1, 5], [-1, -1], [-1, 6],
                                              [-1, -1], [-1, 9], [-1, -1], [8, -1]]
    assert outer_children([]).shape == (0, 2)
    rows = np.arange(10) + 100
    assert outer_children(heads, rows)[[0, 3, 9]].tolist() == [[-1, 103], [101, 105], [108, -1]]


def test_outer_scorer_and_root_row_backward_match_finite_differences():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, W))
    check_gradients(float64_model(outer_scorer(nI=W), X), lambda X: X, X, weighting(6))
    root = with_root_row(W)
    root.ops = Ops()
    root.initialize()
    root.set_param("root", rng.normal(size=W))
    check_gradients(root, lambda X: [X[:2], X[2:]], X, weighting(7))


def test_start_scorer_backward_matches_finite_differences():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(5, W))
    check_gradients(float64_model(start_scorer(3, nI=W), X), lambda X: X, X, weighting(9))


def test_start_scorer_reads_a_row_and_the_one_before():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(6, W))
    model = float64_model(start_scorer(4, nI=W), X)
    before = model.predict(X)
    X[2] += 1.0
    changed = np.flatnonzero(model.predict(X) != before)
    assert set(changed.tolist()) <= {2, 3} and 2 in changed


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 9), st.sampled_from([SIBLING, GRANDPARENT, GRAND_SIBLING]),
       st.sampled_from([3, 4, 6, 8, 16, 19]), st.booleans(), st.booleans())
def test_fused_cpu_part_scores_equal_the_layer(seed, n, kind, width, by_arc, shared):
    """What the cascade searches with (`SentenceScores.part_scores`, the fused kernel over `PartTable`)
    equals the thinc layer's forward pass, which training differentiates, on float32 parameters; for
    widths that do and do not fill its blocks (of eight floats with AVX2, else four), for parts in runs of
    one arc (the kernel sums an arc's terms once per run) as well as in any order, and for a projection of
    the kind's own as well as one the kinds share."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 3, W)).astype("f")
    model = part_scorer(kind, width, nI=W, projection=shared_part_projection(width, nI=W) if shared else None)
    model.layers[0].initialize(X=X)
    model.initialize()
    for name in ("v", "none", "Q"):
        model.set_param(name, rng.normal(size=model.get_param(name).shape).astype("f"))
    rows = np.concatenate([[2], rng.permutation(np.arange(3, n + 3))[:n]])      # a sentence's rows
    parts = rng.integers(0, n + 1, size=(12, PART_ROLES[kind]))
    if kind != GRANDPARENT:
        column = 1 if kind == SIBLING else 2
        parts[::3, column] = parts[::3, column - 1]
    head = 0 if kind == SIBLING else 1
    if by_arc:
        parts = parts[np.lexsort((parts[:, -1], parts[:, head]))]
        parts[1::2, [head, -1]] = parts[0::2, [head, -1]][:len(parts[1::2])]     # pairs sharing their arc
    buckets = dense_buckets(n)[parts[:, head], parts[:, -1]]
    expected = model.predict((X, rows[parts], buckets))
    table = PartTable(model.layers[0].predict(X), np.array(model.attrs["starts"]), model.get_param("v"),
                      model.get_param("none"), model.get_param("Q"))
    sent = SentenceScores(np.zeros((n + 1, n + 1)), np.zeros((n + 1, 2)), {kind: table}, rows, cache=False)
    assert np.allclose(sent.part_scores(kind, parts), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", [SIBLING, GRANDPARENT, GRAND_SIBLING])
def test_a_shared_projection_reads_the_kinds_roles(kind):
    """A part scorer on the shared projection (roles g, h, s, m) scores as one whose own projection holds
    the weights of the kind's roles (sibling h, s, m; grandparent g, h, m; grand-sibling g, h, s, m), and
    its gradient reaches only those roles' columns."""
    rng = np.random.default_rng(kind)
    width, X = 4, rng.normal(size=(7, W))
    shared = float64_model(part_scorer(kind, width, nI=W, projection=shared_part_projection(width, nI=W)), X)
    own = float64_model(part_scorer(kind, width, nI=W), X)
    names = {SIBLING: "hsm", GRANDPARENT: "ghm", GRAND_SIBLING: "ghsm"}[kind]
    columns = np.concatenate([np.arange(width) + "ghsm".index(r) * width for r in names])
    assert role_starts(kind, width) == ["ghsm".index(r) * width for r in names] == shared.attrs["starts"]
    for name in ("W", "b"):
        own.layers[0].set_param(name, shared.layers[0].get_param(name)[columns].copy())
    for name in ("v", "none", "Q"):
        own.set_param(name, shared.get_param(name).copy())
    rows = rng.integers(0, 7, size=(9, PART_ROLES[kind]))
    buckets = rng.integers(0, N_BUCKETS, size=9)
    scores, backprop = shared((X, rows, buckets), is_train=True)
    np.testing.assert_allclose(scores, own.predict((X, rows, buckets)), rtol=1e-12)
    backprop(np.ones_like(scores))
    d_W = shared.layers[0].get_grad("W")
    unread = np.setdiff1d(np.arange(4 * width), columns)
    assert np.abs(d_W[columns]).sum() > 0 and not d_W[unread].any()
    with pytest.raises(ValueError, match="4 x 4 columns"):
        part_scorer(kind, width, nI=W, projection=shared_part_projection(width + 1, nI=W))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 40), min_size=1, max_size=12),
       st.sampled_from([0, 3]))
def test_batched_arc_scores_equal_the_layer(seed, lengths, span_width):
    """Prediction's batched biaffine scores (one compiled call for all sentences, then the span term where
    the scorer has one) equal the layer's forward pass sentence by sentence, for any mix of
    lengths (the empty sentence included), as float64 C-contiguous arrays."""
    rng = np.random.default_rng(seed)
    starts = np.cumsum([0] + [n + 1 for n in lengths])
    X = rng.normal(size=(starts[-1] + 2, W)).astype("f")
    model = arc_scorer(4, nI=W, span_width=span_width)
    model.layers[0].initialize(X=X)
    model.initialize()
    for name in model.param_names:
        model.set_param(name, rng.normal(size=model.get_param(name).shape).astype("f"))
    rows = [np.arange(start, start + n + 1) for start, n in zip(starts, lengths)]
    rows = [rows[i] for i in rng.permutation(len(rows))]          # rows of the batch in any order
    expected = model.predict((X, rows, None))
    HD = model.layers[0].predict(X)
    assert (span_row_terms(model, HD) is None) == (span_width == 0)
    found = add_span_scores(span_row_terms(model, HD), rows, biaffine_predict(biaffine_row_terms(model, HD), rows))
    for want, got, r in zip(expected, found, rows):
        assert got.shape == (len(r), len(r)) and got.dtype == np.float64 and got.flags["C_CONTIGUOUS"]
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 9), st.integers(1, 4))
def test_span_scores_equal_the_mean_over_the_words_between(seed, n1, k):
    """Every arc's span term against its definition, summed directly over the rows between head and
    dependent; 0 on the diagonal and between adjacent rows."""
    rng = np.random.default_rng(seed)
    A, B, Z = (rng.normal(size=(n1, k)) for _ in range(3))
    S, _ = span_scores(np, A, B, Z)
    for h in range(n1):
        for m in range(n1):
            i, j = min(h, m), max(h, m)
            between = Z[i + 1:j]
            want = (A[h] + B[m]) @ between.mean(axis=0) if len(between) and h != m else 0.0
            assert S[h, m] == pytest.approx(want, abs=1e-9)


def test_span_scores_backward_matches_finite_differences():
    rng = np.random.default_rng(11)
    inputs = [rng.normal(size=(6, 3)) for _ in range(3)]
    weights = rng.normal(size=(6, 6))
    _, backprop = span_scores(np, *inputs)
    grads = backprop(weights)
    for index, value in enumerate(inputs):
        numeric = np.zeros_like(value)
        for at in np.ndindex(*value.shape):
            for sign in (1, -1):
                moved = [x.copy() for x in inputs]
                moved[index][at] += sign * 1e-6
                numeric[at] += sign * (span_scores(np, *moved)[0] * weights).sum() / 2e-6
        assert np.allclose(grads[index], numeric, atol=1e-5)


def test_distance_buckets():
    h = np.array([0, 0, 1, 2, 3, 1, 40, 3])
    m = np.array([1, 7, 2, 1, 9, 40, 1, 3 + 16])
    expected = [0, 0, 1, 1 + DISTANCE_CLASSES, 1 + 5, 1 + 10, 1 + DISTANCE_CLASSES + 10, 1 + 8]
    assert list(distance_buckets(h, m)) == expected
    dense = dense_buckets(6)
    assert all(dense[a, b] == distance_buckets(a, b) for a in range(7) for b in range(7))


def test_distance_terms_tell_equal_words_apart():
    X = np.random.default_rng(0).normal(size=(5, W))
    X[2] = X[4]                              # two equal head candidates for word 1, at distance 1 and 3
    model = float64_model(arc_scorer(3, nI=W), X)
    c = model.get_param("c")
    c[:] = 0.0
    c[distance_buckets(2, 1)] = 5.0
    scores = model.predict((X, [np.arange(5)], None))[0]
    assert scores[2, 1] > scores[4, 1]


def test_layers_run_on_the_models_ops():
    model = arc_scorer(3, nI=W)
    assert isinstance(model.ops, NumpyOps)
