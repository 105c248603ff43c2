"""Timing helpers shared by `bench/*.py` and `python -m vineparse stats`.

Times are medians over `repeats` calls, each on fresh random scores, measured
with `time.perf_counter` on one thread; this machine is shared, so compare
numbers from one run only.
"""
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

from . import kernels
from .stats import empirical_exponent as fit_exponent  # noqa: F401  (re-exported for bench/)


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
            return fn(scores, *(pools[k][:len(parts[k])] for k in ("sibling", "grandparent", "grand_sibling")),
                      mask)
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


def vine_style_mask(n: int, rng: np.random.Generator, heads_per_word: int = 3, near: int = 5,
                    far_share: float = 0.1) -> np.ndarray:
    """A mask like the one a vine pass leaves: every word keeps the root and at
    most `heads_per_word` heads, the left neighbour among them (so a tree always
    exists) and the others within distance `near`, except a `far_share` of them
    drawn from anywhere.

    RETURNS (np.ndarray): bool (n + 1, n + 1), mask[h, m].
    """
    mask = np.zeros((n + 1, n + 1), dtype=bool)
    mask[0, 1:] = True
    for m in range(1, n + 1):
        if m > 1:
            mask[m - 1, m] = True
        for _ in range(heads_per_word - 1):
            if rng.random() < far_share:
                h = int(rng.integers(1, n + 1))
            else:
                h = m + int(rng.integers(-near, near + 1))
            if 1 <= h <= n and h != m:
                mask[h, m] = True
    return mask


def median_ms(make_call: Callable, n: int, repeats: int, rng: np.random.Generator) -> float:
    """Median milliseconds of `make_call(rng, n)()` over `repeats` fresh inputs (after one warm-up)."""
    make_call(rng, n)()
    times = []
    for _ in range(repeats):
        call = make_call(rng, n)
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def kernel_benchmark(sizes: Iterable[int] = (10, 20, 40, 60, 100), repeats: int = 20,
                     names: Optional[Sequence[str]] = None, seed: int = 0) -> List[dict]:
    """Median milliseconds per sentence for each kernel and sentence length.

    RETURNS (List[dict]): rows {"kernel", "n", "ms"}.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for name in names or DEFAULT_KERNELS:
        for n in sizes:
            rows.append({"kernel": name, "n": int(n), "ms": median_ms(KERNELS[name], n, repeats, rng)})
    return rows
