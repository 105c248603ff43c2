"""Corpus-level expectations, training, saved models, parallel CoNLL-U and the `bitext` command."""
import json

import numpy as np
import pytest
import srsly

from vineparse import cli
from vineparse.bitext import (MODEL_VERSION, BitextConfig, BitextModel, BitextPair, ModelVersionError,
                              corpus_expectations, expectations, fit, pud_pairs, read_parallel_conllu)

PAIRS = pud_pairs(max_product=60)


@pytest.fixture(scope="module")
def model():
    return BitextModel.train([(p.src, p.tgt) for p in pud_pairs()[:300]])


def test_corpus_expectations_in_parallel_equal_serial_and_skips_are_reported(model):
    pairs = list(PAIRS[:6]) + [BitextPair([], ["x"], id="empty"), ("a b".split(), ["x"])]
    lines = []
    serial = corpus_expectations(pairs, "randomized", 3, 2, model=model, progress=lines.append)
    parallel = corpus_expectations(pairs, "randomized", 3, 2, model=model, processes=2, progress=False)
    assert [s[0] for s in serial.skipped] == ["empty"] and "source sentence is empty" in serial.skipped[0][1]
    assert serial.results[6] is None and serial.results[7] is not None
    for a, b in zip(serial.results, parallel.results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_allclose(serial.totals, sum(r.counts for r in serial.results if r is not None))
    assert lines and lines[-1].startswith("bitext randomized: 8/8 pairs, 1 skipped")
    # Pair i is seeded from (seed, i): the corpus call equals the single-pair call with that seed.
    from vineparse.bitext.parallel import pair_seed
    single = expectations(PAIRS[2].src, PAIRS[2].tgt, "randomized", 3, pair_seed(2, 2), model=model,
                          src_tags=PAIRS[2].src_tags, tgt_tags=PAIRS[2].tgt_tags)
    np.testing.assert_array_equal(single.counts, serial.results[2].counts)


def test_exact_is_skipped_beyond_the_limit_in_corpus_calls(model):
    small = BitextModel(model.model1, model.weights, BitextConfig(max_exact_product={"binary": 30}))
    out = corpus_expectations(PAIRS[:10], "exact", model=small, progress=False)
    too_long = [p.id for p in PAIRS[:10] if p.product > 30]
    assert [s[0] for s in out.skipped] == too_long and all("too long" in s[1] for s in out.skipped)


def test_fit_with_exact_expectations_never_lowers_the_objective(model):
    result = fit(PAIRS[:12], model, iterations=6, method="exact", learning_rate=0.5, progress=False)
    accepted = [h["objective"] for h in result.history if not h["rejected"]]
    assert len(accepted) >= 3 and all(b >= a for a, b in zip(accepted, accepted[1:]))
    assert accepted[-1] > accepted[0]
    assert not np.array_equal(result.model.weights, model.weights)
    assert result.model.model1 is model.model1


def test_fit_with_randomized_expectations_and_given_links(model):
    links = [[(0, 0)] if p.product else [] for p in PAIRS[:4]]
    result = fit(PAIRS[:4], model, iterations=2, method="randomized", samples=2, links=links, progress=False)
    assert [h["objective"] for h in result.history] == [None, None]
    assert np.isfinite(result.model.weights).all()
    with pytest.raises(ValueError, match="links has 1 entries for 4 pairs"):
        fit(PAIRS[:4], model, links=[[]], progress=False)


def test_model_round_trip_and_version_errors(model, tmp_path):
    path = tmp_path / "m" / "bitext.msgpack"
    trained = model.with_weights(model.weights + 0.25)
    trained.to_disk(path)
    again = BitextModel.from_disk(path)
    np.testing.assert_array_equal(again.weights, trained.weights)
    pair = PAIRS[0]
    np.testing.assert_allclose(expectations(pair.src, pair.tgt, model=again).counts,
                               expectations(pair.src, pair.tgt, model=trained).counts)
    np.testing.assert_array_equal(again.links(pair.src, pair.tgt), trained.links(pair.src, pair.tgt))
    msg = srsly.msgpack_loads(path.read_bytes())
    msg["version"] = MODEL_VERSION + 1
    with pytest.raises(ModelVersionError, match=f"version {MODEL_VERSION + 1}, this vineparse reads version"):
        BitextModel.from_bytes(srsly.msgpack_dumps(msg))
    msg["version"] = MODEL_VERSION
    msg["features"] = msg["features"][:-1]
    with pytest.raises(ModelVersionError, match="different feature set"):
        BitextModel.from_bytes(srsly.msgpack_dumps(msg))
    msg["features"] = srsly.msgpack_loads(path.read_bytes())["features"]
    msg["alXgner"] = msg.pop("aligner")                   # a damaged key is not a model without an aligner
    with pytest.raises(ModelVersionError, match="its entries are .*'alXgner'"):
        BitextModel.from_bytes(srsly.msgpack_dumps(msg))
    with pytest.raises(ModelVersionError, match="no version field"):
        BitextModel.from_bytes(srsly.msgpack_dumps([1, 2]))
    with pytest.raises(ValueError, match="weights must have shape"):
        BitextModel(weights=np.zeros(3))
    with pytest.raises(ValueError, match="unknown grammars"):
        BitextConfig(max_exact_product={"unary": 3})


def test_read_parallel_conllu_reports_unmatched_sentences(tmp_path):
    def sentence(sent_id, words):
        rows = [f"{i + 1}\t{w}\t{w}\tNOUN\tNN\t_\t{0 if i == 0 else 1}\t{'root' if i == 0 else 'dep'}\t_\t_"
                for i, w in enumerate(words)]
        return f"# sent_id = {sent_id}\n" + "\n".join(rows) + "\n\n"

    (tmp_path / "a.conllu").write_text(sentence("s1", ["a", "b"]) + sentence("s2", ["c"]), encoding="utf-8")
    (tmp_path / "b.conllu").write_text(sentence("s1", ["x"]) + sentence("s3", ["y"]), encoding="utf-8")
    with pytest.warns(UserWarning, match="2 sentences have no partner"):
        pairs = read_parallel_conllu(tmp_path / "a.conllu", tmp_path / "b.conllu")
    assert [(p.id, p.src, p.tgt, p.src_tags) for p in pairs] == [("s1", ["a", "b"], ["x"], ["NOUN", "NOUN"])]
    assert sorted(pairs.unmatched) == ["s2", "s3"]


def test_bitext_command(tmp_path, capsys):
    out = tmp_path / "e.json"
    assert cli.main(["bitext", "expectations", "--max-product", "40", "--limit", "4", "--samples", "2",
                     "--json", str(out), "--top", "3"]) == 0
    printed = capsys.readouterr().out
    assert "4 pairs in" in printed and "Bispans kept" in printed
    data = json.loads(out.read_text())
    assert len(data["pairs"]) == 4 and data["method"] == "randomized" and "emit:lex_fwd" in data["totals"]
    model_path = tmp_path / "m.msgpack"
    assert cli.main(["bitext", "fit", "--max-product", "40", "--limit", "4", "--iterations", "1",
                     "--out", str(model_path)]) == 0
    assert cli.main(["bitext", "expectations", "--model", str(model_path), "--method", "exact",
                     "--max-product", "40", "--limit", "2"]) == 0
    assert cli.main(["bitext", "expectations", "--max-product", "40", "--limit", "2", "--screen", "0.001",
                     "--json", str(out)]) == 0
    assert all("screened" in record for record in json.loads(out.read_text())["pairs"])
    assert cli.main(["bitext", "expectations", "--samples", "0"]) == 2
    assert "error: --samples must be >= 1" in capsys.readouterr().err
    assert cli.main(["bitext", "expectations", "--screen", "2"]) == 2
    assert "error: --screen must be in [0, 1]" in capsys.readouterr().err
    (tmp_path / "bad.msgpack").write_bytes(b"\x91\x01")
    assert cli.main(["bitext", "expectations", "--model", str(tmp_path / "bad.msgpack"), "--limit", "1"]) == 2
    assert "cannot load" in capsys.readouterr().err


def _raise_on_two(model, index, item, options):
    from vineparse.bitext.grammar import EmptySentenceError

    if item == "empty":
        raise EmptySentenceError("the source sentence is empty")
    if item == 2:
        raise ValueError("a bug, not an input error")
    return item


@pytest.mark.parametrize("processes", [1, 2])
def test_issue15_only_documented_input_errors_skip_a_pair(model, processes):
    from vineparse.bitext.parallel import map_pairs

    out = map_pairs(_raise_on_two, model, [0, "empty", 1], {}, processes, False)
    assert out == [(0, None), (None, "EmptySentenceError: the source sentence is empty"), (1, None)]
    with pytest.raises(ValueError, match="a bug, not an input error"):
        map_pairs(_raise_on_two, model, [0, 1, 2, 3], {}, processes, False)


def test_issue15_a_bad_pair_that_is_not_a_documented_skip_propagates(model):
    bad = BitextPair(["a", "b"], ["x"], ["NOUN"], ["NOUN"], id="tags")       # two words, one tag
    with pytest.raises(ValueError, match="the source sentence has 2 words but 1 tags"):
        corpus_expectations([PAIRS[0], bad], "randomized", 2, model=model, progress=False)


def test_m_prime_comes_from_the_configured_aligner(model):
    from vineparse.bitext.features import EMIT_DENSE

    pair = PAIRS[5]
    assert model.aligner is not None
    np.testing.assert_array_equal(model.links(pair.src, pair.tgt), model.aligner.links(pair.src, pair.tgt))
    by_model1 = BitextModel(model.model1, model.weights, BitextConfig(aligner="model1"), model.aligner)
    np.testing.assert_array_equal(by_model1.links(pair.src, pair.tgt), model.model1.intersection(pair.src, pair.tgt))
    feats = model.featurizer.pair(pair.src, pair.tgt)
    links = model.links(pair.src, pair.tgt)
    np.testing.assert_array_equal(np.argwhere(feats.emit[..., EMIT_DENSE.index("emit:m_prime")] == 1), links)
    np.testing.assert_allclose(feats.emit[..., EMIT_DENSE.index("emit:agreement")],
                               model.aligner.posterior(pair.src, pair.tgt))
    assert BitextModel(model.model1).links(pair.src, pair.tgt).shape == (0, 2)     # no aligner: M' is empty
    with pytest.raises(ValueError, match="aligner must be one of"):
        BitextConfig(aligner="giza")
    with pytest.raises(ValueError, match="link_threshold"):
        BitextConfig(link_threshold=0.0)
