"""Render every table of figures in the docs and the README from bench/results/*.json (`--check`: exit 1 if one is
out of date, writing nothing). A page asks for a table by name (`<!-- table: NAME -->` ... `<!-- end -->`); each
table is a spec in `TABLES`: its results file, its rows, its columns (header, a field of a row or a function of it,
a format). Every spec must be used by a page and every region must name a spec. One table is not of figures: the
settings of vine_cascade, read from vineparse/pipeline/settings.py. The plots in `PLOTS` are copied to docs/results/.
"""
import argparse
import ast
import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
PLOTS = ["kernels.png", "cascade_ewt.png", "cascade_ptb.png", "bitext_speed.png", "bitext_bias_binary.png",
         "bitext_bias_ternary.png", "multilingual.png", "calibration.png", "soak.png"]
MISSING = "–"
REGION = re.compile(r"(<!-- table: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end -->)", re.S)
_CACHE: dict = {}


def load(source: str) -> Any:
    if source not in _CACHE:
        if not (RESULTS / source).exists():
            raise SystemExit(f"{RESULTS / source} is missing (a table reads it)")
        _CACHE[source] = json.loads((RESULTS / source).read_text(encoding="utf-8"))
    return _CACHE[source]


def get(data: Any, path, default: Any = None) -> Any:
    """`data` along `path` ("a.b.c", or a sequence of keys and list indices); `default` if a step is missing."""
    for key in path.split(".") if isinstance(path, str) else path:
        if isinstance(data, dict) and (key in data or str(key) in data):
            data = data[key] if key in data else data[str(key)]
        elif isinstance(data, list) and str(key).lstrip("-").isdigit() and -len(data) <= int(key) < len(data):
            data = data[int(key)]
        else:
            return default
    return data


def items(data: dict) -> List[dict]:
    """A dict of records as rows: each value (a dict) with its key as `_key`."""
    return [{"_key": k, **v} if isinstance(v, dict) else {"_key": k, "value": v} for k, v in data.items()]


def sig(value, digits: int = 3) -> str:
    """`digits` significant digits, thousands separated."""
    places = 0 if value == 0 else max(0, digits - 1 - int(f"{abs(value):e}".split("e")[1]))
    return "0" if value == 0 else f"{value:,.{places}f}"


def duration(value: float) -> str:
    return f"{sig(1000 * value)} ms" if value < 1 else f"{sig(value)} s"


FMT = {"text": lambda v: ("yes" if v else "no") if isinstance(v, bool) else str(v),
       "int": "{:,.0f}".format, "1f": "{:.1f}".format, "2f": "{:.2f}".format, "3f": "{:.3f}".format,
       "+2f": "{:+.2f}".format, "pct": lambda v: f"{100 * v:.1f}%", "pct2": lambda v: f"{100 * v:.2f}%",
       "x": "{:,.2f}×".format, "x1": "{:,.1f}×".format, "x0": "{:,.0f}×".format, "sig": sig,
       "spread": lambda s: f"{s['mean']:.2f} ± {s['std']:.2f} ({s['min']:.2f}–{s['max']:.2f})"}


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join("| " + " | ".join(cells) + " |" for cells in [headers, ["---"] * len(headers), *rows])


@dataclass
class Col:
    """A column: its header, the value of a row (a path into it, or `f(row, doc)`) and its format (a name of
    `FMT` or a function); a value that is None or missing prints as MISSING."""
    header: str
    value: Any
    fmt: Union[str, Callable[[Any], str]] = "text"

    def cell(self, row: dict, doc: dict) -> str:
        value = self.value(row, doc) if callable(self.value) else get(row, self.value)
        if value is None:
            return MISSING
        return (FMT[self.fmt] if isinstance(self.fmt, str) else self.fmt)(value).replace("|", "\\|")


@dataclass
class Table:
    """A table of one results file, or of several (`source` a list; each row then carries `_file`). rows: a path
    to a list or a dict of records (`items`), or `f(doc)`; where: the rows to keep; order: (field, values)."""
    name: str
    source: Union[str, List[str]]
    rows: Any
    columns: List[Col]
    where: Optional[Callable[[dict], bool]] = None
    order: Optional[Tuple[str, Sequence[Any]]] = None

    def render(self) -> str:
        lines = []
        for source in [self.source] if isinstance(self.source, str) or self.source is None else self.source:
            doc = load(source) if source else {}
            rows = self.rows(doc) if callable(self.rows) else get(doc, self.rows)
            if rows is None:
                raise SystemExit(f"table {self.name}: {source} has no {self.rows!r}")
            rows = [{**row, "_file": source} for row in (items(rows) if isinstance(rows, dict) else rows)]
            rows = [row for row in rows if not self.where or self.where(row)]
            if self.order:
                key, values = self.order
                rows = sorted((r for r in rows if r.get(key) in values), key=lambda r: list(values).index(r[key]))
            if not rows:
                raise SystemExit(f"table {self.name}: no rows in {source}")
            lines += [[c.cell(row, doc) for c in self.columns] for row in rows]
        return grid([c.header for c in self.columns], lines)


def fields(name: str, source: str, columns: List[Col], headers=("quantity", "value")) -> Table:
    """A two-column table (quantity, value) of single fields of one results file."""
    return Table(name, source, lambda doc: [{"q": c.header, "v": c.cell(doc, doc)} for c in columns],
                 [Col(headers[0], "q"), Col(headers[1], lambda row, doc: row["v"], lambda v: v)])


def pivot(name: str, source: str, labels: dict, columns: Sequence[int], extra: List[Col]) -> Table:
    """kernels.json's rows (kernel, n, ms) as a grid: a line per kernel of `labels`, a column per n."""
    def rows(doc):
        cells = {(r["kernel"], r["n"]): r["ms"] for r in doc["rows"]}
        return [{"_key": key, "label": label, **{f"n{n}": cells.get((key, n)) for n in columns}}
                for key, label in labels.items()]
    return Table(name, source, rows, [Col("kernel (ms per sentence)", "label"),
                                      *[Col(f"n = {n}", f"n{n}", "sig") for n in columns], *extra])


def settings_table(name: str, path: str, cls: str) -> Table:
    """The settings of a dataclass, read from its source file (the docs build needs no compiled vineparse):
    name, default as a config writes it, and type and meaning from the docstring's "name (type): meaning"."""
    def rows(doc):
        node = next(n for n in ast.parse((ROOT / path).read_text(encoding="utf-8")).body
                    if isinstance(n, ast.ClassDef) and n.name == cls)
        meanings, current = {}, None
        for line in (ast.get_docstring(node) or "").splitlines():
            match = re.match(r"(\w+) \(([^)]*)\): (.*)", line)
            if match:
                current = match.group(1)
                meanings[current] = [match.group(2), match.group(3)]
            elif current and line.startswith("    "):
                meanings[current][1] += " " + line.strip()
            else:
                current = None
        out = []
        for item in (i for i in node.body if isinstance(i, ast.AnnAssign) and isinstance(i.target, ast.Name)):
            value = item.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "field":
                value = next(k.value for k in value.keywords if k.arg in ("default", "default_factory"))
                value = value.body if isinstance(value, ast.Lambda) else value
            if not meanings.get(item.target.id, ["", ""])[1]:
                raise SystemExit(f"{path}: {cls}'s docstring does not describe {item.target.id}")
            out.append({"name": f"`{item.target.id}`", "default": f"`{json.dumps(ast.literal_eval(value))}`",
                        "type": meanings[item.target.id][0], "meaning": meanings[item.target.id][1]})
        return out
    return Table(name, None, rows, [Col(header, key) for header, key in (("setting", "name"), ("default", "default"),
                                                                       ("type", "type"), ("meaning", "meaning"))])


# -- helpers for specs ----------------------------------------------------------------------------------------


SYSTEMS = ["NoPrune-1", "VineCascade-1", "NoPrune-2", "VineCascade-2", "NoPrune-3", "VineCascade-3", "FirstOnly-3",
           "Local-3"]
OPS = {"thinc": "thinc NumpyOps (blis)", "scipy": "ScipyBlasOps (OpenBLAS)"}
PIPELINES = {"spacy": "spaCy parser", "beam": "spaCy beam parser", "vine": "vine_cascade"}
CORPUS = Col("corpus", lambda row, doc: {"ewt": "EWT", "ptb": "PTB sample"}.get(doc["corpus"], doc["corpus"]))
TREEBANK = Col("treebank (training sentences)", "treebank")


def compare_accuracy(doc, test="test"):
    """Mean ± std (min–max) per setting and pipeline on `test` ("test": EWT test, "ood": the out-of-domain set),
    and vine_cascade's differences to spaCy's parsers."""
    rows = []
    for setting, pipes in doc["settings"].items():
        for pipe, label in PIPELINES.items():
            found = pipes.get(pipe) if test == "test" else pipes.get(pipe, {}).get("ood")
            if found:
                rows.append({"setting": setting, "pipeline": label, "seeds": len(found["dep_uas"]["runs"]), **found})
        for other in ("spacy", "beam"):
            diff = pipes.get("vine", {}).get(f"minus_{other}" if test == "test" else f"ood_minus_{other}")
            if diff:
                rows.append({"setting": setting, "pipeline": f"vine_cascade − {PIPELINES[other]}", "_diff": True,
                             **diff})
    return rows


def readme_summary(doc):
    """EWT test (mean over seeds) and English PUD of the record, setting cnn, and the pipelines' words/s of
    ewt_speed.json (spaCy's parser's pipeline first, the record's vine_cascade run last)."""
    speeds = [p["words_per_second"] for p in load("ewt_speed.json")["pipelines"].values()]
    rows = []
    for pipe, acc in ((pipe, doc["settings"]["cnn"][pipe]) for pipe in PIPELINES if pipe in doc["settings"]["cnn"]):
        words = {"spacy": speeds[0], "vine": speeds[-1]}.get(pipe)
        rows.append({"pipeline": PIPELINES[pipe], "seeds": len(acc["dep_uas"]["runs"]),
                     "uas": acc["dep_uas"]["mean"], "las": acc["dep_las"]["mean"],
                     "ood_uas": get(acc, "ood.dep_uas.mean"), "ood_las": get(acc, "ood.dep_las.mean"),
                     "words": words, "ratio": None if words is None else words / speeds[0]})
    return rows


def times_ms(key):
    return lambda row, doc: (" / ".join(sig(row[key][k]) for k in ("median_ms", "mean_ms", "p90_ms"))
                             if row[key].get("sentences") else None)


def bitext_speed(doc):
    rows = []
    for bucket in ["(0, 130]", "(130, 400]", "(400, 700]", "(700, 1000]"]:
        row = {"bucket": bucket}
        for grammar in ("binary", "ternary"):
            s = doc["summary"]["speed"].get(f"{grammar} {bucket}")
            row[grammar] = None if s is None else (
                f"{duration(s['exact_seconds'])} / {duration(s['sample_seconds'])} "
                f"({s['speedup_median']:,.0f}×; screened {s['screened_speedup_median']:,.1f}×) — {s['pairs']} pairs, "
                f"{100 * s['kept_share']:.1f}% kept")
        rows.append(row)
    return rows


LANGUAGES = {"en_ewt": "English-EWT", "pt_bosque": "Portuguese-Bosque", "pt_bosque_small": "Portuguese-Bosque",
             "bg_btb": "Bulgarian-BTB", "de_gsd": "German-GSD", "sv_talbanken": "Swedish-Talbanken",
             "zh_gsd": "Chinese-GSD"}


def per_treebank(rows_of):
    """multilingual.json's `rows_of(row)` per treebank, labelled by name, training sentences, "small data"."""
    def rows(doc):
        out = []
        for name, row in doc["treebanks"].items():
            small = ", small data" if row["small_data"] else ""
            label = f"{LANGUAGES.get(name, name)} ({row['sentences']['train']:,} sentences{small})"
            out += [{"treebank": label, **found} for found in rows_of(row)]
        return out
    return rows


def sparse_row(row):
    found = row.get("sparse", {}).get("rows")
    return [] if found is None else [{**{f"{k}_uas": v["uas"] for k, v in found.items()},
                                      "words": found["VineCascade-3"]["words_per_second"],
                                      "speedup": found["VineCascade-3"]["words_per_second"]
                                      / found["NoPrune-3"]["words_per_second"]}]


def mean_and_range(scores):
    return f"{mean(scores):.2f} ({min(scores):.2f}–{max(scores):.2f})"


def seed_rows(row):
    seeds = row.get("difference", {}).get("seeds", [])
    if len(seeds) < 2:
        return []
    return [{"seeds": len(seeds), "uas": row["difference"]["uas"], "las": row["difference"]["las"],
             **{f"{key}_{k}": mean_and_range([row["seeds"][key][str(seed)][k] for seed in seeds])
                for key in ("vine", "spacy") for k in ("uas", "las")}}]


def sparse_seed_rows(row):
    found = row.get("sparse_seeds")
    if found is None:
        return []
    seeds = sorted(found["uas"], key=int)
    return [{"seeds": ", ".join(seeds), "mean_gap": found["mean_gap"],
             "gaps": " / ".join(f"{found['gap'][seed]:+.2f}" for seed in seeds),
             **{system: mean_and_range([found["uas"][seed][system] for seed in seeds])
                for system in ("NoPrune-3", "VineCascade-3")}}]


DOCUMENT_SETS = {"ewt_test": "EWT test", "pud": "English PUD", "pt_bosque_test": "Bosque test"}
TOKENIZATION_SETS = {"ewt-dev": "EWT dev", "ewt-test": "EWT test", "pud": "English PUD"}
TOKENIZERS = {"spacy, no multiword ranges": "spaCy's rules", "spacy": "spaCy's rules, multiword tokens grouped",
              "ud": "UD English's rules (vineparse.text.tokenizer), multiword tokens grouped"}
RAW_KINDS = ("after final punctuation", "after a word (no final punctuation)", "after other punctuation",
             "after a closing quote or bracket", "after an emoticon", "after a URL or e-mail", "before a list item")
RAW_METRICS = ("Tokens", "Sentences", "Words", "UAS", "LAS", "CLAS")


def raw_run(doc, pipeline):
    """"seed N, M steps" of a raw_text.json's pipeline: M is its model-best's step where recorded, else its note's."""
    stopping = doc.get("stopping", {}).get(pipeline)
    steps = f"{stopping['best_step']:,} steps" if stopping else re.search("[0-9,]+ steps", doc["note"])[0]
    return f"{re.search('seed [0-9]+', doc['note'])[0]}, {steps}"


CASCADE_COLUMNS = [
    Col("system", "system"), Col("UAS (no punct.)", "uas", "2f"), Col("UAS (all)", "uas_all", "2f"),
    Col("words/s", "words_per_second", "int"),
    Col("vs NoPrune-1", lambda row, doc: row["words_per_second"] / next(
        r["words_per_second"] for r in doc["rows"] if r["system"] == "NoPrune-1"), "x"),
    *[Col(f"words/s, {b.replace('<=', '≤').replace('-', '–')} words", ("buckets", b, "words_per_second"), "int")
      for b in ["<= 10", "11-20", "21-40", "> 40"]],
    Col("time exponent", "exponent", "2f"), Col("training (s)", "training_seconds", "int"),
    Col("kept share / gold recall after each pruning level (test)", lambda row, doc: "; ".join(
        f"{lv['level']}{'' if lv.get('head_cap') is None else ' (cap %d)' % lv['head_cap']} "
        f"{100 * lv['kept_share']:.1f}% / {100 * lv['gold_recall']:.2f}%" for lv in row.get("levels", [])) or None)]
KERNEL_LABELS = {"eisner": "`eisner` (best tree)", "eisner_max_marginals": "`eisner_max_marginals`",
                 "eisner_marginals": "`eisner_marginals`", "eisner_hypergraph": '`eisner`, `engine="hypergraph"`',
                 "eisner_marginals_hypergraph": '`eisner_marginals`, `engine="hypergraph"`',
                 "eisner2": "`eisner2` (best tree)", "eisner2_max_marginals": "`eisner2_max_marginals`",
                 "eisner3": "`eisner3` (best tree)", "eisner3_max_marginals": "`eisner3_max_marginals`"}
MASKED_LABELS = {"eisner_vine_mask": "`eisner`", "eisner2_vine_mask": "`eisner2`", "eisner3_vine_mask": "`eisner3`",
                 "vine_b5": "`vine`, band 5", "vine_b5_max_marginals": "`vine_max_marginals`, band 5"}


EXPONENT = Col("time exponent", lambda row, doc: doc["exponents"].get(row["_key"]), "2f")
# the comparison's accuracy: mean ± std (min–max) per pipeline, or vine_cascade's difference
COMPARE_ACCURACY_COLUMNS = [Col("shared encoder", "setting"), Col("parser", "pipeline"), Col("seeds", "seeds", "int"),
                            *[Col(label, lambda row, doc, key=key: f"{row[key]:+.2f}" if row.get("_diff")
                                  else FMT["spread"](row[key]))
                              for label, key in [("UAS", "dep_uas"), ("LAS", "dep_las"),
                                                 ("UAS > 30 words", "long_dep_uas"),
                                                 ("LAS > 30 words", "long_dep_las")]]]
COMPARE_SPEED_COLUMNS = [
    Col("shared encoder", "setting"), Col("ops", "ops"), Col("spaCy parser (words/s)", "spacy", "int"),
    Col("vine_cascade (words/s)", "vine", "int"), Col("ratio", "ratio", "x"),
    Col("median per-round ratio", "round_median", "x")]
# a results file's "targets": {name: [measured, target, met]}
TARGET_COLUMNS = [Col("target", "_key"), Col("measured", "value.0"),
                  Col("met", lambda row, doc: "yes" if row["value"][2] else "no")]
TABLES = [
    # not figures: the settings of vine_cascade as declared in the code
    settings_table("vine_cascade_settings", "vineparse/pipeline/settings.py", "CascadeSettings"),
    # kernels.json: bench/kernels.py
    Table("kernels_yardstick", "kernels.json", "yardstick", [
        Col("n", "_key"), Col("numpy yardstick (ms)", "numpy_ms.median", "sig"),
        Col("`eisner` (ms)", "eisner_ms.median", "sig"), Col("speed-up", "speedup_over_numpy.median", "x0"),
        Col("`eisner_marginals` (ms)", "eisner_marginals_ms.median", "sig"),
        Col("marginals / best tree", "marginals_over_best.median", "x")]),
    fields("kernels_supar", "kernels.json", [
        Col("best trees, 1 thread (ms per sentence)", "batch.argmax_1.median", "sig"),
        Col("best trees, 2 threads (ms per sentence)", "batch.argmax_2.median", "sig"),
        Col("SuPar `DependencyCRF` argmax (ms per sentence)", "batch.supar_argmax.median", "sig"),
        Col("best trees: speed-up over SuPar (1 thread)", "batch.argmax_speedup_over_supar.median", "x0"),
        Col("marginals, 1 thread (ms per sentence)", "batch.marginals_1.median", "sig"),
        Col("marginals, 2 threads (ms per sentence)", "batch.marginals_2.median", "sig"),
        Col("SuPar `DependencyCRF` marginals (ms per sentence)", "batch.supar_marginals.median", "sig"),
        Col("marginals: speed-up over SuPar (1 thread)", "batch.marginals_speedup_over_supar.median", "x0"),
        Col("2 threads / 1 thread, best trees", "batch.argmax_threads_speedup.median", "x"),
        Col("2 threads / 1 thread, marginals", "batch.marginals_threads_speedup.median", "x"),
        Col("SuPar's torch", "batch.torch")], headers=("batch of 32 sentences, n = 40", "measured")),
    pivot("kernels_all", "kernels.json", KERNEL_LABELS, [10, 20, 40, 60, 100], [EXPONENT]),
    pivot("kernels_masked", "kernels.json", MASKED_LABELS, [20, 50, 100, 150, 200, 400],
          [EXPONENT, Col("speed-up over unpruned, n = 100", lambda row, doc: next(
              (r["ms"] / row["n100"] for r in doc["rows"] if row.get("n100") and r["n"] == 100
               and row["_key"] == r["kernel"] + "_vine_mask"), None), "x0")]),
    # cascade_{ewt,ptb}.json: bench/cascade.py
    Table("cascade_ewt", "cascade_ewt.json", "rows", CASCADE_COLUMNS, order=("system", SYSTEMS)),
    Table("cascade_ptb", "cascade_ptb.json", "rows", CASCADE_COLUMNS, order=("system", SYSTEMS)),
    Table("cascade_corpora", ["cascade_ewt.json", "cascade_ptb.json"], lambda doc: [doc], [
        CORPUS, Col("training sentences", "train_sentences", "int"),
        Col("test sentences", "test_sentences", "int"), Col("test words", "test_words", "int"),
        Col("hashed weights per level", lambda row, doc: 2 ** doc["settings"]["bits"], "int"),
        Col("epochs per level", "settings.epochs"),
        Col("gold-arc recall target (vine / first order / later levels)", lambda row, doc: " / ".join(
            f"{x:g}" for x in (doc["settings"]["vine_recall"], doc["settings"].get("first_order_recall")
                               or doc["settings"]["recall"], doc["settings"]["recall"]))),
        Col("jackknife folds for the training masks", lambda row, doc: doc["settings"].get("jackknife", 0), "int"),
        Col("NoPrune-3 trained on sentences of at most", "noprune3_training.max_length", "int")]),
    Table("cascade_threads", ["cascade_ewt.json", "cascade_ptb.json"], lambda doc: [doc["threads"]], [
        CORPUS, Col("sentences", "sentences", "int"), Col("1 thread (words/s)", "one_thread_words_per_second", "int"),
        Col("2 threads (words/s)", "two_threads_words_per_second", "int"), Col("speed-up", "speedup", "x")]),
    # labels.json: bench/labels.py
    fields("labels", "labels.json", [
        Col("UAS, punctuation excluded", "uas", "2f"), Col("LAS, punctuation excluded", "las", "2f"),
        Col("UAS, every word", "uas_all", "2f"), Col("LAS, every word", "las_all", "2f"),
        Col("labels", "labels", "int"), Col("label accuracy on the gold trees", "label_accuracy_on_gold_trees", "2f"),
        Col("labelling share of the parse time", "label_share_of_parse_time", "pct"),
        Col("test sentences", "sentences", "int"), Col("hashed weights per level", lambda row, doc:
                                                       2 ** doc["settings"]["bits"], "int")]),
    # spacy_compare.json: bench/spacy_compare.py
    # accuracy trained until the dev score stops rising (spacy_compare_es.json), words/s of ewt_speed.json
    Table("readme_spacy_compare", "spacy_compare_es.json", readme_summary, [
        Col("parser", "pipeline"), Col("seeds", "seeds", "int"), Col("UAS", "uas", "2f"), Col("LAS", "las", "2f"),
        Col("UAS, English PUD", "ood_uas", "2f"), Col("LAS, English PUD", "ood_las", "2f"),
        Col("words/s (pipeline)", "words", "int"), Col("vs spaCy", "ratio", "x")]),
    Table("spacy_compare_es", "spacy_compare_es.json", compare_accuracy, COMPARE_ACCURACY_COLUMNS),
    Table("spacy_compare_es_ood", "spacy_compare_es.json", lambda doc: compare_accuracy(doc, "ood"),
          COMPARE_ACCURACY_COLUMNS),
    Table("spacy_compare_es_targets", "spacy_compare_es.json", lambda doc: items(doc["targets"]), TARGET_COLUMNS),
    # spacy_compare_es_bilstm.json: make ewt-compare-es-bilstm (the equal-encoder setting, one seed each)
    Table("spacy_compare_es_bilstm", "spacy_compare_es_bilstm.json", compare_accuracy, COMPARE_ACCURACY_COLUMNS),
    Table("spacy_compare_es_bilstm_ood", "spacy_compare_es_bilstm.json", lambda doc: compare_accuracy(doc, "ood"),
          COMPARE_ACCURACY_COLUMNS),
    Table("spacy_compare_es_bilstm_speed", "spacy_compare_es_bilstm.json", lambda doc: [
        {"setting": setting, "ops": OPS[ops], "spacy": speed["spacy"]["median"], "ratio": speed["ratio_third_order"],
         "vine": speed[max((k for k in speed if k.startswith("vine_") and k[5:].isdigit()), key=lambda k: int(k[5:]))]
         ["median"], "round_median": sorted(speed["per_round_ratios"])[len(speed["per_round_ratios"]) // 2]}
        for setting, block in doc["seed0"].items() for ops, speed in block["speed"].items()], COMPARE_SPEED_COLUMNS),
    Table("spacy_compare_long_inputs", "spacy_compare.json", lambda doc: [
        {"setting": setting, "input": label, **row} for setting, block in doc["seed0"].items()
        for data in [block["long_inputs"]]
        for label, rows in (("preset sentences of about 20 words", [{**data["preset_20"],
                                                                     "sentences": data["preset_20"]["docs"]}]),
                            ("one preset sentence", [data["preset_2000"]]),
                            ("a doc without sentence boundaries", data["no_boundaries"]))
        for row in rows], [
        Col("shared encoder", "setting"), Col("input", "input"), Col("tokens", "tokens", "int"),
        Col("µs per token", "us_per_token", "int"), Col("sentences", "sentences", "int")]),
    # multilingual.json: bench/multilingual.py
    Table("multilingual_sparse", "multilingual.json", per_treebank(sparse_row), [
        TREEBANK, *[Col(f"{system} UAS", f"{system}_uas", "2f") for system in SYSTEMS[:5:2] + SYSTEMS[1:6:2]],
        Col("VineCascade-3 words/s", "words", "int"), Col("VineCascade-3 / NoPrune-3 words/s", "speedup", "x1")]),
    Table("multilingual_parsers", "multilingual.json", per_treebank(lambda row: [
        {"parser": label, "uas": row[key]["uas"], "las": row[key]["las"], **row[key]["nonprojective_arcs"]}
        for key, label in (("spacy", "spaCy parser"), ("vine", "vine_cascade"),
                           ("vine_flat", "vine_cascade, pseudo_projective false")) if key in row]), [
        TREEBANK, Col("parser", "parser"), Col("UAS", "uas", "2f"), Col("LAS", "las", "2f"),
        Col("non-projective gold arcs", "gold", "int"), Col("their recall", "recall", "1f"),
        Col("non-projective precision", "precision", "1f")]),
    Table("multilingual_seeds", "multilingual.json", per_treebank(seed_rows), [
        TREEBANK, Col("seeds", "seeds", "int"), Col("vine_cascade UAS, mean (range)", "vine_uas"),
        Col("spaCy parser UAS", "spacy_uas"), Col("UAS difference of the means", "uas", "+2f"),
        Col("vine_cascade LAS", "vine_las"), Col("spaCy parser LAS", "spacy_las"),
        Col("LAS difference", "las", "+2f")]),
    Table("multilingual_sparse_seeds", "multilingual.json", per_treebank(sparse_seed_rows), [
        TREEBANK, Col("seeds", "seeds"), Col("NoPrune-3 UAS, mean (range)", "NoPrune-3"),
        Col("VineCascade-3 UAS, mean (range)", "VineCascade-3"), Col("gap per seed", "gaps"),
        Col("mean gap", "mean_gap", "+2f")]),
    Table("multilingual_lifting", "multilingual.json", per_treebank(lambda row: [
        {"how": label, **found, **found["nonprojective_arcs"]}
        for key, label in (("pseudo_projective", "lifted, lowering model"), ("without", "without lifting"))
        for found in [row.get("sparse_lifting", {}).get(key)] if found]), [
        TREEBANK, Col("CascadeParser", "how"), Col("UAS", "uas", "2f"), Col("LAS", "las", "2f"),
        Col("non-projective recall", "recall", "1f"), Col("non-projective precision", "precision", "1f")]),
    Table("multilingual_targets", "multilingual.json", lambda doc: items(doc["targets"]), TARGET_COLUMNS),
    # calibration.json: bench/calibration.py
    Table("calibration", "calibration.json", lambda doc: [
        {"system": system, "set": DOCUMENT_SETS.get(name, name), **found, "uas_80": next(
            (100 * c["accuracy"] for c in found["coverage"] if c["coverage"] == 0.8), None)}
        for system, sets in doc["systems"].items() for name, found in sets.items()], [
        Col("confidence of", "system"), Col("test set", "set"), Col("arcs", "arcs", "int"), Col("UAS", "uas", "2f"),
        Col("ECE of the head probability", "ece_head", "3f"), Col("ECE of the label probability", "ece_dep", "3f"),
        Col("UAS of the 80% most confident arcs", "uas_80", "2f")]),
    Table("calibration_targets", "calibration.json", lambda doc: items(doc["targets"]), TARGET_COLUMNS),
    # raw_text.json: bench/raw_text.py (the published systems' rows beside the measured ones)
    *[Table(f"raw_text{part}", f"raw_text{part}.json", lambda doc: [
        {"set": DOCUMENT_SETS.get(name, name), "system": system, **found["scores"], **found}
        for name, tb in doc["treebanks"].items() for system, found in tb["systems"].items()] + [
        {**row, "set": DOCUMENT_SETS.get(name, name), "system": f"{row['system']} (published, UD {row['ud']})"}
        for name, rows in doc["published"].items() for row in rows if name in doc["treebanks"]], [
        Col("test set", "set"), Col("pipeline", "system"),
        *[Col(f"{metric} F1", metric, "2f") for metric in RAW_METRICS], Col("words/s", "words_per_second", "int"),
        Col("words/s on OpenBLAS", "words_per_second_openblas", "int")])
      for part in ("", "_pt")],
    *[Table(f"raw_text{part}_errors", f"raw_text{part}.json", lambda doc: [
        {"set": DOCUMENT_SETS.get(name, name), "system": system, "what": what, **found["boundary_errors"][what]}
        for name, tb in doc["treebanks"].items() for system, found in tb["systems"].items()
        for what in ("missed", "added")], [
        Col("test set", "set"), Col("pipeline", "system"), Col("boundaries", "what"),
        *[Col(kind, lambda row, doc, kind=kind: row.get(kind, 0), "int") for kind in RAW_KINDS]])
      for part in ("", "_pt")],
    Table("raw_text_targets", "raw_text.json", lambda doc: items(doc["targets"]), TARGET_COLUMNS),
    Table("raw_text_seeds", ["raw_text.json", "raw_text_s1.json"], lambda doc: [
        {"run": raw_run(doc, system), "set": DOCUMENT_SETS.get(name, name), "system": system,
         **found["scores"]} for name, tb in doc["treebanks"].items() for system, found in tb["systems"].items()
        if "senter" not in system], [Col("run", "run"), Col("test set", "set"), Col("pipeline", "system"),
                                     *[Col(f"{m} F1", m, "2f") for m in ("Sentences", "UAS", "LAS")]]),
    Table("raw_text_gold_tokens", ["raw_text.json", "raw_text_s1.json", "spacy_compare_es.json"], lambda doc: [
        {"_key": f"{key}, trained for raw text ({raw_run(doc, key)})", **found}
        for key, found in doc["gold_tokens"]["systems"].items()] if "gold_tokens" in doc else [
        {"_key": "vine_cascade, trained on gold sentences (the record's seed 0, "
                 f"{run['stopping']['best_step']:,} steps)",
         "UAS": 100 * run["dep_uas"], "LAS": 100 * run["dep_las"]} for run in [doc["runs"]["cnn-vine-s0"]]], [
        Col("pipeline", "_key"), Col("UAS", "UAS", "2f"), Col("LAS", "LAS", "2f")]),
    # tokenization.json: bench/tokenization.py
    Table("tokenization", "tokenization.json", lambda doc: [
        {"set": TOKENIZATION_SETS.get(name, name), "rules": TOKENIZERS.get(rules, rules), **found}
        for name, systems in doc["sets"].items() for rules, found in systems.items()], [
        Col("test set", "set"), Col("tokenizer", "rules"),
        *[Col(f"{metric} {part}", (metric, key), "2f") for metric in ("Tokens", "Words")
          for part, key in (("P", "precision"), ("R", "recall"), ("F1", "f1"))]]),
    # threads.json: bench/threads.py; bounds.json: bench/bounds.py
    Table("threads", "threads.json", lambda doc: [
        {"model": name, "threads": n, "words": doc[key]["median_words_per_second"][str(n)],
         "speedup": doc[key].get("speedup", {}).get(str(n), 1.0),
         "round_speedup": doc[key].get("speedup_per_round_median", {}).get(str(n), 1.0),
         "differences": doc[key]["differences_from_sequential"][str(n)]}
        for key, name in (("cascade", "CascadeParser.parse_batch"), ("pipeline", "nlp.pipe (vine_cascade pipeline)"))
        for n in doc["threads"]], [
        Col("model, entry point", "model"), Col("calling threads", "threads", "int"),
        Col("words/s (median)", "words", "int"), Col("vs one thread", "speedup", "x"),
        Col("median of per-round ratios", "round_speedup", "x"),
        Col("parses different from sequential", "differences", "int")]),
    Table("bounds", "bounds.json", lambda doc: items(doc["pipelines"]), [Col("pipeline", "_key"),
        Col("µs per token, preset sentences of about 20 words", "preset_20.us_per_token", "1f"),
        Col("µs per token, one preset sentence of 2,000 tokens", "preset_2000.us_per_token", "1f"),
        Col("ratio (at most 2)", "preset_ratio", "x")]),
    # astar_backoff.json: bench/astar_backoff.py
    Table("astar_backoff", "astar_backoff.json", lambda doc: [
        {"model": model, "heuristic": data["heuristic"], "corpus": label, **data["corpora"][corpus]}
        for model, data in doc["models"].items()
        for corpus, label in (("ewt_test_8_26", "EWT test, 8–26 words"),
                              ("ptb_test_le_40", "PTB test, ≤ 40 words"))], [
        Col("model", "model"), Col("heuristic", "heuristic"), Col("corpus", "corpus"),
        Col("sentences", "sentences", "int"), Col("parsed", "parsed_share", "pct"),
        Col("back-off (unknown tag / no derivation)", lambda row, doc: f"{100 * row['backoff_share']:.2f}% "
            f"({row['backoff'].get('unknown tag', 0)} / {row['backoff'].get('no parse', 0)})"),
        Col("ms per sentence, all (median / mean / p90)", times_ms("time_all")),
        Col("covered by the treebank grammar", times_ms("time_covered")),
        Col("back-off", times_ms("time_backoff")),
        Col("A* = exhaustive CKY (back-off sentences ≤ 15 words)",
            lambda row, doc: f"{row['oracle_checked'] - row['oracle_mismatches']} of {row['oracle_checked']}"
            if row["oracle_checked"] else None)]),
    # bitext.json, bitext_aligners.json: bench/bitext.py, bench/bitext_aligners.py
    Table("bitext_speed", "bitext.json", bitext_speed, [
        Col("p×q", "bucket"), Col("binary: exact / one sample (median speed-up; screened)", "binary"),
        Col("ternary: exact / one sample (median speed-up; screened)", "ternary")]),
    Table("bitext_per_pair", "bitext.json", lambda doc: [
        {"chain": label, "subset": subset, **counts}
        for chain, label in (("randomized", "the paper's chain"), ("screened", "screened"))
        for subset, counts in doc["summary"]["bias_per_pair"][chain].items()], [
        Col("chain", "chain"), Col("pairs", "subset"), Col("(pair, beam) points", "points", "int"),
        Col("below tic-tac-toe", "below", "int"), Col("above", "above", "int"),
        Col("no equal-time point", "no_equal_time", "int"),
        Col("largest tic-tac-toe L2 where above", "max_tictactoe_l2_where_above", "{:.2g}".format)]),
    Table("bitext_throughput", "bitext.json", "throughput", [
        Col("grammar", "grammar"), Col("pairs", "pairs", "int"), Col("samples per pair", "samples", "int"),
        Col("skipped", "skipped", "int"), Col("CPU (s)", "cpu_seconds", "1f"), Col("wall (s)", "seconds", "1f"),
        Col("median pair (s)", "median_pair_seconds", "3f"), Col("slowest pair (s)", "slowest_pair_seconds", "sig")]),
    Table("bitext_aligners", "bitext_aligners.json", "rows", [
        Col("M' from", "aligner"), Col("links per pair", "links_per_pair", "2f"),
        Col("checkable", "checkable_share", "pct"), Col("correspond", "correspond_share", "pct"),
        Col("corresponding links per pair", "correspond_per_pair", "2f"), Col("training (s)", "train_seconds", "1f")]),
    # scale.json: bench/scale.py
    Table("scale_runs", "scale.json", lambda doc: [
        {**doc["rounds"][0][key], "run": label,
         "ratio": doc["rounds"][0][key]["words_per_second"] / doc["rounds"][0]["plain"]["words_per_second"]}
        for key, label in (("plain", "plain loop (`vineparse parse`, one process)"),
                           ("dask1", "`parse_corpus`, 1 local worker"),
                           ("dask2", "`parse_corpus`, 2 local workers"))], [
        Col("run", "run"), Col("words/s (after model load)", "words_per_second", "int"),
        Col("vs plain loop", "ratio", "x"), Col("wall (s)", "wall_seconds", "int"),
        Col("output identical to the plain loop", lambda row, doc: row.get("identical_to_plain", "reference"))]),
    Table("scale_costs", "scale.json", lambda doc: [
        {"run": label, **get(doc, key)["costs"],
         **{f"split_{k}": v for k, v in get(doc, key)["costs"]["split_per_shard"].items()}}
        for key, label in (("rounds.0.dask1", "1 worker, full input"), ("check.dask2", "2 workers, check input"))], [
        Col("run", "run"), Col("shards", "shards", "int"),
        Col("ms per shard", lambda row, doc: 1000 * row["seconds_per_shard"], "int"),
        *[Col(f"{part} (ms)", lambda row, doc, part=part: 1000 * row[f"split_{part}"], "sig")
          for part in ("read", "parse", "serialise", "write")],
        Col("Dask dispatch (ms)", lambda row, doc: 1000 * row["dispatch_per_shard"], "1f")]),
    fields("scale_checks", "scale.json", [
        Col("input sentences (full run)", "input.sentences", "int"), Col("input words", "input.words", "int"),
        Col("sentences per shard", "input.shard_size", "int"),
        Col("per-shard overhead, share of shard time (full run, 1 worker)",
            "targets.per_shard_overhead_share.measured", "pct"),
        Col("check runs: sentences", "check.sentences", "int"),
        Col("resumed run: shards parsed / resumed", lambda row, doc: f"{doc['resume']['parsed']} / "
                                                                       f"{doc['resume']['resumed']}"),
        Col("resumed run: files written twice", "resume.files_written_twice", "int"),
        Col("killed worker: shards run twice / more than twice",
            lambda row, doc: f"{doc['killed']['shards_run_twice']} / {doc['killed']['shards_run_more']}"),
        Col("killed worker: extra seconds against the undisturbed run", "killed.extra_seconds_vs_dask2", "1f"),
        Col("every run's output identical to the plain loop", "targets.identical_output.measured")]),
    # soak.json: bench/soak.py
    Table("soak", "soak.json", lambda doc: [
        {**data, **data["growth"], "run": {"pipe": "`nlp.pipe` (vine_cascade pipeline)",
                                           "api": "`CascadeParser.parse_labelled`",
                                           "cli": "`vineparse parse MODEL -`"}[key]}
        for key, data in doc["runs"].items()], [
        Col("run", "run"), Col("sentences/s", "sentences_per_second", "int"),
        Col("RSS at the first sample (MiB)", "rss_from_mb", "1f"), Col("sentences then", "sentences_from", "int"),
        Col("RSS at the end (MiB)", "rss_to_mb", "1f"), Col("sentences then", "sentences_to", "int"),
        Col("growth", "growth", "pct2"), Col("peak (MiB)", "peak_mb", "1f")]),
    # ewt_speed.json: make ewt-speed (its middle run, the configuration before shared_part_roles, is a decision's)
    Table("ewt_speed", "ewt_speed.json", "pipelines", [
        Col("pipeline", "_key"), *[Col(name, f"settings.{name}") for name in ("label_width", "part_width",
                                                                              "shared_part_roles")],
        Col("parser µs / word, alone", "us_per_word", "1f"),
        Col("parser µs / word, in the pipeline", lambda row, doc: get(row, "us_per_word_by_component.vine_cascade")
            or get(row, "us_per_word_by_component.parser"), "1f"),
        Col("pipeline words/s", "words_per_second", "int"), Col("× spaCy's parser's pipeline", "ratio_to_first", "x")],
          where=lambda row: "before" not in row["_key"]),
]


# -- pages ----------------------------------------------------------------------------------------------------

def render_pages(write: bool) -> List[Path]:
    """Fill every marked region; RETURNS the pages whose text changed (written unless `write` is False)."""
    specs = {spec.name: spec for spec in TABLES}
    used, changed = set(), []
    for page in PAGES:
        def fill(match):
            if match.group("name") not in specs:
                raise SystemExit(f"{page.relative_to(ROOT)}: no table spec named {match.group('name')!r}")
            used.add(match.group("name"))
            return f"{match.group(1)}\n{specs[match.group('name')].render()}\n\n{match.group(4)}"

        source = page.read_text(encoding="utf-8")
        rendered = REGION.sub(fill, source)
        if rendered != source:
            changed.append(page)
            if write:
                page.write_text(rendered, encoding="utf-8")
    if len(specs) != len(TABLES) or set(specs) - used:
        raise SystemExit(f"table specs named twice or used by no page: {sorted(set(specs) - used)}")
    return changed


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page's tables are out of date")
    args = parser.parse_args(argv)
    changed = render_pages(write=not args.check)
    for page in changed if args.check else []:
        print(f"{page.relative_to(ROOT)}: tables out of date (run python bench/render_docs.py)")
    if args.check:
        return 1 if changed else 0
    (DOCS / "results").mkdir(parents=True, exist_ok=True)
    for name in PLOTS:              # mkdocs serves only docs/: copies, not committed
        if not (RESULTS / name).exists():
            raise SystemExit(f"{RESULTS / name} is missing (a page shows it)")
        copy = DOCS / "results" / name
        if not copy.exists() or copy.read_bytes() != (RESULTS / name).read_bytes():
            shutil.copyfile(RESULTS / name, copy)
    print(f"rendered {len(TABLES)} tables; {len(changed)} page(s) changed; {len(PLOTS)} plots in docs/results/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
