"""Approximate factoring (Haghighi, DeNero & Klein 2007, *Approximate factoring for A* search*): learn
projection costs for a model that does not factor, so that the summed projected costs are as tight as
possible while (nearly) never exceeding the true costs.

A configuration x is one rule application the search scores: a binary rule with its head and argument
(word class, tag) pairs, a unary rule with its head, or a ROOT rule with the sentence head. Its projected
cost is linear in learned weights theta:

    binary r, head h, argument a:   theta_rule[r]  + theta . f_dep(direction, h, a)
    unary u (not ROOT), head h:     theta_unary[u]
    ROOT rule u, head h:            theta_unary[u] + theta . f_root(h)

The CFG part (one weight per rule: rules are finite and all seen) generalises trivially; the dependency
part is feature-based (the argument's tag, and its word class with its tag), so it gives a cost to any word
pair, seen or not. All weights are constrained to be >= 0: a feature never seen in training then adds
nothing, which can only underestimate; with free signs, unseen combinations were arbitrarily cheap. With c(x) the model's cost and C the price of an
overestimate (the paper uses C = 10), the weights solve the linear program

    minimise   sum_x  [c(x) - theta . phi(x)]_+  +  C [theta . phi(x) - c(x)]_+

over the configurations of the training derivations plus sampled novel ones (arguments recombined within
and across sentences), written with one slack o_x per configuration as
``min sum_x (1 + C) o_x - theta . phi(x)  s.t.  theta . phi(x) - o_x <= c(x), o_x >= 0`` (the constant
sum of c(x) dropped) and solved by HiGHS through ``scipy.optimize.linprog``. ``constraint_report`` checks a
solution against its constraints.
"""
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .grammar import Grammar
from .model import LEFT, RIGHT, LexicalizedModel, ModelError
from .projections import Projection
from .treebank import HEAD_LEFT, Node

__all__ = ["ApproximateProjection", "Configurations", "solve_projection_lp", "constraint_report"]

APPROXIMATION_VERSION = 1
BINARY, UNARY, ROOT_CONFIG = 0, 1, 2


def _dep_features(direction: int, head: Tuple[str, str], arg: Tuple[str, str]) -> List[tuple]:
    """Features of a dependency: the argument's tag, and its (word class, tag). Only argument-side features:
    the dependency chart minimises over heads, so any cost keyed on the head is routed around (measured:
    adding head-tag or head-word features made the heuristic looser and overestimate more often)."""
    return [("at", arg[1]), ("a", arg[0], arg[1])]


def _root_features(head: Tuple[str, str]) -> List[tuple]:
    return [("root", head[1]), ("rootw", head[0], head[1])]


class Configurations:
    """A set of distinct configurations with their true costs and their feature rows.

    kinds (np.ndarray): BINARY, UNARY or ROOT_CONFIG per configuration.
    rules (np.ndarray): the binary or unary rule of each.
    features (List[List[tuple]]): the dependency / root features of each (empty for plain unary).
    costs (np.ndarray): the model's cost of each.
    novel (np.ndarray): bool, True for sampled configurations not seen in training.
    """

    def __init__(self) -> None:
        self._index: Dict[tuple, int] = {}
        self.kinds: List[int] = []
        self.rules: List[int] = []
        self.features: List[List[tuple]] = []
        self.costs: List[float] = []
        self.novel: List[bool] = []

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, key: tuple, kind: int, rule: int, features: List[tuple], cost: Callable[[], float],
            novel: bool) -> None:
        """Add one configuration unless already present (`cost` is only called for new ones)."""
        if key in self._index:
            return
        self._index[key] = len(self.kinds)
        self.kinds.append(kind)
        self.rules.append(rule)
        self.features.append(features)
        self.costs.append(float(cost()))
        self.novel.append(novel)


def collect_configurations(model: LexicalizedModel, derivations: Sequence[Node],
                           sentences: Sequence[Tuple[Sequence[str], Sequence[str]]], *, novel_ratio: float = 1.0,
                           seed: int = 0) -> Configurations:
    """The configurations of the training derivations, plus about ``novel_ratio`` times as many sampled
    novel binary ones: each takes a training rule application and replaces its argument by another word
    on the same side in the same sentence, or by the argument of another application whose argument has
    the same category (so both kinds are configurations a search really scores).

    RETURNS (Configurations): distinct configurations with their costs under `model`.
    """
    g = model.grammar
    if not hasattr(model, "config_cost"):
        raise ModelError(f"the {model.kind} model cannot score configurations; approximate factoring needs one "
                         "that can (the non-factored model)")
    configs = Configurations()
    events = []                                  # (rule, head (w, t), arg (w, t), sentence, head position)
    sentence_classes = []
    for s, (derivation, (words, tags)) in enumerate(zip(derivations, sentences)):
        classes = model.words.classes(words)
        sentence_classes.append(classes)
        binary, unary = g.events(derivation)
        for e in binary:
            head, arg = (classes[e.head], tags[e.head]), (classes[e.arg], tags[e.arg])
            events.append((e.rule, head, arg, s, e.head))
            _add_binary(configs, model, e.rule, head, arg, novel=False)
        for e in unary:
            head = (classes[e.head], tags[e.head])
            _add_unary(configs, model, e.rule, head, novel=False)
    rng = np.random.default_rng(seed)
    by_category: Dict[int, List[int]] = {}
    for k, (rule, _, _, _, _) in enumerate(events):
        by_category.setdefault(int(g.category[g.binary_arg[rule]]), []).append(k)
    target = len(configs) + int(novel_ratio * len(events))
    attempts = 0
    while events and len(configs) < target and attempts < 20 * max(1, target):
        attempts += 1
        rule, head, arg, s, h = events[rng.integers(len(events))]
        if rng.random() < 0.5:                   # another word on the same side of the head, same sentence
            n = len(sentences[s][0])
            lo, hi = (h + 1, n) if g.binary_side[rule] == HEAD_LEFT else (0, h)
            if lo >= hi:
                continue
            b = int(rng.integers(lo, hi))
            arg = (sentence_classes[s][b], sentences[s][1][b])
        else:                                    # the argument of another application of the same category
            pool = by_category[int(g.category[g.binary_arg[rule]])]
            arg = events[pool[rng.integers(len(pool))]][2]
        _add_binary(configs, model, rule, head, arg, novel=True)
    return configs


def _add_binary(configs, model, rule, head, arg, novel) -> None:
    direction = RIGHT if model.grammar.binary_side[rule] == HEAD_LEFT else LEFT
    configs.add((BINARY, rule, head, arg), BINARY, rule, _dep_features(direction, head, arg),
                lambda: model.config_cost("binary", rule, head, arg), novel)


def _add_unary(configs, model, rule, head, novel) -> None:
    g = model.grammar
    if g.unary_parent[rule] == g.root:
        configs.add((ROOT_CONFIG, rule, head), ROOT_CONFIG, rule, _root_features(head),
                    lambda: model.config_cost("unary", rule, head) + model.config_cost("root", rule, None, head),
                    novel)
    else:
        configs.add((UNARY, rule, head), UNARY, rule, [], lambda: model.config_cost("unary", rule, head), novel)


def solve_projection_lp(configs: Configurations, grammar: Grammar, C: float = 10.0):
    """Solve the linear program of the module docstring.

    RETURNS (tuple): (theta_rule (R,), theta_unary (U,), feature weights dict, the LP as
        (A_ub, b_ub, solution vector) for checking, solver message).
    RAISES (RuntimeError): if HiGHS does not report an optimal solution.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, hstack, identity

    if C <= 0:
        raise ValueError(f"the overestimate penalty C must be positive, got {C}")
    R, U = grammar.n_binary, grammar.n_unary
    feature_index: Dict[tuple, int] = {}
    rows, cols = [], []
    for x, (kind, rule, feats) in enumerate(zip(configs.kinds, configs.rules, configs.features)):
        rows.append(x)
        cols.append(rule if kind == BINARY else R + rule)
        for f in feats:
            rows.append(x)
            cols.append(R + U + feature_index.setdefault(f, len(feature_index)))
    m, k = len(configs), R + U + len(feature_index)
    phi = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, k)).tocsr()
    A = hstack([phi, -identity(m, format="csr")], format="csr")
    b = np.asarray(configs.costs)
    objective = np.concatenate([-np.asarray(phi.sum(axis=0)).ravel(), np.full(m, 1.0 + C)])
    bounds = [(0, None)] * (k + m)
    result = linprog(objective, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    if result.status != 0:
        raise RuntimeError(f"the projection LP was not solved: {result.message}")
    theta = result.x[:k]
    weights = {f: float(theta[R + U + i]) for f, i in feature_index.items()}
    return theta[:R].copy(), theta[R:R + U].copy(), weights, (A, b, result.x), result.message


def constraint_report(A, b, solution, tolerance: float = 1e-6) -> Dict[str, float]:
    """How well an LP solution satisfies ``A x <= b`` and its slack bounds.

    RETURNS (Dict[str, float]): the largest constraint violation, the most negative slack, and the count of
        rows violated by more than `tolerance`.
    """
    m = A.shape[0]
    excess = A @ solution - b
    slack = solution[-m:]
    return {"max_violation": float(max(excess.max(initial=0.0), 0.0)),
            "min_slack": float(slack.min(initial=0.0)),
            "violated_rows": int((excess > tolerance).sum())}


class ApproximateProjection:
    """Learned projection costs for one model (see the module docstring).

    C (float): the price of an overestimate relative to an underestimate.
    novel_ratio (float): sampled novel configurations per training rule application.
    seed (int): for the sampling.
    """

    def __init__(self, grammar: Grammar, *, C: float = 10.0, novel_ratio: float = 1.0, seed: int = 0) -> None:
        self.grammar = grammar
        self.C = C
        self.novel_ratio = novel_ratio
        self.seed = seed
        self.rule_costs: Optional[np.ndarray] = None
        self.unary_costs: Optional[np.ndarray] = None
        self.weights: Dict[tuple, float] = {}
        self.report: Dict[str, object] = {}

    def fit(self, model: LexicalizedModel, derivations: Sequence[Node], sentences, progress=None) -> "ApproximateProjection":
        """Collect configurations, solve the LP and keep the weights; ``report`` records sizes, the
        objective's two parts and the solution's constraint check. RETURNS (ApproximateProjection): self."""
        say = progress or (lambda message: None)
        start = time.perf_counter()
        configs = collect_configurations(model, derivations, sentences, novel_ratio=self.novel_ratio, seed=self.seed)
        say(f"approximate projection: {len(configs):,} configurations ({int(np.sum(configs.novel)):,} novel), "
            f"solving the LP with HiGHS ...")
        self.rule_costs, self.unary_costs, self.weights, (A, b, x), message = solve_projection_lp(
            configs, self.grammar, self.C)
        projected = A[:, :A.shape[1] - len(configs)] @ x[:A.shape[1] - len(configs)]
        gap = np.asarray(configs.costs) - projected
        self.report = {
            "configurations": len(configs), "novel": int(np.sum(configs.novel)), "features": len(self.weights),
            "C": self.C, "underestimate_total": float(np.clip(gap, 0, None).sum()),
            "overestimate_total": float(np.clip(-gap, 0, None).sum()),
            "overestimated_share": float(np.mean(gap < -1e-9)), "solver": message,
            "seconds": time.perf_counter() - start, **constraint_report(A, b, x)}
        say(f"approximate projection: solved in {self.report['seconds']:.1f}s; "
            f"{100 * self.report['overestimated_share']:.2f}% of configurations overestimated")
        return self

    def projection(self, model: LexicalizedModel, words: Sequence[str], tags: Sequence[str]) -> Projection:
        """The learned projected costs for one sentence.

        RAISES (ModelError): if the projection was never fitted.
        """
        if self.rule_costs is None:
            raise ModelError("the approximate projection is not trained; train with approximate=True")
        n = len(words)
        classes = model.words.classes(words)
        pairs = list(zip(classes, tags))
        w = self.weights.get
        arc = np.zeros((n, n, 2))
        for h in range(n):
            for a in range(n):
                if a != h:
                    direction = RIGHT if a > h else LEFT
                    arc[h, a, :] = sum(w(f, 0.0) for f in _dep_features(direction, pairs[h], pairs[a]))
        root = np.array([sum(w(f, 0.0) for f in _root_features(pairs[h])) for h in range(n)])
        return Projection(self.rule_costs.copy(), self.unary_costs.copy(), arc, np.zeros((n, 2, 2)), root)

    def to_dict(self) -> dict:
        if self.rule_costs is None:
            raise ModelError("cannot save an untrained approximate projection")
        return {"version": APPROXIMATION_VERSION, "C": self.C, "novel_ratio": self.novel_ratio, "seed": self.seed,
                "rule_costs": self.rule_costs.tolist(), "unary_costs": self.unary_costs.tolist(),
                "weights": [[list(f), v] for f, v in self.weights.items()], "report": self.report}

    @classmethod
    def from_dict(cls, data: dict, grammar: Grammar) -> "ApproximateProjection":
        if data.get("version") != APPROXIMATION_VERSION:
            raise ModelError(f"saved approximate projection has version {data.get('version')!r}, expected "
                             f"{APPROXIMATION_VERSION}; retrain it")
        out = cls(grammar, C=data["C"], novel_ratio=data["novel_ratio"], seed=data["seed"])
        out.rule_costs = np.asarray(data["rule_costs"], dtype=np.float64)
        out.unary_costs = np.asarray(data["unary_costs"], dtype=np.float64)
        if out.rule_costs.shape != (grammar.n_binary,) or out.unary_costs.shape != (grammar.n_unary,):
            raise ModelError("the saved approximate projection does not match the grammar")
        out.weights = {tuple(f): float(v) for f, v in data["weights"]}
        out.report = dict(data.get("report", {}))
        return out
