"""Projected costs: how much of each rule application's cost the CFG projection and the dependency
projection are charged, per heuristic.

A binary rule application x = (rule r, head h, argument a, adjacency, the argument's span) projects to the
CFG rule r and to the dependency (h, a, adjacency, span); its projected cost is

    cfg_binary[r] + dep_arc[h, a, adj] + dep_close(a, span)

and a unary application (u, h) costs ``cfg_unary[u]`` (plus ``dep_root[h] + dep_close(h, 0, n)`` for the
ROOT rules). The heuristic built from a projection (``heuristics.py``) is admissible when every projected
cost is at most the true cost (*pointwise admissible*, Haghighi et al. 2007), and then also consistent.

- ``null_projection``: all zero (uniform-cost search).
- ``cfg_projection``: the CFG part is the true cost minimised over everything the dependency projection
  sees within the sentence (head, argument, adjacency, closing costs), the dependency part zero
  (Klein & Manning 2003's CFG-only bound, for any model). Pointwise admissible by construction.
- ``factored_projection``: for a factored model, its PCFG costs and its dependency costs: exact, so
  pointwise admissible with equality.
- ``split_projection``: any model, split within the sentence: the dependency part of (h, a, adj) is the
  least arc cost over the rules' arc keys, with the model's stop and root costs; the CFG part of each rule
  is the least *remainder* (true cost minus dependency part) over the sentence. Pointwise admissible by
  construction, and equal to ``factored_projection`` for a factored model.
- the learned projection of ``approximate.py``, which may overestimate.
"""
from dataclasses import dataclass, replace

import numpy as np

from .._kernels.lexgrammar import CostTables
from .grammar import Grammar
from .model import LEFT, RIGHT, SentenceCosts
from .treebank import HEAD_LEFT

__all__ = ["Projection", "null_projection", "cfg_projection", "factored_projection", "split_projection"]


@dataclass
class Projection:
    """Projected costs for one sentence of n words (see the module docstring).

    cfg_binary (np.ndarray): float64 (R,).
    cfg_unary (np.ndarray): float64 (U,).
    dep_arc (np.ndarray): float64 (n, n, 2), [head, argument, adjacent].
    dep_stop (np.ndarray): float64 (n, 2, 2), [word, side, adjacent].
    dep_root (np.ndarray): float64 (n,).
    """

    cfg_binary: np.ndarray
    cfg_unary: np.ndarray
    dep_arc: np.ndarray
    dep_stop: np.ndarray
    dep_root: np.ndarray

    @property
    def n(self) -> int:
        return self.dep_root.shape[0]

    def has_dependency_part(self) -> bool:
        """Whether the dependency projection charges anything (else its outside costs are all zero)."""
        return bool(self.dep_arc.any() or self.dep_stop.any() or self.dep_root.any())

    def tables(self) -> CostTables:
        """The kernels' view: rule costs with one column, one arc key."""
        f = lambda a: np.ascontiguousarray(a, dtype=np.float64)
        return CostTables(f(self.cfg_binary)[:, None].copy(), f(self.cfg_unary)[:, None].copy(),
                          f(self.dep_arc)[None].copy(), f(self.dep_stop), f(self.dep_root),
                          np.zeros(self.cfg_binary.shape[0], dtype=np.int32))

    def check(self, grammar: Grammar) -> "Projection":
        """Validate shapes and values. RAISES (ValueError): naming the bad array."""
        n = self.n
        for name, shape in (("cfg_binary", (grammar.n_binary,)), ("cfg_unary", (grammar.n_unary,)),
                            ("dep_arc", (n, n, 2)), ("dep_stop", (n, 2, 2)), ("dep_root", (n,))):
            array = getattr(self, name)
            if array.shape != shape:
                raise ValueError(f"projection {name} must have shape {shape}, got {array.shape}")
            if np.isnan(array).any() or np.isneginf(array).any():
                raise ValueError(f"projection {name} contains NaN or -inf")
        return self


def null_projection(grammar: Grammar, n: int) -> Projection:
    """All projected costs zero."""
    return Projection(np.zeros(grammar.n_binary), np.zeros(grammar.n_unary), np.zeros((n, n, 2)),
                      np.zeros((n, 2, 2)), np.zeros(n))


def factored_projection(costs: SentenceCosts) -> Projection:
    """The exact split of a factored model's costs.

    RAISES (ValueError): if the costs do not come from a factored model.
    """
    if not costs.factored:
        raise ValueError("the factored heuristic needs a factored model (its costs split into a PCFG part and "
                         "a dependency part); use the 'cfg' or 'approximate' heuristic for this model")
    if costs.arc_cost.shape[0] != 1:
        raise ValueError("a factored model's arc costs cannot depend on the rule (expected one arc key)")
    return Projection(costs.cfg_binary.copy(), costs.cfg_unary.copy(), costs.arc_cost[0].copy(),
                      costs.stop_cost.copy(), costs.root_cost.copy())


def cfg_projection(costs: SentenceCosts, grammar: Grammar) -> Projection:
    """CFG costs minimised over the dependency side within the sentence; dependency part zero.

    For binary rule r with the head on the left: min over h < a of rule_cost[r, h] + min over adjacency of
    arc_cost[key(r), h, a, adj] + the least closing cost of a; mirrored for the head on the right. For unary
    rules: min over h of unary_cost[u, h], plus root_cost[h] + close(h, 0, n) for the ROOT rules.
    Time O(K n^2 + R n).
    """
    n = costs.n
    close_min = costs.stop_cost[:, LEFT, :].min(axis=1) + costs.stop_cost[:, RIGHT, :].min(axis=1)
    arc = costs.arc_cost.min(axis=3) + close_min[None, None, :]                  # (K, h, a)
    above = np.triu(np.ones((n, n), dtype=bool), k=1)                            # a > h
    best_right = np.where(above[None], arc, np.inf).min(axis=2, initial=np.inf)  # (K, h): best a > h
    best_left = np.where(above.T[None], arc, np.inf).min(axis=2, initial=np.inf)  # best a < h
    keys = costs.rule_key
    head_left = (grammar.binary_side == HEAD_LEFT)[:, None]
    dep = np.where(head_left, best_right[keys], best_left[keys])                 # (R, h)
    binary = (costs.rule_cost + dep).min(axis=1, initial=np.inf)
    unary_by_head = costs.unary_cost.copy()
    is_root = grammar.unary_parent == grammar.root
    heads = np.arange(n)
    sentence_close = (costs.stop_cost[heads, LEFT, (heads == 0).astype(int)]
                      + costs.stop_cost[heads, RIGHT, (heads == n - 1).astype(int)])
    unary_by_head[is_root] += (costs.root_cost + sentence_close)[None, :]
    unary = unary_by_head.min(axis=1)
    return Projection(binary, unary, np.zeros((n, n, 2)), np.zeros((n, 2, 2)), np.zeros(n))


def split_projection(costs: SentenceCosts, grammar: Grammar) -> Projection:
    """The dependency part: least arc cost over arc keys, the model's stop and root costs; the CFG part: the
    least remainder over the sentence (``cfg_projection`` of the costs minus the dependency part).
    Time O(K n^2 + R n)."""
    dep_arc = costs.arc_cost.min(axis=0)
    remainder = replace(costs, arc_cost=costs.arc_cost - dep_arc[None], stop_cost=np.zeros_like(costs.stop_cost),
                        root_cost=np.zeros_like(costs.root_cost))
    cfg = cfg_projection(remainder, grammar)
    return Projection(cfg.cfg_binary, cfg.cfg_unary, dep_arc, costs.stop_cost.copy(), costs.root_cost.copy())
