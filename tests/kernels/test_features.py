"""Hashed part features: scoring equals the sum of the weights of the listed features, updates add to them."""
import numpy as np
import pytest

from vineparse._kernels.features import PartKind, feature_indices, score_parts, update_parts
from vineparse.cascade.encoding import encode

SENT = encode(["The", "old", "dog", "barked", "at", "the", "cat", "."], ["DT", "JJ", "NN", "VBD", "IN", "DT", "NN", "."])
PARTS = {
    PartKind.ARC: np.array([[0, 4], [4, 3], [3, 1], [4, 8], [7, 2]]),
    PartKind.OUTER: np.array([[7, 0], [2, 1]]),
    PartKind.SIBLING: np.array([[4, 4, 3], [4, 3, 1], [4, 5, 8]]),
    PartKind.GRANDPARENT: np.array([[0, 4, 3], [4, 3, 2]]),
    PartKind.GRAND_SIBLING: np.array([[0, 4, 4, 3], [4, 3, 2, 1]]),
}


@pytest.mark.parametrize("kind", list(PARTS))
def test_score_is_the_sum_of_feature_weights(kind):
    rng = np.random.default_rng(int(kind))
    weights = rng.normal(size=1 << 12)
    parts = PARTS[kind].astype(np.int64)
    scores = score_parts(kind, SENT.tokens, parts, weights)
    indices = feature_indices(kind, SENT.tokens, parts, len(weights))
    np.testing.assert_allclose(scores, [weights[i.astype(np.int64)].sum() for i in indices])
    assert all(len(i) >= 6 for i in indices)


@pytest.mark.parametrize("kind", list(PARTS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blocked_scoring_of_many_parts_matches_the_sum(kind, dtype):
    """Thousands of parts (so the prefetching scorer crosses many blocks), float64 or float32 weights."""
    rng = np.random.default_rng(7 + int(kind))
    weights = rng.normal(size=1 << 14).astype(dtype)
    width = PARTS[kind].shape[1]
    parts = rng.integers(0, len(SENT.tokens), size=(3001, width)).astype(np.int64)
    if kind == PartKind.OUTER:
        parts[:, 1] %= 2
    scores = score_parts(kind, SENT.tokens, parts, weights)
    assert scores.dtype == np.float64 and scores.shape == (len(parts),)
    indices = feature_indices(kind, SENT.tokens, parts, len(weights))
    expected = [weights[i.astype(np.int64)].astype(np.float64).sum() for i in indices]
    np.testing.assert_allclose(scores, expected, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-9)


@pytest.mark.parametrize("kind", list(PARTS))
def test_update_adds_step_per_feature_occurrence(kind):
    parts = PARTS[kind].astype(np.int64)
    weights = np.zeros(1 << 12)
    totals = np.zeros(1 << 12)
    update_parts(kind, SENT.tokens, parts, weights, 0.5, totals, 3.0)
    expected = np.zeros(1 << 12)
    for idx in feature_indices(kind, SENT.tokens, parts, len(weights)):
        np.add.at(expected, idx.astype(np.int64), 0.5)
    np.testing.assert_allclose(weights, expected)
    np.testing.assert_allclose(totals, 3.0 * expected)


def test_features_depend_on_words_tags_and_direction():
    weights = np.random.default_rng(0).normal(size=1 << 16)
    arcs = np.array([[3, 2], [2, 3]], dtype=np.int64)
    forward, backward = score_parts(PartKind.ARC, SENT.tokens, arcs, weights)
    assert forward != backward
    other = encode(["The", "old", "cat", "barked", "at", "the", "cat", "."], ["DT", "JJ", "NN", "VBD", "IN", "DT", "NN", "."])
    assert score_parts(PartKind.ARC, other.tokens, arcs[:1], weights)[0] != forward


def test_long_arcs_have_one_between_feature_per_distinct_tag():
    words = ["w"] * 30
    tags = ["A", "B"] * 15
    sent = encode(words, tags)
    long_arc = feature_indices(PartKind.ARC, sent.tokens, np.array([[1, 30]]), 1 << 20)[0]
    short_arc = feature_indices(PartKind.ARC, sent.tokens, np.array([[1, 2]]), 1 << 20)[0]
    assert len(long_arc) - len(short_arc) == 2 * 2      # tags A and B between, each plain and conjoined


@pytest.mark.parametrize("bad, message", [
    (dict(parts=np.zeros((2, 3), dtype=np.int64)), r"shape \(P, 2\)"),
    (dict(parts=np.array([[0, 9]], dtype=np.int64)), r"outside 0..8"),
    (dict(weights=np.zeros(1000)), "power of two"),
    (dict(kind=9), "unknown part kind"),
])
def test_bad_input(bad, message):
    args = dict(kind=PartKind.ARC, parts=np.zeros((2, 2), dtype=np.int64), weights=np.zeros(1 << 8))
    args.update(bad)
    with pytest.raises(ValueError, match=message):
        score_parts(args["kind"], SENT.tokens, args["parts"], args["weights"])
    with pytest.raises(ValueError, match=r"tokens must have shape \(n \+ 1, 4\)"):
        score_parts(PartKind.ARC, np.zeros((3, 2), dtype=np.uint64), args["parts"][:0], args["weights"])


def _tokens(tags):
    """A token table (n + 1, 4) whose TAG column holds the given hashes (words etc. all 7)."""
    tokens = np.full((len(tags) + 1, 4), 7, dtype=np.uint64)
    tokens[1:, 1] = np.asarray(tags, dtype=np.uint64)
    return tokens


def test_issue15_tags_differing_in_bit_0_are_distinct_between_features():
    """Regression (issue 15): the tag set probed with `tb | 1`, merging tags that differ only in bit 0."""
    tags = [100] + [2, 3] * 8 + [100]                  # 16 words between the arc's ends (the set path)
    tokens = _tokens(tags)
    long_arc = feature_indices(PartKind.ARC, tokens, np.array([[1, len(tags)]]), 1 << 20)[0]
    short_arc = feature_indices(PartKind.ARC, tokens, np.array([[1, 2]]), 1 << 20)[0]
    assert len(long_arc) - len(short_arc) == 2 * 2     # tags 2 and 3, each plain and conjoined


def test_issue15_more_than_256_distinct_tags_between_ends_terminate():
    """Regression (issue 15): more than 256 distinct tags between head and modifier looped forever.
    Now the set is bounded by the feature buffer: the first distinct tags fill it, the rest are dropped."""
    n = 600
    tags = list(range(1000, 1000 + n))                  # every tag distinct
    tokens = _tokens(tags)
    arc = np.array([[1, n]], dtype=np.int64)
    long_arc = feature_indices(PartKind.ARC, tokens, arc, 1 << 20)[0]
    short_arc = feature_indices(PartKind.ARC, tokens, np.array([[1, 2]]), 1 << 20)[0]
    assert len(long_arc) == 512                         # MAX_FEATURES: full, and no hang
    between = (len(long_arc) - len(short_arc)) // 2
    # the same features as a span holding only the first `between` distinct tags
    cut = _tokens(tags[:between + 1] + [tags[-1]])
    expected = feature_indices(PartKind.ARC, cut, np.array([[1, between + 2]]), 1 << 20)[0]
    np.testing.assert_array_equal(np.sort(long_arc[len(short_arc):]),
                                  np.sort(expected[len(short_arc):]))
    weights = np.random.default_rng(0).normal(size=1 << 20)
    assert np.isfinite(score_parts(PartKind.ARC, tokens, arc, weights)).all()
