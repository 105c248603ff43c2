"""The weighted ITG of one sentence pair: its scores, its chart under a keep table, and what the chart returns.

The grammar itself (bispans, null terminals, straight / inverted / null-attachment rules and, for the
"ternary" grammar, the six rules of branching factor 3, each with a split-mismatch term) is defined in
`vineparse/_kernels/itg.pyx`; this module is the checked Python entry point over it:

- `PairScores`: the log-linear scores of every part of one pair (emissions, null emissions, rule kinds);
- `Chart`: the hypergraph under a keep table, run once for the log partition, the expected sufficient
  statistics and derivations sampled from the kept chart;
- `Statistics`: expected counts of the parts, which `features.Featurizer` turns into feature expectations.
"""
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from .._kernels import itg as _itg

GRAMMARS = ("binary", "ternary")
KINDS = _itg.KINDS
# Rule kinds, as the kernel numbers them: binary straight / inverted, straight attachment of a null
# terminal, then one ternary rule per permutation (source child s takes target segment PERMS[r][s]).
KIND_NAMES = ("straight", "inverted", "attach") + tuple("ternary:" + "".join(map(str, p)) for p in _itg.PERMS)


class NoDerivationError(ValueError):
    """The mask admits no derivation of the sentence pair."""


class SkippablePairError(ValueError):
    """A documented input error that makes one pair unusable but not the corpus: corpus-level calls skip the
    pair, count it and report the reason. Every other exception propagates."""


class EmptySentenceError(SkippablePairError):
    """A pair with an empty side: the grammar has no derivation of an empty sentence."""


class ExactLimitError(SkippablePairError):
    """A pair too large for exact inference under the configured item limit."""


def check_grammar(grammar: str) -> bool:
    """True for the ternary grammar; a clear error for an unknown name."""
    if grammar not in GRAMMARS:
        raise ValueError(f"grammar must be one of {', '.join(GRAMMARS)}, got {grammar!r}")
    return grammar == "ternary"


def n_spans(n: int) -> int:
    """Spans [i, j) with 0 <= i <= j <= n."""
    return (n + 1) * (n + 2) // 2


def exact_items(p: int, q: int, grammar: str) -> int:
    """Chart items of the unpruned grammar for a p x q pair (the memory of exact inference: 16 bytes each).

    Bispans with both sides non-empty, the null terminals, the emissions, and with ternary rules the
    6 (a - 2)(c - 2) parent-annotated items of every bispan of widths a, c >= 3.
    """
    both = (p * (p + 1) // 2) * (q * (q + 1) // 2)
    items = 1 + p * q + both + p * (q + 1) + q * (p + 1)
    if check_grammar(grammar):
        src = sum((p - a + 1) * (a - 2) for a in range(3, p + 1))
        tgt = sum((q - c + 1) * (c - 2) for c in range(3, q + 1))
        items += 6 * src * tgt
    return items


@dataclass
class PairScores:
    """Log-linear scores of the parts of one p x q pair.

    emit (float64 (p, q)): emitting source word i with target word k; -inf forbids it.
    null_src (float64 (p,)), null_tgt (float64 (q,)): a word emitted against nothing.
    rule (float64 (9,)): per rule kind (KIND_NAMES); mismatch (float64 (9,)): weight of a rule's split mismatch.
    """

    emit: np.ndarray
    null_src: np.ndarray
    null_tgt: np.ndarray
    rule: np.ndarray
    mismatch: np.ndarray

    def __post_init__(self):
        self.emit = np.ascontiguousarray(self.emit, dtype=np.float64)
        self.null_src = np.ascontiguousarray(self.null_src, dtype=np.float64)
        self.null_tgt = np.ascontiguousarray(self.null_tgt, dtype=np.float64)
        self.rule = np.ascontiguousarray(self.rule, dtype=np.float64)
        self.mismatch = np.ascontiguousarray(self.mismatch, dtype=np.float64)
        if self.emit.ndim != 2 or 0 in self.emit.shape:
            raise ValueError(f"emission scores must have shape (p, q) with p, q >= 1, got {self.emit.shape}")
        p, q = self.emit.shape
        for name, array, shape in (("null_src", self.null_src, (p,)), ("null_tgt", self.null_tgt, (q,)),
                                   ("rule", self.rule, (KINDS,)), ("mismatch", self.mismatch, (KINDS,))):
            if array.shape != shape:
                raise ValueError(f"{name} scores must have shape {shape}, got {array.shape}")
            if not np.isfinite(array).all():
                raise ValueError(f"{name} scores must be finite")
        if np.isnan(self.emit).any() or np.isposinf(self.emit).any():
            raise ValueError("emission scores must not be NaN or +inf")

    @property
    def shape(self):
        return self.emit.shape

    def forbid(self, links: np.ndarray) -> "PairScores":
        """A copy with the emissions of `links` (int (n, 2) rows (i, k)) forbidden."""
        if not len(links):
            return self
        emit = self.emit.copy()
        emit[links[:, 0], links[:, 1]] = -np.inf
        return PairScores(emit, self.null_src, self.null_tgt, self.rule, self.mismatch)


@dataclass
class Statistics:
    """Expected counts of the parts of a derivation (or their average over several charts).

    emit (p, q): link posteriors; null_src (p,), null_tgt (q,): null-emission posteriors;
    count, mismatch (9,): expected uses of each rule kind and their summed split mismatch.
    """

    emit: np.ndarray
    null_src: np.ndarray
    null_tgt: np.ndarray
    count: np.ndarray
    mismatch: np.ndarray

    @classmethod
    def zeros(cls, p: int, q: int) -> "Statistics":
        return cls(np.zeros((p, q)), np.zeros(p), np.zeros(q), np.zeros(KINDS), np.zeros(KINDS))

    def add(self, other: "Statistics", weight: float = 1.0) -> None:
        for name in ("emit", "null_src", "null_tgt", "count", "mismatch"):
            getattr(self, name).__iadd__(weight * getattr(other, name))

    def copy(self) -> "Statistics":
        return self.scaled(1.0)

    def scaled(self, factor: float) -> "Statistics":
        return Statistics(self.emit * factor, self.null_src * factor, self.null_tgt * factor,
                          self.count * factor, self.mismatch * factor)


@dataclass
class ChartResult:
    """What one run of a chart returns."""

    log_z: float
    statistics: Optional[Statistics]
    links: np.ndarray                 # uint8 (samples, p, q): the links of each sampled derivation
    bispans: Optional[List[list]]     # with sample_bispans: the bispans of each sampled derivation
    kept: int                         # bispans kept
    items: int                        # chart items (memory: 8 bytes each per pass)
    edges: int                        # edges the statistics pass visited
    seconds: float = field(default=0.0)


class Chart:
    """The ITG hypergraph of one pair under a keep table.

    scores (PairScores): the part scores.
    keep (np.ndarray or None): uint8 (n_spans(p), n_spans(q)) from `keep_all`, `keep_from_links` or
        `keep_from_mask`.
    grammar (str): "binary" (O(p^3 q^3)) or "ternary" (O(p^4 q^4)).
    boxes (np.ndarray or None): with keep=None, the kept bispans as `bispans_from_links` lists them.
    """

    def __init__(self, scores: PairScores, keep: Optional[np.ndarray], grammar: str = "binary",
                 boxes: Optional[np.ndarray] = None):
        p, q = scores.shape
        if keep is None:
            if boxes is None or boxes.dtype != np.int32 or boxes.ndim != 2 or boxes.shape[1] != 4:
                raise ValueError("without a keep table, boxes must be int32 (n, 4) from bispans_from_links")
        else:
            keep = np.ascontiguousarray(keep, dtype=np.uint8)
            if keep.shape != (n_spans(p), n_spans(q)):
                raise ValueError(f"keep table must have shape {(n_spans(p), n_spans(q))} for a {p} x {q} pair, "
                                 f"got {keep.shape}")
        self.scores = scores
        self.grammar = grammar
        self.graph = _itg.BitextChart(scores.emit, scores.null_src, scores.null_tgt, scores.rule,
                                      scores.mismatch, keep, check_grammar(grammar), boxes)

    @property
    def kept(self) -> int:
        return int(self.graph.n_bispans)

    def run(self, statistics: bool = True, samples: int = 0, seed: int = 0,
            sample_bispans: bool = False) -> ChartResult:
        """Inside pass; then expected statistics and `samples` derivations drawn from the kept chart.

        RETURNS (ChartResult): log Z (-inf if the keep table admits no derivation; then no statistics
            and no samples).
        """
        out = _itg.run_chart(self.graph, bool(statistics), int(samples), int(seed) & (2 ** 64 - 1),
                             bool(sample_bispans))
        stats = None
        if "emit" in out:
            stats = Statistics(out["emit"], out["null_src"], out["null_tgt"], out["count"], out["mismatch"])
        p, q = self.scores.shape
        links = out.get("links", np.zeros((0, p, q), dtype=np.uint8))
        return ChartResult(float(out["log_z"]), stats, links, out.get("bispans"), self.kept,
                           int(self.graph.n_items), int(out.get("edges", 0)))


def keep_all(p: int, q: int) -> np.ndarray:
    """The keep table of the unpruned chart."""
    return _itg.keep_all(p, q)


def keep_from_links(p: int, q: int, links: np.ndarray, base: Optional[np.ndarray] = None) -> np.ndarray:
    """Keep the bispans that contain both words of every link of `links` (int (n, 2)) or neither."""
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    return _itg.keep_from_links(p, q, links[:, 0], links[:, 1], base)


def bispans_from_links(p: int, q: int, links: np.ndarray) -> np.ndarray:
    """The bispans `keep_from_links` keeps without a base, listed directly: int32 (n, 4) rows (i, j, k, l) in
    order of size, for `Chart(scores, None, grammar, boxes=...)`. Time O(p^2 + p q + n)."""
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    return _itg.bispans_from_links(p, q, links[:, 0], links[:, 1])


def keep_from_mask(mask: np.ndarray) -> np.ndarray:
    """The keep table of a dense boolean bispan mask (p+1, p+1, q+1, q+1), mask[i, j, k, l]."""
    return _itg.keep_from_mask(mask)


def bispan_count(p: int, q: int) -> int:
    """Bispans of the unpruned grammar (the denominator of "cells kept")."""
    return (p * (p + 1) // 2) * (q * (q + 1) // 2) + p * (q + 1) + q * (p + 1)


def no_derivation(p: int, q: int, what: str) -> NoDerivationError:
    return NoDerivationError(f"{what} admits no derivation of the {p} x {q} sentence pair")

