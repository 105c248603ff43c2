"""Pruning masks over bispans: CreateMask of randomized pruning, and user masks.

CreateMask (Bouchard-Côté, Petrov & Klein 2009): the auxiliary variables are alignment links A_ik. A
selected link assigned positive (A_ik = 1) prunes every bispan that contains one of its two words but not
the other, so every surviving derivation emits i with k; a selected link assigned negative (A_ik = 0)
forbids the emission of (i, k). Conditioning the chart on a mask is conditioning the distribution over
derivations on the selected links' values.

A mask is a keep table over bispans (see `grammar.keep_all`) plus the forbidden emissions.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .grammar import keep_all, keep_from_links, keep_from_mask


@dataclass
class Mask:
    """keep (uint8 (n_spans(p), n_spans(q))): kept bispans; positive, negative (int64 (n, 2)): the links
    it was made from (rows (i, k))."""

    keep: np.ndarray
    positive: np.ndarray
    negative: np.ndarray

    @property
    def kept(self) -> int:
        return int(self.keep.sum())


def check_links(links, p: int, q: int, name: str = "links") -> np.ndarray:
    """`links` as an int64 (n, 2) array of (source index, target index), checked against a p x q pair."""
    array = np.asarray(links if links is not None else [], dtype=np.int64)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must be pairs (source index, target index), got shape {array.shape}")
    bad = (array[:, 0] < 0) | (array[:, 0] >= p) | (array[:, 1] < 0) | (array[:, 1] >= q)
    if bad.any():
        i, k = array[np.flatnonzero(bad)[0]]
        raise ValueError(f"{name} has ({i}, {k}), outside the {p} x {q} sentence pair")
    return array


def create_mask(p: int, q: int, positive=None, negative=None, base: Optional[np.ndarray] = None) -> Mask:
    """CreateMask: prune the bispans that separate the two words of a positive link; forbid the emissions
    of negative links.

    p, q (int): sentence lengths.
    positive, negative (array-like (n, 2) or None): links (i, k).
    base (np.ndarray or None): a keep table to intersect with (e.g. from a user mask).
    RETURNS (Mask): the keep table and the links. Time O(p^2 q^2 + links).
    """
    positive = check_links(positive, p, q, "positive links")
    negative = check_links(negative, p, q, "negative links")
    if len(positive) and len(negative):
        both = set(map(tuple, positive.tolist())) & set(map(tuple, negative.tolist()))
        if both:
            raise ValueError(f"link {sorted(both)[0]} is both positive and negative")
    if len(positive):
        keep = keep_from_links(p, q, positive, base)
    else:
        keep = keep_all(p, q) if base is None else base.copy()
    return Mask(keep, positive, negative)


def user_keep(mask, p: int, q: int) -> np.ndarray:
    """The keep table of a user's boolean bispan mask of shape (p+1, p+1, q+1, q+1), mask[i, j, k, l] for
    [i, j) x [k, l) (True = allowed); entries of spans that are not bispans of the grammar are ignored."""
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise ValueError(f"mask must be a boolean array, got dtype {array.dtype}")
    if array.shape != (p + 1, p + 1, q + 1, q + 1):
        raise ValueError(f"mask must have shape (p+1, p+1, q+1, q+1) = {(p + 1, p + 1, q + 1, q + 1)}, "
                         f"got {array.shape}")
    return keep_from_mask(array)
