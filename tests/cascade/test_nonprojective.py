"""Pseudo-projective parsing with the sparse cascade (issue 33): on a treebank with non-projective trees the
labeller learns the lifted trees' labels and a lowering model where the lifted arcs belong, parsing lowers
arcs again, and every output is a tree."""
import numpy as np
import pytest
import srsly

from vineparse.cascade import CascadeParser
from vineparse.cascade.evaluation import evaluate
from vineparse.corpus import corpus_path, read_conllu
from vineparse.cascade.encoding import encode
from vineparse.cascade.labeler import Labeler
from vineparse.cascade.lowering import LoweringModel
from vineparse.trees import DELIMITER, deprojectivize, is_projective, validate_heads

from .conftest import train_cascade


@pytest.fixture(scope="module")
def german():
    """UD German-GSD dev (9.5% non-projective sentences): 600 to train on, the rest held out."""
    sentences = read_conllu(corpus_path("ud-multi", "de_gsd", "de_gsd-ud-dev.conllu"))
    return sentences[:600], sentences[600:]


@pytest.fixture(scope="module")
def parsers(german):
    train_set, held = german
    return {flag: train_cascade(train_set, held[:80], orders=(0, 1, 2), bits=16, epochs=2, recall=0.99,
                                label_bits=16, tag="upos", pseudo_projective=flag)[0]
            for flag in (None, False)}


def test_training_on_non_projective_trees_turns_pseudo_projective_on(parsers, german):
    parser = parsers[None]
    assert parser.pseudo_projective is True and parsers[False].pseudo_projective is False
    assert isinstance(parser.lowering, LoweringModel) and parser.lowering.weights.any()
    assert parsers[False].lowering is None
    assert parser.labeler.labels == parsers[False].labeler.labels            # plain labels either way
    assert not any(DELIMITER in label for label in parser.labeler.labels)


def test_parses_are_trees_and_lifted_arcs_come_down(parsers, german):
    _, held = german
    batch = [(s.words, list(s.upos), list(s.upos)) for s in held]
    for flag, parser in parsers.items():
        results = parser.parse_labelled_batch(batch)
        for (heads, labels), sentence in zip(results, held):
            validate_heads(heads)
            assert len(labels) == sentence.n and not any(DELIMITER in label for label in labels)
        lowered = sum(not is_projective(heads) for heads, _ in results)
        assert (lowered > 0) == parser.pseudo_projective, (flag, lowered)
    scores = evaluate(parsers[None], held, tag="upos")["nonprojective_arcs"]
    assert scores["gold"] > 10 and scores["predicted"] > 0 and scores["recall"] > 0


def test_the_flag_is_saved_and_an_older_model_loads_as_projective(parsers, tmp_path):
    path = tmp_path / "model.msgpack"
    parsers[None].save(path)
    loaded = CascadeParser.load(path)
    assert loaded.pseudo_projective is True
    np.testing.assert_array_equal(loaded.lowering.weights, parsers[None].lowering.weights)
    data = srsly.read_msgpack(path)
    del data["lowering"]
    data["version"] = 4
    del data["config"]["pseudo_projective"]
    srsly.write_msgpack(path, data)
    assert CascadeParser.load(path).pseudo_projective is False
    with pytest.raises(ValueError, match="pseudo_projective"):
        CascadeParser(pseudo_projective="yes")


def test_a_version_5_model_lowers_by_its_decorated_labels(parsers, german, tmp_path):
    """Version 5 models decorated the labels of lifted arcs; they load and lower by their labels."""
    data = parsers[None].to_dict()
    data["version"] = 5
    del data["lowering"]
    decorated = Labeler(["nsubj", "advmod" + DELIMITER + "nsubj"], bits=8)
    decorated.weights[:, 1] = 1.0                 # every word not on the root takes the decorated label
    data["labeler"] = decorated.to_dict()
    path = tmp_path / "v5.msgpack"
    srsly.write_msgpack(path, data)
    old = CascadeParser.load(path)
    assert old.pseudo_projective is True and old.lowering is None
    for sentence in german[1][:30]:
        sent = encode(sentence.words, list(sentence.upos))
        heads = old.run_batch([sent])[0]
        lowered, labels = old.label(sent, heads)
        expected = deprojectivize(heads, decorated.predict(sent, heads))
        np.testing.assert_array_equal(lowered, expected[0])
        assert list(labels) == list(expected[1])


def test_a_lowering_model_needs_pseudo_projective_labels(parsers):
    data = parsers[False].to_dict()
    data["lowering"] = LoweringModel(bits=4).to_dict()
    with pytest.raises(ValueError, match="lowering model without pseudo_projective"):
        CascadeParser.from_dict(data)
