"""Round trips through bytes and disk give identical predictions; nlp.pipe batching and processes agree; a
pipeline saved before settings were retired loads (after `upgrade`) where they had the kept value."""
import numpy as np
import pytest
import spacy
import srsly
from spacy.tokens import Doc
from thinc.api import Config

from vineparse.pipeline.architectures import RETIRED as MODEL_RETIRED
from vineparse.pipeline.serialization import upgrade_config
from vineparse.pipeline.settings import RETIRED

from .tiny import TINY_MODEL, parses, train_tiny


def test_bytes_round_trip_gives_identical_predictions(trained):
    nlp, examples = trained
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    data = nlp.get_pipe("vine_cascade").to_bytes()
    other = spacy.blank("en")
    other.add_pipe("vine_cascade", config={"model": TINY_MODEL}).from_bytes(data)
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected
    assert other.get_pipe("vine_cascade").to_bytes() == data


def test_disk_round_trip_gives_identical_predictions(trained, tmp_path):
    nlp, examples = trained
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert parses(loaded.pipe([Doc(loaded.vocab, words=[t.text for t in d]) for d in docs])) == expected
    assert loaded.get_pipe("vine_cascade").cfg == nlp.get_pipe("vine_cascade").cfg


def test_pipe_batch_sizes_and_two_processes_agree(trained):
    nlp, examples = trained
    texts = [" ".join(t.text for t in eg.predicted) for eg in examples[:24]]
    one = parses(nlp(text) for text in texts)
    assert parses(nlp.pipe(texts, batch_size=5)) == one
    assert parses(nlp.pipe(texts, batch_size=7, n_process=2)) == one


def test_span_terms_train_and_round_trip(ewt_sentences):
    """A model with the arc scorer's span term (`span_width`) trains, and its bytes load into a component of
    the same config with identical predictions; the span parameters are learned, not left at zero."""
    model = {**TINY_MODEL, "span_width": 4}
    nlp, examples = train_tiny(ewt_sentences[:80], steps=6, model=model)
    arcs = nlp.get_pipe("vine_cascade").model.get_ref("arcs")
    assert arcs.get_dim("span") == 4 and abs(arcs.get_param("G")).sum() > 0
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    other = spacy.blank("en")
    other.add_pipe("vine_cascade", config={"model": model}).from_bytes(nlp.get_pipe("vine_cascade").to_bytes())
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected


def test_a_shared_part_projection_trains_and_round_trips(ewt_sentences):
    """A model whose part kinds share one projection (`shared_part_roles`) trains, saves that projection once
    and loads into a component of the same config as one layer again, with identical predictions."""
    model = {**TINY_MODEL, "shared_part_roles": True}
    nlp, examples = train_tiny(ewt_sentences[:80], steps=6, model=model)
    parser = nlp.get_pipe("vine_cascade")
    assert abs(parser.model.get_ref("grand_sibling").get_param("v")).sum() > 0
    docs = [eg.predicted for eg in examples[60:]]
    expected = parses(nlp.pipe([d.copy() for d in docs]))
    other = spacy.blank("en")
    loaded = other.add_pipe("vine_cascade", config={"model": model}).from_bytes(parser.to_bytes())
    layers = [loaded.model.get_ref(name).layers[0] for name in ("sibling", "grandparent", "grand_sibling")]
    assert layers[0] is layers[1] is layers[2] and layers[0].get_dim("nO") == 4 * TINY_MODEL["part_width"]
    np.testing.assert_array_equal(layers[0].get_param("W"), parser.model.get_ref("sibling").layers[0].get_param("W"))
    assert parses(other.pipe([Doc(other.vocab, words=[t.text for t in d]) for d in docs])) == expected


def test_a_saved_component_with_a_retired_setting_loads_at_the_kept_value_only(trained):
    """A component saved before a setting was retired (`settings.RETIRED`) recorded it: at the value whose
    behaviour was kept it loads and parses as before; at another value it is refused, naming the setting."""
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = srsly.msgpack_loads(parser.to_bytes())
    cfg = srsly.json_loads(saved["cfg"])
    docs = [eg.predicted for eg in examples[60:]]
    fresh = spacy.blank("en").add_pipe("vine_cascade", config={"model": TINY_MODEL})
    fresh.from_bytes(srsly.msgpack_dumps({**saved, "cfg": srsly.json_dumps({**cfg, **RETIRED})}))
    assert fresh.cfg == parser.cfg
    assert parses(fresh.pipe([d.copy() for d in docs])) == parses(nlp.pipe([d.copy() for d in docs]))
    for name, value in (("decoder", "mbr"), ("learn_rate_scale", 2.0), ("reparse_bonus", 0.5)):
        data = srsly.msgpack_dumps({**saved, "cfg": srsly.json_dumps({**cfg, name: value})})
        with pytest.raises(ValueError, match=f"{name} = {value!r}"):
            spacy.blank("en").add_pipe("vine_cascade", config={"model": TINY_MODEL}).from_bytes(data)


def test_upgrade_takes_the_retired_settings_out_of_a_saved_config(trained, tmp_path):
    """A pipeline whose config.cfg names retired settings (of the component and of its model) at the values
    whose behaviour was kept: spaCy refuses it, `python -m vineparse.pipeline upgrade` takes them out, and it
    then loads and parses as before; a retired setting at another value is refused and the file left alone."""
    from vineparse.pipeline.__main__ import main

    nlp, examples = trained
    nlp.to_disk(tmp_path / "old")
    path = tmp_path / "old" / "config.cfg"
    config = Config().from_disk(path, interpolate=False)
    config["components"]["vine_cascade"].update(RETIRED)
    config["components"]["vine_cascade"]["model"].update(MODEL_RETIRED)
    config.to_disk(path)
    with pytest.raises(ValueError, match="unexpected argument: 'arc_loss'"):
        spacy.load(tmp_path / "old")
    assert main(["upgrade", str(tmp_path / "old")]) == 0
    docs = [eg.predicted for eg in examples[60:]]
    loaded = spacy.load(tmp_path / "old")
    assert loaded.config["components"]["vine_cascade"] == nlp.config["components"]["vine_cascade"]
    assert parses(loaded.pipe([d.copy() for d in docs])) == parses(nlp.pipe([d.copy() for d in docs]))
    config["components"]["vine_cascade"]["model"]["context_depth"] = 2
    config.to_disk(path)
    assert main(["upgrade", str(tmp_path / "old")]) == 2
    assert Config().from_disk(path, interpolate=False) == config
    with pytest.raises(ValueError, match="context_depth = 2"):
        upgrade_config(config)
