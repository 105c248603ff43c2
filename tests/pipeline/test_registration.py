"""Registration: spaCy entry points (a fresh interpreter that never imports vineparse itself), every
registered architecture through config, init, forward and backprop, and `spacy train` end to end."""
import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry
from thinc.api import Config

from .tiny import TINY_MODEL, make_examples

ROOT = Path(__file__).resolve().parents[2]


def fresh_python(code: str, cwd: Path) -> str:
    """Run `code` in a new interpreter outside the source tree (so only the installed package is seen)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_entry_points_are_declared():
    factories = {ep.name: ep.value for ep in entry_points(group="spacy_factories")}
    architectures = {ep.name: ep.value for ep in entry_points(group="spacy_architectures")}
    assert factories.get("vine_cascade") == "vineparse.pipeline.registrations:make_vine_cascade", \
        "vineparse is not installed with its entry points: pip install the package (make test does)"
    assert architectures.get("vineparse.VineCascadeModel.v3") == \
        "vineparse.pipeline.registrations:build_vine_cascade_model"
    callbacks = {ep.name: ep.value for ep in entry_points(group="spacy_callbacks")}
    assert callbacks.get("vineparse.scipy_blas.v1") == "vineparse.pipeline.registrations:scipy_blas_before_creation"
    assert callbacks.get("vineparse.calibrate_on_dev.v1") == "vineparse.pipeline.registrations:calibrate_before_saving"


def test_fresh_interpreter_adds_and_loads_without_importing_vineparse(trained, tmp_path):
    nlp, examples = trained
    nlp.to_disk(tmp_path / "pipeline")
    words = [t.text for t in examples[60].predicted]
    expected = [t.head.i for t in nlp(Doc(nlp.vocab, words=words))]
    out = fresh_python(f"""
        import json, sys
        import spacy
        from spacy.tokens import Doc
        assert "vineparse" not in sys.modules
        blank = spacy.blank("en")
        blank.add_pipe("vine_cascade")
        nlp = spacy.load({str(tmp_path / 'pipeline')!r})
        doc = nlp(Doc(nlp.vocab, words={words!r}))
        print(json.dumps([t.head.i for t in doc]))
    """, tmp_path)
    assert json.loads(out.strip().splitlines()[-1]) == expected


@pytest.mark.parametrize("name, config", [("vineparse.VineCascadeModel.v3", {**TINY_MODEL, "nL": 3}),
                                          ("vineparse.VineCascadeModel.v3", {**TINY_MODEL, "nL": 3, "start_width": 4}),
                                          ("vineparse.VineCascadeModel.v3", {**TINY_MODEL, "nL": 3, "span_width": 4})])
def test_every_registered_architecture_initializes_and_backpropagates(name, config):
    assert name in registry.architectures
    model = registry.resolve(Config({"model": config}))["model"]
    nlp = spacy.blank("en")
    docs = [Doc(nlp.vocab, words=["a", "b", "c"]), Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=["d"])]
    model.initialize(X=docs)
    Z, backprop = model.begin_update(docs)
    width = model.get_dim("nO")
    assert [z.shape for z in Z] == [(4, width), (1, width), (2, width)]
    backprop([np.ones_like(z) for z in Z])
    root = model.get_ref("encoder").layers[-2]
    assert root.name == "vine_root_row" and np.isfinite(root.get_grad("root")).all()


ENCODER = {"@architectures": "vineparse.MaxoutWindowBiLSTMEncoder.v1", "width": 8, "depth": 1, "window_size": 1,
           "maxout_pieces": 2, "lstm_width": 6}


def test_the_bilstm_encoder_initializes_and_backpropagates():
    model = registry.resolve(Config({"model": ENCODER}))["model"]
    X = [np.random.default_rng(0).normal(size=(n, 8)).astype("f") for n in (3, 1, 5)]
    model.initialize(X=X)
    Y, backprop = model.begin_update(X)
    assert model.get_dim("nO") == 14 and [y.shape for y in Y] == [(3, 14), (1, 14), (5, 14)]
    dX = backprop([np.ones_like(y) for y in Y])
    assert [d.shape for d in dX] == [x.shape for x in X] and all(np.isfinite(d).all() for d in dX)
    with pytest.raises(ValueError, match="lstm_width"):
        registry.resolve(Config({"model": {**ENCODER, "lstm_width": 5}}))


def test_all_vineparse_architectures_are_in_the_table():
    names = {name for name in registry.architectures.get_all() if name.startswith("vineparse.")}
    assert names == {"vineparse.VineCascadeModel.v3", ENCODER["@architectures"]}


@pytest.mark.parametrize("name", ["ewt.cfg", "ewt_bilstm.cfg", "ewt_spacy_parser_bilstm.cfg"])
def test_spacy_train_runs_end_to_end(ewt_sentences, tmp_path, name):
    nlp = spacy.blank("en")
    examples = make_examples(nlp, ewt_sentences[:40])
    for part_name, part in (("train", examples[:30]), ("dev", examples[30:])):
        DocBin(docs=[eg.reference for eg in part]).to_disk(tmp_path / f"{part_name}.spacy")
    config = Config().from_disk(ROOT / "configs" / name, interpolate=False)
    embed = config["components"]["tok2vec"]["model"]["embed"]
    embed.update(width=32, rows=[max(n // 10, 50) for n in embed["rows"]])
    encode = config["components"]["tok2vec"]["model"]["encode"]
    encode.update(width=32, depth=1)
    if "lstm_width" in encode:                        # listeners read the CNN's and the BiLSTM's values
        encode["lstm_width"] = 8
        for component in config["components"].values():
            if component.get("model", {}).get("tok2vec"):
                component["model"]["tok2vec"]["width"] = 40
    parser = "vine_cascade" if "vine_cascade" in config["components"] else "parser"
    if parser == "vine_cascade":
        config["components"]["vine_cascade"]["model"].update(arc_width=16, part_width=8, label_width=8)
    config["training"].update(max_steps=6, eval_frequency=3)
    config["paths"].update(train=str(tmp_path / "train.spacy"), dev=str(tmp_path / "dev.spacy"))
    config.to_disk(tmp_path / "tiny.cfg")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-m", "spacy", "train", str(tmp_path / "tiny.cfg"),
                             "--output", str(tmp_path / "out")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    if parser == "vine_cascade":       # the configs calibrate on dev before every save
        assert result.stderr.count("vine_cascade calibrated on") >= 3     # each save: steps 0, 3, 6, the end
    trained = spacy.load(tmp_path / "out" / "model-last")
    assert trained.pipe_names == ["tok2vec", "tagger", parser]
    doc = trained("The cat sat on the mat .")
    assert sum(t.head.i == t.i for t in doc) == len(list(doc.sents))


def test_spacy_evaluate_and_benchmark_speed_run_on_the_pipeline(trained, tmp_path):
    nlp, examples = trained
    nlp.to_disk(tmp_path / "pipeline")
    DocBin(docs=[eg.reference for eg in examples[60:]]).to_disk(tmp_path / "dev.spacy")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(tmp_path / "pipeline"),
                             str(tmp_path / "dev.spacy"), "--gold-preproc", "--output", str(tmp_path / "scores.json")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert 0.0 <= scores["dep_las"] <= scores["dep_uas"] <= 1.0
    result = subprocess.run([sys.executable, "-m", "spacy", "benchmark", "speed", str(tmp_path / "pipeline"),
                             str(tmp_path / "dev.spacy"), "--batches", "30", "--warmup", "1", "--batch-size", "4"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "words/s" in result.stdout or "WPS" in result.stdout.upper()
