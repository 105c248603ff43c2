"""The paper's languages: the sparse cascade against exhaustive parsing, and vine_cascade against spaCy's parser.

    python bench/multilingual.py [--runs bench/out/multilingual] [--treebanks en_ewt,bg_btb,...]
                                 [--sparse-seeds 1,2 | --nonprojective-seeds]
                                 [--out bench/results/multilingual.json] [--plot bench/results/multilingual.png]

Treebanks as bench/ud_data.py splits them (corpora/ud/NAME): English-EWT and Portuguese-Bosque with their train
sets; Bulgarian-BTB, German-GSD, Swedish-Talbanken, Chinese-GSD and Portuguese-Bosque again trained on their dev
file less a held-out tenth ("small data"), all evaluated on their test file with gold tokens and sentences.

(a) The sparse cascade by gold UPOS (`bench/cascade.py --systems multilingual`, models under RUNS/sparse/NAME):
NoPrune-1/2/3 and VineCascade-1/2/3, UAS, LAS and words/s (the PNG: words/s relative to NoPrune-1, as the paper's
bar chart); for German and Portuguese also VineCascade-3's labels retrained without pseudo-projective lifting.
(b) vine_cascade (configs/ud.cfg) against spaCy's parser (configs/ud_spacy_parser.cfg) from
RUNS/NAME-{vine,spacy}-s0/model-best (EWT: --ewt-runs); where both have further seeds (RUNS/NAME-{vine,spacy}-sK)
the difference of the means over the seeds, with each parser's range; for German and Portuguese also
RUNS/NAME-vine-flat-s0 (no lifting). UAS / LAS (spaCy's scorer) and non-projective arc precision and recall.

--sparse-seeds and --nonprojective-seeds keep the existing --out and add to it: the sparse systems trained again
with each further seed (RUNS/sparse/NAME-sSEED, resumable), each seed's UAS and NoPrune-3 - VineCascade-3 and
its mean (`sparse_seeds`); and, for German and Portuguese, the non-projective arcs of every seed on disk, both
parsers' (added to `seeds`, with the UAS and LAS measured then) and each sparse seed's with its LAS gain from
lifting. The targets get their means over the seeds beside seed 0's.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import log, pyplot, run_info, save_figure, write_json  # noqa: E402

TREEBANKS = ("en_ewt", "pt_bosque", "pt_bosque_small", "bg_btb", "de_gsd", "sv_talbanken", "zh_gsd")
SPARSE_SYSTEMS = ("NoPrune-1", "NoPrune-2", "NoPrune-3", "VineCascade-1", "VineCascade-2", "VineCascade-3")
NONPROJECTIVE = ("de_gsd", "pt_bosque")        # where pseudo-projective parsing is measured both ways
SEED_KEYS = ("uas", "las", "nonprojective_arcs")   # what a parser's seed record keeps


def sparse_folder(runs, name, seed):
    """Where the sparse systems of one treebank and training seed are kept."""
    return runs / "sparse" / (name if seed == 0 else f"{name}-s{seed}")


def sparse(name, runs, epochs, repeats, seed=0):
    """bench/cascade.py on one treebank with one training seed, its systems kept under RUNS/sparse/NAME (seed 0)
    or RUNS/sparse/NAME-sSEED (resumable: the trained systems are kept)."""
    folder = sparse_folder(runs, name, seed)
    out = folder.with_suffix(".json")
    if not out.exists():
        command = [sys.executable, str(Path(__file__).resolve().parent / "cascade.py"), "--corpus", f"ud:{name}",
                   "--tag", "upos", "--systems", "multilingual", "--epochs", str(epochs), "--repeats", str(repeats),
                   "--seed", str(seed), "--models", str(folder), "--out", str(out),
                   "--plot", str(out.with_suffix(".png"))]
        folder.mkdir(parents=True, exist_ok=True)
        log(" ".join(command))
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    result = json.loads(out.read_text())
    rows = {row["system"]: {k: row[k] for k in ("uas", "las", "words_per_second", "nonprojective_arcs")}
            for row in result["rows"]}
    return {"train_sentences": result["train_sentences"], "test_sentences": result["test_sentences"],
            "rows": rows, "targets": result["targets"]}


def sparse_without_lifting(name, runs, seed=0):
    """VineCascade-3 of `sparse` (training seed `seed`) with its labeller retrained without pseudo-projective
    lifting under the same seed: its LAS, UAS and non-projective arcs on test, beside the same model's with
    lifting."""
    from vineparse.cascade import CascadeParser, Example, TrainingSettings
    from vineparse.cascade.evaluation import evaluate
    from vineparse.cascade.training import train_labeler
    from vineparse.corpus import read_conllu

    folder = Path("corpora/ud") / name
    parser = CascadeParser.load(sparse_folder(runs, name, seed) / "VineCascade-3.msgpack")
    test = read_conllu(folder / "test.conllu")
    lifted = evaluate(parser, test)
    parser.pseudo_projective = False
    train_labeler(parser, [Example.from_sentence(s, "upos") for s in read_conllu(folder / "train.conllu")],
                  TrainingSettings(epochs=5, seed=seed), report=lambda message: None)
    flat = evaluate(parser, test)
    keys = ("uas", "las", "nonprojective_arcs")
    return {"pseudo_projective": {k: lifted[k] for k in keys}, "without": {k: flat[k] for k in keys}}


def sparse_seeds_update(result, names, seeds, args):
    """`result` (a multilingual.json) with the sparse systems of further training seeds, for the treebanks
    `names` that have a sparse row: each seed's UAS per system and NoPrune-3 - VineCascade-3, and that gap's mean
    over seed 0 (the row's own run) and `seeds`. Only accuracy is kept: the seeds' speed is measured once
    (--repeats 1) and not reported."""
    result["sparse_seeds_run"] = run_info()
    for name in names:
        row = result["treebanks"].get(name)
        if row is None or "sparse" not in row:
            continue
        runs = {0: row["sparse"]["rows"]}
        for seed in seeds:
            log(f"{name}: sparse cascade, seed {seed}")
            runs[seed] = sparse(name, args.runs, args.epochs, 1, seed)["rows"]
        uas = {seed: {system: rows[system]["uas"] for system in SPARSE_SYSTEMS} for seed, rows in runs.items()}
        gaps = {seed: by_system["NoPrune-3"] - by_system["VineCascade-3"] for seed, by_system in uas.items()}
        row["sparse_seeds"] = {**row.get("sparse_seeds", {}),      # keeps what --nonprojective-seeds added
                               "uas": uas, "gap": gaps, "mean_gap": float(np.mean(list(gaps.values())))}
    return result


def nonprojective_seeds_update(result, names, runs):
    """`result` (a multilingual.json) with the non-projective arcs of every seed on disk, for the treebanks of
    `names` where lifting is measured (`NONPROJECTIVE`): added to each parser's seed records that lack them,
    and to `sparse_seeds` (VineCascade-3's arcs and its LAS gain from lifting, per seed)."""
    evaluated = {}
    for name in names:
        row = result["treebanks"].get(name)
        if name not in NONPROJECTIVE or row is None:
            continue
        test = Path("corpora/ud") / name / "test.spacy"
        if "seeds" in row:
            row["seeds"] = {key: int_keys(by_seed) for key, by_seed in row["seeds"].items()}
            for key, by_seed in row["seeds"].items():
                for seed, scores in sorted(by_seed.items()):
                    if "nonprojective_arcs" in scores:
                        continue
                    if seed == 0 and "nonprojective_arcs" in row.get(key, {}):
                        scores["nonprojective_arcs"] = row[key]["nonprojective_arcs"]
                        continue
                    path = runs / f"{name}-{key}-s{seed}" / "model-best"
                    if not path.exists():
                        continue
                    log(f"{name}: {key}, seed {seed}, non-projective arcs")
                    found = neural(path, test)
                    scores["nonprojective_arcs"] = found["nonprojective_arcs"]
                    scores["measured_again"] = {k: found[k] for k in ("uas", "las")}
                    evaluated.setdefault(name, []).append(f"{key}-s{seed}")
        if "sparse_seeds" in row and "sparse_lifting" in row:
            seeds = row["sparse_seeds"]
            seeds["uas"] = int_keys(seeds["uas"])
            arcs = int_keys(seeds.get("nonprojective_arcs", {}))
            gains = int_keys(seeds.get("lifting_las_gain", {}))
            for seed in sorted(seeds["uas"]):
                if seed in gains:
                    continue
                if seed == 0:
                    lifting = row["sparse_lifting"]
                else:
                    log(f"{name}: sparse cascade, seed {seed}, labels without lifting")
                    lifting = sparse_without_lifting(name, runs, seed)
                arcs[seed] = lifting["pseudo_projective"]["nonprojective_arcs"]
                gains[seed] = lifting["pseudo_projective"]["las"] - lifting["without"]["las"]
            seeds["nonprojective_arcs"] = arcs
            seeds["lifting_las_gain"] = gains
    result.setdefault("nonprojective_seeds_run", []).append({"run": run_info(), "evaluated": evaluated})
    return result


def int_keys(by_seed):
    """A map by seed with the seeds as integers (JSON gives them as strings)."""
    return {int(seed): value for seed, value in by_seed.items()}


def mean_recall(arcs_by_seed):
    """The mean non-projective recall of `NonProjectiveArcs.scores` by seed (no crossing arc predicted counts
    as 0), and the seeds in order."""
    seeds = sorted(arcs_by_seed, key=int)
    return float(np.mean([arcs_by_seed[seed]["recall"] or 0.0 for seed in seeds])) if seeds else None, seeds


def neural(path, test_path):
    """UAS / LAS and non-projective arcs of a trained pipeline on a test file (gold tokens and sentences)."""
    import spacy

    return evaluate(spacy.load(path), test_path)


def gold_docs(nlp, path):
    """The docs of a .spacy file (gold), and the same tokens and sentence starts without annotation (inputs)."""
    from spacy.tokens import Doc, DocBin

    gold = list(DocBin().from_disk(path).get_docs(nlp.vocab))
    inputs = [Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                  sent_starts=[t.is_sent_start for t in doc]) for doc in gold]
    return gold, inputs


def evaluate(nlp, test_path):
    """`neural` for a loaded pipeline, with the words per second of its parse pass (gold tokens, one thread)."""
    import time

    from spacy.scorer import Scorer
    from spacy.training import Example

    from vineparse.metrics import NonProjectiveArcs

    gold, inputs = gold_docs(nlp, test_path)
    start = time.perf_counter()
    parsed_docs = list(nlp.pipe(inputs))
    seconds = time.perf_counter() - start
    examples = [Example(parsed, doc) for parsed, doc in zip(parsed_docs, gold)]
    scores = Scorer(nlp).score(examples)       # what nlp.evaluate scores, on the one parse pass
    arcs = NonProjectiveArcs()
    for example in examples:
        for sentence in example.reference.sents:
            arcs.add(_tree(sentence), _tree(example.predicted[sentence.start:sentence.end]))
    return {"uas": 100 * scores["dep_uas"], "las": 100 * scores["dep_las"], "nonprojective_arcs": arcs.scores(),
            "words_per_second": sum(len(doc) for doc in gold) / seconds}


def other_seeds(runs, name):
    """The seeds above 0 trained for both parsers on a treebank (RUNS/NAME-{vine,spacy}-sSEED/model-best)."""
    found = []
    for folder in runs.glob(f"{name}-vine-s*"):
        seed = folder.name.rsplit("-s", 1)[1]
        if seed.isdigit() and int(seed) > 0 and (folder / "model-best").exists() \
                and (runs / f"{name}-spacy-s{seed}" / "model-best").exists():
            found.append(int(seed))
    return sorted(found)


def seed_difference(seeds):
    """vine_cascade - spaCy's parser in UAS and LAS: the difference of the means over the seeds both have, the
    seeds, and the range (max - min) of each parser's scores."""
    common = sorted(set(seeds["vine"]) & set(seeds["spacy"]))
    out = {"seeds": common}
    for k in ("uas", "las"):
        vine = [seeds["vine"][seed][k] for seed in common]
        spacy = [seeds["spacy"][seed][k] for seed in common]
        out[k] = float(np.mean(vine) - np.mean(spacy))
        out[f"{k}_range"] = {"vine": float(np.ptp(vine)), "spacy": float(np.ptp(spacy))}
    return out


def _tree(span):
    """A span's heads as a head array (0 = the root; heads outside the span count as the root)."""
    start = span.start
    heads = [0 if t.head.i == t.i or not span.start <= t.head.i < span.end else t.head.i - start + 1 for t in span]
    return np.array([-1] + heads, dtype=np.int64)


def plot(table, path):
    try:
        plt = pyplot()
    except ImportError:
        return log("matplotlib is not installed: no plot")
    names = [name for name in table if "sparse" in table[name]]
    width = 0.8 / len(SPARSE_SYSTEMS)
    fig, ax = plt.subplots(figsize=(10, 4))
    for k, system in enumerate(SPARSE_SYSTEMS):
        ratios = [table[n]["sparse"]["rows"][system]["words_per_second"]
                  / table[n]["sparse"]["rows"]["NoPrune-1"]["words_per_second"] for n in names]
        ax.bar(np.arange(len(names)) + k * width, ratios, width, label=system)
    ax.set_xticks(np.arange(len(names)) + width * (len(SPARSE_SYSTEMS) - 1) / 2)
    ax.set_xticklabels(names)
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_ylabel("words/s relative to NoPrune-1")
    ax.set_yscale("log")
    ax.legend(ncol=3, fontsize=8)
    save_figure(fig, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=Path, default=Path("bench/out/multilingual"))
    parser.add_argument("--ewt-runs", type=Path, default=Path("bench/out/compare8k"),
                        help="where cnn-vine-s0 and cnn-spacy-s0 of the EWT comparison are")
    parser.add_argument("--treebanks", default=",".join(TREEBANKS))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    update = parser.add_mutually_exclusive_group()
    update.add_argument("--sparse-seeds", default=None, help="add to --out: the sparse systems with these seeds (1,2)")
    update.add_argument("--nonprojective-seeds", action="store_true",
                        help="add to --out: the non-projective arcs of every seed on disk")
    parser.add_argument("--out", default="bench/results/multilingual.json")
    parser.add_argument("--plot", default="bench/results/multilingual.png")
    args = parser.parse_args(argv)
    result = {"run": run_info(), "treebanks": {}}
    treebanks = args.treebanks.split(",")
    if args.sparse_seeds or args.nonprojective_seeds:
        if not Path(args.out).exists():
            parser.error(f"--sparse-seeds and --nonprojective-seeds update an earlier result, and {args.out} "
                         "does not exist")
        earlier = json.loads(Path(args.out).read_text())
        if args.nonprojective_seeds:
            result = nonprojective_seeds_update(earlier, treebanks, args.runs)
        else:
            seeds = [int(seed) for seed in args.sparse_seeds.split(",")]
            if any(seed <= 0 for seed in seeds):
                parser.error("--sparse-seeds takes seeds above 0 (seed 0 is the row's own run)")
            result = sparse_seeds_update(earlier, treebanks, seeds, args)
        treebanks = []
    for name in treebanks:
        record = json.loads((Path("corpora/ud") / name / "split.json").read_text())
        row = {"lang": record["lang"], "small_data": record["small_data"], "sentences": record["sentences"]}
        log(f"{name}: sparse cascade")
        row["sparse"] = sparse(name, args.runs, args.epochs, args.repeats)
        if name in NONPROJECTIVE:
            row["sparse_lifting"] = sparse_without_lifting(name, args.runs)
        test = Path("corpora/ud") / name / "test.spacy"
        runs = {"vine": args.runs / f"{name}-vine-s0", "spacy": args.runs / f"{name}-spacy-s0",
                "vine_flat": args.runs / f"{name}-vine-flat-s0"}
        if name == "en_ewt":
            runs.update(vine=args.ewt_runs / "cnn-vine-s0", spacy=args.ewt_runs / "cnn-spacy-s0")
        for key, folder in runs.items():
            if (folder / "model-best").exists():
                log(f"{name}: {key}")
                row[key] = neural(folder / "model-best", test)
        if "vine" in row and "spacy" in row:
            row["seeds"] = {"vine": {0: {k: row["vine"][k] for k in ("uas", "las")}},
                            "spacy": {0: {k: row["spacy"][k] for k in ("uas", "las")}}}
            for seed in [] if name == "en_ewt" else other_seeds(args.runs, name):
                for key in ("vine", "spacy"):
                    log(f"{name}: {key}, seed {seed}")
                    found = neural(args.runs / f"{name}-{key}-s{seed}" / "model-best", test)
                    row["seeds"][key][seed] = {k: found[k] for k in SEED_KEYS}
            row["difference"] = seed_difference(row["seeds"])
        result["treebanks"][name] = row
    rows = result["treebanks"]
    result["targets"] = targets(rows)
    write_json(args.out, result, default=float)
    plot(rows, args.plot)


def targets(rows):
    """Issue 33's targets, each as [measured, target, met]."""
    out = {}
    for name in NONPROJECTIVE:
        row = rows.get(name, {})
        if "vine" in row:
            out[f"{name}: vine_cascade non-projective arc recall >= 30"] = recall_target(
                row["vine"]["nonprojective_arcs"]["recall"])
        recall, seeds = mean_recall({seed: scores["nonprojective_arcs"] for seed, scores
                                     in row.get("seeds", {}).get("vine", {}).items() if "nonprojective_arcs" in scores})
        if len(seeds) > 1:
            out[f"{name}: vine_cascade non-projective arc recall >= 30, mean of seeds "
                f"{', '.join(map(str, seeds))}"] = recall_target(recall)
        if "vine" in row and "vine_flat" in row:
            out[f"{name}: vine_cascade LAS with lifting - without >= 0.3"] = gain_target(
                row["vine"]["las"] - row["vine_flat"]["las"])
        if "sparse_lifting" in row:
            lifted, flat = row["sparse_lifting"]["pseudo_projective"], row["sparse_lifting"]["without"]
            out[f"{name}: CascadeParser non-projective arc recall >= 30"] = recall_target(
                lifted["nonprojective_arcs"]["recall"])
            out[f"{name}: CascadeParser LAS with lifting - without >= 0.3"] = gain_target(lifted["las"] - flat["las"])
        if "lifting_las_gain" in row.get("sparse_seeds", {}):
            seeds = row["sparse_seeds"]
            count = len(seeds["lifting_las_gain"])
            out[f"{name}: CascadeParser non-projective arc recall >= 30, mean of {count} seeds"] = recall_target(
                mean_recall(seeds["nonprojective_arcs"])[0])
            out[f"{name}: CascadeParser LAS with lifting - without >= 0.3, mean of {count} seeds"] = gain_target(
                float(np.mean(list(seeds["lifting_las_gain"].values()))))
    for name, row in rows.items():
        if "sparse" in row:
            r = row["sparse"]["rows"]
            gap = round(r["NoPrune-3"]["uas"] - r["VineCascade-3"]["uas"], 2)
            speed = round(r["VineCascade-3"]["words_per_second"] / r["NoPrune-3"]["words_per_second"], 1)
            out[f"{name}: VineCascade-3 within 0.3 UAS of NoPrune-3"] = [gap, 0.3, gap <= 0.3]
            out[f"{name}: VineCascade-3 >= 10x NoPrune-3's words/s"] = [speed, 10.0, speed >= 10.0]
        if "sparse_seeds" in row:
            seeds = row["sparse_seeds"]
            gap = round(seeds["mean_gap"], 2)
            out[f"{name}: VineCascade-3 within 0.3 UAS of NoPrune-3, mean of {len(seeds['gap'])} seeds"] = [
                gap, 0.3, gap <= 0.3]
    by_language = {}          # one row per language: its full training set where measured, else small data
    for name, row in rows.items():
        if "difference" in row and (row["lang"] not in by_language or not row["small_data"]):
            by_language[row["lang"]] = row
    wins = [lang for lang, row in by_language.items()
            if row["difference"]["uas"] >= 0 and row["difference"]["las"] >= 0]
    out["vine_cascade >= spaCy's parser in UAS and LAS, languages"] = [
        f"{len(wins)} of {len(by_language)} ({', '.join(sorted(wins))})", 5, len(wins) >= 5]
    return out


def recall_target(recall):
    """[measured, 30, met] of a non-projective arc recall (None: no crossing arc predicted)."""
    return [None if recall is None else round(recall, 1), 30.0, (recall or 0) >= 30.0]


def gain_target(gain):
    """[measured, 0.3, met] of the LAS gained by lifting."""
    return [round(gain, 2), 0.3, gain >= 0.3]


if __name__ == "__main__":
    main()
