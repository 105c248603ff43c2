"""vine_cascade's two decoders on dev: UAS / LAS of trained pipelines decoded by "map" and by "mbr".

For each pipeline (--models, saved spaCy pipelines with a vine_cascade): its pruning thresholds calibrated on
--docs for --recall as bench/spacy_compare.py does, then spaCy's scorer (punctuation excluded, gold tokens)
on --docs with the last level decoding its best tree ("map") and the tree with the most expected correct
heads ("mbr"); per pipeline and on average, the difference mbr − map. The choice of the default decoder is
made on dev with this script, never on test.

    python bench/decoders.py --docs corpora/spacy/en_ewt-ud-dev.spacy --recall 0.995,0.97,0.95 \\
        --models bench/out/compare/*-vine-s*/model-best --out bench/results/decoders_dev.json
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import gold_examples, load, percent_scores, run_record, save_differences  # noqa: E402

DECODERS = ("map", "mbr")


def main():
    from vineparse.pipeline.thresholds import recall_argument
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file scored (dev)")
    parser.add_argument("--models", nargs="+", type=Path, required=True)
    parser.add_argument("--recall", type=recall_argument, default=None,
                        help="calibrate the thresholds on --docs for this recall per pruning level first")
    parser.add_argument("--out", default="bench/results/decoders_dev.json")
    args = parser.parse_args()
    result = run_record(docs=args.docs, recall=args.recall, runs={})
    for path in args.models:
        if not (path / "config.cfg").exists():
            sys.exit(f"error: {path} is not a saved spaCy pipeline (no config.cfg)")
        nlp = load(path, "vine", args.docs, args.recall)
        component = nlp.get_pipe("vine_cascade")
        examples = gold_examples(nlp, args.docs)
        row = {}
        for decoder in DECODERS:
            component.set_decoder(decoder)
            row[decoder] = percent_scores(nlp, examples)
        row["mbr_minus_map"] = {k: row["mbr"][k] - row["map"][k] for k in row["map"]}
        name = path.parent.name if path.name.startswith("model-") else path.name
        result["runs"][name] = row
        print(f"{name}: " + ", ".join(f"{d} {row[d]['dep_uas']:.2f} / {row[d]['dep_las']:.2f}" for d in DECODERS),
              flush=True)
    save_differences(result, "mbr_minus_map", args.out, "mbr − map")


if __name__ == "__main__":
    main()
