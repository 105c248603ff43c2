"""The training losses of one sentence, as gradients of its neural part scores.

For a sentence with projectivized gold tree y and the cascade's levels 0..K:

* arcs: head-selection cross-entropy, -sum_m log softmax_h s(h, m) at h = y(m) (a dense, well-conditioned
  signal for the biaffine scorer shared by every level);
* the vine (level 0), when there is one: also a cost-augmented structured hinge on vine structures, so that
  its best structure, whose ROOT words split documents without sentence boundaries, is accurate too;
* pruning levels k < K: the structured cascade loss [1 - score_k(y) + t_a]_+ of Weiss & Taskar (2010), by
  `vineparse.cascade.training._cascade_step` on the mask the levels before k leave;
* the last level: the cost-augmented structured hinge (Taskar et al. 2004) under the cascade's mask plus the
  gold arcs, max_y' [score(y') + hamming(y, y')] - score(y), with hamming counting wrong heads;
* labels: cross-entropy of the gold (decorated) label of each gold arc; labels never seen in `initialize`
  are left out of the loss and counted.

The structured losses (cascade and hinges) are weighted by `structured_weight` against the two
cross-entropies: their subgradients are sums of +-1 over whole structures, and unweighted they would dominate
what a shared tok2vec learns. Each loss adds d loss / d part score to the sentence's `SentenceScores`; `SentenceScores.backward` turns them
into d loss / d Z. Cost: one cascade run plus the forced decodes of the cascade steps.
"""
from dataclasses import dataclass

import numpy as np

from .. import kernels
from ..cascade.levels import VineLevel
from ..cascade.training import Example, TrainingSettings, _cascade_step
from ..kernels._checks import NoStructureError
from .parts import SentenceScores


@dataclass
class SentenceLoss:
    """The parts of one sentence's loss, and what was left out."""

    arcs: float = 0.0
    cascade: int = 0          # pruning levels with a positive cascade loss
    hinge: float = 0.0
    labels: float = 0.0
    unseen_labels: int = 0

    @property
    def total(self) -> float:
        return self.arcs + self.hinge + self.labels


def head_selection_loss(sent: SentenceScores, heads: np.ndarray) -> float:
    """-sum_m log P(y(m) | m) with P a softmax over the possible heads of m; adds its gradient."""
    n = sent.n
    scores = sent.dense_arcs().copy()
    np.fill_diagonal(scores, -np.inf)
    scores = scores[:, 1:]
    scores = scores - scores.max(axis=0, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=0, keepdims=True)
    m = np.arange(n)
    loss = -float(np.log(np.maximum(probs[heads[1:], m], 1e-30)).sum())
    probs[heads[1:], m] -= 1.0
    d_arcs = np.zeros((n + 1, n + 1))
    d_arcs[:, 1:] = probs
    sent.add_arc_gradient(d_arcs)
    return loss


def gold_arc_mask(mask, heads: np.ndarray):
    """`mask` with the gold arcs added (None stays None: every arc)."""
    if mask is None:
        return None
    out = mask.copy()
    out[heads[1:], np.arange(1, len(heads))] = True
    return out


def hinge_loss(level, sent: SentenceScores, heads: np.ndarray, mask) -> float:
    """Cost-augmented structured hinge of the last level; adds its subgradient."""
    n = sent.n
    cost = np.ones((n + 1, n + 1))
    cost[heads[1:], np.arange(1, n + 1)] = 0.0
    sent.cost = cost
    try:
        predicted = level.decode(sent, gold_arc_mask(mask, heads))
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
    gold_heads, gold_attach = level.vine_structure(heads)
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
    margin = (level.score_structure(sent, pred_heads, pred_attach) + float(wrong.sum())
              - level.score_structure(sent, gold_heads, gold_attach))
    level.update_structure(sent, gold_heads, gold_attach, 1.0)
    level.update_structure(sent, pred_heads, pred_attach, -1.0)
    return max(margin, 0.0)


def label_loss(sent: SentenceScores, heads: np.ndarray, labels: np.ndarray):
    """Cross-entropy of the known gold labels (label id -1 = unseen). RETURNS (loss, unseen count,
    (heads, mods, d logits) for `SentenceScores.backward`)."""
    mods = np.flatnonzero(labels[1:] >= 0) + 1
    unseen = len(heads) - 1 - len(mods)
    if not len(mods):
        return 0.0, unseen, None
    probs = sent.label_probabilities(heads[mods], mods)
    rows = np.arange(len(mods))
    loss = -float(np.log(np.maximum(probs[rows, labels[mods]], 1e-30)).sum())
    probs[rows, labels[mods]] -= 1.0
    return loss, unseen, (heads[mods], mods, probs.astype(np.float32))


def sentence_loss(cascade, sent: SentenceScores, heads: np.ndarray, labels: np.ndarray,
                  settings: TrainingSettings, rng, structured_weight: float = 1.0, label_weight: float = 1.0):
    """All losses of one sentence. heads: projective gold tree (int64, n + 1); labels: label ids (n + 1,),
    -1 where unseen; label_weight multiplies the label cross-entropy (and its gradient). RETURNS
    (SentenceLoss, label gradient or None)."""
    result = SentenceLoss()
    result.arcs = head_selection_loss(sent, heads)
    sent.gradient_scale = structured_weight
    if isinstance(cascade.levels[0], VineLevel) and len(cascade.levels) > 1:
        result.hinge += vine_hinge_loss(cascade.levels[0], sent, heads)
    example = Example(sent, heads, heads)
    mask = None
    for k, level in enumerate(cascade.levels[:-1]):
        try:
            result.cascade += _cascade_step(level, example, mask, settings, rng)
            pruned = cascade.prune(k, sent, mask)
        except NoStructureError:
            continue          # this level's input mask admits no structure: keep the mask before it
        mask = pruned
    result.hinge += hinge_loss(cascade.levels[-1], sent, heads, mask)
    sent.gradient_scale = 1.0
    result.hinge *= structured_weight
    result.labels, result.unseen_labels, label_grad = label_loss(sent, heads, labels)
    if label_weight != 1.0 and label_grad is not None:
        result.labels *= label_weight
        label_grad = (label_grad[0], label_grad[1], label_grad[2] * np.float32(label_weight))
    return result, label_grad

