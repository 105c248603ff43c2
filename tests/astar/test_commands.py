"""python -m vineparse astar train | evaluate | parse, end to end on small slices."""
import pytest
import srsly

from vineparse.cli import main


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("astar") / "model.msgpack"
    assert main(["astar", "train", "--model", "nonfactored", "--limit", "150", "--lp-sentences", "60",
                 "--out", str(path)]) == 0
    return path


def test_train_evaluate_parse(model_file, tmp_path, capsys):
    out = tmp_path / "eval.json"
    assert main(["astar", "evaluate", str(model_file), "--limit", "12", "--null-max-length", "12",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| split |" in printed and "| approximate |" in printed and "Read 12 trees" in printed
    data = srsly.read_json(out)
    assert data["model"] == "nonfactored" and set(data["heuristics"]) == {"null", "cfg", "split", "approximate"}
    split = data["heuristics"]["split"]
    assert split["sentences"] == 12 and split["search_errors"] == 0 and split["violations"] == 0
    assert data["heuristics"]["null"]["skipped"] > 0
    assert len(data["records"]) == sum(h["sentences"] for h in data["heuristics"].values())

    sentences = tmp_path / "in.txt"
    sentences.write_text("The/DT dog/NN barks/VBZ ./.\n\nPrices/NNS fell/VBD ./.\n", encoding="utf-8")
    assert main(["astar", "parse", str(model_file), str(sentences), "--stats", "--heuristic", "cfg"]) == 0
    lines = capsys.readouterr().out.splitlines()
    trees = [line for line in lines if line.startswith("(")]
    assert len(trees) == 2 and "(NN dog)" in trees[0]
    assert sum(line.startswith("# cost") for line in lines) == 2


@pytest.mark.parametrize("argv,message", [
    (["astar", "evaluate", "missing.msgpack"], "model file not found: missing.msgpack"),
    (["astar", "train", "--out", "x.msgpack", "--treebank", "nowhere.mrg"], "treebank not found"),
    (["astar", "train", "--out", "x.msgpack", "--limit", "0"], "--limit must be positive"),
])
def test_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_parse_errors(model_file, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("The/DT dog\n", encoding="utf-8")
    assert main(["astar", "parse", str(model_file), str(bad)]) == 2
    assert "line 1: token 'dog' is not word/TAG" in capsys.readouterr().err
    bad.write_text("The/DT dog/XX\n", encoding="utf-8")
    assert main(["astar", "parse", str(model_file), str(bad), "--stats"]) == 0     # the back-off parses it
    captured = capsys.readouterr()
    assert "(XX dog)" in captured.out and "back-off (unknown tag)" in captured.out
    assert "1 sentence(s) parsed with the back-off grammar" in captured.err
    assert main(["astar", "parse", str(model_file), str(bad), "--no-backoff"]) == 2
    assert "tag 'XX' of word 2 is not in the grammar" in capsys.readouterr().err
    assert main(["astar", "parse", str(model_file), str(bad), "--heuristic", "factored"]) == 2
    assert "'factored' is not available" in capsys.readouterr().err
    foreign = tmp_path / "foreign.msgpack"
    srsly.write_msgpack(foreign, {"format": 99})
    assert main(["astar", "parse", str(foreign), str(bad)]) == 2
    assert "not a saved A* parser" in capsys.readouterr().err
