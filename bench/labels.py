"""The cascade's labeller on EWT (issue 15): LAS next to UAS, and what labelling costs.

    python bench/labels.py [--out bench/results/labels.json] [--model PATH] [--epochs 5] [--bits 22]

Trains a vine -> 1 -> 2 -> 3 cascade and its labeller on EWT train (dev for the thresholds; the settings of
the cascade experiments, bench/cascade.py's SETTINGS), or loads ``--model``, then
evaluates on EWT test with gold tags: UAS and LAS with punctuation excluded and over every word
(``cascade.evaluation.evaluate``), the labeller's accuracy on the gold trees, and the seconds spent
labelling against those spent parsing, one thread. The JSON records command line, commit, load average
and machine.
"""
import argparse
import json
import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cascade import SETTINGS  # noqa: E402
from runinfo import run_info  # noqa: E402

from vineparse.cascade import CascadeParser, Example, train  # noqa: E402
from vineparse.cascade.encoding import encode_sentence  # noqa: E402
from vineparse.cascade.evaluation import evaluate  # noqa: E402
from vineparse.corpus import corpus_path, read_conllu  # noqa: E402


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/labels.json")
    ap.add_argument("--model", default=None, help="a trained cascade (default: train one)")
    ap.add_argument("--epochs", type=int, default=SETTINGS.epochs)
    ap.add_argument("--bits", type=int, default=22)
    args = ap.parse_args()
    settings = replace(SETTINGS, epochs=args.epochs)
    info = run_info()
    start = time.perf_counter()
    ewt = {split: read_conllu(corpus_path("ud-english-ewt", f"en_ewt-ud-{split}.conllu"))
           for split in ("train", "dev", "test")}
    if args.model:
        parser, train_seconds = CascadeParser.load(args.model), None
    else:
        parser = CascadeParser(orders=(0, 1, 2, 3), bits=args.bits)
        t0 = time.perf_counter()
        train(parser, [Example.from_sentence(s) for s in ewt["train"]], [Example.from_sentence(s) for s in ewt["dev"]],
              settings, report=log)
        train_seconds = time.perf_counter() - t0
    log("evaluating on EWT test ...")
    result = evaluate(parser, ewt["test"])
    correct = total = 0
    for s in ewt["test"]:
        correct += int((parser.labeler.predict(encode_sentence(s), s.heads) == s.labels).sum())
        total += s.n
    report = {**info, "settings": vars(args), "training_settings": None if args.model else asdict(settings),
              "train_seconds": train_seconds,
              "labels": len(parser.labeler.labels), "labeler_bits": parser.labeler.bits,
              **{k: result[k] for k in ("uas", "las", "uas_all", "las_all", "sentences", "words", "seconds",
                                        "label_seconds", "words_per_second")},
              "label_share_of_parse_time": result["label_seconds"] / result["seconds"],
              "label_accuracy_on_gold_trees": 100.0 * correct / total,
              "levels": result["levels"], "load_average_end": list(os.getloadavg()),
              "total_seconds": time.perf_counter() - start}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    log(f"UAS {report['uas']:.2f} LAS {report['las']:.2f} (punct. excluded), {report['uas_all']:.2f} / "
        f"{report['las_all']:.2f} (all); labels on gold trees {report['label_accuracy_on_gold_trees']:.2f}%; "
        f"labelling {100 * report['label_share_of_parse_time']:.1f}% of parse time; wrote {args.out}")


if __name__ == "__main__":
    main()
