"""HMM alignment models in both directions trained by agreement (Liang, Taskar & Klein, NAACL 2006): the
high-confidence link set M' of randomized pruning.

Each direction is the HMM of `vineparse/_kernels/hmm_align.pyx` (Vogel et al. 1996, NULL states with memory
as in Och & Ney 2003): translation tables t(f | e) and t(f | NULL), a table J over jump widths clamped to
[-B, B], and a fixed NULL probability p0. Training starts from IBM Model 1's tables and runs EM where, with
`agreement`, each pair's E-step multiplies the two directions' link posteriors,

    a[i, k] = P_fwd(target word k aligned to source word i) * P_bwd(source word i aligned to target word k),

(the product-of-marginals approximation of Liang et al.'s agreement E-step) and both directions' translation
counts come from it: the link (i, k) counts a[i, k] for t_fwd(f_k | e_i) and t_bwd(e_i | f_k), and the mass a
word does not agree on, 1 - sum a, counts for its NULL. Jump counts come from each direction's own edge
posteriors. Without `agreement`, each direction is trained on its own posteriors (Baum-Welch).

M' is decoded by thresholding the agreement posterior: the links with a[i, k] >= threshold, made one-to-one by
taking them best first (with threshold > 0.5 they are one-to-one already: a product above 1/2 needs both
factors above 1/2, and a word's posteriors sum to at most 1). Each training iteration costs two
forward-backward passes per pair, O(sum of (p q (p + q))).
"""
from dataclasses import asdict, dataclass
from typing import List, Sequence, Tuple

import numpy as np

from .._kernels import hmm_align as _hmm
from .model1 import BidirectionalModel1, Model1, Vocabulary


@dataclass
class HMMConfig:
    """Settings of the agreement HMM.

    max_jump (int): B, jumps wider than B share J's end buckets.
    p0 (float): NULL transition probability, in [0, 1).
    iterations (int): EM iterations (>= 0).
    agreement (bool): train the directions by agreement (else independently).
    threshold (float): M' keeps the links whose agreement posterior is at least this, in (0, 1].
    floor (float): probability of translation pairs the tables do not hold (unknown words).
    """

    max_jump: int = 7
    p0: float = 0.2
    iterations: int = 5
    agreement: bool = True
    threshold: float = 0.5
    floor: float = 1e-6

    def __post_init__(self):
        if int(self.max_jump) < 1:
            raise ValueError(f"max_jump must be >= 1, got {self.max_jump}")
        if not 0.0 <= self.p0 < 1.0:
            raise ValueError(f"p0 must be in [0, 1), got {self.p0}")
        if int(self.iterations) < 0:
            raise ValueError(f"iterations must be >= 0, got {self.iterations}")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")
        if not 0.0 < self.floor < 1.0:
            raise ValueError(f"floor must be in (0, 1), got {self.floor}")
        self.max_jump, self.iterations = int(self.max_jump), int(self.iterations)


def one_to_one(scores: np.ndarray, threshold: float) -> np.ndarray:
    """The links (i, k) with scores[i, k] >= threshold, best first, skipping any whose word is already linked.

    RETURNS (np.ndarray): int64 (n, 2), sorted rows (i, k).
    """
    rows, cols = np.nonzero(scores >= threshold)
    order = np.argsort(-scores[rows, cols], kind="stable")
    used_src, used_tgt, links = set(), set(), []
    for x in order:
        i, k = int(rows[x]), int(cols[x])
        if i not in used_src and k not in used_tgt:
            used_src.add(i)
            used_tgt.add(k)
            links.append((i, k))
    return np.array(sorted(links), dtype=np.int64).reshape(-1, 2)


class AgreementHMM:
    """HMM alignment models in both directions: `forward` generates target words from source positions,
    `backward` source words from target positions.

    forward, backward (Model1): the translation tables t(f | e), t(e | f) (with NULL as source word 0).
    jumps (np.ndarray): float64 (2, 2B + 1), J of each direction.
    config (HMMConfig): settings.
    """

    def __init__(self, forward: Model1, backward: Model1, jumps: np.ndarray, config: HMMConfig):
        self.forward = forward
        self.backward = backward
        self.jumps = np.asarray(jumps, dtype=np.float64)
        self.config = config
        if self.jumps.shape != (2, 2 * config.max_jump + 1):
            raise ValueError(f"jumps must have shape (2, {2 * config.max_jump + 1}), got {self.jumps.shape}")
        self.log_likelihoods: List[float] = []

    @classmethod
    def train(cls, pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], init: BidirectionalModel1,
              config: HMMConfig = None) -> "AgreementHMM":
        """EM from Model 1's tables `init` (see the module docstring); pairs with an empty side are ignored.

        `log_likelihoods` of the result holds, per iteration, the summed log likelihood of both directions
        before its M-step.
        """
        config = config or HMMConfig()
        pairs = [(list(s), list(t)) for s, t in pairs if len(s) and len(t)]
        fwd = _Direction.build(pairs, init.forward, config.floor)
        bwd = _Direction.build([(t, s) for s, t in pairs], init.backward, config.floor)
        jumps = np.ones((2, 2 * config.max_jump + 1))
        history = []
        for _ in range(config.iterations):
            fwd.reset()
            bwd.reset()
            total = 0.0
            for x in range(len(pairs)):
                rf = _hmm.posteriors(*fwd.log_tables(x), jumps[0], config.p0)
                rb = _hmm.posteriors(*bwd.log_tables(x), jumps[1], config.p0)
                total += rf["log_likelihood"] + rb["log_likelihood"]
                if config.agreement:
                    agree = rf["post"].T * rb["post"]                       # (p, q)
                    fwd.add(x, agree, 1.0 - agree.sum(axis=0))
                    bwd.add(x, agree.T, 1.0 - agree.sum(axis=1))
                else:
                    fwd.add(x, rf["post"].T, rf["null"])
                    bwd.add(x, rb["post"].T, rb["null"])
                fwd.jump_counts += rf["jumps"]
                bwd.jump_counts += rb["jumps"]
            history.append(total)
            fwd.m_step()
            bwd.m_step()
            jumps = np.stack([fwd.jump_counts, bwd.jump_counts]) + 1e-3      # keep every width possible
            jumps /= jumps.sum(axis=1, keepdims=True)
        model = cls(fwd.model1(), bwd.model1(), jumps, config)
        model.log_likelihoods = history
        return model

    def _log_tables(self, table: Model1, src: Sequence[str], tgt: Sequence[str]):
        t, null = table.table(src, tgt)                  # (p, q), (q,)
        floor = self.config.floor
        return np.log(np.maximum(t, floor)).T.copy(), np.log(np.maximum(null, floor))

    def directions(self, src: Sequence[str], tgt: Sequence[str]):
        """Forward-backward both ways: (forward pass, backward pass) as `hmm_align.posteriors` returns them
        (the forward's "post" is (q, p), the backward's (p, q))."""
        rf = _hmm.posteriors(*self._log_tables(self.forward, src, tgt), self.jumps[0], self.config.p0, False)
        rb = _hmm.posteriors(*self._log_tables(self.backward, tgt, src), self.jumps[1], self.config.p0, False)
        return rf, rb

    def posterior(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """The agreement posterior a[i, k] of every link (see the module docstring): float64 (p, q)."""
        if not len(src) or not len(tgt):
            return np.zeros((len(src), len(tgt)))
        rf, rb = self.directions(src, tgt)
        return rf["post"].T * rb["post"]

    def links(self, src: Sequence[str], tgt: Sequence[str], threshold: float = None) -> np.ndarray:
        """M': one-to-one links whose agreement posterior is at least `threshold` (default: the config's).

        RETURNS (np.ndarray): int64 (n, 2) sorted rows (i, k).
        """
        return self.links_from(self.posterior(src, tgt), threshold)

    def links_from(self, posterior: np.ndarray, threshold: float = None) -> np.ndarray:
        """M' from an agreement posterior (p, q) that `posterior` returned."""
        return one_to_one(posterior, self.config.threshold if threshold is None else threshold)

    def viterbi_intersection(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """The links both directions' Viterbi alignments make (the classic intersected alternative to M')."""
        if not len(src) or not len(tgt):
            return np.zeros((0, 2), dtype=np.int64)
        _, to_src = _hmm.viterbi(*self._log_tables(self.forward, src, tgt), self.jumps[0], self.config.p0)
        _, to_tgt = _hmm.viterbi(*self._log_tables(self.backward, tgt, src), self.jumps[1], self.config.p0)
        links = [(int(i), k) for k, i in enumerate(to_src) if i >= 0 and to_tgt[i] == k]
        return np.array(sorted(links), dtype=np.int64).reshape(-1, 2)

    def to_dict(self) -> dict:
        return {"forward": self.forward.to_dict(), "backward": self.backward.to_dict(),
                "jumps": self.jumps.tolist(), "config": asdict(self.config),
                "log_likelihoods": list(self.log_likelihoods)}

    @classmethod
    def from_dict(cls, data: dict) -> "AgreementHMM":
        model = cls(Model1.from_dict(data["forward"]), Model1.from_dict(data["backward"]),
                    np.array(data["jumps"]), HMMConfig(**data["config"]))
        model.log_likelihoods = list(data.get("log_likelihoods", []))
        return model


class _Direction:
    """One direction's tables during training, over the co-occurrences of the training pairs.

    keys (sorted int64): `e * n_tgt + f` of every co-occurring pair (e = 0 for NULL); index[x] (int64
    (p + 1, q)): each pair's keys as positions in `keys` (row 0: NULL). Log tables are floored at `floor`.
    """

    def __init__(self, src_vocab, tgt_vocab, keys, index, prob, floor):
        self.src_vocab, self.tgt_vocab, self.keys, self.index, self.prob = src_vocab, tgt_vocab, keys, index, prob
        self.key_src = keys // len(tgt_vocab)
        self.floor = floor
        self.log_prob = np.log(np.maximum(prob, floor))       # as at inference, where unseen pairs get the floor
        self.reset()

    @classmethod
    def build(cls, pairs, init: Model1, floor: float) -> "_Direction":
        src_vocab, tgt_vocab = Vocabulary(init.src_vocab.words[1:]), Vocabulary(init.tgt_vocab.words[1:])
        src_ids = [np.array([0] + [src_vocab.add(w) for w in s], dtype=np.int64) for s, _ in pairs]
        tgt_ids = [np.array([tgt_vocab.add(w) for w in t], dtype=np.int64) for _, t in pairs]
        n_tgt = len(tgt_vocab)
        occ = [s[:, None] * n_tgt + t[None, :] for s, t in zip(src_ids, tgt_ids)]
        keys = np.unique(np.concatenate([o.ravel() for o in occ])) if occ else np.zeros(0, dtype=np.int64)
        index = [np.searchsorted(keys, o) for o in occ]
        # Model 1's t for each key (floor where the initial model lacks the pair), renormalised per source word.
        words_e = np.array(src_vocab.words, dtype=object)[keys // n_tgt]
        words_f = np.array(tgt_vocab.words, dtype=object)[keys % n_tgt]
        e_ids, f_ids = init.src_vocab.ids(list(words_e)), init.tgt_vocab.ids(list(words_f))   # NULL is id 0
        init_keys = np.where((e_ids >= 0) & (f_ids >= 0), e_ids * len(init.tgt_vocab) + f_ids, -1)
        prob = np.full(len(keys), floor)
        if len(init.keys):
            at = np.minimum(np.searchsorted(init.keys, init_keys), len(init.keys) - 1)
            hit = (init_keys >= 0) & (init.keys[at] == init_keys)
            prob[hit] = np.maximum(init.prob[at[hit]], floor)
        totals = np.bincount(keys // n_tgt, weights=prob, minlength=len(src_vocab))
        return cls(src_vocab, tgt_vocab, keys, index, prob / totals[keys // n_tgt], floor)

    def reset(self):
        self.counts = np.zeros(len(self.keys))
        self.jump_counts = 0.0
        self._pending: List[Tuple[np.ndarray, np.ndarray]] = []

    def log_tables(self, x: int):
        index = self.index[x]
        return self.log_prob[index[1:]].T.copy(), self.log_prob[index[0]].copy()

    def add(self, x: int, links: np.ndarray, null: np.ndarray):
        """Expected counts of pair x: links (p, q) for the words' keys, null (q,) for NULL's."""
        self._pending.append((self.index[x].ravel(), np.concatenate([null, links.ravel()])))

    def m_step(self):
        if self._pending:
            index = np.concatenate([i for i, _ in self._pending])
            weights = np.concatenate([w for _, w in self._pending])
            self.counts = np.bincount(index, weights=np.maximum(weights, 0.0), minlength=len(self.keys))
        totals = np.bincount(self.key_src, weights=self.counts, minlength=len(self.src_vocab))
        with np.errstate(invalid="ignore", divide="ignore"):
            prob = self.counts / totals[self.key_src]
        # A source word whose counts all vanished keeps its previous distribution.
        self.prob = np.where(totals[self.key_src] > 0, prob, self.prob)
        self.log_prob = np.log(np.maximum(self.prob, self.floor))
        self._pending = []

    def model1(self) -> Model1:
        keep = self.prob > 0
        return Model1(self.src_vocab, self.tgt_vocab, self.keys[keep], self.prob[keep])
