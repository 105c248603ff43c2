"""The last level's MIRA step: cost-augmented decoding against brute force, the Hamming margin after the step,
the feature difference against a direct count, and MIRA training on a slice of EWT."""
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from vineparse._kernels.features import feature_indices
from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.cascade.encoding import encode
from vineparse.cascade.evaluation import evaluate
from vineparse.cascade.parser import make_level
from vineparse.cascade.training import _feature_difference, _mira_step
from vineparse.corpus import corpus_path, read_conllu
from oracle import projective_trees

from .conftest import train_cascade

WORDS = ["She", "gave", "the", "old", "dog"]
TAGS = ["PRP", "VBD", "DT", "JJ", "NN"]
GOLD = np.array([-1, 2, 0, 5, 5, 2])


def random_level(order, seed):
    level = make_level(order, 12, 5)
    level.scorer.weights = np.random.default_rng(seed).normal(size=level.scorer.weights.shape)
    return level


def hamming(tree):
    return int(np.count_nonzero(np.asarray(tree)[1:] != GOLD[1:]))


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_mira_step_decodes_with_the_hamming_cost_and_meets_its_margin(order, seed):
    sent = encode(WORDS, TAGS)
    level = random_level(order, seed)
    augmented = {tuple(t): level.score(sent, t) + hamming(t) for t in projective_trees(len(WORDS))}
    best = max(augmented.values())
    cost = np.ones((6, 6))
    cost[GOLD[1:], np.arange(1, 6)] = 0.0
    predicted = level.decode(replace(sent, cost=cost), None)
    assert augmented[tuple(predicted)] == pytest.approx(best)      # the cost-augmented argmax
    ex = Example(sent, GOLD, GOLD)
    updated = _mira_step(level, ex, None, c=1e9)
    if tuple(predicted) == tuple(GOLD):
        assert updated == 0
        return
    assert updated == 1           # afterwards gold beats the old prediction by exactly its Hamming loss
    margin = level.score(sent, GOLD) - level.score(sent, predicted)
    assert margin == pytest.approx(hamming(predicted), abs=1e-6)


def test_mira_step_is_capped_by_c():
    sent = encode(WORDS, TAGS)
    level = random_level(3, 0)
    before = level.scorer.weights.copy()
    assert _mira_step(level, Example(sent, np.array([-1, 0, 1, 2, 3, 4]), None), None, c=1e-3) == 1
    assert 0 < np.abs(level.scorer.weights - before).max() <= 1e-3 * 10       # a feature repeats at most a few times


def test_feature_difference_counts_every_feature():
    sent = encode(WORDS, TAGS)
    level = random_level(3, 1)
    other = np.array([-1, 0, 1, 2, 3, 4])
    counts = Counter()
    for heads, sign in ((GOLD, 1), (other, -1)):
        for kind, rows in level.tree_parts(heads):
            for ids in feature_indices(kind, sent.tokens, np.ascontiguousarray(rows), len(level.scorer.weights)):
                for i in ids:
                    counts[int(i)] += sign
    keys, difference = _feature_difference(level, sent, GOLD, other)
    assert dict(zip(keys.tolist(), difference.tolist())) == dict(counts)
    assert np.dot(difference, difference) == sum(v * v for v in counts.values())
    assert float(np.dot(level.scorer.weights[keys], difference)) == pytest.approx(
        level.score(sent, GOLD) - level.score(sent, other))
    assert not _feature_difference(level, sent, GOLD, GOLD)[1].any()


def test_mira_training_learns():
    train_set = [Example.from_sentence(s) for s in
                 read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu"))[:300]]
    dev = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))[:100]
    parser = CascadeParser(orders=(1,), bits=16)
    train(parser, train_set, [], TrainingSettings(epochs=2, final="mira"), report=lambda message: None)
    assert evaluate(parser, dev)["uas"] > 60.0       # an untrained parser scores about 10


def test_unknown_final_update_is_rejected():
    with pytest.raises(ValueError, match="final"):
        TrainingSettings(final="pegasos")


def test_first_order_recall_sets_the_first_order_levels_target_only(ewt):
    """`first_order_recall` is the first-order pruning level's dev recall target; the vine and the later
    levels keep theirs."""
    train_sents, dev_sents = ewt[0][:200], ewt[1]
    rows = {}
    for first in (None, 0.99):
        _, summary = train_cascade(train_sents, dev_sents, orders=(0, 1, 2, 3), bits=14, epochs=1, recall=0.9,
                                   vine_recall=0.98, first_order_recall=first, labels=False)
        rows[first] = {row["level"]: row for row in summary}
    for first in (None, 0.99):
        assert rows[first]["vine"]["dev_recall"] >= 0.98
        assert rows[first]["second"]["dev_recall"] >= 0.9
    assert rows[0.99]["first"]["dev_recall"] >= 0.99 > rows[None]["first"]["dev_recall"] >= 0.9
    assert rows[0.99]["first"]["dev_kept_share"] > rows[None]["first"]["dev_kept_share"]
    assert rows[0.99]["vine"] == {**rows[None]["vine"], "train_seconds": rows[0.99]["vine"]["train_seconds"]}


def test_jackknife_masks_come_from_pruning_levels_trained_without_the_sentence(ewt):
    """With F folds, sentence i's training masks are those of pruning levels trained (with the same settings)
    on the sentences outside fold i mod F, so no level prunes a sentence it learned from."""
    from vineparse.cascade.training import _training_masks
    examples = [Example.from_sentence(s) for s in ewt[0][:90]]
    dev = [Example.from_sentence(s) for s in ewt[1][:60]]
    settings = TrainingSettings(epochs=1, recall=0.95, jackknife=3, labels=False)
    parser = CascadeParser(orders=(0, 1, 3), bits=14)
    masks = _training_masks(parser, examples, dev, settings, lambda message: None)
    assert masks(0) == [None] * 90
    for f in range(3):
        held_out = [ex for i, ex in enumerate(examples) if i % 3 == f]
        copy = CascadeParser(orders=(0, 1, 3), bits=14)
        summary = train(copy, [ex for i, ex in enumerate(examples) if i % 3 != f], dev,
                        replace(settings, jackknife=0), lambda message: None, pruning_only=True)
        assert [row["level"] for row in summary] == ["vine", "first"]
        assert not copy.levels[2].scorer.weights.any()              # pruning_only: the last level untouched
        for k in (1, 2):
            expected = copy.run_batch([ex.sent for ex in held_out], upto=k)
            assert all(np.array_equal(a, b) for a, b in zip(masks(k)[f::3], expected))
    own = parser.run_batch([ex.sent for ex in examples], upto=1)        # the untrained parser's own masks differ
    assert not all(np.array_equal(a, b) for a, b in zip(masks(1), own))


def test_jackknife_trains_a_working_cascade_and_rejects_one_fold(ewt):
    parser, summary = train_cascade(ewt[0][:150], ewt[1][:60], orders=(0, 1, 2), bits=14, epochs=1,
                                    recall=0.98, jackknife=2, labels=False)
    assert [row["level"] for row in summary] == ["vine", "first", "second"]
    result = evaluate(parser, ewt[1][:60])
    assert result["uas"] > 60
    with pytest.raises(ValueError, match="at least 2 folds"):
        TrainingSettings(jackknife=1)
