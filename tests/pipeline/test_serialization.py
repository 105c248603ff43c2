"""Round trips through bytes and disk give identical predictions; nlp.pipe batching and processes agree."""
import spacy
from spacy.tokens import Doc

from .tiny import TINY_MODEL, parses


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
