"""parse_corpus on a LocalCluster of 2 workers against the in-process path: the same bytes with both model
kinds, after a worker is killed mid-job, and after an interrupted run is resumed; what is skipped and why."""
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from spacy.tokens import DocBin

from vineparse.cli import main
from vineparse.corpus import read_conllu
from vineparse.scale import parse_corpus
from vineparse.scale.parsing import SOURCE_KEY

pytest.importorskip("distributed")


def outputs(folder) -> dict:
    """{relative path: bytes} of every output file (shards and the merged file; not records or manifest)."""
    folder = Path(folder)
    found = {p.relative_to(folder).as_posix(): p.read_bytes() for p in (folder / "shards").iterdir()
             if p.suffix in (".conllu", ".spacy")}
    if (folder / "parsed.conllu").exists():
        found["parsed.conllu"] = (folder / "parsed.conllu").read_bytes()
    return found


def stamps(folder) -> dict:
    """{file name: (inode, mtime in ns)} of every file under shards/: a rewrite changes the inode."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (Path(folder) / "shards").iterdir()}


@pytest.fixture(scope="module")
def cascade_reference(tmp_path_factory, cascade_model, conllu_inputs):
    out = tmp_path_factory.mktemp("cascade") / "single"
    summary = parse_corpus(cascade_model, conllu_inputs[0], out, workers=0, shard_size=20, merge=True,
                           progress=False)
    return out, summary


def test_cascade_in_process_parses_everything_and_reports_bad_sentences(cascade_reference, conllu_inputs,
                                                                         cascade_model):
    out, summary = cascade_reference
    paths, bad = conllu_inputs
    assert summary.complete and summary.shards == 5 + 4 and summary.parsed == summary.shards
    assert summary.sentences == 150 and summary.documents == 150
    assert {(s["file"], s["line"]) for s in summary.skipped} == set(bad)
    for item in summary.skipped:
        assert bad[(item["file"], item["line"])] in item["reason"]
    parsed = read_conllu(out / "parsed.conllu")
    assert len(parsed) == 150 and sum(s.n for s in parsed) == summary.words
    assert all((s.heads[1:] >= 0).all() for s in parsed)      # the unparsed second file got heads
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["totals"]["sentences"] == 150
    assert [entry["shard"]["index"] for entry in manifest["shards"]] == list(range(summary.shards))
    assert all(set(entry["outputs"]) == {"conllu"} for entry in manifest["shards"])


def test_cascade_on_two_workers_writes_the_same_bytes(tmp_path, client, cascade_reference, conllu_inputs,
                                                       cascade_model):
    lines = []
    summary = parse_corpus(cascade_model, conllu_inputs[0], tmp_path, client=client, shard_size=20, merge=True,
                           progress=lines.append)
    assert summary.complete and summary.parsed == summary.shards == cascade_reference[1].shards
    assert outputs(tmp_path) == outputs(cascade_reference[0])
    assert summary.skipped == cascade_reference[1].skipped
    assert any("2 workers" in line for line in lines) and "9/9 shards" in lines[-1] and "words/s" in lines[-1]


def test_spacy_pipeline_in_process_and_on_two_workers(tmp_path, client, spacy_model, text_input):
    single = parse_corpus(spacy_model, text_input, tmp_path / "single", workers=0, shard_size=25,
                          formats=("spacy", "conllu"), merge=True, progress=False)
    cluster = parse_corpus(spacy_model, text_input, tmp_path / "dask", client=client, shard_size=25,
                           formats=("spacy", "conllu"), merge=True, progress=False)
    assert single.complete and cluster.complete and single.shards == cluster.shards == 5
    assert outputs(tmp_path / "single") == outputs(tmp_path / "dask")
    bad_input = [(s["line"], s["reason"]) for s in single.skipped if not s["reason"].startswith("not written")]
    assert bad_input == [(11, "empty document"), (51, "not valid UTF-8 (byte 3 of the line)")]
    assert single.documents == 120 and cluster.skipped == single.skipped
    docs = []
    import spacy

    vocab = spacy.blank("en").vocab
    for index in range(single.shards):
        docs += list(DocBin().from_bytes((tmp_path / "dask" / "shards" / f"{index:06d}.spacy").read_bytes())
                     .get_docs(vocab))
    assert len(docs) == 120 and docs[0].user_data[SOURCE_KEY] == f"{text_input}:1"
    assert docs[11].user_data[SOURCE_KEY] == f"{text_input}:13"       # line 11 (blank) was skipped
    assert all(doc.has_annotation("DEP") for doc in docs)
    # Docs whose parse is not a tree (a tiny model's) are kept in the DocBin and listed, not written as CoNLL-U.
    not_trees = {s["line"] for s in single.skipped if s["reason"].startswith("not written as CoNLL-U")}
    sentences = read_conllu(tmp_path / "dask" / "parsed.conllu")
    written = {s.comments[0].rsplit(":", 1)[1] for s in sentences if s.comments[0].startswith("# newdoc")}
    assert len(written) + len(not_trees) == 120 and not written & {str(n) for n in not_trees}


def _die_on_shard(marker: str, index: int):
    """On a worker: make the next run of shard `index` kill this worker process mid-shard, once (the marker
    file says it happened; the restarted worker imports the real run_shard again)."""
    import vineparse.scale.cluster as cluster

    real = cluster.run_shard

    def run_shard(model, shard, job):
        if shard.index == index and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(model, shard, job)
    cluster.run_shard = run_shard


def test_a_killed_worker_costs_only_its_shard(tmp_path, client, cascade_reference, conllu_inputs, cascade_model):
    """A worker dies in the middle of a shard: Dask sends that shard out again and the job completes with the
    output of a clean run. A finished shard whose result died with the worker may be sent out again too; it
    then returns its record without parsing, so no file is ever written twice."""
    marker = str(tmp_path / "killed")
    client.run(_die_on_shard, marker, 2)
    seen = {}

    def stamp(record):
        index = record["shard"]["index"]
        seen[index] = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
                       for p in (tmp_path / "out" / "shards").glob(f"*{index:06d}*")}

    summary = parse_corpus(cascade_model, conllu_inputs[0], tmp_path / "out", client=client, shard_size=20,
                           merge=True, progress=False, on_shard=stamp)
    assert os.path.exists(marker)                                      # a worker did die in shard 2
    assert summary.complete and summary.parsed == summary.shards
    assert outputs(tmp_path / "out") == outputs(cascade_reference[0])
    assert not list((tmp_path / "out" / "shards").glob(".*"))         # no partial file left
    after = stamps(tmp_path / "out")
    for index, files in seen.items():                                   # each file written once
        assert files and all(after[name] == stamp_ for name, stamp_ in files.items())
    # The nanny restarts the worker; the next tests get their two workers back.
    client.wait_for_workers(2, timeout=60)


def test_resume_after_an_interrupted_run_writes_nothing_twice(tmp_path, client, cascade_reference, conllu_inputs,
                                                               cascade_model):
    seen = []

    def interrupt(record):
        seen.append(record["shard"]["index"])
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        parse_corpus(cascade_model, conllu_inputs[0], tmp_path, client=client, shard_size=20, merge=True,
                     progress=False, on_shard=interrupt)
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "interrupted"
    deadline = time.monotonic() + 30       # a cancelled task that was running finishes (and writes) anyway
    while any(client.run(lambda dask_worker: len(dask_worker.state.executing)).values()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    done_before = {p.stem for p in (tmp_path / "shards").glob("*.json")}
    assert len(done_before) >= 3
    before = stamps(tmp_path)
    summary = parse_corpus(cascade_model, conllu_inputs[0], tmp_path, client=client, shard_size=20, merge=True,
                           progress=False)
    assert summary.complete and summary.resumed == len(done_before)
    assert summary.parsed == summary.shards - summary.resumed
    after = stamps(tmp_path)
    for name, stamp in before.items():
        assert after[name] == stamp, f"{name} was written again"
    assert outputs(tmp_path) == outputs(cascade_reference[0])
    assert summary.sentences == cascade_reference[1].sentences and summary.skipped == cascade_reference[1].skipped
    # A third run finds everything done and writes no shard.
    again = parse_corpus(cascade_model, conllu_inputs[0], tmp_path, workers=0, shard_size=20, progress=False)
    assert again.resumed == again.shards and again.parsed == 0 and stamps(tmp_path) == after


def test_a_changed_input_is_parsed_again_and_another_job_is_refused(tmp_path, cascade_model, conllu_inputs):
    source = tmp_path / "in.conllu"
    source.write_bytes(Path(conllu_inputs[0][0]).read_bytes())
    out = tmp_path / "out"
    parse_corpus(cascade_model, source, out, workers=0, shard_size=20, progress=False)
    before = stamps(out)
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace("\tthe\t", "\tThe\t", 1), encoding="utf-8")      # in the first shard only
    summary = parse_corpus(cascade_model, source, out, workers=0, shard_size=20, progress=False)
    assert summary.parsed == 1 and summary.resumed == summary.shards - 1
    assert stamps(out)["000000.conllu"] != before["000000.conllu"]
    assert stamps(out)["000001.conllu"] == before["000001.conllu"]
    with pytest.raises(ValueError, match=r"another job .*shard_size 20 -> 50"):
        parse_corpus(cascade_model, source, out, workers=0, shard_size=50, progress=False)
    redone = parse_corpus(cascade_model, source, out, workers=0, shard_size=50, overwrite=True, progress=False)
    assert redone.parsed == redone.shards == 2       # and the stale files of shards 2-4 are gone
    before = stamps(out)
    again = parse_corpus(cascade_model, source, out, workers=0, shard_size=50, overwrite=True, progress=False)
    assert again.parsed == 2 and all(stamps(out)[name] != before[name] for name in before)   # parsed, not reused
    assert sorted(p.name for p in (out / "shards").iterdir()) == [f"{i:06d}.{x}" for i in range(2)
                                                                   for x in ("conllu", "json")]


def test_limits_and_bad_settings_fail_before_any_work(tmp_path, cascade_model, spacy_model, conllu_inputs,
                                                      text_input):
    long_words = parse_corpus(cascade_model, conllu_inputs[0][0], tmp_path / "a", workers=0, max_words=8,
                              progress=False)
    too_long = [s for s in long_words.skipped if "max_words" in s["reason"]]
    assert too_long and long_words.sentences + len(too_long) == 90
    checks = [
        (dict(model=cascade_model, inputs=text_input, formats=("spacy",)), "writes conllu, not 'spacy'"),
        (dict(model=spacy_model, inputs=text_input, docs="pages"), "docs must be"),
        (dict(model=cascade_model, inputs=conllu_inputs[0], shard_size=0), "shard_size must be"),
        (dict(model=cascade_model, inputs=conllu_inputs[0], batch_size=0), "batch_size must be"),
        (dict(model=str(tmp_path), inputs=text_input), "without config.cfg"),
        (dict(model=text_input, inputs=conllu_inputs[0], workers=0), "not a vineparse cascade model"),
    ]
    for kwargs, message in checks:
        with pytest.raises(ValueError, match=message):
            parse_corpus(output=tmp_path / "b", progress=False, **{"workers": 0, **kwargs})
    with pytest.raises(FileNotFoundError):
        parse_corpus(cascade_model, tmp_path / "missing.conllu", tmp_path / "c", workers=0, progress=False)


def test_the_command(tmp_path, capsys, cascade_model, conllu_inputs):
    status = main(["parse-corpus", cascade_model, *conllu_inputs[0], "--out", str(tmp_path / "out"), "--workers",
                   "0", "--shard-size", "50", "--merge"])
    captured = capsys.readouterr()
    assert status == 0 and "0 failed" in captured.out and "skipped 2 input items" in captured.out
    assert "parse-corpus: 4/4 shards" in captured.err
    assert len(read_conllu(tmp_path / "out" / "parsed.conllu")) == 150
    status = main(["parse-corpus", cascade_model, *conllu_inputs[0], "--out", str(tmp_path / "out"), "--workers",
                   "0", "--shard-size", "10"])
    assert status == 2 and "holds the output of another job" in capsys.readouterr().err


def test_a_failing_shard_is_listed_and_the_others_finish(tmp_path, client, cascade_model, conllu_inputs):
    source = tmp_path / "in.conllu"
    source.write_bytes(Path(conllu_inputs[0][0]).read_bytes())
    changed = threading.Event()

    def change_input(record):
        # After planning and the first shard, the input changes under the job: the shards not yet read fail.
        if not changed.is_set():
            changed.set()
            source.write_bytes(source.read_bytes().replace(b"\tthe\t", b"\tTHE\t"))

    summary = parse_corpus(cascade_model, source, tmp_path / "out", client=client, shard_size=20, retries=0,
                           progress=False, on_shard=change_input)
    assert not summary.complete and summary.failed
    assert all("the input changed after the job was planned" in f["reason"] for f in summary.failed)
    assert all(f["file"] == str(source) for f in summary.failed)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["status"] == "incomplete" and manifest["totals"]["failed"] == len(summary.failed)


def test_a_model_that_does_not_load_on_the_workers_fails_clearly_and_leaves_no_plugin(tmp_path, client,
                                                                                       conllu_inputs):
    bad = tmp_path / "bad.msgpack"
    bad.write_text("not a model")
    with pytest.raises(ValueError, match=r"bad.msgpack: not a vineparse cascade model"):
        parse_corpus(bad, conllu_inputs[0], tmp_path / "out", client=client, progress=False)
    plugins = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.worker_plugins))
    assert not [name for name in plugins if name.startswith("vineparse")]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["status"] == "interrupted"
