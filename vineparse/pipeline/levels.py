"""Neural cascade levels: the cascade's own levels (`vineparse.cascade.levels`) with neural part scores.

The sparse levels ask three things of their linear model: `_score(sent, kind, rows)` (part scores),
`_arc_scores(sent, arcs)` (a dense arc matrix, -inf outside `arcs`) and `_update(sent, parts, step)`. Here
`sent` is a `parts.SentenceScores` and those three are answered from it (and `_masked_arc_scores`, a
dense matrix under a mask, from the sentence's dense arc scores); everything else (max-marginals,
pruning, decoding with forced parts, the parts of a structure) is inherited unchanged, so the runner
`Cascade`, `training._cascade_step` and `training.choose_alpha` work on these levels as they are.

`parse_pieces` is the one prediction loop over a batch's pieces (the seam for a compiled cascade runtime);
training's loop over levels is `objective.sentence_loss`, its thresholds `thresholds.RecallTracker`.

`update(sent, heads, step)` moves the scores of the structure's parts by `step` through the gradient: it adds
-step to d loss / d part score (a perceptron step of +1 on gold is a gradient of -1), and the component
backpropagates those gradients into the thinc model.
"""
from typing import Optional, Sequence

import numpy as np

from .. import kernels
from .._kernels.neural_scorer import NeuralScorer
from ..cascade.cascade import Cascade
from .scorers import DISTANCE_EDGES, HEAD_COLUMN, SIBLING_COLUMN
from ..cascade.levels import (ARC, GRAND_SIBLING, GRANDPARENT, SIBLING, FirstOrderLevel, SecondOrderLevel,
                              ThirdOrderLevel, VineLevel, arc_rows, full_mask)

MEMO_LIMIT = 256        # the vine's memoized max-marginals are kept for sentences of at most this many words


class NeuralScoring:
    """Answers a cascade level's scoring calls from the sentence's neural part scores.

    band (int): the vine's longest short arc (read by the vine level only).
    max_heads (int or None): an Eisner-order pruning level keeps at most this many heads per word (those of
        highest max-marginal; the best tree's arcs always survive), so the next level's work is bounded
        even where the threshold alone keeps too much (long or badly scored sentences).

    Max-marginals are memoized on the sentence per level and input mask (the same mask object) while no
    cost is set: a sentence's scores do not change while it is parsed or while a batch's losses are
    computed, and training asks for them twice per level (the cascade loss, then the pruning).
    """

    def __init__(self, band: int = 5, max_heads=None):
        self.band = band
        self.head_cap = max_heads   # read by the Eisner levels' `prune_mask`; the vine's ignores it

    def max_marginals(self, sent, mask=None, *masks):
        if not (self._uncosted(sent) and all(m is None for m in masks)):
            return super().max_marginals(sent, mask, *masks)
        key = self._memo_key(mask)
        hit = sent.max_marginal_memo.get(key)
        if hit is not None and hit[0] is mask:
            return hit[1]
        result = super().max_marginals(sent, mask, *masks)
        sent.max_marginal_memo[key] = (mask, result)
        return result

    @staticmethod
    def _uncosted(sent) -> bool:
        return sent.cost is None and sent.outer_cost is None

    def _memo_key(self, mask):
        return (self.name, id(mask))

    def memoized(self, sent):
        """The unmasked max-marginals memoized on `sent` (by `max_marginals` or the vine's `memoize`), or None;
        never computes them."""
        if not self._uncosted(sent):
            return None
        hit = sent.max_marginal_memo.get(self._memo_key(None))
        return hit[1] if hit is not None and hit[0] is None else None

    def _score(self, sent, kind, rows):
        return sent.part_scores(kind, rows)

    def _arc_scores(self, sent, arcs):
        scores = np.full((sent.n + 1, sent.n + 1), -np.inf)
        if len(arcs):
            scores[arcs[:, 0], arcs[:, 1]] = sent.arc_scores(np.asarray(arcs, dtype=np.int64))
        return scores

    def _masked_arc_scores(self, sent, mask):
        dense = sent.dense_arcs() if sent.cost is None else sent.dense_arcs() + sent.cost
        return np.where(full_mask(sent.n) if mask is None else mask, dense, -np.inf)

    def _update(self, sent, parts, step):
        for kind, rows in parts:
            sent.add_gradient(kind, rows, -step)

    def tick(self) -> None:
        """No averaging clock: the optimizer owns the parameters."""

    def average(self) -> None:
        """Nothing to average (see `tick`)."""


class NeuralVineLevel(NeuralScoring, VineLevel):
    """The vine on neural scores. `best_structure` finds the best vine structure from the max-marginals
    (memoized on the sentence, see `NeuralScoring`), so that a cascade run on the same sentence does not
    repeat the vine pass (prediction splits a doc with the vine, then parses it)."""

    @staticmethod
    def _memoizable(sent, memo_limit: int) -> bool:
        return sent.n <= memo_limit and NeuralScoring._uncosted(sent)

    def _memo(self, sent, memo_limit: int):
        """The unmasked vine max-marginals of `sent`; None past `memo_limit` words or while a cost is set."""
        return self.max_marginals(sent) if self._memoizable(sent, memo_limit) else None

    def memoize(self, sents, memo_limit: int = MEMO_LIMIT) -> None:
        """Compute the unmasked vine max-marginals of many sentences in one batched kernel call (the
        per-sentence `max_marginals` pays a Python round trip each) and memoize them on the sentences, as
        `max_marginals` would; sentences past `memo_limit` words, with a cost set or already memoized are
        left alone."""
        key = self._memo_key(None)
        todo = [sent for sent in sents if self._memoizable(sent, memo_limit) and self.memoized(sent) is None]
        if not todo:
            return
        # the dense scores as they are: the vine reads only their short and ROOT arcs, which `_inputs` keeps
        best, marginals = kernels.vine_max_marginals_batch([sent.dense_arcs() for sent in todo],
                                                           [sent.outer for sent in todo], self.band)
        for sent, value, (arc_mm, outer_mm) in zip(todo, best, marginals):
            sent.max_marginal_memo[key] = (None, (float(value), arc_mm, outer_mm))

    def at_most_one_root(self, sent, memo_limit: int = MEMO_LIMIT, rtol: float = 1e-9) -> bool:
        """True if no best vine structure of `sent` has two ROOT words: at most one word's ROOT max-marginal
        reaches the best score (within rtol x max(1, |best|)); a ROOT word of a best structure has its
        ROOT max-marginal equal to the best score. Then the vine makes `sent` one sentence. False (not
        known) past `memo_limit` words."""
        result = self._memo(sent, memo_limit)
        if result is None:
            return False
        best, arc_mm, _ = result
        return int(np.count_nonzero(arc_mm[0, 1:] >= best - rtol * max(1.0, abs(best)))) <= 1

    def best_structure(self, sent, memo_limit: int = MEMO_LIMIT):
        """The best vine structure (heads, attach) as `decode` returns it. For sentences of at most
        `memo_limit` words it is read off the max-marginals when no word has a tie between its two best
        attachments (then the best structure is unique and each word's best attachment is its part of
        it); otherwise, and for longer sentences, it is decoded."""
        result = self._memo(sent, memo_limit)
        structure = None if result is None else structure_from_max_marginals(*result)
        return self.decode(sent) if structure is None else structure


class NeuralFirstOrderLevel(NeuralScoring, FirstOrderLevel):
    pass


class NeuralSecondOrderLevel(NeuralScoring, SecondOrderLevel):
    def tree_parts(self, heads):
        return [(ARC, arc_rows(heads)), (SIBLING, sibling_rows(heads))]


class NeuralThirdOrderLevel(NeuralScoring, ThirdOrderLevel):
    def tree_parts(self, heads):
        siblings = sibling_rows(heads)
        inner = siblings[siblings[:, 0] > 0]
        grand = np.concatenate([heads[inner[:, 0], None], inner[:, [0, 2]]], axis=1)
        gsib = np.concatenate([heads[inner[:, 0], None], inner], axis=1)
        return [(ARC, arc_rows(heads)), (SIBLING, siblings), (GRANDPARENT, grand), (GRAND_SIBLING, gsib)]


def sibling_rows(heads: np.ndarray) -> np.ndarray:
    """(h, s, m) of every arc of a tree, s the next modifier of h towards h on m's side (s == h for the
    first): the rows of `cascade.levels.sibling_rows` (in another order), vectorized. Training asks for the
    parts of several structures per sentence and level, and the loop over heads was a seventh of its time.
    heads: int64 (n + 1,), heads[0] = -1. RETURNS int64 (n, 3). O(n log n)."""
    m = np.arange(1, len(heads), dtype=np.int64)
    h = np.asarray(heads[1:], dtype=np.int64)
    order = np.lexsort((m, h))                     # by head, then position
    hs, ms = h[order], m[order]
    s = hs.copy()
    same_before = np.concatenate([[False], hs[1:] == hs[:-1]])
    right = (ms > hs) & same_before
    right[1:] &= ms[:-1] > hs[1:]                  # the modifier before is on the right too
    s[right] = np.concatenate([[0], ms[:-1]])[right]
    same_after = np.concatenate([hs[:-1] == hs[1:], [False]])
    left = (ms < hs) & same_after
    left[:-1] &= ms[1:] < hs[:-1]                  # the modifier after is on the left too
    s[left] = np.concatenate([ms[1:], [0]])[left]
    return np.stack([hs, s, ms], axis=1)


def structure_from_max_marginals(best: float, arc_mm: np.ndarray, outer_mm: np.ndarray, rtol: float = 1e-9):
    """The best vine structure (heads, attach) from vine max-marginals, or None when some word's two best
    attachments tie (within rtol x max(1, |best|)) or its best one does not reach `best`.

    Each word m has one attachment in a vine structure: a short or ROOT arc (arc_mm[:, m]) or an outer
    label (outer_mm[m]). If no word ties, the best structure is unique and consists of each word's
    highest-max-marginal attachment. heads: int64 (n + 1,), heads[0] = -1, 0 for vine words; attach: int8
    (n + 1,), attach[0] = ATTACH_SHORT (as `kernels.vine`). Time O(n^2) (the dense max-marginal arrays).
    """
    n = arc_mm.shape[0] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    attach = np.zeros(n + 1, dtype=np.int8)
    if n == 0:
        return heads, attach
    options = np.vstack([arc_mm[:, 1:], outer_mm[1:].T])       # (n + 3, n): heads 0..n, left, right
    words = np.arange(n)
    top = options.argmax(axis=0)
    top_value = options[top, words]
    options[top, words] = -np.inf
    runner_up = options.max(axis=0)
    tol = rtol * max(1.0, abs(best))
    if not (np.all(np.abs(top_value - best) <= tol) and np.all(top_value - runner_up > tol)):
        return None
    heads[1:] = np.where(top <= n, top, 0)
    attach[1:] = np.select([top == 0, top <= n, top == n + 1],
                           [kernels.ATTACH_ROOT, kernels.ATTACH_SHORT, kernels.ATTACH_OUTER_LEFT],
                           kernels.ATTACH_OUTER_RIGHT)
    return heads, attach


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


def parse_pieces(cascade: Cascade, sentences: Sequence, direct_max_length: int = 0, n_threads: int = 1,
                 decoder: str = "map") -> list:
    """The tree (heads, int64 (n + 1,)) of each sentence (`parts.SentenceScores` without a cost, at most
    `splitting.MAX_SEGMENT` words) through the compiled cascade runtime (`_kernels/cascade_runtime.pyx`, the
    one the sparse `CascadeParser` runs on: the same levels, thresholds and head caps, with the neural scores
    of `_kernels/neural_scorer.pyx`); sentences of at most `direct_max_length` words are decoded by the last
    level over every arc. The last level decodes by `decoder`: "map" (its best tree) or "mbr" (the tree with
    the most expected correct heads under its distribution). One runtime call per group, so no Python runs
    between sentences."""
    sentences = list(sentences)
    direct = [i for i, sent in enumerate(sentences) if sent.n <= direct_max_length]
    pruned = [i for i, sent in enumerate(sentences) if sent.n > direct_max_length]
    trees = [None] * len(sentences)
    levels = cascade.levels
    caps = [0 if isinstance(level, VineLevel) else (level.head_cap or 0) for level in levels[:-1]]
    band = levels[0].band
    vine = levels[0] if isinstance(levels[0], NeuralVineLevel) else None
    for chosen, runtime in ((direct, cascade.compiled_runtime((levels[-1].order,), (), (), band, decoder)),
                            (pruned, cascade.compiled_runtime([level.order for level in levels], cascade.alphas,
                                                              caps, band, decoder))):
        if chosen:
            group = [sentences[i] for i in chosen]
            for i, heads in zip(chosen, runtime.run(neural_scorer(group, vine), n_threads=n_threads)):
                trees[i] = heads
    return trees


def neural_scorer(sentences: Sequence, vine: Optional[NeuralVineLevel] = None) -> NeuralScorer:
    """The runtime's scorer over sentences (`parts.SentenceScores`) of one batch (they share its part tables);
    with `vine`, the unmasked vine max-marginals it memoized on a sentence (the sentence check of a doc
    without boundaries) go with it, so that the runtime does not run that vine pass again."""
    tables = sentences[0].tables if sentences else None
    part_tables = None
    if tables is not None:
        part_tables = [(tables[kind].P, tables[kind].v, tables[kind].none, tables[kind].Q, SIBLING_COLUMN[kind],
                        HEAD_COLUMN[kind]) for kind in (SIBLING, GRANDPARENT, GRAND_SIBLING)]
    known = None if vine is None else [vine.memoized(sent) for sent in sentences]
    return NeuralScorer([sent.dense_arcs() for sent in sentences], [sent.outer for sent in sentences],
                        [sent.rows for sent in sentences], part_tables, DISTANCE_EDGES, known)


def neural_cascade(orders: Sequence[int], band: int, alphas: Sequence[float], max_heads=None) -> Cascade:
    """A `Cascade` of neural levels; `alphas` holds one a per pruning level."""
    orders = check_orders(orders)
    return Cascade([NEURAL_LEVELS[order](band, max_heads) for order in orders], alphas)
