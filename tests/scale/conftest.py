"""Fixtures of the corpus-scale tests: tiny models trained on a slice of EWT, small inputs with bad items, and
one LocalCluster of 2 single-threaded worker processes shared by the tests."""
import pytest

from pipeline.tiny import train_tiny
from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.corpus import corpus_path, format_sentence, read_conllu

BAD_CONLLU = "1\tbroken\tline\n\n"               # 3 columns: skipped with its line
NOT_UTF8 = b"1\tcaf\xe9\tcafe\tNOUN\tNN\t_\t_\t_\t_\t_\n\n"


@pytest.fixture(scope="session")
def ewt_dev():
    return read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))


@pytest.fixture(scope="session")
def cascade_model(tmp_path_factory, ewt_dev):
    """A vine -> 1 -> 2 -> 3 cascade with 2^14 weights a level, trained one epoch on 200 EWT train sentences."""
    train_set = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu"))[:200]
    parser = CascadeParser(orders=(0, 1, 2, 3), bits=14)
    train(parser, [Example.from_sentence(s) for s in train_set], [Example.from_sentence(s) for s in ewt_dev[:60]],
          TrainingSettings(epochs=1, recall=0.99, vine_recall=0.995), report=lambda message: None)
    path = tmp_path_factory.mktemp("models") / "cascade.msgpack"
    parser.save(path)
    return str(path)


@pytest.fixture(scope="session")
def spacy_model(tmp_path_factory, ewt_dev):
    """A blank English pipeline with a tiny vine_cascade, trained on 60 short EWT dev sentences."""
    nlp, _ = train_tiny([s for s in ewt_dev if 3 <= len(s.words) <= 25][:60])
    path = tmp_path_factory.mktemp("models") / "pipeline"
    nlp.to_disk(path)
    return str(path)


@pytest.fixture(scope="session")
def conllu_inputs(tmp_path_factory, ewt_dev):
    """Two CoNLL-U files (HEAD and DEPREL cleared in the second) of 150 EWT dev sentences, one malformed
    sentence and one that is not UTF-8 among them. RETURNS (paths, {(file, line): reason word})."""
    folder = tmp_path_factory.mktemp("conllu")
    first, second = folder / "a.conllu", folder / "b.conllu"
    blocks = [format_sentence(s) for s in ewt_dev[:90]]
    text = "".join(blocks[:40]) + BAD_CONLLU + "".join(blocks[40:])
    first.write_text(text, encoding="utf-8")
    bad_line = 1 + "".join(blocks[:40]).count("\n")
    unparsed = []
    for sentence in ewt_dev[90:150]:
        copy = sentence.copy()
        copy.heads[1:] = -1
        unparsed.append(format_sentence(copy))
    data = "".join(unparsed[:30]).encode("utf-8") + NOT_UTF8 + "".join(unparsed[30:]).encode("utf-8")
    second.write_bytes(data)
    utf8_line = 1 + data[:data.index(NOT_UTF8)].count(b"\n")
    return [str(first), str(second)], {(str(first), bad_line): "columns", (str(second), utf8_line): "UTF-8"}


@pytest.fixture(scope="session")
def text_input(tmp_path_factory, ewt_dev):
    """One document a line: 120 EWT dev texts, a blank line and a line that is not UTF-8 among them."""
    lines = [s.text.encode("utf-8") for s in ewt_dev[:120]]
    lines[10:10] = [b"   "]
    lines[50:50] = [b"na\xefve \xff"]
    path = tmp_path_factory.mktemp("text") / "docs.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return str(path)


@pytest.fixture(scope="session")
def client():
    """A LocalCluster of 2 worker processes (one thread, 1.5 GiB each), through vineparse.scale's own helper."""
    from vineparse.scale import open_client

    with open_client(workers=2, memory_limit="1.5GiB") as dask_client:
        yield dask_client
