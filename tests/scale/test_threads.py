"""parse_corpus on a worker whose threads share one loaded model, and the parse command on several threads,
write the bytes of the single-threaded run (issue 36)."""
import logging

import pytest

from vineparse.cli import main
from vineparse.corpus import corpus_path
from vineparse.scale import parse_corpus

from .test_corpus import outputs

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def threaded_client():
    """One in-process Dask worker with 4 threads: its shard tasks share the model it loaded once."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=4, processes=False, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        yield client


def test_cascade_shards_on_a_threaded_worker(tmp_path, threaded_client, cascade_model, conllu_inputs):
    single = parse_corpus(cascade_model, conllu_inputs[0], tmp_path / "single", workers=0, shard_size=10,
                          merge=True, progress=False)
    shared = parse_corpus(cascade_model, conllu_inputs[0], tmp_path / "threads", client=threaded_client,
                          shard_size=10, merge=True, progress=False)
    assert single.complete and shared.complete and shared.shards == single.shards > 4
    assert outputs(tmp_path / "threads") == outputs(tmp_path / "single")


def test_spacy_shards_on_a_threaded_worker(tmp_path, threaded_client, spacy_model, text_input):
    kwargs = dict(shard_size=10, formats=("spacy", "conllu"), merge=True, progress=False)
    single = parse_corpus(spacy_model, text_input, tmp_path / "single", workers=0, **kwargs)
    shared = parse_corpus(spacy_model, text_input, tmp_path / "threads", client=threaded_client, **kwargs)
    assert single.complete and shared.complete and shared.shards == single.shards > 4
    assert outputs(tmp_path / "threads") == outputs(tmp_path / "single")


def test_the_parse_command_on_several_threads(tmp_path, cascade_model):
    dev = corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")
    written = {}
    for threads in (1, 4):
        out = tmp_path / f"parsed{threads}.conllu"
        assert main(["parse", cascade_model, str(dev), "--out", str(out), "--threads", str(threads),
                     "--batch-size", "300"]) == 0
        written[threads] = out.read_bytes()
    assert written[1] == written[4]
