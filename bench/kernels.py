"""Kernel benchmark: per-sentence times, yardsticks and batches on one and two threads, in one run.

    python bench/kernels.py [--supar /path/to/supar-venv/bin/python]
                            [--out bench/out/kernels.json] [--plot bench/out/kernels.png]

* suite: median ms per sentence of every kernel (bench/timing.py's KERNELS) through the checked Python API,
  paying what a caller pays, one thread, fresh random scores for every call;
* yardstick (n = 10, 40, 100): the first-order best tree against a vectorised numpy Eisner
  (bench/numpy_eisner.py, heads checked equal), marginals against the best tree, the fixed cost of a call;
* batch: 32 padded sentences of 40 words, per sentence: argmax and marginals on one and two threads, and
  SuPar's batched DependencyCRF in its own virtual environment (bench/supar_worker.py), interleaved round by
  round, heads checked equal (after waiting for a quiet machine with --quiet-load).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from numpy_eisner import eisner_numpy  # noqa: E402
from runinfo import emit, pyplot, run_info, save_figure, write_json  # noqa: E402
from timing import KERNELS, empirical_exponent, median_ms, timed  # noqa: E402

from vineparse import kernels  # noqa: E402

UNPRUNED, MASKED, VINE = (10, 20, 40, 60, 100), (20, 50, 100, 150, 200), (20, 50, 100, 200, 400)
SUITE = [("eisner", UNPRUNED), ("eisner_max_marginals", UNPRUNED), ("eisner_marginals", UNPRUNED),
         ("eisner_hypergraph", UNPRUNED), ("eisner_marginals_hypergraph", UNPRUNED),
         ("eisner2", UNPRUNED), ("eisner2_max_marginals", UNPRUNED[:4]),
         ("eisner3", UNPRUNED), ("eisner3_max_marginals", UNPRUNED[:4]),
         ("eisner_vine_mask", MASKED), ("eisner2_vine_mask", MASKED), ("eisner3_vine_mask", MASKED),
         ("vine_b5", VINE), ("vine_b5_max_marginals", VINE)]

# (description, kernel, n, upper bound in ms)
TARGETS = [("second-order best tree, n = 40", "eisner2", 40, 1.0),
           ("third-order best tree, n = 40", "eisner3", 40, 40.0)]
EXPONENT_TARGETS = [
    ("second order under a vine-style mask, n = 20..200", "eisner2_vine_mask", 1.5),
    ("third order under a vine-style mask, n = 20..200", "eisner3_vine_mask", 1.5),
    ("vine pass (best), n = 20..400", "vine_b5", 1.1),
    ("vine pass (max-marginals), n = 20..400", "vine_b5_max_marginals", 1.1)]
SPEEDUP_TARGETS = [
    ("second order, vine-style mask vs unpruned, n = 100", "eisner2", "eisner2_vine_mask", 100, 20.0),
    ("third order, vine-style mask vs unpruned, n = 100", "eisner3", "eisner3_vine_mask", 100, 20.0),
]


def run_suite(suite, repeats, seed=0, seconds=3.0):
    """Median ms per call of each (kernel, n); slow points take fewer calls (at least 5, about `seconds` in all)."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, sizes in suite:
        for n in sizes:
            first = timed(KERNELS[name](rng, n), 1)
            count = int(min(repeats, max(5, seconds / max(first, 1e-9))))
            rows.append(emit({"kernel": name, "n": n, "ms": median_ms(KERNELS[name], n, count, rng), "calls": count}))
    return rows


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "rounds": len(values)}


def yardstick(sizes, rounds, seed=1):
    """Ours against numpy, marginals against best, per round, interleaved."""
    rng = np.random.default_rng(seed)
    out = {}
    for n in sizes:
        rows = {"numpy_ms": [], "eisner_ms": [], "eisner_marginals_ms": [], "eisner_max_marginals_ms": []}
        for _ in range(rounds):
            scores = rng.normal(size=(n + 1, n + 1))
            assert np.array_equal(eisner_numpy(scores), kernels.eisner(scores)), "numpy yardstick disagrees"
            repeats = max(5, 2000 // (n * n))
            rows["numpy_ms"].append(timed(lambda: eisner_numpy(scores), max(3, repeats // 20)) * 1e3)
            for key, fn in (("eisner_ms", kernels.eisner), ("eisner_marginals_ms", kernels.eisner_marginals),
                            ("eisner_max_marginals_ms", kernels.eisner_max_marginals)):
                rows[key].append(timed(lambda: fn(scores), repeats * 10) * 1e3)
        result = {k: summary(v) for k, v in rows.items()}
        result["speedup_over_numpy"] = summary([a / b for a, b in zip(rows["numpy_ms"], rows["eisner_ms"])])
        result["marginals_over_best"] = summary([a / b for a, b in zip(rows["eisner_marginals_ms"], rows["eisner_ms"])])
        out[n] = result
    return out


class SuPar:
    """The long-lived worker in SuPar's virtual environment (bench/supar_worker.py)."""

    def __init__(self, python):
        worker = Path(__file__).resolve().parent / "supar_worker.py"
        self.process = subprocess.Popen([python, str(worker)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})

    def run(self, scores_path, what, repeats):
        self.process.stdin.write(json.dumps({"scores": str(scores_path), "what": what, "repeats": repeats}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the SuPar worker stopped (see its stderr)")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def batch(B, n, rounds, supar_python, scratch, seed=2):
    """Per-sentence ms of a padded batch: ours on 1 and 2 threads, SuPar, interleaved."""
    rng = np.random.default_rng(seed)
    rows = {key: [] for key in ("argmax_1", "argmax_2", "marginals_1", "marginals_2",
                                "supar_argmax", "supar_marginals")}
    supar = SuPar(supar_python) if supar_python else None
    info = {"load_before": os.getloadavg()}
    try:
        for round_ in range(rounds):
            scores = rng.normal(size=(B, n + 1, n + 1)).astype(np.float32).astype(np.float64)
            path = scratch / "batch_scores.npy"
            np.save(path, scores)
            for threads in (1, 2):
                rows[f"argmax_{threads}"].append(
                    timed(lambda: kernels.eisner_batch(scores, n_threads=threads), 20) / B * 1e3)
                rows[f"marginals_{threads}"].append(
                    timed(lambda: kernels.eisner_marginals_batch(scores, n_threads=threads), 20) / B * 1e3)
            if supar is not None:
                answer = supar.run(path, "argmax", 3)
                if round_ == 0:
                    ours = kernels.eisner_batch(scores)
                    agree = np.mean(np.asarray(answer["heads"])[:, 1:] == ours[:, 1:])
                    info.update(torch=answer["torch"], torch_threads=answer["threads"],
                                argmax_agreement_with_ours=float(agree))
                rows["supar_argmax"].append(statistics.median(answer["ms_per_sentence"]))
                rows["supar_marginals"].append(statistics.median(supar.run(path, "marginals", 3)["ms_per_sentence"]))
    finally:
        if supar is not None:
            supar.close()
    result = {key: summary(values) for key, values in rows.items() if values}
    for what in ("argmax", "marginals"):
        result[f"{what}_threads_speedup"] = summary([a / b for a, b in zip(rows[f"{what}_1"], rows[f"{what}_2"])])
        if rows[f"supar_{what}"]:
            result[f"{what}_speedup_over_supar"] = summary([s / o for s, o in zip(rows[f"supar_{what}"],
                                                                                 rows[f"{what}_1"])])
    result.update(info)
    return result


def wait_for_quiet(load, minutes):
    """Wait (up to `minutes`) until the 1-minute load average drops below `load`."""
    deadline = time.time() + 60 * minutes
    while os.getloadavg()[0] >= load and time.time() < deadline:
        time.sleep(20)
    return os.getloadavg()[0] < load


def summarise(rows, yard, batched):
    by_kernel = {}
    for row in rows:
        by_kernel.setdefault(row["kernel"], []).append(row)
    exponents = {k: empirical_exponent([r["n"] for r in rs], [r["ms"] for r in rs]) for k, rs in by_kernel.items()}
    ms = {(r["kernel"], r["n"]): r["ms"] for r in rows}
    numpy, over_best = yard[40]["speedup_over_numpy"]["median"], yard[40]["marginals_over_best"]["median"]
    us, threads = yard[10]["eisner_ms"]["median"] * 1e3, batched["marginals_threads_speedup"]["median"]
    targets = [
        {"target": "first-order best tree, n = 40: >= 50x the numpy yardstick", "measured": round(numpy, 1),
         "met": numpy >= 50},
        {"target": "first-order marginals <= 3x best tree, n = 40", "measured": round(over_best, 2),
         "met": over_best <= 3},
        {"target": "fixed cost of one call at n = 10 <= 10 us", "measured_us": round(us, 2), "met": us <= 10},
        {"target": "batch of 32, n = 40, marginals: 2 threads >= 1.8x one thread", "measured": round(threads, 2),
         "met": threads >= 1.8, "load_before": batched["load_before"]}]
    targets += [{"target": f"batch of 32, n = 40, {what}: >= 30x SuPar DependencyCRF per sentence",
                 "measured": round(batched[key]["median"], 1), "met": batched[key]["median"] >= 30}
                for what in ("argmax", "marginals") for key in [f"{what}_speedup_over_supar"] if key in batched]
    targets += [{"target": what, "bound_ms": bound, "measured_ms": round(ms[kernel, n], 4),
                 "met": ms[kernel, n] <= bound} for what, kernel, n, bound in TARGETS]
    targets += [{"target": what, "bound_exponent": bound, "measured_exponent": round(exponents[kernel], 2),
                 "met": exponents[kernel] <= bound} for what, kernel, bound in EXPONENT_TARGETS]
    targets += [{"target": what, "bound_speedup": bound, "measured_speedup": round(ms[slow, n] / ms[fast, n], 1),
                 "met": ms[slow, n] / ms[fast, n] >= bound} for what, slow, fast, n, bound in SPEEDUP_TARGETS]
    return {"exponents": exponents, "targets": targets}


def plot(rows, yard, path):
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(12, 4.5))
    for kernel in dict.fromkeys(r["kernel"] for r in rows):
        pts = [(r["n"], r["ms"]) for r in rows if r["kernel"] == kernel]
        left.loglog(*zip(*pts), marker="o", label=kernel)
    left.set(xlabel="sentence length n", ylabel="ms per sentence (median)")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7)
    sizes = sorted(yard)
    for key, label in (("numpy_ms", "numpy yardstick (best tree)"), ("eisner_ms", "eisner (best tree)"),
                       ("eisner_max_marginals_ms", "eisner_max_marginals"),
                       ("eisner_marginals_ms", "eisner_marginals")):
        right.loglog(sizes, [yard[n][key]["median"] for n in sizes], marker="o", label=label)
    right.set(xlabel="sentence length n", ylabel="ms per sentence (median over rounds)")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=8)
    save_figure(fig, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50, help="timed calls per suite point")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds of the yardstick and batch parts")
    parser.add_argument("--supar", default=None,
                        help="python of a virtual environment with supar and torch (e.g. ../supar-venv/bin/python)")
    parser.add_argument("--quiet-load", type=float, default=None,
                        help="before the batch part, wait until the 1-minute load average is below this")
    parser.add_argument("--wait-minutes", type=float, default=30, help="the longest wait for --quiet-load")
    parser.add_argument("--out", type=Path, default=Path("bench/out/kernels.json"))
    parser.add_argument("--plot", type=Path, default=None, help="PNG of time against n")
    args = parser.parse_args(argv)
    started = {"load_start": os.getloadavg(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    rows = run_suite(SUITE, args.repeats)
    yard = yardstick((10, 40, 100), args.rounds)
    quiet = wait_for_quiet(args.quiet_load, args.wait_minutes) if args.quiet_load else None
    with tempfile.TemporaryDirectory() as scratch:                # the scores handed to the SuPar worker
        batched = batch(32, 40, args.rounds, args.supar, Path(scratch))
    batched["waited_for_quiet"] = {"below": args.quiet_load, "reached": quiet}
    result = {**run_info(numpy=np.__version__, openmp=kernels.has_openmp()), **started,
              "load_end": os.getloadavg(), "rows": rows, "yardstick": yard, "batch": batched,
              **summarise(rows, yard, batched)}
    write_json(args.out, result, indent=2)
    if args.plot:
        plot(rows, yard, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
