"""Bitext benchmark (issues 7 and 17): randomized pruning against tic-tac-toe and the exact DP on UD PUD en-zh.

    python bench/bitext.py [--out bench/results/bitext.json] [--plots bench/results]

Setup: IBM Model 1 both ways and the HMM aligner trained by agreement (M') on all 1,000 pairs (M' itself is
compared in bench/bitext_aligners.py); weights trained EM-style (`fit`: exact, binary grammar, 60 iterations at
rate 0.5) on the 100 pairs with p x q <= 130. Then, on one core (one process):

1. speed: exact expectations (inside-outside + statistics) against one randomized-pruning iteration (the
   median over a 10-mask chain) per p x q bucket for both grammars, on seeded subsamples; beside it one
   iteration of the chain screened at SCREEN (`expectations(screen=...)`, the pilot charts excluded). The
   exact ternary DP takes minutes at p x q ~ 1,000: its (400, 700] and (700, 1,000] buckets get 10 and 2 pairs;
2. bias: L2 distance to the exact expectations (per pair, summed over features) against the time per pair
   (each the median of TIMING_REPEATS runs from a collected heap), for randomized pruning with 1..256
   (ternary 1..128) samples (checkpoints of one chain), the same screened at SCREEN, and tic-tac-toe at every
   beam with the share of the chart it keeps, on sets of pairs by p x q. A chain's L2 at tic-tac-toe's time is
   read off its curve (`interpolate_l2`), on the set means and pair by pair where tic-tac-toe kept less than
   half of the chart;
3. throughput: all 897 pairs with p x q <= 1,000 through the sampler, 10 samples a pair, both grammars: the
   process's CPU time (one core's work) and the wall time.

Prints JSON lines as it goes and rewrites --out after each section (with each section's provenance); PNG plots
go to --plots. Times are wall-clock on a shared machine: compare numbers from one run only.
"""
import argparse
import gc
import json
import os
import time
from pathlib import Path

import numpy as np

from runinfo import emit, pyplot, run_info, save_figure, write_json       # the script's folder is first on sys.path

from vineparse.bitext import BitextConfig, BitextModel, corpus_expectations, expectations, fit, pud_pairs
from vineparse.bitext.randomized import PILOT_CHARTS

BUCKETS = [(0, 130), (130, 400), (400, 700), (700, 1000)]
PROFILE = {
    # Pairs per bucket for the speed section (None: every pair of the bucket).
    "speed_pairs": {"binary": [12, 12, 12, 12], "ternary": [10, 10, 10, 2]},
    "bias_sets": {"binary": {"130": None, "400": 40, "1000": 12}, "ternary": {"130": None, "400": 10}},
    "checkpoints": {"binary": [1, 2, 4, 8, 16, 32, 64, 128, 256], "ternary": [1, 2, 4, 8, 16, 32, 64, 128]},
    "beams": {"binary": [1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48],
              "ternary": [1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32]},
    "fit_iterations": 60,
}
EXACT_LIMITS = {"binary": 2500, "ternary": 1000}
SETS = {"130": (0, 130), "400": (130, 400), "1000": (400, 1000)}       # bias sets: p x q ranges
SPEED_SAMPLES = 10
SCREEN = 1e-3            # the screened configuration of randomized pruning (`expectations(screen=...)`)
CHAINS = {"randomized": None, "screened": SCREEN}       # method name in the report -> screen
TIMING_REPEATS = 3       # bias section: every time is the median of this many identical runs
# the speed summary of a bucket: (name, statistic over its pairs, speed row field)
SPEED_SUMMARY = [("exact_seconds", np.median, "exact_seconds"), ("sample_seconds", np.median, "sample_seconds"),
                 ("speedup_median", np.median, "speedup"), ("speedup_min", np.min, "speedup"),
                 ("screened_speedup_median", np.median, "screened_speedup"),
                 ("screened_links", np.mean, "screened_links"), ("links", np.mean, "links"),
                 ("positive", np.mean, "positive"), ("kept_share", np.median, "kept_share")]


def subsample(pairs, count, seed):
    if count is None or count >= len(pairs):
        return list(pairs)
    rng = np.random.default_rng(seed)
    return [pairs[i] for i in sorted(rng.choice(len(pairs), count, replace=False))]


def run(pair, model, grammar, method, **kw):
    return expectations(pair.src, pair.tgt, method, model=model, src_tags=pair.src_tags,
                        tgt_tags=pair.tgt_tags, grammar=grammar, **kw)


def setup():
    pairs = pud_pairs()
    start = time.perf_counter()
    base = BitextModel.train([(p.src, p.tgt) for p in pairs], BitextConfig(max_exact_product=EXACT_LIMITS))
    trained_at = time.perf_counter()
    small = [p for p in pairs if p.product <= 130]
    trained = fit(small, base, iterations=PROFILE["fit_iterations"], method="exact", learning_rate=0.5, progress=False)
    emit({"section": "setup", "pairs": len(pairs), "fit_pairs": len(small),
          "train_seconds": trained_at - start, "fit_objective": [h["objective"] for h in trained.history],
          "seconds": time.perf_counter() - start})
    return pairs, trained.model


def speed(pairs, model):
    rows = []
    for grammar, counts in PROFILE["speed_pairs"].items():
        for (lo, hi), count in zip(BUCKETS, counts):
            bucket = [p for p in pairs if lo < p.product <= hi]
            for pair in subsample(bucket, count, seed=lo + 1):
                exact = run(pair, model, grammar, "exact")
                chain = run(pair, model, grammar, "randomized", samples=SPEED_SAMPLES, seed=0)
                sample = chain.diagnostics["sample_seconds"]
                masks = chain.diagnostics["masks"]
                screened = run(pair, model, grammar, "randomized", samples=SPEED_SAMPLES + PILOT_CHARTS, seed=0,
                               screen=SCREEN)
                pilot = min(PILOT_CHARTS, screened.diagnostics["links"])
                screened_sample = float(np.median([m["seconds"] for m in screened.diagnostics["masks"][pilot:]]))
                rows.append(emit({
                    "section": "speed", "grammar": grammar, "bucket": f"({lo}, {hi}]", "id": pair.id,
                    "product": pair.product, "exact_seconds": exact.diagnostics["inference_seconds"],
                    "sample_seconds": sample, "speedup": exact.diagnostics["inference_seconds"] / sample,
                    "screened_sample_seconds": screened_sample,
                    "screened_speedup": exact.diagnostics["inference_seconds"] / screened_sample,
                    "screened_links": screened.diagnostics["links"] - screened.diagnostics["screened"],
                    "pilot_seconds": screened.diagnostics["screen_seconds"],
                    "exact_edges": exact.diagnostics["edges"],
                    "sample_edges": float(np.median([m["edges"] for m in masks])),
                    "kept_share": chain.diagnostics["kept"] / chain.diagnostics["bispans"],
                    "links": chain.diagnostics["links"],
                    "positive": float(np.mean([m["positive"] for m in masks])),
                    "negative": float(np.mean([m["negative"] for m in masks])),
                    "load": list(os.getloadavg())}))
    return rows


def clean_run(*args, **kwargs):
    """`run` from a collected heap: a garbage collection set off by the previous run's garbage (a 256-sample
    chain leaves much) would otherwise land in this run's first milliseconds, whichever method it times."""
    gc.collect()
    return run(*args, **kwargs)


def bias(pairs, model):
    """Mean curves per set (rows) and every pair's points (records: (method, setting, seconds, l2, kept)).

    Every time is the median of TIMING_REPEATS identical runs, each from a collected heap (the results are
    equal; a scheduler hiccup or another run's garbage does not decide an equal-time comparison)."""
    rows, records = [], []
    for grammar, sets in PROFILE["bias_sets"].items():
        for name, count in sets.items():
            lo, hi = SETS[name]
            chosen = subsample([p for p in pairs if lo < p.product <= hi], count, seed=7)
            per_pair = []
            for pair in chosen:
                exact = run(pair, model, grammar, "exact")
                cps = PROFILE["checkpoints"][grammar]
                points = []
                for method, screen in CHAINS.items():
                    chains = [clean_run(pair, model, grammar, "randomized", samples=max(cps), seed=0,
                                        checkpoints=cps, screen=screen) for _ in range(TIMING_REPEATS)]
                    setup = [c.diagnostics["seconds"] - c.diagnostics["inference_seconds"] for c in chains]
                    for i, mark in enumerate(chains[0].checkpoints):
                        seconds = float(np.median([c.checkpoints[i]["seconds"] + s for c, s in zip(chains, setup)]))
                        points.append((method, mark["samples"], seconds,
                                       float(np.sum((mark["counts"] - exact.counts) ** 2)),
                                       chains[0].diagnostics["kept"] / chains[0].diagnostics["bispans"]))
                for beam in PROFILE["beams"][grammar]:
                    ttt = [clean_run(pair, model, grammar, "tictactoe", beam=beam) for _ in range(TIMING_REPEATS)]
                    points.append(("tictactoe", beam, float(np.median([r.diagnostics["seconds"] for r in ttt])),
                                   float(np.sum((ttt[0].counts - exact.counts) ** 2)),
                                   ttt[0].diagnostics["kept"] / ttt[0].diagnostics["bispans"]))
                per_pair.append({"grammar": grammar, "set": set_name(lo, hi), "id": pair.id,
                                 "product": pair.product, "exact_seconds": exact.diagnostics["seconds"],
                                 "points": points})
            records.extend(per_pair)
            for method in (*CHAINS, "tictactoe"):
                settings = sorted({pt[1] for pp in per_pair for pt in pp["points"] if pt[0] == method})
                for setting in settings:
                    pts = [pt for pp in per_pair for pt in pp["points"] if pt[0] == method and pt[1] == setting]
                    rows.append(emit({
                        "section": "bias", "grammar": grammar, "set": set_name(lo, hi), "pairs": len(chosen),
                        "method": method,
                        "setting": setting, "seconds": float(np.mean([p[2] for p in pts])),
                        "l2": float(np.mean([p[3] for p in pts])), "kept_share": float(np.mean([p[4] for p in pts])),
                        "exact_seconds": float(np.mean([pp["exact_seconds"] for pp in per_pair]))}))
    return rows, records


def set_name(lo, hi):
    return f"p*q <= {hi}" if lo == 0 else f"{lo} < p*q <= {hi}"


def throughput(pairs, model):
    rows = []
    chosen = [p for p in pairs if p.product <= 1000]
    for grammar in ("binary", "ternary"):
        cpu = time.process_time()
        out = corpus_expectations(chosen, "randomized", 10, 0, model=model, grammar=grammar, processes=1,
                                  progress=False)
        cpu = time.process_time() - cpu
        seconds = [r.diagnostics["seconds"] for r in out.results if r is not None]
        rows.append(emit({"section": "throughput", "grammar": grammar, "pairs": len(chosen), "samples": 10,
                          "skipped": len(out.skipped), "seconds": out.seconds, "cpu_seconds": cpu,
                          "load": list(os.getloadavg()), "measured": True,
                          "slowest_pair_seconds": max(seconds),
                          "median_pair_seconds": float(np.median(seconds))}))
    return rows


def interpolate_l2(curve, seconds):
    """Randomized pruning's L2 at `seconds` from its (seconds, l2) curve: log-log interpolation inside the
    curve; past its slowest point, that point's L2 (it took less time, so this favours tic-tac-toe); None
    before its fastest point (no equal-time value)."""
    xs, ys = np.log([c[0] for c in curve]), np.log([max(c[1], 1e-300) for c in curve])
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    x = np.log(seconds)
    if x < xs[0]:
        return None
    return float(np.exp(np.interp(x, xs, ys)))


def per_pair_comparison(records, method="randomized"):
    """Every (pair, beam) where tic-tac-toe kept < 1/2 of that pair's chart, against that pair's curve of
    `method` at the same time: counts of `method` below, above, and without an equal-time point, per grammar
    and per grammar and set, with the largest tic-tac-toe L2 among the points where `method` is above."""
    out = {}
    for rec in records:
        rand = [(pt[2], pt[3]) for pt in rec["points"] if pt[0] == method]
        if not rand:
            continue
        for name, beam, seconds, l2, kept in rec["points"]:
            if name != "tictactoe" or kept >= 0.5:
                continue
            at = interpolate_l2(rand, seconds)
            for key in (rec["grammar"], f"{rec['grammar']} {rec['set']}"):
                counts = out.setdefault(key, {"points": 0, "below": 0, "above": 0, "no_equal_time": 0,
                                              "max_tictactoe_l2_where_above": 0.0})
                counts["points"] += 1
                if at is None:
                    counts["no_equal_time"] += 1
                elif at < l2:
                    counts["below"] += 1
                else:
                    counts["above"] += 1
                    counts["max_tictactoe_l2_where_above"] = max(counts["max_tictactoe_l2_where_above"], l2)
    return out


def summarise(speed_rows, bias_rows, throughput_rows, bias_records=()):
    summary = {"speed": {}, "bias": [], "targets": []}
    for grammar in ("binary", "ternary"):
        for lo, hi in BUCKETS:
            rows = [r for r in speed_rows if r["grammar"] == grammar and r["bucket"] == f"({lo}, {hi}]"]
            if rows:
                summary["speed"][f"{grammar} ({lo}, {hi}]"] = {"pairs": len(rows), **{
                    name: float(statistic([r[key] for r in rows])) for name, statistic, key in SPEED_SUMMARY}}
    for grammar in ("binary", "ternary"):
        rows = [r for r in speed_rows if r["grammar"] == grammar and 400 < r["product"] <= 1000]
        if rows:
            value = float(np.median([r["speedup"] for r in rows]))
            summary["targets"].append({"target": f"one pruned sample >= 100x faster than exact at p*q 400-1000, "
                                                 f"median over >= 10 pairs ({grammar})",
                                       "measured": value, "pairs": len(rows), "met": value >= 100 and
                                       len(rows) >= 10})
    for method in CHAINS:
        for grammar in ("binary", "ternary"):
            flags = []
            for name in sorted({r["set"] for r in bias_rows if r["grammar"] == grammar}):
                rows = [r for r in bias_rows if r["grammar"] == grammar and r["set"] == name]
                curve = [(r["seconds"], r["l2"]) for r in rows if r["method"] == method]
                if not curve:
                    continue
                for r in rows:
                    if r["method"] != "tictactoe":
                        continue
                    at = interpolate_l2(curve, r["seconds"])
                    point = {"method": method, "grammar": grammar, "set": name, "beam": r["setting"],
                             "seconds": r["seconds"], "kept_share": r["kept_share"], "tictactoe_l2": r["l2"],
                             "l2": at, "below": None if at is None else at < r["l2"]}
                    summary["bias"].append(point)
                    if r["kept_share"] < 0.5:
                        flags.append(point["below"] is True)
            summary["targets"].append({"target": f"{method} L2 < tic-tac-toe L2 at equal time on every beam where "
                                                 f"tic-tac-toe keeps < 1/2 of the chart, set means ({grammar})",
                                       "measured": f"{sum(flags)}/{len(flags)} beams", "met": all(flags) if flags
                                       else None})
        summary.setdefault("bias_per_pair", {})[method] = per_pair_comparison(bias_records, method)
        for grammar, counts in summary["bias_per_pair"][method].items():
            if grammar not in ("binary", "ternary"):
                continue
            summary["targets"].append({"target": f"{method} L2 < tic-tac-toe L2 at equal time on every (pair, beam) "
                                                 f"where tic-tac-toe keeps < 1/2 of the pair's chart ({grammar})",
                                       "measured": f"{counts['below']}/{counts['points']} below, {counts['above']} "
                                                   f"above, {counts['no_equal_time']} without an equal-time point",
                                       "met": counts["below"] == counts["points"]})
    limits = {"binary": 300, "ternary": 1800}
    for r in throughput_rows:
        # One core's work: the process's CPU time (the wall time, inflated by the machine's other jobs, beside it).
        summary["targets"].append({"target": f"{r['pairs']} pairs x 10 samples < {limits[r['grammar']]} s on one "
                                             f"core ({r['grammar']})",
                                   "measured": r["cpu_seconds"], "wall_seconds": r["seconds"],
                                   "met": r["cpu_seconds"] < limits[r["grammar"]]})
    return summary


def plot(speed_rows, bias_rows, folder):
    plt = pyplot()
    written = []
    for grammar in ("binary", "ternary"):
        sets = sorted({r["set"] for r in bias_rows if r["grammar"] == grammar}, key=len)
        if not sets:
            continue
        fig, axes = plt.subplots(1, len(sets), figsize=(5.8 * len(sets), 4.4), squeeze=False)
        for ax, name in zip(axes[0], sets):
            for method, marker in (("randomized", "o-"), ("screened", "^-"), ("tictactoe", "s--")):
                rows = sorted((r for r in bias_rows if r["grammar"] == grammar and r["set"] == name
                               and r["method"] == method), key=lambda r: r["seconds"])
                if not rows:
                    continue
                label = f"randomized, screened at {SCREEN:g}" if method == "screened" else method
                ax.loglog([r["seconds"] for r in rows], [max(r["l2"], 1e-12) for r in rows], marker,
                          label=f"{label} ({'beam: kept share' if method == 'tictactoe' else 'samples'})")
                for r in rows:
                    text = f"{r['setting']:g}" if method != "tictactoe" else \
                        f"{r['setting']:g}: {r['kept_share']:.0%}"
                    ax.annotate(text, (r["seconds"], max(r["l2"], 1e-12)), fontsize=6,
                                textcoords="offset points", xytext=(3, 3))
            exact = [r["exact_seconds"] for r in bias_rows if r["grammar"] == grammar and r["set"] == name]
            ax.axvline(exact[0], color="grey", lw=0.8, ls=":", label="exact DP")
            ax.set(title=f"{grammar} grammar, {name}", xlabel="seconds per pair (mean)",
                   ylabel="L2 bias (mean over pairs)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        written.append(save_figure(fig, folder / f"bitext_bias_{grammar}.png"))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for grammar, color in (("binary", "tab:blue"), ("ternary", "tab:red")):
        rows = sorted((r for r in speed_rows if r["grammar"] == grammar), key=lambda r: r["product"])
        if rows:
            x = [r["product"] for r in rows]
            axes[0].semilogy(x, [r["exact_seconds"] for r in rows], "o", color=color, label=f"exact DP ({grammar})")
            axes[0].semilogy(x, [r["sample_seconds"] for r in rows], "^", color=color, mfc="none",
                             label=f"one pruned sample ({grammar})")
            axes[1].semilogy(x, [r["speedup"] for r in rows], "o", color=color, label=grammar)
    axes[0].set(ylabel="seconds")
    axes[1].set(ylabel="exact / one pruned sample")
    axes[1].axhline(100, color="grey", lw=0.8, ls=":")
    for ax in axes:
        ax.set_xlabel("p x q")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    return written + [save_figure(fig, folder / "bitext_speed.png")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results/bitext.json")
    parser.add_argument("--plots", default="bench/results", help="folder for the PNG plots ('none' to skip)")
    args = parser.parse_args()
    report = {"environment": run_info(), "profile": "full", "speed": [], "bias": [], "bias_pairs": [], "throughput": []}

    def save():
        report["environment"]["load_average_end"] = list(os.getloadavg())
        report["summary"] = summarise(report["speed"], report["bias"], report["throughput"], report["bias_pairs"])
        write_json(args.out, report)

    start = time.perf_counter()
    pairs, model = setup()
    for name, fn in (("speed", lambda: speed(pairs, model)), ("bias", lambda: bias(pairs, model)),
                     ("throughput", lambda: throughput(pairs, model))):
        env = run_info()               # the commit and load when the section starts
        result = fn()
        if name == "bias":
            report["bias"], report["bias_pairs"] = result
        else:
            report[name] = result
        env["load_average_end"] = list(os.getloadavg())
        report.setdefault("environment_of", {})[name] = env
        report["environment"]["seconds"] = time.perf_counter() - start
        save()
    plots = [] if args.plots.lower() == "none" else plot(report["speed"], report["bias"], Path(args.plots))
    print(json.dumps({"summary": report["summary"], "plots": plots, "out": args.out}, indent=1))


if __name__ == "__main__":
    main()
