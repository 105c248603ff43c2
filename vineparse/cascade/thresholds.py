"""Max-marginal thresholds (Rush & Petrov 2012, after Weiss & Taskar 2010).

For a sentence with best structure score `best` and max-marginals mm(p) of its
prunable parts, part p survives if

    mm(p) >= t_a = a * best + (1 - a) * mean_p mm(p),

with a set per level: a = 0 keeps what beats the mean, a -> 1 keeps only the best
structure (a < 0 puts t_a below the mean). Parts no structure uses (mm = -inf)
never survive and do not enter the mean. The best structure always survives, so
a pruned level never loses every structure.

The thresholds themselves are C code in the compiled cascade runtime
(`_kernels/cascade_runtime.pyx`), so training, calibration and prediction all
prune with one implementation; this module is their Python face plus the
statistics calibration needs.
"""
import numpy as np

from .._kernels.thresholds import cap_mask, prune_mask, threshold

__all__ = ["threshold", "prune_mask", "arc_mask", "vine_mask", "cap_heads", "kept_share", "gold_recall",
           "gold_ranks"]


def arc_mask(arc_mm: np.ndarray, best: float, alpha: float) -> np.ndarray:
    """The arcs whose max-marginal reaches t_a: bool (n + 1, n + 1)."""
    return prune_mask(best, arc_mm, None, alpha)


def vine_mask(arc_mm: np.ndarray, outer_mm: np.ndarray, best: float, alpha: float, band: int) -> np.ndarray:
    """The first-order arc mask a vine pass leaves (Rush & Petrov, section 3).

    Short arcs and root arcs survive on their own max-marginals; a surviving
    outer-left (outer-right) arc of m lets every arc into m from further than
    `band` words to its left (right) through to the next level. t_a is taken over
    the arc max-marginals and the outer ones of words 1..n.
    RETURNS (np.ndarray): bool (n + 1, n + 1).
    """
    return prune_mask(best, arc_mm, outer_mm, alpha, band=band)


def cap_heads(mask: np.ndarray, arc_mm: np.ndarray, k: int) -> np.ndarray:
    """`mask` with each modifier column m >= 1 keeping at most its k allowed arcs of highest
    max-marginal (ties at the k-th value kept, so the best structure's arcs, whose
    max-marginal is the maximum, always survive).

    mask: bool (n + 1, n + 1); arc_mm: float (n + 1, n + 1); RETURNS: bool (n + 1, n + 1).
    """
    return cap_mask(mask, arc_mm, k)


def kept_share(mask: np.ndarray) -> float:
    """Surviving arcs over all n^2 possible arcs (n heads for each of n words)."""
    n = mask.shape[0] - 1
    return float(mask[:, 1:].sum()) / max(n * n, 1)


def gold_recall(mask: np.ndarray, heads: np.ndarray) -> tuple:
    """(surviving gold arcs, gold arcs) of a tree under `mask`."""
    m = np.arange(1, len(heads))
    return int(mask[heads[1:], m].sum()), len(m)


def gold_ranks(arc_mm: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """For each word m = 1..n, how many heads have a strictly larger max-marginal than its gold
    head (so the gold arc survives `cap_heads(.., k)` iff its rank < k): int64 (n,)."""
    m = np.arange(1, len(heads))
    gold = arc_mm[heads[1:], m]
    return (arc_mm[:, m] > gold[None, :]).sum(axis=0)
