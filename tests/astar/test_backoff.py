"""The back-off grammar (issue 15): every sentence gets a parse, the search stays exact on it, and sentences
the treebank grammar covers are untouched.

Brute force: tiny random grammars extended by ``BackoffGrammar``, every derivation enumerated
(lexoracle.py): every tag sequence (the unknown tag included) now has a derivation, exhaustive CKY and A*
with every heuristic return the enumerated optimum, and glued trees have one derivation each. Real parsers:
sentences with unknown tags or without a treebank derivation parse, with the optimum of the back-off
grammar, their own tags and words; ``backoff=False`` keeps the old errors.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lexoracle import EXAMPLES, enumerate_derivations, random_costs, random_grammar
from test_search import exhaustive, projections, search_finds_the_best
from vineparse.astar import AStarParser, ParseError
from vineparse.astar.backoff import UNKNOWN_TAG, BackoffGrammar
from vineparse.astar.grammar import GrammarError
from vineparse.astar.heuristics import outside_estimates
from vineparse.astar.model import derivation_cost, outcome_costs
from vineparse.astar.parser import derivation_from_arrays, rule_index
from vineparse.astar.treebank import debinarize, derivation_dependencies
from vineparse.trees import validate_heads

TOL = 1e-9


class StubModel:
    """What BackoffGrammar needs of a model: its grammar and an arc key per (argument, head side)."""

    def __init__(self, grammar, keys=3):
        self.grammar = grammar
        self.keys = keys

    def arc_key(self, symbol, head_side):
        return (len(symbol[1]) + head_side) % self.keys


def backoff_case(seed, n, factored, density=0.2):
    rng = np.random.default_rng(seed)
    base = random_grammar(rng, density=density)
    backoff = BackoffGrammar(StubModel(base, keys=1 if factored else 3), cost=float(rng.uniform(0.5, 4)))
    base_costs = random_costs(rng, base, n, factored=factored).check(base)
    costs = backoff.costs(base_costs).check(backoff.grammar)
    tags = [base.tags["T0"], base.tags["T1"], backoff.unknown]
    tag_ids = np.array([tags[k] for k in rng.integers(0, 3, size=n)], dtype=np.int32)
    return rng, base, backoff, base_costs, costs, tag_ids


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), factored=st.booleans())
def test_backoff_search_against_brute_force(seed, n, factored):
    _, base, backoff, _, costs, tag_ids = backoff_case(seed, n, factored)
    g = backoff.grammar
    rules = rule_index(g)
    oracle = enumerate_derivations(g, costs, tag_ids)
    assert oracle["count"] > 0                       # every tag sequence has a parse
    lexical, (best, inside, _) = exhaustive(rules, g, costs, tag_ids)
    assert best == pytest.approx(oracle["best"], abs=TOL)
    derivation = derivation_from_arrays(lexical.derivation(inside), g)
    assert derivation_cost(derivation, costs, g) == pytest.approx(best, abs=TOL)
    for name, projection in projections(g, costs).items():
        h = outside_estimates(name, projection, rules, tag_ids)
        assert h.projection_cost <= oracle["best"] + TOL
        found = search_finds_the_best(rules, costs, h, tag_ids, g, oracle["best"], name)
        words = [f"w{k}" for k in range(n)]
        tree = debinarize(found, words)
        assert tree.leaves() == words
        assert [t for _, t in tree.pos()] == [g.symbols[t][1] for t in tag_ids]
        validate_heads(np.asarray(derivation_dependencies(found)))


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), factored=st.booleans())
def test_backoff_keeps_the_treebank_derivations_and_their_costs(seed, n, factored):
    """Every derivation of the treebank grammar is one of the back-off grammar at the same cost; the
    back-off grammar adds derivations, never removes or reprices one."""
    rng, base, backoff, base_costs, costs, _ = backoff_case(seed, n, factored)
    tag_ids = rng.integers(0, 2, size=n).astype(np.int32)          # known tags: same ids in both grammars
    before = enumerate_derivations(base, base_costs, tag_ids)
    after = enumerate_derivations(backoff.grammar, costs, tag_ids)
    assert after["count"] >= max(before["count"], 1)
    for item, value in before["inside"].items():
        assert after["inside"][item] <= value + TOL
    if before["count"]:
        assert after["best"] <= before["best"] + TOL
    g = backoff.grammar
    assert g.binary_rules[:base.n_binary] == base.binary_rules
    for u, rule in enumerate(base.unary_rules):
        assert g.unary_rules[backoff.unary_map[u]] == rule
        np.testing.assert_array_equal(costs.unary_cost[backoff.unary_map[u]], base_costs.unary_cost[u])
    np.testing.assert_array_equal(costs.rule_cost[:base.n_binary], base_costs.rule_cost)
    assert costs.factored == base_costs.factored


def test_glued_trees_have_one_derivation_each():
    """With no treebank rule above the tags, a sentence of n words has exactly n glued parses (one per head
    word): the head-outward glue order leaves no spurious ambiguity."""
    rng = np.random.default_rng(1)
    base = random_grammar(rng, density=0.0)
    backoff = BackoffGrammar(StubModel(base), cost=1.0)
    for n in range(2, 5):
        costs = backoff.costs(random_costs(rng, base, n).check(base)).check(backoff.grammar)
        tag_ids = rng.integers(0, 2, size=n).astype(np.int32)
        oracle = enumerate_derivations(backoff.grammar, costs, tag_ids)
        assert oracle["count"] == n


def test_outcome_costs_price_the_unknown_tag_as_the_rarest():
    probs = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]])
    out = outcome_costs(probs, np.array([2, -1, 0]))
    np.testing.assert_allclose(out, -np.log([[0.2, 0.2, 0.5], [0.3, 0.1, 0.1]]))


def test_bad_glue_cost(factored_parser):
    with pytest.raises(ValueError, match="must be positive"):
        BackoffGrammar(factored_parser.model, cost=0.0)
    with pytest.raises(ValueError, match="backoff_cost must be positive"):
        AStarParser(backoff_cost=float("nan"))


# -- real parsers ----------------------------------------------------------------------------------------

def test_sentence_without_a_treebank_derivation(factored_parser):
    words, tags = ["''", "."], ["''", "."]
    with pytest.raises(ParseError, match="no parse"):
        factored_parser.parse(words, tags, backoff=False)
    result = factored_parser.parse(words, tags)
    assert result.backoff == "no parse"
    assert result.tree.leaves() == words and [t for _, t in result.tree.pos()] == tags
    validate_heads(result.heads)
    exact = factored_parser.parse_exhaustive(words, tags)
    assert exact.backoff == "no parse" and exact.cost == pytest.approx(result.cost, abs=TOL)


def test_unknown_tags(factored_parser, nonfactored_parser):
    words, tags = ["well", "-", "known", "results"], ["RB", "HYPH", "VBN", "NNS"]
    for parser in (factored_parser, nonfactored_parser):
        with pytest.raises(GrammarError, match="tag 'HYPH' of word 2 is not in the grammar"):
            parser.parse(words, tags, backoff=False)
        for heuristic in parser.heuristics:
            result = parser.parse(words, tags, heuristic=heuristic)
            assert result.backoff == "unknown tag"
            assert result.tree.leaves() == words and [t for _, t in result.tree.pos()] == tags
        assert parser.parse(["x"], ["NOT-A-TAG"]).tree.pos() == [("x", "NOT-A-TAG")]


def test_backoff_astar_equals_exhaustive_cky(factored_parser, nonfactored_parser, ewt_backoff_sentences):
    """On real sentences that need the back-off: A* with every exact heuristic finds the back-off grammar's
    optimum (exhaustive CKY), and the cost it reports is its derivation's."""
    checked = 0
    for parser in (factored_parser, nonfactored_parser):
        g = parser.backoff_grammar.grammar
        for words, tags in ewt_backoff_sentences:
            optimum = parser.parse_exhaustive(words, tags)
            assert optimum.backoff is not None
            costs = parser.backoff_costs(words, tags)
            for heuristic in parser.heuristics:
                result = parser.parse(words, tags, heuristic=heuristic)
                assert result.backoff == optimum.backoff
                assert result.cost == pytest.approx(derivation_cost(result.derivation, costs, g), abs=1e-9)
                if heuristic == "approximate":
                    assert result.cost >= optimum.cost - 1e-9
                else:
                    assert result.cost == pytest.approx(optimum.cost, abs=1e-9), (heuristic, words)
                checked += 1
    assert checked >= 20


def test_covered_sentences_ignore_the_backoff(factored_parser, short_test_sentences):
    """A sentence the treebank grammar parses gets the same parse whatever the glue costs."""
    cheap = AStarParser.from_dict({**factored_parser.to_dict(),
                                   "settings": {**factored_parser.to_dict()["settings"], "backoff_cost": 1e-3}})
    for words, tags in short_test_sentences:
        a, b = factored_parser.parse(words, tags), cheap.parse(words, tags)
        assert a.backoff is None and b.backoff is None
        assert a.cost == b.cost and str(a.tree) == str(b.tree)


def test_backoff_cost_round_trips(factored_parser):
    data = factored_parser.to_dict()
    data["settings"]["backoff_cost"] = 3.5
    assert AStarParser.from_dict(data).backoff_cost == 3.5
    del data["settings"]["backoff_cost"]                  # a file written before the back-off existed
    assert AStarParser.from_dict(data).backoff_cost == factored_parser.backoff_cost
