"""The non-factored model: a lexicalized PCFG in the spirit of Charniak (1997) and Collins (1999), where
backbone rules and head words are generated jointly, so CFG and dependency costs are correlated.

Top-down, for a constituent X with head word h = (word, tag):

- a top node picks its unary chain (or the identity) given X and h:  P(u | X, h_word, h_tag);
- a binary bottom node picks its rule given X and h:                 P(X -> Y Z, head side | X, h_word, h_tag);
- the non-head child's head a is generated given the child's base category C, the direction and h:
      P(tag_a | C, direction, h_word, h_tag) * P(word_a | tag_a, direction, h_word, h_tag);
- the head of the sentence is generated the same way under the category ROOT by a pseudo-head.

All distributions back off from the head word to the head tag to nothing (Witten-Bell, ``smoothing.py``).
The arc costs are keyed by (C, direction) (``rule_key``), so the same word pair costs differently under
different rules: no split into a CFG part and a dependency part is exact, which is what the approximate
projection (``approximate.py``) is for. Stop costs are zero. ``config_cost`` scores one rule application
outside a sentence, for the projection's optimisation.
"""
from typing import Sequence

import numpy as np

from .grammar import Grammar
from .lexicon import WordClasses
from .model import LEFT, RIGHT, ROOT_WORD, LexicalizedModel, SentenceCosts, outcome_costs, register_model
from .smoothing import WittenBell
from .treebank import HEAD_LEFT

__all__ = ["NonFactoredModel"]


@register_model
class NonFactoredModel(LexicalizedModel):
    """Lexicalized PCFG with head-conditioned rules and category-conditioned arguments (module docstring)."""

    kind = "nonfactored"

    def __init__(self, grammar: Grammar, words: WordClasses) -> None:
        super().__init__(grammar, words)
        g = grammar
        self.n_keys = 2 * len(g.categories)
        self.root_key = 2 * g.categories.index("ROOT") + RIGHT
        direction = np.where(g.binary_side == HEAD_LEFT, RIGHT, LEFT)
        self.rule_key = (2 * g.category[g.binary_arg] + direction).astype(np.int32)
        self.rules = WittenBell(3, group_ptr=g.binary_ptr)
        self.unaries = WittenBell(3, group_ptr=g.unary_ptr)
        self.arg_tags = WittenBell(3, group_ptr=np.arange(self.n_keys + 1) * self.n_tags)

    # -- training ------------------------------------------------------------------------------------
    def _fit(self, derivations, sentences) -> None:
        g = self.grammar
        for derivation, (words, tags) in zip(derivations, sentences):
            classes = self.words.classes(words)
            binary, unary = g.events(derivation)
            for event in unary:
                self.unaries.add(self._contexts(classes, tags, event.head), g.unary_parent[event.rule], event.rule)
            for event in binary:
                context = self._contexts(classes, tags, event.head)
                self.rules.add(context, g.binary_parent[event.rule], event.rule)
                key = int(self.rule_key[event.rule])
                self.arg_tags.add(context, key, key * self.n_tags + self.tag_index[tags[event.arg]])
            key = self.root_key
            self.arg_tags.add(((ROOT_WORD, ROOT_WORD), (ROOT_WORD,)), key,
                              key * self.n_tags + self.tag_index[tags[derivation.head]])

    @staticmethod
    def _contexts(classes, tags, h):
        return ((classes[h], tags[h]), (tags[h],))

    # -- costs ---------------------------------------------------------------------------------------
    def costs(self, words: Sequence[str], tags: Sequence[str]) -> SentenceCosts:
        """The sentence's cost arrays (see ``model.SentenceCosts``); O((R + U + K T) n + K n^2) time."""
        n = len(words)
        tag_ids = self.tag_indices(tags)
        classes = self.words.classes(words)
        word_pair, word_root = self.arg_word_costs(classes, tags)
        K, T = self.n_keys, self.n_tags
        rule = np.empty((self.grammar.n_binary, n))
        unary = np.empty((self.grammar.n_unary, n))
        arc = np.empty((K, n, n, 2))
        for h in range(n):
            context = self._contexts(classes, tags, h)
            rule[:, h] = -np.log(self.rules.table(context))
            unary[:, h] = -np.log(self.unaries.table(context))
            tag_cost = outcome_costs(self.arg_tags.table(context).reshape(K, T), tag_ids)
            arc[:, h, :, 0] = tag_cost + word_pair[h][None, :]
        arc[..., 1] = arc[..., 0]
        root_tags = self.arg_tags.table(((ROOT_WORD, ROOT_WORD), (ROOT_WORD,))).reshape(K, T)[self.root_key]
        root = outcome_costs(root_tags, tag_ids) + word_root
        return SentenceCosts(rule_cost=rule, unary_cost=unary, arc_cost=arc, stop_cost=np.zeros((n, 2, 2)),
                             root_cost=root, rule_key=self.rule_key.copy())

    def arc_key(self, symbol, head_side: int) -> int:
        """2 * category + direction; a symbol whose base category the model never saw (the unknown tag)
        takes the category that was generated as an argument most often in training."""
        direction = RIGHT if head_side == HEAD_LEFT else LEFT
        categories = self.grammar.categories
        if symbol[1] in categories:
            return 2 * categories.index(symbol[1]) + direction
        totals = self.arg_tags.group_totals()
        commonest = max(((count, key) for key, count in totals.items() if key != self.root_key), default=(0, 0))[1]
        return 2 * (commonest // 2) + direction

    def config_cost(self, kind: str, rule: int, head: tuple, arg: tuple = None) -> float:
        """The cost of one rule application given word classes and tags, outside any sentence.

        kind (str): "binary" (rule, head, arg), "unary" (rule, head) or "root" (arg only; rule ignored).
        head, arg (tuple): (word class, tag).
        RETURNS (float): the same cost a sentence containing this configuration would give it.
        """
        p = self.arg_words.prob
        if kind == "unary":
            return -np.log(self.unaries.prob(((head[0], head[1]), (head[1],)), self.grammar.unary_parent[rule], rule))
        if kind == "root":
            key = self.root_key
            tag = -np.log(self.arg_tags.prob(((ROOT_WORD, ROOT_WORD), (ROOT_WORD,)), key,
                                             key * self.n_tags + self.tag_index[arg[1]]))
            return tag - np.log(p(((RIGHT, ROOT_WORD, ROOT_WORD), (RIGHT, ROOT_WORD)), arg[1], arg[0]))
        if kind != "binary":
            raise ValueError(f"unknown configuration kind {kind!r}")
        context = ((head[0], head[1]), (head[1],))
        key = int(self.rule_key[rule])
        d = key % 2
        cost = -np.log(self.rules.prob(context, self.grammar.binary_parent[rule], rule))
        cost -= np.log(self.arg_tags.prob(context, key, key * self.n_tags + self.tag_index[arg[1]]))
        return cost - np.log(p(((d, head[0], head[1]), (d, head[1])), arg[1], arg[0]))

    # -- serialisation -------------------------------------------------------------------------------
    def _state(self) -> dict:
        return {"rules": self.rules.to_list(), "unaries": self.unaries.to_list(), "arg_tags": self.arg_tags.to_list()}

    def _load_state(self, data: dict) -> None:
        self.rules.load_list(data["rules"])
        self.unaries.load_list(data["unaries"])
        self.arg_tags.load_list(data["arg_tags"])
