"""vine_cascade's pruning recall per level against dev accuracy and speed: how hard each level can prune.

For each trained pipeline given, first with the thresholds set while training, then calibrated on dev
(`VineCascadeParser.calibrate`) for each per-level recall setting of --settings: dev UAS / LAS (spaCy's
scorer, gold tokens), each pruning level's a, and the component's own time (µs per word: `pipe` over the dev
docs already run through the components before it, batches of 256, one core, the fastest of --repeats
runs, each from a collected heap). Dev only: this is how the comparison's --recall is chosen
(bench/spacy_compare.py), nothing here reads the test set.

    python bench/recall_sweep.py bench/out/compare/cnn-vine-s0/model-best bench/out/compare/bilstm-vine-s0/model-best \\
        --dev corpora/spacy/en_ewt-ud-dev.spacy --out bench/results/recall_sweep.json
"""
import argparse
import gc
import json
import sys
import time
from pathlib import Path

from provenance import provenance

DEFAULT_SETTINGS = "0.995;0.995,0.995,0.95;0.995,0.98,0.95;0.995,0.97,0.95;0.995,0.95,0.95;0.995,0.97,0.9"


def component_us_per_word(nlp, docs, repeats):
    component = nlp.get_pipe("vine_cascade")
    words = sum(len(doc) for doc in docs)
    best = float("inf")
    for _ in range(repeats):
        copies = [doc.copy() for doc in docs]
        gc.collect()
        start = time.perf_counter()
        for _ in component.pipe(copies, batch_size=256):
            pass
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="+", help="trained pipelines with a vine_cascade component")
    parser.add_argument("--dev", required=True)
    parser.add_argument("--settings", default=DEFAULT_SETTINGS,
                        help="recall settings separated by ';', each one number or one per pruning level")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench/results/recall_sweep.json")
    args = parser.parse_args()

    import spacy
    from spacy.tokens import DocBin

    import vineparse.pipeline  # noqa: F401  registers vine_cascade
    from vineparse.pipeline.thresholds import recall_argument
    from spacy_compare import gold_tokens
    settings = [recall_argument(text) for text in args.settings.split(";")]
    result = {"provenance": provenance(), "dev": args.dev, "pipelines": {}}
    for path in args.pipelines:
        nlp = spacy.load(path)
        component = nlp.get_pipe("vine_cascade")
        dev = [gold_tokens(nlp, doc) for doc in DocBin().from_disk(args.dev).get_docs(nlp.vocab)]
        docs = [eg.predicted.copy() for eg in dev]
        for _, other in nlp.pipeline[:-1]:
            docs = list(other.pipe(docs, batch_size=256))
        rows = []
        for recall in [None] + settings:
            if recall is not None:
                component.calibrate(nlp, dev, recall)
            scores = nlp.evaluate(dev)
            row = {"recall": recall, "alphas": list(component.cfg["alphas"]), "dep_uas": 100 * scores["dep_uas"],
                   "dep_las": 100 * scores["dep_las"],
                   "component_us_per_word": component_us_per_word(nlp, docs, args.repeats)}
            rows.append(row)
            print(f"{path}: recall {recall or 'as trained'}: a {row['alphas']}, UAS {row['dep_uas']:.2f} "
                  f"LAS {row['dep_las']:.2f}, {row['component_us_per_word']:.1f} µs/word", file=sys.stderr, flush=True)
        result["pipelines"][path] = rows
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
