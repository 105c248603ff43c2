"""Tests for the helpers that left the library for bench/ (issue 34): bench/timing.py and bench/treebank_stats.py.

The scripts are loaded by path, as `python bench/<script>.py` would run them; sys.path is restored afterwards,
so that their folder does not shadow test helpers of the same name.
"""
import argparse
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import numpy
import pytest
import srsly

from vineparse.corpus import read_dependency_file

BENCH = Path(__file__).resolve().parents[1] / "bench"

# Three projective sentences of word, tag and head (a word-tag-head file: its tag is both UPOS and XPOS).
SMALL_DP = """\
Dogs\tNNS\t2
bark\tVBP\t0
.\t.\t2

The\tDT\t2
old\tJJ\t3
man\tNN\t4
sleeps\tVBZ\t0
today\tNN\t4

Yes\tUH\t0

"""


def load_bench(name):
    """The module bench/<name>.py, imported under the name `bench_<name>`."""
    path = sys.path[:]
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


timing = load_bench("timing")
script = load_bench("treebank_stats")


@pytest.fixture
def treebank(tmp_path):
    path = tmp_path / "small.dp"
    path.write_text(SMALL_DP, encoding="utf-8")
    return path


@pytest.mark.parametrize("exponent", [1.0, 2.8, 3.0])
def test_empirical_exponent_of_a_power_law(exponent):
    sizes = [10, 20, 40, 60, 100]
    assert timing.empirical_exponent(sizes, [0.003 * n**exponent for n in sizes]) == pytest.approx(exponent)


def test_empirical_exponent_needs_two_usable_sizes():
    assert timing.empirical_exponent([10], [1.0]) is None
    assert timing.empirical_exponent([10, 10], [1.0, 2.0]) is None
    assert timing.empirical_exponent([10, 20], [0.0, 1.0]) is None
    # Non-positive times are left out of the fit, not taken as log(0).
    assert timing.empirical_exponent([10, 20, 40], [1.0, 4.0, -1.0]) == pytest.approx(2.0)


def test_every_timed_kernel_runs():
    """Each entry of KERNELS makes a call that runs, and kernel_benchmark reports it per size."""
    rows = timing.kernel_benchmark(sizes=(4, 7), repeats=1, names=list(timing.KERNELS))
    assert [(r["kernel"], r["n"]) for r in rows] == [(k, n) for k in timing.KERNELS for n in (4, 7)]
    assert all(r["ms"] > 0 for r in rows)
    assert {r["kernel"] for r in timing.kernel_benchmark(sizes=(5,), repeats=1)} == set(timing.DEFAULT_KERNELS)


def test_kernel_benchmark_script_uses_timing():
    kernels_script = load_bench("kernels")
    rows = kernels_script.run_suite([("eisner", (5, 8))], repeats=3, seconds=0.01)
    assert [(r["kernel"], r["n"]) for r in rows] == [("eisner", 5), ("eisner", 8)]
    assert all(r["calls"] == 3 and r["ms"] > 0 for r in rows)  # `repeats` caps the calls


def test_format_bench_table():
    rows = [{"kernel": "eisner", "n": n, "ms": 0.001 * n**3} for n in (10, 20, 40)]
    rows += [{"kernel": "vine", "n": n, "ms": 0.01 * n} for n in (10, 20)]
    rows += [{"kernel": "once", "n": 10, "ms": 0.5}]
    lines = script.format_bench_table(rows).splitlines()
    assert lines[0].split() == ["kernel", "n=10", "n=20", "n=40", "exponent"]
    assert lines[2].split() == ["eisner", "1.000", "8.000", "64.000", "3.00"]
    assert lines[3].split() == ["vine", "0.100", "0.200", "-", "1.00"]
    assert lines[4].split() == ["once", "0.500", "-", "-"]  # one size: no exponent


def test_plot_stats(treebank, tmp_path):
    sentences = list(read_dependency_file(treebank))
    path = script.plot_stats(sentences, tmp_path / "stats.png", tag="xpos")
    assert path == tmp_path / "stats.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_stats_without_matplotlib(treebank, tmp_path, monkeypatch, capsys):
    # A None entry in sys.modules makes the import raise ImportError, as if matplotlib were not installed.
    loaded = {name for name in sys.modules if name.startswith("matplotlib.")}
    for name in loaded | {"matplotlib"}:
        monkeypatch.setitem(sys.modules, name, None)
    sentences = list(read_dependency_file(treebank))
    assert script.plot_stats(sentences, tmp_path / "stats.png", tag="xpos") is None
    assert not (tmp_path / "stats.png").exists()
    assert "matplotlib is not installed" in capsys.readouterr().out


def test_script_plots_benchmarks_and_writes_json(treebank, tmp_path, monkeypatch, capsys):
    calls = []

    def kernel_benchmark(sizes, repeats):
        calls.append((tuple(sizes), repeats))
        scales = (("eisner1", 0.01), ("vine", 0.001))
        return [{"kernel": k, "n": n, "ms": scale * n**2} for k, scale in scales for n in sizes]

    monkeypatch.setattr(script, "kernel_benchmark", kernel_benchmark)
    out = tmp_path / "new" / "deeper"
    argv = ["--treebank", str(treebank), "--tag", "xpos", "--plot", str(out / "s.png"),
            "--json", str(out / "s.json")]
    assert script.main(argv) == 0
    assert calls == [((10, 20, 40), 20)]
    stdout = capsys.readouterr().out
    assert "Sentence length (3 sentences, 9 words)" in stdout  # the report of `vineparse stats`
    assert "by modifier XPOS" in stdout
    assert f"Wrote plot to {out / 's.png'}" in stdout
    assert "Kernel benchmark (median ms per sentence)" in stdout
    eisner = [line for line in stdout.splitlines() if line.strip().startswith("eisner1")][0]
    assert eisner.split() == ["eisner1", "1.000", "4.000", "16.000", "2.00"]
    assert (out / "s.png").stat().st_size > 0
    data = srsly.read_json(out / "s.json")
    assert data["treebanks"] == [str(treebank)]
    assert data["tag"] == "xpos"
    assert data["lengths"]["sentences"] == 3
    assert data["projectivity"]["nonprojective_sentences"] == 0
    assert {row["tag"] for row in data["arc_length"]["rows"]} == {".", "DT", "JJ", "NN", "NNS", "UH", "VBP", "VBZ"}
    assert len(data["bench"]) == 6
    assert data["bench"][0] == {"kernel": "eisner1", "n": 10, "ms": pytest.approx(1.0)}
    assert data["provenance"]["command"]


def test_script_without_plot_or_benchmark(treebank, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(script, "kernel_benchmark", lambda **_: pytest.fail("benchmarked under --no-bench"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "s.json"
    assert script.main(["--treebank", str(treebank), "--plot", "none", "--no-bench", "--json", str(out)]) == 0
    assert "Wrote plot" not in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json", "small.dp"]
    assert srsly.read_json(out)["bench"] is None


def test_script_reports_a_missing_treebank(tmp_path):
    with pytest.raises(SystemExit, match="error: treebank not found"):
        script.main(["--treebank", str(tmp_path / "missing.conllu"), "--no-bench"])


def test_vine_style_mask_admits_a_tree():
    """The benchmarks' masks (tests/kernels/oracle.py) keep the root and the left neighbour of every word."""
    from oracle import vine_style_mask

    mask = vine_style_mask(30, numpy.random.default_rng(0))
    assert mask.shape == (31, 31) and mask.dtype == bool
    assert mask[0, 1:].all() and not mask[:, 0].any() and not mask.diagonal().any()
    assert all(mask[m - 1, m] for m in range(2, 31))
    assert (mask[1:, 1:].sum(axis=0) <= 3).all()  # at most heads_per_word = 3 heads besides the root


def test_multilingual_compares_the_means_of_the_seeds_both_parsers_have(tmp_path):
    multilingual = load_bench("multilingual")
    for run in ("bg_btb-vine-s1", "bg_btb-spacy-s1", "bg_btb-vine-s2", "bg_btb-vine-s12", "bg_btb-vine-flat-s0"):
        (tmp_path / run / "model-best").mkdir(parents=True)
    (tmp_path / "bg_btb-spacy-s12" / "model-best").mkdir(parents=True)
    (tmp_path / "bg_btb-vine-s3").mkdir()                                   # no model-best: not counted
    assert multilingual.other_seeds(tmp_path, "bg_btb") == [1, 12]          # seed 2 has no spaCy run
    seeds = {"vine": {0: {"uas": 80.0, "las": 70.0}, 1: {"uas": 82.0, "las": 72.0}, 2: {"uas": 99.0, "las": 99.0}},
             "spacy": {0: {"uas": 81.0, "las": 70.5}, 1: {"uas": 81.0, "las": 71.5}}}
    found = multilingual.seed_difference(seeds)
    assert found["seeds"] == [0, 1]
    assert found["uas"] == pytest.approx(0.0) and found["las"] == pytest.approx(0.0)
    assert found["uas_range"] == {"vine": 2.0, "spacy": 0.0}
    rows = {"bg_btb": {"lang": "bg", "small_data": True, "difference": found},
            "zh_gsd": {"lang": "zh", "small_data": True, "difference": {"uas": -0.1, "las": 0.2}}}
    assert multilingual.targets(rows)["vine_cascade >= spaCy's parser in UAS and LAS, languages"][0] == "1 of 2 (bg)"


def test_multilingual_sparse_seeds_adds_each_seeds_gap_and_their_mean(monkeypatch):
    multilingual = load_bench("multilingual")
    trained = []

    def sparse(name, runs, epochs, repeats, seed=0):
        trained.append((name, repeats, seed))
        return {"rows": {system: {"uas": 80.0 + seed + (0.5 * seed if system == "NoPrune-3" else 0.0)}
                         for system in multilingual.SPARSE_SYSTEMS}}

    monkeypatch.setattr(multilingual, "sparse", sparse)
    seed0 = {system: {"uas": 80.0, "words_per_second": 1.0} for system in multilingual.SPARSE_SYSTEMS}
    seed0["NoPrune-3"]["uas"] = 80.6
    earlier = {"run": {"command": "earlier"}, "treebanks": {
        "de_gsd": {"lang": "de", "sparse": {"rows": seed0}},
        "bg_btb": {"lang": "bg", "vine": {"uas": 2.0}}}}                        # no sparse row: left alone
    args = argparse.Namespace(runs=Path("runs"), epochs=5, repeats=3)
    result = multilingual.sparse_seeds_update(earlier, ["de_gsd", "bg_btb", "zh_gsd"], [1, 2], args)
    assert trained == [("de_gsd", 1, 1), ("de_gsd", 1, 2)]      # seed 0 is the row's own run, not trained again
    row = result["treebanks"]["de_gsd"]
    assert row["sparse"] == {"rows": seed0} and row["lang"] == "de" and result["run"] == {"command": "earlier"}
    assert row["sparse_seeds"]["gap"] == pytest.approx({0: 0.6, 1: 0.5, 2: 1.0})
    assert row["sparse_seeds"]["uas"][2]["VineCascade-3"] == 82.0
    assert row["sparse_seeds"]["mean_gap"] == pytest.approx(0.7)
    assert "sparse_seeds" not in result["treebanks"]["bg_btb"] and "zh_gsd" not in result["treebanks"]
    found = multilingual.targets(result["treebanks"])
    assert found["de_gsd: VineCascade-3 within 0.3 UAS of NoPrune-3"] == [0.6, 0.3, False]
    assert found["de_gsd: VineCascade-3 within 0.3 UAS of NoPrune-3, mean of 3 seeds"] == [0.7, 0.3, False]


def test_multilingual_nonprojective_seeds_adds_the_arcs_of_each_seed_kept(monkeypatch, tmp_path):
    multilingual = load_bench("multilingual")
    for run in ("de_gsd-vine-s3", "de_gsd-spacy-s3"):                      # vine seed 4 is no longer kept
        (tmp_path / run / "model-best").mkdir(parents=True)
    evaluated, relabelled = [], []

    def neural(path, test):
        evaluated.append(path.parent.name)
        return {"uas": 75.0, "las": 65.0, "nonprojective_arcs": {"gold": 10, "predicted": 4, "recall": 20.0,
                                                                  "precision": 50.0}}

    def sparse_without_lifting(name, runs, seed=0):
        relabelled.append((name, seed))
        return {"pseudo_projective": {"las": 70.0 + seed, "nonprojective_arcs": {"recall": 30.0 + seed}},
                "without": {"las": 70.0}}

    monkeypatch.setattr(multilingual, "neural", neural)
    monkeypatch.setattr(multilingual, "sparse_without_lifting", sparse_without_lifting)
    arcs0 = {"gold": 10, "predicted": 2, "recall": 10.0, "precision": 50.0}
    earlier = json.loads(json.dumps({"run": {"command": "earlier"}, "treebanks": {
        "de_gsd": {"lang": "de", "vine": {"uas": 74.0, "las": 64.0, "nonprojective_arcs": arcs0},
                   "spacy": {"uas": 73.0, "las": 63.0, "nonprojective_arcs": arcs0},
                   "seeds": {"vine": {0: {"uas": 74.0, "las": 64.0}, 3: {"uas": 75.0, "las": 65.0},
                                      4: {"uas": 76.0, "las": 66.0}},
                             "spacy": {0: {"uas": 73.0, "las": 63.0}, 3: {"uas": 75.0, "las": 65.0}}},
                   "sparse_lifting": {"pseudo_projective": {"las": 71.0, "nonprojective_arcs": {"recall": 26.0}},
                                      "without": {"las": 71.5}},
                   "sparse_seeds": {"uas": {0: {}, 1: {}, 2: {}}, "gap": {}, "mean_gap": 0.0}},
        "bg_btb": {"lang": "bg", "seeds": {"vine": {0: {"uas": 1.0, "las": 1.0}}}}}}))
    result = multilingual.nonprojective_seeds_update(earlier, ["de_gsd", "bg_btb"], tmp_path)
    assert evaluated == ["de_gsd-vine-s3", "de_gsd-spacy-s3"]      # seed 0 from its row, seed 4 not on disk
    assert relabelled == [("de_gsd", 1), ("de_gsd", 2)]             # sparse seed 0 is the row's sparse_lifting
    row = result["treebanks"]["de_gsd"]
    assert row["seeds"]["vine"][0]["nonprojective_arcs"] == arcs0
    assert row["seeds"]["vine"][3]["nonprojective_arcs"]["recall"] == 20.0
    assert row["seeds"]["vine"][3]["measured_again"] == {"uas": 75.0, "las": 65.0}
    assert "nonprojective_arcs" not in row["seeds"]["vine"][4]
    assert row["sparse_seeds"]["lifting_las_gain"] == pytest.approx({0: -0.5, 1: 1.0, 2: 2.0})
    assert row["sparse_seeds"]["nonprojective_arcs"][2] == {"recall": 32.0}
    assert "nonprojective_arcs" not in result["treebanks"]["bg_btb"]["seeds"]["vine"]["0"]   # not measured there
    assert result["run"] == {"command": "earlier"}
    assert result["nonprojective_seeds_run"][0]["evaluated"] == {"de_gsd": ["vine-s3", "spacy-s3"]}
    found = multilingual.targets(result["treebanks"])
    assert found["de_gsd: vine_cascade non-projective arc recall >= 30, mean of seeds 0, 3"] == [15.0, 30.0, False]
    assert found["de_gsd: CascadeParser non-projective arc recall >= 30, mean of 3 seeds"] == [29.7, 30.0, False]
    assert found["de_gsd: CascadeParser LAS with lifting - without >= 0.3, mean of 3 seeds"] == [0.83, 0.3, True]
    evaluated.clear()
    relabelled.clear()
    multilingual.nonprojective_seeds_update(json.loads(json.dumps(result)), ["de_gsd"], tmp_path)
    assert evaluated == [] and relabelled == []                     # what is measured is not measured again
    monkeypatch.setattr(multilingual, "sparse", lambda name, runs, epochs, repeats, seed=0: {
        "rows": {system: {"uas": 80.0} for system in multilingual.SPARSE_SYSTEMS}})
    args = argparse.Namespace(runs=tmp_path, epochs=5, repeats=3)
    again = multilingual.sparse_seeds_update(result, ["de_gsd"], [1, 2], args)["treebanks"]["de_gsd"]
    assert again["sparse_seeds"]["lifting_las_gain"] == pytest.approx({0: -0.5, 1: 1.0, 2: 2.0})     # kept


SPACY_TRAIN_LOG = """\x1b[38;5;4mℹ Pipeline: ['tok2vec', 'parser']\x1b[0m
E    #       LOSS TOK2VEC  LOSS PARSER  DEP_UAS  DEP_LAS  SCORE 
---  ------  ------------  -----------  -------  -------  ------
  0       0          0.00       152.23    18.47     7.31    0.13
  0     200       2509.38     22402.74    66.10    52.61    0.59
  1     400       3001.00     20002.00    70.10    60.61    0.65
  2     600       3101.00     19002.00    70.10    60.61    0.65
  3     800       3201.00     18002.00    69.00    59.00    0.64
"""


def test_spacy_compare_reads_where_an_early_stopped_run_stopped(tmp_path):
    compare = load_bench("spacy_compare")
    log = tmp_path / "cnn-spacy-s0.log"
    log.write_text(SPACY_TRAIN_LOG, encoding="utf-8")
    meta = tmp_path / "meta.json"
    (tmp_path / "config.cfg").write_text("[training]\npatience = 1600\nmax_steps = 20000\n", encoding="utf-8")
    # equal dev scores at steps 400 and 600: the tok2vec loss tells which one model-best holds
    srsly.write_json(meta, {"performance": {"dep_uas": 0.701, "dep_las": 0.6061, "tok2vec_loss": 3001.0}})
    limits = {"patience": 1600, "max_steps": 20000}
    dev = {"dev_uas": 70.1, "dev_las": 60.61}
    assert compare.stopping_steps(log, tmp_path) == {**limits, "last_step": 800, "best_step": 400, **dev}
    srsly.write_json(meta, {"performance": {"dep_uas": 0.701, "dep_las": 0.6061}})
    assert compare.stopping_steps(log, tmp_path) == {**limits, "last_step": 800, "best_step": 600, **dev}  # the later
    srsly.write_json(meta, {"performance": {"dep_uas": 0.5, "dep_las": 0.4}})
    with pytest.raises(SystemExit, match="no evaluation"):
        compare.stopping_steps(log, tmp_path)
    assert compare.steps_argument("8000") == 8000
    assert compare.steps_argument(compare.EARLY_STOPPING) == compare.EARLY_STOPPING
    with pytest.raises(Exception, match="early-stopping"):
        compare.steps_argument("soon")


def test_spacy_compare_names_runs_setting_pipeline_seed():
    compare = load_bench("spacy_compare")
    assert compare.run_key("bilstm-beam-s12") == ("bilstm", "beam", 12) and compare.run_key("cnn-vine") is None


def test_component_speed_times_whole_pipelines_against_the_first():
    import spacy
    speed = load_bench("component_speed")
    texts = ["A short text.", "Another one, a little longer than the first."] * 5
    pipelines = {}
    for name, components in (("base", []), ("more", ["sentencizer"])):
        nlp = spacy.blank("en")
        for component in components:
            nlp.add_pipe(component)
        pipelines[name] = {"nlp": nlp, "texts": texts, "words": sum(len(nlp.make_doc(t)) for t in texts)}
    records = {name: {} for name in pipelines}
    speed.whole_pipeline_speed(pipelines, records, repeats=3)
    assert records["base"]["ratio_to_first"] == 1.0 and records["base"]["per_round_ratios"] == [1.0] * 3
    for name, record in records.items():
        assert record["words_per_second"] > 0 and len(record["words_per_second_runs"]) == 3
        assert record["ratio_to_first"] == record["words_per_second"] / records["base"]["words_per_second"]
    assert set(records["base"]["us_per_word_by_component"]) == {"tokenizer"}
    assert set(records["more"]["us_per_word_by_component"]) == {"tokenizer", "sentencizer"}


def test_the_committed_configs_are_the_ones_written_from_configs_ewt_cfg(capsys):
    spec = importlib.util.spec_from_file_location("make_configs", BENCH.parent / "configs" / "make_configs.py")
    make_configs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_configs)
    assert make_configs.main(["--check"]) == 0, "run python configs/make_configs.py"
    ud = make_configs.build("ud.cfg")          # every setting of ewt.cfg's vine_cascade reaches configs/ud.cfg
    for section in ("components.vine_cascade", "components.vine_cascade.model"):
        assert make_configs.find(make_configs.parse(ud), section) == \
            make_configs.find(make_configs.parse(make_configs.build("ewt.cfg")), section)
    # the Makefile's gold-segmented EWT runs get ud.cfg's gold route as overrides, written once
    capsys.readouterr()
    assert make_configs.main(["--gold-overrides"]) == 0
    overrides = shlex.split(capsys.readouterr().out)
    assert len(overrides) == 8 and "make_configs.py --gold-overrides" in (BENCH.parent / "Makefile").read_text()
    for option, value in zip(overrides[::2], overrides[1::2]):
        section, key = option[2:].rsplit(".", 1)
        assert f"{key} = {value}" in make_configs.find(make_configs.parse(ud), section)[1]


def test_raw_text_counts_boundary_errors_by_kind_and_checks_the_targets():
    raw_text = load_bench("raw_text")
    gold = ("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n1\tThanks\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
            "1\tok\t_\t_\t_\t_\t0\troot\t_\t_\n2\t.\t_\t_\t_\t_\t1\tpunct\t_\t_\n\n")
    system = ("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n2\tThanks\t_\t_\t_\t_\t1\tdep\t_\t_\n\n"
              "1\tok\t_\t_\t_\t_\t0\troot\t_\t_\n\n1\t.\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    assert raw_text.boundary_errors(gold, system) == {"missed": {"after a word (no final punctuation)": 1},
                                                     "added": {"after a word (no final punctuation)": 1}}
    assert raw_text.kind(":)", "we") == "after an emoticon" and raw_text.kind("x", "-") == "before a list item"
    systems = {"vine_cascade": {"scores": {"Sentences": 90.0, "Words": 99.5, "Tokens": 99.0, "LAS": 80.0},
                                "words_per_second": 1300, "words_per_second_openblas": 2400},
               "spaCy parser": {"scores": {"LAS": 78.0}, "words_per_second": 1000, "words_per_second_openblas": 2000}}
    found = raw_text.targets({"ewt_test": {"systems": systems}})
    assert found["ewt_test: Sentences F1 >= 89.2"] == [90.0, 89.2, True]
    assert found["ewt_test: LAS - spaCy's parser pipeline >= 1.5"] == [2.0, 1.5, True]
    assert found["ewt_test: words/s / spaCy's parser pipeline's >= 1.3 (blis)"] == [1.3, 1.3, True]
    assert found["ewt_test: words/s / spaCy's parser pipeline's >= 1.3 (OpenBLAS)"] == [1.2, 1.3, False]
    assert found["ewt_test: LAS F1 >= 86.8"][2] is False
    assert raw_text.packed(["aa\n\n", "bb\n\n", "c" * 9], limit=8) == ["aa\n\nbb\n\n", "c" * 9]


def test_render_docs_names_a_raw_text_run_by_its_seed_and_its_model_best_step():
    render = load_bench("render_docs")
    doc = {"note": "seed 1, the configs' budget (8,000 steps), on EWT", "stopping": {"vine_cascade": {"best_step": 12400}}}
    assert render.raw_run(doc, "vine_cascade") == "seed 1, 12,400 steps"
    assert render.raw_run(doc, "spaCy parser") == "seed 1, 8,000 steps"      # no recorded stop: the note's steps
