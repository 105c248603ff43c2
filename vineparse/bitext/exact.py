"""Exact expectations: bitext inside-outside over every bispan a mask keeps.

Time O(p^3 q^3) for the binary grammar and O(p^4 q^4) for the ternary one, unpruned; memory 16 bytes per
chart item (`grammar.exact_items`). Pairs beyond the model's `max_exact_product` raise `ExactLimitError`
naming the size and the limit, before any memory is touched.
"""
import time
from typing import Optional

import numpy as np

from .grammar import Chart, ChartResult, ExactLimitError, PairScores, exact_items, keep_all, no_derivation


def check_exact_size(p: int, q: int, grammar: str, limit: int) -> None:
    """Raise ExactLimitError if a p x q pair is beyond `limit` (a bound on p * q) for exact inference."""
    if p * q > limit:
        items = exact_items(p, q, grammar)
        raise ExactLimitError(
            f"a {p} x {q} sentence pair (product {p * q:,}) is too long for exact inference with the {grammar} "
            f"grammar: the limit max_exact_product[{grammar!r}] is {limit:,} (the chart would hold {items:,} "
            f"items, {items * 16 / 2 ** 30:.1f} GiB); use method='randomized' or 'tictactoe', or raise the limit")


def exact_statistics(scores: PairScores, grammar: str, keep: Optional[np.ndarray] = None, samples: int = 0,
                     seed: int = 0, what: str = "the chart") -> ChartResult:
    """Log partition and expected part counts over the kept chart (all of it without `keep`).

    scores (PairScores): part scores (forbidden emissions at -inf).
    grammar (str): "binary" or "ternary".
    keep (np.ndarray or None): keep table (see grammar.keep_all).
    samples, seed: also draw `samples` derivations from the chart.
    what (str): names the mask in the error raised when it admits no derivation.
    RETURNS (ChartResult): with `seconds` set to the wall time of building and running the chart.
    """
    start = time.perf_counter()
    p, q = scores.shape
    chart = Chart(scores, keep_all(p, q) if keep is None else keep, grammar)
    result = chart.run(statistics=True, samples=samples, seed=seed)
    if result.log_z == -np.inf:
        raise no_derivation(p, q, what)
    result.seconds = time.perf_counter() - start
    return result
