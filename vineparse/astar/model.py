"""What every lexicalized model gives the search: the cost of each rule application in one sentence.

A model turns a sentence (words and tags) into ``SentenceCosts``: arrays of costs (negative log
probabilities, finite and >= 0), indexed by rule and word positions (0-based), that the search kernels read
directly. The cost of a derivation (``derivation_cost``) is the sum of

- ``rule_cost[r, h]`` for each binary node of rule r and head word h, plus
  ``arc_cost[rule_key[r], h, a, adj]`` for the dependency it creates from h to the non-head child's head a,
  where ``adj`` is 1 if the head child has no dependent of h on that side yet (its span ends at h on the
  argument's side), plus ``close(a, s, e)`` for the non-head child, which is finished at its span [s, e);
- ``unary_cost[u, h]`` for each top node (identity or unary chain u) with head h;
- ``root_cost[h] + close(h, 0, n)`` for the head h of the sentence;

with ``close(a, s, e) = stop_cost[a, 0, s == a] + stop_cost[a, 1, e == a + 1]`` (side 0 left, 1 right).
This one form holds both models: the factored one uses ``rule_cost`` constant in h, one arc key, and stop
costs; the non-factored one keys arcs by the argument's category and direction and has no stop costs.

The base class ``LexicalizedModel`` holds the grammar and the word classes, serialises through
``to_dict``/``from_dict`` (with a version checked on load), and provides the argument-word distribution both
models share: P(word | tag, direction, head word, head tag), Witten-Bell smoothed.

Unknown tags. A model also scores sentences in which some words carry ``UNKNOWN_TAG`` (the class the
parser's back-off gives tags outside the training set, ``backoff.py``): contexts with that tag back off like
any unseen context, and generating it as an outcome costs as much as the least likely known tag in the same
distribution (``outcome_costs``). ``arc_key`` tells the back-off grammar which arc costs a new rule reads.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Type

import numpy as np

from .grammar import Grammar, GrammarError
from .lexicon import WordClasses
from .smoothing import WittenBell
from .treebank import HEAD_LEFT, Node, Symbol

__all__ = ["SentenceCosts", "LexicalizedModel", "derivation_cost", "ModelError", "MODEL_VERSION",
           "register_model", "model_from_dict", "UNKNOWN_TAG", "outcome_costs"]

MODEL_VERSION = 1
ROOT_WORD = "<root>"      # the pseudo-head that generates the head of the sentence
UNKNOWN_TAG = "<unk-tag>"  # the class of every tag outside the training set (back-off parsing only)
LEFT, RIGHT = 0, 1


def outcome_costs(probs: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """-log probs[..., ids] for outcome indices into the last axis; an index of -1 (the unknown tag) costs
    as much as the least likely known outcome of its row. RETURNS (np.ndarray): shape probs.shape[:-1] +
    ids.shape."""
    ids = np.asarray(ids)
    known = ids >= 0
    picked = probs[..., np.where(known, ids, 0)]
    if not known.all():
        picked[..., ~known] = probs.min(axis=-1, keepdims=True)
    return -np.log(picked)


class ModelError(ValueError):
    """A model that cannot be used: wrong version, unknown kind, malformed data, untrained."""


@dataclass
class SentenceCosts:
    """Costs of every rule application in one sentence of n words (see the module docstring).

    rule_cost (np.ndarray): float64 (R, n), binary rule r with head word h.
    unary_cost (np.ndarray): float64 (U, n), unary rule (identity or chain) u with head h.
    arc_cost (np.ndarray): float64 (K, n, n, 2), [key, head, argument, adjacent].
    stop_cost (np.ndarray): float64 (n, 2, 2), [word, side (0 left, 1 right), adjacent].
    root_cost (np.ndarray): float64 (n,), the word heading the sentence.
    rule_key (np.ndarray): int32 (R,), the arc key of each binary rule, in 0..K-1.
    cfg_binary, cfg_unary (Optional[np.ndarray]): for a factored model, its CFG costs (R,) and (U,)
        alone (then rule_cost[r, h] == cfg_binary[r] and unary_cost[u, h] == cfg_unary[u]).
    """

    rule_cost: np.ndarray
    unary_cost: np.ndarray
    arc_cost: np.ndarray
    stop_cost: np.ndarray
    root_cost: np.ndarray
    rule_key: np.ndarray
    cfg_binary: Optional[np.ndarray] = None
    cfg_unary: Optional[np.ndarray] = None

    @property
    def n(self) -> int:
        return self.root_cost.shape[0]

    @property
    def factored(self) -> bool:
        """Whether the costs split into a CFG part and a dependency part (``cfg_binary`` is set)."""
        return self.cfg_binary is not None

    def check(self, grammar: Grammar) -> "SentenceCosts":
        """Validate shapes, dtypes and values against a grammar; RETURNS self (arrays made contiguous).

        RAISES (ValueError): naming the first array with a wrong shape, NaN, negative or infinite costs.
        """
        n = self.n
        K = self.arc_cost.shape[0] if self.arc_cost.ndim == 4 else -1
        expected = {"rule_cost": (grammar.n_binary, n), "unary_cost": (grammar.n_unary, n),
                    "arc_cost": (K, n, n, 2), "stop_cost": (n, 2, 2), "root_cost": (n,)}
        for name, shape in expected.items():
            array = np.ascontiguousarray(getattr(self, name), dtype=np.float64)
            if array.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
            if not np.isfinite(array).all():
                raise ValueError(f"{name} contains NaN or infinite costs")
            if (array < 0).any():
                raise ValueError(f"{name} contains negative costs (the search needs costs >= 0)")
            setattr(self, name, array)
        self.rule_key = np.ascontiguousarray(self.rule_key, dtype=np.int32)
        if self.rule_key.shape != (grammar.n_binary,):
            raise ValueError(f"rule_key must have shape ({grammar.n_binary},), got {self.rule_key.shape}")
        if self.rule_key.size and (self.rule_key.min() < 0 or self.rule_key.max() >= K):
            raise ValueError(f"rule_key must lie in 0..{K - 1}")
        return self

    def close(self, word: int, start: int, end: int) -> float:
        """The cost of finishing word's dependents when its constituent spans [start, end)."""
        return float(self.stop_cost[word, LEFT, int(start == word)] + self.stop_cost[word, RIGHT, int(end == word + 1)])


def derivation_cost(derivation: Node, costs: SentenceCosts, grammar: Grammar) -> float:
    """The cost of a derivation under sentence costs, summed node by node in Python (the reference the
    search kernels are tested against). RETURNS (float): the total cost."""
    total = float(costs.root_cost[derivation.head]) + costs.close(derivation.head, derivation.start, derivation.end)
    for node in derivation.nodes():
        if len(node.children) == 1:
            total += float(costs.unary_cost[grammar.rule_ids(node), node.head])
        elif len(node.children) == 2:
            r = grammar.rule_ids(node)
            head_child, arg = node.children if node.head_side == HEAD_LEFT else node.children[::-1]
            h = node.head
            adj = head_child.end == h + 1 if node.head_side == HEAD_LEFT else head_child.start == h
            total += float(costs.rule_cost[r, h] + costs.arc_cost[costs.rule_key[r], h, arg.head, int(adj)])
            total += costs.close(arg.head, arg.start, arg.end)
    return total


_MODELS: Dict[str, Type["LexicalizedModel"]] = {}


def register_model(cls: Type["LexicalizedModel"]) -> Type["LexicalizedModel"]:
    """Class decorator: make a model kind loadable by name."""
    _MODELS[cls.kind] = cls
    return cls


def model_from_dict(data: dict) -> "LexicalizedModel":
    """Rebuild a saved model of any registered kind.

    RAISES (ModelError): for an unknown kind or another model version.
    """
    kind = data.get("kind")
    if kind not in _MODELS:
        raise ModelError(f"unknown model kind {kind!r}; known: {', '.join(sorted(_MODELS))}")
    if data.get("version") != MODEL_VERSION:
        raise ModelError(f"saved {kind} model has version {data.get('version')!r}, this vineparse reads version "
                         f"{MODEL_VERSION}; retrain it")
    return _MODELS[kind].from_dict(data)


class LexicalizedModel:
    """Base class: the grammar, the word classes and the shared argument-word distribution.

    Subclasses set ``kind``, implement ``_fit(derivations, sentences)``, ``costs(words, tags)``,
    ``_state()`` and ``_load_state(data)``.
    """

    kind = "base"

    def __init__(self, grammar: Grammar, words: WordClasses) -> None:
        self.grammar = grammar
        self.words = words
        self.tag_list: List[str] = sorted(grammar.tags)
        self.tag_index = {t: i for i, t in enumerate(self.tag_list)}
        # P(word | tag, direction, head word, head tag) -> (dir, head word) -> (dir, head tag) -> tag alone.
        self.arg_words = WittenBell(3, vocabulary=len(words) + 1)

    @property
    def n_tags(self) -> int:
        return len(self.tag_list)

    def tag_indices(self, tags: Sequence[str]) -> np.ndarray:
        """The index of each tag in ``tag_list``, -1 for ``UNKNOWN_TAG``.

        RAISES (GrammarError): for any other tag outside the grammar, naming it and its position.
        """
        out = np.empty(len(tags), dtype=np.int64)
        for i, tag in enumerate(tags):
            k = self.tag_index.get(tag, -1)
            if k < 0 and tag != UNKNOWN_TAG:
                raise GrammarError(f"tag {tag!r} of word {i + 1} is not in the grammar (known tags: "
                                   f"{', '.join(self.tag_list)})")
            out[i] = k
        return out

    def arc_key(self, symbol: Symbol, head_side: int) -> int:
        """The arc-cost key (``SentenceCosts.rule_key``) of a binary rule whose non-head child is `symbol`
        and whose head child is on `head_side`; rules the grammar lacks (the back-off's glue) need it."""
        raise NotImplementedError

    def fit(self, derivations: Sequence[Node], sentences: Sequence[Tuple[Sequence[str], Sequence[str]]]) -> "LexicalizedModel":
        """Count events in training derivations.

        derivations (Sequence[Node]): ``treebank.binarize`` of each training tree.
        sentences (Sequence[Tuple[words, tags]]): the words and tags of each tree, same order.
        RETURNS (LexicalizedModel): self.
        """
        if len(derivations) != len(sentences):
            raise ValueError(f"{len(derivations)} derivations but {len(sentences)} sentences")
        for derivation, (words, tags) in zip(derivations, sentences):
            classes = self.words.classes(words)
            binary, _ = self.grammar.events(derivation)
            for event in binary:
                self._count_arg_word(classes, tags, event.head, event.arg)
            self._count_arg_word(classes, tags, None, derivation.head)
        self._fit(derivations, sentences)
        return self

    # -- the shared argument-word distribution -----------------------------------------------------
    def _head_context(self, classes, tags, head: Optional[int]) -> Tuple[str, str]:
        return (ROOT_WORD, ROOT_WORD) if head is None else (classes[head], tags[head])

    def _count_arg_word(self, classes, tags, head: Optional[int], arg: int) -> None:
        hw, ht = self._head_context(classes, tags, head)
        direction = RIGHT if head is None or arg > head else LEFT
        self.arg_words.add(((direction, hw, ht), (direction, ht)), tags[arg], classes[arg])

    def arg_word_costs(self, classes: Sequence[str], tags: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """-log P(word of a | tag of a, direction, head h): an (n, n) array [h, a] (diagonal unused), and the
        same for the root as head, (n,)."""
        n = len(classes)
        pair = np.zeros((n, n))
        prob = self.arg_words.prob
        for h in range(n):
            context = (classes[h], tags[h])
            for a in range(n):
                if a != h:
                    d = RIGHT if a > h else LEFT
                    pair[h, a] = prob(((d, context[0], context[1]), (d, context[1])), tags[a], classes[a])
        root = np.array([prob(((RIGHT, ROOT_WORD, ROOT_WORD), (RIGHT, ROOT_WORD)), tags[a], classes[a])
                         for a in range(n)])
        np.fill_diagonal(pair, 1.0)
        return -np.log(pair), -np.log(root)

    # -- per-sentence costs -------------------------------------------------------------------------
    def costs(self, words: Sequence[str], tags: Sequence[str]) -> SentenceCosts:
        raise NotImplementedError

    def _fit(self, derivations, sentences) -> None:
        raise NotImplementedError

    # -- serialisation -------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Everything needed to rebuild the model (msgpack/JSON friendly), with kind and version."""
        return {"kind": self.kind, "version": MODEL_VERSION, "grammar": self.grammar.to_dict(),
                "words": self.words.to_list(), "arg_words": self.arg_words.to_list(), **self._state()}

    @classmethod
    def from_dict(cls, data: dict) -> "LexicalizedModel":
        if data.get("version") != MODEL_VERSION:
            raise ModelError(f"saved model has version {data.get('version')!r}, expected {MODEL_VERSION}")
        try:
            model = cls(Grammar.from_dict(data["grammar"]), WordClasses.from_list(data["words"]))
            model.arg_words.load_list(data["arg_words"])
            model._load_state(data)
        except (KeyError, TypeError, IndexError) as error:
            raise ModelError(f"malformed saved {cls.kind} model: {error!r}") from None
        return model

    def _state(self) -> dict:
        raise NotImplementedError

    def _load_state(self, data: dict) -> None:
        raise NotImplementedError
