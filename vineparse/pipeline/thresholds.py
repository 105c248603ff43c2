"""Pruning thresholds set while training, from the recall of the sentences about to be learnt from.

A part with max-marginal v survives a level's threshold t_a = a * best + (1 - a) * mean (see
`vineparse.cascade.thresholds`) iff a <= c(v) = (v - mean) / (best - mean), its *critical* a (+inf when
best == mean: everything survives; -inf for a part no structure uses). So one pass over a sentence's
max-marginals tells, for every a of the grid at once, which gold arcs and how many arcs survive: the tracker
keeps, per pruning level, histograms of the gold arcs' and of all arcs' critical a over `ALPHA_GRID`
(exponentially decayed, so they follow the model as it trains), and `alphas` picks for each level the largest
a whose gold-arc recall (of the gold arcs in the level's input mask) reaches the target.

Training (`training.py`) picks a stable share of the training sentences (`is_held_out`: by a hash of their
words; kept out of every loss unless the component's `learn_held_out`) and reports each pruning level's
max-marginals of those (`observe_sentence`), on the masks the cascade runs with at its current thresholds;
every `threshold_interval` batches the component sets the thresholds the next batches prune with. Eisner
levels: a gold arc must also be among its word's `head_cap` best heads (ties kept, as
`cascade.thresholds.cap_heads`). The vine: a long gold arc survives through its word's outer arc on its
side, which lets every far head on that side through (each counts as a kept arc).
Cost: O(n^2) per level and sentence (O(n^2 log n) with a head cap).
"""
import zlib
from typing import List, Optional, Sequence

import numpy as np

from ..cascade.objective import ALPHA_GRID, pruning_max_marginals

GRID = np.asarray(ALPHA_GRID, dtype=np.float64)
TIE = 1e-9          # a part exactly at the threshold survives (mm >= t_a); rounding must not drop it


def recall_targets(recall, levels: int) -> List[float]:
    """The gold-arc recall target of each of `levels` pruning levels: `recall` is one number for all of them
    or a sequence of one per level, each in (0, 1]. Raises ValueError otherwise."""
    values = [recall] * levels if isinstance(recall, (int, float)) and not isinstance(recall, bool) else recall
    try:
        values = list(values)
    except TypeError:
        raise ValueError(f"recall must be a number or one number per pruning level, got {recall!r}") from None
    if len(values) != levels:
        raise ValueError(f"recall needs one value per pruning level ({levels}), got {len(values)}: {recall!r}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
            raise ValueError(f"every recall target must be a number > 0 and <= 1, got {recall!r}")
    return [float(value) for value in values]


def recall_argument(text: str):
    """A command line's recall: one number, or comma-separated numbers (one per pruning level)."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"expected a number or comma-separated numbers, got {text!r}") from None
    return values[0] if len(values) == 1 else values


def is_held_out(words: Sequence[str], share: float) -> bool:
    """Whether a sentence (its words) is held out for the thresholds: a stable hash of its words falls in
    the first `share` of the range (the same sentence is held out in every epoch and run)."""
    if share <= 0.0:
        return False
    return zlib.crc32("\x1f".join(words).encode("utf-8")) < share * 2 ** 32


def observe_sentence(cascade, sent, heads: np.ndarray, tracker: "RecallTracker") -> None:
    """Run the cascade's pruning levels on a held-out sentence at their current thresholds and report each
    level's max-marginals (on the mask the levels before it leave) to `tracker`."""
    steps, _ = pruning_max_marginals(cascade, sent)
    for k, (level, (_, found)) in enumerate(zip(cascade.levels, steps)):
        if found is not None:      # None: this level's input mask admits no structure
            tracker.observe(k, level, *found, heads)


def critical_alphas(values: np.ndarray, best: float, mean: float) -> np.ndarray:
    """c(v) of every value (see the module docstring), float64, -inf where v is not finite."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    spread = best - mean
    with np.errstate(invalid="ignore", divide="ignore"):
        if spread > 1e-12 * max(1.0, abs(best)):
            out = (values - mean) / spread + TIE
        else:
            out = np.full(values.shape, np.inf)
    return np.where(finite, out, -np.inf)


def _mean(values: np.ndarray, best: float) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if len(finite) else best


class RecallTracker:
    """Decayed histograms of critical a per pruning level (see the module docstring).

    levels (int): pruning levels. decay (float): each `decay()` multiplies what was seen by it.
    """

    def __init__(self, levels: int, decay: float = 0.5):
        self.decay_factor = decay
        self.gold = np.zeros((levels, len(GRID) + 1))
        self.kept = np.zeros((levels, len(GRID) + 1))
        self.gold_total = np.zeros(levels)
        self.possible = np.zeros(levels)
        self.sentences = np.zeros(levels)

    def _add(self, table: np.ndarray, k: int, critical: np.ndarray, weights=None) -> None:
        bins = np.searchsorted(GRID, critical.ravel(), side="right")       # grid values a <= c
        table[k] += np.bincount(bins, None if weights is None else np.ravel(weights), minlength=len(GRID) + 1)

    def observe(self, k: int, level, best: float, arc_mm: np.ndarray, outer_mm: Optional[np.ndarray],
                heads: np.ndarray) -> None:
        """Record level k's max-marginals of one sentence with gold tree `heads` (int64 (n + 1,))."""
        n = len(heads) - 1
        m = np.arange(1, n + 1)
        if level.is_vine:
            values = np.concatenate([arc_mm.ravel(), outer_mm[1:].ravel()])
            mean = _mean(values, best)
            c_arc, c_outer = critical_alphas(arc_mm, best, mean), critical_alphas(outer_mm, best, mean)
            gold = c_arc[heads[1:], m]
            band = level.structure.band
            far = (heads[1:] > 0) & (np.abs(heads[1:] - m) > band)
            side = (heads[1:] > m).astype(np.int64)
            gold = np.where(far, np.maximum(gold, c_outer[m, side]), gold)
            self._add(self.kept, k, c_arc[:, 1:])
            far_left = np.maximum(m - band - 1, 0)
            far_right = np.maximum(n - m - band, 0)
            self._add(self.kept, k, c_outer[1:], np.stack([far_left, far_right], axis=1))
            self.gold_total[k] += n
        else:
            mean = _mean(arc_mm, best)
            critical = critical_alphas(arc_mm, best, mean)
            cap = level.head_cap
            if cap is not None and cap < n + 1:
                values = np.where(np.isfinite(arc_mm), arc_mm, -np.inf)
                kth = np.partition(values, n + 1 - cap, axis=0)[n + 1 - cap]
                critical = np.where(arc_mm >= kth[None, :], critical, -np.inf)
            gold = critical[heads[1:], m]
            self._add(self.kept, k, critical[:, 1:])
            self.gold_total[k] += int(np.isfinite(arc_mm[heads[1:], m]).sum())
        self._add(self.gold, k, gold)
        self.possible[k] += n * n
        self.sentences[k] += 1

    def decay(self) -> None:
        for table in (self.gold, self.kept, self.gold_total, self.possible, self.sentences):
            table *= self.decay_factor

    def rows(self, recall) -> List[dict]:
        """Per pruning level: the largest a of the grid whose recall reaches the level's target (`recall`: one
        for all levels or one per level; the smallest a when none does), with its recall and kept share, from
        what was seen (an empty level: a = None)."""
        targets = recall_targets(recall, len(self.gold))
        out = []
        for k, recall in enumerate(targets):
            if self.gold_total[k] <= 0:
                out.append({"alpha": None, "gold_recall": None, "kept_share": None})
                continue
            survive = np.cumsum(self.gold[k][::-1])[::-1][1:]        # survive[i]: gold arcs with c >= GRID[i]
            kept = np.cumsum(self.kept[k][::-1])[::-1][1:]
            recalls = survive / self.gold_total[k]
            reach = np.flatnonzero(recalls >= recall)
            i = int(reach[-1]) if len(reach) else 0
            out.append({"alpha": float(GRID[i]), "gold_recall": float(recalls[i]),
                        "kept_share": float(kept[i] / max(self.possible[k], 1.0))})
        return out
