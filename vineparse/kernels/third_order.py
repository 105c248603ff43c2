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
  the scores: arcs whose score is -inf are dropped after the layout is fixed.
Only the entries of admitted parts are read from a dense array, but all are
checked. Part scores may be -inf (forbidden part); NaN or +inf raise
ValueError, and so does a compact vector of the wrong length.

Time O(n^4) unpruned, memory O(n^3); under a mask that leaves each word a
bounded number of heads, memory O(n^2) and the work follows the allowed arcs.
"""
from functools import lru_cache

import numpy as np

from .._kernels import hypergraph as _engine
from .._kernels.arcs import ArcIndex
from .._kernels.eisner3 import ThirdOrder, part_index
from ._checks import allowed_arcs, heads_from_arcs, no_tree_error, square_scores

__all__ = ["eisner3", "eisner3_max_marginals", "eisner3_marginals", "third_order_parts"]

# argument -> (part kind, dense dimensions, ArcIndex count, ArcIndex listing in layout order)
_PARTS = {"sib": ("sibling", 3, "n_sibling_parts", "sibling_parts"),
          "grand": ("grandparent", 3, "n_grandparent_parts", "grandparent_parts"),
          "gsib": ("grand-sibling", 4, "n_grand_sibling_parts", "grand_sibling_parts")}
_NO_TREE = "projective tree with finite arc and part scores"


def _layout_mask(mask, size):
    """The checked uint8 (size, size) mask that fixes the part layout."""
    return allowed_arcs(np.zeros((size, size)), mask)


_last_layout = (None, None)     # (checked mask, its ArcIndex): `third_order_parts` then `eisner3` on one mask


def _layout_index(layout_mask) -> ArcIndex:
    """ArcIndex(layout_mask), reused when the mask equals the last one's (an ArcIndex is never modified)."""
    global _last_layout
    known, index = _last_layout
    if known is None or not np.array_equal(known, layout_mask):
        index = ArcIndex(layout_mask)
        _last_layout = (layout_mask, index)
    return index


UNMASKED_CACHE_SIZES = 24      # layouts of unmasked sentences of fewer words are kept (their parts are few)


def _parts(arcs: ArcIndex) -> dict:
    return {"sibling": arcs.sibling_parts(), "grandparent": arcs.grandparent_parts(),
            "grand_sibling": arcs.grand_sibling_parts()}


def _unmasked_layout(size: int):
    """The layout mask, ArcIndex and part rows (read only) of every arc of a (size - 1)-word sentence."""
    layout_mask = _layout_mask(None, size)
    arcs = ArcIndex(layout_mask)
    parts = _parts(arcs)
    for rows in parts.values():
        rows.setflags(write=False)
    return layout_mask, arcs, parts


_unmasked_cached = lru_cache(maxsize=UNMASKED_CACHE_SIZES)(_unmasked_layout)


def _unmasked(size: int):
    """`_unmasked_layout`, cached for short sentences, which are parsed unpruned over and over."""
    return _unmasked_cached(size) if size <= UNMASKED_CACHE_SIZES else _unmasked_layout(size)


def third_order_parts(mask, n=None):
    """The parts of the third-order model over the arcs a mask allows, in the
    order of the compact part-score vectors (the diagonal and the root column
    are never allowed; see the module docstring about -inf arc scores).

    mask (bool array (n + 1, n + 1) or None): allowed arcs; None allows every arc.
    n (int or None): sentence length; needed when mask is None, else checked.
    RETURNS (dict): "sibling" (P, 3) rows (h, s, m), "grandparent" (G, 3) rows
        (g, h, m), "grand_sibling" (Q, 4) rows (g, h, s, m); int64, read only when
        mask is None (cached per n). Time O(n^2 + parts).
    """
    if mask is None:
        if n is None:
            raise ValueError("third_order_parts needs n when mask is None")
        if int(n) < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        return dict(_unmasked(int(n) + 1)[2])
    else:
        shape = np.shape(mask)
        if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
            raise ValueError(f"mask must have shape (n + 1, n + 1), got {shape}")
        if n is not None and int(n) + 1 != shape[0]:
            raise ValueError(f"mask has shape {shape} but n = {n}")
    return _parts(_layout_index(_layout_mask(mask, shape[0])))


def _part_scores(value, name, layout, graph_arcs, maps):
    """`value` (None, dense, or compact in the layout of `layout`) as a checked
    compact float64 vector in the layout of `graph_arcs`; `maps[name]` gives the
    index in layout's of each part of graph_arcs (None when they are the same)."""
    if value is None:
        return None
    kind, dims, count, listing = _PARTS[name]
    count = getattr(layout, count)
    array = np.asarray(value)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
    if array.size and not array.max() < np.inf:          # one pass: max is NaN or +inf if either occurs
        for bad, label in ((np.isnan(array), "NaN"), (np.isposinf(array), "+inf")):
            if bad.any():
                raise ValueError(f"{name} contains {label} (first at {np.argwhere(bad)[0].tolist()})")
    size = layout.n + 1
    if array.ndim == 1:
        if array.shape[0] != count:
            raise ValueError(f"{name} has {array.shape[0]} scores but the mask admits {count} {kind} parts "
                             f"(expected length {count}, got {array.shape[0]}; see third_order_parts)")
        array = np.ascontiguousarray(array, dtype=np.float64)
        return array if maps is None else array[maps[name]]
    if array.shape != (size,) * dims:
        raise ValueError(f"{name} must be a compact vector or have shape {(size,) * dims}, got {array.shape}")
    return np.ascontiguousarray(array[tuple(getattr(graph_arcs, listing)().T)], dtype=np.float64)


def _third_order(scores, sib, grand, gsib, mask, single_root):
    scores = square_scores(scores)
    if mask is None:
        layout_mask, layout, _ = _unmasked(scores.shape[0])
    else:
        layout_mask = _layout_mask(mask, scores.shape[0])
        layout = _layout_index(layout_mask)
    arcs = layout
    allowed = layout_mask & np.isfinite(scores)
    if not np.array_equal(allowed, layout_mask):
        arcs = ArcIndex(allowed)              # arcs scored -inf are dropped so that they cost no work
    given = {"sib": sib, "grand": grand, "gsib": gsib}
    maps = None
    if arcs is not layout and any(np.ndim(value) == 1 for value in given.values() if value is not None):
        maps = dict(zip(_PARTS, part_index(layout, arcs)))
    compact = [_part_scores(given[name], name, layout, arcs, maps) for name in _PARTS]
    return ThirdOrder(scores, arcs, *compact, bool(single_root)), allowed


def eisner3(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """The highest-scoring projective tree under the grand-sibling model.

    scores (array (n + 1, n + 1)): arc scores `scores[h, m]`, log space.
    sib, grand, gsib (array or None): part scores, dense or compact (see the module docstring).
    mask (bool array (n + 1, n + 1) or None): allowed arcs.
    single_root (bool): exactly one word attaches to the root (else any number).
    RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
    Time O(n^4) unpruned; with a mask, the work follows the allowed arcs.
    """
    graph, allowed = _third_order(scores, sib, grand, gsib, mask, single_root)
    best, q = _engine.best_derivation(graph)
    if best == -np.inf:
        raise no_tree_error(allowed, _NO_TREE)
    return heads_from_arcs(graph.arc_view(q, "sum"))


def eisner3_max_marginals(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """Best tree score and the max-marginal of every arc under the grand-sibling model.

    Arguments as for `eisner3`.
    RETURNS (float, np.ndarray): the best score and an (n + 1, n + 1) array whose
    [h, m] entry is the best score of a tree containing h -> m (-inf if none).
    """
    graph, allowed = _third_order(scores, sib, grand, gsib, mask, single_root)
    best, q = _engine.max_marginals(graph)
    if best == -np.inf:
        raise no_tree_error(allowed, _NO_TREE)
    return best, graph.arc_view(q, "max")


def eisner3_marginals(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True):
    """Log partition function and arc marginals of p(tree) ∝ exp(score(tree))
    over projective trees under the grand-sibling model, in log space.

    Arguments as for `eisner3`.
    RETURNS (float, np.ndarray): log Z and an (n + 1, n + 1) array of
    P(h -> m in tree); each column m >= 1 sums to 1.
    """
    graph, allowed = _third_order(scores, sib, grand, gsib, mask, single_root)
    log_z, q = _engine.marginals(graph)
    if log_z == -np.inf:
        raise no_tree_error(allowed, _NO_TREE)
    return log_z, graph.arc_view(q, "sum")
