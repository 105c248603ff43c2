"""First-order projective parsing (Eisner's algorithm), checked entry points.

Time O(n^3) unpruned; with a mask, the work follows the allowed arcs.
"""
import numpy as np

from .._kernels import hypergraph as _engine
from .._kernels.arcs import ArcIndex
from .._kernels.eisner import FirstOrder
from ._checks import allowed_arcs, heads_from_arcs, no_tree_error, square_scores

__all__ = ["eisner", "eisner_max_marginals", "eisner_marginals", "eisner_sample"]


def _first_order(scores, mask, single_root):
    scores = square_scores(scores)
    allowed = allowed_arcs(scores, mask)
    return FirstOrder(scores, ArcIndex(allowed), bool(single_root)), allowed


def eisner(scores, mask=None, single_root=True):
    """The highest-scoring projective tree.

    scores (array (n + 1, n + 1)): arc scores `scores[h, m]`, log space.
    mask (bool array (n + 1, n + 1) or None): allowed arcs.
    single_root (bool): exactly one word attaches to the root (else any number).
    RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
    Time O(n^3) unpruned; with a mask, the work follows the allowed arcs.
    """
    graph, allowed = _first_order(scores, mask, single_root)
    best, q = _engine.best_derivation(graph)
    if best == -np.inf:
        raise no_tree_error(allowed)
    return heads_from_arcs(graph.arc_view(q))


def eisner_max_marginals(scores, mask=None, single_root=True):
    """Best tree score and the max-marginal of every arc.

    RETURNS (float, np.ndarray): the best score and an (n + 1, n + 1) array whose
    [h, m] entry is the best score of a tree containing h -> m (-inf if none).
    """
    graph, allowed = _first_order(scores, mask, single_root)
    best, q = _engine.max_marginals(graph)
    if best == -np.inf:
        raise no_tree_error(allowed)
    return best, np.where(allowed, graph.arc_view(q), -np.inf)


def eisner_marginals(scores, mask=None, single_root=True):
    """Log partition function and arc marginals of the Gibbs distribution
    p(tree) ∝ exp(sum of its arc scores) over projective trees, in log space
    (stable for scores in the thousands).

    RETURNS (float, np.ndarray): log Z and an (n + 1, n + 1) array of
    P(h -> m in tree); each column m >= 1 sums to 1.
    """
    graph, allowed = _first_order(scores, mask, single_root)
    log_z, q = _engine.marginals(graph)
    if log_z == -np.inf:
        raise no_tree_error(allowed)
    return log_z, np.where(allowed, graph.arc_view(q), 0.0)


def eisner_sample(scores, count=1, seed=0, mask=None, single_root=True):
    """Draw `count` trees independently from p(tree) ∝ exp(score).

    RETURNS (np.ndarray): heads, int64 of shape (count, n + 1).
    """
    graph, allowed = _first_order(scores, mask, single_root)
    log_z, qs = _engine.sample_derivations(graph, int(count), int(seed) & (2**64 - 1))
    if log_z == -np.inf:
        raise no_tree_error(allowed)
    return np.stack([heads_from_arcs(graph.arc_view(q)) for q in qs]) if count else \
        np.empty((0, allowed.shape[0]), dtype=np.int64)
