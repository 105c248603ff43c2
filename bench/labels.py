"""The cascade's labeller on EWT (issue 15): LAS next to UAS, and what labelling costs.

    python bench/labels.py [--out bench/results/labels.json]

Trains a vine -> 1 -> 2 -> 3 cascade and its labeller on EWT train with bench/cascade.py's SETTINGS and BITS,
then on EWT test with gold tags: UAS and LAS without punctuation and over every word, the labeller's accuracy
on the gold trees, and the seconds spent labelling against those spent parsing, one thread.
"""
import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cascade import BITS, SETTINGS  # noqa: E402
from runinfo import ewt, log, run_info, train_cascade, write_json  # noqa: E402

from vineparse.cascade.encoding import encode_sentence  # noqa: E402
from vineparse.cascade.evaluation import evaluate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/labels.json")
    args = ap.parse_args()
    info = run_info()
    start = time.perf_counter()
    train_set, dev_set, test = ewt("train"), ewt("dev"), ewt("test")
    log("training on EWT train ...")
    t0 = time.perf_counter()
    parser = train_cascade(None, train_set, dev_set, SETTINGS, bits=BITS)
    train_seconds = time.perf_counter() - t0
    log("evaluating on EWT test ...")
    result = evaluate(parser, test)
    correct = total = 0
    for s in test:
        correct += int((parser.labeler.predict(encode_sentence(s), s.heads) == s.labels).sum())
        total += s.n
    report = {**info, "settings": {**vars(args), "model": None, "epochs": SETTINGS.epochs, "bits": BITS},
              "training_settings": asdict(SETTINGS),
              "train_seconds": train_seconds,
              "labels": len(parser.labeler.labels), "labeler_bits": parser.labeler.bits,
              **{k: result[k] for k in ("uas", "las", "uas_all", "las_all", "sentences", "words", "seconds",
                                        "label_seconds", "words_per_second")},
              "label_share_of_parse_time": result["label_seconds"] / result["seconds"],
              "label_accuracy_on_gold_trees": 100.0 * correct / total,
              "levels": result["levels"], "load_average_end": list(os.getloadavg()),
              "total_seconds": time.perf_counter() - start}
    write_json(args.out, report, default=float)


if __name__ == "__main__":
    main()
