"""`nlp.pipe(..., n_process=2)` gives the same output as one process (issue 15).

A tiny trained vine_cascade pipeline parses a mix of texts - single sentences, several sentences in one
text, a long text without boundaries, empty, whitespace-only and emoji texts - in one process and in two
worker processes: heads, labels and sentence starts must agree, in order, and `as_tuples` contexts must
come back with their docs. The default start method on Linux (fork) inherits the pipeline; with "spawn"
(the default on macOS and Windows) the workers get it pickled, so that is checked too, in a child
interpreter (the start method is global state).
"""
import json
import pickle
import subprocess
import sys
import textwrap

import pytest

from .tiny import parses


@pytest.fixture(scope="module")
def texts(trained):
    _, examples = trained
    sentences = [" ".join(t.text for t in eg.predicted) for eg in examples]
    return (sentences[:20]
            + [" ".join(sentences[20:24]), " ".join(sentences[24:40]),   # several sentences, a long text
               "", "   ", "\n", "👍🏽 ok 🙂 .", "a", "."] + sentences[40:50])


def test_two_processes_agree_with_one(trained, texts):
    nlp, _ = trained
    one = parses(nlp.pipe(texts, batch_size=4))
    assert any(len(p[0]) > 150 for p in one) and any(len(p[0]) == 0 for p in one)
    for batch_size in (1, 3, 16):
        assert parses(nlp.pipe(texts, batch_size=batch_size, n_process=2)) == one


def test_contexts_come_back_with_their_docs(trained, texts):
    nlp, _ = trained
    pairs = [(text, {"id": k}) for k, text in enumerate(texts)]
    out = list(nlp.pipe(pairs, as_tuples=True, batch_size=3, n_process=2))
    assert [context["id"] for _, context in out] == list(range(len(texts)))
    assert [doc.text for doc, _ in out] == [nlp.make_doc(text).text for text in texts]


SPAWN = textwrap.dedent("""
    import json, multiprocessing, sys
    import spacy
    import vineparse.pipeline  # noqa: F401
    if __name__ == "__main__":
        multiprocessing.set_start_method("spawn", force=True)
        nlp = spacy.load(sys.argv[1])
        texts = json.loads(open(sys.argv[2], encoding="utf-8").read())
        docs = nlp.pipe(texts, batch_size=3, n_process=2)
        out = [([t.head.i for t in d], [t.dep_ for t in d], [bool(t.is_sent_start) for t in d]) for d in docs]
        print(json.dumps(out))
""")


def test_spawned_workers_agree_with_one_process(trained, texts, tmp_path):
    nlp, _ = trained
    nlp.to_disk(tmp_path / "pipeline")
    (tmp_path / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    (tmp_path / "spawn.py").write_text(SPAWN, encoding="utf-8")
    run = subprocess.run([sys.executable, str(tmp_path / "spawn.py"), str(tmp_path / "pipeline"),
                          str(tmp_path / "texts.json")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    spawned = [tuple(p) for p in json.loads(run.stdout.strip().splitlines()[-1])]
    assert spawned == [tuple(p) for p in parses(nlp.pipe(texts, batch_size=3))]


def test_a_pipeline_that_has_parsed_still_pickles(trained, texts):
    """Spawned workers get the pipeline pickled in whatever state it is (the compiled runtimes kept for reuse
    do not pickle, so they must not hang on the pipeline)."""
    nlp, _ = trained
    one = parses(nlp.pipe(texts, batch_size=4))
    assert parses(pickle.loads(pickle.dumps(nlp)).pipe(texts, batch_size=4)) == one
