"""Pseudo-projective parsing with the sparse cascade (issue 33): on a treebank with non-projective trees the
labeller learns decorated labels, parsing lowers lifted arcs again, and every output is a tree."""
import numpy as np
import pytest
import srsly

from vineparse.cascade import CascadeParser
from vineparse.cascade.evaluation import evaluate
from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import DELIMITER, is_projective, validate_heads

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
    assert any(DELIMITER in label for label in parser.labeler.labels)
    assert not any(DELIMITER in label for label in parsers[False].labeler.labels)


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
    assert CascadeParser.load(path).pseudo_projective is True
    data = srsly.read_msgpack(path)
    data["version"] = 4
    del data["config"]["pseudo_projective"]
    srsly.write_msgpack(path, data)
    assert CascadeParser.load(path).pseudo_projective is False
    with pytest.raises(ValueError, match="pseudo_projective"):
        CascadeParser(pseudo_projective="yes")
