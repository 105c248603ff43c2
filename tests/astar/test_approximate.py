"""The approximate-factoring LP: constraints hold, exactly factorable costs are recovered, and the learned
projection behaves as documented in search."""
import numpy as np
import pytest

from vineparse.astar import AStarParser
from vineparse.astar.approximate import (BINARY, ROOT_CONFIG, UNARY, ApproximateProjection, Configurations,
                                         constraint_report, solve_projection_lp)
from vineparse.astar.model import ModelError


def _random_configs(rng, grammar, m, factorable):
    """m random configurations; with `factorable`, costs are exactly rule part + feature parts (>= 0)."""
    rule_part = rng.random(grammar.n_binary) * 2
    unary_part = rng.random(grammar.n_unary)
    feature_part = {}
    configs = Configurations()
    for x in range(m):
        kind = BINARY if x % 4 else (UNARY if x % 8 else ROOT_CONFIG)
        rule = int(rng.integers(grammar.n_binary if kind == BINARY else grammar.n_unary))
        feats = [("a", f"w{rng.integers(6)}", f"t{rng.integers(3)}")] if kind != UNARY else []
        for f in feats:
            feature_part.setdefault(f, rng.random() * 3)
        exact = (rule_part[rule] if kind == BINARY else unary_part[rule]) + sum(feature_part[f] for f in feats)
        cost = exact if factorable else exact + rng.normal() * 0.5
        configs.add((x,), kind, rule, feats, lambda c=max(cost, 0.0): c, novel=False)
    return configs


@pytest.mark.parametrize("factorable", [True, False])
def test_lp_solution_satisfies_its_constraints(factored_parser, factorable):
    g = factored_parser.grammar
    configs = _random_configs(np.random.default_rng(4), g, 400, factorable)
    rules, unary, weights, (A, b, x), message = solve_projection_lp(configs, g, C=10.0)
    report = constraint_report(A, b, x)
    assert report["max_violation"] <= 1e-7 and report["min_slack"] >= -1e-9 and report["violated_rows"] == 0
    assert (rules >= -1e-12).all() and min(weights.values()) >= -1e-12
    k = A.shape[1] - len(configs)
    projected = A[:, :k] @ x[:k]
    gap = np.asarray(configs.costs) - projected
    slack = x[k:]
    np.testing.assert_allclose(slack, np.clip(-gap, 0, None), atol=1e-7)   # o_x is exactly the overestimate
    if factorable:            # the exact split is feasible with zero gap, so the optimum has none
        assert np.abs(gap).max() < 1e-6


def test_larger_C_overestimates_less(factored_parser):
    g = factored_parser.grammar
    configs = _random_configs(np.random.default_rng(5), g, 400, factorable=False)
    over = []
    for C in (0.1, 10.0, 1000.0):
        _, _, _, (A, b, x), _ = solve_projection_lp(configs, g, C=C)
        k = A.shape[1] - len(configs)
        over.append(np.clip(A[:, :k] @ x[:k] - b, 0, None).sum())
    assert over[0] >= over[1] >= over[2]
    assert over[2] < 1e-6 < over[0]
    with pytest.raises(ValueError, match="must be positive"):
        solve_projection_lp(configs, g, C=0)


def test_trained_projection(nonfactored_parser, short_test_sentences):
    approx = nonfactored_parser.approximation
    report = approx.report
    assert report["configurations"] > report["novel"] > 0
    assert report["violated_rows"] == 0 and report["overestimated_share"] < 0.1
    words, tags = short_test_sentences[0]
    projection = approx.projection(nonfactored_parser.model, words, tags)
    projection.check(nonfactored_parser.grammar)
    assert (projection.dep_arc >= 0).all() and projection.dep_root.shape == (len(words),)
    # Round trip through the saved form.
    again = ApproximateProjection.from_dict(approx.to_dict(), nonfactored_parser.grammar)
    other = again.projection(nonfactored_parser.model, words, tags)
    np.testing.assert_allclose(other.dep_arc, projection.dep_arc)
    with pytest.raises(ModelError, match="version"):
        ApproximateProjection.from_dict({**approx.to_dict(), "version": 0}, nonfactored_parser.grammar)
    with pytest.raises(ModelError, match="not trained"):
        ApproximateProjection(nonfactored_parser.grammar).projection(nonfactored_parser.model, words, tags)


def test_factored_model_cannot_learn_a_projection(ptb_train):
    with pytest.raises(ModelError, match="cannot score configurations"):
        AStarParser().train(ptb_train[:30], model="factored", approximate=True)
