"""Vine parsing (Eisner & Smith 2005; Rush & Petrov 2012), checked entry points.

A vine structure splits words 1..n into adjacent projective subtrees whose arcs
are no longer than the band b; the root of each subtree (a vine word) attaches
to the vine at position 0 with a label: ROOT, OUTER-LEFT (its true head is more
than b words to its left, offered when m - b > 1) or OUTER-RIGHT (more than b to
its right, offered when m + b < n). Its score is the sum of its short arc
scores `scores[h, m]`, of `scores[0, m]` for each ROOT word and of
`outer[m, 0]` / `outer[m, 1]` for each OUTER-LEFT / OUTER-RIGHT word.

Only the band of `scores` and `mask` is read: entries [h, m] with
1 <= |h - m| <= b and h, m >= 1, plus the root row [0, m] (m >= 1). Everything
else, row 0 of `outer` and `outer_mask` included, is ignored and not
validated, so that the per-sentence cost is O(n b) end to end (except the
dense (n + 1, n + 1) arrays the max-marginal and marginal functions return).
Inputs of another real dtype than float64 are converted first (a full copy).
Time O(n b^2).
"""
import numpy as np

from .._kernels import hypergraph as _engine
from .._kernels.vine import Vine
from ._checks import NoStructureError

__all__ = ["vine", "vine_max_marginals", "vine_marginals",
           "ATTACH_SHORT", "ATTACH_ROOT", "ATTACH_OUTER_LEFT", "ATTACH_OUTER_RIGHT"]

ATTACH_SHORT = 0        # the word has a short head (not a vine word)
ATTACH_ROOT = 1         # vine word whose head is the root
ATTACH_OUTER_LEFT = 2   # vine word whose head lies more than b words to its left
ATTACH_OUTER_RIGHT = 3  # vine word whose head lies more than b words to its right


def _real(array, name, shape):
    """`array` as float64 (a view when it already is), checked for dtype and shape."""
    array = np.asarray(array)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    return array.astype(np.float64, copy=False)


def _boolean(mask, name, shape, what):
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise ValueError(f"{name} must be a boolean array, got dtype {mask.dtype}")
    if mask.shape != shape:
        raise ValueError(f"{name} has shape {mask.shape} but {what} has shape {shape}")
    return mask


def _vine_graph(scores, outer, band, mask, outer_mask):
    """Check dtypes, shapes and the band, then build the grammar (which reads
    and validates only the entries the model uses)."""
    shape = np.shape(scores)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise ValueError(f"scores must have shape (n + 1, n + 1), got {shape}")
    scores = _real(scores, "scores", shape)
    outer = _real(outer, "outer", (shape[0], 2))
    if isinstance(band, (bool, np.bool_)) or not isinstance(band, (int, np.integer)) or band < 1:
        raise ValueError(f"band must be an integer >= 1, got {band!r}")
    mask = _boolean(mask, "mask", scores.shape, "scores")
    outer_mask = _boolean(outer_mask, "outer_mask", outer.shape, "outer")
    # The grammar clamps the band to n - 1; clamp here too so huge ints fit a C integer.
    return Vine(scores, outer, int(min(band, shape[0])), mask, outer_mask)


def _no_vine_error(graph):
    """The error for masks that admit no vine structure, naming a stranded word if any."""
    used = np.ones(graph.n_items)
    has_head = graph.arc_matrix(used, 0.0)[:, 1:].any(axis=0)
    has_label = graph.outer_matrix(used, 0.0)[1:].any(axis=1)
    stranded = np.flatnonzero(~has_head & ~has_label) + 1
    detail = f": word {stranded[0]} has no allowed short head or vine label" if len(stranded) else ""
    return NoStructureError(f"the masks admit no vine structure{detail}")


def vine(scores, outer, band, mask=None, outer_mask=None):
    """The highest-scoring vine structure.

    scores (array (n + 1, n + 1)): short arc scores `scores[h, m]` (read for
        1 <= |h - m| <= band) and ROOT label scores `scores[0, m]`; log space,
        -inf = impossible.
    outer (array (n + 1, 2)): OUTER-LEFT `[m, 0]` and OUTER-RIGHT `[m, 1]`
        label scores; row 0 unused.
    band (int): the longest short arc, b >= 1.
    mask (bool array (n + 1, n + 1) or None): allowed short arcs and ROOT labels.
    outer_mask (bool array (n + 1, 2) or None): allowed outer labels.
    RETURNS (Tuple[np.ndarray, np.ndarray]): heads, int64 of length n + 1
        (heads[0] = -1; the short head of each word, 0 for vine words) and
        attach, int8 of length n + 1 (ATTACH_SHORT, ATTACH_ROOT,
        ATTACH_OUTER_LEFT or ATTACH_OUTER_RIGHT; attach[0] = 0).
    Time O(n b^2).
    """
    graph = _vine_graph(scores, outer, band, mask, outer_mask)
    best, q = _engine.best_derivation(graph)
    if best == -np.inf:
        raise _no_vine_error(graph)
    return graph.decode(q)


def vine_max_marginals(scores, outer, band, mask=None, outer_mask=None):
    """Best vine score and the max-marginal of every short arc and label.

    Arguments as for `vine`.
    RETURNS (Tuple[float, np.ndarray, np.ndarray]): the best score; an
        (n + 1, n + 1) array with the best score of a structure containing the
        short arc h -> m at [h, m] and of one where m is a ROOT vine word at
        [0, m]; an (n + 1, 2) array with the best score of one where m is an
        OUTER-LEFT / OUTER-RIGHT vine word. -inf where unused or not allowed.
    Time O(n b^2) plus filling the dense arrays.
    """
    graph = _vine_graph(scores, outer, band, mask, outer_mask)
    best, q = _engine.max_marginals(graph)
    if best == -np.inf:
        raise _no_vine_error(graph)
    return best, graph.arc_matrix(q, -np.inf), graph.outer_matrix(q, -np.inf)


def vine_marginals(scores, outer, band, mask=None, outer_mask=None):
    """Log partition function and marginals of p(structure) ∝ exp(score) over
    vine structures, in log space.

    Arguments as for `vine`.
    RETURNS (Tuple[float, np.ndarray, np.ndarray]): log Z; P(h -> m) at [h, m]
        and P(m is a ROOT vine word) at [0, m] of an (n + 1, n + 1) array;
        P(m is an OUTER-LEFT / OUTER-RIGHT vine word) in an (n + 1, 2) array.
        For each word m the entries of column m and of row m of the second
        array sum to 1. 0 where unused or not allowed.
    Time O(n b^2) plus filling the dense arrays.
    """
    graph = _vine_graph(scores, outer, band, mask, outer_mask)
    log_z, q = _engine.marginals(graph)
    if log_z == -np.inf:
        raise _no_vine_error(graph)
    return log_z, graph.arc_matrix(q, 0.0), graph.outer_matrix(q, 0.0)
