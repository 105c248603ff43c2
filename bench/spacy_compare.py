"""vine_cascade against spaCy's parsers: same shared tok2vec, tagger, data, steps and tuning.

Reads the trained pipelines under --runs, named SETTING-PIPELINE-sSEED/model-best (`make ewt-compare`): SETTING
"cnn" (spaCy's --optimize efficiency tok2vec) or "bilstm" (the same with a BiLSTM in the shared tok2vec),
PIPELINE "vine", "spacy" (the transition-based parser) or "beam" (its beam-search version), each tuned on dev
only. For every run: dep_uas / dep_las on the test set (spaCy's scorer, gold tokens as `spacy evaluate
--gold-preproc`), on its sentences of more than 30 words and on the out-of-domain --ood set (English PUD); per
setting and pipeline the mean, sample standard deviation, min and max over seeds. For the first seed of each
setting (unless --no-speed): words per second of the whole pipeline (`nlp.pipe` over the test texts, one core,
median of --repeats interleaved runs of spaCy's pipeline and of the cascade stopping at each order), the µs per
word of each component, once with thinc's NumpyOps (blis) and once with `vineparse.blas.ScipyBlasOps`
(OpenBLAS); and time per token of long inputs (issue 15: within 2x). With `--steps early-stopping`, each run's
record also gives the step it stopped at and the step of its model-best, read from its log (SETTING-PIPELINE-
sSEED.log beside the run's folder). Writes JSON (--out) with the run's provenance and issue 37's targets.

    python bench/spacy_compare.py --runs bench/out/compare8k --steps 8000 \\
        --test corpora/spacy/en_ewt-ud-test.spacy \\
        --ood corpora/spacy/en_pud-ud-test.spacy --out bench/results/spacy_compare.json
"""
import argparse
import gc
import os
import re
import statistics
import sys
import time
from pathlib import Path

import srsly

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runinfo  # noqa: E402
from runinfo import log, run_info  # noqa: E402

EARLY_STOPPING = "early-stopping"
RUN_NAME = re.compile(r"^(cnn|bilstm)-(vine|spacy|beam)-s(\d+)$")
PIPES = ("spacy", "beam", "vine")
LONG = 30          # "long sentences": more than this many words

LOG_ROW = re.compile(r"^\s*\d+\s+(\d+)\s+(.*)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def read_log(path, columns=("DEP_UAS", "DEP_LAS")):
    """[(step, {column: value})] of a `spacy train` console log, for the score `columns` it has."""
    header, rows = None, []
    for line in ANSI.sub("", Path(path).read_text(encoding="utf-8", errors="replace")).splitlines():
        if line.lstrip().startswith("E ") and "#" in line:
            header = []
            for word in line.split():            # "LOSS TOK2VEC" is one column
                if header and header[-1] == "LOSS":
                    header[-1] = f"LOSS {word}"
                else:
                    header.append(word)
            continue
        if header and LOG_ROW.match(line) and len(line.split()) == len(header):
            row = dict(zip(header, line.split()))
            rows.append((int(row["#"]), {k: float(row[k]) for k in columns if k in row}))
    if not rows:
        raise SystemExit(f"{path}: no evaluation rows found")
    return rows


def gold_tokens(nlp, gold):
    """An Example whose predicted doc has the gold tokens (no annotation)."""
    from spacy.tokens import Doc
    from spacy.training import Example
    return Example(Doc(nlp.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold]), gold)


def gold_examples(nlp, path):
    """`gold_tokens` Examples of every doc of the .spacy file `path`."""
    from spacy.tokens import DocBin
    return [gold_tokens(nlp, d) for d in DocBin().from_disk(path).get_docs(nlp.vocab)]


def accuracy(nlp, examples):
    scores = nlp.evaluate(examples)
    long = [eg for eg in examples if len(eg.reference) > LONG]
    long_scores = nlp.evaluate(long)
    return {"dep_uas": scores["dep_uas"], "dep_las": scores["dep_las"], "tag_acc": scores.get("tag_acc"),
            "long_dep_uas": long_scores["dep_uas"], "long_dep_las": long_scores["dep_las"], "long_sentences": len(long)}


def run_record(**fields):
    """The head of a bench JSON: bench/runinfo.py's record with spaCy's version and the BLAS threads, then
    `fields`."""
    import spacy
    info = run_info()
    info["machine"].update(spacy=spacy.__version__,
                           threads={k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")})
    return {**info, **fields}


def write_json(result, out):
    """Stamp the load average at the end and write `result` to `out` as JSON."""
    result["load_average_end"] = os.getloadavg()
    runinfo.write_json(out, result, indent=2)


def words_per_second(nlp, texts, words, batch_size=256):
    gc.collect()        # a full collection set off by the previous run's docs would land in this one
    start = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=batch_size):
        pass
    return words / (time.perf_counter() - start)


def run_components(nlp, docs):
    for _, component in nlp.pipeline:
        docs = list(component.pipe(docs))
    return docs


def long_input_times(nlp, examples, repeats):
    """Seconds per token of (a) 100 preset one-sentence docs of about 20 words, (b) one preset sentence of
    2,000 tokens, (c) docs without boundaries of 250..2,000 tokens; medians of `repeats` runs."""
    from spacy.tokens import Doc
    words = [t.text for eg in examples for t in eg.reference]
    twenty = [eg for eg in examples if 18 <= len(eg.reference) <= 22][:100]

    def preset(word_list):
        return Doc(nlp.vocab, words=word_list, sent_starts=[i == 0 for i in range(len(word_list))])

    def timed(make_docs):
        times = []
        for _ in range(repeats):
            docs = make_docs()
            gc.collect()
            start = time.perf_counter()
            run_components(nlp, docs)
            times.append(time.perf_counter() - start)
        docs = make_docs()
        return statistics.median(times), sum(len(d) for d in docs), run_components(nlp, docs)

    seconds, tokens, _ = timed(lambda: [preset([t.text for t in eg.reference]) for eg in twenty])
    out = {"preset_20": {"docs": len(twenty), "tokens": tokens, "seconds": seconds,
                         "us_per_token": 1e6 * seconds / tokens}}
    seconds, tokens, parsed = timed(lambda: [preset(words[:2000])])
    out["preset_2000"] = {"tokens": tokens, "seconds": seconds, "us_per_token": 1e6 * seconds / tokens,
                          "sentences": len(list(parsed[0].sents))}
    out["preset_ratio"] = out["preset_2000"]["us_per_token"] / out["preset_20"]["us_per_token"]
    out["no_boundaries"] = []
    for length in (250, 500, 1000, 2000):
        seconds, tokens, parsed = timed(lambda: [Doc(nlp.vocab, words=words[:length])])
        out["no_boundaries"].append({"tokens": tokens, "seconds": seconds, "us_per_token": 1e6 * seconds / tokens,
                                     "sentences": len(list(parsed[0].sents))})
    return out


BLAS = ["thinc", "scipy"]         # the thinc ops both pipelines are timed with, one after the other


def use_blas(name):
    """Make thinc's current ops those of `name`: "thinc" (NumpyOps: blis) or "scipy" (ScipyBlasOps: OpenBLAS)."""
    from thinc.api import NumpyOps, set_current_ops

    from vineparse.blas import ScipyBlasOps
    set_current_ops(ScipyBlasOps() if name == "scipy" else NumpyOps())


def summary(values):
    values = [100 * v for v in values]
    return {"mean": statistics.mean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "runs": values}


def component_times(pipelines, texts, words, repeats):
    """Where each pipeline's time goes: µs per word of the tokenizer and of each component (`pipe`, batches
    of 256, the components run one after another over all texts), medians of `repeats` interleaved rounds."""
    times = {name: {} for name in pipelines}
    for _ in range(repeats):
        for name, nlp in pipelines.items():
            gc.collect()
            start = time.perf_counter()
            docs = [nlp.make_doc(text) for text in texts]
            times[name].setdefault("tokenizer", []).append(time.perf_counter() - start)
            for component_name, component in nlp.pipeline:
                gc.collect()
                start = time.perf_counter()
                docs = list(component.pipe(docs, batch_size=256))
                times[name].setdefault(component_name, []).append(time.perf_counter() - start)
    return {name: {part: 1e6 * statistics.median(values) / words for part, values in parts.items()}
            for name, parts in times.items()}


def speed(setting, pipelines, texts, words, repeats):
    """Interleaved words/s of spaCy's pipeline and the cascade stopping at each order (seed 0 of a setting)."""
    nlp_spacy, nlp_vine = pipelines
    component = nlp_vine.get_pipe("vine_cascade")
    orders = [str(order) for order in component.settings.prediction[0][1:]]
    configs = [("spacy", nlp_spacy, None)] + [(f"vine_{order}", nlp_vine, int(order)) for order in orders]
    for _, nlp, _ in configs:
        list(nlp.pipe(texts[:50]))                       # warm up
    runs = {name: [] for name, _, _ in configs}
    loads = []
    for repeat in range(repeats):
        loads.append(os.getloadavg())
        for name, nlp, order in configs:
            if order is not None:
                component.set_max_order(order)
            runs[name].append(words_per_second(nlp, texts, words))
        log(f"{setting} speed round {repeat + 1}/{repeats}: " +
            ", ".join(f"{name} {rates[-1]:,.0f}" for name, rates in runs.items()) + " words/s")
    component.set_max_order(None)
    out = {name: {"median": statistics.median(rates), "runs": rates} for name, rates in runs.items()}
    out["us_per_word_by_component"] = component_times({"spacy": nlp_spacy, "vine_cascade": nlp_vine}, texts, words,
                                                      repeats)
    out["ratio_third_order"] = out[f"vine_{orders[-1]}"]["median"] / out["spacy"]["median"]
    out["per_round_ratios"] = [v / s for v, s in zip(runs[f"vine_{orders[-1]}"], runs["spacy"])]
    out["load_averages"] = loads
    return out


def steps_argument(text):
    """--steps: a number of training steps, or EARLY_STOPPING."""
    if text == EARLY_STOPPING:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of steps or {EARLY_STOPPING!r}, got {text!r}") from None


def stopping_steps(log, pipeline):
    """Where the early-stopped run of the saved `pipeline` (a model-best folder) and its `spacy train` log stopped:
    its patience and step limit (config.cfg), the last evaluated step, and the step whose dev scores model-best
    holds: the row with its dev UAS and LAS (and tok2vec loss, where the log has one) as meta.json records them;
    and those dev UAS and LAS (percent)."""
    from spacy.util import load_config
    training = load_config(Path(pipeline) / "config.cfg")["training"]
    rows = read_log(log, columns=("DEP_UAS", "DEP_LAS", "LOSS TOK2VEC"))
    meta = Path(pipeline) / "meta.json"
    performance = srsly.read_json(meta)["performance"]
    wanted = {"DEP_UAS": round(100 * performance["dep_uas"], 2), "DEP_LAS": round(100 * performance["dep_las"], 2)}
    if "tok2vec_loss" in performance:
        wanted["LOSS TOK2VEC"] = round(performance["tok2vec_loss"], 2)
    best = [step for step, row in rows if all(row.get(k) == value for k, value in wanted.items())]
    if not best:
        raise SystemExit(f"error: no evaluation of {log} has the dev scores of {meta}")
    return {"patience": training["patience"], "max_steps": training["max_steps"], "last_step": rows[-1][0],
            "best_step": best[-1], "dev_uas": wanted["DEP_UAS"], "dev_las": wanted["DEP_LAS"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, help="folder of SETTING-PIPELINE-sSEED/model-best pipelines")
    parser.add_argument("--steps", type=steps_argument, required=True,
                        help="training steps of the runs, or \"early-stopping\" for runs that stopped on dev "
                             "(each run's last and best step are then read from its log, SETTING-PIPELINE-sSEED.log)")
    parser.add_argument("--test", required=True)
    parser.add_argument("--ood", required=True, help="an out-of-domain test set (.spacy), e.g. English PUD")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--no-speed", action="store_true",
                        help="accuracy only: skip seed 0's speed, per-order, per-level and long-input measurements")
    parser.add_argument("--out", default="bench/results/spacy_compare.json")
    args = parser.parse_args()

    import spacy

    import vineparse.pipeline  # noqa: F401  registers vine_cascade (an installed vineparse has entry points too)
    use_blas(BLAS[0])
    result = run_record(steps=args.steps, blas=BLAS, note=None, settings={}, seed0={})
    runs = {}
    for path in sorted(Path(args.runs).iterdir()):
        key = run_key(path.name)
        if key and (path / "model-best").exists():
            runs[key] = path / "model-best"
    if not runs:
        sys.exit(f"error: no SETTING-PIPELINE-sSEED/model-best pipelines under {args.runs}")
    result["seeds"] = sorted({seed for _, _, seed in runs})
    per_run = {}
    for (setting, pipe, seed), path in sorted(runs.items()):
        log(f"{setting}-{pipe}-s{seed}: measuring")
        nlp = spacy.load(path)
        row = per_run[(setting, pipe, seed)] = {**accuracy(nlp, gold_examples(nlp, args.test)),
                                                "ood": accuracy(nlp, gold_examples(nlp, args.ood))}
        if pipe == "vine":
            row["parsing_levels"], row["alphas"] = nlp.get_pipe("vine_cascade").settings.prediction[:2]
        if args.steps == EARLY_STOPPING:
            train_log = path.parent.with_suffix(".log")
            if not train_log.exists():
                sys.exit(f"error: --steps {EARLY_STOPPING} reads each run's log, and {train_log} is missing")
            row["stopping"] = stopping_steps(train_log, path)
    result["runs"] = {f"{s}-{p}-s{seed}": row for (s, p, seed), row in sorted(per_run.items())}
    keys = ("dep_uas", "dep_las", "long_dep_uas", "long_dep_las")
    for setting in sorted({s for s, _, _ in per_run}):
        block = {}
        for pipe in PIPES:
            rows = [row for (s, p, _), row in sorted(per_run.items()) if s == setting and p == pipe]
            if rows:
                block[pipe] = {key: summary([r[key] for r in rows]) for key in keys}
                block[pipe]["ood"] = {key: summary([r["ood"][key] for r in rows]) for key in keys}
        for other in ("spacy", "beam"):
            if other in block and "vine" in block:
                vine = block["vine"]
                vine[f"minus_{other}"] = {key: vine[key]["mean"] - block[other][key]["mean"] for key in keys}
                vine[f"ood_minus_{other}"] = {key: vine["ood"][key]["mean"] - block[other]["ood"][key]["mean"]
                                              for key in keys}
        result["settings"][setting] = block

    for setting in [] if args.no_speed else sorted({s for s, _, _ in runs}):
        first = {pipe: min([seed for s, p, seed in runs if s == setting and p == pipe], default=None)
                 for pipe in ("spacy", "vine")}
        if None in first.values():
            continue
        spacy_key, vine_key = (setting, "spacy", first["spacy"]), (setting, "vine", first["vine"])
        nlp_spacy = spacy.load(runs[spacy_key])
        nlp_vine = spacy.load(runs[vine_key])
        component = nlp_vine.get_pipe("vine_cascade")
        test = gold_examples(nlp_vine, args.test)
        texts = [eg.reference.text for eg in test]
        words = sum(len(nlp_spacy.make_doc(t)) for t in texts)
        block = {"spacy_test": per_run[spacy_key], "seeds": first, "words": words,
                 "alphas": component.settings.prediction[1], "max_heads": component.settings.max_heads}
        block["speed"] = {}
        for blas in BLAS:
            use_blas(blas)              # thinc gives a model the current ops when it is built: load anew
            nlp_spacy = spacy.load(runs[spacy_key])
            nlp_vine = spacy.load(runs[vine_key])
            block["speed"][blas] = speed(f"{setting}, {blas} BLAS", (nlp_spacy, nlp_vine), texts, words, args.repeats)
        log(f"{setting}: long inputs ({BLAS[-1]} BLAS)")
        block["long_inputs"] = long_input_times(nlp_vine, test, 3)
        use_blas(BLAS[0])
        result["seed0"][setting] = block
    result["targets"] = targets(result)
    write_json(result, args.out)


def run_key(name):
    """(setting, pipeline, seed) of a run named SETTING-PIPELINE-sSEED; None for another name."""
    match = RUN_NAME.match(name)
    return (match.group(1), match.group(2), int(match.group(3))) if match else None


def targets(result):
    """Issue 37's targets (setting cnn), each as [measured, target, met]."""
    block = result["settings"].get("cnn", {})
    vine = block.get("vine", {})
    out = {}
    for key, name in (("dep_uas", "UAS"), ("dep_las", "LAS"), ("long_dep_uas", "UAS > 30 words")):
        if "minus_spacy" in vine:
            gain = round(vine["minus_spacy"][key], 2)
            out[f"{name} - spaCy's parser >= 1.0"] = [gain, 1.0, gain >= 1.0]
        if "minus_beam" in vine and key != "long_dep_uas":
            gain = round(vine["minus_beam"][key], 2)
            out[f"{name} - spaCy's beam parser >= 0"] = [gain, 0.0, gain >= 0.0]
        if "ood_minus_spacy" in vine and key != "long_dep_uas":
            gain = round(vine["ood_minus_spacy"][key], 2)
            out[f"out of domain {name} - spaCy's parser >= 1.0"] = [gain, 1.0, gain >= 1.0]
    speed = result.get("seed0", {}).get("cnn", {}).get("speed", {})
    for blas, timing in speed.items():
        ratio = round(timing["ratio_third_order"], 2)
        out[f"pipeline words/s / spaCy's ({blas}) >= 1.3"] = [ratio, 1.3, ratio >= 1.3]
    return out


if __name__ == "__main__":
    main()
