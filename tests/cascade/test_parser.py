"""The cascade parser end to end on a small slice of EWT: training, pruning, saving, the commands."""
import pickle

import numpy as np
import pytest
import srsly

from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.cascade.evaluation import evaluate
from vineparse.cascade.parser import MODEL_VERSION
from vineparse.cli import main
from vineparse.corpus import corpus_path, read_conllu


def test_training_learns_and_sets_thresholds(trained, ewt):
    parser, summary = trained
    assert [row["level"] for row in summary] == ["vine", "first", "second", "third"]
    for row in summary[:3]:
        assert row["dev_recall"] >= 0.99 and row["dev_kept_share"] < 1.0
        assert row["alpha"] == parser.alphas[summary.index(row)]
        assert row["head_cap"] == parser.levels[summary.index(row)].head_cap
    assert summary[0]["head_cap"] is None                  # the vine is never capped
    assert summary[0]["dev_recall"] >= 0.995               # and keeps its own recall target
    for k in (1, 2):                                       # a capped level leaves at most cap heads per word
        cap = parser.levels[k].head_cap
        if cap is not None:
            for sentence in ewt[1][:40]:
                sent = Example.from_sentence(sentence).sent
                mask = parser.prune(k, sent, parser.input_mask(sent, k))
                best, mm, _ = parser.levels[k].max_marginals(sent, parser.input_mask(sent, k))
                for m in range(1, sent.n + 1):   # more only on ties at the cap-th value
                    kept = np.flatnonzero(mask[:, m])
                    assert len(kept) <= cap or len(set(mm[kept, m])) < len(kept)
    result = evaluate(parser, ewt[1])
    assert result["uas"] > 65.0              # an untrained parser scores about 10
    assert [row["level"] for row in result["levels"]] == ["vine", "first", "second"]
    kept = [row["kept_share"] for row in result["levels"]]
    assert kept[0] >= kept[1] >= kept[2] and kept[2] < 0.8


def test_pruned_levels_never_lose_every_tree(trained, ewt):
    parser, _ = trained
    stats = parser.new_stats()
    for sentence in ewt[1][:50]:
        heads = parser.parse(sentence.words, list(sentence.xpos))
        assert len(heads) == len(sentence.words) + 1 and (heads[1:] == 0).sum() == 1
    assert parser.parse([], []).tolist() == [-1]
    assert stats.sentences == 0


def test_save_and_load_round_trip(trained, ewt, tmp_path):
    parser, _ = trained
    path = tmp_path / "new folder" / "model.msgpack"      # save creates the folder
    parser.save(path)
    loaded = CascadeParser.load(path)
    assert loaded.alphas == parser.alphas and loaded.orders == parser.orders
    assert [level.head_cap for level in loaded.levels] == [level.head_cap for level in parser.levels]
    for sentence in ewt[1][:30]:
        np.testing.assert_array_equal(loaded.parse(sentence.words, list(sentence.xpos)),
                                      parser.parse(sentence.words, list(sentence.xpos)))
    data = srsly.read_msgpack(path)
    for old in (99, 1):                        # version 1 had no head caps
        data["version"] = old
        srsly.write_msgpack(path, data)
        with pytest.raises(ValueError, match=f"format version {old}.*reads version {MODEL_VERSION}"):
            CascadeParser.load(path)
    srsly.write_msgpack(path, {"something": "else"})
    with pytest.raises(ValueError, match="not a vineparse cascade model"):
        CascadeParser.load(path)


def test_a_parser_that_has_parsed_keeps_its_runtime_and_still_pickles(trained, ewt):
    """The compiled runtime is kept for reuse (not rebuilt per call) but not on the parser, which a process
    pool pickles (CascadeRuntime does not pickle)."""
    parser, _ = trained
    sentence = ewt[1][0]
    heads = parser.parse(sentence.words, list(sentence.xpos))
    assert parser.runtime() is parser.runtime()
    copy = pickle.loads(pickle.dumps(parser))
    np.testing.assert_array_equal(copy.parse(sentence.words, list(sentence.xpos)), heads)


def test_cascades_sharing_levels_keep_their_weight_tables(trained):
    """A shorter cascade built on a trained one's pruning levels (as bench/cascade.py's VineCascade-k are)
    must not invalidate the longer one's cached weight table: rebuilding it costs a pass over every weight."""
    parser, _ = trained
    shorter = CascadeParser(orders=(0, 1), bits=parser.bits)
    shorter.levels[:1] = parser.levels[:1]
    shorter.levels[1].scorer.weights = parser.levels[1].scorer.weights.copy()
    first = parser.weight_table()[0]
    shorter.weight_table()
    assert parser.weight_table()[0] is first
    np.testing.assert_array_equal(shorter.weight_table()[0], first[:, :2])


@pytest.mark.parametrize("orders, message", [((), "at least one level"), ((1, 0), "only come first"),
                                             ((0,), "must be an Eisner order"), ((0, 4), "unknown cascade level")])
def test_bad_configurations(orders, message):
    with pytest.raises(ValueError, match=message):
        CascadeParser(orders=orders)


def test_commands_train_evaluate_parse(tmp_path, capsys):
    dev = corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")
    model = tmp_path / "m.msgpack"
    assert main(["train", "--train", str(dev), "--limit", "120", "--epochs", "1",
                 "--orders", "0,1", "--bits", "14", "--out", str(model)]) == 0
    assert "saved to" in capsys.readouterr().out
    scores = tmp_path / "scores.json"
    assert main(["evaluate", str(model), "--treebank", str(dev), "--json", str(scores)]) == 0
    assert 0 < srsly.read_json(scores)["uas"] <= 100
    raw = tmp_path / "raw.conllu"
    lines = dev.read_text(encoding="utf8").split("\n\n")[0].splitlines()
    raw.write_text("\n".join("\t".join(c[:6] + ["_", "_", "_", "_"]) if not l.startswith("#") and
                             (c := l.split("\t"))[0].isdigit() else l for l in lines) + "\n\n")
    out = tmp_path / "out.conllu"
    assert main(["parse", str(model), str(raw), "--out", str(out)]) == 0
    parsed = read_conllu(out)
    assert len(parsed) == 1 and (parsed[0].heads[1:] == 0).sum() == 1
    capsys.readouterr()
    assert main(["evaluate", str(raw)]) == 2
    assert "not a vineparse cascade model" in capsys.readouterr().err


def test_train_holds_out_a_tenth_without_dev_and_refuses_the_training_file_as_dev(tmp_path, capsys):
    """Small treebanks (issue 33): thresholds chosen on the training sentences prune too eagerly, so `train`
    holds out every tenth sentence when it has no --dev, and refuses the training file as --dev."""
    from vineparse.cascade.commands import hold_out
    dev = corpus_path("ud-multi", "sv_talbanken", "sv_talbanken-ud-dev.conllu")
    model = tmp_path / "m.msgpack"
    assert main(["train", "--train", str(dev), "--limit", "200", "--epochs", "1", "--orders", "0,1", "--bits", "14",
                 "--tag", "upos", "--out", str(model)]) == 0
    out = capsys.readouterr().out
    assert "holding out every tenth training sentence (20)" in out and "on 180 sentences" in out
    assert main(["train", "--train", str(dev), "--dev", str(dev), "--out", str(model)]) == 2
    assert "is the training treebank" in capsys.readouterr().err
    assert main(["train", "--train", str(dev), "--first-order-recall", "1.5", "--out", str(model)]) == 2
    assert "--first-order-recall must be in (0, 1], got 1.5" in capsys.readouterr().err
    assert main(["train", "--train", str(dev), "--jackknife", "1", "--out", str(model)]) == 2
    assert "--jackknife must be 0 (off) or at least 2 folds, got 1" in capsys.readouterr().err
    kept, held = hold_out(list(range(25)))
    assert held == [9, 19] and len(kept) == 23
