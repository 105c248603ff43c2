"""A* heuristics: outside-cost estimates for lexicalized edges, from the Viterbi outside costs of the CFG
and dependency projections (Klein & Manning 2003; Haghighi, DeNero & Klein 2007).

For an edge `X[h][i, j]` in layer l the estimate is

    H(`X[h][i, j]`) = outside_CFG(`X[i, j, l]`) + outside_DEP(h, i, j)

with each outside cost computed by the shared hypergraph engine (``_kernels/astar_projections.pyx``) under the
projected costs of ``projections.py``:

======================  ===========================================  =====================================
name                    projected costs                              guarantee
======================  ===========================================  =====================================
``null``                none (H = 0): uniform-cost search            exact
``cfg``                 CFG costs minimised over the dependencies    admissible and consistent, any model
``split``               least arc cost over arc keys for the          admissible and consistent, any model
                        dependencies, least remainder per rule       (= ``factored`` for a factored model)
``factored``            the factored model's own PCFG / dependency    admissible and consistent (exact
                        split                                        factoring)
``approximate``         learned by ``approximate.py``                approximately admissible
======================  ===========================================  =====================================

An infinite estimate means the edge's projection is in no complete parse of its projection, so the edge
is in no complete parse either; the search never creates it.
"""
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._kernels.astar_projections import CFGProjection, DependencyProjection, viterbi_inside_outside
from .._kernels.lexgrammar import CostTables, RuleIndex
from .projections import Projection

__all__ = ["HEURISTICS", "Heuristic", "NoParseError", "outside_estimates"]

HEURISTICS = ("null", "cfg", "split", "factored", "approximate")


class NoParseError(ValueError):
    """The grammar has no parse of the sentence (its CFG projection has none)."""


@dataclass
class Heuristic:
    """What the search needs from a heuristic for one sentence.

    name (str): one of HEURISTICS.
    projection (CostTables): projected costs, for counting pointwise-admissibility violations.
    cfg_index (Optional[np.ndarray]): int32, per dense CFG id (``lexgrammar.cfg_item``) the index of its
        outside cost in ``cfg_outside``, -1 for items without a derivation (None: no CFG part).
    cfg_outside (Optional[np.ndarray]): outside costs of the CFG projection's items.
    dep_outside (Optional[np.ndarray]): outside costs per dependency item id (None: no dependency part).
    projection_cost (float): the best projected cost of a whole parse, a lower bound on the model's
        optimum when the projection is admissible (0 for null).
    seconds (float): time spent building it.
    """

    name: str
    projection: CostTables
    cfg_index: Optional[np.ndarray]
    cfg_outside: Optional[np.ndarray]
    dep_outside: Optional[np.ndarray]
    projection_cost: float
    seconds: float


def outside_estimates(name: str, projection: Projection, rules: RuleIndex, tags: np.ndarray) -> Heuristic:
    """Run the projection charts for one sentence and collect their outside costs.

    name (str): the heuristic's name (``null`` skips the charts).
    projection (Projection): projected costs (``projections.py``), checked by the caller.
    rules (RuleIndex): the grammar's kernel index.
    tags (np.ndarray): int32 (n,), the tag symbol of each word.
    RETURNS (Heuristic): the estimates.
    RAISES (NoParseError): if the CFG projection has no parse: no lexicalized parse exists either.
    """
    start = time.perf_counter()
    tables = projection.tables()
    if name == "null":
        return Heuristic(name, tables, None, None, None, 0.0, time.perf_counter() - start)
    chart = CFGProjection(rules, tables, tags)
    if not chart.parsable:
        raise NoParseError("the grammar has no parse of this sentence (no derivation of ROOT over its tags)")
    best, _, outside = viterbi_inside_outside(chart)
    if outside is None:
        raise NoParseError("the grammar has no parse of this sentence (every derivation costs +inf)")
    cfg_index = chart.compact_ids()
    dep_outside = None
    if projection.has_dependency_part():
        dep_best, _, dep_outside = viterbi_inside_outside(DependencyProjection(tables))
        best += dep_best
    return Heuristic(name, tables, cfg_index, outside, dep_outside, float(best), time.perf_counter() - start)
