"""Treebank statistics with their plot and a kernel benchmark: the report of `vineparse stats`, then a PNG and
the median time per sentence of the first-order kernels.

    python bench/treebank_stats.py [--treebank PATH ...] [--tag upos] [--plot PNG] [--json OUT] [--no-bench]
                                   [--lenient]

The report is the library's (`vineparse.cli.treebank_report`, what `vineparse stats` runs); this script adds the
plot (--plot, 'none' for none; needs matplotlib): arc-length CDFs of the most frequent modifier tags and the
sentence-length histogram; and the kernel benchmark (unless --no-bench): median ms per sentence of
bench/timing.py's DEFAULT_KERNELS at n = 10, 20, 40, with each kernel's empirical exponent. --json writes the
statistics as `vineparse stats --json` does, the benchmark rows under "bench" and the run's provenance.
"""
import argparse
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
import srsly

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info  # noqa: E402
from timing import empirical_exponent, kernel_benchmark  # noqa: E402

from vineparse.cli import CLIError, add_stats_arguments, error_message, treebank_report  # noqa: E402
from vineparse.corpus import CorpusError  # noqa: E402
from vineparse.stats import ALL_TAGS, collect_arcs, format_table, sentence_lengths  # noqa: E402

BENCH_SIZES = (10, 20, 40)
BENCH_REPEATS = 20


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_stats_arguments(parser)
    parser.add_argument("--plot", default="bench/out/stats.png", metavar="PNG",
                        help="plot file; 'none' for no plot (default: bench/out/stats.png)")
    parser.add_argument("--no-bench", action="store_true", help="skip the kernel benchmark")
    args = parser.parse_args(argv)
    plot = None if args.plot.lower() == "none" else args.plot

    try:
        report = treebank_report(args.treebank, tag=args.tag, lenient=args.lenient)
    except (CLIError, CorpusError) as err:
        raise SystemExit(f"error: {error_message(err)}") from err
    for output in (args.json, plot):
        if output is not None:
            Path(output).parent.mkdir(parents=True, exist_ok=True)
    if plot is not None:
        written = plot_stats(report.sentences, plot, tag=report.tag)
        if written is not None:
            print(f"\nWrote plot to {written}")
    bench_rows = None
    if not args.no_bench:
        print(f"\nBenchmarking kernels (n = {', '.join(map(str, BENCH_SIZES))}; {BENCH_REPEATS} repeats) ...")
        bench_rows = kernel_benchmark(sizes=BENCH_SIZES, repeats=BENCH_REPEATS)
        print("\nKernel benchmark (median ms per sentence)")
        print(format_bench_table(bench_rows))
    if args.json is not None:
        srsly.write_json(args.json, {"provenance": run_info(), **report.to_json(), "bench": bench_rows})
        print(f"Wrote statistics to {args.json}")
    return 0


def format_bench_table(rows: Sequence[Dict[str, Any]]) -> str:
    """Kernel benchmark rows ({"kernel", "n", "ms"}) as a kernel x n table of milliseconds, the last column the
    empirical exponent (blank with fewer than two sizes)."""
    sizes = sorted({int(r["n"]) for r in rows})
    kernels: Dict[str, Dict[int, float]] = {}
    for r in rows:
        kernels.setdefault(str(r["kernel"]), {})[int(r["n"])] = float(r["ms"])
    table = []
    for name, timing in kernels.items():
        cells = [name] + [f"{timing[n]:.3f}" if n in timing else "-" for n in sizes]
        slope = empirical_exponent(list(timing.keys()), list(timing.values()))
        table.append(cells + ["" if slope is None else f"{slope:.2f}"])
    return format_table(["kernel"] + [f"n={n}" for n in sizes] + ["exponent"], table)


def plot_stats(sentences: Sequence[Any], path: Union[str, Path], tag: str = "upos",
               top_k: int = 8) -> Optional[Path]:
    """Write a PNG at `path`: the arc-length CDF of the `top_k` most frequent modifier tags (`tag`: "upos" or
    "xpos") and of all arcs, and the sentence-length histogram; RETURNS the path, or None without matplotlib
    (drawn on the Agg canvas directly: no pyplot, no global backend switch)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed; skipping the plot (pip install 'vineparse[plots]').")
        return None
    path = Path(path)
    arcs = collect_arcs(sentences, tag)
    lengths = sentence_lengths(sentences)
    nonroot = ~arcs.is_root
    names, counts = np.unique(arcs.tags[nonroot], return_counts=True)
    order = np.lexsort((names, -counts))[:top_k]

    figure = Figure(figsize=(12, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    cdf_axes, hist_axes = figure.subplots(1, 2)
    curves = [(str(names[i]), arcs.lengths[nonroot & (arcs.tags == names[i])]) for i in order]
    curves.append((ALL_TAGS, arcs.lengths[nonroot]))
    for label, values in curves:
        if values.size == 0:
            continue
        x, counts = np.unique(values, return_counts=True)            # the share of arcs <= each length
        y = np.cumsum(counts) / values.size
        style = {"color": "black", "linestyle": "--", "linewidth": 2} if label == ALL_TAGS else {}
        cdf_axes.step(x, y, where="post", label=f"{label} ({values.size:,})", **style)
    cdf_axes.set_xscale("log")
    longest = int(arcs.lengths[nonroot].max()) if nonroot.any() else 1
    ticks = [t for t in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500) if t <= max(longest, 10)]
    cdf_axes.set_xticks(ticks, labels=[str(t) for t in ticks])
    cdf_axes.minorticks_off()
    cdf_axes.set_xlabel("arc length |h - m| (root arcs excluded)")
    cdf_axes.set_ylabel("share of arcs with length <= x")
    cdf_axes.set_title(f"Arc length by modifier {tag.upper()}")
    cdf_axes.set_ylim(0, 1.01)
    cdf_axes.grid(True, alpha=0.3)
    cdf_axes.legend(fontsize="small", loc="lower right")

    if lengths.size:
        per_length = np.bincount(lengths)
        hist_axes.bar(np.arange(per_length.size), per_length, width=1.0, color="tab:blue")
        for q, style in ((50, ":"), (90, "--"), (99, "-.")):
            value = np.percentile(lengths, q)
            hist_axes.axvline(value, color="black", linestyle=style, linewidth=1, label=f"p{q} = {value:g}")
        hist_axes.legend(fontsize="small")
    hist_axes.set_xlabel("sentence length (words)")
    hist_axes.set_ylabel("sentences")
    hist_axes.set_title(f"Sentence length ({lengths.size:,} sentences)")
    figure.savefig(path, dpi=100)
    return path



if __name__ == "__main__":
    sys.exit(main())
