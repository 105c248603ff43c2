"""The cascade's labeller (issue 15): feature rows, the averaged perceptron against a naive one, labels that
are learnt, saved and loaded with the model, and `vineparse parse | evaluate` writing labels and LAS."""
import numpy as np
import pytest
import srsly

from vineparse._kernels.label_features import N_TEMPLATES, label_rows
from vineparse.cascade import CascadeParser
from vineparse.cascade.encoding import encode, encode_sentence
from vineparse.cascade.evaluation import evaluate
from vineparse.cascade.labeler import Labeler
from vineparse.cli import main
from vineparse.corpus import corpus_path, read_conllu

from .conftest import ewt_slices, train_cascade


@pytest.fixture(scope="module")
def ewt():
    return ewt_slices(600, 200)


@pytest.fixture(scope="module")
def trained(ewt):
    return train_cascade(*ewt, orders=(0, 1), bits=16, epochs=3, recall=0.99, label_bits=18)[0]


def test_label_rows_shape_range_and_determinism(ewt):
    sentence = ewt[0][3]
    sent = encode_sentence(sentence)
    rows = label_rows(sent.tokens, sentence.heads, 1000)
    assert rows.shape == (sentence.n, N_TEMPLATES) and rows.min() >= 0 and rows.max() < 1000
    np.testing.assert_array_equal(rows, label_rows(sent.tokens, sentence.heads.copy(), 1000))
    assert len(np.unique(rows[:, 0])) == 1                     # the bias row is shared by every arc
    other = sentence.heads.copy()
    m = int(np.flatnonzero(other[1:] != 0)[0]) + 1            # re-attach a word to the root: its arc rows change
    other[m] = 0
    changed = label_rows(sent.tokens, other, 1000)
    assert (changed[m - 1] != rows[m - 1]).any()
    assert label_rows(encode([], []).tokens, np.array([-1]), 10).shape == (0, N_TEMPLATES)


@pytest.mark.parametrize("heads,rows,message", [
    ([-1, 0, 5], 10, "head 5 of word 2 is not a word"),
    ([-1, 0, 2], 10, "head 2 of word 2"),
    ([-1, 0], 10, "3 token rows but 2 heads"),
    ([-1, 0, 1], 0, "rows must be in"),
])
def test_label_rows_bad_input(heads, rows, message):
    tokens = encode(["a", "b"], ["DT", "NN"]).tokens
    with pytest.raises(ValueError, match=message):
        label_rows(tokens, np.array(heads, dtype=np.int64), rows)


def naive_averaged_perceptron(rows, gold, n_rows, n_labels, epochs, order):
    """The averaged perceptron written out: keep every intermediate weight matrix and average them."""
    w = np.zeros((n_rows, n_labels))
    history = [w.copy()]
    for _ in range(epochs):
        for i in order():
            predicted = w[rows[i]].sum(axis=1).argmax(axis=1)
            for k in np.flatnonzero(predicted != gold[i]):
                for r in rows[i][k]:
                    w[r, gold[i][k]] += 1
                    w[r, predicted[k]] -= 1
            history.append(w.copy())
    return np.mean(history, axis=0)


def test_fit_equals_a_naive_averaged_perceptron(ewt):
    sentences = ewt[0][:40]
    labeler = Labeler(sorted({str(x) for s in sentences for x in s.labels}), bits=10)
    sents = [encode_sentence(s) for s in sentences]
    rows = [labeler.features(e, s.heads) for e, s in zip(sents, sentences)]
    gold = [np.array([labeler.index[x] for x in s.labels]) for s in sentences]
    seed, epochs = 3, 2
    rng = np.random.default_rng(seed)
    expected = naive_averaged_perceptron(rows, gold, labeler.rows, len(labeler.labels), epochs,
                                         lambda: rng.permutation(len(rows)))
    labeler.fit(sents, [s.heads for s in sentences], [s.labels for s in sentences], epochs=epochs, seed=seed)
    np.testing.assert_allclose(labeler.weights, expected, atol=1e-4)


def test_fit_separates_a_learnable_problem():
    """Labels that depend only on the modifier's tag are learnt without an error."""
    rng = np.random.default_rng(0)
    tags = ["DT", "NN", "VB", "JJ"]
    sentences, trees, labels = [], [], []
    for _ in range(60):
        n = int(rng.integers(2, 8))
        t = list(rng.choice(tags, size=n))
        sentences.append(encode([f"w{k}" for k in range(n)], t))
        trees.append(np.array([-1, 0] + list(rng.integers(1, np.arange(2, n + 1))), dtype=np.int64))
        labels.append([f"L{x}" for x in t])
    labeler = Labeler(sorted({x for ls in labels for x in ls}), bits=12).fit(sentences, trees, labels, epochs=5)
    for sent, tree, gold in zip(sentences, trees, labels):
        assert list(labeler.predict(sent, tree)) == gold


def test_fit_and_construction_errors():
    with pytest.raises(ValueError, match="at least one label"):
        Labeler([])
    with pytest.raises(ValueError, match="distinct"):
        Labeler(["a", "a"])
    with pytest.raises(ValueError, match="bits must be in 1..26"):
        Labeler(["a"], bits=40)
    labeler = Labeler(["a", "b"], bits=8)
    sent = encode(["x", "y"], ["DT", "NN"])
    with pytest.raises(ValueError, match="label 'c' is not in the labeller's label set"):
        labeler.fit([sent], [np.array([-1, 2, 0])], [["a", "c"]])
    with pytest.raises(ValueError, match="2 words, 2 heads and 1 labels"):
        labeler.fit([sent], [np.array([-1, 2, 0])], [["a"]])


def test_trained_labels_are_learnt(trained, ewt):
    result = evaluate(trained, ewt[1])
    assert result["las"] is not None and result["las_all"] is not None
    assert 40.0 < result["las"] < result["uas"]          # an untrained labeller scores ~0 (one label for all)
    correct = total = 0
    for sentence in ewt[1]:                              # on gold trees, labels alone
        predicted = trained.labeler.predict(encode_sentence(sentence), sentence.heads)
        correct += int((predicted == sentence.labels).sum())
        total += sentence.n
    assert correct / total > 0.75
    heads, labels = trained.parse_labelled(ewt[1][0].words, list(ewt[1][0].xpos), list(ewt[1][0].upos))
    assert len(labels) == ewt[1][0].n and set(labels) <= set(trained.labeler.labels)
    assert trained.parse_labelled([], []) [1].tolist() == []


def test_labeller_round_trips_and_is_optional(trained, ewt, tmp_path):
    path = tmp_path / "m.msgpack"
    trained.save(path)
    loaded = CascadeParser.load(path)
    assert loaded.labeler.labels == trained.labeler.labels
    np.testing.assert_array_equal(loaded.labeler.weights, trained.labeler.weights)
    for sentence in ewt[1][:20]:
        a = trained.parse_labelled(sentence.words, list(sentence.xpos), list(sentence.upos))
        b = loaded.parse_labelled(sentence.words, list(sentence.xpos), list(sentence.upos))
        np.testing.assert_array_equal(a[0], b[0])
        assert list(a[1]) == list(b[1])
    data = srsly.read_msgpack(path)
    data["labeler"] = data["lowering"] = None             # trained with labels=False
    srsly.write_msgpack(path, data)
    unlabelled = CascadeParser.load(path)
    with pytest.raises(ValueError, match="no labeller"):
        unlabelled.parse_labelled(["a"], ["DT"])
    assert "las" in evaluate(unlabelled, ewt[1][:5]) and evaluate(unlabelled, ewt[1][:5])["las"] is None


def test_parse_command_writes_labels_and_clears_the_enhanced_graph(trained, tmp_path, capsys):
    model = tmp_path / "m.msgpack"
    trained.save(model)
    lines = [
        "# sent_id = x1", "# text = I can't go.",
        "1\tI\tI\tPRON\tPRP\t_\t_\t_\t2:nsubj|4:nsubj\t_",
        "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_",
        "2\tca\tcan\tAUX\tMD\t_\t_\t_\t4:aux\t_",
        "3\tn't\tnot\tPART\tRB\t_\t_\t_\t4:advmod\t_",
        "4\tgo\tgo\tVERB\tVB\t_\t_\t_\t0:root\t_",
        "4.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t4:conj\t_",
        "5\t.\t.\tPUNCT\t.\t_\t_\t_\t4:punct\tSpaceAfter=No",
    ]
    raw = tmp_path / "raw.conllu"
    raw.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["parse", str(model), str(raw), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "2-3\tcan't" in text and "4.1\t" not in text         # multiword token kept, empty node dropped
    parsed = read_conllu(out)[0]
    assert parsed.deps == ["_"] * 5
    assert set(parsed.labels) <= set(trained.labeler.labels) and "dep" not in set(parsed.labels) - set(
        trained.labeler.labels)
    assert [x for x, h in zip(parsed.labels, parsed.heads[1:]) if h == 0] == ["root"]
    scores = tmp_path / "scores.json"
    dev = corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")
    capsys.readouterr()
    assert main(["evaluate", str(model), "--treebank", str(dev), "--json", str(scores)]) == 0
    assert "LAS" in capsys.readouterr().out
    data = srsly.read_json(scores)
    assert 0 < data["las"] < data["uas"] and 0 < data["las_all"] <= data["uas_all"]


def test_parse_command_streams_and_leaves_no_partial_output(trained, tmp_path, capsys, monkeypatch):
    import io
    import sys

    model = tmp_path / "m.msgpack"
    trained.save(model)
    good = "1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\t_\n2\tthere\tthere\tADV\tRB\t_\t_\t_\t_\t_\n\n"
    bad = tmp_path / "bad.conllu"
    bad.write_text(good + "1\tBroken\n\n", encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["parse", str(model), str(bad), "--out", str(out)]) == 2
    assert f"{bad}:4: expected 10 tab-separated columns" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob("*.partial"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((good * 3).encode("utf-8"))))
    assert main(["parse", str(model), "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n\n") == 3 and "Parsed 3 sentences (6 words)" in captured.err
