"""Max-marginal thresholds (Rush & Petrov 2012, after Weiss & Taskar 2010).

For a sentence with best structure score `best` and max-marginals mm(p) of its
prunable parts, part p survives if

    mm(p) >= t_a = a * best + (1 - a) * mean_p mm(p),

with a in [0, 1) set per level: a = 0 keeps what beats the mean, a -> 1 keeps
only the best structure. Parts no structure uses (mm = -inf) never survive and
do not enter the mean. The best structure always survives, so a pruned level
never loses every structure.
"""
from functools import lru_cache

import numpy as np


def threshold(best: float, values: np.ndarray, alpha: float) -> float:
    """t_a over the finite max-marginals `values`."""
    finite = values[np.isfinite(values)]
    mean = finite.mean() if len(finite) else best
    return alpha * best + (1.0 - alpha) * mean


def arc_mask(arc_mm: np.ndarray, best: float, alpha: float) -> np.ndarray:
    """The arcs whose max-marginal reaches t_a: bool (n + 1, n + 1)."""
    return arc_mm >= threshold(best, arc_mm, alpha)


def vine_mask(arc_mm: np.ndarray, outer_mm: np.ndarray, best: float, alpha: float, band: int) -> np.ndarray:
    """The first-order arc mask a vine pass leaves (Rush & Petrov, section 3).

    Short arcs and root arcs survive on their own max-marginals; a surviving
    outer-left (outer-right) arc of m lets every arc into m from further than
    `band` words to its left (right) through to the next level.
    RETURNS (np.ndarray): bool (n + 1, n + 1).
    """
    t = threshold(best, np.concatenate([arc_mm.ravel(), outer_mm[1:].ravel()]), alpha)
    far_left, far_right = _far_heads(arc_mm.shape[0] - 1, band)
    return (arc_mm >= t) | (far_left & (outer_mm[:, 0] >= t)) | (far_right & (outer_mm[:, 1] >= t))


@lru_cache(maxsize=256)
def _far_heads(n: int, band: int):
    """bool (n + 1, n + 1) pair (read only): [h, m] is a word h more than `band` words left / right of m."""
    h, m = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    far_left, far_right = (h >= 1) & (h < m - band), h > m + band
    far_left.setflags(write=False)
    far_right.setflags(write=False)
    return far_left, far_right


def kept_share(mask: np.ndarray) -> float:
    """Surviving arcs over all n^2 possible arcs (n heads for each of n words)."""
    n = mask.shape[0] - 1
    return float(mask[:, 1:].sum()) / max(n * n, 1)


def gold_recall(mask: np.ndarray, heads: np.ndarray) -> tuple:
    """(surviving gold arcs, gold arcs) of a tree under `mask`."""
    m = np.arange(1, len(heads))
    return int(mask[heads[1:], m].sum()), len(m)


def cap_heads(mask: np.ndarray, arc_mm: np.ndarray, k: int) -> np.ndarray:
    """`mask` with each modifier column m keeping at most its k allowed arcs of highest
    max-marginal (ties at the k-th value kept, so the best structure's arcs, whose
    max-marginal is the maximum, always survive).

    mask: bool (n + 1, n + 1); arc_mm: float (n + 1, n + 1); RETURNS: bool (n + 1, n + 1).
    """
    size = mask.shape[0]
    if k >= size:
        return mask
    values = np.where(mask, arc_mm, -np.inf)
    values.partition(size - k, axis=0)
    return mask & (arc_mm >= values[size - k])      # the k-th largest per column; -inf keeps a sparse column


def gold_ranks(arc_mm: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """For each word m = 1..n, how many heads have a strictly larger max-marginal than its gold
    head (so the gold arc survives `cap_heads(.., k)` iff its rank < k): int64 (n,)."""
    m = np.arange(1, len(heads))
    gold = arc_mm[heads[1:], m]
    return (arc_mm[:, m] > gold[None, :]).sum(axis=0)
