"""How sure `vine_cascade` is of each arc: head and label probabilities, their calibration, sampled trees.

The arc scorer is trained as a first-order tree CRF (`objective.tree_crf_loss`: log Z - s(y) over projective
trees), so its arc marginals p(h -> m) = sum over trees containing the arc of p(tree), p(tree) ∝ exp(s(tree) /
T), are the component's probabilistic reading of a sentence: `head_prob` of a word is the marginal of its
predicted head (the head the cascade's last level chose), its distribution over heads the marginals of its
column. The higher-order levels are trained by margin losses, whose scores are not probabilities, so they
are not used here. The label classifier is a softmax (cross-entropy), `dep_prob` is the probability of the
predicted label given the predicted head, at temperature T_l.

Temperatures are set on held-out sentences, as the pruning thresholds are (`TemperatureTracker`): while
training, from the component's held-out share, and by `calibrate` on held-out data. The head temperature
minimises the log loss of "the predicted head is right" under the marginal; the label temperature the log
loss of the gold label given the gold head. The predicted head comes from the cascade's last level, not from
the first-order model whose marginal it is, so one temperature leaves its probability too low where the
marginal is low; `calibrate` therefore also fits a logistic map of the marginal m at that temperature,
head_prob = sigmoid(a logit(m) + b) (Platt 1999), on the same held-out arcs (`fit_logistic`; [1, 0] until
then). The map is increasing, so the order of the arcs by confidence is the marginals'. A word's distribution
over heads stays the marginals of its column. Work: one first-order inside-outside pass per sentence,
O(n^3), and one read of its columns, O(n^2), in one compiled call per batch (`_kernels/head_columns.pyx`), and
a softmax per arc.

Why not the last level's own marginals: on EWT (the comparison's seed-0 pipeline) the third-order level's arc
marginals on its pruned mask rank arcs worse (UAS of the 80% most confident 94.5 at the best temperature,
against 95.3 for these) and are certain wherever pruning left a word one head.
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np
from scipy.special import expit

from .. import kernels

TEMPERATURES = tuple(float(t) for t in np.round(2.0 ** np.arange(-2.0, 2.01, 0.25), 4))   # 0.25 .. 4
DISTRIBUTION_FLOOR = 0.01      # a word's distribution over heads keeps the heads of at least this probability
EPSILON = 1e-12


def head_marginals(dense: Sequence[np.ndarray], temperature: float) -> List[np.ndarray]:
    """Arc marginals (n + 1, n + 1) of the first-order tree CRF over each sentence's dense arc scores divided by
    `temperature` (single-rooted projective trees)."""
    if not dense:
        return []
    return kernels.eisner_marginals_batch([np.asarray(scores) / temperature for scores in dense])[1]


def head_distribution(marginals: np.ndarray, m: int, floor: float = DISTRIBUTION_FLOOR) -> List[Tuple[int, float]]:
    """Word m's heads of marginal >= floor (0 = the root), most probable first: [(head, probability)]."""
    column = marginals[:, m]
    heads = np.flatnonzero(column >= floor)
    order = heads[np.argsort(-column[heads], kind="stable")]
    return [(int(h), float(column[h])) for h in order]


def logit(probs: np.ndarray) -> np.ndarray:
    """log p - log (1 - p), with p clipped to [EPSILON, 1 - EPSILON]."""
    probs = np.clip(np.asarray(probs, dtype=np.float64), EPSILON, 1.0 - EPSILON)
    return np.log(probs) - np.log1p(-probs)


def logistic_map(probs: np.ndarray, scaling: Sequence[float]) -> np.ndarray:
    """sigmoid(a logit(p) + b) of each p, scaling = (a, b); (1, 0) gives p back (up to the clipping)."""
    a, b = scaling
    if a == 1.0 and b == 0.0:
        return np.asarray(probs, dtype=np.float64)
    return expit(a * logit(probs) + b)


def fit_logistic(probs: np.ndarray, correct: np.ndarray, iterations: int = 50) -> Tuple[float, float]:
    """The (a, b) of least log loss of `correct` under sigmoid(a logit(p) + b) (Newton's method on the two
    parameters; a kept > 0 so the map is increasing). (1, 0) when the outcomes do not vary."""
    x, y = logit(probs), np.asarray(correct, dtype=np.float64)
    if len(x) == 0 or y.min() == y.max():
        return 1.0, 0.0
    a, b = 1.0, 0.0
    for _ in range(iterations):
        p = expit(a * x + b)
        w = np.maximum(p * (1.0 - p), EPSILON)
        gradient = np.array([np.dot(p - y, x), np.sum(p - y)])
        hessian = np.array([[np.dot(w, x * x), np.dot(w, x)], [np.dot(w, x), np.sum(w)]])
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    if not (np.isfinite(a) and np.isfinite(b)) or a <= 0.0:
        return 1.0, 0.0
    return float(a), float(b)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of logits / temperature (-inf logits get 0)."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    probs = np.exp(scaled)
    return probs / probs.sum(axis=1, keepdims=True)


def top_probability(logits: np.ndarray, best: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """The softmax probability of logits / temperature at column best[i] of each row i, (A,): 1 / sum_j
    exp((logits[i, j] - logits[i, best[i]]) / temperature), in the logits' precision (-inf logits count 0)."""
    inverse = logits.dtype.type(1.0 / temperature)
    scaled = np.multiply(logits, inverse)
    scaled -= scaled[np.arange(len(best)), best][:, None]
    np.exp(scaled, out=scaled)
    return 1.0 / (scaled @ np.ones(scaled.shape[1], dtype=scaled.dtype))     # a row sum, as one BLAS call


def binary_log_loss(probs: np.ndarray, correct: np.ndarray) -> float:
    """Sum of -log p where correct, -log (1 - p) where not."""
    probs = np.clip(probs, EPSILON, 1.0 - EPSILON)
    return float(-np.where(correct, np.log(probs), np.log1p(-probs)).sum())


class TemperatureTracker:
    """Decayed log losses of head and label probabilities at every temperature of `grid`, from held-out
    sentences (see the module docstring); `temperatures` picks the best of each.

    grid (Sequence[float]): temperatures tried. decay (float): each `decay()` multiplies what was seen by it.
    keep (bool): also keep every observed head marginal at every temperature, for `head_scaling`.
    """

    def __init__(self, grid: Sequence[float] = TEMPERATURES, decay: float = 0.5, keep: bool = False):
        self.grid = tuple(grid)
        self.decay_factor = decay
        self.kept: Optional[List[List[np.ndarray]]] = [[] for _ in self.grid] if keep else None
        self.kept_correct: List[np.ndarray] = []
        self.head_loss = np.zeros(len(self.grid))
        self.label_loss = np.zeros(len(self.grid))
        self.head_arcs = 0.0
        self.label_arcs = 0.0

    def observe_heads(self, dense: Sequence[np.ndarray], predicted: Sequence[np.ndarray],
                      gold: Sequence[np.ndarray]) -> None:
        """Sentences' dense arc scores, predicted trees and gold trees (int64 (n + 1,) each)."""
        if not dense:
            return
        for k, temperature in enumerate(self.grid):
            for marginals, heads, truth in zip(head_marginals(dense, temperature), predicted, gold):
                m = np.arange(1, len(heads))
                self.head_loss[k] += binary_log_loss(marginals[heads[1:], m], heads[1:] == truth[1:])
                if self.kept is not None:
                    self.kept[k].append(marginals[heads[1:], m])
        if self.kept is not None:
            self.kept_correct += [heads[1:] == truth[1:] for heads, truth in zip(predicted, gold)]
        self.head_arcs += sum(len(heads) - 1 for heads in predicted)

    def observe_labels(self, logits: np.ndarray, gold: np.ndarray) -> None:
        """Label logits (A, L) of gold arcs and their gold label ids (A,)."""
        if not len(gold):
            return
        rows = np.arange(len(gold))
        for k, temperature in enumerate(self.grid):
            self.label_loss[k] -= float(np.log(np.maximum(softmax(logits, temperature)[rows, gold], EPSILON)).sum())
        self.label_arcs += len(gold)

    def decay(self) -> None:
        for name in ("head_loss", "label_loss", "head_arcs", "label_arcs"):
            setattr(self, name, getattr(self, name) * self.decay_factor)

    def head_scaling(self) -> Optional[Tuple[float, float]]:
        """`fit_logistic` over the kept marginals at the head temperature of least log loss (None when the
        tracker keeps none)."""
        if self.kept is None or not self.kept_correct:
            return None
        best = int(np.argmin(self.head_loss))
        return fit_logistic(np.concatenate(self.kept[best]), np.concatenate(self.kept_correct))

    def temperatures(self, min_arcs: float = 50.0) -> Tuple[Optional[float], Optional[float]]:
        """The head and label temperatures of least log loss; None where fewer than `min_arcs` were seen."""
        head = self.grid[int(np.argmin(self.head_loss))] if self.head_arcs >= min_arcs else None
        label = self.grid[int(np.argmin(self.label_loss))] if self.label_arcs >= min_arcs else None
        return head, label


def calibration_error(probs: np.ndarray, correct: np.ndarray, bins: int = 10) -> Tuple[float, List[dict]]:
    """Expected calibration error (Naeini et al. 2015; Guo et al. 2017) of probabilities against outcomes: the
    mean over equal-width bins of |accuracy - mean confidence|, weighted by the bin's share; and the
    reliability diagram's rows per bin (count, mean confidence, accuracy)."""
    probs, correct = np.asarray(probs, dtype=np.float64), np.asarray(correct, dtype=bool)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.searchsorted(edges, probs, side="right") - 1, 0, bins - 1)
    rows, error = [], 0.0
    for b in range(bins):
        inside = which == b
        count = int(inside.sum())
        confidence = float(probs[inside].mean()) if count else None
        accuracy = float(correct[inside].mean()) if count else None
        if count:
            error += count / len(probs) * abs(accuracy - confidence)
        rows.append({"low": float(edges[b]), "high": float(edges[b + 1]), "count": count,
                     "confidence": confidence, "accuracy": accuracy})
    return float(error), rows


def coverage_accuracy(probs: np.ndarray, correct: np.ndarray, shares: Sequence[float]) -> List[dict]:
    """Accuracy of the most confident arcs: for each share s, the accuracy of the s most probable arcs."""
    order = np.argsort(-np.asarray(probs), kind="stable")
    correct = np.asarray(correct, dtype=bool)[order]
    rows = []
    for share in shares:
        kept = max(1, int(round(share * len(order))))
        rows.append({"coverage": float(share), "arcs": kept, "accuracy": float(correct[:kept].mean()),
                     "threshold": float(np.asarray(probs)[order[kept - 1]])})
    return rows


# -- on the Doc: Doc._.vine_confidence holds the arrays, the Token extensions read them


def register_extensions() -> None:
    """`Doc._.vine_confidence` (None, or what `doc_confidence` returns) and, read from it, `Token._.head_prob`,
    `Token._.dep_prob` (floats, or None when the component parsed without confidences) and
    `Token._.head_distribution` (list of (head token, probability), most probable first; the token itself
    stands for the root, as spaCy's heads do). Registered once; an existing registration is kept."""
    from spacy.tokens import Doc, Token

    if not Doc.has_extension("vine_confidence"):
        Doc.set_extension("vine_confidence", default=None)
    for name, getter in (("head_prob", _head_prob), ("dep_prob", _dep_prob),
                         ("head_distribution", _head_distribution)):
        if not Token.has_extension(name):
            Token.set_extension(name, getter=getter)


def doc_confidence(head: np.ndarray, dep: np.ndarray, offsets: np.ndarray, heads: np.ndarray,
                   probs: np.ndarray) -> dict:
    """The value of `Doc._.vine_confidence` for a doc of n tokens: head and label probabilities (n,), and each
    token's distribution over heads in compressed rows: token i's heads are heads[offsets[i]:offsets[i + 1]]
    (token indices; i itself for the root) with probabilities probs[...]. Stored as given, so give them in
    the dtypes srsly serialises compactly with the doc's user data: float32 probabilities, int32 offsets and
    heads (the component builds them so)."""
    return {"head": head, "dep": dep, "offsets": offsets, "heads": heads, "probs": probs}


def set_doc_confidence(doc, value: Optional[dict]) -> None:
    """`doc._.vine_confidence = value`, written where spaCy's `Underscore` keeps a Doc extension's value (its
    user_data key), without building an `Underscore` per doc."""
    doc.user_data[("._.", "vine_confidence", None, None)] = value


def _found(token):
    found = token.doc._.vine_confidence
    return None if found is None or len(found["head"]) != len(token.doc) else found


def _head_prob(token) -> Optional[float]:
    found = _found(token)
    return None if found is None else float(found["head"][token.i])


def _dep_prob(token) -> Optional[float]:
    found = _found(token)
    return None if found is None else float(found["dep"][token.i])


def _head_distribution(token) -> Optional[list]:
    found = _found(token)
    if found is None:
        return None
    start, end = found["offsets"][token.i], found["offsets"][token.i + 1]
    return [(token.doc[int(h)], float(p)) for h, p in zip(found["heads"][start:end], found["probs"][start:end])]
