"""Fixtures of the vine_cascade tests: a slice of EWT and a tiny pipeline trained on it."""
import pytest

from .tiny import make_examples, train_tiny
from vineparse.corpus import corpus_path, read_conllu


@pytest.fixture(scope="session")
def ewt_sentences():
    sentences = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    return [s for s in sentences if 3 <= len(s.words) <= 25][:80]


@pytest.fixture(scope="session")
def trained(ewt_sentences):
    """(nlp, examples): trained on examples[:60]; examples[60:] are held out."""
    nlp, examples = train_tiny(ewt_sentences[:60])
    return nlp, examples + make_examples(nlp, ewt_sentences[60:])
