"""Training vine_cascade on raw documents: spaCy's own tokens on text with line and paragraph breaks."""
import numpy as np
import pytest
import spacy
from spacy.training import Example

from vineparse import kernels
from vineparse.pipeline import training
from vineparse.pipeline.spaces import space_tokens
from vineparse.text.gold_docs import gold_document
from vineparse.trees import validate_heads

from .tiny import TINY_MODEL


def raw_examples(nlp, sentences, per_doc=6, per_paragraph=3):
    """Examples of documents of `per_doc` sentences, a paragraph break after every `per_paragraph` and a line
    break inside every fourth sentence of over ten words; the predicted docs are spaCy's tokens of the text."""
    out = []
    for k in range(0, len(sentences), per_doc):
        text, spans = "", []
        for j, sentence in enumerate(sentences[k:k + per_doc]):
            if j:
                text += "\n\n" if j % per_paragraph == 0 else " "
            words = sentence.text.split(" ")
            if j % 4 == 1 and len(words) > 10:
                words[5] = "\n" + words[5]
            body = " ".join(words).replace(" \n", "\n")
            spans.append((len(text), len(text) + len(body)))
            text += body
        # the sentences' words with the line break in the middle: their text is the body, not `# text`
        gold = gold_document(nlp.vocab, text, sentences[k:k + per_doc], spans)
        out.append(Example(nlp.make_doc(text), gold))
    return out


@pytest.fixture(scope="module")
def raw(ewt_sentences):
    nlp = spacy.blank("en")
    nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL})
    return nlp, raw_examples(nlp, ewt_sentences[:72])


def test_gold_sentences_of_raw_documents_are_trees_without_whitespace_heads(raw, ewt_sentences):
    nlp, examples = raw
    parser = nlp.get_pipe("vine_cascade")
    parser.initialize(lambda: examples, nlp=nlp)
    skipped = []
    found = list(training.gold_sentences(examples, parser.label_ids, lambda what, detail: skipped.append(what)))
    assert len(found) + len(skipped) == 72 and len(found) >= 60
    for s in found:
        doc = examples[s.doc].predicted
        space = space_tokens(doc)[s.start:s.end]
        validate_heads(s.heads)
        assert (s.heads[1:] == 0).sum() == 1
        assert len(s.heads) == len(s.labels) == (~space).sum() + 1       # over the words only
        assert (s.words is None) == (not space.any())
        if s.words is not None:
            assert (s.words == np.flatnonzero(~space)).all()
    assert any(s.words is not None for s in found)


def test_the_start_loss_learns_the_aligned_starts_of_raw_documents(raw):
    nlp, examples = raw
    example = examples[0]
    starts = example.get_aligned_sent_starts()
    space = space_tokens(example.predicted)
    assert sum(starts) == 6 and space.sum() >= 1
    assert not any(start for start, blank in zip(starts, space) if blank)


def test_training_on_raw_documents_runs_and_counts_what_it_skips(raw):
    nlp, examples = raw
    optimizer = nlp.initialize(lambda: examples)
    losses = {}
    for step in range(12):
        nlp.update([examples[(step * 4 + i) % len(examples)] for i in range(4)], sgd=optimizer, losses=losses)
    assert np.isfinite(losses["vine_cascade"])
    doc = nlp("Great service!! Would recommend them.\n\nWe called them on Monday.\nthanks again - John")
    assert all(not t.head.is_space or t.head == t for t in doc)


def test_a_sentence_no_level_admits_is_skipped_and_counted(raw, monkeypatch):
    nlp, examples = raw
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe("vine_cascade")
    real = training.sentence_loss
    calls = []

    def first_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise kernels.NoStructureError("the arc mask admits no projective tree")
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "sentence_loss", first_fails)
    before = parser.skipped["no_structure"]
    vectors = parser.model.predict([eg.predicted for eg in examples[:3]])
    loss, d_vectors, details = training.batch_loss(parser, examples[:3], vectors)
    assert parser.skipped["no_structure"] == before + 1 and len(calls) == details["sentences"]
    assert np.isfinite(loss) and [d.shape for d in d_vectors] == [v.shape for v in vectors]
