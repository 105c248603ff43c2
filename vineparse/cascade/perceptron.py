"""Averaged perceptron weights (Collins 2002) for the cascade's linear classifiers (`labeler.py`, `lowering.py`).

The average over every training step is kept without summing the weights at each step: `totals` collects each
update times the step it was made at, and the average after `clock` steps is weights - totals / clock.
Weights and totals are float64 while training; `averaged` gives float32 weights of the same shape.
"""
import numpy as np

__all__ = ["AveragedWeights"]


class AveragedWeights:
    """weights (np.ndarray): the starting weights (copied to float64), any shape."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights.astype(np.float64)
        self.totals = np.zeros_like(self.weights)
        self.clock = 1

    def add(self, index, step: float) -> None:
        """Add `step` to the weights at `index` (anything `np.add.at` takes; repeated entries add up)."""
        np.add.at(self.weights, index, step)
        np.add.at(self.totals, index, step * self.clock)

    def tick(self) -> None:
        """One training step (one example) has passed."""
        self.clock += 1

    def averaged(self) -> np.ndarray:
        """The average of the weights over the steps so far, float32."""
        return (self.weights - self.totals / self.clock).astype(np.float32)
