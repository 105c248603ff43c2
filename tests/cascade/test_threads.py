"""One loaded CascadeParser shared by several Python threads parses as it does alone (issue 36).

Every public parse entry point, from 2, 4 and 8 threads at once, over EWT test sentences of mixed lengths:
each result equals the sequential one, and nothing crashes, raises or hangs (a time bound fails a deadlock).
"""
import numpy as np
import pytest

from threads import THREAD_COUNTS, run_in_threads
from vineparse.cascade import CascadeParser
from vineparse.corpus import corpus_path, read_conllu


@pytest.fixture(scope="module")
def test_sentences():
    """300 EWT test sentences: every length from 1 word to the longest, in corpus order otherwise."""
    sentences = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"))
    longest = sorted(sentences, key=lambda s: -s.n)[:20]
    return [(list(s.words), list(s.xpos), list(s.upos)) for s in sentences[:280] + longest]


def _batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def _same_trees(found, expected):
    assert len(found) == len(expected)
    differing = [i for i, (a, b) in enumerate(zip(found, expected)) if not np.array_equal(a, b)]
    assert not differing, f"{len(differing)} of {len(expected)} trees differ from sequential parsing"


@pytest.mark.parametrize("n_threads", THREAD_COUNTS)
def test_parse_and_parse_batch_from_threads(trained, test_sentences, n_threads):
    parser, _ = trained
    expected = [parser.parse(*s) for s in test_sentences]
    _same_trees(run_in_threads(lambda s: parser.parse(*s), test_sentences, n_threads), expected)
    for omp_threads in (1, 2):         # each calling thread may also hand its batch to OpenMP threads
        batches = run_in_threads(lambda batch: parser.parse_batch(batch, n_threads=omp_threads),
                                 _batches(test_sentences, 25), n_threads)
        _same_trees([heads for batch in batches for heads in batch], expected)


@pytest.mark.parametrize("n_threads", THREAD_COUNTS)
def test_parse_labelled_from_threads(trained, test_sentences, n_threads):
    parser, _ = trained
    expected = parser.parse_labelled_batch(test_sentences)
    found = run_in_threads(lambda s: parser.parse_labelled(*s), test_sentences, n_threads)
    batches = run_in_threads(parser.parse_labelled_batch, _batches(test_sentences, 25), n_threads)
    for result in (found, [pair for batch in batches for pair in batch]):
        _same_trees([heads for heads, _ in result], [heads for heads, _ in expected])
        assert [list(labels) for _, labels in result] == [list(labels) for _, labels in expected]


def test_a_freshly_loaded_parser_builds_its_lazy_state_once_under_threads(trained, test_sentences, tmp_path):
    """The weight table and the compiled runtime are built on first use: threads that all start with a
    freshly loaded parser must still agree with sequential parsing (and share one runtime)."""
    parser, _ = trained
    path = tmp_path / "model.msgpack"
    parser.save(path)
    expected = [parser.parse(*s) for s in test_sentences]
    loaded = CascadeParser.load(path)
    _same_trees(run_in_threads(lambda s: loaded.parse(*s), test_sentences, 8), expected)
    assert loaded.runtime() is loaded.runtime()
    assert loaded.runtime().idle_workspaces() >= 1      # workspaces go back to the pool after each call
