"""The back-off grammar: a parse for every tagged sentence, even one the treebank grammar cannot derive.

A sentence gets the back-off when one of its tags is outside the training set, or when the grammar has no
derivation of ROOT over its tags (``parser.py`` tries the treebank grammar first, so every sentence it
covers keeps its exact optimum). The back-off grammar is the treebank grammar plus:

- an **unknown-tag class** ``UNKNOWN_TAG``: every tag outside the training set becomes this tag symbol;
  the models score it like an unseen context (``model.outcome_costs``), and it can head or join a chunk;
- **glue rules** that join *chunks* (any complete constituent or tag the treebank grammar builds over a
  span) into one flat constituent ``X``, head-outward in the same canonical order as ``treebank.binarize``
  (so each glued tree has one derivation): the head chunk Y starts a right-glue item, right chunks attach
  first, then left chunks:

      top  G>  <- bottom Y                 (start: Y is the head chunk)
      bottom G>  -> top G>  top Y          (head left: attach the next chunk on the right)
      bottom G<  -> top Y  top G>          (head right: attach a chunk on the left)
      bottom G<  -> top Y  top G<
      top  G>  <- bottom G>,  top G< <- bottom G<      (identities)
      top  ROOT <- bottom G>,  bottom G<,  bottom Y    (the whole sentence: glued, or one chunk)

  plus an identity top over every tag that lacks one (incl. the unknown tag), so a single word can be a
  chunk. ``treebank.debinarize`` splices glue nodes, so a glued parse reads ``(X chunk1 chunk2 ...)``.

Costs. Every glue rule application costs ``cost`` (a constant, like one rare rule; default 5 nats) plus
the model's own arc and closing costs for the dependency it creates, keyed by ``model.arc_key``: the glue
rules are rules of the model's form (``model.SentenceCosts``), so every heuristic (null, cfg, split,
factored, approximate) and the exhaustive chart work on the back-off grammar unchanged, and their
guarantees (admissibility, exactness) hold for it. For a factored model the glue costs are constant in the
head word, so the costs stay factored. The search on the back-off grammar is exact for the back-off
grammar's costs: its optimum is a glued parse with as few glue steps as the costs favour.

Rule ids. Glue symbols are appended after the treebank grammar's symbols, so every original symbol and
binary rule keeps its id (glue binary rules come last); unary rules are re-sorted, and ``unary_map`` gives
each original unary rule's id in the back-off grammar.
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .grammar import Grammar
from .model import UNKNOWN_TAG, LexicalizedModel, SentenceCosts
from .projections import Projection
from .treebank import GLUE, HEAD_LEFT, HEAD_RIGHT, PHRASE, TAG

__all__ = ["BackoffGrammar", "UNKNOWN_TAG", "GLUE_LABEL", "DEFAULT_COST"]

GLUE_LABEL = "X"             # the label of a glued constituent (PTB's label for an unanalysable phrase)
# Nats per glue rule application. Chosen on held-out training trees (wsj 3000-3599 of the sample, <= 30 words)
# that a grammar read from the first 300 trees cannot derive (61 sentences): Collins-head accuracy 72.6% at
# a cost of 2, 71.9% at 5, 68.6% at 10; 5 keeps glued parses to fewer, larger chunks at almost the same accuracy.
DEFAULT_COST = 5.0
GLUE_RIGHT = (GLUE, GLUE_LABEL, "", (">",))
GLUE_LEFT = (GLUE, GLUE_LABEL, "", ("<",))
UNKNOWN_SYMBOL = (TAG, UNKNOWN_TAG, "", ())


class BackoffGrammar:
    """The treebank grammar of a model plus the unknown tag and glue rules (see the module docstring).

    model (LexicalizedModel): a trained model; its grammar is the treebank grammar.
    cost (float): the cost of one glue rule application (> 0).
    """

    def __init__(self, model: LexicalizedModel, cost: float = DEFAULT_COST) -> None:
        if not (np.isfinite(cost) and cost > 0):
            raise ValueError(f"the back-off glue cost must be positive and finite, got {cost}")
        base = model.grammar
        if UNKNOWN_TAG in base.tags:
            raise ValueError(f"the treebank grammar already has a tag named {UNKNOWN_TAG!r}")
        self.model = model
        self.base = base
        self.cost = float(cost)
        symbols = list(base.symbols) + [UNKNOWN_SYMBOL, GLUE_RIGHT, GLUE_LEFT]
        unk, right, left = len(base.symbols), len(base.symbols) + 1, len(base.symbols) + 2
        kinds = [s[0] for s in symbols]
        tags = [i for i, kind in enumerate(kinds) if kind == TAG]
        has_binary = np.diff(base.binary_ptr) > 0
        # Chunks: tags and phrases. A chunk heads a glue item from its bottom node, and joins one as a top node.
        bottoms = tags + [i for i in range(len(base.symbols)) if kinds[i] == PHRASE and has_binary[i]]
        identities = {(t, b) for t, b, c in base.unary_rules if c is None}
        new_identities = [(t, t, None) for t in tags if (t, t) not in identities]
        tops = sorted(set(int(t) for t in base.unary_parent if kinds[t] in (TAG, PHRASE)) | set(tags))
        glue_binary = ([(right, right, y, HEAD_LEFT) for y in tops]
                       + [(left, y, right, HEAD_RIGHT) for y in tops]
                       + [(left, y, left, HEAD_RIGHT) for y in tops])
        existing = set(base.unary_index)
        glue_unary = [(right, y, ()) for y in bottoms] + [(right, right, None), (left, left, None)]
        glue_unary += [rule for rule in [(base.root, y, ()) for y in bottoms + [right, left]] if rule not in existing]
        glue_unary += new_identities
        self.grammar = Grammar(symbols, list(base.binary_rules) + glue_binary, list(base.unary_rules) + glue_unary)
        g = self.grammar
        if g.binary_rules[: base.n_binary] != base.binary_rules:
            raise AssertionError("glue binary rules must sort after the treebank grammar's")
        self.unknown = unk
        self.unary_map = np.array([g.unary_index[rule] for rule in base.unary_rules], dtype=np.int64)
        self.glue_unary = np.ones(g.n_unary, dtype=bool)
        self.glue_unary[self.unary_map] = False
        self.glue_keys = np.array([model.arc_key(g.symbols[g.binary_arg[r]], g.binary_side[r])
                                   for r in range(base.n_binary, g.n_binary)], dtype=np.int32).reshape(-1)

    @property
    def n_glue_binary(self) -> int:
        return self.grammar.n_binary - self.base.n_binary

    @property
    def n_glue_unary(self) -> int:
        return int(self.glue_unary.sum())

    def tags(self, tags: Sequence[str]) -> Tuple[List[str], List[int]]:
        """The tags with every tag outside the treebank grammar replaced by ``UNKNOWN_TAG``, and the
        positions (0-based) replaced."""
        known = self.base.tags
        unknown = [i for i, t in enumerate(tags) if t not in known]
        return [t if t in known else UNKNOWN_TAG for t in tags], unknown

    def costs(self, costs: SentenceCosts) -> SentenceCosts:
        """The back-off grammar's costs of a sentence from the model's costs of it (``model.costs`` on the
        mapped tags): original rules keep their costs, glue rules cost ``cost`` for every head.
        Time O((R + U) n)."""
        n = costs.n
        R, U = self.grammar.n_binary, self.grammar.n_unary
        rule_cost = np.full((R, costs.rule_cost.shape[1]), self.cost)
        rule_cost[: self.base.n_binary] = costs.rule_cost
        unary_cost = np.full((U, costs.unary_cost.shape[1]), self.cost)
        unary_cost[self.unary_map] = costs.unary_cost
        rule_key = np.concatenate([np.asarray(costs.rule_key, dtype=np.int32), self.glue_keys])
        cfg_binary = cfg_unary = None
        if costs.factored:
            cfg_binary, cfg_unary = self._rule_parts(costs.cfg_binary, costs.cfg_unary)
        return SentenceCosts(rule_cost, unary_cost, costs.arc_cost, costs.stop_cost, costs.root_cost, rule_key,
                             cfg_binary=cfg_binary, cfg_unary=cfg_unary)

    def projection(self, projection: Projection) -> Projection:
        """A projection of the treebank grammar (the learned approximate one) extended to the back-off
        grammar: a glue rule projects to its own constant cost, its dependency as any other."""
        cfg_binary, cfg_unary = self._rule_parts(projection.cfg_binary, projection.cfg_unary)
        return Projection(cfg_binary, cfg_unary, projection.dep_arc, projection.dep_stop, projection.dep_root)

    def _rule_parts(self, binary: np.ndarray, unary: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        out_b = np.full(self.grammar.n_binary, self.cost)
        out_b[: self.base.n_binary] = binary
        out_u = np.full(self.grammar.n_unary, self.cost)
        out_u[self.unary_map] = unary
        return out_b, out_u

    def describe(self) -> dict:
        """Sizes, for reports."""
        return {"glue_cost": self.cost, "glue_binary_rules": self.n_glue_binary,
                "glue_unary_rules": self.n_glue_unary, "symbols": self.grammar.n_symbols}
