"""Which cascade levels vine_cascade parses with, chosen on dev: every trained level against a subsequence.

For each pipeline (--models): two copies, one with all its trained levels ("all"; or "base", cut to
--base-orders) calibrated on --docs for --recall, one cut to --orders (`VineCascadeParser.set_orders`) and
calibrated for --cut-recall; for each, spaCy's scorer on --docs (UAS / LAS, also on sentences of more than 30
words) and the component's µs per word on those docs (`pipe`, batches of 256, one core, median of --repeats
rounds with the two copies interleaved, each from a collected heap). Per pipeline and on average: cut − all
(or cut − base).

    python bench/orders_dev.py --docs corpora/spacy/en_ewt-ud-dev.spacy --recall 0.995,0.97,0.95 \\
        --orders 0,1,3 --cut-recall 0.995,0.95 --models bench/out/compare/*-vine-s*/model-best \\
        --out bench/results/orders_dev.json
"""
import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from component_speed import prepared_docs  # noqa: E402
from spacy_compare import (SCORE_KEYS, gold_tokens, load, percent_scores, run_record,  # noqa: E402
                           save_differences, use_blas)


def main():
    from vineparse.pipeline.__main__ import orders_argument
    from vineparse.pipeline.thresholds import recall_argument
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file scored and timed (dev)")
    parser.add_argument("--models", nargs="+", type=Path, required=True)
    parser.add_argument("--recall", type=recall_argument, required=True, help="per-level recall, every level")
    parser.add_argument("--orders", type=orders_argument, required=True, help="the levels kept, e.g. 0,1,3")
    parser.add_argument("--cut-recall", type=recall_argument, required=True, help="per-level recall, the cut")
    parser.add_argument("--base-orders", type=orders_argument, default=None,
                        help="the levels of the copy compared against (default: every trained level)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--blas", choices=["thinc", "scipy"], default="scipy")
    parser.add_argument("--out", default="bench/results/orders_dev.json")
    args = parser.parse_args()
    use_blas(args.blas)
    from spacy.tokens import DocBin
    result = run_record(runs={})
    base = "all" if args.base_orders is None else "base"
    for path in args.models:
        if not (path / "config.cfg").exists():
            sys.exit(f"error: {path} is not a saved spaCy pipeline (no config.cfg)")
        copies = {base: load(path, "vine", args.docs, args.recall, args.base_orders),
                  "cut": load(path, "vine", args.docs, args.cut_recall, args.orders)}
        row = {}
        for name, nlp in copies.items():
            gold = list(DocBin().from_disk(args.docs).get_docs(nlp.vocab))
            row[name] = percent_scores(nlp, [gold_tokens(nlp, d) for d in gold])
            row[name]["orders"] = nlp.get_pipe("vine_cascade").cfg["orders"]
            row[name]["alphas"] = nlp.get_pipe("vine_cascade").cfg["alphas"]
            copies[name] = (nlp.get_pipe("vine_cascade"), prepared_docs(nlp, gold))
        times = {name: [] for name in copies}
        for _ in range(args.repeats):
            for name, (component, docs) in copies.items():
                gc.collect()
                start = time.perf_counter()
                for _ in component.pipe(docs, batch_size=256):
                    pass
                times[name].append(1e6 * (time.perf_counter() - start) / sum(len(d) for d in docs))
        for name in copies:
            row[name]["us_per_word"] = statistics.median(times[name])
        row[f"cut_minus_{base}"] = {k: row["cut"][k] - row[base][k] for k in SCORE_KEYS + ("us_per_word",)}
        name = path.parent.name if path.name.startswith("model-") else path.name
        result["runs"][name] = row
        print(f"{name}: " + ", ".join(f"{copy} {row[copy]['dep_uas']:.2f} / {row[copy]['dep_las']:.2f} "
                                      f"{row[copy]['us_per_word']:.1f} µs/word" for copy in copies), flush=True)
    save_differences(result, f"cut_minus_{base}", args.out, f"cut − {base}")


if __name__ == "__main__":
    main()
