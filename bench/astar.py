"""Lexicalized A* benchmark (issue 6): heuristics x models on the PTB sample.

    python bench/astar.py [--out bench/out/astar.json] [--table bench/out/astar.md] [--plot bench/out/astar.png]

Trains the factored and the non-factored model on wsj_0001-0179 and parses the test sentences of wsj_0180-0199
of at most 40 words with every heuristic (uniform-cost search up to 26 words; its pop ratios are over those).
The optimum comes from exhaustive CKY up to 15 words and an admissible A* above. Writes the JSON, the README
table and a plot of edges popped against length. Times are per sentence on one thread, heuristic + search (the
model's scoring, the same for every heuristic, apart).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import log, pyplot, save_figure, write_json  # noqa: E402

from vineparse.astar import AStarParser  # noqa: E402
from vineparse.astar.commands import format_table  # noqa: E402
from vineparse.astar.evaluation import evaluate  # noqa: E402
from vineparse.corpus import read_ptb_sample  # noqa: E402

MODELS = {"factored": ("null", "cfg", "split", "factored"), "nonfactored": ("null", "cfg", "split", "approximate")}
BEST = {"factored": "factored", "nonfactored": "split"}
MAX_LENGTH = 40              # test sentences up to this length
NULL_MAX_LENGTH = 26         # uniform-cost search up to this length


def run_model(kind, train, test):
    start = time.perf_counter()
    parser = AStarParser().train(train, model=kind, progress=log)
    train_seconds = time.perf_counter() - start
    log(f"evaluating the {kind} model on {len(test)} sentences ...")
    result = evaluate(parser, test, MODELS[kind], exhaustive_max_length=15, max_length=MAX_LENGTH,
                      heuristic_max_length={"null": NULL_MAX_LENGTH}, progress=log)
    summary = result.to_dict()
    summary["train_seconds"] = train_seconds
    if parser.approximation is not None:
        summary["approximation"] = parser.approximation.report
    summary.update(compare(result.records, MODELS[kind], BEST[kind]))
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
    ratio = models["factored"]["versus_null"].get("factored", {}).get("popped_ratio")
    errors = models["factored"]["heuristics"]["factored"]["search_errors"]
    a = models["nonfactored"]["heuristics"]["approximate"]
    share, largest = a["search_error_share"], a["largest_search_error"]
    out = [{"target": "exact factored heuristic pops <= 5% of null's edges, no search errors",
            "measured": f"{100 * ratio:.2f}% of null's pops, {errors} search errors",
            "met": ratio is not None and ratio <= 0.05 and errors == 0},
           {"target": "approximate heuristic (non-factored): search errors < 1% of sentences, none > 0.1%",
            "measured": f"{a['search_errors']} of {a['parsed']} sentences ({100 * share:.2f}%), "
                        f"largest {100 * largest:.3f}%",
            "met": share < 0.01 and largest <= 0.001}]
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
    fig, axes = pyplot().subplots(1, len(records_by_model), figsize=(6 * len(records_by_model), 4), squeeze=False)
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
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/astar.json")
    parser.add_argument("--table", default="bench/out/astar.md")
    parser.add_argument("--plot", default="bench/out/astar.png")
    args = parser.parse_args()
    start = time.perf_counter()
    train = read_ptb_sample("train")
    test = [t for t in read_ptb_sample("test") if len(t.leaves()) <= MAX_LENGTH]
    log(f"{len(train)} training trees, {len(test)} test sentences of <= {MAX_LENGTH} words")
    models, records = {}, {}
    for kind in MODELS:
        models[kind], records[kind] = run_model(kind, train, test)
    target_rows = targets(models)
    report = {"settings": {**vars(args), "max_length": MAX_LENGTH, "null_max_length": NULL_MAX_LENGTH},
              "models": models, "targets": target_rows, "seconds": time.perf_counter() - start, "records": records}
    write_json(args.out, report, default=float)
    table = markdown(models, target_rows)
    Path(args.table).write_text(table, encoding="utf-8")
    if args.plot.lower() != "none":
        plot(records, args.plot)


if __name__ == "__main__":
    main()
