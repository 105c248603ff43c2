"""Kernel benchmark: milliseconds per sentence, one thread, medians.

    python bench/kernels.py [--quick] [--out bench/out/kernels.json] [--plot bench/out/kernels.png]

Prints one JSON object per measurement (JSON lines) and writes them, with the
fitted exponents and the targets of issues #2 and #3 side by side, to --out.
Every call is timed end to end through the checked Python API (input checks,
graph construction and the Cython passes), on fresh random scores each time.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

from vineparse.bench import KERNELS, fit_exponent, median_ms

# (kernel, sizes) measured; the quick profile is for smoke runs.
SUITES = {
    "full": [
        ("eisner", (10, 20, 40, 60, 100)),
        ("eisner_max_marginals", (10, 20, 40, 60, 100)),
        ("eisner_marginals", (10, 20, 40, 60, 100)),
        ("eisner2", (10, 20, 40, 60, 100)),
        ("eisner2_max_marginals", (10, 20, 40, 60)),
        ("eisner3", (10, 20, 40, 60, 100)),
        ("eisner3_max_marginals", (10, 20, 40, 60)),
        ("eisner_vine_mask", (20, 50, 100, 150, 200)),
        ("eisner2_vine_mask", (20, 50, 100, 150, 200)),
        ("eisner3_vine_mask", (20, 50, 100, 150, 200)),
        ("vine_b5", (20, 50, 100, 200, 400)),
        ("vine_b5_max_marginals", (20, 50, 100, 200, 400)),
    ],
    "quick": [
        ("eisner", (10, 40)),
        ("eisner_marginals", (10, 40)),
    ],
}

# (description, kernel, n, upper bound in ms)
TARGETS = [
    ("first-order best tree, n = 40", "eisner", 40, 0.1),
    ("first-order marginals, n = 40", "eisner_marginals", 40, 0.3),
    ("second-order best tree, n = 40", "eisner2", 40, 1.0),
    ("third-order best tree, n = 40", "eisner3", 40, 40.0),
]
# (description, kernel, bound): fitted exponent of time against n, at most the bound
EXPONENT_TARGETS = [
    ("second order under a vine-style mask, n = 20..200", "eisner2_vine_mask", 1.5),
    ("third order under a vine-style mask, n = 20..200", "eisner3_vine_mask", 1.5),
    ("vine pass (best), n = 20..400", "vine_b5", 1.1),
    ("vine pass (max-marginals), n = 20..400", "vine_b5_max_marginals", 1.1),
]
# (description, unpruned kernel, masked kernel, n, lower bound on the speed-up)
SPEEDUP_TARGETS = [
    ("second order, vine-style mask vs unpruned, n = 100", "eisner2", "eisner2_vine_mask", 100, 20.0),
    ("third order, vine-style mask vs unpruned, n = 100", "eisner3", "eisner3_vine_mask", 100, 20.0),
]


def run(suite, repeats, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for name, sizes in suite:
        for n in sizes:
            row = {"kernel": name, "n": n, "ms": median_ms(KERNELS[name], n, repeats, rng)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def summarise(rows):
    by_kernel = {}
    for row in rows:
        by_kernel.setdefault(row["kernel"], []).append(row)
    exponents = {k: fit_exponent([r["n"] for r in rs], [r["ms"] for r in rs])
                 for k, rs in by_kernel.items() if len(rs) > 1}
    lookup = {(r["kernel"], r["n"]): r["ms"] for r in rows}
    targets = []
    for what, kernel, n, bound in TARGETS:
        ms = lookup.get((kernel, n))
        if ms is not None:
            targets.append({"target": what, "bound_ms": bound, "measured_ms": round(ms, 4),
                            "met": ms <= bound})
    for what, kernel, bound in EXPONENT_TARGETS:
        if kernel in exponents:
            targets.append({"target": what, "bound_exponent": bound, "measured_exponent": round(exponents[kernel], 2),
                            "met": exponents[kernel] <= bound})
    for what, slow, fast, n, bound in SPEEDUP_TARGETS:
        if (slow, n) in lookup and (fast, n) in lookup:
            ratio = lookup[(slow, n)] / lookup[(fast, n)]
            targets.append({"target": what, "bound_speedup": bound, "measured_speedup": round(ratio, 1),
                            "met": ratio >= bound})
    return {"exponents": exponents, "targets": targets}


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for kernel in dict.fromkeys(r["kernel"] for r in rows):
        pts = [(r["n"], r["ms"]) for r in rows if r["kernel"] == kernel]
        ax.loglog(*zip(*pts), marker="o", label=kernel)
    ax.set_xlabel("sentence length n")
    ax.set_ylabel("ms per sentence (median)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few sizes only (smoke run)")
    parser.add_argument("--repeats", type=int, default=50, help="timed calls per point")
    parser.add_argument("--out", type=Path, default=Path("bench/out/kernels.json"))
    parser.add_argument("--plot", type=Path, default=None, help="PNG of time against n")
    args = parser.parse_args(argv)
    rows = run(SUITES["quick" if args.quick else "full"], args.repeats)
    summary = summarise(rows)
    for target in summary["targets"]:
        print(json.dumps(target))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, **summary}, indent=2) + "\n")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
