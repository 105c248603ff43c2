"""Fixtures of the cascade tests: slices of EWT and a cascade trained on them (shared by the modules)."""
import pytest

from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.corpus import corpus_path, read_conllu


def ewt_slices(train_limit: int, dev_limit: int):
    """The first `train_limit` EWT train and `dev_limit` EWT dev sentences."""
    return (read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu"))[:train_limit],
            read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))[:dev_limit])


def train_cascade(train_set, dev_set, orders, bits: int, tag: str = "xpos", pseudo_projective=None, **settings):
    """A CascadeParser of `orders` trained quietly on the sentences (by their `tag` column); RETURNS (parser,
    training summary)."""
    parser = CascadeParser(orders=orders, bits=bits, tag=tag, pseudo_projective=pseudo_projective)
    summary = train(parser, [Example.from_sentence(s, tag) for s in train_set],
                    [Example.from_sentence(s, tag) for s in dev_set], TrainingSettings(**settings),
                    report=lambda message: None)
    return parser, summary


@pytest.fixture(scope="session")
def ewt():
    return ewt_slices(400, 150)


@pytest.fixture(scope="session")
def trained(ewt):
    """vine -> 1 -> 2 -> 3 with its labeller, 2^16 weights a level, two epochs on 400 sentences."""
    return train_cascade(*ewt, orders=(0, 1, 2, 3), bits=16, epochs=2, recall=0.99, vine_recall=0.995)
