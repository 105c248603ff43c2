"""Smoothing, word classes and the two models' per-sentence costs."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lexoracle import EXAMPLES
from vineparse.astar.lexicon import WordClasses, signature
from vineparse.astar.model import ModelError, derivation_cost, model_from_dict
from vineparse.astar.smoothing import WittenBell
from vineparse.astar.treebank import binarize


@settings(max_examples=EXAMPLES, deadline=None)
@given(events=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)), max_size=40))
def test_witten_bell_is_a_distribution_per_group(events):
    ptr = np.array([0, 2, 5, 6])                       # groups own outcomes 0-1, 2-4, 5
    wb = WittenBell(3, group_ptr=ptr)
    for word, tag, group in events:
        wb.add(((word, tag), (tag,)), group, int(ptr[group] + word % (ptr[group + 1] - ptr[group])))
    for context in (((0, 0), (0,)), ((9, 9), (9,)), ((1, 2), (2,))):
        table = wb.table(context)
        assert (table > 0).all()
        for g in range(3):
            assert table[ptr[g]:ptr[g + 1]].sum() == pytest.approx(1.0)
            for o in range(ptr[g], ptr[g + 1]):
                assert wb.prob(context, g, o) == pytest.approx(table[o])
    again = WittenBell(3, group_ptr=ptr).load_list(wb.to_list())
    np.testing.assert_allclose(again.table(((0, 0), (0,))), wb.table(((0, 0), (0,))))


def test_witten_bell_by_hand():
    wb = WittenBell(2, vocabulary=10)
    for outcome in "aab":
        wb.add(("ctx",), "g", outcome)
    # Level 1 (group only): c = 3, T = 2: P(a) = (2 + 2/10) / 5.  Level 0 repeats the same counts.
    p1 = (2 + 2 * 0.1) / 5
    assert wb.prob(("ctx",), "g", "a") == pytest.approx((2 + 2 * p1) / 5)
    assert wb.prob(("other",), "g", "z") == pytest.approx((0 + 2 * 0.1) / 5)
    assert wb.prob(("x",), "unseen group", "q") == pytest.approx(0.1)
    with pytest.raises(ValueError, match="expected 1 contexts"):
        wb.add((), "g", "a")
    with pytest.raises(ValueError, match="exactly one of"):
        WittenBell(2)
    with pytest.raises(ValueError, match="table needs grouped"):
        wb.table(("ctx",))


def test_word_classes():
    classes = WordClasses.from_words(["the", "the", "Dog", "Dog", "cat"], min_count=2)
    assert classes("the") == "the" and classes("cat") == "<unk>" and classes("Zebra") == "<unk-cap>"
    assert signature("1987") == "<unk-num>" and signature("well-known") == "<unk-hyph>"
    assert signature("dogs") == "<unk-s>"
    assert WordClasses.from_list(classes.to_list()) == classes
    with pytest.raises(ValueError, match="min_count"):
        WordClasses.from_words([], min_count=0)


def _sentence(tree):
    return [w for w, _ in tree.pos()], [t for _, t in tree.pos()]


def test_cost_tables(factored_parser, nonfactored_parser, ptb_test):
    words, tags = _sentence(next(t for t in ptb_test if 6 <= len(t.leaves()) <= 12))
    n = len(words)
    for parser in (factored_parser, nonfactored_parser):
        g = parser.grammar
        c = parser.costs(words, tags)
        assert c.rule_cost.shape == (g.n_binary, n) and c.unary_cost.shape == (g.n_unary, n)
        for array in (c.rule_cost, c.unary_cost, c.arc_cost, c.stop_cost, c.root_cost):
            assert np.isfinite(array).all() and (array >= 0).all()
        # Rule distributions sum to one per parent (non-factored: for each head word).
        for parent in range(g.n_symbols):
            lo, hi = g.binary_ptr[parent], g.binary_ptr[parent + 1]
            if hi > lo:
                np.testing.assert_allclose(np.exp(-c.rule_cost[lo:hi]).sum(axis=0), 1.0, atol=1e-9)
    c = factored_parser.costs(words, tags)
    assert c.factored and (c.rule_cost == c.cfg_binary[:, None]).all()
    # Head-outward dependency model: continuing and stopping sum to one for each head, side and adjacency.
    model = factored_parser.model
    classes = model.words.classes(words)
    for h in range(n):
        stop_p = model.stops.table(model._contexts(classes, tags, h)).reshape(4, 2)
        np.testing.assert_allclose(stop_p.sum(axis=1), 1.0)


def test_nonfactored_config_cost_matches_sentence_costs(nonfactored_parser, ptb_test):
    words, tags = _sentence(ptb_test[0])
    model, g = nonfactored_parser.model, nonfactored_parser.grammar
    c = nonfactored_parser.costs(words, tags)
    classes = model.words.classes(words)
    rng = np.random.default_rng(0)
    for r in rng.integers(0, g.n_binary, size=20):
        h = int(rng.integers(0, len(words) - 1))
        left_head = g.binary_side[r] == 0
        a = int(rng.integers(h + 1, len(words))) if left_head else int(rng.integers(0, h + 1)) if h > 0 else None
        if a is None or a == h:
            continue
        expected = c.rule_cost[r, h] + c.arc_cost[c.rule_key[r], h, a, 0]
        got = model.config_cost("binary", int(r), (classes[h], tags[h]), (classes[a], tags[a]))
        assert got == pytest.approx(expected)
    u = 3
    assert model.config_cost("unary", u, (classes[1], tags[1])) == pytest.approx(c.unary_cost[u, 1])
    assert model.config_cost("root", 0, None, (classes[2], tags[2])) == pytest.approx(c.root_cost[2])
    with pytest.raises(ValueError, match="unknown configuration kind"):
        model.config_cost("ternary", 0, ("a", "DT"))


def test_gold_derivation_costs_and_model_round_trip(factored_parser, nonfactored_parser, ptb_train):
    tree = ptb_train[0]
    words, tags = _sentence(tree)
    for parser in (factored_parser, nonfactored_parser):
        model = parser.model
        again = model_from_dict(model.to_dict())
        a, b = model.costs(words, tags), again.costs(words, tags)
        np.testing.assert_allclose(a.rule_cost, b.rule_cost)
        np.testing.assert_allclose(a.arc_cost, b.arc_cost)
        cost = derivation_cost(binarize(tree), a, parser.grammar)
        assert 0 < cost < np.inf
    data = factored_parser.model.to_dict()
    with pytest.raises(ModelError, match="version"):
        model_from_dict({**data, "version": 0})
    with pytest.raises(ModelError, match="unknown model kind"):
        model_from_dict({**data, "kind": "neural"})
    with pytest.raises(ValueError, match="rule_cost must have shape"):
        costs = factored_parser.costs(words, tags)
        costs.rule_cost = costs.rule_cost[:, :2]
        costs.check(factored_parser.grammar)
    costs = factored_parser.costs(words, tags)
    costs.arc_cost[0, 0, 1, 0] = -1.0
    with pytest.raises(ValueError, match="negative costs"):
        costs.check(factored_parser.grammar)
