"""Bounded work per token (issues 15 and 36): a preset sentence of 2,000 tokens against preset sentences of
about 20 words, for well and weakly trained pipelines.

    python bench/bounds.py --pipeline trained=PATH --pipeline 300-sentences=PATH [--out bench/results/bounds.json]

For each pipeline, one core: `spacy_compare.long_input_times` on EWT test, and the ratio of µs per token of
one 2,000-token sentence to that of sentences of about 20 words. Target: <= 2 for every pipeline.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ONE_THREAD, labelled_path, run_info, write_json  # noqa: E402

os.environ.update(ONE_THREAD)       # before numpy loads
from spacy_compare import long_input_times  # noqa: E402

TARGET_RATIO = 2.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", type=labelled_path, action="append", required=True,
                        help="LABEL=PATH of a trained pipeline with vine_cascade (repeat for several)")
    parser.add_argument("--test", default="corpora/spacy/en_ewt-ud-test.spacy")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench/out/bounds.json")
    args = parser.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin
    from spacy.training import Example

    out = {"run": run_info(), "target": f"preset_ratio <= {TARGET_RATIO}", "pipelines": {}}
    for label, path in args.pipeline:
        nlp = spacy.load(path)
        test = [Example(doc, doc) for doc in DocBin().from_disk(args.test).get_docs(nlp.vocab)]
        times = long_input_times(nlp, test, args.repeats)
        times.update(model=path, met=times["preset_ratio"] <= TARGET_RATIO)
        out["pipelines"][label] = times
    out["run"]["load_average_at_end"] = list(os.getloadavg())
    write_json(args.out, out)


if __name__ == "__main__":
    main()
