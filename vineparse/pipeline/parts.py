"""Neural part scores of one sentence, and their gradients.

The thinc model (`architectures.build_vine_cascade_model`) maps every token of a doc, and a learned root
row at position 0, to a row of role features Z of width K (`FeatureLayout`). This module turns those rows into
the scores the cascade levels ask for, only for the parts they ask about:

* arcs (biaffine, Dozat & Manning 2017): with H = relu(Z[:, arc_head]) and D = relu(Z[:, arc_dep]),
  s(h, m) = H[h] U D[m] + H[h] . u + H[h] . F[b] + D[m] . E[b] + c[b], b = `distance_buckets(h, m)` the
  signed, log-bucketed distance (its own bucket for the root). A convolutional tok2vec is translation
  invariant: without the distance terms the scorer cannot tell two equal words at different distances
  apart (every noun of the sentence would be an equally good head for "the"); a BiLSTM encoder carries
  position, a CNN does not. The distance terms are used when `params` holds E_dist, F_dist and c_dist;
* outer arcs of the vine: s(m, side) = Z[m, outer + side];
* sibling (h, s, m), grandparent (g, h, m), grand-sibling (g, h, s, m): a one-hidden-layer MLP over the
  concatenated role features of the part's words, v . relu(sum of role rows) (a linear layer over a
  concatenation is the sum of per-role projections, so every token is projected once, and a part costs
  O(width)); s == h (no inner sibling) uses a learned row instead of the sibling's; with Q_sib / Q_gp /
  Q_gs (N_BUCKETS, part_width) in `params`, the row of the distance bucket of the part's arc h -> m is added
  to the sum (the role rows carry no position);
* labels of an arc (h, m): softmax(relu(Z[h, label_head] + Z[m, label_dep] + M[b]) L^T + l), b the arc's
  distance bucket (direction decides much of a label: nsubj vs obj); M_dist is used when `params` holds it.

`SentenceScores` also accumulates d loss / d part score (`add_gradient`) and turns it into d loss / d Z and
d loss / d scorer parameters (`backward`). Arc scores are dense per sentence when that is cheaper; for a
whole-document vine pass only the band is scored, O(n b d).
"""
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Optional

import numpy as np

from .._kernels.features import PartKind
from .._kernels.part_mlp import part_mlp_scores

# upper bounds (exclusive) of the distance classes |h - m| = 1, 2, 3, 4, 5, 6-7, 8-10, 11-15, 16-20, 21-30, 31+
DISTANCE_EDGES = np.array([2, 3, 4, 5, 6, 8, 11, 16, 21, 31])
DISTANCE_CLASSES = len(DISTANCE_EDGES) + 1
N_BUCKETS = 1 + 2 * DISTANCE_CLASSES          # the root, then heads left of m, then heads right of m
BUCKET_TABLE_LIMIT = 512                      # sentences up to this length read buckets from a cached table
_DENSE_BUCKETS = {}


def distance_buckets(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The distance bucket of each arc h -> m (int64, broadcast shape): 0 for the root (h = 0), 1 +
    class(|h - m|) for a head left of m, 1 + DISTANCE_CLASSES + class(|h - m|) for a head right of m."""
    h, m = np.asarray(h), np.asarray(m)
    classes = np.searchsorted(DISTANCE_EDGES, np.abs(h - m), side="right")
    return np.where(h == 0, 0, 1 + classes + DISTANCE_CLASSES * (h > m)).astype(np.int64)


def dense_buckets(n: int) -> np.ndarray:
    """`distance_buckets` of every (h, m) of an n-word sentence, (n + 1, n + 1), cached per n (read only)."""
    out = _DENSE_BUCKETS.get(n)
    if out is None:
        index = np.arange(n + 1)
        out = distance_buckets(index[:, None], index[None, :])
        out.setflags(write=False)
        if n <= BUCKET_TABLE_LIMIT:
            _DENSE_BUCKETS[n] = out
    return out

ARC, OUTER, SIBLING, GRANDPARENT, GRAND_SIBLING = (int(k) for k in PartKind)
# the roles of each higher-order part kind, in row order; "none" marks the optional inner sibling
ROLES = {SIBLING: ("sib_h", "sib_s", "sib_m"), GRANDPARENT: ("gp_g", "gp_h", "gp_m"),
         GRAND_SIBLING: ("gs_g", "gs_h", "gs_s", "gs_m")}
VECTOR = {SIBLING: "v_sib", GRANDPARENT: "v_gp", GRAND_SIBLING: "v_gs"}
NONE_ROW = {SIBLING: "none_sib", GRAND_SIBLING: "none_gs"}   # the role that may be "no sibling"
SIBLING_COLUMN = {SIBLING: 1, GRAND_SIBLING: 2}               # its column in the part rows
HEAD_COLUMN = {SIBLING: 0, GRANDPARENT: 1, GRAND_SIBLING: 1}  # the column of h (m is the last one)
PART_DISTANCE = {SIBLING: "Q_sib", GRANDPARENT: "Q_gp", GRAND_SIBLING: "Q_gs"}   # optional distance rows


@dataclass(frozen=True)
class FeatureLayout:
    """Column blocks of the role features Z: arc (2 x arc_width), outer (2), part roles (10 x part_width),
    label (2 x label_width)."""

    arc_width: int
    part_width: int
    label_width: int

    def blocks(self) -> Dict[str, slice]:
        """The column slice of each role block (one shared dict per layout: do not modify)."""
        return _layout_blocks(self)

    def _blocks(self) -> Dict[str, slice]:
        sizes = [("arc_head", self.arc_width), ("arc_dep", self.arc_width), ("outer", 2)]
        sizes += [(role, self.part_width) for kind in (SIBLING, GRANDPARENT, GRAND_SIBLING) for role in ROLES[kind]]
        sizes += [("label_head", self.label_width), ("label_dep", self.label_width)]
        out, start = {}, 0
        for name, size in sizes:
            out[name] = slice(start, start + size)
            start += size
        return out

    @property
    def width(self) -> int:
        return 2 * self.arc_width + 2 + 10 * self.part_width + 2 * self.label_width


@lru_cache(maxsize=32)
def _layout_blocks(layout: FeatureLayout) -> Dict[str, slice]:
    return layout._blocks()


@lru_cache(maxsize=32)
def role_starts(layout: FeatureLayout, kind: int) -> np.ndarray:
    """The first Z column of each role of a higher-order part kind, in row order (int64, read only)."""
    starts = np.array([layout.blocks()[name].start for name in ROLES[kind]], dtype=np.int64)
    starts.setflags(write=False)
    return starts


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def arc_rows(Z: np.ndarray, params: Dict[str, np.ndarray], blocks: Dict[str, slice]) -> Dict[str, np.ndarray]:
    """The per-row arrays of the arc scorer for role features Z (any stack of rows): H = relu(Z[:, arc_head])
    and D = relu(Z[:, arc_dep]) (rows, a), HU = H U (rows, a), Hu = H u (rows,) and, with the distance terms,
    HF = H F^T + c and DE = D E^T (rows, N_BUCKETS). Row-wise, so computed once for a whole batch and sliced
    per sentence (`SentenceScores(rows=...)`)."""
    H = relu(Z[:, blocks["arc_head"]])
    D = relu(Z[:, blocks["arc_dep"]])
    out = {"H": H, "D": D, "HU": H @ params["U"], "Hu": H @ params["u"]}
    if "E_dist" in params:
        out["HF"] = H @ params["F_dist"].T + params["c_dist"][None, :]
        out["DE"] = D @ params["E_dist"].T
    return out


def label_pre(Z: np.ndarray, params: Dict[str, np.ndarray], blocks: Dict[str, slice], heads: np.ndarray,
              mods: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """The label classifier's hidden pre-activations (A, label_width) of the arcs heads[i] -> mods[i], rows
    of Z (any stack of rows), with distance buckets `buckets` (A,) (used when `params` has M_dist). Row-wise,
    so one call serves a whole batch."""
    pre = Z[heads, blocks["label_head"]] + Z[mods, blocks["label_dep"]]
    if "M_dist" in params:
        pre = pre + params["M_dist"][buckets]
    return pre


def label_logits(Z: np.ndarray, params: Dict[str, np.ndarray], blocks: Dict[str, slice], heads: np.ndarray,
                 mods: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """The label classifier's logits (A, labels) of the arcs heads[i] -> mods[i] (arguments as `label_pre`);
    their argmax over a whole batch gives its labels."""
    return relu(label_pre(Z, params, blocks, heads, mods, buckets)) @ params["L"].T + params["l_b"]


class SentenceScores:
    """The part scores of one sentence (n words, root at 0) from its role features.

    Z (array (n + 1, K)): role features, row 0 the root.
    params (dict): the scorer parameters U (a, a), u (a,), v_sib / v_gp / v_gs (p,), none_sib / none_gs (p,),
        L (labels, l), l_b (labels,); optionally the distance terms E_dist, F_dist (N_BUCKETS, a),
        c_dist (N_BUCKETS,) of the arc scorer, Q_sib / Q_gp / Q_gs (N_BUCKETS, p) of the part MLPs and
        M_dist (N_BUCKETS, l) of the label classifier.
    layout (FeatureLayout): the column blocks of Z.
    cache (bool): remember higher-order part scores (training asks for the same parts many times;
        prediction asks once, and skips the bookkeeping).
    rows (dict or None): `arc_rows` of exactly these rows of Z, when already computed (for a batch).
    `cost` (None or (n + 1, n + 1)) and `outer_cost` (None or (n + 1, 2)): added to arc and outer scores
    while set (cost-augmented decoding).
    """

    def __init__(self, Z: np.ndarray, params: Dict[str, np.ndarray], layout: FeatureLayout, cache: bool = True,
                 rows: Optional[Dict[str, np.ndarray]] = None):
        self.Z = Z
        self.n = Z.shape[0] - 1
        self.params = params
        self.layout = layout
        self.blocks = layout.blocks()
        self.cost: Optional[np.ndarray] = None
        self.gradient_scale = 1.0         # multiplies what `add_gradient` adds (weights a loss)
        self.outer_cost: Optional[np.ndarray] = None
        self._roles = {}
        self._mlp_args = {}
        self._buckets = None
        rows = arc_rows(Z, params, self.blocks) if rows is None else rows
        self.H, self.D, self.HU, self.Hu = rows["H"], rows["D"], rows["HU"], rows["Hu"]
        self.distance = "E_dist" in params
        if self.distance:                 # per word and bucket: head-side (with c) and dependent-side terms
            self.HF, self.DE = rows["HF"], rows["DE"]
        self._dense = None
        self._cache = {} if cache else None
        self.d_arcs = None
        self.d_parts = []     # (kind, rows, gradient) triples
        self.vine_max_marginals = None    # (band, vine max-marginals) left by `NeuralVineLevel.best_structure`

    def role(self, name: str) -> np.ndarray:
        if name not in self._roles:
            self._roles[name] = np.ascontiguousarray(self.Z[:, self.blocks[name]])
        return self._roles[name]

    # -- scores

    def dense_arcs(self) -> np.ndarray:
        """Every arc score, float64 (n + 1, n + 1). O(n^2 a)."""
        if self._dense is None:
            dense = self.HU @ self.D.T + self.Hu[:, None]
            if self.distance:
                buckets = dense_buckets(self.n)
                index = np.arange(self.n + 1)
                dense += self.HF[index[:, None], buckets] + self.DE[index[None, :], buckets]
            self._dense = dense.astype(np.float64)
        return self._dense

    def arc_scores(self, arcs: np.ndarray) -> np.ndarray:
        """Scores of the arcs `arcs` (A, 2) rows (h, m), float64 (A,); dense when most arcs are asked for."""
        h, m = arcs[:, 0], arcs[:, 1]
        if self._dense is not None or 4 * len(arcs) >= (self.n + 1) ** 2:
            values = self.dense_arcs()[h, m]
        else:
            values = np.einsum("ij,ij->i", self.HU[h], self.D[m]) + self.Hu[h]
            if self.distance:
                buckets = self.buckets(h, m)
                values = values + self.HF[h, buckets] + self.DE[m, buckets]
            values = values.astype(np.float64)
        if self.cost is not None:
            values = values + self.cost[h, m]
        return values

    def prefers_root(self, words: np.ndarray, window: int) -> np.ndarray:
        """For each word m of `words`: does the root outscore every head within `window` words of m?
        Bool (len(words),). O(len(words) window a)."""
        words = np.asarray(words, dtype=np.int64)
        if not len(words):
            return np.zeros(0, dtype=bool)
        offsets = np.concatenate([np.arange(-window, 0), np.arange(1, window + 1)])
        heads = words[:, None] + offsets[None, :]
        valid = (heads >= 1) & (heads <= self.n)
        rows = np.stack([np.where(valid, heads, 0).ravel(), np.repeat(words, len(offsets))], axis=1)
        best_word = np.where(valid, self.arc_scores(rows).reshape(valid.shape), -np.inf).max(axis=1)
        return self.arc_scores(np.stack([np.zeros_like(words), words], axis=1)) > best_word

    def part_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """Scores of parts of one kind, float64 (P,): arcs (h, m), outer (m, side), sibling (h, s, m),
        grandparent (g, h, m), grand-sibling (g, h, s, m)."""
        if not len(rows):
            return np.zeros(0)
        rows = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
        if kind == ARC:
            return self.arc_scores(rows)
        if kind == OUTER:
            values = self.Z[rows[:, 0], self.blocks["outer"].start + rows[:, 1]].astype(np.float64)
            return values if self.outer_cost is None else values + self.outer_cost[rows[:, 0], rows[:, 1]]
        if self._cache is None:
            return self._mlp_scores(kind, rows)
        return self._cached_part_scores(kind, rows)

    def _cached_part_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """Higher-order part scores, each part computed once per sentence (the cascade's forced decodes
        ask for overlapping part lists many times). Cached by the part's index in base n + 1."""
        keys = rows @ (self.n + 1) ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
        known, values = self._cache.get(kind, (np.zeros(0, dtype=np.int64), np.zeros(0)))
        at = np.minimum(np.searchsorted(known, keys), max(len(known) - 1, 0))
        hit = (known[at] == keys) if len(known) else np.zeros(len(keys), dtype=bool)
        out = np.empty(len(keys))
        out[hit] = values[at[hit]]
        if not hit.all():
            new_keys, first = np.unique(keys[~hit], return_index=True)
            new_rows = rows[~hit][first]
            new_values = self._mlp_scores(kind, new_rows)
            merged_keys = np.concatenate([known, new_keys])
            order = np.argsort(merged_keys, kind="stable")
            known, values = merged_keys[order], np.concatenate([values, new_values])[order]
            self._cache[kind] = (known, values)
            at = np.searchsorted(known, keys[~hit])
            out[~hit] = values[at]
        return out

    def buckets(self, h: np.ndarray, m: np.ndarray) -> np.ndarray:
        """`distance_buckets(h, m)`, read from the per-length table up to BUCKET_TABLE_LIMIT words."""
        if self.n <= BUCKET_TABLE_LIMIT:
            return dense_buckets(self.n)[h, m]
        return distance_buckets(h, m)

    def _hidden(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """Pre-activations (P, part_width) of a higher-order part MLP: the sum of its role rows (the "no
        sibling" row where s == h), plus the distance row of its arc h -> m when `params` has one."""
        pre = 0.0
        for j, name in enumerate(ROLES[kind]):
            block = self.role(name)[rows[:, j]]
            if SIBLING_COLUMN.get(kind) == j:
                first = rows[:, j] == rows[:, j - 1]
                block = np.where(first[:, None], self.params[NONE_ROW[kind]][None, :], block)
            pre = pre + block
        if PART_DISTANCE[kind] in self.params:
            pre = pre + self.params[PART_DISTANCE[kind]][self._part_buckets(kind, rows)]
        return pre

    def _mlp_scores(self, kind: int, rows: np.ndarray) -> np.ndarray:
        """v . relu(`_hidden`) of each part, float64 (P,), by the fused kernel (no (P, part_width) arrays);
        in float64 when Z is, else in float32."""
        args = self._mlp_args.get(kind)
        if args is None:
            dtype = np.float64 if self.Z.dtype == np.float64 else np.float32
            p = self.params
            distance, buckets = np.zeros((0, 0), dtype=dtype), np.zeros((0, 0), dtype=np.int64)
            if PART_DISTANCE[kind] in p:
                distance, buckets = p[PART_DISTANCE[kind]], self.bucket_table()
            none = p[NONE_ROW[kind]] if kind in NONE_ROW else np.zeros(0, dtype=dtype)
            args = self._mlp_args[kind] = (
                np.ascontiguousarray(self.Z, dtype), role_starts(self.layout, kind), np.asarray(p[VECTOR[kind]], dtype),
                SIBLING_COLUMN.get(kind, -1), np.asarray(none, dtype), np.ascontiguousarray(distance, dtype),
                buckets, HEAD_COLUMN[kind])
        Z, starts, v, sibling, none, distance, buckets, head = args
        return part_mlp_scores(Z, np.ascontiguousarray(rows), starts, v, sibling, none, distance, buckets, head)

    def bucket_table(self) -> np.ndarray:
        """`dense_buckets(n)`, kept on the sentence past BUCKET_TABLE_LIMIT words too."""
        if self._buckets is None:
            self._buckets = dense_buckets(self.n)
        return self._buckets

    def _part_buckets(self, kind: int, rows: np.ndarray) -> np.ndarray:
        return self.buckets(rows[:, HEAD_COLUMN[kind]], rows[:, -1])

    def _label_pre(self, heads: np.ndarray, mods: np.ndarray) -> np.ndarray:
        return label_pre(self.Z, self.params, self.blocks, heads, mods, self.buckets(heads, mods))

    def label_probabilities(self, heads: np.ndarray, mods: np.ndarray) -> np.ndarray:
        """P(label | arc) for the arcs heads[i] -> mods[i]: (A, labels)."""
        logits = label_logits(self.Z, self.params, self.blocks, heads, mods, self.buckets(heads, mods))
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)

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
        else:
            self.d_parts.append((kind, rows, gradient))

    def add_arc_gradient(self, d_arcs: np.ndarray) -> None:
        """Add a dense (n + 1, n + 1) d loss / d arc score."""
        self.d_arcs = d_arcs.copy() if self.d_arcs is None else self.d_arcs + d_arcs

    def backward(self, d_params: Dict[str, np.ndarray], label_grad=None) -> np.ndarray:
        """d loss / d Z (n + 1, K) of everything added so far; scorer parameter gradients are added to
        `d_params`. `label_grad`: (heads, mods, d logits) of the label loss, or None."""
        p = self.params
        dZ = np.zeros(self.Z.shape, dtype=np.float32)
        if self.d_arcs is not None:
            dS = self.d_arcs.astype(np.float32)
            d_row = dS.sum(axis=1)
            d_HU = dS @ self.D
            d_params["U"] += self.H.T @ d_HU
            d_params["u"] += self.H.T @ d_row
            dH = d_HU @ p["U"].T + d_row[:, None] * p["u"][None, :]
            dD = dS.T @ self.HU
            if self.distance:         # dS summed per (head, bucket) and per (dependent, bucket)
                buckets = dense_buckets(self.n)
                size = (self.n + 1) * N_BUCKETS
                index = np.arange(self.n + 1)
                by_head = np.bincount((index[:, None] * N_BUCKETS + buckets).ravel(), dS.ravel(),
                                      size).reshape(self.n + 1, N_BUCKETS).astype(np.float32)
                by_dep = np.bincount((index[None, :] * N_BUCKETS + buckets).ravel(), dS.ravel(),
                                     size).reshape(self.n + 1, N_BUCKETS).astype(np.float32)
                d_params["c_dist"] += by_head.sum(axis=0)
                d_params["F_dist"] += by_head.T @ self.H
                d_params["E_dist"] += by_dep.T @ self.D
                dH += by_head @ p["F_dist"]
                dD += by_dep @ p["E_dist"]
            dZ[:, self.blocks["arc_head"]] += dH * (self.H > 0)
            dZ[:, self.blocks["arc_dep"]] += dD * (self.D > 0)
        for kind, rows, gradient in self.d_parts:
            g = gradient.astype(np.float32)
            if kind == OUTER:
                np.add.at(dZ, (rows[:, 0], self.blocks["outer"].start + rows[:, 1]), g)
                continue
            pre = self._hidden(kind, rows)
            d_params[VECTOR[kind]] += relu(pre).T @ g
            d_pre = g[:, None] * p[VECTOR[kind]][None, :] * (pre > 0)
            for j, name in enumerate(ROLES[kind]):
                block = self.blocks[name]
                target = d_pre
                if SIBLING_COLUMN.get(kind) == j:
                    first = rows[:, j] == rows[:, j - 1]
                    d_params[NONE_ROW[kind]] += d_pre[first].sum(axis=0)
                    target = np.where(first[:, None], 0.0, d_pre)
                np.add.at(dZ[:, block], rows[:, j], target)
            if PART_DISTANCE[kind] in p:
                np.add.at(d_params[PART_DISTANCE[kind]], self._part_buckets(kind, rows), d_pre)
        if label_grad is not None:
            heads, mods, d_logits = label_grad
            hidden_pre = self._label_pre(heads, mods)
            d_params["L"] += d_logits.T @ relu(hidden_pre)
            d_params["l_b"] += d_logits.sum(axis=0)
            d_hidden = (d_logits @ p["L"]) * (hidden_pre > 0)
            if "M_dist" in p:
                np.add.at(d_params["M_dist"], self.buckets(heads, mods), d_hidden)
            np.add.at(dZ[:, self.blocks["label_head"]], heads, d_hidden)
            np.add.at(dZ[:, self.blocks["label_dep"]], mods, d_hidden)
        return dZ
