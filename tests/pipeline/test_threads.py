"""One loaded pipeline with vine_cascade shared by several Python threads parses as it does alone (issue 36).

`nlp(text)` and `nlp.pipe(texts)` from 2, 4 and 8 threads at once over EWT test texts (one sentence, several
sentences without boundaries, one long text): heads, labels and sentence starts equal the sequential ones,
and nothing crashes, raises or hangs (a time bound fails a deadlock).
"""
import pytest
import spacy

from threads import THREAD_COUNTS, run_in_threads
from vineparse.corpus import corpus_path, read_conllu

from .tiny import parses, train_tiny


@pytest.fixture(scope="module")
def pipeline(ewt_sentences, tmp_path_factory):
    """A tiny trained pipeline, saved and loaded again (its lazily built state starts empty)."""
    nlp, _ = train_tiny(ewt_sentences[:60], steps=12)
    path = tmp_path_factory.mktemp("threads") / "pipeline"
    nlp.to_disk(path)
    return spacy.load(path)


@pytest.fixture(scope="module")
def texts():
    sentences = [s.text for s in read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"))]
    joined = [" ".join(sentences[i:i + 3]) for i in range(300, 360, 3)]        # docs of three sentences
    return sentences[:200] + joined + [" ".join(sentences[400:440])]          # and one of about 600 words


@pytest.mark.parametrize("n_threads", THREAD_COUNTS)
def test_nlp_from_threads(pipeline, texts, n_threads):
    expected = [parses([pipeline(text)])[0] for text in texts]
    found = run_in_threads(lambda text: parses([pipeline(text)])[0], texts, n_threads)
    differing = sum(a != b for a, b in zip(found, expected))
    assert differing == 0, f"{differing} of {len(texts)} docs differ from sequential parsing"


@pytest.mark.parametrize("n_threads", THREAD_COUNTS)
def test_nlp_pipe_from_threads(pipeline, texts, n_threads):
    chunks = [texts[i:i + 20] for i in range(0, len(texts), 20)]
    expected = parses(pipeline.pipe(texts, batch_size=20))
    found = run_in_threads(lambda chunk: parses(pipeline.pipe(chunk, batch_size=20)), chunks, n_threads)
    found = [parse for chunk in found for parse in chunk]
    differing = sum(a != b for a, b in zip(found, expected))
    assert len(found) == len(expected) and differing == 0, f"{differing} of {len(texts)} docs differ"
