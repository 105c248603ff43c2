"""Calibration of vine_cascade's confidences, in and out of domain.

    python bench/calibration.py --pipeline PATH [--out bench/results/calibration.json]
                                [--plot bench/results/calibration.png]

On EWT test and English PUD (gold tokens and sentences, punctuation left out): `Token._.head_prob` against
whether the head is right (expected calibration error, 10 bins; the reliability diagram; the accuracy of the
most confident arcs by the share kept), `Token._.dep_prob` against whether the label is right; and the
component's µs per word with confidences on and off. Targets: ECE <= 0.02 (EWT test) and <= 0.04 (PUD); UAS of
the 80% most confident arcs >= 96; confidences cost <= 10% of the component's time.
"""
import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ONE_THREAD, pyplot, run_info, save_figure, write_json  # noqa: E402

os.environ.update({**ONE_THREAD, **os.environ})       # one core unless set otherwise, before numpy loads
import numpy as np  # noqa: E402

from multilingual import gold_docs  # noqa: E402

SHARES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
SETS = {"ewt_test": "corpora/spacy/en_ewt-ud-test.spacy", "pud": "corpora/spacy/en_pud-ud-test.spacy"}


def arcs_of(gold, parsed, head_prob, dep_prob):
    """Per scored word (not punctuation): its head probability, whether its head is right, and its label
    probability and whether its label is right (NaN for the label where the head is wrong)."""
    rows = []
    for g, p in zip(gold, parsed):
        for gt, pt in zip(g, p):
            if gt.is_punct or gt.pos_ == "PUNCT":
                continue
            right = gt.head.i == pt.head.i
            rows.append((head_prob(pt), right, dep_prob(pt) if right else np.nan,
                         gt.dep_.lower() == pt.dep_.lower() if right else np.nan))
    return np.array(rows, dtype=np.float64).reshape(-1, 4)


def scores(rows):
    from vineparse.pipeline.confidence import calibration_error, coverage_accuracy
    head, right = rows[:, 0], rows[:, 1].astype(bool)
    error, diagram = calibration_error(head, right)
    labelled = ~np.isnan(rows[:, 2])
    label_error, _ = calibration_error(rows[labelled, 2], rows[labelled, 3].astype(bool))
    return {"arcs": int(len(rows)), "uas": float(100 * right.mean()), "ece_head": error, "ece_dep": label_error,
            "reliability": diagram, "coverage": coverage_accuracy(head, right, SHARES)}


def component_cost(nlp, docs, rounds):
    """µs per word of the vine_cascade component alone, confidences off and on, interleaved rounds."""
    component = nlp.get_pipe("vine_cascade")
    upstream = [doc.copy() for doc in docs]
    for name, pipe in nlp.pipeline:
        if name == "vine_cascade":
            break
        upstream = list(pipe.pipe(upstream))
    words = sum(len(d) for d in upstream)
    times = {False: [], True: []}
    for _ in range(rounds):
        for flag in (False, True):
            component.configure(confidences=flag)
            batch = [d.copy() for d in upstream]
            gc.collect()
            start = time.perf_counter()
            list(component.pipe(batch, batch_size=256))
            times[flag].append(1e6 * (time.perf_counter() - start) / words)
    component.configure(confidences=True)
    off, on = statistics.median(times[False]), statistics.median(times[True])
    return {"us_per_word_off": off, "us_per_word_on": on, "extra": on / off - 1.0,
            "rounds": {"off": times[False], "on": times[True]}}


def plot(result, path):
    try:
        fig, axes = pyplot().subplots(1, 2, figsize=(10, 4))
    except ImportError:
        return
    for system, rows in result["systems"].items():
        for name, row in rows.items():
            points = [(b["confidence"], b["accuracy"]) for b in row["reliability"] if b["count"]]
            axes[0].plot(*zip(*points), marker="o", label=f"{system}, {name} (ECE {row['ece_head']:.3f})")
            axes[1].plot([c["coverage"] for c in row["coverage"]], [100 * c["accuracy"] for c in row["coverage"]],
                         marker="o", label=f"{system}, {name}")
    axes[0].plot([0, 1], [0, 1], color="grey", linewidth=0.5)
    axes[0].set(xlabel="head probability (bin mean)", ylabel="share of right heads")
    axes[0].legend(fontsize=7)
    axes[1].set(xlabel="share of arcs kept (most probable first)", ylabel="UAS of the kept arcs")
    axes[1].legend(fontsize=7)
    save_figure(fig, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", required=True, help="a trained pipeline with vine_cascade")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--out", default="bench/out/calibration.json")
    parser.add_argument("--plot", default=None)
    args = parser.parse_args(argv)

    import spacy

    nlp = spacy.load(args.pipeline)
    component = nlp.get_pipe("vine_cascade")
    component.configure(confidences=True)
    result = {"run": run_info(), "pipeline": args.pipeline, "temperatures_set_on": None,
              "temperatures": {"head": component.settings.head_temperature,
                               "label": component.settings.label_temperature}, "systems": {"vine_cascade": {}}}
    for name, path in SETS.items():
        gold, inputs = gold_docs(nlp, path)
        parsed = list(nlp.pipe(inputs))
        rows = arcs_of(gold, parsed, lambda t: t._.head_prob, lambda t: t._.dep_prob)
        result["systems"]["vine_cascade"][name] = scores(rows)
        if name == "ewt_test":
            result["cost"] = component_cost(nlp, inputs, args.rounds)
    vine = result["systems"]["vine_cascade"]
    coverage = next(c for c in vine["ewt_test"]["coverage"] if c["coverage"] == 0.8)
    result["targets"] = {
        "ECE of head_prob on EWT test <= 0.02": [round(vine["ewt_test"]["ece_head"], 4), 0.02,
                                                 vine["ewt_test"]["ece_head"] <= 0.02],
        "ECE of head_prob on PUD <= 0.04": [round(vine["pud"]["ece_head"], 4), 0.04, vine["pud"]["ece_head"] <= 0.04],
        "UAS of the 80% most confident arcs (EWT test) >= 96": [round(100 * coverage["accuracy"], 2), 96.0,
                                                                100 * coverage["accuracy"] >= 96.0],
        "confidences cost <= 10% of the component's time": [round(100 * result["cost"]["extra"], 1), 10.0,
                                                             result["cost"]["extra"] <= 0.10]}
    result["run"]["load_average_at_end"] = list(os.getloadavg())
    write_json(args.out, result)
    if args.plot:
        plot(result, args.plot)


if __name__ == "__main__":
    main()
