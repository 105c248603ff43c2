"""Part scores of a sentence for the cascade and the training losses: brute-force oracles (every projective
tree or vine structure of a tiny sentence) for the losses' maximisations and the tree CRF, the part cache,
and the recall tracker against the masks it predicts."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vineparse.cascade.levels import Level
from vineparse.cascade.objective import ALPHA_GRID
from vineparse.cascade.structures import make_structure
from vineparse.pipeline import vine
from vineparse.pipeline.levels import check_orders
from vineparse.pipeline.objective import hinge_loss, tree_crf_loss, vine_hinge_loss
from vineparse.pipeline.parts import (GRAND_SIBLING, GRANDPARENT, NEURAL_SCORER, SIBLING, PartTable,
                                      SentenceScores)
from vineparse.pipeline.scorers import N_BUCKETS, PART_ROLES
from vineparse.pipeline.thresholds import RecallTracker
from oracle import projective_trees

P_WIDTH = 3


def random_sentence(seed, n, cache=True, dtype=np.float32):
    """Scores of an n-word sentence: random dense arcs and outer scores, random part tables."""
    rng = np.random.default_rng(seed)
    tables = {kind: PartTable(rng.normal(size=(n + 1, roles * P_WIDTH)).astype(dtype),
                              np.arange(roles, dtype=np.int64) * P_WIDTH,
                              rng.normal(size=P_WIDTH).astype(dtype), rng.normal(size=P_WIDTH).astype(dtype),
                              rng.normal(size=(N_BUCKETS, P_WIDTH)).astype(dtype))
              for kind, roles in PART_ROLES.items()}
    return SentenceScores(rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, 2)), tables, np.arange(n + 1),
                          cache=cache)


@given(st.integers(0, 10_000), st.integers(1, 8))
def test_part_scores_do_not_depend_on_the_cache(seed, n):
    rng = np.random.default_rng(seed)
    cached = random_sentence(seed, n)
    for kind, width in ((SIBLING, 3), (GRANDPARENT, 3), (GRAND_SIBLING, 4)):
        for _ in range(3):
            rows = rng.integers(0, n + 1, size=(rng.integers(0, 12), width))
            expected = random_sentence(seed, n, cache=False).part_scores(kind, rows)
            assert np.allclose(cached.part_scores(kind, rows), expected)


def test_part_gradients_merge_repeated_parts():
    sent = random_sentence(0, 5)
    sent.add_gradient(SIBLING, np.array([[1, 1, 2], [1, 2, 3]]), [1.0, 2.0])
    sent.add_gradient(SIBLING, np.array([[1, 2, 3], [0, 0, 4]]), [-2.0, 0.5])
    rows, gradient = sent.part_gradients(SIBLING)
    assert sorted(map(tuple, rows)) == [(0, 0, 4), (1, 1, 2)]
    assert dict(zip(map(tuple, rows), gradient)) == {(0, 0, 4): 0.5, (1, 1, 2): 1.0}
    assert sent.part_gradients(GRANDPARENT) is None


def neural_level(order, band=5, head_cap=None):
    return Level(make_structure(order, band), NEURAL_SCORER, head_cap)


def tree_score(level, sent, heads):
    return level.score(sent, np.asarray(heads))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("order", [1, 3])
def test_hinge_loss_is_the_brute_force_cost_augmented_margin(n, order):
    for seed in range(4):
        sent = random_sentence(seed, n)
        level = neural_level(order)
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


@pytest.mark.parametrize("orders, message", [([], "at least one"), ([2, 1], "increasing"), ([0], "last level"),
                                             ([0, 5], "unknown"), ([True, 2], "unknown")])
def test_check_orders_names_the_problem(orders, message):
    with pytest.raises(ValueError, match=message):
        check_orders(orders)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_vine_hinge_loss_is_the_brute_force_cost_augmented_margin(n):
    band = 2
    for seed in range(4):
        sent = random_sentence(seed, n)
        level = neural_level(0, band)
        trees = [np.asarray(t) for t in projective_trees(n)]
        gold_heads, gold_attach = level.structure.vine_structure(trees[seed % len(trees)])
        # every vine structure: the vine kernel's best under random part scores, over many draws, would miss
        # some; enumerate instead every (short head or label) assignment that forms a vine structure
        best = -np.inf
        for structure in vine_structures(n, band):
            heads, attach = structure
            wrong = ((heads[1:] != gold_heads[1:]) | (attach[1:] != gold_attach[1:])).sum()
            best = max(best, level.score(sent, heads, attach) + wrong)
        expected = best - level.score(sent, gold_heads, gold_attach)
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


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_vine_structure_from_max_marginals_is_the_decoded_one(n):
    """The prediction shortcut: the best vine structure read off the max-marginals, and the one-sentence
    test on them, agree with the vine's decode (and with brute force over every vine structure)."""
    from vineparse import kernels
    band = 2
    for seed in range(6):
        def fresh():
            sent = random_sentence(seed, n, cache=False)
            if seed % 3 == 0:              # a strong root row: often more than one ROOT word
                sent.dense_arcs()[0] += 3.0
            return sent
        level = neural_level(0, band)
        decoded = level.decode(fresh())
        sent = fresh()
        found = level.max_marginals(sent)
        for given in (None, found):        # computed here, or handed on as prediction does
            heads, attach = vine.best_structure(sent, band, given)
            assert np.array_equal(heads, decoded[0]) and np.array_equal(attach, decoded[1])
        best = max(level.score(sent, h, a) for h, a in vine_structures(n, band))
        assert level.score(sent, heads, attach) == pytest.approx(best)
        if vine.at_most_one_root(level.max_marginals(fresh())):
            assert np.count_nonzero(decoded[1] == kernels.ATTACH_ROOT) <= 1
        assert not vine.at_most_one_root(None)             # not known


@given(st.integers(0, 10_000), st.lists(st.integers(1, 14), min_size=1, max_size=5), st.integers(1, 4))
def test_batched_vine_max_marginals_are_those_of_each_sentence(seed, lengths, band):
    """The batched vine pass of prediction computes exactly what the vine level computes per sentence
    (sentences longer than the band included)."""
    level = neural_level(0, band)
    batch = [random_sentence(seed + i, n, cache=False) for i, n in enumerate(lengths)]
    for sent, (best, arc_mm, outer_mm) in zip(batch, vine.max_marginals_batch(batch, band)):
        expected = level.max_marginals(sent)
        assert best == expected[0]
        assert np.array_equal(arc_mm, expected[1]) and np.array_equal(outer_mm, expected[2])


def test_structure_from_max_marginals_gives_up_on_ties():
    arc_mm = np.full((3, 3), -np.inf)
    arc_mm[0, 1] = arc_mm[0, 2] = arc_mm[1, 2] = arc_mm[2, 1] = 1.0     # two best structures
    outer_mm = np.full((3, 2), -np.inf)
    assert vine.structure_from_max_marginals(1.0, arc_mm, outer_mm) is None


def brute_force_prefers_root(scores, n, window, margin):
    return [scores[0, m] > margin + max([scores[h, m] for h in range(max(1, m - window), min(n, m + window) + 1)
                                         if h != m], default=-np.inf) for m in range(1, n + 1)]


@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 5), st.sampled_from([0.0, 0.3, 1.5]))
def test_prefers_root_compares_with_every_head_in_the_window(seed, n, window, margin):
    sent = random_sentence(seed, n)
    words = np.arange(1, n + 1)
    assert list(sent.prefers_root(words, window, margin)) == brute_force_prefers_root(sent.dense_arcs(), n, window,
                                                                                      margin)
    assert list(sent.prefers_root(words[::-1], window, margin)) == list(sent.prefers_root(words, window, margin))[::-1]


@given(st.integers(0, 10_000), st.lists(st.integers(1, 12), max_size=4), st.sampled_from([1, 2, 5, 64]),
       st.sampled_from([0.0, 0.3, 1.5]))
def test_may_split_when_two_words_prefer_the_root(seed, lengths, window, margin):
    from vineparse.pipeline.parts import may_split
    sentences = [random_sentence(seed + i, n) for i, n in enumerate(lengths)]
    for i, sent in enumerate(sentences):        # roots preferred more often
        sent.dense_arcs()[0, 1:] += np.random.default_rng(seed + i).uniform(0.0, 3.0)
    expected = [sum(brute_force_prefers_root(s.dense_arcs(), s.n, window, margin)) >= 2 for s in sentences]
    assert list(may_split(sentences, window, margin)) == expected


def test_root_tests_reject_what_they_cannot_read():
    from vineparse._kernels.roots import prefers_root, root_counts
    with pytest.raises(ValueError, match="window"):
        root_counts([np.zeros((3, 3))], 0, 0.0)
    with pytest.raises(ValueError, match=r"scores\[1\] must have shape"):
        root_counts([np.zeros((3, 3)), np.zeros((3, 4))], 2, 0.0)
    with pytest.raises(ValueError, match="outside 1..2"):
        prefers_root(np.zeros((3, 3)), [1, 3], 2, 0.0)
    with pytest.raises(ValueError, match="window"):
        prefers_root(np.zeros((3, 3)), [1], 0, 0.0)
    assert prefers_root(np.zeros((3, 3)), [], 2, 0.0).shape == (0,)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_tree_crf_loss_is_the_brute_force_log_loss(n):
    """log Z - s(gold) over every projective single-root tree, and the gradient: marginals - gold."""
    trees = [np.asarray(t) for t in projective_trees(n)]
    trees = [t for t in trees if (t[1:] == 0).sum() == 1]
    for seed in range(3):
        sent = random_sentence(seed, n)
        scores = sent.dense_arcs()
        m = np.arange(1, n + 1)
        totals = np.array([scores[t[1:], m].sum() for t in trees])
        log_z = np.logaddexp.reduce(totals)
        gold = trees[seed % len(trees)]
        assert tree_crf_loss(sent, gold) == pytest.approx(log_z - scores[gold[1:], m].sum())
        marginals = np.zeros((n + 1, n + 1))
        for t, total in zip(trees, totals):
            marginals[t[1:], m] += np.exp(total - log_z)
        marginals[gold[1:], m] -= 1.0
        assert np.allclose(sent.d_arcs, marginals, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 14), st.sampled_from([None, 2, 4]))
def test_recall_tracker_agrees_with_the_masks(seed, n, cap):
    """At every a of the grid, the gold arcs and arcs the tracker counts as surviving are those the level's
    own `prune_mask` keeps (first order with a head cap, and the vine). A max-marginal within 1e-9 of t_a is
    a tie that rounding may send either way: such grid values are not compared."""
    from vineparse.cascade.thresholds import threshold
    rng = np.random.default_rng(seed)
    gold = np.asarray(projective_trees(min(n, 6))[0]) if n <= 6 else None
    if gold is None:
        gold = np.concatenate([[-1, 0], np.arange(1, n)])            # a chain
    n = len(gold) - 1
    for level in (neural_level(1, 5, cap), neural_level(0, 2)):
        sent = random_sentence(seed, n)
        best, arc_mm, outer_mm = level.max_marginals(sent, None)
        values = arc_mm if outer_mm is None else np.concatenate([arc_mm.ravel(), outer_mm[1:].ravel()])
        finite = values[np.isfinite(values)]

        def tie(alpha):
            return bool(np.any(np.abs(finite - threshold(best, arc_mm, outer_mm, alpha)) < 1e-9))

        tracker = RecallTracker(1, decay=1.0)
        tracker.observe(0, level, best, arc_mm, outer_mm, gold)
        survive = np.cumsum(tracker.gold[0][::-1])[::-1][1:]
        kept = np.cumsum(tracker.kept[0][::-1])[::-1][1:]
        for i in rng.choice(len(ALPHA_GRID), size=8, replace=False):
            alpha = ALPHA_GRID[i]
            if tie(alpha):
                continue
            mask = level.prune_mask(best, arc_mm, outer_mm, alpha)
            assert survive[i] == mask[gold[1:], np.arange(1, n + 1)].sum(), (level.name, alpha)
            assert kept[i] == mask[:, 1:].sum(), (level.name, alpha)
        row = tracker.rows(0.9)[0]
        if not tie(row["alpha"]):
            mask = level.prune_mask(best, arc_mm, outer_mm, row["alpha"])
            assert row["gold_recall"] == pytest.approx(mask[gold[1:], np.arange(1, n + 1)].sum() / n)
        assert row["gold_recall"] >= 0.9 or row["alpha"] == ALPHA_GRID[0]


@given(st.integers(0, 10_000), st.integers(1, 30))
def test_sibling_rows_by_their_definition(seed, n):
    """(h, s, m) for every arc, s the modifier of h nearest to m between h and m (h itself if none), in the
    order the sparse trainer has always summed them: per head, right modifiers nearest first, then left."""
    from vineparse.cascade.structures import sibling_rows
    rng = np.random.default_rng(seed)
    heads = np.concatenate([[-1], [rng.integers(0, n + 1) for _ in range(n)]])     # any head array
    heads[1:][heads[1:] == np.arange(1, n + 1)] = 0
    expected = []
    for h in range(n + 1):
        children = [m for m in range(1, n + 1) if heads[m] == h]
        for side in ([m for m in children if m > h], [m for m in children if m < h][::-1]):
            previous = h
            for m in side:
                expected.append((h, previous, m))
                previous = m
    assert list(map(tuple, sibling_rows(heads))) == expected
