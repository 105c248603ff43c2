"""The defaults are the shipped model: every setting's and every model argument's default is configs/ewt.cfg's
value, and a pipeline built from the defaults (`add_pipe("vine_cascade")`, `spacy init config`) trains into the
same component as one built from that config."""
from pathlib import Path

import spacy
from spacy.cli.init_config import init_config
from spacy.language import Language
from spacy.util import load_model_from_config
from thinc.api import Config

from vineparse.pipeline.architectures import default_model_config
from vineparse.pipeline.settings import NAMES, declared_defaults

from .tiny import make_examples

SHIPPED = Path(__file__).resolve().parents[2] / "configs" / "ewt.cfg"
NOT_SETTINGS = ("factory", "model", "scorer")


def shipped() -> Config:
    return Config().from_disk(SHIPPED)


def _same_keys(defaults, written):
    """`defaults` where `written` sets a key (a key the shipped config leaves out takes the default)."""
    assert set(written) <= set(defaults), set(written) - set(defaults)       # spaCy refuses other keys
    return {key: defaults[key] for key in written}


def test_every_setting_defaults_to_the_shipped_value():
    component = shipped()["components"]["vine_cascade"]
    written = {key: value for key, value in component.items() if key not in NOT_SETTINGS}
    assert _same_keys(declared_defaults(), written) == written


def test_every_model_argument_defaults_to_the_shipped_value():
    config = shipped()
    model = dict(config["components"]["vine_cascade"]["model"])
    listener = model.pop("tok2vec")
    default = default_model_config()
    assert _same_keys(default, model) == model
    # the shipped component listens to a shared tok2vec; the default one owns a tok2vec of the same architecture
    assert listener["@architectures"] == "spacy.Tok2VecListener.v1"
    assert default["tok2vec"] == config["components"]["tok2vec"]["model"]
    assert listener["width"] == default["tok2vec"]["encode"]["width"]


def test_the_factory_and_init_config_take_those_defaults():
    meta = Language.get_factory_meta("vine_cascade")
    assert meta.default_config == {"model": default_model_config(), **declared_defaults(),
                                   "scorer": {"@scorers": "spacy.parser_scorer.v1"}}
    # `spacy init config` fills the component in from the factory's default config: its own tok2vec (spaCy
    # makes listeners of its own components only), of the architecture of the shared one it writes (spaCy's
    # efficiency tok2vec) with the space-after flag added, as configs/ewt.cfg has it
    generated = init_config(lang="en", pipeline=["tagger", "vine_cascade"], optimize="efficiency").interpolate()
    component = generated["components"]["vine_cascade"]
    assert {key: component[key] for key in NAMES} == declared_defaults()
    assert component["model"] == default_model_config()
    shared = generated["components"]["tok2vec"]["model"]
    flagged = dict(shared["embed"], attrs=shared["embed"]["attrs"] + ["SPACY"], rows=shared["embed"]["rows"] + [50])
    assert component["model"]["tok2vec"] == dict(shared, embed=flagged)


def _shapes(model):
    """Every node of `model` in walk order: its name, its dims and its parameters' shapes."""
    return [(node.name, {dim: node.get_dim(dim) for dim in node.dim_names if node.has_dim(dim)},
             {name: node.get_param(name).shape for name in node.param_names if node.has_param(name)})
            for node in model.walk()]


def _train(nlp, examples, steps=2):
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        nlp.update(examples[step * 5:step * 5 + 5], sgd=optimizer)
    return nlp


def test_a_default_pipeline_trains_into_the_shipped_component(ewt_sentences):
    """tagger + `add_pipe("vine_cascade")` with no config and configs/ewt.cfg's pipeline, each trained two steps on
    the same sentences: the same settings, model config and layers (dims and parameter shapes), but for the
    tok2vec the component owns in one and shares in the other, of the same architecture and sizes."""
    spacy.util.fix_random_seed(0)
    default = spacy.blank("en")
    default.add_pipe("tagger")
    default.add_pipe("vine_cascade")
    _train(default, make_examples(default, ewt_sentences[:10]))
    ewt = load_model_from_config(shipped(), auto_fill=True)
    _train(ewt, make_examples(ewt, ewt_sentences[:10]))
    mine, theirs = default.get_pipe("vine_cascade"), ewt.get_pipe("vine_cascade")
    assert mine.cfg == theirs.cfg
    expected = ewt.config["components"]["vine_cascade"].copy()         # filled in, as the default one is
    expected["model"]["tok2vec"] = ewt.config["components"]["tok2vec"]["model"]
    assert default.config["components"]["vine_cascade"] == expected
    for name in ("arcs", "outer", "sibling", "grandparent", "grand_sibling", "labels", "starts"):
        assert _shapes(mine.model.get_ref(name)) == _shapes(theirs.model.get_ref(name)), name
    # the encoder after the tok2vec (BiLSTM, root row, dropout), and the tok2vec itself
    layers = [component.model.get_ref("encoder").layers[1:] for component in (mine, theirs)]
    assert [_shapes(layer) for layer in layers[0]] == [_shapes(layer) for layer in layers[1]]
    assert _shapes(mine.model.get_ref("tok2vec")) == _shapes(ewt.get_pipe("tok2vec").model)
