"""The structured cascade objective and the choice of pruning thresholds, for levels with any scorer.

Rush & Petrov (2012), section 4, after Weiss & Taskar (2010). A pruning level with threshold
t_a = a * best + (1 - a) * mean_p mm(p) (`thresholds.py`) is trained by the cascade loss

    [1 - score(gold) + t_a]_+,

whose subgradient, when the loss is positive, is -phi(gold) + a * phi(y*) + (1 - a) * mean_p phi(y*(p)),
with y* the best structure and y*(p) the best structure containing part p (the witness of p's
max-marginal). The mean over parts is estimated without bias from `witnesses` parts drawn uniformly per step
(`cascade_step`). A level's scorer takes the step (`levels.Level.update`): hashed weights move by it, neural
part scores get it as a gradient.

After training, a pruning level's a is the largest value on `ALPHA_GRID` whose gold-arc recall (of the gold
arcs that survived the levels before) stays at or above a target (`choose_alpha`); an Eisner-order level may
also cap the heads kept per word (`choose_head_cap_and_alpha`: the (cap, a) pair that keeps the fewest arcs at
that recall). Examples are anything with `.sent` (what the level's scorer reads) and `.heads` (the projective
gold tree, int64 (n + 1,)).
"""
from typing import Any, List, Optional, Protocol, Sequence, Tuple

import numpy as np

from .levels import Level
from .structures import full_mask
from .thresholds import arc_mask, gold_ranks, gold_recall, threshold

ALPHA_GRID = tuple(np.round(np.arange(-1.0, 1.0, 0.02), 2))   # a < 0 puts t_a below the mean
CAP_GRID = (2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24)               # heads kept per word at most

MaxMarginals = Tuple[float, np.ndarray, Optional[np.ndarray]]    # best, arc (n + 1, n + 1), outer (n + 1, 2)


class GoldSentence(Protocol):
    sent: Any              # what the level's scorer reads
    heads: np.ndarray      # projective gold tree, int64 (n + 1,), heads[0] = -1


def cascade_step(level: Level, example: GoldSentence, mask, alpha: float, witnesses: int, rng,
                 max_marginals: Optional[MaxMarginals] = None) -> int:
    """One structured-cascade subgradient step of `level` on `mask` (None: every arc), with a in the loss
    `alpha` and `witnesses` sampled witness parts. `max_marginals`: the level's under `mask` when the caller
    has them (the cascade prunes with them next). RETURNS 1 if the loss was positive (a step was taken)."""
    best, arc_mm, outer_mm = level.max_marginals(example.sent, mask) if max_marginals is None else max_marginals
    if 1.0 - level.score(example.sent, example.heads) + threshold(best, arc_mm, outer_mm, alpha) <= 0.0:
        return 0
    level.update(example.sent, example.heads, 1.0)
    level.update_structure(example.sent, level.decode(example.sent, mask), -alpha)
    parts = prunable_parts(arc_mm, outer_mm)
    if len(parts) and alpha < 1.0:
        step = -(1.0 - alpha) / witnesses
        for j in rng.integers(0, len(parts), size=witnesses):
            level.update_structure(example.sent, level.decode(example.sent, mask, force=parts[j]), step)
    return 1


def prunable_parts(arc_mm: np.ndarray, outer_mm: Optional[np.ndarray]) -> list:
    """The parts with a finite max-marginal, as `force` arguments of a level's decode."""
    arcs = [tuple(a) for a in np.argwhere(np.isfinite(arc_mm))]
    if outer_mm is None:
        return arcs
    outer = [("outer", tuple(p)) for p in np.argwhere(np.isfinite(outer_mm[1:])) + [1, 0]]
    return [("arc", a) for a in arcs] + outer


def level_max_marginals(level: Level, examples: Sequence[GoldSentence], masks: Sequence):
    """Per example (example, best, arc max-marginals, outer max-marginals) under its mask, and the number
    of gold arcs the masks keep (the recall denominator)."""
    results = [(ex, *level.max_marginals(ex.sent, mask)) for ex, mask in zip(examples, masks)]
    previous = sum(gold_recall(full_mask(len(ex.heads) - 1) if m is None else m, ex.heads)[0]
                   for ex, m in zip(examples, masks))
    return results, previous


def largest_alpha(level: Level, results, previous: int, recall: float, grid: Sequence[float]):
    """The largest a on `grid` whose masks keep at least `recall` of the `previous` gold arcs, as
    (a, recall, kept share); the smallest a's row if none does. The masks shrink as a grows (t_a moves from
    the mean towards the best score), so recall falls monotonically and a binary search over the grid finds
    what a scan would."""
    def evaluate(alpha):
        kept = arcs = possible = 0
        for ex, best, arc_mm, outer_mm in results:
            pruned = level.prune_mask(best, arc_mm, outer_mm, alpha)
            kept += gold_recall(pruned, ex.heads)[0]
            arcs += pruned[:, 1:].sum()
            possible += (len(ex.heads) - 1) ** 2
        return float(alpha), kept / max(previous, 1), arcs / max(possible, 1)

    grid = sorted(grid)
    chosen = evaluate(grid[0])
    if chosen[1] < recall:
        return chosen
    lo, hi = 0, len(grid)              # grid[lo] meets the target; grid[hi] does not (or is past the end)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        row = evaluate(grid[mid])
        if row[1] >= recall:
            lo, chosen = mid, row
        else:
            hi = mid
    return chosen


def smallest_head_cap(results, previous: int, recall: float, caps: Sequence[int] = CAP_GRID,
                      floor: float = ALPHA_GRID[0]) -> Optional[int]:
    """The smallest cap on `caps` such that keeping at most that many heads per word (by max-marginal), with
    the threshold at the a grid's `floor`, keeps at least `recall` of the `previous` gold arcs; None (no cap)
    if no cap on the grid does."""
    caps = sorted(caps)
    kept = np.zeros(len(caps))
    for ex, best, arc_mm, _ in results:
        m = np.arange(1, len(ex.heads))
        survives = arc_mask(arc_mm, best, floor)[ex.heads[1:], m]
        ranks = gold_ranks(arc_mm, ex.heads)[survives]
        kept += (ranks[None, :] < np.asarray(caps)[:, None]).sum(axis=1)
    for cap, count in zip(caps, kept):
        if count >= recall * max(previous, 1):
            return int(cap)
    return None


def choose_head_cap_and_alpha(level: Level, examples: Sequence[GoldSentence], masks: Sequence, recall: float,
                              caps: Sequence[int] = CAP_GRID, grid: Sequence[float] = ALPHA_GRID):
    """The head cap and a of an Eisner-order pruning level that keep the fewest arcs on `examples` while
    keeping at least `recall` of the gold arcs that survived the levels before: each cap on `caps` from the
    smallest that can reach the target (`smallest_head_cap`) upwards, and no cap, each with its largest a
    (`largest_alpha`). Sets `level.head_cap`.

    RETURNS (Tuple[Optional[int], float, float, float]): cap, a, the gold recall and the kept share.
    """
    results, previous = level_max_marginals(level, examples, masks)
    smallest = smallest_head_cap(results, previous, recall, caps, min(grid))
    candidates = [None] if smallest is None else [c for c in sorted(caps) if c >= smallest] + [None]
    best_choice = None
    for cap in candidates:
        level.head_cap = cap
        alpha, kept_recall, kept = largest_alpha(level, results, previous, recall, grid)
        if kept_recall >= recall and (best_choice is None or kept < best_choice[3]):
            best_choice = (cap, alpha, kept_recall, kept)
    if best_choice is None:                 # no cap, and even the smallest a misses the target
        best_choice = (None, alpha, kept_recall, kept)
    level.head_cap = best_choice[0]
    return best_choice


def choose_alpha(level: Level, examples: Sequence[GoldSentence], masks: Sequence, recall: float,
                 grid: Sequence[float] = ALPHA_GRID) -> Tuple[float, float, float]:
    """The largest a on `grid` whose masks keep at least `recall` of the gold arcs that survived the levels
    before (`masks`: each example's input mask of this level, None for every arc), so that recall compounds
    across levels; the smallest a on the grid if none does.

    RETURNS (Tuple[float, float, float]): a, the gold recall and the kept share at that a.
    """
    results, previous = level_max_marginals(level, examples, masks)
    return largest_alpha(level, results, previous, recall, grid)


def pruning_max_marginals(cascade, sent) -> Tuple[List, Any]:
    """The pruning levels of `cascade` run on one sentence at the cascade's thresholds, as it parses: per
    pruning level k (its input mask, its max-marginals (best, arc_mm, outer_mm), or None where its input
    mask admits no structure: then the next level runs on that same mask, the cascade's fallback), and the
    last level's input mask (None: every arc)."""
    from ..kernels import NoStructureError

    steps, mask = [], None
    for level, alpha in zip(cascade.levels[:-1], cascade.alphas):
        try:
            found = level.max_marginals(sent, mask)
        except NoStructureError:
            steps.append((mask, None))
            continue
        steps.append((mask, found))
        mask = level.prune_mask(*found, alpha)
    return steps, mask
