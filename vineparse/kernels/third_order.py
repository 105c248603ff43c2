"""Third-order projective parsing with grand-siblings (Koo & Collins 2010, Model 1), checked entry points.

A tree scores, for every arc h -> m with adjacent inner sibling s (s = h for
h's closest child on that side) and grandparent g = head of h,

    scores[h, m] + sib[h, s, m] + grand[g, h, m] + gsib[g, h, s, m];

arcs of the root (h = 0) have no grandparent and take only scores[0, m] +
sib[0, s, m]. With single_root=True the root has one child m, so only
sib[0, 0, m] applies to it.

Part scores. Each of `sib`, `grand`, `gsib` is one of
* None: all zero (and skipped);
* dense: sib[h, s, m] and grand[g, h, m] of shape (n + 1,) * 3, gsib[g, h, s, m]
  of shape (n + 1,) * 4 (fine for short sentences, not for n = 100);
* compact: a 1-D vector with one score per part the mask admits, in the
  order of `third_order_parts(mask)`: row i of its "sibling", "grandparent" and
  "grand_sibling" tables is the part scored by sib[i], grand[i] and gsib[i].
  This is the canonical layout of `ArcIndex` (vineparse/_kernels/arcs.pxd) for
  the checked mask (the mask with the diagonal and the root column cleared; all
  arcs when the mask is None). The layout depends on the mask alone, not on
  the scores: arcs whose score is -inf stay in it (and can never be used).
Only the entries of admitted parts are read from a dense array, but all are
checked. Part scores may be -inf (forbidden part); NaN or +inf raise
ValueError, and so does a compact vector of the wrong length.

Time O(n^4) unpruned, memory O(n^3); under a mask that leaves each word a
bounded number of heads, memory O(n^2) and the work follows the allowed arcs.
"""
from functools import lru_cache

import numpy as np

from .._kernels import calls as _calls
from .._kernels.arcs import ArcIndex
from ._checks import allowed_arcs, parts_size, sample_count

__all__ = ["eisner3", "eisner3_max_marginals", "eisner3_marginals", "eisner3_sample", "third_order_parts"]

UNMASKED_CACHE_SIZES = 24      # layouts of unmasked sentences of fewer words are kept (their parts are few)


def _parts(arcs: ArcIndex) -> dict:
    return {"sibling": arcs.sibling_parts(), "grandparent": arcs.grandparent_parts(),
            "grand_sibling": arcs.grand_sibling_parts()}


def _unmasked_layout(size: int) -> dict:
    """The part rows (read only) of every arc of a (size - 1)-word sentence."""
    parts = _parts(ArcIndex(np.ones((size, size), dtype=np.uint8)))
    for rows in parts.values():
        rows.setflags(write=False)
    return parts


_unmasked_cached = lru_cache(maxsize=UNMASKED_CACHE_SIZES)(_unmasked_layout)


def third_order_parts(mask, n=None):
    """The parts of the third-order model over the arcs a mask allows, in the
    order of the compact part-score vectors (the diagonal and the root column
    are never allowed; see the module docstring about -inf arc scores).

    mask (bool array (n + 1, n + 1) or None): allowed arcs; None allows every arc.
    n (int or None): sentence length; needed when mask is None, else checked.
    RETURNS (dict): "sibling" (P, 3) rows (h, s, m), "grandparent" (G, 3) rows
        (g, h, m), "grand_sibling" (Q, 4) rows (g, h, s, m); int64, read only when
        mask is None (cached per n for short sentences). Time O(n^2 + parts).
    """
    size = parts_size(mask, n, "third_order_parts")
    if mask is None:
        return dict(_unmasked_cached(size) if size <= UNMASKED_CACHE_SIZES else _unmasked_layout(size))
    return _parts(ArcIndex(allowed_arcs(np.zeros((size, size)), mask)))


def eisner3(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """The highest-scoring projective tree under the grand-sibling model.

    scores (array (n + 1, n + 1)): arc scores `scores[h, m]`, log space.
    sib, grand, gsib (array or None): part scores, dense or compact (see the module docstring).
    mask (bool array (n + 1, n + 1) or None): allowed arcs.
    single_root (bool): exactly one word attaches to the root (else any number).
    RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
    Time O(n^4) unpruned; with a mask, the work follows the allowed arcs.
    """
    return _calls.third_order(scores, sib, grand, gsib, mask, bool(single_root), _calls.WHAT["best"])[1]


def eisner3_max_marginals(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """Best tree score and the max-marginal of every arc under the grand-sibling model.

    Arguments as for `eisner3`.
    RETURNS (float, np.ndarray): the best score and an (n + 1, n + 1) array whose
    [h, m] entry is the best score of a tree containing h -> m (-inf if none).
    """
    return _calls.third_order(scores, sib, grand, gsib, mask, bool(single_root), _calls.WHAT["max_marginals"])


def eisner3_marginals(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """Log partition function and arc marginals of p(tree) ∝ exp(score(tree))
    over projective trees under the grand-sibling model, in log space.

    Arguments as for `eisner3`.
    RETURNS (float, np.ndarray): log Z and an (n + 1, n + 1) array of
    P(h -> m in tree); each column m >= 1 sums to 1.
    """
    return _calls.third_order(scores, sib, grand, gsib, mask, bool(single_root), _calls.WHAT["marginals"])


def eisner3_sample(scores, sib=None, grand=None, gsib=None, count=1, seed=0, mask=None, single_root=True):
    """Draw `count` trees independently from p(tree) ∝ exp(score(tree)) under the grand-sibling model.

    Arguments as for `eisner3`.
    RETURNS (np.ndarray): heads, int64 of shape (count, n + 1).
    """
    return _calls.third_order(scores, sib, grand, gsib, mask, bool(single_root), _calls.WHAT["sample"],
                              sample_count(count), int(seed) & (2**64 - 1))[1]
