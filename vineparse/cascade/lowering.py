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
UD training sets of English, German and Portuguese 98-100% of the lifted words' annotated heads are
candidates, 91-96% of them one arc below h (`fit` counts them).

Each option is scored by a hashed linear model: STAY by m's label with the tags and words of m and h, a
candidate by the labels of m and d with the tags, words and prefixes of m, h and d, the depth, the sides of
h that m and d lie on, the distance and the candidate's rank by distance. Each word takes its best option,
STAY on ties. The moves are made in order of their margin over STAY, largest first, and a move that would
put a word under its own subtree (as the moves before it left the tree) is skipped, so the result is a tree.

Training is an averaged perceptron (Collins 2002) on projectivized gold trees with their plain labels: the
gold option of a lifted word is its annotated head (STAY when that is no candidate), of every other word
STAY. Time O(n^2) per sentence (every pair (m, d) is looked at once), memory O(n + options) and 4 bytes a
weight.

A sentence is given as `tokens`, uint64 (n + 1, 4) hashes of word form, tag, coarse tag and prefix with row
0 the root (`vineparse.cascade.encoding.Encoded.tokens`), `heads` int64 (n + 1,) with heads[0] = -1 and
the n labels as strings.
"""
import time
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .._kernels.lowering import STAY, best_options, lowering_candidates, lowering_options
from .encoding import string_hash
from .labeler import sparse_weights
from .perceptron import AveragedWeights

__all__ = ["LoweringModel", "candidates", "LOWERING_BITS", "STAY"]

LOWERING_BITS = 20
MAX_BITS = 26           # 2^26 weights at most (float64 weights and totals while training: 1 GiB)


def candidates(heads) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (m, d) where lowering m to d is an option (see the module docstring).

    heads (array-like of int): a projective tree, shape (n + 1,), heads[0] = -1.
    RETURNS (Tuple[np.ndarray, np.ndarray, np.ndarray]): int64 arrays of the words m, the candidates d and
        their depth below m's head (1 or 2), sorted by m, then by distance |d - m|, then by d.
    """
    return lowering_candidates(heads)


def _label_hashes(labels: Sequence[str]) -> np.ndarray:
    return np.array([0] + [string_hash("l" + str(label)) for label in labels], dtype=np.uint64)


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
        """The options of every word that has a candidate, with their feature rows
        (`vineparse._kernels.lowering.lowering_options`).

        RETURNS (Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]): `words` int64 (k,), increasing, the
            words with a candidate; `starts` int64 (k + 1,): word i's options are starts[i]..starts[i + 1] - 1,
            its STAY first, then its candidates as `candidates` orders them; per option its `target` (STAY or
            the candidate) and feature `rows` (int64 (options, T); -1 pads).
        """
        heads = np.asarray(heads, dtype=np.int64)
        if len(labels) != heads.size - 1 or len(tokens) != heads.size:
            raise ValueError(f"{heads.size - 1} words but {len(labels)} labels and {len(tokens) - 1} tokens")
        return lowering_options(np.ascontiguousarray(tokens, dtype=np.uint64), heads, _label_hashes(labels),
                                self.weights.size)

    def lower(self, tokens: np.ndarray, heads, labels: Sequence[str]) -> np.ndarray:
        """The tree with the chosen arcs lowered.

        tokens (np.ndarray): uint64 (n + 1, 4); heads: a projective tree (n + 1,); labels: its n labels.
        RETURNS (np.ndarray): int64 (n + 1,), a tree (may be non-projective).
        """
        heads = np.asarray(heads, dtype=np.int64)
        words, starts, targets, rows = self.options(tokens, heads, labels)
        out = heads.copy()
        best, margin = best_options(self.weights, rows, starts)
        for k in np.argsort(-margin, kind="stable"):
            if margin[k] <= 0:
                break
            m, d = words[k], targets[best[k]]
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
            words, starts, targets, rows = self.options(tokens, heads, labels)
            lifted += int((heads != gold).sum())
            if not words.size:
                continue
            owners = np.repeat(np.arange(words.size), np.diff(starts))
            wanted = np.where(heads[words] != gold[words], gold[words], STAY)
            gold_index = starts[:-1].copy()                          # STAY, unless the annotated head is a candidate
            hit = np.flatnonzero((targets == wanted[owners]) & (targets != STAY))
            gold_index[owners[hit]] = hit
            covered += hit.size
            data.append((starts, rows, gold_index))
        decisions = sum(item[0].size - 1 for item in data)
        averaged = AveragedWeights(self.weights)
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        for epoch in range(epochs):
            mistakes = 0
            for i in rng.permutation(len(data)):
                starts, rows, gold_index = data[i]
                best, _ = best_options(averaged.weights, rows, starts)
                wrong = np.flatnonzero(best != gold_index)
                for index, step in ((gold_index[wrong], 1.0), (best[wrong], -1.0)):
                    r = rows[index].ravel()
                    averaged.add(r[r >= 0], step)
                mistakes += wrong.size
                averaged.tick()
            if report:
                report(f"lowering: epoch {epoch + 1}/{epochs}: {mistakes:,} of {decisions:,} decisions wrong "
                       f"({time.perf_counter() - start:.0f}s)")
        self.weights = averaged.averaged()
        return {"lifted": lifted, "covered": covered, "decisions": decisions}

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
