"""Timing helpers of the kernel benchmarks (bench/kernels.py, bench/treebank_stats.py) and the empirical
exponent of a time against sentence length (also bench/cascade.py).

Times are medians over `repeats` calls, each on fresh random scores, measured with `time.perf_counter` on one
thread; this machine is shared, so compare numbers from one run only. The masked kernels run under the
kernel tests' `vine_style_mask` (tests/kernels/oracle.py), so benchmarks and tests draw the same masks.
"""
import sys
import time
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kernels"))
from oracle import vine_style_mask  # noqa: E402

from vineparse import kernels  # noqa: E402


def _first_order(fn: Callable, **options) -> Callable:
    return lambda rng, n: (lambda scores=rng.normal(size=(n + 1, n + 1)): fn(scores, **options))


def _second_order(fn: Callable, masked: bool = False) -> Callable:
    """A timed call that pays what a caller pays: listing the parts the mask admits (the arc index) and the
    dynamic program, on part scores drawn beforehand."""
    def make(rng, n):
        scores = rng.normal(size=(n + 1, n + 1))
        mask = vine_style_mask(n, rng) if masked else None
        pool = rng.normal(size=len(kernels.second_order_parts(mask, n)))
        return lambda: fn(scores, pool[:len(kernels.second_order_parts(mask, n))], mask)
    return make


def _third_order(fn: Callable, masked: bool = False) -> Callable:
    """As `_second_order`, for the three part kinds of the third-order model."""
    def make(rng, n):
        scores = rng.normal(size=(n + 1, n + 1))
        mask = vine_style_mask(n, rng) if masked else None
        counts = {k: len(v) for k, v in kernels.third_order_parts(mask, n).items()}
        pools = {k: rng.normal(size=c) for k, c in counts.items()}

        def call():
            parts = kernels.third_order_parts(mask, n)
            return fn(scores, *(pools[k][:len(parts[k])] for k in ("sibling", "grandparent", "grand_sibling")), mask)
        return call
    return make


def _vine(fn: Callable, band: int = 5) -> Callable:
    def make(rng, n):
        scores, outer = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, 2))
        return lambda: fn(scores, outer, band)
    return make


def _masked_first_order(fn: Callable, **options) -> Callable:
    def make(rng, n):
        scores, mask = rng.normal(size=(n + 1, n + 1)), vine_style_mask(n, rng)
        return lambda: fn(scores, mask, **options)
    return make


# name -> make_call(rng, n): a call of the kernel on fresh random inputs for a sentence of n words.
KERNELS: Dict[str, Callable] = {
    "eisner": _first_order(kernels.eisner),
    "eisner_max_marginals": _first_order(kernels.eisner_max_marginals),
    "eisner_marginals": _first_order(kernels.eisner_marginals),
    "eisner_vine_mask": _masked_first_order(kernels.eisner),
    "eisner_hypergraph": _first_order(kernels.eisner, engine="hypergraph"),
    "eisner_marginals_hypergraph": _first_order(kernels.eisner_marginals, engine="hypergraph"),
    "eisner_vine_mask_dense": _masked_first_order(kernels.eisner, engine="dense"),
    "eisner2": _second_order(kernels.eisner2),
    "eisner2_max_marginals": _second_order(kernels.eisner2_max_marginals),
    "eisner2_vine_mask": _second_order(kernels.eisner2, masked=True),
    "eisner3": _third_order(kernels.eisner3),
    "eisner3_max_marginals": _third_order(kernels.eisner3_max_marginals),
    "eisner3_vine_mask": _third_order(kernels.eisner3, masked=True),
    "vine_b5": _vine(kernels.vine),
    "vine_b5_max_marginals": _vine(kernels.vine_max_marginals),
}

DEFAULT_KERNELS = ("eisner", "eisner_max_marginals", "eisner_marginals")


def seconds(call: Callable) -> float:
    """The seconds one `call()` takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def timed(call: Callable, repeats: int) -> float:
    """Median seconds of `repeats` calls (after one warm-up)."""
    call()
    return float(np.median([seconds(call) for _ in range(repeats)]))


def median_ms(make_call: Callable, n: int, repeats: int, rng: np.random.Generator) -> float:
    """Median milliseconds of `make_call(rng, n)()` over `repeats` fresh inputs (after one warm-up)."""
    make_call(rng, n)()
    return float(np.median([seconds(make_call(rng, n)) for _ in range(repeats)]) * 1e3)


def kernel_benchmark(sizes: Iterable[int] = (10, 20, 40, 60, 100), repeats: int = 20,
                     names: Optional[Sequence[str]] = None, seed: int = 0) -> List[dict]:
    """Rows {"kernel", "n", "ms"}: median milliseconds per sentence of each kernel of `names` (keys of KERNELS;
    by default DEFAULT_KERNELS) at each sentence length of `sizes`, `repeats` timed calls each."""
    rng = np.random.default_rng(seed)
    return [{"kernel": name, "n": int(n), "ms": median_ms(KERNELS[name], n, repeats, rng)}
            for name in names or DEFAULT_KERNELS for n in sizes]


def empirical_exponent(sizes: Sequence[float], times: Sequence[float]) -> Optional[float]:
    """Least-squares slope of log(time) against log(size), time ~ size ** slope, the number Rush & Petrov report
    (e.g. 2.8 for unpruned first order); non-positive times are ignored; None with fewer than two usable sizes."""
    x = np.asarray(sizes, dtype=np.float64)
    y = np.asarray(times, dtype=np.float64)
    keep = (x > 0) & (y > 0)
    if np.unique(x[keep]).size < 2:
        return None
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])
