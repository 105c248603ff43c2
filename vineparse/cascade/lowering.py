"""Where a projective tree should become non-projective: a learned model of which arcs to lower.

A projective parser cannot attach a word m to its annotated head d when the arc d -> m crosses another arc.
Pseudo-projective parsing (Nivre & Nilsson 2005) trains on trees where such arcs are *lifted* to an ancestor
of d (`vineparse.trees.projectivize`, spaCy's implementation) and lowers them again after parsing. The classic
scheme marks a lifted arc in its label ("label||head_label") and leaves the decision to the labeller, which
must then tell a lifted "advmod" from a plain one from one arc's features, with its label set several times
larger. Here the labeller keeps the plain labels and this model decides, seeing the whole labelled tree. For
every word m whose head h is not the root, the options are

    STAY                          keep h -> m
    d  in  candidates(m)          lower: d -> m

where the candidates are the words d one or two arcs below h, outside m's subtree, for which d -> m would
cross an arc. Every subtree of a projective tree spans an interval, so d -> m crosses an arc exactly when the
intervals of d and of m are not adjacent. Lifting only moves arcs that cross, one step up at a time; on the
UD training sets 99% of the annotated heads of lifted words are candidates, 95% of them one arc below h.

Each option is scored by a hashed linear model: STAY by m's label with the tags and words of m and h, a
candidate by the labels of m and d with the tags, words and prefixes of m, h and d, the depth, the sides of
h that m and d lie on, the distance and the candidate's rank by distance. Each word takes its best option,
STAY on ties. The moves are made in order of their margin over STAY, largest first, and a move that would
put a word under its own subtree (as the moves before it left the tree) is skipped, so the result is a tree.

Training is an averaged perceptron (Collins 2002) on projectivized gold trees with their plain labels: the
gold option of a lifted word is its annotated head (STAY when that is no candidate), of every other word
STAY. Time O(n^2) per sentence (the candidate search), memory O(n^2) while searching and 4 bytes a weight.

A sentence is given as `tokens`, uint64 (n + 1, 4) hashes of word form, tag, coarse tag and prefix with row
0 the root (`vineparse.cascade.encoding.Encoded.tokens`), `heads` int64 (n + 1,) with heads[0] = -1 and
the n labels as strings.
"""
import time
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .encoding import string_hash
from .labeler import sparse_weights

__all__ = ["LoweringModel", "candidates", "LOWERING_BITS"]

LOWERING_BITS = 20
MAX_BITS = 26           # 2^26 weights at most (float64 weights and totals while training: 1 GiB)
STAY = -1               # the option "keep the arc", among the targets of `LoweringModel.options`

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def _mix(template: int, *columns) -> np.ndarray:
    """A 64-bit hash of a template number and one value from each column (equal-length integer arrays)."""
    value = np.full(len(columns[0]), template, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in columns:
            value = (value ^ np.asarray(column).astype(np.uint64)) * _MULTIPLIER
            value ^= value >> np.uint64(31)
    return value


def _intervals(heads: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The first and last word of every node's subtree (index 0: the root's); O(n) for a tree."""
    n = heads.size - 1
    first, last = np.arange(n + 1), np.arange(n + 1)
    depth = np.zeros(n + 1, dtype=np.int64)
    for m in range(1, n + 1):
        path, node = [], m
        while node != 0 and depth[node] == 0:
            path.append(node)
            node = heads[node]
        for k, word in enumerate(reversed(path)):
            depth[word] = depth[node] + k + 1
    for m in np.argsort(-depth, kind="stable")[:n]:      # deepest first, so a subtree is complete when read
        h = heads[m]
        first[h] = min(first[h], first[m])
        last[h] = max(last[h], last[m])
    return first, last


def candidates(heads) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (m, d) where lowering m to d is an option (see the module docstring).

    heads (array-like of int): a projective tree, shape (n + 1,), heads[0] = -1.
    RETURNS (Tuple[np.ndarray, np.ndarray, np.ndarray]): int64 arrays of the words m, the candidates d and
        their depth below m's head (1 or 2), sorted by m, then by distance |d - m|, then by d.
    """
    heads = np.asarray(heads, dtype=np.int64)
    n = heads.size - 1
    first, last = _intervals(heads)
    words = np.arange(1, n + 1)
    parent = heads[1:]
    grandparent = np.where(parent > 0, heads[np.maximum(parent, 0)], -1)
    m, d = (grid.ravel() for grid in np.meshgrid(words, words, indexing="ij"))
    h = parent[m - 1]
    one_below = (parent[d - 1] == h) & (d != m)
    two_below = (grandparent[d - 1] == h) & (parent[d - 1] != m)
    apart = np.where(d < m, last[d] + 1 < first[m], last[m] + 1 < first[d])
    keep = (h > 0) & (one_below | two_below) & apart
    m, d, depth = m[keep], d[keep], np.where(one_below[keep], 1, 2)
    order = np.lexsort((d, np.abs(d - m), m))
    return m[order], d[order], depth[order]


def _distance(distance: np.ndarray) -> np.ndarray:
    """Distance buckets: 1..5 exactly, then 6-10, 11-20, more."""
    return np.minimum(distance, 6) + (distance > 10) + (distance > 20)


class LoweringModel:
    """Decides which arcs of a projective labelled tree to lower (see the module docstring).

    bits (int): 2^bits weights (1 <= bits <= MAX_BITS).
    """

    def __init__(self, bits: int = LOWERING_BITS) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= MAX_BITS:
            raise ValueError(f"the lowering model's bits must be an integer in 1..{MAX_BITS}, got {bits!r}")
        self.bits = bits
        self.weights = np.zeros(1 << bits, dtype=np.float32)

    def options(self, tokens: np.ndarray, heads, labels: Sequence[str]):
        """The options of every word that has a candidate, with their feature rows.

        RETURNS (Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]): `words` int64 (k,), increasing, the
            words with a candidate; per option (k + c options: each word's STAY first, then its candidates
            as `candidates` orders them) its `target` (STAY or the candidate), `owner` (index into words)
            and feature `rows` (int64 (k + c, T); -1 pads).
        """
        heads = np.asarray(heads, dtype=np.int64)
        if len(labels) != heads.size - 1 or len(tokens) != heads.size:
            raise ValueError(f"{heads.size - 1} words but {len(labels)} labels and {len(tokens) - 1} tokens")
        m, d, depth = candidates(heads)
        words, first = np.unique(m, return_index=True)
        owner = np.searchsorted(words, m)
        label = np.array([0] + [string_hash("l" + str(name)) for name in labels], dtype=np.uint64)
        word, tag, coarse, prefix = (tokens[:, j].astype(np.uint64) for j in range(4))
        size = np.uint64(self.weights.size)

        h = heads[words]
        count = np.minimum(np.diff(np.append(first, m.size)), 8)
        stay = np.stack([_mix(1, label[words]), _mix(2, label[words], coarse[words]),
                         _mix(3, label[words], coarse[h]), _mix(4, label[words], label[h]),
                         _mix(5, np.zeros(words.size)), _mix(6, label[words], count),
                         _mix(7, label[words], tag[words], tag[h]), _mix(8, label[words], prefix[h]),
                         _mix(9, label[words], word[words])], axis=1) % size

        h = heads[m]
        rank = np.minimum(np.arange(m.size) - first[owner], 3)
        sides = 3 * np.sign(d - h) + np.sign(m - h)
        pair = _mix(20, label[m], label[d])
        lower = np.stack([pair, _mix(21, pair, depth), _mix(22, pair, sides), _mix(23, pair, coarse[d]),
                          _mix(24, pair, coarse[m]), _mix(25, pair, coarse[h]),
                          _mix(26, coarse[m], coarse[d], coarse[h]), _mix(27, label[d], word[m]),
                          _mix(28, pair, _distance(np.abs(d - m))), _mix(29, pair, rank),
                          _mix(30, pair, label[heads[d]]), _mix(31, pair, tag[d], tag[m]),
                          _mix(32, pair, prefix[h]), _mix(33, pair, prefix[d]), _mix(34, pair, word[m]),
                          _mix(35, label[d], prefix[h], sides), _mix(36, pair, prefix[h], prefix[d]),
                          _mix(37, pair, label[h]), _mix(38, pair, _distance(np.abs(h - m))),
                          _mix(39, pair, sides, coarse[m], coarse[h])], axis=1) % size

        rows = np.full((words.size + m.size, lower.shape[1]), -1, dtype=np.int64)
        rows[:words.size, :stay.shape[1]] = stay
        rows[words.size:] = lower
        targets = np.concatenate([np.full(words.size, STAY), d])
        owners = np.concatenate([np.arange(words.size), owner])
        order = np.argsort(owners, kind="stable")          # each word's STAY, then its candidates
        return words, targets[order], owners[order], rows[order]

    @staticmethod
    def _scores(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.where(rows >= 0, weights[np.maximum(rows, 0)], 0.0).sum(axis=1)

    @staticmethod
    def _best(scores: np.ndarray, owners: np.ndarray, k: int) -> np.ndarray:
        """The index of each of the k words' best option; the first of equals (STAY comes first)."""
        order = np.lexsort((np.arange(owners.size), -scores, owners))
        return order[np.searchsorted(owners[order], np.arange(k))]

    def lower(self, tokens: np.ndarray, heads, labels: Sequence[str]) -> np.ndarray:
        """The tree with the chosen arcs lowered.

        tokens (np.ndarray): uint64 (n + 1, 4); heads: a projective tree (n + 1,); labels: its n labels.
        RETURNS (np.ndarray): int64 (n + 1,), a tree (may be non-projective).
        """
        heads = np.asarray(heads, dtype=np.int64)
        words, targets, owners, rows = self.options(tokens, heads, labels)
        out = heads.copy()
        if not words.size:
            return out
        scores = self._scores(self.weights, rows)
        best = self._best(scores, owners, words.size)
        margin = scores[best] - scores[targets == STAY]
        for k in np.argsort(-margin, kind="stable"):
            m, d = words[k], targets[best[k]]
            if d == STAY:
                continue
            node = d
            while node > 0 and node != m:
                node = out[node]
            if node != m:                                  # d is not below m: the move keeps a tree
                out[m] = d
        return out

    def fit(self, sentences: Sequence[Tuple[np.ndarray, np.ndarray, np.ndarray, Sequence[str]]], epochs: int = 5,
            seed: int = 0, report: Optional[Callable[[str], None]] = None) -> Dict[str, int]:
        """Train as an averaged perceptron (see the module docstring).

        sentences: per sentence (tokens, projectivized heads, annotated heads, labels).
        RETURNS (Dict[str, int]): `lifted` words, of them `covered` (their annotated head is a candidate), and
            `decisions` (words with a candidate, per epoch).
        """
        data = []
        lifted = covered = 0
        for tokens, heads, gold, labels in sentences:
            heads, gold = np.asarray(heads, dtype=np.int64), np.asarray(gold, dtype=np.int64)
            if heads.shape != gold.shape:
                raise ValueError(f"a projectivized tree of {heads.size - 1} words for an annotated one of "
                                 f"{gold.size - 1}")
            words, targets, owners, rows = self.options(tokens, heads, labels)
            lifted += int((heads != gold).sum())
            if not words.size:
                continue
            wanted = np.where(heads[words] != gold[words], gold[words], STAY)
            gold_index = np.flatnonzero(targets == STAY)             # one per word, in order
            hit = np.flatnonzero((targets == wanted[owners]) & (targets != STAY))
            gold_index[owners[hit]] = hit
            covered += hit.size
            data.append((words.size, owners, rows, gold_index))
        weights = self.weights.astype(np.float64)
        totals = np.zeros_like(weights)
        rng = np.random.default_rng(seed)
        clock = 1
        start = time.perf_counter()
        for epoch in range(epochs):
            mistakes = 0
            for i in rng.permutation(len(data)):
                k, owners, rows, gold_index = data[i]
                best = self._best(self._scores(weights, rows), owners, k)
                wrong = np.flatnonzero(best != gold_index)
                for index, step in ((gold_index[wrong], 1.0), (best[wrong], -1.0)):
                    r = rows[index].ravel()
                    r = r[r >= 0]
                    np.add.at(weights, r, step)
                    np.add.at(totals, r, step * clock)
                mistakes += wrong.size
                clock += 1
            if report:
                report(f"lowering: epoch {epoch + 1}/{epochs}: {mistakes:,} of "
                       f"{sum(item[0] for item in data):,} decisions wrong ({time.perf_counter() - start:.0f}s)")
        self.weights = (weights - totals / clock).astype(np.float32)
        return {"lifted": lifted, "covered": covered, "decisions": sum(item[0] for item in data)}

    def to_dict(self) -> Dict:
        """Size and the non-zero weights (flat indices uint32, values float32)."""
        nonzero = np.flatnonzero(self.weights).astype(np.uint32)
        return {"bits": self.bits, "indices": nonzero, "values": self.weights[nonzero]}

    @classmethod
    def from_dict(cls, data: Dict) -> "LoweringModel":
        """RAISES (ValueError): naming what is malformed (checked before the weights are allocated)."""
        if not isinstance(data, dict) or set(data) != {"bits", "indices", "values"}:
            raise ValueError("the saved lowering model must be a map of bits, indices and values")
        model = cls(data["bits"])
        model.weights = sparse_weights(data["indices"], data["values"], model.weights.size, "lowering model")
        return model
