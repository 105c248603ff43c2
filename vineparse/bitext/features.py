"""Features of the weighted ITG, and the map between part scores / expected part counts and feature space.

A derivation's score is `weights . f(derivation)`, where f sums the features of its parts:

- an emission of source word i with target word k: `emit:bias`, `emit:lex_fwd` = log t(tgt_k | src_i) and
  `emit:lex_bwd` = log t(src_i | tgt_k) from IBM Model 1 (both floored at `floor`), `emit:unseen` (the pair
  never co-occurred in Model 1's corpus, which covers unknown words), `emit:identical` (same string, ignoring
  case: numbers, names, punctuation), `emit:distortion` = |(i + 1/2)/p - (k + 1/2)/q|, `emit:model1_link`
  (both Model 1 Viterbi alignments make the link), `emit:agreement` (the agreement posterior of the HMM
  aligner, `hmm.AgreementHMM.posterior`, 0 without one), `emit:m_prime` (the link is in the high-confidence
  set M' of randomized pruning), and the tag pair `tags:A|B` (UPOS);
- a null emission of a source word: `null_src:bias`, `null_src:lex` = log t(src_i | NULL) (floored),
  `null_src:tag:A`; of a target word likewise with `null_tgt:`;
- a rule: `rule:straight`, `rule:inverted`, `rule:attach` (a null terminal joined to a neighbour),
  `rule:ternary:abc` (one per permutation), and the split mismatch of binary (`mismatch:binary`) and
  ternary rules (`mismatch:ternary`), 1/2 sum_children |src share - tgt share|.

Tags are optional: tag features fire only for the sides that have tags (a pair feature needs both). Tags
outside the 17 UPOS tags count as `OTHER` (and are counted in `PairFeatures.unknown_tags`).

Expected features are linear in the expected part counts the chart returns (`grammar.Statistics`), so the
kernel never sees feature ids: `Featurizer.scores` maps weights to part scores and `Featurizer.expected`
maps expected part counts back to feature space.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from .grammar import KIND_NAMES, KINDS, PairScores, Statistics
from .hmm import AgreementHMM
from .model1 import BidirectionalModel1

UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT",
        "SCONJ", "SYM", "VERB", "X")
TAGS = UPOS + ("OTHER",)
EMIT_DENSE = ("emit:bias", "emit:lex_fwd", "emit:lex_bwd", "emit:unseen", "emit:identical",
              "emit:distortion", "emit:model1_link", "emit:agreement", "emit:m_prime")
NULL_DENSE = ("bias", "lex")
MISMATCH = ("mismatch:binary", "mismatch:ternary")
# Kernel rule kind -> index into MISMATCH (None: no mismatch weight).
KIND_MISMATCH = (0, 0, None) + (1,) * 6

DEFAULT_WEIGHTS = {
    "emit:lex_fwd": 1.0, "emit:lex_bwd": 1.0, "emit:identical": 2.0, "emit:distortion": -2.0,
    "null_src:lex": 1.0, "null_tgt:lex": 1.0, "mismatch:binary": -1.0, "mismatch:ternary": -1.0,
}


class FeatureSpace:
    """The names and layout of every feature; one vector index per name."""

    def __init__(self):
        names: List[str] = list(EMIT_DENSE)
        self.tag_pair = len(names)
        names += [f"tags:{a}|{b}" for a in TAGS for b in TAGS]
        self.null_src = len(names)
        names += [f"null_src:{n}" for n in NULL_DENSE]
        self.null_src_tag = len(names)
        names += [f"null_src:tag:{a}" for a in TAGS]
        self.null_tgt = len(names)
        names += [f"null_tgt:{n}" for n in NULL_DENSE]
        self.null_tgt_tag = len(names)
        names += [f"null_tgt:tag:{a}" for a in TAGS]
        self.rule = len(names)
        names += [f"rule:{k}" for k in KIND_NAMES]
        self.mismatch = len(names)
        names += list(MISMATCH)
        self.names: List[str] = names
        self.index: Dict[str, int] = {n: i for i, n in enumerate(names)}

    def __len__(self) -> int:
        return len(self.names)

    def default_weights(self) -> np.ndarray:
        weights = np.zeros(len(self))
        for name, value in DEFAULT_WEIGHTS.items():
            weights[self.index[name]] = value
        return weights

    def as_dict(self, vector: np.ndarray, nonzero: bool = True) -> Dict[str, float]:
        """{name: value}; with `nonzero`, only the entries that are not 0."""
        return {n: float(v) for n, v in zip(self.names, vector) if v != 0 or not nonzero}


def tag_ids(tags: Optional[Sequence[str]], length: int, side: str) -> Optional[np.ndarray]:
    """Indices into TAGS (OTHER for unknown tags), or None without tags; a clear error on a length mismatch."""
    if tags is None:
        return None
    tags = list(tags)
    if len(tags) != length:
        raise ValueError(f"the {side} sentence has {length} words but {len(tags)} tags")
    lookup = {t: i for i, t in enumerate(UPOS)}
    return np.array([lookup.get(t, len(UPOS)) for t in tags], dtype=np.int64)


@dataclass
class PairFeatures:
    """The features of every part of one p x q pair.

    emit (float64 (p, q, len(EMIT_DENSE))), emit_tag (int64 (p, q) or None: index of the tag pair),
    null_src (float64 (p, 2)), null_src_tag (int64 (p,) or None), null_tgt (float64 (q, 2)),
    null_tgt_tag (int64 (q,) or None), links (int64 (n, 2)): M' (one-to-one), unknown_words, unknown_tags (int).
    """

    emit: np.ndarray
    emit_tag: Optional[np.ndarray]
    null_src: np.ndarray
    null_src_tag: Optional[np.ndarray]
    null_tgt: np.ndarray
    null_tgt_tag: Optional[np.ndarray]
    links: np.ndarray
    unknown_words: int
    unknown_tags: int

    @property
    def shape(self):
        return self.emit.shape[:2]


class Featurizer:
    """Extracts the features of a pair's parts and maps between weights, part scores and feature space.

    model1 (BidirectionalModel1): lexical tables both ways (untrained: every word is unknown).
    floor (float): probability used for t = 0 (unseen pairs, unknown words), so lexical features stay finite.
    aligner (AgreementHMM or None): the HMM aligner (None: `emit:agreement` is 0).
    threshold (float or None): the agreement posterior a link of M' needs (None: the aligner's own).
    m_prime (str): "hmm" (M' is the aligner's agreement links at `threshold` or above; empty without an
        aligner) or "model1" (the intersection of Model 1's Viterbi links).
    """

    def __init__(self, model1: BidirectionalModel1, floor: float = 1e-6, aligner: Optional[AgreementHMM] = None,
                 threshold: Optional[float] = None, m_prime: str = "hmm"):
        if m_prime not in ("hmm", "model1"):
            raise ValueError(f"m_prime must be 'hmm' or 'model1', got {m_prime!r}")
        if not 0.0 < floor < 1.0:
            raise ValueError(f"floor must be in (0, 1), got {floor}")
        self.model1 = model1
        self.floor = floor
        self.aligner = aligner
        self.threshold = threshold
        self.m_prime = m_prime
        self.space = FeatureSpace()

    def pair(self, src: Sequence[str], tgt: Sequence[str], src_tags: Optional[Sequence[str]] = None,
             tgt_tags: Optional[Sequence[str]] = None) -> PairFeatures:
        """The part features of one pair (both sides non-empty). Time O(p q)."""
        p, q = len(src), len(tgt)
        st, tt = tag_ids(src_tags, p, "source"), tag_ids(tgt_tags, q, "target")
        tables = self.model1.tables(src, tgt)
        model1_links = self.model1.intersection(src, tgt)
        agreement, links = self._agreement_links(src, tgt, model1_links)
        log = lambda t: np.log(np.maximum(t, self.floor))  # noqa: E731
        emit = np.zeros((p, q, len(EMIT_DENSE)))
        emit[..., 0] = 1.0
        emit[..., 1] = log(tables["fwd"])
        emit[..., 2] = log(tables["bwd"])
        emit[..., 3] = (tables["fwd"] == 0) & (tables["bwd"] == 0)
        lower_src = np.array([w.lower() for w in src], dtype=object)
        lower_tgt = np.array([w.lower() for w in tgt], dtype=object)
        emit[..., 4] = lower_src[:, None] == lower_tgt[None, :]
        emit[..., 5] = np.abs((np.arange(p)[:, None] + 0.5) / p - (np.arange(q)[None, :] + 0.5) / q)
        emit[model1_links[:, 0], model1_links[:, 1], 6] = 1.0
        emit[..., 7] = agreement
        emit[links[:, 0], links[:, 1], 8] = 1.0
        null_src = np.stack([np.ones(p), log(tables["bwd_null"])], axis=1)
        null_tgt = np.stack([np.ones(q), log(tables["fwd_null"])], axis=1)
        emit_tag = st[:, None] * len(TAGS) + tt[None, :] if st is not None and tt is not None else None
        unknown_tags = sum(int(np.sum(t == len(UPOS))) for t in (st, tt) if t is not None)
        unknown_words = int(np.sum(~tables["src_known"]) + np.sum(~tables["tgt_known"]))
        return PairFeatures(emit, emit_tag, null_src, st, null_tgt, tt, links, unknown_words, unknown_tags)

    def _agreement_links(self, src, tgt, model1_links):
        agreement = self.aligner.posterior(src, tgt) if self.aligner is not None else np.zeros((len(src), len(tgt)))
        if self.m_prime == "model1":
            return agreement, model1_links
        if self.aligner is None:
            return agreement, np.zeros((0, 2), dtype=np.int64)
        return agreement, self.aligner.links_from(agreement, self.threshold)

    def links(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """M' of a pair: int64 (n, 2), one-to-one sorted rows (i, k)."""
        return self._agreement_links(src, tgt, self.model1.intersection(src, tgt))[1]

    def scores(self, feats: PairFeatures, weights: np.ndarray) -> PairScores:
        """Part scores `weights . features` of one pair."""
        s = self.space
        emit = feats.emit @ weights[:len(EMIT_DENSE)]
        null_src = feats.null_src @ weights[s.null_src:s.null_src + 2]
        null_tgt = feats.null_tgt @ weights[s.null_tgt:s.null_tgt + 2]
        if feats.emit_tag is not None:
            emit = emit + weights[s.tag_pair + feats.emit_tag]
        if feats.null_src_tag is not None:
            null_src = null_src + weights[s.null_src_tag + feats.null_src_tag]
        if feats.null_tgt_tag is not None:
            null_tgt = null_tgt + weights[s.null_tgt_tag + feats.null_tgt_tag]
        rule = weights[s.rule:s.rule + KINDS]
        mismatch = np.array([0.0 if m is None else weights[s.mismatch + m] for m in KIND_MISMATCH])
        return PairScores(emit, null_src, null_tgt, rule, mismatch)

    def expected(self, feats: PairFeatures, stats: Statistics) -> np.ndarray:
        """Feature expectations from expected part counts (linear in them)."""
        s = self.space
        out = np.zeros(len(s))
        out[:len(EMIT_DENSE)] = np.tensordot(stats.emit, feats.emit, axes=([0, 1], [0, 1]))
        out[s.null_src:s.null_src + 2] = stats.null_src @ feats.null_src
        out[s.null_tgt:s.null_tgt + 2] = stats.null_tgt @ feats.null_tgt
        if feats.emit_tag is not None:
            out[s.tag_pair:s.tag_pair + len(TAGS) ** 2] = np.bincount(
                feats.emit_tag.ravel(), weights=stats.emit.ravel(), minlength=len(TAGS) ** 2)
        if feats.null_src_tag is not None:
            out[s.null_src_tag:s.null_src_tag + len(TAGS)] = np.bincount(
                feats.null_src_tag, weights=stats.null_src, minlength=len(TAGS))
        if feats.null_tgt_tag is not None:
            out[s.null_tgt_tag:s.null_tgt_tag + len(TAGS)] = np.bincount(
                feats.null_tgt_tag, weights=stats.null_tgt, minlength=len(TAGS))
        out[s.rule:s.rule + KINDS] = stats.count
        for kind, m in enumerate(KIND_MISMATCH):
            if m is not None:
                out[s.mismatch + m] += stats.mismatch[kind]
        return out
