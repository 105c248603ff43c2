"""Bitext benchmark (issue 7): randomized pruning against tic-tac-toe and the exact DP on UD PUD en-zh.

    python bench/bitext.py [--quick] [--out bench/out/bitext.json] [--plots bench/out]

One command reproduces every number of the README table. Setup: IBM Model 1 both ways on all 1,000 pairs;
weights trained EM-style (`fit`: exact, binary grammar, 60 iterations at rate 0.5, close to convergence) on the
100 pairs with p x q <= 130. Then:

1. speed: exact expectations (inside-outside + statistics) against one randomized-pruning iteration (mask,
   pruned inside-outside, statistics, one sample; the median over a 10-mask chain) by product length, on a
   seeded subsample per bucket (the exact ternary DP takes minutes at p x q ~ 1,000, hence few pairs there);
2. bias: L2 distance to the exact expectations (per pair, summed over features, averaged over pairs) against
   the time per pair, for randomized pruning with 1..64 samples (checkpoints of one chain) and tic-tac-toe with
   growing beams, on all pairs with p x q <= 130 and a seeded subsample with 130 < p x q <= 400;
3. throughput: every pair with p x q <= 1,000 through the sampler (10 samples a pair, one process), binary
   grammar; the ternary grammar on a seeded subsample, extrapolated.

Prints JSON lines as it goes; writes everything, the summary and the targets to --out and PNG plots to --plots.
Times are wall-clock medians / means on a shared 2-core machine: compare numbers from one run only.
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

from vineparse.bitext import BitextConfig, BitextModel, corpus_expectations, expectations, fit, pud_pairs

BUCKETS = [(0, 130), (130, 400), (400, 700), (700, 1000)]
PROFILES = {
    "full": {
        "speed_pairs": {"binary": [6, 6, 6, 6], "ternary": [4, 3, 2, 1]},
        "bias_sets": {"binary": {"130": None, "400": 40}, "ternary": {"130": None, "400": 10}},
        "checkpoints": {"binary": [1, 2, 4, 8, 16, 32, 64], "ternary": [1, 2, 4, 8, 16, 32]},
        "beams": {"binary": [8, 10, 12, 14, 16, 20, 24, 32, 48], "ternary": [8, 10, 12, 14, 16, 20, 24, 32]},
        "throughput_ternary": 20,
        "fit_iterations": 60,
    },
    "quick": {
        "speed_pairs": {"binary": [2, 2, 1, 1], "ternary": [2, 1, 0, 0]},
        "bias_sets": {"binary": {"130": 10, "400": 4}, "ternary": {"130": 6, "400": 2}},
        "checkpoints": {"binary": [1, 2, 4, 8], "ternary": [1, 2, 4]},
        "beams": {"binary": [8, 12, 16, 32], "ternary": [8, 16, 32]},
        "throughput_ternary": 4,
        "fit_iterations": 3,
        "throughput_limit": 40,
    },
}
EXACT_LIMITS = {"binary": 2500, "ternary": 1000}


def emit(row):
    print(json.dumps(row), flush=True)
    return row


def subsample(pairs, count, seed):
    if count is None or count >= len(pairs):
        return list(pairs)
    rng = np.random.default_rng(seed)
    return [pairs[i] for i in sorted(rng.choice(len(pairs), count, replace=False))]


def run(pair, model, grammar, method, **kw):
    return expectations(pair.src, pair.tgt, method, model=model, src_tags=pair.src_tags,
                        tgt_tags=pair.tgt_tags, grammar=grammar, **kw)


def setup(profile):
    pairs = pud_pairs()
    start = time.perf_counter()
    base = BitextModel.train([(p.src, p.tgt) for p in pairs],
                             BitextConfig(max_exact_product=EXACT_LIMITS))
    small = [p for p in pairs if p.product <= 130]
    trained = fit(small, base, iterations=profile["fit_iterations"], method="exact", learning_rate=0.5,
                  progress=False)
    emit({"section": "setup", "pairs": len(pairs), "fit_pairs": len(small),
          "fit_objective": [h["objective"] for h in trained.history], "seconds": time.perf_counter() - start})
    return pairs, trained.model


def speed(pairs, model, profile):
    rows = []
    for grammar, counts in profile["speed_pairs"].items():
        for (lo, hi), count in zip(BUCKETS, counts):
            bucket = [p for p in pairs if lo < p.product <= hi]
            for pair in subsample(bucket, count, seed=lo + 1):
                exact = run(pair, model, grammar, "exact")
                chain = run(pair, model, grammar, "randomized", samples=10, seed=0)
                sample = chain.diagnostics["sample_seconds"]
                masks = chain.diagnostics["masks"]
                rows.append(emit({
                    "section": "speed", "grammar": grammar, "bucket": f"({lo}, {hi}]", "id": pair.id,
                    "product": pair.product, "exact_seconds": exact.diagnostics["inference_seconds"],
                    "sample_seconds": sample, "speedup": exact.diagnostics["inference_seconds"] / sample,
                    "exact_edges": exact.diagnostics["edges"],
                    "sample_edges": float(np.median([m["edges"] for m in masks])),
                    "kept_share": chain.diagnostics["kept"] / chain.diagnostics["bispans"],
                    "links": chain.diagnostics["links"],
                    "positive": float(np.mean([m["positive"] for m in masks])),
                    "negative": float(np.mean([m["negative"] for m in masks]))}))
    return rows


def bias(pairs, model, profile):
    rows = []
    for grammar, sets in profile["bias_sets"].items():
        for name, count in sets.items():
            lo, hi = (0, 130) if name == "130" else (130, 400)
            chosen = subsample([p for p in pairs if lo < p.product <= hi], count, seed=7)
            per_pair = []
            for pair in chosen:
                exact = run(pair, model, grammar, "exact")
                cps = profile["checkpoints"][grammar]
                chain = run(pair, model, grammar, "randomized", samples=max(cps), seed=0, checkpoints=cps)
                setup_seconds = chain.diagnostics["seconds"] - chain.diagnostics["inference_seconds"]
                points = [("randomized", c["samples"], c["seconds"] + setup_seconds,
                           float(np.sum((c["counts"] - exact.counts) ** 2))) for c in chain.checkpoints]
                for beam in profile["beams"][grammar]:
                    ttt = run(pair, model, grammar, "tictactoe", beam=beam)
                    points.append(("tictactoe", beam, ttt.diagnostics["seconds"],
                                   float(np.sum((ttt.counts - exact.counts) ** 2))))
                per_pair.append({"id": pair.id, "product": pair.product,
                                 "exact_seconds": exact.diagnostics["seconds"], "points": points})
            for method in ("randomized", "tictactoe"):
                settings = sorted({pt[1] for pp in per_pair for pt in pp["points"] if pt[0] == method})
                for setting in settings:
                    pts = [pt for pp in per_pair for pt in pp["points"] if pt[0] == method and pt[1] == setting]
                    rows.append(emit({
                        "section": "bias", "grammar": grammar, "set": f"p*q <= {hi}" if lo == 0 else
                        f"{lo} < p*q <= {hi}", "pairs": len(chosen), "method": method,
                        "setting": setting, "seconds": float(np.mean([p[2] for p in pts])),
                        "l2": float(np.mean([p[3] for p in pts])),
                        "exact_seconds": float(np.mean([pp["exact_seconds"] for pp in per_pair]))}))
    return rows


def throughput(pairs, model, profile):
    rows = []
    chosen = [p for p in pairs if p.product <= 1000][:profile.get("throughput_limit")]
    out = corpus_expectations(chosen, "randomized", 10, 0, model=model, grammar="binary", processes=1,
                              progress=False)
    rows.append(emit({"section": "throughput", "grammar": "binary", "pairs": len(chosen),
                      "skipped": len(out.skipped), "seconds": out.seconds, "measured": True,
                      "seconds_for_all": out.seconds * 897 / len(chosen)}))
    sub = subsample([p for p in pairs if p.product <= 1000], profile["throughput_ternary"], seed=11)
    out = corpus_expectations(sub, "randomized", 10, 0, model=model, grammar="ternary", processes=1,
                              progress=False)
    rows.append(emit({"section": "throughput", "grammar": "ternary", "pairs": len(sub),
                      "skipped": len(out.skipped), "seconds": out.seconds, "measured": False,
                      "seconds_for_all": out.seconds * 897 / len(sub)}))
    return rows


def interpolate_l2(curve, seconds):
    """log-log interpolation of a (seconds, l2) curve at `seconds`; None outside its range."""
    xs, ys = np.log([c[0] for c in curve]), np.log([max(c[1], 1e-300) for c in curve])
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    x = np.log(seconds)
    if x < xs[0] or x > xs[-1]:
        return None
    return float(np.exp(np.interp(x, xs, ys)))


def summarise(speed_rows, bias_rows, throughput_rows):
    summary = {"speed": {}, "bias": [], "targets": []}
    for grammar in ("binary", "ternary"):
        for lo, hi in BUCKETS:
            rows = [r for r in speed_rows if r["grammar"] == grammar and r["bucket"] == f"({lo}, {hi}]"]
            if rows:
                summary["speed"][f"{grammar} ({lo}, {hi}]"] = {
                    "pairs": len(rows), "exact_seconds": float(np.median([r["exact_seconds"] for r in rows])),
                    "sample_seconds": float(np.median([r["sample_seconds"] for r in rows])),
                    "speedup": float(np.median([r["speedup"] for r in rows]))}
    wins = {}
    for grammar in ("binary", "ternary"):
        for name in sorted({r["set"] for r in bias_rows if r["grammar"] == grammar}):
            rows = [r for r in bias_rows if r["grammar"] == grammar and r["set"] == name]
            rand = [(r["seconds"], r["l2"]) for r in rows if r["method"] == "randomized"]
            for r in rows:
                if r["method"] != "tictactoe":
                    continue
                at = interpolate_l2(rand, r["seconds"])
                summary["bias"].append({"grammar": grammar, "set": name, "beam": r["setting"],
                                        "seconds": r["seconds"], "tictactoe_l2": r["l2"], "randomized_l2": at})
                if at is not None:
                    wins.setdefault(grammar, []).append(at < r["l2"])
    big = [r for r in speed_rows if r["grammar"] == "ternary" and 400 < r["product"] <= 1000]
    big_b = [r for r in speed_rows if r["grammar"] == "binary" and 400 < r["product"] <= 1000]
    for grammar, rows in (("ternary", big), ("binary", big_b)):
        if rows:
            value = float(np.median([r["speedup"] for r in rows]))
            summary["targets"].append({"target": f"one pruned sample >= 100x faster than exact at p*q 400-1000 "
                                                 f"({grammar})", "measured": value, "met": value >= 100})
    for grammar, flags in wins.items():
        summary["targets"].append({"target": f"randomized L2 < tic-tac-toe L2 at equal time ({grammar})",
                                   "measured": f"{sum(flags)}/{len(flags)} tic-tac-toe points",
                                   "met": all(flags)})
    for r in throughput_rows:
        summary["targets"].append({"target": f"897 pairs x 10 samples < 300 s on one core ({r['grammar']}"
                                             f"{'' if r['measured'] else ', extrapolated'})",
                                   "measured": r["seconds_for_all"], "met": r["seconds_for_all"] < 300})
    return summary


def plot(speed_rows, bias_rows, folder):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for grammar in ("binary", "ternary"):
        sets = sorted({r["set"] for r in bias_rows if r["grammar"] == grammar}, key=len)
        if not sets:
            continue
        fig, axes = plt.subplots(1, len(sets), figsize=(5.5 * len(sets), 4.2), squeeze=False)
        for ax, name in zip(axes[0], sets):
            for method, marker in (("randomized", "o-"), ("tictactoe", "s--")):
                rows = sorted((r for r in bias_rows if r["grammar"] == grammar and r["set"] == name
                               and r["method"] == method), key=lambda r: r["seconds"])
                ax.loglog([r["seconds"] for r in rows], [max(r["l2"], 1e-12) for r in rows], marker,
                          label=f"{method} ({'samples' if method == 'randomized' else 'beam'})")
                for r in rows:
                    ax.annotate(f"{r['setting']:g}", (r["seconds"], max(r["l2"], 1e-12)), fontsize=7,
                                textcoords="offset points", xytext=(3, 3))
            exact = [r["exact_seconds"] for r in bias_rows if r["grammar"] == grammar and r["set"] == name]
            ax.axvline(exact[0], color="grey", lw=0.8, ls=":", label="exact DP")
            ax.set_title(f"{grammar} grammar, {name}")
            ax.set_xlabel("seconds per pair (mean)")
            ax.set_ylabel("L2 bias (mean over pairs)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        path = folder / f"bitext_bias_{grammar}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(str(path))
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for grammar, color in (("binary", "tab:blue"), ("ternary", "tab:red")):
        rows = sorted((r for r in speed_rows if r["grammar"] == grammar), key=lambda r: r["product"])
        if rows:
            ax.semilogy([r["product"] for r in rows], [r["exact_seconds"] for r in rows], "o-", color=color,
                        label=f"exact DP ({grammar})")
            ax.semilogy([r["product"] for r in rows], [r["sample_seconds"] for r in rows], "^--", color=color,
                        label=f"one pruned sample ({grammar})")
    ax.set_xlabel("p x q")
    ax.set_ylabel("seconds")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = folder / "bitext_speed.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(str(path))
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--out", default="bench/out/bitext.json")
    parser.add_argument("--plots", default="bench/out", help="folder for the PNG plots ('none' to skip)")
    args = parser.parse_args()
    profile = PROFILES["quick" if args.quick else "full"]
    start = time.perf_counter()
    pairs, model = setup(profile)
    speed_rows = speed(pairs, model, profile)
    bias_rows = bias(pairs, model, profile)
    throughput_rows = throughput(pairs, model, profile)
    summary = summarise(speed_rows, bias_rows, throughput_rows)
    summary["seconds"] = time.perf_counter() - start
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"profile": "quick" if args.quick else "full", "speed": speed_rows,
                               "bias": bias_rows, "throughput": throughput_rows, "summary": summary}, indent=1))
    plots = [] if args.plots.lower() == "none" else plot(speed_rows, bias_rows, Path(args.plots))
    print(json.dumps({"summary": summary, "plots": plots, "out": str(out)}, indent=1))


if __name__ == "__main__":
    main()
