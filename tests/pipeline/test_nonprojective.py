"""vine_cascade on non-projective training trees (issue 33): lifted arcs train with decorated labels, the
parses written to docs are trees with undecorated labels and may be non-projective again; with
pseudo_projective off the labels are not decorated."""
import numpy as np
import pytest
import spacy

from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import DELIMITER, is_projective, validate_heads

from .tiny import TINY_MODEL, make_examples


@pytest.fixture(scope="module")
def german():
    sentences = read_conllu(corpus_path("ud-multi", "de_gsd", "de_gsd-ud-dev.conllu"))
    nonprojective = [s for s in sentences if not is_projective(s.heads) and s.n <= 30]
    projective = [s for s in sentences if is_projective(s.heads) and s.n <= 30]
    return nonprojective[:30] + projective[:30]


def train(sentences, steps=10, **settings):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("de")
    nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL, **settings})
    examples = make_examples(nlp, sentences)
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        losses = nlp.update([examples[(step * 10 + i) % len(examples)] for i in range(10)], sgd=optimizer)
        assert np.isfinite(losses["vine_cascade"])
    return nlp, examples


@pytest.mark.parametrize("pseudo_projective", [True, False])
def test_non_projective_gold_trees_train_and_parse_to_trees(german, pseudo_projective):
    nlp, examples = train(german, pseudo_projective=pseudo_projective)
    parser = nlp.get_pipe("vine_cascade")
    assert any(DELIMITER in label for label in parser.labels) == pseudo_projective
    for doc in nlp.pipe([eg.predicted.copy() for eg in examples]):
        heads = np.array([-1] + [0 if t.head.i == t.i else t.head.i + 1 for t in doc])
        validate_heads(heads)
        assert sum(t.head.i == t.i for t in doc) == len(list(doc.sents))
        assert not any(DELIMITER in t.dep_ for t in doc)


def test_decorated_predictions_are_lowered_into_trees(german):
    """Every arc of a parse labelled with a decorated label: each lowered word moves under a word with its
    head label where there is one, and the doc stays a tree."""
    nlp, examples = train(german, steps=4)
    parser = nlp.get_pipe("vine_cascade")
    decorated = [i for i, label in enumerate(parser.labels) if DELIMITER in label]
    docs = [eg.predicted.copy() for eg in examples[:10]]
    predictions = parser.predict(docs)
    rng = np.random.default_rng(0)
    forced = []
    for heads, labels in predictions:
        labels = labels.copy()
        not_root = np.flatnonzero(heads != np.arange(len(heads)))
        labels[not_root] = rng.choice(decorated, size=len(not_root))
        forced.append((heads, labels))
    parser.set_annotations(docs, forced)
    for doc in docs:
        heads = np.array([-1] + [0 if t.head.i == t.i else t.head.i + 1 for t in doc])
        validate_heads(heads)
        assert not any(DELIMITER in t.dep_ for t in doc)
