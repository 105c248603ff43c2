"""The structures of a pruning cascade: vine, local, first, second and third order. They hold no weights.

A structure knows its dynamic program (`vineparse.kernels`), the parts a structure of it is made of, and how
its max-marginals prune the arcs of the next level; the scores come from a scorer passed in on every call
(`levels.Level` composes the two). A scorer answers, for a sentence `sent` of n words (whatever it reads:
hashed tokens for the sparse models, neural scores for the spaCy component):

* `part_scores(sent, kind, rows)` -> float64 (P,): the scores of P parts of one kind (ARC rows (h, m), OUTER
  (m, side), SIBLING (h, s, m), GRANDPARENT (g, h, m), GRAND_SIBLING (g, h, s, m));
* `arc_scores(sent, mask)` -> float64 (n + 1, n + 1): every arc's score, -inf outside `mask` (None: every
  arc of `full_mask`);

each including the cost terms of cost-augmented decoding that the sentence carries while training.

Prunable parts, whose max-marginals the cascade thresholds: arcs for the Eisner orders and the local level;
short arcs (|h - m| <= band), ROOT arcs and outer arcs (m, side) for the vine. Structures are head arrays
(int64 (n + 1,), heads[0] = -1); a vine structure is (heads, attach), its words' attachment labels (see
`vineparse.kernels.vine`). Masks are bool (n + 1, n + 1), None meaning every arc.
"""
from functools import lru_cache
from typing import List, Optional, Tuple

import numpy as np

from .. import kernels
from .._kernels.features import PartKind
from .._kernels.thresholds import local_marginals
from ..kernels.second_order import second_order_parts
from ..kernels.third_order import third_order_parts
from .thresholds import prune_mask

Parts = List[Tuple[int, np.ndarray]]   # (part kind, int64 rows) pairs
ARC, OUTER, SIBLING, GRANDPARENT, GRAND_SIBLING = (int(kind) for kind in PartKind)


def full_mask(n: int) -> np.ndarray:
    """Every arc allowed (no arcs into the root, no self-loops)."""
    mask = np.ones((n + 1, n + 1), dtype=bool)
    mask[:, 0] = False
    np.fill_diagonal(mask, False)
    return mask


def forced(mask: np.ndarray, arc) -> np.ndarray:
    """`mask` with modifier m allowed only its head h."""
    h, m = arc
    out = mask.copy()
    out[:, m] = False
    out[h, m] = True
    return out


def arc_rows(heads: np.ndarray) -> np.ndarray:
    """(h, m) of every arc of a tree: int64 (n, 2)."""
    m = np.arange(1, len(heads))
    return np.stack([heads[1:], m], axis=1).astype(np.int64)


def sibling_rows(heads: np.ndarray) -> np.ndarray:
    """(h, s, m) of every arc of a tree, s the next modifier of h towards h on m's side (s == h for the
    first): per head (in order), its right modifiers from the nearest out, then its left ones likewise.
    heads: int64 (n + 1,), heads[0] = -1. RETURNS int64 (n, 3). O(n log n)."""
    m = np.arange(1, len(heads), dtype=np.int64)
    h = np.asarray(heads[1:], dtype=np.int64)
    right = m > h
    order = np.lexsort((np.abs(m - h), ~right, h))          # by head, right side first, nearest first
    hs, ms, side = h[order], m[order], right[order]
    same = np.concatenate([[False], (hs[1:] == hs[:-1]) & (side[1:] == side[:-1])])   # a nearer sibling before
    s = np.where(same, np.concatenate([[0], ms[:-1]]), hs)
    return np.stack([hs, s, ms], axis=1)


@lru_cache(maxsize=512)
def band_arcs(n: int, band: int) -> np.ndarray:
    """The vine's scored arcs of an n-word sentence (root arcs, then |h - m| = 1..band), (A, 2) int64,
    read-only."""
    words = np.arange(1, n + 1)
    blocks = [np.stack([np.zeros(n, dtype=np.int64), words], axis=1)]
    for d in range(1, min(band, n - 1) + 1):
        blocks.append(np.stack([words[:-d], words[d:]], axis=1))
        blocks.append(np.stack([words[d:], words[:-d]], axis=1))
    out = np.ascontiguousarray(np.concatenate(blocks), dtype=np.int64)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=512)
def outer_rows(n: int) -> np.ndarray:
    """Every outer arc (m, side) for m = 0..n, sides 0 (left) and 1 (right): (2n + 2, 2) int64, read-only."""
    out = np.stack([np.repeat(np.arange(n + 1), 2), np.tile([0, 1], n + 1)], axis=1).astype(np.int64)
    out.flags.writeable = False
    return out


class Structure:
    """A dependency structure's dynamic program, its parts and its pruning (no weights; see the module
    docstring for the scorer it is given)."""

    name = "structure"
    order = -1

    def max_marginals(self, scorer, sent, mask) -> Tuple[float, np.ndarray, Optional[np.ndarray]]:
        """(best score, arc max-marginals (n + 1, n + 1), outer max-marginals (n + 1, 2) or None) under
        `mask`."""
        raise NotImplementedError

    def decode(self, scorer, sent, mask, force=None):
        """The best structure under `mask`; `force`: an arc (h, m) that it must use."""
        raise NotImplementedError

    def tree_parts(self, heads: np.ndarray, attach: Optional[np.ndarray] = None) -> Parts:
        """The scored parts of a structure (`attach`: the vine's attachment labels)."""
        raise NotImplementedError

    def prune_mask(self, best: float, arc_mm: np.ndarray, outer_mm: Optional[np.ndarray], alpha: float,
                   head_cap: Optional[int] = None) -> np.ndarray:
        """The arc mask this structure's max-marginals leave for the next level at threshold parameter
        `alpha`, with at most `head_cap` heads per word (None: no cap; see `thresholds.prune_mask`)."""
        return prune_mask(best, arc_mm, None, alpha, head_cap or 0)


class Local(Structure):
    """Every word picks its head on its own: no tree constraint, so the max-marginal of an arc is closed-form,
    mm(h, m) = best - max_h' s(h', m) + s(h, m). The slides' Local baseline, as a pruner only."""

    name, order = "local", "local"

    def max_marginals(self, scorer, sent, mask):
        best, mm = local_marginals(scorer.arc_scores(sent, mask))
        return best, mm, None

    def decode(self, scorer, sent, mask, force=None):
        scores = scorer.arc_scores(sent, mask)
        heads = np.concatenate([[-1], scores[:, 1:].argmax(axis=0)]).astype(np.int64)
        if force is not None:
            heads[force[1]] = force[0]
        return heads

    def tree_parts(self, heads, attach=None):
        return [(ARC, arc_rows(heads))]


class FirstOrder(Structure):
    """Projective trees scored by their arcs (Eisner 1996). O(n^3) unpruned; O(kept arcs x n) pruned."""

    name, order = "first", 1

    def max_marginals(self, scorer, sent, mask):
        best, mm = kernels.eisner_max_marginals(scorer.arc_scores(sent, mask), mask)
        return best, mm, None

    def decode(self, scorer, sent, mask, force=None):
        mask = full_mask(sent.n) if mask is None else mask
        if force is not None:
            mask = forced(mask, force)
        return kernels.eisner(scorer.arc_scores(sent, mask), mask)

    def tree_parts(self, heads, attach=None):
        return [(ARC, arc_rows(heads))]


class SecondOrder(Structure):
    """Projective trees scored by arcs and adjacent siblings (McDonald & Pereira 2006). O(n^3)."""

    name, order = "second", 2

    def _inputs(self, scorer, sent, mask):
        mask = full_mask(sent.n) if mask is None else mask
        return scorer.arc_scores(sent, mask), scorer.part_scores(sent, SIBLING, second_order_parts(mask)), mask

    def max_marginals(self, scorer, sent, mask):
        best, mm = kernels.eisner2_max_marginals(*self._inputs(scorer, sent, mask))
        return best, mm, None

    def decode(self, scorer, sent, mask, force=None):
        mask = full_mask(sent.n) if mask is None else mask
        if force is not None:
            mask = forced(mask, force)
        return kernels.eisner2(*self._inputs(scorer, sent, mask))

    def tree_parts(self, heads, attach=None):
        return [(ARC, arc_rows(heads)), (SIBLING, sibling_rows(heads))]


class ThirdOrder(Structure):
    """Projective trees scored by arcs, siblings, grandparents and grand-siblings (Koo & Collins 2010).
    O(n^4)."""

    name, order = "third", 3

    def _inputs(self, scorer, sent, mask):
        parts = third_order_parts(mask, sent.n)
        return dict(scores=scorer.arc_scores(sent, mask),
                    sib=scorer.part_scores(sent, SIBLING, parts["sibling"]),
                    grand=scorer.part_scores(sent, GRANDPARENT, parts["grandparent"]),
                    gsib=scorer.part_scores(sent, GRAND_SIBLING, parts["grand_sibling"]),
                    mask=mask)

    def max_marginals(self, scorer, sent, mask):
        best, mm = kernels.eisner3_max_marginals(**self._inputs(scorer, sent, mask))
        return best, mm, None

    def decode(self, scorer, sent, mask, force=None):
        if force is not None:
            mask = forced(full_mask(sent.n) if mask is None else mask, force)
        return kernels.eisner3(**self._inputs(scorer, sent, mask))

    def tree_parts(self, heads, attach=None):
        siblings = sibling_rows(heads)
        inner = siblings[siblings[:, 0] > 0]
        grand = np.concatenate([heads[inner[:, 0], None], inner[:, [0, 2]]], axis=1)
        gsib = np.concatenate([heads[inner[:, 0], None], inner], axis=1)
        return [(ARC, arc_rows(heads)), (SIBLING, siblings), (GRANDPARENT, grand), (GRAND_SIBLING, gsib)]


class Vine(Structure):
    """The linear-time vine (Eisner & Smith 2005; Rush & Petrov 2012): short arcs (|h - m| <= band), ROOT
    arcs, and outer arcs (m, side) standing for every head further than the band on one side. O(n band^2).

    band (int): the longest short arc. Its structures are (heads, attach): heads 0 for words attached to the
    vine; a forced part is ("arc", (h, m)) or ("outer", (m, side)).
    """

    name, order = "vine", 0

    def __init__(self, band: int = 5):
        self.band = band

    def _inputs(self, scorer, sent):
        n = sent.n
        scores = np.full((n + 1, n + 1), -np.inf)
        arcs = band_arcs(n, self.band)
        if len(arcs):
            scores[arcs[:, 0], arcs[:, 1]] = scorer.part_scores(sent, ARC, arcs)
        outer = scorer.part_scores(sent, OUTER, outer_rows(n)).reshape(n + 1, 2)
        return scores, outer

    def max_marginals(self, scorer, sent, mask=None):
        scores, outer = self._inputs(scorer, sent)
        return kernels.vine_max_marginals(scores, outer, self.band)

    def decode(self, scorer, sent, mask=None, force=None):
        scores, outer = self._inputs(scorer, sent)
        arc_mask, outer_mask = None, None
        if force is not None:
            kind, (a, b) = force
            arc_mask = np.ones_like(scores, dtype=bool)
            outer_mask = np.ones((sent.n + 1, 2), dtype=bool)
            if kind == "arc":
                arc_mask = forced(arc_mask, (a, b))
                outer_mask[b] = False
            else:
                arc_mask[:, a] = False
                outer_mask[a] = False
                outer_mask[a, b] = True
        return kernels.vine(scores, outer, self.band, arc_mask, outer_mask)

    def prune_mask(self, best, arc_mm, outer_mm, alpha, head_cap=None):
        """Short and ROOT arcs on their own max-marginals, far heads through their side's outer arc (never
        capped: an outer arc stands for many heads at once)."""
        return prune_mask(best, arc_mm, outer_mm, alpha, band=self.band)

    def vine_structure(self, heads: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """A projective tree as the vine sees it: long arcs become outer arcs of their modifier."""
        m = np.arange(len(heads))
        short = (heads > 0) & (np.abs(heads - m) <= self.band)
        attach = np.where(short, kernels.ATTACH_SHORT,
                          np.where(heads == 0, kernels.ATTACH_ROOT,
                                   np.where(heads < m, kernels.ATTACH_OUTER_LEFT, kernels.ATTACH_OUTER_RIGHT)))
        attach[0] = kernels.ATTACH_SHORT
        return np.where(short | (m == 0), heads, 0), attach.astype(np.int8)

    def tree_parts(self, heads, attach=None):
        if attach is None:
            heads, attach = self.vine_structure(heads)
        m = np.arange(1, len(heads))
        a = attach[1:]
        arcs = np.stack([heads[1:], m], axis=1)[(a == kernels.ATTACH_SHORT) | (a == kernels.ATTACH_ROOT)]
        outer_m = m[(a == kernels.ATTACH_OUTER_LEFT) | (a == kernels.ATTACH_OUTER_RIGHT)]
        sides = (attach[outer_m] == kernels.ATTACH_OUTER_RIGHT).astype(np.int64)
        return [(ARC, arcs.astype(np.int64)), (OUTER, np.stack([outer_m, sides], axis=1).astype(np.int64))]


STRUCTURES = {structure.order: structure for structure in (Vine, Local, FirstOrder, SecondOrder, ThirdOrder)}


def make_structure(order, band: int = 5) -> Structure:
    """The structure of a cascade level: 0 = vine (with `band`), "local", 1-3 = Eisner orders."""
    if order not in STRUCTURES:
        raise ValueError(f"unknown cascade level {order!r}: use 0 (vine), 'local', 1, 2 or 3")
    return Vine(band) if order == 0 else STRUCTURES[order]()
