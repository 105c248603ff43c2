"""Dependency labels for the cascade's trees: a hashed linear multiclass classifier over arc features.

For word m with head h in a tree, the label is

    argmax_l  sum_t  W[row_t(h, m), l]

over the N_TEMPLATES feature templates of `_kernels/label_features.pyx` (words, tags, coarse tags and
prefixes of h and m, their neighbours, the grandparent's tag, m's outermost children, direction and
distance), each hashed to one of `rows` feature rows; W is (rows, L), so a feature's weights for every label
sit together. `bits` sets the size: rows = 2^bits // L, so W has about 2^bits weights whatever the label
set. Trained after the cascade's levels on the gold trees as an averaged perceptron (Collins 2002), one
sentence at a time: every word whose predicted label is wrong moves its rows towards the gold label and
away from the predicted one. At parse time the labels of the predicted tree are read off in one pass.
Time O(n (N_TEMPLATES + L)) per sentence; memory 4 bytes a weight (float32 after training).
"""
import time
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from .._kernels.label_features import N_TEMPLATES, label_rows
from ..trees import is_decorated
from .encoding import Encoded
from .perceptron import AveragedWeights

__all__ = ["Labeler", "LABELER_BITS"]

LABELER_BITS = 22       # chosen on the dev LAS of the seven UD splits (2^20 before; issue 33)
MAX_BITS = 26           # 2^26 weights at most (float64 weights and totals while training: 1 GiB); a saved
                        # model asking for more is refused before allocating


class Labeler:
    """Predicts a label for every arc of a tree (see the module docstring).

    labels (Sequence[str]): the label set, in a fixed order (a label's index is its column of W).
    bits (int): about 2^bits weights in all (1 <= bits <= MAX_BITS).
    """

    def __init__(self, labels: Sequence[str], bits: int = LABELER_BITS) -> None:
        labels = [str(label) for label in labels]
        if not labels:
            raise ValueError("a labeller needs at least one label")
        if len(set(labels)) != len(labels):
            raise ValueError("the labeller's labels must be distinct")
        if not 1 <= bits <= MAX_BITS:
            raise ValueError(f"labeller bits must be in 1..{MAX_BITS}, got {bits}")
        self.labels = labels
        self.index = {label: k for k, label in enumerate(labels)}
        self.bits = bits
        self.rows = max(1, (1 << bits) // len(labels))
        self.weights = np.zeros((self.rows, len(labels)), dtype=np.float32)
        self._totals: Optional[np.ndarray] = None       # averaging: sum of step * update counter

    # -- prediction

    def features(self, sent: Encoded, heads: np.ndarray) -> np.ndarray:
        """The feature rows of every arc: int64 (n, N_TEMPLATES)."""
        return label_rows(sent.tokens, np.ascontiguousarray(heads, dtype=np.int64), self.rows)

    def scores(self, sent: Encoded, heads: np.ndarray) -> np.ndarray:
        """Label scores of every arc: (n, L); row m - 1 is word m's."""
        return self.weights[self.features(sent, heads)].sum(axis=1)

    def predict(self, sent: Encoded, heads: np.ndarray) -> np.ndarray:
        """The label of every word (object array of str, length n) for the tree `heads`. A word attached to the
        root never gets a decorated label ("label||head_label", see `vineparse.trees.deprojectivize`): lowering
        it would move the root under one of its own descendants."""
        names = np.asarray(self.labels, dtype=object)
        if sent.n == 0:
            return names[:0]
        scores = self.scores(sent, heads)
        decorated = np.array([is_decorated(label) for label in self.labels])
        if decorated.any() and not decorated.all():
            scores[np.ix_(np.asarray(heads[1:]) == 0, decorated)] = -np.inf
        return names[scores.argmax(axis=1)]

    # -- training

    def fit(self, sentences: Sequence[Encoded], trees: Sequence[np.ndarray], labels: Sequence[Sequence[str]],
            epochs: int = 5, seed: int = 0, report: Optional[Callable[[str], None]] = None) -> "Labeler":
        """Train on gold trees as an averaged perceptron (module docstring).

        sentences, trees, labels: per sentence its encoding, its heads (int64 (n + 1,)) and n gold labels,
            each in ``self.labels``.
        RETURNS (Labeler): self, with averaged float32 weights.
        RAISES (ValueError): for mismatched lengths or a label outside the label set.
        """
        if not len(sentences) == len(trees) == len(labels):
            raise ValueError(f"{len(sentences)} sentences, {len(trees)} trees and {len(labels)} label lists")
        gold = []
        for k, (sent, tree, names) in enumerate(zip(sentences, trees, labels)):
            if len(names) != sent.n or len(tree) != sent.n + 1:
                raise ValueError(f"sentence {k}: {sent.n} words, {len(tree) - 1} heads and {len(names)} labels")
            try:
                gold.append(np.array([self.index[str(name)] for name in names], dtype=np.int64))
            except KeyError as missing:
                raise ValueError(f"sentence {k}: label {missing} is not in the labeller's label set") from None
        rows = [self.features(sent, tree) for sent, tree in zip(sentences, trees)]
        averaged = AveragedWeights(self.weights)
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        for epoch in range(epochs):
            mistakes = words = 0
            for i in rng.permutation(len(rows)):
                if len(gold[i]):
                    predicted = averaged.weights[rows[i]].sum(axis=1).argmax(axis=1)
                    wrong = np.flatnonzero(predicted != gold[i])
                    if wrong.size:
                        r = rows[i][wrong]                                     # (w, T)
                        for column, step in ((gold[i][wrong], 1.0), (predicted[wrong], -1.0)):
                            averaged.add((r, np.broadcast_to(column[:, None], r.shape)), step)
                    mistakes += wrong.size
                    words += len(gold[i])
                averaged.tick()
            if report:
                report(f"labels: epoch {epoch + 1}/{epochs}: {mistakes:,} of {words:,} words wrong "
                       f"({time.perf_counter() - start:.0f}s)")
        self.weights = averaged.averaged()
        return self

    # -- saving and loading

    def to_dict(self) -> Dict:
        """Labels, size and the non-zero weights (flat indices uint32, values float32)."""
        flat = self.weights.ravel()
        nonzero = np.flatnonzero(flat).astype(np.uint32)
        return {"labels": list(self.labels), "bits": self.bits, "indices": nonzero, "values": flat[nonzero]}

    @classmethod
    def from_dict(cls, data: Dict) -> "Labeler":
        """RAISES (ValueError): naming what is malformed (checked before the weights are allocated)."""
        if not isinstance(data, dict):
            raise ValueError(f"the saved labeller must be a map, got {type(data).__name__}")
        missing = {"labels", "bits", "indices", "values"} - set(data)
        if missing:
            raise ValueError(f"the saved labeller lacks {', '.join(sorted(missing))}")
        labels, bits = data["labels"], data["bits"]
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            raise ValueError("the saved labeller's labels must be a list of strings")
        if not isinstance(bits, int) or isinstance(bits, bool):
            raise ValueError(f"the saved labeller's bits must be an integer, got {bits!r}")
        labeler = cls(labels, bits)
        labeler.weights.ravel()[...] = sparse_weights(data["indices"], data["values"], labeler.weights.size,
                                                      "labeller")
        return labeler


def sparse_weights(indices, values, size: int, what: str) -> np.ndarray:
    """A dense float32 vector of `size` from saved (indices, values), checked.

    RAISES (ValueError): for arrays of different lengths, indices outside 0..size-1 or non-finite values.
    """
    try:
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        values = np.asarray(values, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"the saved {what} weights are not numeric arrays ({error})") from None
    if indices.shape != values.shape:
        raise ValueError(f"the saved {what} has {indices.size} weight indices but {values.size} values")
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        raise ValueError(f"the saved {what} has weight indices outside 0..{size - 1}")
    if not np.isfinite(values).all():
        raise ValueError(f"the saved {what} has non-finite weights")
    out = np.zeros(size, dtype=np.float32)
    out[indices] = values
    return out
