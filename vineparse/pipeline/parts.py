"""The scores of one sentence as the cascade levels read them (CPU, numpy), and d loss / d score of its parts.

The thinc scorers (`scorers.py`) produce, per batch, the dense arc scores of each sentence, the outer-arc
scores of every row and the part projections of every row. `SentenceScores` answers the levels' questions
from them for one sentence (or one piece of a long sentence): dense and sparse arc scores, outer scores and
higher-order part scores (the fused CPU kernel `_kernels/part_mlp.pyx` over `PartTables`, only for the parts
a level asks about, cached per sentence while training), and collects the gradients the losses add:
a dense d arcs, d outer (n + 1, 2) and (rows, gradient) lists per part kind. `training.py` sends them back
through the thinc layers. Positions in a sentence: 0 is the root, 1..n its words; `rows[i]` is the row of
position i in the batch arrays.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from .._kernels.part_mlp import part_mlp_scores
from .._kernels.roots import prefers_root, root_counts
from ..cascade.structures import ARC, GRAND_SIBLING, GRANDPARENT, OUTER, SIBLING, full_mask
from .scorers import (HEAD_COLUMN, SIBLING_COLUMN, add_span_scores, biaffine_predict, biaffine_scores,
                      dense_buckets)

PART_KINDS = (SIBLING, GRANDPARENT, GRAND_SIBLING)


@dataclass
class PartTable:
    """One part kind's scorer on the CPU: the projection P (R, c) of a batch's rows (the kind's own, or the
    projection the three kinds share), the first column of each of the kind's roles in it, starts (roles,)
    int64, and the scorer's v (p,), "no sibling" row (p,) and distance rows Q (N_BUCKETS, p); arrays float32."""

    P: np.ndarray
    starts: np.ndarray
    v: np.ndarray
    none: np.ndarray
    Q: np.ndarray


class SentenceScores:
    """The scores of one sentence of n words for the cascade levels.

    arcs (array (n + 1, n + 1)): dense arc scores [h, m] (float64).
    outer (array (n + 1, 2)): outer-arc scores [m, left / right] (float64).
    tables (Dict[int, PartTable] or None): the part scorers of the batch (None: first order only).
    rows (array (n + 1,) int): the sentence's rows in the batch arrays (its doc's root row first).
    cache (bool): remember higher-order part scores (training asks for the same parts many times;
        prediction asks once and skips the bookkeeping).
    `cost` (None or (n + 1, n + 1)) and `outer_cost` (None or (n + 1, 2)) are added to arc and outer scores
    while set (cost-augmented decoding); `gradient_scale` multiplies what `add_gradient` adds.
    """

    def __init__(self, arcs: np.ndarray, outer: np.ndarray, tables: Optional[Dict[int, PartTable]],
                 rows: np.ndarray, cache: bool = True):
        self.n = arcs.shape[0] - 1
        self._dense = np.ascontiguousarray(arcs, dtype=np.float64)
        self.outer = np.asarray(outer, dtype=np.float64)
        self.tables = tables
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cost: Optional[np.ndarray] = None
        self.outer_cost: Optional[np.ndarray] = None
        self.gradient_scale = 1.0
        self._cache = {} if cache else None
        self._local = {}
        self.d_arcs: Optional[np.ndarray] = None
        self.d_outer: Optional[np.ndarray] = None
        self.d_parts = {kind: [] for kind in PART_KINDS}

    # -- scores

    def dense_arcs(self) -> np.ndarray:
        """Every arc score, float64 (n + 1, n + 1) (without `cost`)."""
        return self._dense

    def arc_scores(self, arcs: np.ndarray) -> np.ndarray:
        """Scores of the arcs `arcs` (A, 2) rows (h, m), float64 (A,), plus `cost` while set."""
        h, m = arcs[:, 0], arcs[:, 1]
        values = self._dense[h, m]
        return values if self.cost is None else values + self.cost[h, m]

    def prefers_root(self, words: np.ndarray, window: int, margin: float = 0.0) -> np.ndarray:
        """For each word m of `words`: does the root outscore every head within `window` words of m by more
        than `margin`? Bool (len(words),). O(len(words) window) (`_kernels/roots.pyx`)."""
        return prefers_root(self._dense, words, window, margin)

    def part_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """Scores of parts of one kind, float64 (P,): arcs (h, m), outer (m, side), sibling (h, s, m),
        grandparent (g, h, m), grand-sibling (g, h, s, m)."""
        if not len(rows):
            return np.zeros(0)
        rows = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
        if kind == ARC:
            return self.arc_scores(rows)
        if kind == OUTER:
            values = self.outer[rows[:, 0], rows[:, 1]]
            return values if self.outer_cost is None else values + self.outer_cost[rows[:, 0], rows[:, 1]]
        if self._cache is None:
            return self._mlp_scores(kind, rows)
        return self._cached_part_scores(kind, rows)

    def _cached_part_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """Higher-order part scores, each part computed once per sentence (the cascade's forced decodes ask
        for overlapping part lists many times). Cached by the part's index in base n + 1."""
        keys = rows @ (self.n + 1) ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
        known, values = self._cache.get(kind, (np.zeros(0, dtype=np.int64), np.zeros(0)))
        at = np.minimum(np.searchsorted(known, keys), max(len(known) - 1, 0))
        hit = (known[at] == keys) if len(known) else np.zeros(len(keys), dtype=bool)
        out = np.empty(len(keys))
        out[hit] = values[at[hit]]
        if not hit.all():
            new_keys, first = np.unique(keys[~hit], return_index=True)
            new_values = self._mlp_scores(kind, rows[~hit][first])
            merged = np.concatenate([known, new_keys])
            order = np.argsort(merged, kind="stable")
            known, values = merged[order], np.concatenate([values, new_values])[order]
            self._cache[kind] = (known, values)
            out[~hit] = values[np.searchsorted(known, keys[~hit])]
        return out

    def _mlp_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """The part MLP by the fused kernel over this sentence's rows of the kind's projection."""
        if self.tables is None:
            raise ValueError("this sentence has no part scorers (first-order model)")
        table = self.tables[kind]
        local = self._local.get(kind)
        if local is None:
            local = self._local[kind] = np.ascontiguousarray(table.P[self.rows])
        return part_mlp_scores(local, np.ascontiguousarray(rows), table.starts, table.v, SIBLING_COLUMN[kind],
                               table.none if SIBLING_COLUMN[kind] > 0 else np.zeros(0, dtype=table.v.dtype),
                               table.Q, self.bucket_table(), HEAD_COLUMN[kind])

    def bucket_table(self) -> np.ndarray:
        """`scorers.dense_buckets(n)`: the sentence's positions are contiguous."""
        return dense_buckets(self.n)

    # -- gradients: d loss / d score of parts

    def add_gradient(self, kind: int, rows: np.ndarray, gradient) -> None:
        """Add `gradient` (scalar or (P,)) to d loss / d score of each part in `rows`."""
        if not len(rows):
            return
        rows = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
        gradient = np.broadcast_to(self.gradient_scale * np.asarray(gradient, dtype=np.float64), (len(rows),))
        if kind == ARC:
            if self.d_arcs is None:
                self.d_arcs = np.zeros((self.n + 1, self.n + 1))
            np.add.at(self.d_arcs, (rows[:, 0], rows[:, 1]), gradient)
        elif kind == OUTER:
            if self.d_outer is None:
                self.d_outer = np.zeros((self.n + 1, 2))
            np.add.at(self.d_outer, (rows[:, 0], rows[:, 1]), gradient)
        else:
            self.d_parts[kind].append((rows, gradient))

    def add_arc_gradient(self, d_arcs: np.ndarray) -> None:
        """Add a dense (n + 1, n + 1) d loss / d arc score (times `gradient_scale`)."""
        d_arcs = self.gradient_scale * d_arcs
        self.d_arcs = d_arcs.copy() if self.d_arcs is None else self.d_arcs + d_arcs

    def part_gradients(self, kind: int):
        """The parts of one kind with a gradient, merged: (rows (P, roles) in sentence positions, gradient
        (P,)), or None. Parts whose gradients cancel are dropped."""
        found = self.d_parts[kind]
        if not found:
            return None
        rows = np.concatenate([r for r, _ in found])
        gradient = np.concatenate([g for _, g in found])
        keys = rows @ (self.n + 1) ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        total = np.bincount(inverse.ravel(), gradient, minlength=len(unique))
        keep = total != 0.0
        if not keep.any():
            return None
        return rows[first][keep], total[keep]


class NeuralPartScorer:
    """The cascade levels' scorer (`vineparse.cascade.levels`) over a sentence's neural scores: the structures
    read the scores of a `SentenceScores` (cost terms included while set), and an update of `step` adds
    -step to d loss / d score of each part (a perceptron step of +1 on gold is a gradient of -1), which the
    component then backpropagates into the thinc model. Holds nothing: one instance serves every level."""

    def part_scores(self, sent: SentenceScores, kind: int, rows: np.ndarray) -> np.ndarray:
        return sent.part_scores(kind, rows)

    def arc_scores(self, sent: SentenceScores, mask) -> np.ndarray:
        dense = sent.dense_arcs() if sent.cost is None else sent.dense_arcs() + sent.cost
        return np.where(full_mask(sent.n) if mask is None else mask, dense, -np.inf)

    def update(self, sent: SentenceScores, parts, step: float) -> None:
        for kind, rows in parts:
            sent.add_gradient(kind, rows, -step)

    def tick(self) -> None:
        """No averaging clock: the optimizer owns the parameters."""

    def average(self) -> None:
        """Nothing to average (see `tick`)."""


NEURAL_SCORER = NeuralPartScorer()


class BatchScores:
    """What the sentences of a batch are scored from, on the CPU: the biaffine row terms of every row
    (`scorers.biaffine_row_terms`), the outer-arc scores of every row and the part tables, plus the arc scorer
    and its projection HD for sentences whose positions are not contiguous. `sentences` turns lists of rows
    into `SentenceScores`.

    arc_terms (tuple): `biaffine_row_terms` of the batch; outer (array (R, 2)): float64;
    tables (Dict[int, PartTable] or None); arc_scorer (Model): the "arcs" layer; HD: its projection (R, 2a + k);
    span_terms: `span_row_terms` of the batch (None without a span term).
    """

    def __init__(self, arc_terms, outer: np.ndarray, tables: Optional[Dict[int, "PartTable"]], arc_scorer, HD,
                 span_terms=None):
        self.arc_terms = arc_terms
        self.outer = outer
        self.tables = tables
        self.arc_scorer = arc_scorer
        self.HD = HD
        self.span_terms = span_terms

    def sentences(self, rows: List[np.ndarray], positions: Optional[List[Optional[np.ndarray]]] = None,
                  cache: bool = False) -> List[SentenceScores]:
        """`SentenceScores` of each row list (its root row first): dense arc scores of contiguous sentences in
        one compiled call (`scorers.biaffine_predict`), by the arc scorer's formula where `positions` gives
        a list's token positions (0 = root). cache: see `SentenceScores`."""
        if not rows:
            return []
        if positions is None or all(p is None for p in positions):
            dense = add_span_scores(self.span_terms, rows, biaffine_predict(self.arc_terms, rows))
        else:
            ops = self.arc_scorer.ops
            dense = [ops.to_numpy(S) for S in biaffine_scores(self.arc_scorer, self.HD, rows, positions)[0]]
        return [SentenceScores(S, self.outer[r], self.tables, r, cache=cache) for S, r in zip(dense, rows)]


def may_split(sentences: Sequence[SentenceScores], window: int, margin: float = 0.0) -> np.ndarray:
    """For each sentence, do two or more of its words prefer the root (`SentenceScores.prefers_root`)? A doc
    without boundaries is cut only between two ROOT words of its vine that both pass it
    (`splitting.window_cuts`), so otherwise it stays one sentence without a vine pass. RETURNS bool
    (len(sentences),). One compiled call for all (`_kernels/roots.pyx`), O(n min(n, window)) per sentence."""
    return root_counts([s.dense_arcs() for s in sentences], window, margin) >= 2
