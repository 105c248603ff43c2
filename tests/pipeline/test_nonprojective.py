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


def test_the_matrix_tree_loss_and_the_reparse_predict_crossing_trees(german):
    """arc_loss "crf_nonprojective" learns the annotated trees (crossing arcs and all); with a reparse bonus
    below 1 the parses are trees, some of them non-projective, and a bonus of 1 gives the cascade's trees."""
    nlp, examples = train(german, steps=30, pseudo_projective=False, arc_loss="crf_nonprojective",
                          reparse_bonus=0.0)
    parser = nlp.get_pipe("vine_cascade")
    assert not any(DELIMITER in label for label in parser.labels)
    docs = list(nlp.pipe([eg.predicted.copy() for eg in examples]))
    crossing = 0
    for doc in docs:
        for sent in doc.sents:
            heads = np.array([-1] + [0 if t.head.i == t.i else t.head.i - sent.start + 1 for t in sent])
            validate_heads(heads)
            crossing += not is_projective(heads)
        assert not any(DELIMITER in t.dep_ for t in doc)
    assert crossing > 0
    parser.configure(reparse_bonus=1.0)
    kept = list(nlp.pipe([eg.predicted.copy() for eg in examples]))
    parser.configure(reparse_bonus=None)
    cascade = list(nlp.pipe([eg.predicted.copy() for eg in examples]))
    assert [[t.head.i for t in d] for d in kept] == [[t.head.i for t in d] for d in cascade]


@pytest.mark.parametrize("changes,match", [
    ({"arc_loss": "crf_nonprojective"}, "pseudo_projective false"),
    ({"reparse_bonus": 0.5}, "pseudo_projective false"),
    ({"reparse_bonus": -1.0, "pseudo_projective": False}, "reparse_bonus must be a number >= 0"),
])
def test_reparse_settings_are_checked(changes, match):
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=match):
        nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL, **changes})
