"""The levels of a vine pruning cascade: vine, first, second and third order.

Each level is a linear model over hashed sparse features (`_kernels/features.pyx`)
of its parts, with its own weight vector. A level scores only the parts that
survive the mask it is given, runs its dynamic program, and reports
max-marginals over its *prunable parts* so that the cascade can threshold them:

* vine: short arcs (|h - m| <= band), ROOT labels at [0, m], outer arcs (m, side);
* orders 1-3: arcs.

Structures are head arrays (int64, length n + 1, heads[0] = -1); a vine
structure also carries its attachment labels (see `vineparse.kernels.vine`).
"""
from functools import lru_cache
from typing import List, Optional, Tuple

import numpy as np

from .. import kernels
from .._kernels.features import PartKind, score_parts, update_parts
from ..kernels.second_order import eisner2, eisner2_max_marginals, second_order_parts
from ..kernels.third_order import eisner3, eisner3_max_marginals, third_order_parts
from .encoding import Encoded
from .._kernels.thresholds import local_marginals
from .thresholds import prune_mask

Parts = List[Tuple[int, np.ndarray]]   # (part kind, int64 rows) pairs
ARC, OUTER, SIBLING, GRANDPARENT, GRAND_SIBLING = (int(k) for k in PartKind)


class Level:
    """A linear model over the parts of one order.

    bits (int): log2 of the number of hashed feature weights.

    The weights are float64 (with the averaging totals beside them) while the level
    trains, and float32 once `average` has run: half the memory, and twice as many
    weights per cache line for the scorer's random reads. An update after that
    turns them back into float64.
    `head_cap` (int or None): as a pruning level, keep at most this many heads per
    word (those of highest max-marginal; see `thresholds.cap_heads`).
    """

    name = "level"
    order = -1
    head_cap: Optional[int] = None

    def __init__(self, bits: int = 20):
        self.bits = bits
        self.weights = np.zeros(1 << bits)
        self.totals = np.zeros(1 << bits)   # for averaging: sum of timestamp * step
        self.updates = 0.0                  # the averaging timestamp

    # -- scoring and search; `mask` is the (n + 1, n + 1) bool arc mask or None

    def max_marginals(self, sent: Encoded, mask) -> Tuple[float, np.ndarray, Optional[np.ndarray]]:
        """(best score, arc max-marginals (n + 1, n + 1), outer max-marginals (n + 1, 2) or None)."""
        raise NotImplementedError

    def decode(self, sent: Encoded, mask, force=None) -> np.ndarray:
        """The best structure (heads) under `mask`; `force` = a part that must be used."""
        raise NotImplementedError

    def prune_mask(self, best: float, arc_mm: np.ndarray, outer_mm: Optional[np.ndarray],
                   alpha: float) -> np.ndarray:
        """The arc mask this level leaves for the next at threshold parameter `alpha`
        (and at most `head_cap` heads per word when set)."""
        return prune_mask(best, arc_mm, None, alpha, self.head_cap or 0)

    def tree_parts(self, heads: np.ndarray) -> Parts:
        """The scored parts of a structure."""
        raise NotImplementedError

    def score(self, sent: Encoded, heads: np.ndarray) -> float:
        return sum(float(self._score(sent, kind, rows).sum()) for kind, rows in self.tree_parts(heads))

    def update(self, sent: Encoded, heads: np.ndarray, step: float) -> None:
        """weights += step * features(heads), recorded for averaging."""
        self._update(sent, self.tree_parts(heads), step)

    def _update(self, sent: Encoded, parts: Parts, step: float) -> None:
        if self.weights.dtype != np.float64:          # averaged and compacted: train on in float64
            self.weights = self.weights.astype(np.float64)
        if self.totals is None or len(self.totals) != len(self.weights):
            self.totals = np.zeros_like(self.weights)
        for kind, rows in parts:
            update_parts(kind, sent.tokens, np.ascontiguousarray(rows, dtype=np.int64),
                         self.weights, step, self.totals, self.updates)

    def tick(self) -> None:
        """Advance the averaging clock by one training example."""
        self.updates += 1.0

    def average(self) -> None:
        """Replace the weights by their average over the training updates, as float32
        (the averaging totals are released)."""
        if self.updates > 0 and self.totals is not None:
            self.weights = self.weights - self.totals / self.updates
        self.weights = self.weights.astype(np.float32)
        self.totals = None
        self.updates = 0.0

    def _arc_scores(self, sent: Encoded, arcs: np.ndarray) -> np.ndarray:
        """A dense (n + 1, n + 1) score matrix, -inf outside `arcs`, plus `sent.cost` when set."""
        n = sent.n
        scores = np.full((n + 1, n + 1), -np.inf)
        if len(arcs):
            scores[arcs[:, 0], arcs[:, 1]] = self._score(sent, ARC, arcs)
        return scores if sent.cost is None else scores + sent.cost

    def _masked_arc_scores(self, sent, mask: Optional[np.ndarray]) -> np.ndarray:
        """A dense (n + 1, n + 1) score matrix, -inf outside `mask` (None: every arc of `full_mask`)."""
        return self._arc_scores(sent, np.argwhere(full_mask(sent.n) if mask is None else mask))

    def _score(self, sent: Encoded, kind: int, rows: np.ndarray) -> np.ndarray:
        return score_parts(kind, sent.tokens, np.ascontiguousarray(rows, dtype=np.int64),
                           self.weights)


@lru_cache(maxsize=512)
def _band_arcs(n: int, band: int) -> np.ndarray:
    """The vine's scored arcs of an n-word sentence (root arcs, then |h - m| = 1..band), (A, 2) int64."""
    words = np.arange(1, n + 1)
    blocks = [np.stack([np.zeros(n, dtype=np.int64), words], axis=1)]
    for d in range(1, min(band, n - 1) + 1):
        blocks.append(np.stack([words[:-d], words[d:]], axis=1))
        blocks.append(np.stack([words[d:], words[:-d]], axis=1))
    out = np.ascontiguousarray(np.concatenate(blocks), dtype=np.int64)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=512)
def _outer_rows(n: int) -> np.ndarray:
    """Every outer arc (m, side) for m = 0..n, sides 0 (left) and 1 (right): (2n + 2, 2) int64."""
    out = np.stack([np.repeat(np.arange(n + 1), 2), np.tile([0, 1], n + 1)], axis=1).astype(np.int64)
    out.flags.writeable = False
    return out


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


def sibling_rows(heads: np.ndarray) -> np.ndarray:
    """(h, s, m) of every arc: s the next modifier of h towards h on m's side (s == h for the first)."""
    rows = []
    for h in range(len(heads)):
        children = np.flatnonzero(heads == h)
        right = children[children > h]
        left = children[children < h][::-1]
        for side in (right, left):
            previous = h
            for m in side:
                rows.append((h, previous, m))
                previous = m
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def arc_rows(heads: np.ndarray) -> np.ndarray:
    m = np.arange(1, len(heads))
    return np.stack([heads[1:], m], axis=1).astype(np.int64)


class LocalLevel(Level):
    """An unstructured arc classifier: every word picks its head on its own.

    Its "structures" are head arrays without the tree constraint, so the
    max-marginal of an arc is closed-form: mm(h, m) = best - max_h' s(h', m) + s(h, m).
    The slides' Local baseline, as a pruner only.
    """

    name, order = "local", "local"

    def _scores(self, sent, mask):
        return self._masked_arc_scores(sent, mask)

    def max_marginals(self, sent, mask):
        best, mm = local_marginals(self._scores(sent, mask))
        return best, mm, None

    def decode(self, sent, mask, force=None):
        scores = self._scores(sent, mask)
        heads = np.concatenate([[-1], scores[:, 1:].argmax(axis=0)]).astype(np.int64)
        if force is not None:
            heads[force[1]] = force[0]
        return heads

    def tree_parts(self, heads):
        return [(ARC, arc_rows(heads))]


class FirstOrderLevel(Level):
    name, order = "first", 1

    def max_marginals(self, sent, mask):
        best, mm = kernels.eisner_max_marginals(self._masked_arc_scores(sent, mask), mask)
        return best, mm, None

    def decode(self, sent, mask, force=None):
        mask = full_mask(sent.n) if mask is None else mask
        if force is not None:
            mask = forced(mask, force)
        return kernels.eisner(self._masked_arc_scores(sent, mask), mask)

    def tree_parts(self, heads):
        return [(ARC, arc_rows(heads))]


class SecondOrderLevel(Level):
    name, order = "second", 2

    def _inputs(self, sent, mask):
        mask = full_mask(sent.n) if mask is None else mask
        scores = self._masked_arc_scores(sent, mask)
        sib = self._score(sent, SIBLING, second_order_parts(mask))
        return scores, sib, mask

    def max_marginals(self, sent, mask):
        scores, sib, mask = self._inputs(sent, mask)
        best, mm = eisner2_max_marginals(scores, sib, mask)
        return best, mm, None

    def decode(self, sent, mask, force=None):
        mask = full_mask(sent.n) if mask is None else mask
        if force is not None:
            mask = forced(mask, force)
        return eisner2(*self._inputs(sent, mask))

    def tree_parts(self, heads):
        return [(ARC, arc_rows(heads)), (SIBLING, sibling_rows(heads))]


class ThirdOrderLevel(Level):
    name, order = "third", 3

    def _inputs(self, sent, mask):
        parts = third_order_parts(mask, sent.n)
        return dict(scores=self._masked_arc_scores(sent, mask),
                    sib=self._score(sent, SIBLING, parts["sibling"]),
                    grand=self._score(sent, GRANDPARENT, parts["grandparent"]),
                    gsib=self._score(sent, GRAND_SIBLING, parts["grand_sibling"]),
                    mask=mask)

    def max_marginals(self, sent, mask):
        best, mm = eisner3_max_marginals(**self._inputs(sent, mask))
        return best, mm, None

    def decode(self, sent, mask, force=None):
        if force is not None:
            mask = forced(full_mask(sent.n) if mask is None else mask, force)
        return eisner3(**self._inputs(sent, mask))

    def tree_parts(self, heads):
        siblings = sibling_rows(heads)
        inner = siblings[siblings[:, 0] > 0]
        grand = np.concatenate([heads[inner[:, 0], None], inner[:, [0, 2]]], axis=1)
        gsib = np.concatenate([heads[inner[:, 0], None], inner], axis=1)
        return [(ARC, arc_rows(heads)), (SIBLING, siblings), (GRANDPARENT, grand), (GRAND_SIBLING, gsib)]


class VineLevel(Level):
    """The linear-time vine: short arcs, ROOT labels and outer arcs.

    band (int): the longest short arc.
    """

    name, order = "vine", 0

    def __init__(self, bits: int = 20, band: int = 5):
        super().__init__(bits)
        self.band = band

    def band_arcs(self, n: int) -> np.ndarray:
        """Every arc the vine scores: short arcs between words and root arcs, (A, 2) (read-only)."""
        return _band_arcs(n, self.band)

    def _inputs(self, sent):
        n = sent.n
        scores = self._arc_scores(sent, self.band_arcs(n))
        outer = self._score(sent, OUTER, _outer_rows(n)).reshape(n + 1, 2)
        return scores, outer

    def prune_mask(self, best, arc_mm, outer_mm, alpha):
        return prune_mask(best, arc_mm, outer_mm, alpha, band=self.band)

    def max_marginals(self, sent, mask=None, outer_mask=None):
        scores, outer = self._inputs(sent)
        return kernels.vine_max_marginals(scores, outer, self.band, mask, outer_mask)

    def decode(self, sent, mask=None, force=None):
        """The best vine structure as (heads, attach); `force` = ("arc", (h, m)) or ("outer", (m, side))."""
        scores, outer = self._inputs(sent)
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

    def score_structure(self, sent: Encoded, heads: np.ndarray, attach: np.ndarray) -> float:
        """The score of a vine structure (heads with 0 for vine words, and their labels)."""
        return sum(float(self._score(sent, kind, rows).sum()) for kind, rows in self.tree_parts(heads, attach))

    def update_structure(self, sent: Encoded, heads: np.ndarray, attach: np.ndarray, step: float) -> None:
        self._update(sent, self.tree_parts(heads, attach), step)


LEVELS = {cls.order: cls for cls in (VineLevel, LocalLevel, FirstOrderLevel, SecondOrderLevel, ThirdOrderLevel)}
