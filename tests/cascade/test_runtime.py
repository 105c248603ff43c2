"""The compiled cascade runtime against the Python reference loop and the per-part feature kernels."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse._kernels.cascade_runtime import CascadeRuntime, Stats
from vineparse._kernels.sparse_scorer import SparseScorer
from vineparse._kernels.features import PartKind, score_parts
from vineparse.cascade import Cascade, CascadeParser, Example, TrainingSettings, train
from vineparse.cascade.encoding import encode
from vineparse.cascade.structures import full_mask
from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import projectivize


@pytest.fixture(scope="module")
def ewt():
    train_set = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu"))[:300]
    dev_set = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))[:120]
    return train_set, dev_set


@pytest.fixture(scope="module", params=[(0, 1, 2, 3), ("local", 3), (2,)], ids=["vine123", "local3", "second"])
def trained(request, ewt):
    train_set, dev_set = ewt
    parser = CascadeParser(orders=request.param, bits=14)
    train(parser, [Example.from_sentence(s) for s in train_set], [Example.from_sentence(s) for s in dev_set],
          TrainingSettings(epochs=1, recall=0.98, vine_recall=0.99), report=lambda message: None)
    return parser, [Example.from_sentence(s).sent for s in dev_set]


def test_runtime_parses_as_the_reference_loop(trained):
    parser, sents = trained
    reference = [Cascade.run(parser, sent) for sent in sents]
    compiled = parser.run_batch(sents)
    assert all(np.array_equal(a, b) for a, b in zip(reference, compiled))


def test_runtime_masks_are_the_reference_input_masks(trained):
    parser, sents = trained
    for k in range(1, len(parser.levels)):
        reference = [Cascade.input_mask(parser, sent, k) for sent in sents[:60]]
        compiled = parser.run_batch(sents[:60], upto=k)
        assert all(np.array_equal(a, b) for a, b in zip(reference, compiled))


def test_statistics_count_kept_and_gold_arcs(trained, ewt):
    parser, sents = trained
    gold = [projectivize(s.heads) for s in ewt[1]]
    stats = parser.new_stats()
    parser.run_batch(sents, gold, stats)
    masks = {k: parser.run_batch(sents, upto=k) for k in range(1, len(parser.levels))}
    for k in range(len(parser.levels) - 1):
        kept = sum(int(m[:, 1:].sum()) for m in masks[k + 1])
        recalled = sum(int(m[g[1:], np.arange(1, len(g))].sum()) for m, g in zip(masks[k + 1], gold))
        assert stats.kept[k] == kept - 0 or stats.fallbacks[k] > 0
        assert stats.gold_kept[k] == recalled or stats.fallbacks[k] > 0
        assert stats.possible[k] == sum(s.n ** 2 for s in sents)
    assert stats.sentences == len(sents)


def _sentence(rng, n, tags=6):
    words = [f"w{rng.integers(0, 8)}" for _ in range(n)]
    return encode(words, [f"T{rng.integers(0, tags)}" for _ in range(n)])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 30), st.integers(1, 4))
def test_sparse_scorer_sums_each_levels_weights_at_the_kernel_features(seed, n, levels):
    """Arcs scored once for every level (with cached sums read back by later calls) and higher-order parts
    equal `score_parts` over each level's own column of the table."""
    rng = np.random.default_rng(seed)
    sent = _sentence(rng, n)
    table = rng.normal(size=(1 << 10, levels)).astype(np.float32)
    scorer = SparseScorer([sent.tokens], table)
    mask = full_mask(n) & (rng.random((n + 1, n + 1)) < 0.7)
    arcs = np.ascontiguousarray(np.argwhere(mask), dtype=np.int64)
    for level in range(levels):
        got = scorer.arc_scores(0, level, mask)
        expected = np.full((n + 1, n + 1), -np.inf)
        if len(arcs):
            expected[arcs[:, 0], arcs[:, 1]] = score_parts(PartKind.ARC, sent.tokens, arcs, table[:, level].copy())
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
        for kind, width in ((PartKind.OUTER, 2), (PartKind.SIBLING, 3), (PartKind.GRANDPARENT, 3),
                            (PartKind.GRAND_SIBLING, 4)):
            rows = rng.integers(0, n + 1, size=(7, width)).astype(np.int64)
            if kind == PartKind.OUTER:
                rows[:, 1] %= 2
            np.testing.assert_allclose(scorer.part_scores(0, level, kind, rows),
                                       score_parts(kind, sent.tokens, rows, table[:, level].copy()), atol=1e-9)


def test_long_arcs_with_hundreds_of_distinct_tags_between():
    """More distinct tags between head and modifier than one block of feature indices holds (regression
    for the fixed 256-slot tag table, issue 15): finite, and equal to the per-part kernel."""
    n = 700
    sent = encode([f"w{i}" for i in range(n)], [f"T{i}" for i in range(n)])
    table = np.random.default_rng(0).normal(size=(1 << 12, 2)).astype(np.float32)
    mask = np.zeros((n + 1, n + 1), dtype=bool)
    mask[1, n] = mask[n, 1] = mask[0, 5] = True
    got = SparseScorer([sent.tokens], table).arc_scores(0, 1, mask)
    arcs = np.array([[0, 5], [1, n], [n, 1]], dtype=np.int64)
    np.testing.assert_allclose(got[arcs[:, 0], arcs[:, 1]], score_parts(PartKind.ARC, sent.tokens, arcs,
                                                                      table[:, 1].copy()))


def test_runtime_rejects_bad_configurations():
    table = np.zeros((16, 2), dtype=np.float32)
    with pytest.raises(ValueError, match=r"shape \(2\^k, levels\)"):
        SparseScorer([], np.zeros((12, 2), dtype=np.float32))
    with pytest.raises(ValueError, match=r"shape \(n \+ 1, 4\)"):
        SparseScorer([np.zeros((3, 2), dtype=np.uint64)], table)
    with pytest.raises(ValueError, match="the last 1-3"):
        CascadeRuntime([0, 0], [0.0], [0], 5)
    with pytest.raises(ValueError, match="as many alphas"):
        CascadeRuntime([0, 1], [], [], 5)
    runtime = CascadeRuntime([1, 2], [0.0], [0], 5)
    with pytest.raises(ValueError, match="gold trees"):
        runtime.run(SparseScorer([_sentence(np.random.default_rng(0), 3).tokens], table), gold=[])
    with pytest.raises(ValueError, match="stats for 3 levels"):
        runtime.run(SparseScorer([], table), stats=Stats(3))


def test_parse_batch_threads_and_empty_sentences(trained, ewt):
    parser, sents = trained
    batch = [(s.words, list(s.xpos), list(s.upos)) for s in ewt[1][:40]] + [([], []), (["Hi"], ["UH"])]
    one = parser.parse_batch(batch)
    assert all(np.array_equal(a, b) for a, b in zip(one, parser.parse_batch(batch, n_threads=2)))
    assert np.array_equal(one[-2], [-1]) and np.array_equal(one[-1], [-1, 0])
    assert all(np.array_equal(a, parser.parse(*s)) for a, s in zip(one[:5], batch[:5]))


def test_a_sentence_beyond_the_memory_limit_is_refused_before_allocating(trained):
    from vineparse.kernels import KernelSizeError, set_memory_limit
    parser, sents = trained
    words = ["w"] * 400
    previous = set_memory_limit("4M")
    try:
        with pytest.raises(KernelSizeError, match="sentence 1: its 400 words need about"):
            parser.parse_batch([(["a"], ["DT"]), (words, ["NN"] * 400)])
    finally:
        set_memory_limit(previous)
