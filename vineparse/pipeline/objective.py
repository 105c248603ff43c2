"""The training losses of one sentence, as gradients of its part scores.

For a sentence with projectivized gold tree y and the cascade's levels 0..K:

* arcs, shared by every level: the first-order tree CRF, log Z - s(y), with its gradient the arc marginals
  minus the gold arcs (`kernels.eisner_marginals`: a globally normalised, well-conditioned signal for the
  biaffine scorer);
* the vine (level 0), when there is one: also a cost-augmented structured hinge on vine structures, so that
  its best structure, whose ROOT words split documents without sentence boundaries, is accurate too;
* pruning levels k < K: the structured cascade loss [1 - score_k(y) + t_a]_+ of Weiss & Taskar (2010), by
  `vineparse.cascade.objective.cascade_step`, on the mask the levels before k leave at the cascade's
  current thresholds (the masks it predicts with), which `thresholds.RecallTracker` sets as training goes
  from held-out sentences (`training.py`);
* the last level: the cost-augmented structured hinge (Taskar et al. 2004) under the cascade's mask plus the
  gold arcs, max_y' [score(y') + hamming(y, y')] - score(y), with hamming counting wrong heads.

Labels are learnt for a whole batch at once (`training.py`). The structured losses (cascade and hinges) are
weighted by `structured_weight` against the arc loss: their subgradients are sums of +-1 over whole
structures. Each loss adds d loss / d part score to the sentence's `SentenceScores`. Cost: one cascade run
plus the forced decodes of the cascade steps, and O(n^3) for the tree CRF.
"""
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..cascade.objective import cascade_step, pruning_max_marginals
from ..cascade.structures import full_mask
from .parts import SentenceScores


@dataclass
class SentenceLoss:
    """The parts of one sentence's loss."""

    arcs: float = 0.0
    cascade: int = 0          # pruning levels with a positive cascade loss
    hinge: float = 0.0

    @property
    def total(self) -> float:
        return self.arcs + self.hinge


def tree_crf_loss(sent: SentenceScores, heads: np.ndarray) -> float:
    """log Z - s(y) over projective single-root trees (the gold tree must be one); adds its gradient, the
    arc marginals minus the gold arcs. O(n^3)."""
    n = sent.n
    scores = sent.dense_arcs()
    log_z, marginals = kernels.eisner_marginals(scores)
    m = np.arange(1, n + 1)
    d_arcs = marginals.copy()
    d_arcs[heads[1:], m] -= 1.0
    sent.add_arc_gradient(d_arcs)
    return max(float(log_z - scores[heads[1:], m].sum()), 0.0)


def bounded_mask(mask, sent: SentenceScores, heads: np.ndarray, cap) -> np.ndarray:
    """`mask` (None: every arc) with the gold arcs added and at most `cap` heads per word (None: no bound): a word
    that keeps more keeps its gold head and the cap - 1 others of highest arc score (the nearest first among
    equal scores). The pruning levels' head caps keep ties, and an untrained scorer ties every max-marginal, so
    without this bound a long sentence early in training reaches the last level with every arc (third order:
    O(n^4) parts). O(n^2 log n)."""
    n = sent.n
    allowed = full_mask(n) if mask is None else mask.copy()
    words = np.arange(1, n + 1)
    allowed[heads[1:], words] = True
    if cap is None or not (allowed[:, 1:].sum(axis=0) > cap).any():
        return allowed
    positions = np.arange(n + 1)
    distance = np.abs(positions[:, None] - positions[None, :]).astype(np.float64)
    order = np.lexsort((distance, -np.where(allowed, sent.dense_arcs(), -np.inf)), axis=0)   # best first, per word
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, positions[:, None].repeat(n + 1, axis=1), axis=0)
    bounded = allowed & (rank < cap - 1)
    bounded[heads[1:], words] = True
    return bounded


def hinge_loss(level, sent: SentenceScores, heads: np.ndarray, mask) -> float:
    """Cost-augmented structured hinge of the last level on `mask` with the gold arcs and the level's head cap
    (`bounded_mask`); adds its subgradient."""
    n = sent.n
    cost = np.ones((n + 1, n + 1))
    cost[heads[1:], np.arange(1, n + 1)] = 0.0
    sent.cost = cost
    try:
        predicted = level.decode(sent, bounded_mask(mask, sent, heads, level.head_cap))
    finally:
        sent.cost = None
    if np.array_equal(predicted, heads):
        return 0.0
    margin = level.score(sent, predicted) + float((predicted[1:] != heads[1:]).sum()) - level.score(sent, heads)
    level.update(sent, heads, 1.0)
    level.update(sent, predicted, -1.0)
    return max(margin, 0.0)


def vine_hinge_loss(level, sent: SentenceScores, heads: np.ndarray) -> float:
    """Cost-augmented structured hinge of the vine on the gold tree's vine structure (hamming over words'
    (short head or vine label)); adds its subgradient."""
    n = sent.n
    gold_heads, gold_attach = level.structure.vine_structure(heads)
    cost = np.ones((n + 1, n + 1))
    words = np.arange(1, n + 1)
    on_arc = (gold_attach[1:] == kernels.ATTACH_SHORT) | (gold_attach[1:] == kernels.ATTACH_ROOT)
    cost[gold_heads[1:][on_arc], words[on_arc]] = 0.0
    outer_cost = np.ones((n + 1, 2))
    outer_cost[words, 0] = gold_attach[1:] != kernels.ATTACH_OUTER_LEFT
    outer_cost[words, 1] = gold_attach[1:] != kernels.ATTACH_OUTER_RIGHT
    sent.cost, sent.outer_cost = cost, outer_cost
    try:
        pred_heads, pred_attach = level.decode(sent)
    finally:
        sent.cost, sent.outer_cost = None, None
    wrong = (pred_heads[1:] != gold_heads[1:]) | (pred_attach[1:] != gold_attach[1:])
    if not wrong.any():
        return 0.0
    margin = (level.score(sent, pred_heads, pred_attach) + float(wrong.sum())
              - level.score(sent, gold_heads, gold_attach))
    level.update(sent, gold_heads, 1.0, gold_attach)
    level.update(sent, pred_heads, -1.0, pred_attach)
    return max(margin, 0.0)


def sentence_loss(cascade, sent: SentenceScores, heads: np.ndarray, train_alpha: float, witnesses: int, rng,
                  structured_weight: float) -> SentenceLoss:
    """All losses of one sentence but its labels'. heads: projective gold tree (int64, n + 1); train_alpha,
    witnesses: the cascade loss's a and sampled witness parts (`vineparse.cascade.objective.cascade_step`);
    structured_weight: the `CascadeSettings` setting."""
    result = SentenceLoss()
    result.arcs = tree_crf_loss(sent, heads)
    sent.gradient_scale = structured_weight
    if cascade.levels[0].is_vine and len(cascade.levels) > 1:
        result.hinge += vine_hinge_loss(cascade.levels[0], sent, heads)
    example = GoldTree(sent, heads)
    steps, mask = pruning_max_marginals(cascade, sent)       # the masks the cascade predicts with
    for level, (level_mask, found) in zip(cascade.levels, steps):
        if found is not None:        # None: this level's input mask admits no structure (the cascade falls back)
            result.cascade += cascade_step(level, example, level_mask, train_alpha, witnesses, rng, found)
    result.hinge += hinge_loss(cascade.levels[-1], sent, heads, mask)
    sent.gradient_scale = 1.0
    result.hinge *= structured_weight
    return result


@dataclass
class GoldTree:
    """A sentence's scores and its projective gold tree, as the cascade objective takes them."""

    sent: SentenceScores
    heads: np.ndarray
