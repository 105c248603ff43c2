"""Lexicalized A* benchmark (issue 6): heuristics x models on the PTB sample.

    python bench/astar.py [--out bench/out/astar.json] [--table bench/out/astar.md] [--plot bench/out/astar.png]
                          [--quick]

Trains the factored and the non-factored model on wsj_0001-0179 (the non-factored one with its approximate
projection) and parses the test sentences of wsj_0180-0199 with at most 40 words with every heuristic.
The model optimum comes from exhaustive lexicalized CKY up to 15 words and from an admissible A* above.
Uniform-cost search (the null heuristic) runs on the sentences of at most ``--null-max-length`` words
(default 26, which covers the 18-26 speed comparison); its pop ratios are over those sentences only.

Writes every number to --out (JSON: settings, per-heuristic summaries, the targets with measured values,
per-sentence records), the README table to --table, and a plot of edges popped against length to --plot.
Times are per sentence on one thread: heuristic (projection charts) + search; the model's scoring is
reported separately because it is the same for every heuristic. The machine is shared: compare numbers
from one run; the speed-up uses medians of per-sentence ratios and the ratio of totals.
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

from vineparse.astar import AStarParser
from vineparse.astar.commands import format_table
from vineparse.astar.evaluation import evaluate
from vineparse.corpus import read_ptb_sample

MODELS = {"factored": ("null", "cfg", "split", "factored"), "nonfactored": ("null", "cfg", "split", "approximate")}
BEST = {"factored": "factored", "nonfactored": "split"}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run_model(kind, train, test, args):
    start = time.perf_counter()
    parser = AStarParser().train(train, model=kind, lp_sentences=args.lp_sentences, progress=log)
    train_seconds = time.perf_counter() - start
    log(f"evaluating the {kind} model on {len(test)} sentences ...")
    result = evaluate(parser, test, MODELS[kind], exhaustive_max_length=15, max_length=40,
                      heuristic_max_length={"null": args.null_max_length}, progress=log)
    summary = result.to_dict()
    summary["train_seconds"] = train_seconds
    if parser.approximation is not None:
        summary["approximation"] = parser.approximation.report
    summary.update(compare(result.records, MODELS[kind], BEST[kind] if kind in BEST else kind))
    log(f"{kind}: done in {time.perf_counter() - start:.0f}s")
    return summary, result.records_json()


def compare(records, heuristics, best):
    """Pop ratios against null on the sentences null parsed, and speed-ups on 18-26 words."""
    by = {}
    for r in records:
        by.setdefault(r.heuristic, {})[r.sentence] = r
    null = {k: r for k, r in by.get("null", {}).items() if r.status == "ok"}
    ratios, speed = {}, {}
    for h in heuristics:
        if h == "null":
            continue
        common = [k for k in null if k in by[h] and by[h][k].status == "ok"]
        if not common:
            continue
        ratios[h] = {"sentences": len(common),
                     "popped_ratio": sum(by[h][k].popped for k in common) / sum(null[k].popped for k in common),
                     "pushed_ratio": sum(by[h][k].pushed for k in common) / sum(null[k].pushed for k in common)}
        band = [k for k in common if 18 <= by[h][k].length <= 26]
        if band:
            t_null = np.array([null[k].heuristic_seconds + null[k].search_seconds for k in band])
            t_h = np.array([by[h][k].heuristic_seconds + by[h][k].search_seconds for k in band])
            scoring = np.array([by[h][k].scoring_seconds for k in band])
            speed[h] = {"sentences": len(band), "null_ms_median": 1e3 * float(np.median(t_null)),
                        "ms_median": 1e3 * float(np.median(t_h)),
                        "speedup_median": float(np.median(t_null / t_h)),
                        "speedup_total": float(t_null.sum() / t_h.sum()),
                        "speedup_total_with_scoring": float((t_null + scoring).sum() / (t_h + scoring).sum()),
                        "scoring_ms_median": 1e3 * float(np.median(scoring))}
    return {"versus_null": ratios, "speed_18_26": speed, "best_heuristic": best}


def targets(models):
    out = []
    f = models.get("factored")
    if f:
        ratio = f["versus_null"].get("factored", {}).get("popped_ratio")
        errors = f["heuristics"]["factored"]["search_errors"]
        out.append({"target": "exact factored heuristic pops <= 5% of null's edges, no search errors",
                    "measured": f"{100 * ratio:.2f}% of null's pops, {errors} search errors",
                    "met": ratio is not None and ratio <= 0.05 and errors == 0})
    nf = models.get("nonfactored")
    if nf:
        a = nf["heuristics"]["approximate"]
        share, largest = a["search_error_share"], a["largest_search_error"]
        out.append({"target": "approximate heuristic (non-factored): search errors < 1% of sentences, none > 0.1%",
                    "measured": f"{a['search_errors']} of {a['parsed']} sentences ({100 * share:.2f}%), "
                                f"largest {100 * largest:.3f}%",
                    "met": share < 0.01 and largest <= 0.001})
    for kind, m in models.items():
        s = m["speed_18_26"].get(m["best_heuristic"])
        if s:
            out.append({"target": f"{kind}: best heuristic ({m['best_heuristic']}) >= 10x faster than uniform cost, "
                                  f"18-26 words",
                        "measured": f"{s['speedup_median']:.1f}x median per sentence, {s['speedup_total']:.1f}x total "
                                    f"({s['speedup_total_with_scoring']:.1f}x with model scoring), "
                                    f"{s['sentences']} sentences",
                        "met": s["speedup_median"] >= 10})
    return out


def markdown(models, target_rows):
    lines = []
    for kind, m in models.items():
        lines.append(f"**{kind} model** (optimum: exhaustive CKY on {m['exhaustive_sentences']} sentences <= 15 "
                     f"words, {m['reference']} A* above; {m['reference_mismatches']} disagreements)\n")
        table = format_table(m["heuristics"]).splitlines()
        table[0] += " popped vs null | speed-up vs null, 18-26 words |"
        table[1] += " --- | --- |"
        for k, name in enumerate(m["heuristics"], start=2):
            ratio = m["versus_null"].get(name)
            speed = m["speed_18_26"].get(name)
            table[k] += (f" {100 * ratio['popped_ratio']:.2f}% |" if ratio else " 100% |") + (
                f" {speed['speedup_median']:.1f}x |" if speed else " 1x |")
        lines += table + [""]
    lines.append("| target | measured | met |")
    lines.append("| --- | --- | --- |")
    for t in target_rows:
        lines.append(f"| {t['target']} | {t['measured']} | {'yes' if t['met'] else 'no'} |")
    return "\n".join(lines) + "\n"


def plot(records_by_model, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(records_by_model), figsize=(6 * len(records_by_model), 4), squeeze=False)
    for ax, (kind, records) in zip(axes[0], records_by_model.items()):
        for h in MODELS[kind]:
            pts = sorted((r["length"], r["popped"]) for r in records if r["heuristic"] == h and r["status"] == "ok")
            if pts:
                lengths = sorted({p[0] for p in pts})
                med = [np.median([p[1] for p in pts if p[0] == n]) for n in lengths]
                ax.semilogy(lengths, med, marker=".", label=h)
        ax.set(title=f"{kind} model", xlabel="sentence length", ylabel="edges popped (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/astar.json")
    parser.add_argument("--table", default="bench/out/astar.md")
    parser.add_argument("--plot", default="bench/out/astar.png")
    parser.add_argument("--max-length", type=int, default=40, help="test sentences up to this length")
    parser.add_argument("--null-max-length", type=int, default=26)
    parser.add_argument("--lp-sentences", type=int, default=None, help="training trees for the LP (all)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--quick", action="store_true", help="smoke run: 400 training trees, 25 test sentences")
    args = parser.parse_args()
    start = time.perf_counter()
    train, test = read_ptb_sample("train"), read_ptb_sample("test")
    test = [t for t in test if len(t.leaves()) <= args.max_length]
    if args.quick:
        train, test, args.lp_sentences = train[:400], test[:25], 150
    log(f"{len(train)} training trees, {len(test)} test sentences of <= {args.max_length} words")
    models, records = {}, {}
    for kind in args.models:
        models[kind], records[kind] = run_model(kind, train, test, args)
    target_rows = targets(models)
    report = {"settings": vars(args), "models": models, "targets": target_rows,
              "seconds": time.perf_counter() - start, "records": records}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    table = markdown(models, target_rows)
    Path(args.table).write_text(table, encoding="utf-8")
    if args.plot.lower() != "none":
        plot(records, args.plot)
    print("\n" + table)
    log(f"wrote {args.out}, {args.table}, {args.plot} in {time.perf_counter() - start:.0f}s")


if __name__ == "__main__":
    main()
