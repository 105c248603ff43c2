"""Second-order (adjacent-sibling) projective parsing, checked entry points.

Model (McDonald & Pereira 2006): a tree scores the sum of its arc scores
`scores[h, m]` and of one sibling part sib(h, s, m) per arc, where s is the
modifier of h on the same side as m next closer to h, or s = h when m is h's
closest child on that side. Root arcs take sibling parts too: with
`single_root=True` the root has one child m and only (0, 0, m) applies; with
`single_root=False` the root's children chain like any head's right children.

Sibling scores `sib` come in one of two forms:

* dense: float64 (n + 1, n + 1, n + 1), `sib[h, s, m]` (fine for small n);
  only the entries of parts the mask admits are read, but all are checked.
* compact: 1-D float64, one score per part in the canonical layout of
  `ArcIndex` for the checked mask (the mask with the diagonal and the root
  column cleared; all arcs when the mask is None): row i of
  `second_order_parts(mask, n)` is the part (h, s, m) scored by `sib[i]`.
  The layout depends on the mask alone, not on the scores; arcs whose score
  is -inf stay in the layout (and can never be used).

-inf part scores are allowed (the part is impossible); NaN or +inf raise.
Time O(n^3) unpruned; with a mask, the work follows the allowed arcs and
sibling pairs (see vineparse/_kernels/eisner2.pyx).
"""
import numpy as np

from .._kernels import calls as _calls
from .._kernels.arcs import ArcIndex
from ._checks import parts_size, sample_count

__all__ = ["eisner2", "eisner2_max_marginals", "eisner2_marginals", "eisner2_sample",
           "second_order_parts"]


def _layout(mask, size):
    """The uint8 (size, size) layout mask: `mask` (or all arcs) without the
    diagonal and the root column."""
    if mask is None:
        return np.ones((size, size), dtype=np.uint8)
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise ValueError(f"mask must be a boolean array, got dtype {mask.dtype}")
    if mask.shape != (size, size):
        raise ValueError(f"mask has shape {mask.shape} but scores have shape {(size, size)}")
    return mask


def second_order_parts(mask, n=None):
    """The sibling parts a mask admits, in the order of a compact `sib` vector.

    mask (bool array (n + 1, n + 1) or None): allowed arcs; None allows all.
    n (int or None): sentence length; required when mask is None, else checked.
    RETURNS (np.ndarray): int64 (n_parts, 3), rows (h, s, m); s == h marks m as
        h's closest child on its side.
    """
    size = parts_size(mask, n, "second_order_parts")
    return ArcIndex(_layout(mask, size)).sibling_parts()


def eisner2(scores, sib, mask=None, single_root=True):
    """The highest-scoring projective tree under the sibling model.

    scores (array (n + 1, n + 1)): arc scores `scores[h, m]`, log space.
    sib (array): sibling part scores, dense (n + 1, n + 1, n + 1) or compact
        (see the module docstring and `second_order_parts`).
    mask (bool array (n + 1, n + 1) or None): allowed arcs.
    single_root (bool): exactly one word attaches to the root (else any number).
    RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
    Time O(n^3) unpruned; with a mask, the work follows the allowed arcs.
    """
    return _calls.second_order(scores, sib, mask, bool(single_root), _calls.WHAT["best"])[1]


def eisner2_max_marginals(scores, sib, mask=None, single_root=True):
    """Best tree score and the max-marginal of every arc under the sibling model.

    RETURNS (float, np.ndarray): the best score and an (n + 1, n + 1) array whose
    [h, m] entry is the best score of a tree containing h -> m (-inf if none).
    """
    return _calls.second_order(scores, sib, mask, bool(single_root), _calls.WHAT["max_marginals"])


def eisner2_marginals(scores, sib, mask=None, single_root=True):
    """Log partition function and arc marginals of p(tree) ∝ exp(score(tree))
    over projective trees under the sibling model, in log space.

    RETURNS (float, np.ndarray): log Z and an (n + 1, n + 1) array of
    P(h -> m in tree); each column m >= 1 sums to 1.
    """
    return _calls.second_order(scores, sib, mask, bool(single_root), _calls.WHAT["marginals"])


def eisner2_sample(scores, sib, count=1, seed=0, mask=None, single_root=True):
    """Draw `count` trees independently from p(tree) ∝ exp(score(tree)).

    RETURNS (np.ndarray): heads, int64 of shape (count, n + 1).
    """
    return _calls.second_order(scores, sib, mask, bool(single_root), _calls.WHAT["sample"],
                               sample_count(count), int(seed) & (2**64 - 1))[1]

