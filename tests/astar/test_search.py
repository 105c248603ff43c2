"""A*, the exhaustive chart and the projection charts against brute-force enumeration.

Random tiny grammars and costs: every derivation is enumerated (oracle.py), so the optimum, the inside
cost and the max-marginal of every lexicalized item are known exactly. Then:

- the exhaustive lexicalized CKY returns the optimum, a derivation of that cost, and inside + outside =
  max-marginal for every item;
- A* with every admissible heuristic returns the optimum (and a derivation whose recomputed cost is it);
- every heuristic estimate is at most the true outside cost of its edge (pointwise admissibility), and no
  scored rule application has a projected cost above its true cost;
- the CFG and dependency projection charts' best, inside and max-marginal values match enumeration.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lexoracle import EXAMPLES, dependency_oracle, enumerate_derivations, random_costs, random_grammar
from vineparse._kernels.astar_agenda import SearchStatus, astar_search
from vineparse._kernels.astar_projections import CFGProjection, DependencyProjection, viterbi_inside_outside
from vineparse._kernels.lexcky import LexicalizedChart
from vineparse._kernels.lexgrammar import RuleIndex
from vineparse.astar.heuristics import outside_estimates
from vineparse.astar.model import SentenceCosts, derivation_cost
from vineparse.astar.parser import cost_tables, derivation_from_arrays
from vineparse.astar.projections import (Projection, cfg_projection, factored_projection, null_projection,
                                         split_projection)

TOL = 1e-9


def rule_index(g):
    return RuleIndex(g.n_symbols, g.root, g.binary_parent, g.binary_left, g.binary_right, g.binary_side,
                     g.binary_ptr, g.unary_parent, g.unary_child, g.unary_ptr)


def projections(g, costs):
    out = {"null": null_projection(g, costs.n), "cfg": cfg_projection(costs, g), "split": split_projection(costs, g)}
    if costs.factored:
        out["factored"] = factored_projection(costs)
    return out


def heuristic_value(h, g, item, n):
    """The A* estimate of a lexicalized item (symbol, head, start, end, layer)."""
    X, head, i, j, layer = item
    if layer == 1 and X == g.root:
        return 0.0
    N, S = n + 1, g.n_symbols
    value = 0.0
    if h.cfg_index is not None:
        k = h.cfg_index[1 + ((layer * N + i) * N + j) * S + X]
        value += h.cfg_outside[k] if k >= 0 else np.inf
    if h.dep_outside is not None:
        value += h.dep_outside[1 + (head * N + i) * N + j]
    return value


def search_finds_the_best(rules, costs, h, tag_ids, g, best, name):
    """A* under heuristic `h` finds a derivation of cost `best` (the oracle's) with no consistency violation and
    nothing reopened, and the derivation it returns costs what it says; RETURNS that derivation."""
    result = astar_search(rules, cost_tables(costs), h.projection, tag_ids, h.cfg_index, h.cfg_outside,
                          h.dep_outside)
    assert result["status"] == SearchStatus.FOUND
    assert result["cost"] == pytest.approx(best, abs=TOL), name
    assert result["violations"] == 0 and result["reopened"] == 0
    found = derivation_from_arrays(result["derivation"], g)
    assert derivation_cost(found, costs, g) == pytest.approx(result["cost"], abs=TOL)
    return found


def exhaustive(rules, g, costs, tag_ids):
    chart = CFGProjection(rules, null_projection(g, costs.n).tables(), tag_ids)
    _, _, outside = viterbi_inside_outside(chart)
    keep = np.isfinite(chart.to_dense(outside)).astype(np.uint8)
    lexical = LexicalizedChart(rules, cost_tables(costs), keep)
    return lexical, viterbi_inside_outside(lexical)


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), factored=st.booleans())
def test_against_brute_force(seed, n, factored):
    rng = np.random.default_rng(seed)
    g = random_grammar(rng)
    rules = rule_index(g)
    costs = random_costs(rng, g, n, factored=factored).check(g)
    tag_ids = rng.integers(0, 2, size=n).astype(np.int32)
    oracle = enumerate_derivations(g, costs, tag_ids)
    chart = CFGProjection(rules, null_projection(g, n).tables(), tag_ids)
    assert chart.parsable == (oracle["count"] > 0)
    if not chart.parsable:
        return

    lexical, (best, inside, outside) = exhaustive(rules, g, costs, tag_ids)
    assert best == pytest.approx(oracle["best"], abs=TOL)
    for item, mm in oracle["maxmarg"].items():
        x = lexical.item(*item[:1], item[1], item[2], item[3], item[4])
        assert x > 0, item
        assert inside[x] == pytest.approx(oracle["inside"][item], abs=TOL)
        assert inside[x] + outside[x] == pytest.approx(mm, abs=TOL)
    derivation = derivation_from_arrays(lexical.derivation(inside), g)
    assert derivation_cost(derivation, costs, g) == pytest.approx(best, abs=TOL)

    for name, projection in projections(g, costs).items():
        h = outside_estimates(name, projection, rules, tag_ids)
        assert h.projection_cost <= oracle["best"] + TOL
        for item, mm in oracle["maxmarg"].items():
            assert heuristic_value(h, g, item, n) <= mm - oracle["inside"][item] + TOL, (name, item)
        search_finds_the_best(rules, costs, h, tag_ids, g, oracle["best"], name)


def test_brute_force_sees_many_derivations():
    """The oracle is not vacuous: some grammar/sentence pairs have hundreds of derivations."""
    rng = np.random.default_rng(3)
    counts = []
    for _ in range(10):
        g = random_grammar(rng)
        costs = random_costs(rng, g, 4).check(g)
        counts.append(enumerate_derivations(g, costs, np.array([0, 1, 0, 1], dtype=np.int32))["count"])
    assert max(counts) > 100


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4))
def test_cfg_projection_chart_against_brute_force(seed, n):
    """CFG projection chart = the lexicalized brute force with head-free CFG costs and no dependency costs,
    minimised over heads."""
    rng = np.random.default_rng(seed)
    g = random_grammar(rng)
    c_b, c_u = rng.random(g.n_binary) * 3, rng.random(g.n_unary) * 3
    costs = SentenceCosts(np.repeat(c_b[:, None], n, 1), np.repeat(c_u[:, None], n, 1), np.zeros((1, n, n, 2)),
                          np.zeros((n, 2, 2)), np.zeros(n), np.zeros(g.n_binary, dtype=np.int32)).check(g)
    tag_ids = rng.integers(0, 2, size=n).astype(np.int32)
    oracle = enumerate_derivations(g, costs, tag_ids)
    projection = Projection(c_b, c_u, np.zeros((n, n, 2)), np.zeros((n, 2, 2)), np.zeros(n))
    chart = CFGProjection(rule_index(g), projection.tables(), tag_ids)
    if oracle["count"] == 0:
        assert not chart.parsable
        return
    best, inside, outside = viterbi_inside_outside(chart)
    assert best == pytest.approx(oracle["best"], abs=TOL)
    dense_in, dense_out = chart.to_dense(inside), chart.to_dense(outside)
    for (X, h, i, j, layer), mm in oracle["maxmarg"].items():
        cid = chart.dense_id(X, i, j, layer)
        cfg_inside = min(v for (Y, _, a, b, l), v in oracle["inside"].items() if (Y, a, b, l) == (X, i, j, layer))
        cfg_mm = min(v for (Y, _, a, b, l), v in oracle["maxmarg"].items() if (Y, a, b, l) == (X, i, j, layer))
        assert dense_in[cid] == pytest.approx(cfg_inside, abs=TOL)
        assert dense_in[cid] + dense_out[cid] == pytest.approx(cfg_mm, abs=TOL)


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 5))
def test_dependency_projection_chart_against_brute_force(seed, n):
    rng = np.random.default_rng(seed)
    arc, stop, root = rng.random((n, n, 2)) * 3, rng.random((n, 2, 2)) * 3, rng.random(n) * 3
    best_bf, inside_bf, maxmarg_bf = dependency_oracle(arc, stop, root)
    projection = Projection(np.zeros(0), np.zeros(0), arc, stop, root)
    chart = DependencyProjection(projection.tables())
    best, inside, outside = viterbi_inside_outside(chart)
    assert best == pytest.approx(best_bf, abs=TOL)
    N = n + 1
    for h in range(n):
        for i in range(h + 1):
            for j in range(h + 1, n + 1):
                x = 1 + (h * N + i) * N + j
                assert inside[x] == pytest.approx(inside_bf.get((h, i, j), np.inf), abs=TOL)
                mm = maxmarg_bf.get((h, i, j), np.inf)
                if np.isfinite(mm):
                    assert inside[x] + outside[x] == pytest.approx(mm, abs=TOL)
                else:
                    assert outside[x] == np.inf


def test_search_limits_stop_with_a_status():
    rng = np.random.default_rng(5)
    g = random_grammar(rng, density=0.8)
    rules = rule_index(g)
    n = 4
    costs = random_costs(rng, g, n).check(g)
    tag_ids = np.zeros(n, dtype=np.int32)
    h = outside_estimates("null", null_projection(g, n), rules, tag_ids)
    result = astar_search(rules, cost_tables(costs), h.projection, tag_ids, max_pops=3)
    assert result["status"] == SearchStatus.POP_LIMIT and result["popped"] == 3
    result = astar_search(rules, cost_tables(costs), h.projection, tag_ids, max_edges=2)
    assert result["status"] == SearchStatus.EDGE_LIMIT


def test_unreachable_goal_exhausts_the_agenda():
    rng = np.random.default_rng(1)
    g = random_grammar(rng, density=0.0)       # no binary rules: only one-word sentences parse
    rules = rule_index(g)
    costs = random_costs(rng, g, 2).check(g)
    tag_ids = np.zeros(2, dtype=np.int32)
    assert not CFGProjection(rules, null_projection(g, 2).tables(), tag_ids).parsable
    h = outside_estimates("null", null_projection(g, 2), rules, tag_ids)
    result = astar_search(rules, cost_tables(costs), h.projection, tag_ids)
    assert result["status"] == SearchStatus.EXHAUSTED and result["cost"] == np.inf


def test_bad_kernel_arguments():
    rng = np.random.default_rng(2)
    g = random_grammar(rng)
    rules = rule_index(g)
    costs = random_costs(rng, g, 3).check(g)
    proj = null_projection(g, 3).tables()
    with pytest.raises(ValueError, match="empty sentence"):
        astar_search(rules, cost_tables(costs), proj, np.zeros(0, dtype=np.int32))
    with pytest.raises(ValueError, match="costs are for 3 words"):
        astar_search(rules, cost_tables(costs), proj, np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match="cfg_index must have"):
        astar_search(rules, cost_tables(costs), proj, np.zeros(3, dtype=np.int32), np.zeros(5, dtype=np.int32),
                     np.zeros(1))
    with pytest.raises(ValueError, match="both cfg_index and cfg_outside"):
        astar_search(rules, cost_tables(costs), proj, np.zeros(3, dtype=np.int32), np.zeros(5, dtype=np.int32))
