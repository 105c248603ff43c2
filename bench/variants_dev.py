"""Two ways of training vine_cascade compared on dev: the same seeds trained both ways, parsed alike.

--baseline and --variant are folders of trained runs with the same names (as `make ewt-compare` writes them:
<setting>-vine-s<seed>/model-best); for every run name found in both (or those of --names), both pipelines
are cut to --orders and calibrated on --docs for --recall, exactly as bench/spacy_compare.py treats them on
test, then scored by spaCy's scorer on --docs (UAS / LAS, also on sentences of more than 30 words). Per run
and on average: variant − baseline. Training choices are made on dev with this script, never on test.

    python bench/variants_dev.py --docs corpora/spacy/en_ewt-ud-dev.spacy --orders 0,1,3 --recall 0.995,0.95 \\
        --baseline bench/out/compare_all_levels --variant bench/out/compare --out bench/results/variant.json
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import (SCORE_KEYS, add_cut_arguments, gold_examples, load, percent_scores,  # noqa: E402
                          run_record, save_differences)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file scored (dev)")
    parser.add_argument("--baseline", type=Path, required=True, help="folder of runs trained the usual way")
    parser.add_argument("--variant", type=Path, required=True, help="folder of the same runs trained the new way")
    parser.add_argument("--names", nargs="*", help="run names to compare (default: every one in both folders)")
    add_cut_arguments(parser)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    names = args.names or sorted(p.parent.parent.name for p in args.variant.glob("*/model-best/config.cfg")
                                 if (args.baseline / p.parent.parent.name / "model-best" / "config.cfg").exists())
    if not names:
        sys.exit(f"error: no run is in both {args.baseline} and {args.variant} (<name>/model-best/config.cfg)")
    result = run_record(docs=args.docs, orders=args.orders, recall=args.recall, runs={})
    for name in names:
        row = {}
        for side in ("baseline", "variant"):
            path = getattr(args, side) / name / "model-best"
            if not (path / "config.cfg").exists():
                sys.exit(f"error: {path} is not a saved spaCy pipeline (no config.cfg)")
            nlp = load(path, "vine", args.docs, args.recall, args.orders)
            row[side] = percent_scores(nlp, gold_examples(nlp, args.docs))
            row[side]["alphas"] = nlp.get_pipe("vine_cascade").cfg["alphas"]
        row["variant_minus_baseline"] = {k: row["variant"][k] - row["baseline"][k] for k in SCORE_KEYS}
        result["runs"][name] = row
        print(f"{name}: baseline {row['baseline']['dep_uas']:.2f} / {row['baseline']['dep_las']:.2f}, "
              f"variant {row['variant']['dep_uas']:.2f} / {row['variant']['dep_las']:.2f}", flush=True)
    save_differences(result, "variant_minus_baseline", args.out, "variant − baseline")


if __name__ == "__main__":
    main()
