"""`HashedScorer`: a linear model over hashed sparse features of parts (`_kernels/features.pyx`).

The scorer of the sparse `CascadeParser`: each level has its own weight vector of 2^bits hashed features,
read by the parts of `sent.tokens` (`encoding.Encoded`). It answers the structures' scorer calls
(`structures.py`) and takes perceptron / MIRA updates with averaging.

The weights are float64 (with the averaging totals beside them) while the level trains, and float32 once
`average` has run: half the memory, and twice as many weights per cache line for the scorer's random reads.
An update after that turns them back into float64.
"""
from typing import Optional

import numpy as np

from .._kernels.features import score_parts, update_parts
from .encoding import Encoded
from .structures import ARC, Parts, full_mask


class HashedScorer:
    """A linear model over hashed part features.

    bits (int): log2 of the number of hashed feature weights.
    """

    def __init__(self, bits: int = 20):
        self.bits = bits
        self.weights = np.zeros(1 << bits)
        self.totals: Optional[np.ndarray] = np.zeros(1 << bits)   # for averaging: sum of timestamp * step
        self.updates = 0.0                                        # the averaging timestamp

    def part_scores(self, sent: Encoded, kind: int, rows: np.ndarray) -> np.ndarray:
        """Scores of parts of one kind, float64 (P,); arcs (h, m) plus `sent.cost[h, m]` when set."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        scores = score_parts(kind, sent.tokens, rows, self.weights)
        if kind == ARC and sent.cost is not None and len(rows):
            scores = scores + sent.cost[rows[:, 0], rows[:, 1]]
        return scores

    def arc_scores(self, sent: Encoded, mask) -> np.ndarray:
        """A dense (n + 1, n + 1) score matrix, -inf outside `mask` (None: every arc), plus `sent.cost` when
        set."""
        n = sent.n
        arcs = np.argwhere(full_mask(n) if mask is None else mask)
        scores = np.full((n + 1, n + 1), -np.inf)
        if len(arcs):
            scores[arcs[:, 0], arcs[:, 1]] = self.part_scores(sent, ARC, arcs)
        return scores

    def update(self, sent: Encoded, parts: Parts, step: float) -> None:
        """weights += step * features(parts), recorded for averaging."""
        if self.weights.dtype != np.float64:          # averaged and compacted: train on in float64
            self.weights = self.weights.astype(np.float64)
        if self.totals is None or len(self.totals) != len(self.weights):
            self.totals = np.zeros_like(self.weights)
        for kind, rows in parts:
            update_parts(kind, sent.tokens, np.ascontiguousarray(rows, dtype=np.int64),
                         self.weights, step, self.totals, self.updates)

    def tick(self) -> None:
        """Advance the averaging clock by one training example."""
        self.updates += 1.0

    def average(self) -> None:
        """Replace the weights by their average over the training updates, as float32 (the averaging totals
        are released)."""
        if self.updates > 0 and self.totals is not None:
            self.weights = self.weights - self.totals / self.updates
        self.weights = self.weights.astype(np.float32)
        self.totals = None
        self.updates = 0.0
