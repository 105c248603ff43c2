"""What sentence splitting costs on dev: vine_cascade at split margin 0 against the calibrated margin.

EWT's docs are one sentence each (`spacy convert -n 1`) and carry no sentence boundaries, so each parser
also decides where sentences start. vine_cascade cuts a doc where the vine finds a second ROOT word that the
arc scorer confirms by more than `split_margin`; `calibrate` sets that margin on dev for the best
sentence-boundary F1 (`calibration.calibrate_splitting`). For every vine run (--runs, folders
<setting>-vine-s<seed> with model-best), cut to --orders and calibrated on --docs for --recall as
bench/spacy_compare.py does: the margin found and its F1 table, then UAS / LAS (also on sentences of more than
30 words) and sentence F on --docs at margin 0 (the behaviour before the margin existed), at the calibrated
margin, and with the gold boundaries preset (what no splitting rule can beat); the same (as given and preset)
for the spaCy parser run of the same setting and seed when its folder is there. Means over runs.

    python bench/splitting_dev.py --docs corpora/spacy/en_ewt-ud-dev.spacy --orders 0,1,3 --recall 0.995,0.95 \\
        --runs bench/out/compare/*-vine-s? --out bench/results/splitting_dev.json
"""
import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import LONG, add_cut_arguments, load, run_record, write_json  # noqa: E402

RUN_NAME = re.compile(r"^(?P<setting>[a-z0-9]+)-vine-s(?P<seed>\d+)$")
KEYS = ("dep_uas", "dep_las", "long_dep_uas", "sents_f")


def examples(nlp, gold, preset: bool):
    """Examples whose predicted docs have the gold tokens, and with `preset` the gold sentence starts."""
    from spacy.tokens import Doc
    from spacy.training import Example
    return [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g],
                        sent_starts=[t.is_sent_start for t in g] if preset else None), g) for g in gold]


def scores(nlp, found):
    every = nlp.evaluate(found)
    long = nlp.evaluate([eg for eg in found if len(eg.reference) > LONG])
    return {"dep_uas": 100 * every["dep_uas"], "dep_las": 100 * every["dep_las"],
            "long_dep_uas": 100 * long["dep_uas"], "sents_f": 100 * every["sents_f"]}


def main():
    from spacy.tokens import DocBin
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file calibrated on and scored (dev)")
    parser.add_argument("--runs", nargs="+", type=Path, required=True, help="vine run folders (see above)")
    add_cut_arguments(parser)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    result = run_record(docs=args.docs, orders=args.orders, recall=args.recall, runs={})
    for run in args.runs:
        match = RUN_NAME.match(run.name)
        if match is None or not (run / "model-best" / "config.cfg").exists():
            sys.exit(f"error: {run} is not a run folder <setting>-vine-s<seed> with model-best")
        nlp = load(run / "model-best", "vine", args.docs, args.recall, args.orders)
        component = nlp.get_pipe("vine_cascade")
        gold = list(DocBin().from_disk(args.docs).get_docs(nlp.vocab))
        calibrated = component.cfg["split_margin"]
        row = {"split_calibration": component.split_calibration}
        component.configure(split_margin=0.0)
        row["vine_margin_0"] = scores(nlp, examples(nlp, gold, False))
        component.configure(split_margin=calibrated)
        row["vine_calibrated"] = scores(nlp, examples(nlp, gold, False))
        row["vine_gold_sentences"] = scores(nlp, examples(nlp, gold, True))
        spacy_run = run.parent / f"{match['setting']}-spacy-s{match['seed']}" / "model-best"
        if spacy_run.exists():
            other = load(spacy_run, "spacy", args.docs, None)
            row["spacy"] = scores(other, examples(other, gold, False))
            row["spacy_gold_sentences"] = scores(other, examples(other, gold, True))
        result["runs"][run.name] = row
        print(f"{run.name}: margin {calibrated:g}; UAS at margin 0 {row['vine_margin_0']['dep_uas']:.2f}, "
              f"calibrated {row['vine_calibrated']['dep_uas']:.2f}, gold sentences "
              f"{row['vine_gold_sentences']['dep_uas']:.2f}", flush=True)
    names = [key for key in next(iter(result["runs"].values())) if key != "split_calibration"]
    result["mean"] = {name: {k: statistics.mean(r[name][k] for r in result["runs"].values()) for k in KEYS}
                      for name in names if all(name in r for r in result["runs"].values())}
    write_json(result, args.out)


if __name__ == "__main__":
    main()
