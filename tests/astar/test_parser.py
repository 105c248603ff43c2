"""The parser on real PTB sentences: A* equals exhaustive CKY, heuristics are pointwise admissible against
exhaustively computed outside costs, errors are clear, models round-trip through srsly."""
import numpy as np
import pytest
import srsly

from vineparse.astar import AStarParser, ModelError, ParseError
from vineparse.astar.heuristics import outside_estimates
from vineparse.astar.model import derivation_cost
from vineparse.astar.treebank import binarize
from vineparse.trees import validate_heads
from test_search import exhaustive, heuristic_value


def test_astar_equals_exhaustive_cky(factored_parser, nonfactored_parser, short_test_sentences):
    for parser in (factored_parser, nonfactored_parser):
        for words, tags in short_test_sentences:
            optimum = parser.parse_exhaustive(words, tags)
            assert optimum.cost == pytest.approx(derivation_cost(optimum.derivation, parser.costs(words, tags),
                                                                 parser.grammar), abs=1e-9)
            for heuristic in parser.heuristics:
                result = parser.parse(words, tags, heuristic=heuristic)
                cost = derivation_cost(result.derivation, parser.costs(words, tags), parser.grammar)
                assert result.cost == pytest.approx(cost, abs=1e-9)
                if heuristic == "approximate":       # may err, never below the optimum
                    assert result.cost >= optimum.cost - 1e-9
                else:
                    assert result.cost == pytest.approx(optimum.cost, abs=1e-9), (heuristic, words)
                assert result.tree.leaves() == words
                assert [t for _, t in result.tree.pos()] == tags
                validate_heads(result.heads)


def test_heuristics_are_pointwise_admissible(factored_parser, nonfactored_parser, short_test_sentences):
    """h(edge) <= the edge's true best outside cost, for every lexicalized edge of the exhaustive chart."""
    checked = 0
    for parser in (factored_parser, nonfactored_parser):
        g = parser.grammar
        for words, tags in short_test_sentences:
            costs = parser.costs(words, tags)
            tag_ids = g.tag_ids(tags)
            lexical, (best, inside, outside) = exhaustive(parser.rules, g, costs, tag_ids)
            items = [(x, lexical.describe(x)) for x in range(1, lexical.n_items - 1) if np.isfinite(outside[x])]
            for name in parser.heuristics:
                if name in ("null", "approximate"):
                    continue
                h = outside_estimates(name, parser.projection(name, costs, words, tags), parser.rules, tag_ids)
                for x, item in items:
                    assert heuristic_value(h, g, item, len(words)) <= outside[x] + 1e-9, (name, item)
                    checked += 1
    assert checked > 1000


def test_factored_heuristic_beats_the_others(factored_parser, ptb_test):
    """On a 15-25 word sentence the exact factored heuristic pops far fewer edges than uniform cost."""
    tree = next(t for t in ptb_test if 15 <= len(t.leaves()) <= 25)
    words, tags = [w for w, _ in tree.pos()], [t for _, t in tree.pos()]
    popped = {h: factored_parser.parse(words, tags, heuristic=h).stats.popped for h in ("null", "cfg", "factored")}
    assert popped["factored"] < popped["cfg"] < popped["null"]
    assert popped["factored"] <= 0.05 * popped["null"]


def test_split_equals_factored_on_a_factored_model(factored_parser, short_test_sentences):
    words, tags = short_test_sentences[0]
    costs = factored_parser.costs(words, tags)
    split = factored_parser.projection("split", costs, words, tags)
    exact = factored_parser.projection("factored", costs, words, tags)
    np.testing.assert_allclose(split.cfg_binary, exact.cfg_binary, atol=1e-12)
    np.testing.assert_allclose(split.cfg_unary, exact.cfg_unary, atol=1e-12)
    np.testing.assert_allclose(split.dep_arc, exact.dep_arc, atol=1e-12)


def test_gold_derivation_is_a_derivation_of_the_model(factored_parser, ptb_train):
    """A training tree's derivation is scored finitely and costs no less than the optimum."""
    tree = next(t for t in ptb_train[:50] if len(t.leaves()) <= 10)
    words, tags = [w for w, _ in tree.pos()], [t for _, t in tree.pos()]
    gold = derivation_cost(binarize(tree), factored_parser.costs(words, tags), factored_parser.grammar)
    assert np.isfinite(gold)
    assert factored_parser.parse(words, tags).cost <= gold + 1e-9


def test_search_limit_gives_a_clear_error(factored_parser, ptb_test):
    tree = next(t for t in ptb_test if len(t.leaves()) >= 12)
    words, tags = [w for w, _ in tree.pos()], [t for _, t in tree.pos()]
    parser = AStarParser.from_dict(factored_parser.to_dict())
    parser.max_pops = 50
    with pytest.raises(ParseError, match="search limit hit: popped 50 edges") as error:
        parser.parse(words, tags, heuristic="null")
    assert error.value.reason == "limit" and error.value.stats.popped == 50


def test_unparseable_sentence(factored_parser):
    # A sentence of only closing quotes and periods: no rule of the slice's grammar builds anything above them.
    words, tags = ["''", "."], ["''", "."]
    with pytest.raises(ParseError, match="no parse") as error:
        factored_parser.parse(words, tags, backoff=False)
    assert error.value.reason == "no parse"


@pytest.mark.parametrize("words,tags,message", [
    ([], [], "empty sentence"),
    (["a", "b"], ["DT"], "2 words but 1 tags"),
    (["a"], ["NOT-A-TAG"], "tag 'NOT-A-TAG' of word 1 is not in the grammar"),
    ([""], ["DT"], "word 1 must be a non-empty string"),
])
def test_bad_sentences(factored_parser, words, tags, message):
    with pytest.raises(ValueError, match=message):
        factored_parser.parse(words, tags, backoff=False)


def test_bad_heuristics(factored_parser, nonfactored_parser):
    with pytest.raises(ValueError, match="unknown heuristic 'fast'"):
        factored_parser.parse(["the"], ["DT"], heuristic="fast")
    with pytest.raises(ValueError, match="'factored' is not available"):
        nonfactored_parser.parse(["the"], ["DT"], heuristic="factored")
    assert factored_parser.heuristics == ("null", "cfg", "split", "factored")
    assert nonfactored_parser.heuristics == ("null", "cfg", "split", "approximate")
    assert factored_parser.default_heuristic == "factored" and nonfactored_parser.default_heuristic == "split"


def test_exhaustive_length_limit(factored_parser):
    with pytest.raises(ValueError, match="limited to 15 words"):
        factored_parser.parse_exhaustive(["the"] * 16, ["DT"] * 16)


def test_untrained_and_bad_settings():
    with pytest.raises(ModelError, match="not trained"):
        AStarParser().parse(["a"], ["DT"])
    with pytest.raises(ValueError, match="unknown model 'neural'"):
        AStarParser().train([], model="neural")
    with pytest.raises(ValueError, match="no training trees"):
        AStarParser().train([])
    with pytest.raises(ValueError, match="horizontal must be >= 0"):
        AStarParser(horizontal=-1)


def test_save_and_load_round_trip(nonfactored_parser, short_test_sentences, tmp_path):
    path = tmp_path / "deep" / "model.msgpack"
    nonfactored_parser.save(path)
    loaded = AStarParser.load(path)
    words, tags = short_test_sentences[1]
    for heuristic in nonfactored_parser.heuristics:
        a, b = nonfactored_parser.parse(words, tags, heuristic), loaded.parse(words, tags, heuristic)
        assert a.cost == b.cost and str(a.tree) == str(b.tree)
        assert a.stats.popped == b.stats.popped


def test_version_mismatch_is_reported(factored_parser, tmp_path):
    data = factored_parser.to_dict()
    data["model"]["version"] = 99
    path = tmp_path / "old.msgpack"
    srsly.write_msgpack(path, data)
    with pytest.raises(ModelError, match="version 99.*retrain"):
        AStarParser.load(path)
    srsly.write_msgpack(path, {"format": 7})
    with pytest.raises(ModelError, match="not a saved A\\* parser of format 1"):
        AStarParser.load(path)
    path.write_bytes(b"\x00garbage")
    with pytest.raises(ModelError):
        AStarParser.load(path)
    data = factored_parser.to_dict()
    data["approxXmation"] = data.pop("approximation")      # a damaged key is not a parser without one
    srsly.write_msgpack(path, data)
    with pytest.raises(ModelError, match="malformed saved A\\* parser: its entries are .*'approxXmation'"):
        AStarParser.load(path)
