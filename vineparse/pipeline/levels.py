"""The neural cascade of `vine_cascade`, and parsing with it.

The levels are the cascade's own (`vineparse.cascade.levels.Level`: a structure driven by a scorer), every one
scored by the component's network through `parts.NEURAL_SCORER`; so the runner `Cascade`, the cascade
objective (`vineparse.cascade.objective`) and the threshold choice work on them as on the sparse models.

Prediction: `parse_pieces` hands a batch's pieces to the compiled cascade runtime
(`_kernels/cascade_runtime.pyx`, the one the sparse `CascadeParser` runs on: the same levels, thresholds and
head caps) with the neural scores of `_kernels/neural_scorer.pyx`, in one call per group, so no Python runs
between sentences.
"""
from typing import Optional, Sequence

from .._kernels.neural_scorer import NeuralScorer
from ..cascade.cascade import Cascade
from ..cascade.levels import Level
from ..cascade.structures import GRAND_SIBLING, GRANDPARENT, SIBLING, make_structure
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


def parse_pieces(cascade: Cascade, sentences: Sequence, known_vine: Optional[Sequence] = None,
                 direct_max_length: int = 0, n_threads: int = 1) -> list:
    """The tree (heads, int64 (n + 1,)) of each sentence (`parts.SentenceScores` without a cost, at most
    `splitting.MAX_SEGMENT` words) through the compiled cascade runtime: the last level's best tree on the
    mask the pruning levels leave; sentences of at most `direct_max_length` words are decoded by the last
    level over every arc. known_vine: see `runtime_scorer`."""
    sentences = list(sentences)
    known_vine = [None] * len(sentences) if known_vine is None else list(known_vine)
    direct = [i for i, sent in enumerate(sentences) if sent.n <= direct_max_length]
    pruned = [i for i, sent in enumerate(sentences) if sent.n > direct_max_length]
    trees = [None] * len(sentences)
    for chosen, runtime in ((direct, cascade.runtime(last_only=True)), (pruned, cascade.runtime())):
        if chosen:
            scorer = runtime_scorer([sentences[i] for i in chosen], [known_vine[i] for i in chosen])
            for i, heads in zip(chosen, runtime.run(scorer, n_threads=n_threads)):
                trees[i] = heads
    return trees


def vine_level(cascade: Cascade) -> Optional[Level]:
    """The cascade's vine level, or None."""
    return cascade.levels[0] if cascade.levels[0].is_vine else None
