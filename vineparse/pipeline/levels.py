"""The neural cascade of `vine_cascade`, and parsing with it.

The levels are the cascade's own (`vineparse.cascade.levels.Level`: a structure driven by a scorer), every one
scored by the component's network through `parts.NEURAL_SCORER`; so the runner `Cascade`, the cascade
objective (`vineparse.cascade.objective`) and the threshold choice work on them as on the sparse models.

Prediction: `parse_pieces` hands a batch's pieces to the compiled cascade runtime
(`_kernels/cascade_runtime.pyx`, the one the sparse `CascadeParser` runs on: the same levels, thresholds and
head caps) with the neural scores of `_kernels/neural_scorer.pyx`, in one call per group, so no Python runs
between sentences; with a reparse bonus, each tree then goes through `reparse`, which may cross arcs.
"""
from typing import Optional, Sequence

import numpy as np

from .. import kernels
from .._kernels.neural_scorer import NeuralScorer
from ..cascade.cascade import Cascade
from ..cascade.levels import Level
from ..cascade.structures import GRAND_SIBLING, GRANDPARENT, SIBLING, make_structure
from ..trees import crossing_arcs
from .parts import NEURAL_SCORER
from .scorers import DISTANCE_EDGES, HEAD_COLUMN, SIBLING_COLUMN

ORDERS = (0, 1, 2, 3)      # the vine and the Eisner orders


def check_orders(orders: Sequence[int]) -> tuple:
    """`orders` as a tuple, checked: increasing, from {0, 1, 2, 3}, ending in an Eisner order."""
    orders = tuple(orders)
    if not orders:
        raise ValueError("orders must name at least one level, e.g. [0, 1, 2, 3]")
    for order in orders:
        if isinstance(order, bool) or order not in ORDERS:
            raise ValueError(f"unknown cascade level {order!r} in orders: use 0 (vine), 1, 2 or 3")
    if list(orders) != sorted(set(orders)):
        raise ValueError(f"orders must be strictly increasing, got {list(orders)}")
    if orders[-1] == 0:
        raise ValueError("the last level must be an Eisner order (1, 2 or 3), not the vine")
    return orders


def neural_cascade(orders: Sequence[int], band: int, alphas: Sequence[float], max_heads=None) -> Cascade:
    """A `Cascade` of levels scored by the network; `alphas` holds one a per pruning level, `max_heads` caps
    the heads each Eisner-order pruning level keeps per word (the vine is never capped)."""
    orders = check_orders(orders)
    return Cascade([Level(make_structure(order, band), NEURAL_SCORER, None if order == 0 else max_heads)
                    for order in orders], alphas)


def runtime_scorer(sentences: Sequence, known_vine: Optional[Sequence] = None) -> NeuralScorer:
    """The runtime's scorer over sentences (`parts.SentenceScores`) of one batch (they share its part tables).
    known_vine: per sentence None or its unmasked vine max-marginals (best, arc_mm, outer_mm) computed before
    (the sentence check of a doc without boundaries), which the runtime then takes instead of running that
    vine pass again."""
    tables = sentences[0].tables if sentences else None
    part_tables = None
    if tables is not None:
        part_tables = [(tables[kind].P, tables[kind].starts, tables[kind].v, tables[kind].none, tables[kind].Q,
                        SIBLING_COLUMN[kind], HEAD_COLUMN[kind]) for kind in (SIBLING, GRANDPARENT, GRAND_SIBLING)]
    return NeuralScorer([sent.dense_arcs() for sent in sentences], [sent.outer for sent in sentences],
                        [sent.rows for sent in sentences], part_tables, DISTANCE_EDGES,
                        None if known_vine is None else list(known_vine))


def reparse(scores: np.ndarray, tree: np.ndarray, bonus: float) -> np.ndarray:
    """`tree` (the cascade's projective tree) with crossing arcs where the first-order non-projective model
    wants them: the maximum spanning tree of the matrix-tree marginals of p(tree) ∝ exp(scores) plus `bonus`
    on each arc of `tree`, over the arcs of `tree` and the arcs that cross one of them
    (`trees.crossing_arcs`). A word leaves its head in `tree` only for a crossing arc: where a projective
    tree could hold the change, the cascade's higher orders decided it already. bonus >= 1 keeps `tree` (a
    marginal is at most 1). Where float64 cannot hold the marginals (`kernels.IllConditionedError`), `tree`
    is kept. O(n^3) (the marginals), O(n^2) the rest. scores: (n + 1, n + 1) first-order arc scores; tree:
    heads (n + 1,). RETURNS heads, int64 (n + 1,)."""
    n = len(tree) - 1
    if n < 3 or bonus >= 1.0:           # crossing needs three words; a larger bonus cannot be beaten
        return tree
    try:
        _, marginals = kernels.matrix_tree_marginals(scores)
    except kernels.IllConditionedError:
        return tree
    words = np.arange(1, n + 1)
    candidates = crossing_arcs(tree)
    candidates[tree[1:], words] = True
    marginals[tree[1:], words] += bonus
    return kernels.mst(marginals, candidates)


def parse_pieces(cascade: Cascade, sentences: Sequence, known_vine: Optional[Sequence] = None,
                 direct_max_length: int = 0, n_threads: int = 1, decoder: str = "map",
                 reparse_bonus: Optional[float] = None) -> list:
    """The tree (heads, int64 (n + 1,)) of each sentence (`parts.SentenceScores` without a cost, at most
    `splitting.MAX_SEGMENT` words) through the compiled cascade runtime; sentences of at most
    `direct_max_length` words are decoded by the last level over every arc. The last level decodes by
    `decoder`: "map" (its best tree) or "mbr" (the tree with the most expected correct heads under its
    distribution). With `reparse_bonus` (not None) each tree goes through `reparse` with the sentence's
    first-order scores. known_vine: see `runtime_scorer`."""
    sentences = list(sentences)
    known_vine = [None] * len(sentences) if known_vine is None else list(known_vine)
    direct = [i for i, sent in enumerate(sentences) if sent.n <= direct_max_length]
    pruned = [i for i, sent in enumerate(sentences) if sent.n > direct_max_length]
    trees = [None] * len(sentences)
    for chosen, runtime in ((direct, cascade.runtime(decoder, last_only=True)), (pruned, cascade.runtime(decoder))):
        if chosen:
            scorer = runtime_scorer([sentences[i] for i in chosen], [known_vine[i] for i in chosen])
            for i, heads in zip(chosen, runtime.run(scorer, n_threads=n_threads)):
                trees[i] = heads
    if reparse_bonus is not None:
        trees = [reparse(sent.dense_arcs(), tree, reparse_bonus) for sent, tree in zip(sentences, trees)]
    return trees


def vine_level(cascade: Cascade) -> Optional[Level]:
    """The cascade's vine level, or None."""
    return cascade.levels[0] if cascade.levels[0].is_vine else None
