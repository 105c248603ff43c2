"""First-order projective parsing (Eisner's algorithm), checked entry points.

Time O(n^3) unpruned. Two engines give the same results: dense charts scanned
with SIMD loops (fast when the mask keeps many arcs) and the shared hypergraph
engine (work follows the allowed arcs). `engine="auto"` (default) picks per
sentence; "dense" or "hypergraph" force one.
"""
from .._kernels import calls as _calls
from ._checks import sample_count

__all__ = ["eisner", "eisner_max_marginals", "eisner_marginals", "eisner_sample"]


def eisner(scores, mask=None, single_root=True, engine="auto"):
    """The highest-scoring projective tree.

    scores (array (n + 1, n + 1)): arc scores `scores[h, m]`, log space.
    mask (bool array (n + 1, n + 1) or None): allowed arcs.
    single_root (bool): exactly one word attaches to the root (else any number).
    engine (str): "auto", "dense" or "hypergraph" (see the module docstring).
    RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
    Time O(n^3) unpruned; with a mask, the work follows the allowed arcs.
    """
    return _calls.first_order(scores, mask, bool(single_root), _calls.WHAT["best"], 1, 0,
                              _calls.engine_code(engine))[1]


def eisner_max_marginals(scores, mask=None, single_root=True, engine="auto"):
    """Best tree score and the max-marginal of every arc.

    RETURNS (float, np.ndarray): the best score and an (n + 1, n + 1) array whose
    [h, m] entry is the best score of a tree containing h -> m (-inf if none).
    """
    return _calls.first_order(scores, mask, bool(single_root), _calls.WHAT["max_marginals"], 1, 0,
                              _calls.engine_code(engine))


def eisner_marginals(scores, mask=None, single_root=True, engine="auto"):
    """Log partition function and arc marginals of the Gibbs distribution
    p(tree) ∝ exp(sum of its arc scores) over projective trees, in log space
    (stable for scores in the thousands).

    RETURNS (float, np.ndarray): log Z and an (n + 1, n + 1) array of
    P(h -> m in tree); each column m >= 1 sums to 1.
    """
    return _calls.first_order(scores, mask, bool(single_root), _calls.WHAT["marginals"], 1, 0,
                              _calls.engine_code(engine))


def eisner_sample(scores, count=1, seed=0, mask=None, single_root=True, engine="auto"):
    """Draw `count` trees independently from p(tree) ∝ exp(score).

    RETURNS (np.ndarray): heads, int64 of shape (count, n + 1).
    """
    return _calls.first_order(scores, mask, bool(single_root), _calls.WHAT["sample"], sample_count(count),
                              int(seed) & (2**64 - 1), _calls.engine_code(engine))[1]
