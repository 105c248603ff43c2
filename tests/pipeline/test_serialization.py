"""Round trips through bytes and disk give identical predictions; nlp.pipe batching and processes agree."""
import numpy as np
import pytest
import spacy
from spacy.tokens import Doc

from .tiny import TINY_MODEL, parses, train_tiny


def test_bytes_round_trip_gives_identical_predictions(trained):
    nlp, examples = trained
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    data = nlp.get_pipe("vine_cascade").to_bytes()
    other = spacy.blank("en")
    other.add_pipe("vine_cascade", config={"model": TINY_MODEL}).from_bytes(data)
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected
    assert other.get_pipe("vine_cascade").to_bytes() == data


def test_disk_round_trip_gives_identical_predictions(trained, tmp_path):
    nlp, examples = trained
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert parses(loaded.pipe([Doc(loaded.vocab, words=[t.text for t in d]) for d in docs])) == expected
    assert loaded.get_pipe("vine_cascade").cfg == nlp.get_pipe("vine_cascade").cfg


def test_pipe_batch_sizes_and_two_processes_agree(trained):
    nlp, examples = trained
    texts = [" ".join(t.text for t in eg.predicted) for eg in examples[:24]]
    one = parses(nlp(text) for text in texts)
    assert parses(nlp.pipe(texts, batch_size=5)) == one
    assert parses(nlp.pipe(texts, batch_size=7, n_process=2)) == one


@pytest.mark.parametrize("span_weighted", [False, True])
def test_span_terms_train_and_round_trip(ewt_sentences, span_weighted):
    """A model with the arc scorer's span term (`span_width`, plain or weighted) and the labeller's
    (`label_span`) trains, and its bytes load into a component of the same config with identical predictions;
    the span parameters are learned, not left at zero."""
    model = {**TINY_MODEL, "@architectures": "vineparse.VineCascadeModel.v3", "span_width": 4, "label_span": True,
             "span_weighted": span_weighted}
    nlp, examples = train_tiny(ewt_sentences[:80], steps=6, model=model)
    arcs, labels = (nlp.get_pipe("vine_cascade").model.get_ref(name) for name in ("arcs", "labels"))
    assert arcs.get_dim("span") == 4 and abs(arcs.get_param("G")).sum() > 0
    assert ("v" in arcs.param_names) == span_weighted
    if span_weighted:
        assert abs(arcs.get_param("v")).sum() > 0
    width = labels.get_dim("width")
    assert labels.attrs["span"] and labels.layers[0].get_dim("nO") == (4 if labels.attrs["children"] else 2) * \
        width + width
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    other = spacy.blank("en")
    other.add_pipe("vine_cascade", config={"model": model}).from_bytes(nlp.get_pipe("vine_cascade").to_bytes())
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected


def test_a_shared_part_projection_trains_and_round_trips(ewt_sentences):
    """A model whose part kinds share one projection (`shared_part_roles`) trains, saves that projection once
    and loads into a component of the same config as one layer again, with identical predictions."""
    model = {**TINY_MODEL, "@architectures": "vineparse.VineCascadeModel.v3", "shared_part_roles": True}
    nlp, examples = train_tiny(ewt_sentences[:80], steps=6, model=model)
    parser = nlp.get_pipe("vine_cascade")
    assert abs(parser.model.get_ref("grand_sibling").get_param("v")).sum() > 0
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    other = spacy.blank("en")
    loaded = other.add_pipe("vine_cascade", config={"model": model}).from_bytes(parser.to_bytes())
    layers = [loaded.model.get_ref(name).layers[0] for name in ("sibling", "grandparent", "grand_sibling")]
    assert layers[0] is layers[1] is layers[2] and layers[0].get_dim("nO") == 4 * TINY_MODEL["part_width"]
    np.testing.assert_array_equal(layers[0].get_param("W"), parser.model.get_ref("sibling").layers[0].get_param("W"))
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected
