"""Neural cascade levels: the cascade's own levels (`vineparse.cascade.levels`) with neural part scores.

The sparse levels ask three things of their linear model: `_score(sent, kind, rows)` (part scores),
`_arc_scores(sent, arcs)` (a dense arc matrix, -inf outside `arcs`) and `_update(sent, parts, step)`. Here
`sent` is a `parts.SentenceScores` and those three are answered from it; everything else (max-marginals,
pruning, decoding with forced parts, the parts of a structure) is inherited unchanged, so the runner
`Cascade`, `training._cascade_step` and `training.choose_alpha` work on these levels as they are.

`update(sent, heads, step)` moves the scores of the structure's parts by `step` through the gradient: it adds
-step to d loss / d part score (a perceptron step of +1 on gold is a gradient of -1), and the component
backpropagates those gradients into the thinc model.
"""
from typing import Sequence

import numpy as np

from ..cascade.cascade import Cascade
from ..cascade.levels import FirstOrderLevel, SecondOrderLevel, ThirdOrderLevel, VineLevel


class NeuralScoring:
    """Answers a cascade level's scoring calls from the sentence's neural part scores.

    band (int): the vine's longest short arc (read by the vine level only).
    max_heads (int or None): an Eisner-order pruning level keeps at most this many heads per word (those of
        highest max-marginal; the best tree's arcs always survive), so the next level's work is bounded
        even where the threshold alone keeps too much (long or badly scored sentences).
    """

    def __init__(self, band: int = 5, max_heads=None):
        self.band = band
        self.max_heads = max_heads

    def prune_mask(self, best, arc_mm, outer_mm, alpha):
        mask = super().prune_mask(best, arc_mm, outer_mm, alpha)
        if self.max_heads is None or outer_mm is not None:
            return mask
        return cap_heads(mask, arc_mm, self.max_heads)

    def _score(self, sent, kind, rows):
        return sent.part_scores(kind, rows)

    def _arc_scores(self, sent, arcs):
        scores = np.full((sent.n + 1, sent.n + 1), -np.inf)
        if len(arcs):
            scores[arcs[:, 0], arcs[:, 1]] = sent.arc_scores(np.asarray(arcs, dtype=np.int64))
        return scores

    def _update(self, sent, parts, step):
        for kind, rows in parts:
            sent.add_gradient(kind, rows, -step)

    def tick(self) -> None:
        """No averaging clock: the optimizer owns the parameters."""

    def average(self) -> None:
        """Nothing to average (see `tick`)."""


class NeuralVineLevel(NeuralScoring, VineLevel):
    pass


class NeuralFirstOrderLevel(NeuralScoring, FirstOrderLevel):
    pass


class NeuralSecondOrderLevel(NeuralScoring, SecondOrderLevel):
    pass


class NeuralThirdOrderLevel(NeuralScoring, ThirdOrderLevel):
    pass


def cap_heads(mask: np.ndarray, arc_mm: np.ndarray, k: int) -> np.ndarray:
    """`mask` with each column m keeping only its k allowed arcs of highest max-marginal (ties kept)."""
    crowded = np.flatnonzero(mask.sum(axis=0) > k)
    if len(crowded):
        values = np.where(mask[:, crowded], arc_mm[:, crowded], -np.inf)
        kth = -np.partition(-values, k - 1, axis=0)[k - 1]
        mask = mask.copy()
        mask[:, crowded] &= values >= kth
    return mask


NEURAL_LEVELS = {0: NeuralVineLevel, 1: NeuralFirstOrderLevel, 2: NeuralSecondOrderLevel,
                 3: NeuralThirdOrderLevel}


def check_orders(orders: Sequence[int]) -> tuple:
    """`orders` as a tuple, checked: increasing, from {0, 1, 2, 3}, ending in an Eisner order."""
    orders = tuple(orders)
    if not orders:
        raise ValueError("orders must name at least one level, e.g. [0, 1, 2, 3]")
    for order in orders:
        if isinstance(order, bool) or order not in NEURAL_LEVELS:
            raise ValueError(f"unknown cascade level {order!r} in orders: use 0 (vine), 1, 2 or 3")
    if list(orders) != sorted(set(orders)):
        raise ValueError(f"orders must be strictly increasing, got {list(orders)}")
    if orders[-1] == 0:
        raise ValueError("the last level must be an Eisner order (1, 2 or 3), not the vine")
    return orders


def neural_cascade(orders: Sequence[int], band: int, alphas: Sequence[float], max_heads=None) -> Cascade:
    """A `Cascade` of neural levels; `alphas` holds one a per pruning level."""
    orders = check_orders(orders)
    return Cascade([NEURAL_LEVELS[order](band, max_heads) for order in orders], alphas)
