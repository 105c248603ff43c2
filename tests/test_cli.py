"""Tests for the command line: the stats command end to end, error handling and the command registry."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import srsly

import vineparse
from vineparse import cli
from vineparse.cli import build_parser, main
from vineparse.corpus import CorpusError, corpus_path

# Two sentences: "The dog barks" (projective) and a non-projective four-word tree (heads 3 4 0 3).
SMALL_CONLLU = """\
# sent_id = 1
1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_
2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_
3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_

# sent_id = 2
1\ta\ta\tNOUN\tNN\t_\t3\tobj\t_\t_
2\tb\tb\tADJ\tJJ\t_\t4\tamod\t_\t_
3\tc\tc\tVERB\tVBZ\t_\t0\troot\t_\t_
4\td\td\tNOUN\tNN\t_\t3\tobj\t_\t_

"""


@pytest.fixture
def small_treebank(tmp_path):
    path = tmp_path / "small.conllu"
    path.write_text(SMALL_CONLLU, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ewt_dev():
    return corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")


def test_stats_on_ewt_dev(ewt_dev, tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["stats", "--treebank", str(ewt_dev), "--json", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "2,001 sentences" in stdout
    data = srsly.read_json(out)
    assert data["treebanks"] == [str(ewt_dev)]
    assert data["tag"] == "upos"
    assert set(data) == {"treebanks", "tag", "lengths", "projectivity", "arc_length"}
    lengths = data["lengths"]
    assert lengths["sentences"] == 2001
    assert 10 < lengths["mean"] < 30
    assert lengths["median"] <= lengths["p90"] <= lengths["p99"] <= lengths["max"]
    assert sum(b["count"] for b in lengths["histogram"]) == 2001
    proj = data["projectivity"]
    assert proj["sentences"] == 2001
    assert 0 < proj["nonprojective_sentence_share"] < 0.2
    assert 0 < proj["nonprojective_arc_share"] < proj["nonprojective_sentence_share"]
    assert proj["arcs"] == lengths["words"]
    arcs = data["arc_length"]
    overall = arcs["overall"]
    assert overall["arcs"] == lengths["words"]
    assert overall["root_arcs"] == 2001  # EWT attaches exactly one word per sentence to the root
    assert sum(row["arcs"] for row in arcs["rows"]) == overall["arcs"]
    counts = [row["arcs"] for row in arcs["rows"]]
    assert counts == sorted(counts, reverse=True)
    assert 0.3 < overall["le1"] < overall["le3"] < overall["le5"] < overall["le10"] <= 1.0
    assert {"NOUN", "VERB", "PUNCT"} <= {row["tag"] for row in arcs["rows"]}
    assert list(tmp_path.iterdir()) == [out]  # no plot


def test_stats_finds_treebank_in_corpus_folder(ewt_dev, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--treebank", "ud-english-ewt/en_ewt-ud-dev.conllu"]) == 0
    assert "2,001 sentences" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # stats writes nothing without --json


def test_stats_tag(small_treebank, capsys):
    assert main(["stats", "--treebank", str(small_treebank), "--tag", "xpos"]) == 0
    assert "by modifier XPOS" in capsys.readouterr().out


def test_stats_several_treebanks_and_folders(small_treebank, tmp_path, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    for name in ("a.conllu", "b.conllu"):
        (folder / name).write_text(SMALL_CONLLU, encoding="utf-8")
    (folder / "notes.txt").write_text("not a treebank", encoding="utf-8")
    out = tmp_path / "s.json"
    argv = ["stats", "--treebank", str(small_treebank), str(folder)]
    assert main(argv + ["--json", str(out)]) == 0
    data = srsly.read_json(out)
    assert data["lengths"]["sentences"] == 6
    assert data["projectivity"]["nonprojective_sentences"] == 3
    assert [Path(p).name for p in data["treebanks"]] == ["small.conllu", "a.conllu", "b.conllu"]
    assert "(2 files)" in capsys.readouterr().out


def test_stats_reads_dependency_files(tmp_path, capsys):
    path = tmp_path / "tiny.dp"
    path.write_text("Dogs\tNNS\t2\nbark\tVBP\t0\n.\t.\t2\n\n", encoding="utf-8")
    out = tmp_path / "s.json"
    assert main(["stats", "--treebank", str(path), "--json", str(out)]) == 0
    data = srsly.read_json(out)
    assert data["lengths"]["words"] == 3
    assert {row["tag"] for row in data["arc_length"]["rows"]} == {"NNS", "VBP", "."}


@pytest.mark.parametrize("option", [["--plot", "x"], ["--no-bench"]])
def test_stats_refuses_plot_and_benchmark_options(option, small_treebank, capsys):
    """Issue 34: plotting and the kernel benchmark moved to bench/treebank_stats.py."""
    assert main(["stats", "--treebank", str(small_treebank)] + option) == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert f"unrecognized arguments: {' '.join(option)}" in err


def test_stats_help_names_the_bench_script(capsys):
    assert main(["stats", "--help"]) == 0
    assert "bench/treebank_stats.py" in capsys.readouterr().out


def _assert_clean_error(capsys, *fragments):
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err
    return err


@pytest.mark.parametrize("spec", ["no/such/treebank.conllu", "/no/such/treebank.conllu"])
def test_missing_treebank_is_a_clean_error(spec, capsys):
    assert main(["stats", "--treebank", spec]) == 2
    _assert_clean_error(capsys, "treebank.conllu")


def test_malformed_treebank_is_a_clean_error(tmp_path, capsys):
    path = tmp_path / "bad.conllu"
    path.write_text("1\tThe\tthe\tDET\tDT\t_\t2\tdet\n", encoding="utf-8")
    assert main(["stats", "--treebank", str(path)]) == 2
    _assert_clean_error(capsys, "bad.conllu:1:")


def test_lenient_skips_malformed_sentences(small_treebank, tmp_path, capsys):
    path = tmp_path / "mixed.conllu"
    path.write_text("1\tThe\tthe\tDET\tDT\t_\t2\tdet\n\n" + SMALL_CONLLU, encoding="utf-8")
    assert main(["stats", "--treebank", str(path), "--lenient"]) == 0
    assert "2 sentences, 7 words" in capsys.readouterr().out


def test_unwritable_output_is_a_clean_error(small_treebank, tmp_path, capsys):
    (tmp_path / "a-file").write_text("not a folder")
    out = tmp_path / "a-file" / "s.json"
    assert main(["stats", "--treebank", str(small_treebank), "--json", str(out)]) == 2
    _assert_clean_error(capsys, "a-file")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_reraises(where, capsys):
    args = ["stats", "--treebank", "/no/such/treebank.conllu"]
    argv = ["--debug"] + args if where == "before" else args + ["--debug"]
    with pytest.raises(cli.CLIError):
        main(argv)


def test_debug_keeps_original_error(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_text("1\tThe\n", encoding="utf-8")
    with pytest.raises(CorpusError):
        main(["stats", "--treebank", str(path), "--debug"])


@pytest.mark.parametrize("argv", [[], ["nonsense"], ["stats", "--tag", "lemma"]])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    assert "stats" in capsys.readouterr().out


def test_command_registry(monkeypatch, capsys):
    """A new command is one function plus one argument builder; main() dispatches to it."""
    monkeypatch.setattr(cli, "_COMMANDS", dict(cli._COMMANDS))

    def arguments(parser):
        parser.add_argument("--name", default="world")

    @cli.command("hello", "Say hello.", arguments)
    def hello(args):
        print(f"hello {args.name}")
        return 0

    assert main(["hello", "--name", "vine"]) == 0
    assert capsys.readouterr().out == "hello vine\n"
    with pytest.raises(ValueError, match="registered twice"):
        cli.command("hello", "Again.", arguments)(hello)
    assert "stats" in build_parser().format_help()


def test_python_dash_m(tmp_path):
    """`python -m vineparse` works and reports bad input on one stderr line with status 2."""
    env = dict(os.environ, PYTHONPATH=str(Path(vineparse.__file__).resolve().parents[1]))
    result = subprocess.run(
        [sys.executable, "-m", "vineparse", "stats", "--treebank", str(tmp_path / "missing.conllu")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "missing.conllu" in result.stderr


def test_stats_writes_outputs_into_new_folders(small_treebank, tmp_path):
    out = tmp_path / "new" / "deeper" / "s.json"
    assert main(["stats", "--treebank", str(small_treebank), "--json", str(out)]) == 0
    assert srsly.read_json(out)["lengths"]["sentences"] == 2
