"""IBM Model 1 (Brown et al. 1993) in both directions, trained by EM, vectorised with numpy.

One direction generates each target word f_k from one source position (or NULL) chosen uniformly:

    P(f | e) = prod_k 1/(p + 1) * sum_{i in NULL, 0..p-1} t(f_k | e_i)

EM (the E-step posterior of the position of f_k is t(f_k | e_i) / sum_i' t(f_k | e_i')) never lowers this
likelihood. Each iteration is a handful of numpy passes over every (source position, target token)
co-occurrence of the corpus, O(sum over pairs of (p + 1) q). Only co-occurring word pairs get a table entry
(t is 0 elsewhere), stored as sorted int64 keys `e * n_tgt + f`.

Viterbi links of a direction take the best position of each target word (NULL included); the links both
directions agree on, NULL excluded, are the high-confidence set M' of randomized pruning.
"""
from typing import Dict, List, Sequence, Tuple

import numpy as np

NULL = "<null>"          # source word 0 of every vocabulary


class Vocabulary:
    """Words to ids; id 0 is NULL. Unknown words map to -1."""

    def __init__(self, words: Sequence[str] = ()):
        self.words: List[str] = [NULL]
        self.index: Dict[str, int] = {NULL: 0}
        for word in words:
            self.add(word)

    def add(self, word: str) -> int:
        if word not in self.index:
            self.index[word] = len(self.words)
            self.words.append(word)
        return self.index[word]

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """int64 ids of `words`, -1 for unknown words."""
        return np.array([self.index.get(w, -1) for w in words], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.words)


class Model1:
    """t(f | e) of one direction: source words e (and NULL) generate target words f.

    src_vocab, tgt_vocab (Vocabulary): the two vocabularies (id 0 of tgt_vocab is unused).
    keys (int64 array, sorted): `e * len(tgt_vocab) + f` of every co-occurring pair.
    prob (float64 array): t(f | e) of each key.
    """

    def __init__(self, src_vocab: Vocabulary, tgt_vocab: Vocabulary, keys: np.ndarray, prob: np.ndarray):
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        self.keys = np.asarray(keys, dtype=np.int64)
        self.prob = np.asarray(prob, dtype=np.float64)
        self.log_likelihoods: List[float] = []

    def table(self, src: Sequence[str], tgt: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """t(tgt_k | src_i) for one pair.

        RETURNS (Tuple[np.ndarray, np.ndarray]): (p, q) translation probabilities and (q,) t(tgt_k | NULL);
            0 for pairs never seen together and for unknown words.
        """
        src_ids = np.concatenate([[0], self.src_vocab.ids(src)])
        tgt_ids = self.tgt_vocab.ids(tgt)
        keys = src_ids[:, None] * len(self.tgt_vocab) + tgt_ids[None, :]
        known = (src_ids[:, None] >= 0) & (tgt_ids[None, :] >= 0)
        probs = np.zeros(keys.shape)
        if len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
            hit = known & (self.keys[at] == keys)
            probs[hit] = self.prob[at[hit]]
        return probs[1:], probs[0]

    def viterbi(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """The best source position of every target word under t (-1 = NULL; ties go to NULL, then left).

        RETURNS (np.ndarray): int64 (q,).
        """
        table, null = self.table(src, tgt)
        full = np.vstack([null[None, :], table])
        return np.argmax(full, axis=0) - 1

    def to_dict(self) -> dict:
        return {"src": self.src_vocab.words, "tgt": self.tgt_vocab.words, "keys": self.keys.tolist(),
                "prob": self.prob.tolist(), "log_likelihoods": list(self.log_likelihoods)}

    @classmethod
    def from_dict(cls, data: dict) -> "Model1":
        model = cls(Vocabulary(data["src"][1:]), Vocabulary(data["tgt"][1:]), np.array(data["keys"], dtype=np.int64),
                    np.array(data["prob"], dtype=np.float64))
        model.log_likelihoods = list(data.get("log_likelihoods", []))
        return model


def train_model1(pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], iterations: int = 5) -> Model1:
    """Train t(f | e) by EM from uniform, source words generating target words.

    pairs (Sequence[Tuple[Sequence[str], Sequence[str]]]): (source words, target words); pairs with an empty
        side carry no co-occurrence and are ignored by EM (they add nothing to either count).
    iterations (int): EM iterations (>= 0). `log_likelihoods` of the result holds the corpus log likelihood
        before each M-step, so it has `iterations` entries and never decreases.
    RETURNS (Model1): The trained direction.
    """
    if iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    src_vocab, tgt_vocab = Vocabulary(), Vocabulary()
    src_ids = [np.array([0] + [src_vocab.add(w) for w in s], dtype=np.int64) for s, _ in pairs]
    tgt_ids = [np.array([tgt_vocab.add(w) for w in t], dtype=np.int64) for _, t in pairs]
    n_tgt = len(tgt_vocab)
    # One co-occurrence per (pair, target position, source position incl. NULL), grouped by target token.
    occ = [(s[None, :] * n_tgt + t[:, None]).ravel() for s, t in zip(src_ids, tgt_ids) if len(t) and len(s) > 1]
    sizes = np.concatenate([np.full(len(t), len(s)) for s, t in zip(src_ids, tgt_ids)
                            if len(t) and len(s) > 1] or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    if not occ:
        return Model1(src_vocab, tgt_vocab, np.zeros(0, dtype=np.int64), np.zeros(0))
    keys, occ_index = np.unique(np.concatenate(occ), return_inverse=True)
    key_src = keys // n_tgt
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    prob = np.full(len(keys), 1.0 / max(n_tgt - 1, 1))
    log_likelihoods = []
    for _ in range(iterations):
        values = prob[occ_index]
        denom = np.add.reduceat(values, starts)
        log_likelihoods.append(float(np.sum(np.log(denom)) - np.sum(np.log(sizes))))
        posterior = values / np.repeat(denom, sizes)
        counts = np.bincount(occ_index, weights=posterior, minlength=len(keys))
        totals = np.bincount(key_src, weights=counts, minlength=len(src_vocab))
        prob = counts / totals[key_src]
    model = Model1(src_vocab, tgt_vocab, keys, prob)
    model.log_likelihoods = log_likelihoods
    return model


class BidirectionalModel1:
    """Model 1 in both directions: `forward` gives t(tgt | src), `backward` t(src | tgt)."""

    def __init__(self, forward: Model1, backward: Model1):
        self.forward = forward
        self.backward = backward

    @classmethod
    def train(cls, pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], iterations: int = 5) -> "BidirectionalModel1":
        """Train both directions on (source words, target words) pairs."""
        forward = train_model1(pairs, iterations)
        backward = train_model1([(t, s) for s, t in pairs], iterations)
        return cls(forward, backward)

    @classmethod
    def untrained(cls) -> "BidirectionalModel1":
        """Empty tables: every word is unknown."""
        return cls(train_model1([], 0), train_model1([], 0))

    def tables(self, src: Sequence[str], tgt: Sequence[str]) -> Dict[str, np.ndarray]:
        """Everything the features need about one pair.

        RETURNS (Dict[str, np.ndarray]): "fwd" (p, q) t(tgt_k | src_i), "bwd" (p, q) t(src_i | tgt_k),
            "fwd_null" (q,) t(tgt_k | NULL), "bwd_null" (p,) t(src_i | NULL), "src_known" (p,) and
            "tgt_known" (q,) bool (the word was in the training corpus).
        """
        fwd, fwd_null = self.forward.table(src, tgt)
        bwd, bwd_null = self.backward.table(tgt, src)
        return {"fwd": fwd, "bwd": bwd.T.copy(), "fwd_null": fwd_null, "bwd_null": bwd_null,
                "src_known": self.forward.src_vocab.ids(src) >= 0,
                "tgt_known": self.forward.tgt_vocab.ids(tgt) >= 0}

    def intersection(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """M': the links both directions' Viterbi alignments make, NULL excluded.

        RETURNS (np.ndarray): int64 (n, 2) rows (i, k), sorted; a one-to-one set.
        """
        if not len(src) or not len(tgt):
            return np.zeros((0, 2), dtype=np.int64)
        to_src = self.forward.viterbi(src, tgt)          # for each target word k, its source position
        to_tgt = self.backward.viterbi(tgt, src)         # for each source word i, its target position
        links = [(int(i), k) for k, i in enumerate(to_src) if i >= 0 and to_tgt[i] == k]
        return np.array(sorted(links), dtype=np.int64).reshape(-1, 2)

    def to_dict(self) -> dict:
        return {"forward": self.forward.to_dict(), "backward": self.backward.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> "BidirectionalModel1":
        return cls(Model1.from_dict(data["forward"]), Model1.from_dict(data["backward"]))


def corpus_log_likelihood(model: Model1, pairs: Sequence[Tuple[Sequence[str], Sequence[str]]]) -> float:
    """log P(target | source) summed over pairs (length terms dropped), for checking EM.

    RETURNS (float): The log likelihood; -inf if some target word has probability 0 everywhere.
    """
    total = 0.0
    for src, tgt in pairs:
        if not len(src) or not len(tgt):
            continue
        table, null = model.table(src, tgt)
        total += float(np.sum(np.log(table.sum(axis=0) + null)) - len(tgt) * np.log(len(src) + 1))
    return total

