"""The lowering model (vineparse/cascade/lowering.py): its candidates against their definition on every
projective tree of up to 5 words and on random larger ones, trees out for any weights, learning on a treebank,
saving and bad input."""
import itertools

import numpy as np
import pytest
import srsly

from vineparse.cascade.encoding import encode, encode_sentence
from vineparse._kernels.lowering import best_options, lowering_options
from vineparse.cascade.lowering import STAY, LoweringModel, candidates
from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import is_projective, nonprojective_arc_mask, projectivize, validate_heads


def projective_trees(n):
    """Every projective tree of n words (several root children allowed)."""
    for body in itertools.product(range(n + 1), repeat=n):
        heads = np.array((-1,) + body, dtype=np.int64)
        try:
            validate_heads(heads)
        except ValueError:
            continue
        if is_projective(heads):
            yield heads


def random_projective_tree(rng, n):
    heads = np.array([-1] + [int(rng.integers(0, m)) if m > 1 else 0 for m in range(1, n + 1)], dtype=np.int64)
    order = rng.permutation(n) + 1                     # relabel the words of a random recursive tree
    relabelled = np.full(n + 1, -1, dtype=np.int64)
    relabelled[order] = np.where(heads[1:] > 0, order[np.maximum(heads[1:], 1) - 1], 0)
    return projectivize(relabelled)


def candidates_by_definition(heads):
    """(m, d, depth) where d is one or two arcs below m's head (not the root), outside m's subtree, and the arc
    d -> m is non-projective once m hangs from d."""
    n = heads.size - 1

    def ancestors(word):
        out = []
        while word > 0:
            word = heads[word]
            out.append(word)
        return out

    found = []
    for m in range(1, n + 1):
        h = heads[m]
        if h == 0:
            continue
        for d in range(1, n + 1):
            if d in (m, h) or m in ancestors(d):
                continue
            up = ancestors(d)
            depth = up.index(h) + 1 if h in up else None
            if depth is None or depth > 2:
                continue
            moved = heads.copy()
            moved[m] = d
            if nonprojective_arc_mask(moved)[m]:
                found.append((m, d, depth))
    return sorted(found, key=lambda t: (t[0], abs(t[1] - t[0]), t[1]))


def as_triples(heads):
    return [tuple(int(v) for v in t) for t in zip(*candidates(heads))]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_candidates_are_the_definition_on_every_projective_tree(n):
    trees = 0
    for heads in projective_trees(n):
        assert as_triples(heads) == candidates_by_definition(heads), heads.tolist()
        trees += 1
    assert trees > 0


@pytest.mark.parametrize("seed", range(5))
def test_candidates_are_the_definition_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(40):
        heads = random_projective_tree(rng, int(rng.integers(6, 16)))
        expected = candidates_by_definition(heads)
        assert as_triples(heads) == expected, heads.tolist()
        found += len(expected)
    assert found > 0


def sentence_tokens(n, rng):
    words = [f"w{int(k)}" for k in rng.integers(0, 5, n)]
    tags = [f"T{int(k)}" for k in rng.integers(0, 3, n)]
    return encode(words, tags).tokens, [f"l{int(k)}" for k in rng.integers(0, 4, n)]


@pytest.mark.parametrize("seed", range(5))
def test_any_weights_give_a_tree_moving_words_only_to_their_candidates(seed):
    rng = np.random.default_rng(seed)
    model = LoweringModel(bits=10)
    moved_any = 0
    for _ in range(40):
        n = int(rng.integers(1, 20))
        heads = random_projective_tree(rng, n)
        tokens, labels = sentence_tokens(n, rng)
        model.weights = rng.normal(size=model.weights.size).astype(np.float32)
        lowered = model.lower(tokens, heads, labels)
        validate_heads(lowered)
        allowed = set(zip(*candidates(heads)[:2]))
        for m in np.flatnonzero(lowered != heads):
            assert (m, lowered[m]) in allowed
            moved_any += 1
        words, starts, targets, rows = model.options(tokens, heads, labels)
        assert (targets[starts[:-1]] == STAY).all()                        # each word's STAY first
        m, d, _ = candidates(heads)
        assert list(zip(np.repeat(words, np.diff(starts) - 1), targets[targets != STAY])) == list(zip(m, d))
        assert rows.max(initial=0) < model.weights.size and rows.min(initial=0) >= -1
        # the kernel's choice against scores summed here: the first best option of each word, its margin
        best, margin = best_options(model.weights, rows, starts)
        scores = np.where(rows >= 0, model.weights[np.maximum(rows, 0)].astype(np.float64), 0.0).sum(axis=1)
        for k in range(words.size):
            group = scores[starts[k]:starts[k + 1]]
            assert best[k] == starts[k] + int(np.argmax(group))
            assert margin[k] == pytest.approx(group.max() - group[0], abs=1e-4)
    assert moved_any > 0


def test_zero_weights_keep_every_arc():
    rng = np.random.default_rng(0)
    heads = random_projective_tree(rng, 12)
    tokens, labels = sentence_tokens(12, rng)
    np.testing.assert_array_equal(LoweringModel(bits=8).lower(tokens, heads, labels), heads)


@pytest.fixture(scope="module")
def german():
    """UD German-GSD dev (9.5% of its sentences non-projective): encoded, projectivized and annotated."""
    sentences = read_conllu(corpus_path("ud-multi", "de_gsd", "de_gsd-ud-dev.conllu"))
    return [(encode_sentence(s, "upos").tokens, projectivize(s.heads), np.asarray(s.heads), list(s.labels))
            for s in sentences]


def test_learns_where_the_lifted_arcs_of_a_treebank_belong(german):
    """Trained on 600 sentences of German, it puts most of their lifted words back and few others."""
    model = LoweringModel(bits=18)
    counts = model.fit(german[:600], epochs=5)
    assert counts["lifted"] > 20 and counts["covered"] >= 0.9 * counts["lifted"]
    assert counts["decisions"] > 1000
    right = wrong = 0
    for tokens, heads, gold, labels in german[:600]:
        lowered = model.lower(tokens, heads, labels)
        moved = lowered != heads
        right += int((moved & (lowered == gold)).sum())
        wrong += int((moved & (lowered != gold)).sum())
    assert right >= 0.8 * counts["covered"] and wrong <= 0.1 * counts["lifted"], (right, wrong, counts)


def test_round_trips_through_msgpack(german, tmp_path):
    model = LoweringModel(bits=16)
    model.fit(german[:200], epochs=2)
    path = tmp_path / "lowering.msgpack"
    srsly.write_msgpack(path, model.to_dict())
    loaded = LoweringModel.from_dict(srsly.read_msgpack(path))
    np.testing.assert_array_equal(loaded.weights, model.weights)
    for tokens, heads, _, labels in german[200:260]:
        np.testing.assert_array_equal(loaded.lower(tokens, heads, labels), model.lower(tokens, heads, labels))


@pytest.mark.parametrize("data, message", [
    ("weights", "must be a map of bits, indices and values"),
    ({"bits": 8, "indices": [1]}, "must be a map of bits, indices and values"),
    ({"bits": 99, "indices": [], "values": []}, r"bits must be an integer in 1\.\.26, got 99"),
    ({"bits": True, "indices": [], "values": []}, "bits must be an integer"),
    ({"bits": 4, "indices": [16], "values": [1.0]}, r"weight indices outside 0\.\.15"),
    ({"bits": 4, "indices": [1, 2], "values": [1.0]}, "2 weight indices but 1 values"),
    ({"bits": 4, "indices": [1], "values": [float("nan")]}, "non-finite weights"),
])
def test_malformed_saved_models_are_refused(data, message):
    with pytest.raises(ValueError, match=message):
        LoweringModel.from_dict(data)


def test_mismatched_sentences_are_refused():
    tokens = encode(["a", "b", "c"], ["X", "Y", "Z"]).tokens
    model = LoweringModel(bits=4)
    with pytest.raises(ValueError, match="3 words but 2 labels and 3 tokens"):
        model.lower(tokens, [-1, 0, 1, 2], ["x", "y"])
    with pytest.raises(ValueError, match="a projectivized tree of 3 words for an annotated one of 2"):
        model.fit([(tokens, [-1, 0, 1, 2], [-1, 0, 1], ["x", "y", "z"])])


def test_the_kernels_check_their_input():
    tokens = encode(["a", "b", "c"], ["X", "Y", "Z"]).tokens
    labels = np.zeros(4, dtype=np.uint64)
    heads = np.array([-1, 0, 1, 1])
    with pytest.raises(ValueError, match="power of two"):
        lowering_options(tokens, heads, labels, 12)
    with pytest.raises(ValueError, match=r"tokens must be \(4, 4\)"):
        lowering_options(tokens[:3], heads, labels, 16)
    with pytest.raises(ValueError, match="label hashes must have 4 entries"):
        lowering_options(tokens, heads, labels[:3], 16)
    with pytest.raises(ValueError, match="heads must be a head array"):
        lowering_options(tokens, np.array([-1, 0, 5, 1]), labels, 16)
    rows = np.zeros((2, 3), dtype=np.int64)
    with pytest.raises(ValueError, match="starts must run from 0"):
        best_options(np.zeros(4, dtype=np.float32), rows, np.array([0, 1]))
    with pytest.raises(IndexError, match="feature row 9 outside a table of 4 weights"):
        best_options(np.zeros(4, dtype=np.float32), rows + 9, np.array([0, 2]))
