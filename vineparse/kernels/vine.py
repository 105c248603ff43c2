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

from .._kernels import calls as _calls

__all__ = ["vine", "vine_max_marginals", "vine_marginals",
           "ATTACH_SHORT", "ATTACH_ROOT", "ATTACH_OUTER_LEFT", "ATTACH_OUTER_RIGHT"]

ATTACH_SHORT = 0        # the word has a short head (not a vine word)
ATTACH_ROOT = 1         # vine word whose head is the root
ATTACH_OUTER_LEFT = 2   # vine word whose head lies more than b words to its left
ATTACH_OUTER_RIGHT = 3  # vine word whose head lies more than b words to its right


def checked_band(band, size):
    """`band` checked (an integer >= 1), clamped to the sentence so that huge ints fit a C integer."""
    if isinstance(band, (bool, np.bool_)) or not isinstance(band, (int, np.integer)) or band < 1:
        raise ValueError(f"band must be an integer >= 1, got {band!r}")
    return int(min(band, max(size, 1)))


def _band(band, scores):
    return checked_band(band, np.shape(scores)[0] if np.ndim(scores) == 2 else 1)


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
    return _calls.vine(scores, outer, _band(band, scores), mask, outer_mask, _calls.WHAT["best"])[1]


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
    best, (arcs, outer_mm) = _calls.vine(scores, outer, _band(band, scores), mask, outer_mask,
                                         _calls.WHAT["max_marginals"])
    return best, arcs, outer_mm


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
    log_z, (arcs, outer_marg) = _calls.vine(scores, outer, _band(band, scores), mask, outer_mask,
                                            _calls.WHAT["marginals"])
    return log_z, arcs, outer_marg
