"""Loading saved models (issue 15): a malformed, truncated, old or foreign model file raises a clear error
that names the file, never another exception and never a silently wrong model.

Structural checks of the cascade model (a missing or renamed level, weights out of range, sizes that would
allocate too much), then a fuzz over the bytes of real saved files for all three model kinds: the cascade
(``CascadeParser.load``), the A* parser (``AStarParser.load``) and the bitext model
(``BitextModel.from_disk``): truncated, bytes flipped, inserted or dropped, or replaced by another kind of
file. Every load either succeeds with a usable model or raises the loader's ValueError naming the file.
"""
import copy
import os
import re

import numpy as np
import pytest
import srsly
from hypothesis import HealthCheck, given, settings, strategies as st

from vineparse.astar import AStarParser, ModelError
from vineparse.bitext.model import BitextModel
from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.cascade.parser import MODEL_VERSION, ModelFileError
from vineparse.corpus import corpus_path, read_conllu, read_ptb_sample

EXAMPLES = 30 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 150
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def sentences():
    return read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))[:60]


@pytest.fixture(scope="module")
def cascade(sentences):
    parser = CascadeParser(orders=(0, 1, 2), bits=10)
    examples = [Example.from_sentence(s) for s in sentences]
    train(parser, examples, examples, TrainingSettings(epochs=1, label_bits=10), report=lambda message: None)
    return parser


@pytest.fixture(scope="module")
def files(cascade, tmp_path_factory):
    """One small saved model of each kind: {kind: bytes}."""
    folder = tmp_path_factory.mktemp("models")
    cascade.save(folder / "cascade.msgpack")
    astar = AStarParser().train(read_ptb_sample("train")[:40], model="factored")
    astar.save(folder / "astar.msgpack")
    BitextModel.train([(["a", "b"], ["x", "y"]), (["b"], ["y"])]).to_disk(folder / "bitext.msgpack")
    return {kind: (folder / f"{kind}.msgpack").read_bytes() for kind in ("cascade", "astar", "bitext")}


def load_cascade(path):
    return CascadeParser.load(path)


LOADERS = {"cascade": (load_cascade, ModelFileError), "astar": (AStarParser.load, ModelError),
           "bitext": (BitextModel.from_disk, ValueError)}


def check_load(kind, path):
    """Load `path` with the `kind` loader: a model, or its error naming the file (anything else fails)."""
    load, error_type = LOADERS[kind]
    try:
        model = load(path)
    except error_type as error:
        assert str(error).startswith(f"{path}: "), str(error)
        return None
    return model


# -- the cascade model's structure -----------------------------------------------------------------------

def _drop_level(d):
    d["levels"].pop(1)


def _rename_level(d):
    d["levels"][1]["name"] = "third"


def _index_out_of_range(d):
    d["levels"][0]["indices"] = np.array([1 << 20], dtype=np.uint32)
    d["levels"][0]["values"] = np.array([1.0], dtype=np.float32)


def _length_mismatch(d):
    d["levels"][0]["values"] = d["levels"][0]["values"][:-1]


def _nan_weight(d):
    d["levels"][2]["values"][0] = np.nan


def _huge_bits(d):
    d["config"]["bits"] = 60


def _bad_cap(d):
    d["levels"][1]["head_cap"] = -2


def _missing_config_key(d):
    del d["config"]["orders"]


def _bad_orders(d):
    d["config"]["orders"] = [0, 7]


def _alphas(d):
    d["alphas"] = [0.5]


def _labeler_size(d):
    d["labeler"]["bits"] = 80


def _labeler_missing(d):
    del d["labeler"]["labels"]


def _labeler_key_lost(d):          # a damaged key must not load as a parser trained without labels
    d["labelXr"] = d.pop("labeler")


def _old_version(d):
    d["version"] = 2


def _not_a_map(d):
    d["levels"][0] = "weights"


@pytest.mark.parametrize("corrupt,message", [
    (_drop_level, r"config lists levels \['vine', 'first', 'second'\] but it holds weights for \['vine', 'second'\]"),
    (_rename_level, r"holds weights for \['vine', 'third', 'second'\]"),
    (_index_out_of_range, "level vine has weight indices outside 0..1023"),
    (_length_mismatch, "weight indices but .* values"),
    (_nan_weight, "level second has non-finite weights"),
    (_huge_bits, "bits must be an integer 1..26, got 60"),
    (_bad_cap, "head cap must be an integer >= 1, got -2"),
    (_missing_config_key, "the config lacks 'orders'"),
    (_bad_orders, "unknown cascade level 7"),
    (_alphas, "2 pruning levels but 1 alphas"),
    (_labeler_size, "labeller bits must be in 1..26, got 80"),
    (_labeler_missing, "the saved labeller lacks labels"),
    (_labeler_key_lost, r"its entries are \['alphas', 'config', 'format', 'labelXr', 'levels', 'lowering', 'version'\]"),
    (_old_version, f"format version 2, but this vineparse reads version {MODEL_VERSION} \\(and 4, 5\\) \\(version 3 "
                   "added the labeller, 4 the weight precision, 5 pseudo-projective labels, 6 the lowering model\\)"),
    (_not_a_map, r"holds weights for \[None, 'first', 'second'\]"),
])
def test_malformed_cascade_models_are_refused(cascade, tmp_path, corrupt, message):
    data = copy.deepcopy(cascade.to_dict())
    corrupt(data)
    path = tmp_path / "bad.msgpack"
    srsly.write_msgpack(path, data)
    with pytest.raises(ModelFileError, match=f"^{re.escape(str(path))}: .*{message}"):
        CascadeParser.load(path)


def test_cascade_round_trip_is_exact(cascade, sentences, tmp_path):
    path = tmp_path / "m.msgpack"
    cascade.save(path)
    loaded = CascadeParser.load(path)
    for s in sentences[:20]:
        a = cascade.parse_labelled(s.words, list(s.xpos), list(s.upos))
        b = loaded.parse_labelled(s.words, list(s.xpos), list(s.upos))
        np.testing.assert_array_equal(a[0], b[0])
        assert list(a[1]) == list(b[1])


# -- every loader against corrupted bytes --------------------------------------------------------------

@pytest.mark.parametrize("kind", list(LOADERS))
@pytest.mark.parametrize("other", ["cascade", "astar", "bitext", "conllu", "empty", "text", "missing", "folder"])
def test_wrong_kind_of_file(kind, other, files, tmp_path):
    path = tmp_path / f"model-{other}"
    if other in files:
        if other == kind:
            return
        path.write_bytes(files[other])
    elif other == "conllu":
        path.write_bytes(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu").read_bytes()[:2000])
    elif other == "empty":
        path.write_bytes(b"")
    elif other == "text":
        path.write_text("hello", encoding="utf-8")
    elif other == "folder":
        path.mkdir()
    load, error_type = LOADERS[kind]
    with pytest.raises(error_type, match=f"^{re.escape(str(path))}: "):
        load(path)


@st.composite
def corrupted(draw, data: bytes):
    kind = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "garbage"]))
    at = draw(st.integers(0, len(data)))
    if kind == "truncate":
        return data[:at]
    if kind == "garbage":
        return draw(st.binary(max_size=200))
    junk = draw(st.binary(min_size=1, max_size=8))
    if kind == "flip":
        return data[:at] + junk + data[at + len(junk):]
    if kind == "insert":
        return data[:at] + junk + data[at:]
    return data[:at] + data[at + len(junk):]


@pytest.mark.parametrize("kind", list(LOADERS))
@FUZZ
@given(data=st.data())
def test_corrupted_model_files(kind, data, files, tmp_path):
    content = data.draw(corrupted(files[kind]))
    path = tmp_path / f"fuzz-{kind}.msgpack"
    path.write_bytes(content)
    model = check_load(kind, path)
    if model is not None and kind == "cascade":     # a model that loads can parse
        model.parse_labelled(["A", "test", "."], ["DT", "NN", "."], ["DET", "NOUN", "PUNCT"])
    elif model is not None and kind == "astar":
        model.parse(["A", "test", "."], ["DT", "NN", "."])
