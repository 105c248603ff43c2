"""The vine's band against dev accuracy and speed (issue 13): does a wider band make the cascade faster?

For each corpus and each band of --bands, a full cascade (vine -> 1 -> 2 -> 3) trained as `bench/cascade.py`
trains VineCascade-3 (same epochs, recalls, bits and update rule), and FirstOnly-3 beside them as the
reference; on dev (nothing here reads the test set): UAS without punctuation, the kept share after each
pruning level, and words/s of each system over all dev sentences and over those of more than 20 words (one
thread, feature encoding included, --repeats rounds interleaved system by system, median of the per-round
ratios to FirstOnly-3).

    python bench/band_sweep.py --models bench/out/band_models --out bench/results/band_sweep.json
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from cascade import load, timed_parse
from provenance import load_now, provenance
from vineparse.cascade import CascadeParser, Example, TrainingSettings, train
from vineparse.cascade.evaluation import evaluate

# bench/cascade.py's defaults when band_sweep.json was measured (before --first-order-recall and --jackknife)
SETTINGS = {"epochs": 5, "recall": 0.99, "vine_recall": 0.998, "final": "mira"}
BITS = 22


def trained(path, orders, band, train_set, dev_set, settings, report):
    """The system saved at `path`, or trained there (returns the parser and its training seconds or None)."""
    if path.exists():
        return CascadeParser.load(path), None
    start = time.perf_counter()
    parser = CascadeParser(orders=orders, band=band, bits=BITS, tag="xpos")
    train(parser, train_set, dev_set, settings, report)
    parser.save(path)
    return parser, round(time.perf_counter() - start)


def sweep(corpus, bands, models, repeats, report):
    train_sents, dev_sents, _ = load(corpus, dev_size=300)
    train_set = [Example.from_sentence(s, "xpos") for s in train_sents]
    dev_set = [Example.from_sentence(s, "xpos") for s in dev_sents]
    settings = TrainingSettings(**SETTINGS)
    models.mkdir(parents=True, exist_ok=True)
    systems, rows = {}, {}
    for band in [None] + bands:
        name = "FirstOnly-3" if band is None else f"band {band}"
        report(f"{corpus}: {name} ...")
        orders = (1, 3) if band is None else (0, 1, 2, 3)
        path = models / f"{corpus}_{'first_only' if band is None else f'band{band}'}.msgpack"
        parser, seconds = trained(path, orders, band or 1, train_set, dev_set, settings, report)
        result = evaluate(parser, dev_sents)
        systems[name] = parser
        rows[name] = {"band": band, "dev_uas": round(result["uas"], 2), "training_seconds": seconds,
                      "kept_share": {row["level"]: round(row["kept_share"], 4) for row in result["levels"]},
                      "alphas": [round(a, 2) for a in parser.alphas],
                      "head_caps": [level.head_cap for level in parser.levels[:-1]]}
    for subset, sentences in (("all", dev_sents), ("> 20 words", [s for s in dev_sents if len(s.words) > 20])):
        words = sum(len(s.words) for s in sentences)
        rates = {name: [] for name in systems}
        for _ in range(repeats):
            for name, parser in systems.items():
                rates[name].append(words / timed_parse(parser, sentences, "xpos")[0])
        for name in systems:
            ratio = np.array(rates[name]) / np.array(rates["FirstOnly-3"])
            rows[name][subset] = {"words_per_second": round(float(np.median(rates[name]))),
                                  "vs_first_only": round(float(np.median(ratio)), 3)}
    return list(rows.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default="ptb,ewt")
    ap.add_argument("--bands", default="5,6,7,8,10,12")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--models", type=Path, default=Path("bench/out/band_models"))
    ap.add_argument("--out", type=Path, default=Path("bench/results/band_sweep.json"))
    args = ap.parse_args(argv)
    report = lambda message: print(message, file=sys.stderr, flush=True)
    result = {"provenance": provenance(), "settings": {**SETTINGS, "bits": BITS, "repeats": args.repeats}}
    bands = [int(b) for b in args.bands.split(",")]
    for corpus in args.corpora.split(","):
        result[corpus] = sweep(corpus, bands, args.models, args.repeats, report)
    result["load_at_end"] = load_now()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for corpus in args.corpora.split(","):
        for row in result[corpus]:
            print(f"{corpus} {row['band'] or 'FirstOnly-3'}: dev UAS {row['dev_uas']}, kept {row['kept_share']}, "
                  f"all {row['all']['vs_first_only']}x, > 20 words {row['> 20 words']['vs_first_only']}x")
    report(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
