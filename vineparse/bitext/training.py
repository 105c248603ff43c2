"""EM-style training of the grammar's weights with the expectation engine.

The model is a log-linear distribution over the derivations d of a pair x, p(d | x) ∝ exp(w . f(d)), and
what is observed of d is a set of links L (gold links if given, else the high-confidence links M'
of the model's aligner).
The derivation is hidden, so the log-likelihood of the observations,

    L(w) = 1/N sum_x [ log Z_L(x) - log Z(x) ] - l2/2 |w|^2,      Z_L: the chart under CreateMask(L positive),

is maximised EM-style: each iteration's E-step computes, with the derivation hidden, the expected features
clamped to the observations (exact inside-outside on the masked chart, which is small) and free (with the
chosen method: exact, tic-tac-toe or randomized pruning); their difference is the gradient, and the M-step
moves the weights along it (a generalised EM step). With exact expectations the objective is known and a
step that lowers it is undone and retried at half the rate, so the objective never decreases. Observed
links the ITG cannot make together (a 2-4-1-3 crossing) are dropped one at a time, seeded, and counted.
"""
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Union

import numpy as np

from .api import METHODS, check_pair, expectations
from .data import PairLike, as_pair
from .exact import exact_statistics
from .grammar import NoDerivationError
from .masks import check_links, create_mask
from .model import BitextModel
from .parallel import map_pairs, pair_seed


@dataclass
class FitResult:
    """The trained model and one record per iteration: objective (exact only), gradient norm, rate, time."""

    model: BitextModel
    history: List[dict] = field(default_factory=list)


def _clamped(model: BitextModel, pair, links: np.ndarray, grammar: str, seed: int):
    """(expected features, log Z) under CreateMask(links positive), dropping links until a derivation exists."""
    featurizer = model.featurizer
    feats = featurizer.pair(pair.src, pair.tgt, pair.src_tags, pair.tgt_tags)
    scores = featurizer.scores(feats, model.weights)
    p, q = scores.shape
    rng = np.random.default_rng(seed)
    links = np.array(links, dtype=np.int64).reshape(-1, 2)
    dropped = 0
    while True:
        mask = create_mask(p, q, positive=links)
        try:
            result = exact_statistics(scores, grammar, mask.keep, what="the observed links")
            return featurizer.expected(feats, result.statistics), result.log_z, dropped
        except NoDerivationError:
            if not len(links):
                raise
            links = np.delete(links, rng.integers(len(links)), axis=0)
            dropped += 1


def _pair_gradient(model: BitextModel, index: int, item: PairLike, options: dict):
    pair = as_pair(item, index)
    check_pair(pair.src, pair.tgt)
    grammar = options["grammar"] or model.config.grammar
    observed = options["links"][index] if options["links"] is not None else None
    if observed is None:
        observed = model.links(pair.src, pair.tgt)
    observed = check_links(observed, len(pair.src), len(pair.tgt), f"observed links of pair {pair.id}")
    seed = pair_seed(options["seed"], index)
    clamped, log_zl, dropped = _clamped(model, pair, observed, grammar, seed)
    free = expectations(pair.src, pair.tgt, options["method"], options["samples"], seed, model=model,
                        src_tags=pair.src_tags, tgt_tags=pair.tgt_tags, grammar=grammar, beam=options["beam"],
                        screen=options["screen"])
    objective = log_zl - free.log_partition if options["method"] == "exact" else None
    return clamped - free.counts, objective, dropped


def fit(pairs: Sequence[PairLike], model: Optional[BitextModel] = None, iterations: int = 10,
        method: str = "exact", samples: int = 10, seed: int = 0, *, learning_rate: float = 0.1,
        l2: float = 0.01, links: Optional[Sequence] = None, grammar: Optional[str] = None, beam: float = 10.0,
        screen: Optional[float] = None, processes: int = 1, progress: Union[bool, Callable[[str], None]] = True,
        client=None) -> FitResult:
    """Train the weights EM-style (see the module docstring).

    pairs (Sequence): BitextPair or tuples (src, tgt[, src_tags, tgt_tags[, id]]).
    model (BitextModel or None): the starting model (None: Model 1 and the HMM aligner trained on `pairs`,
        default weights).
    iterations (int): E-steps.
    method (str): how the free expectations are computed ("exact", "tictactoe", "randomized").
    samples, seed, beam, grammar, screen: as for `expectations`.
    learning_rate (float): initial step along the gradient; l2 (float): weight of the L2 penalty.
    links (Sequence or None): observed links per pair (rows (i, k)); None: each pair's M'.
    processes (int), progress, client: as for `corpus_expectations` (with a client, each iteration's pairs
        are mapped over the Dask cluster and their gradients reduced here, in pair order).
    RETURNS (FitResult): the trained model (tables shared with the input) and the history; with exact
        expectations its weights are the best point evaluated, otherwise those after the last step.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if iterations < 0 or learning_rate <= 0 or l2 < 0:
        raise ValueError(f"need iterations >= 0, learning_rate > 0 and l2 >= 0, got {iterations}, "
                         f"{learning_rate}, {l2}")
    if links is not None and len(links) != len(pairs):
        raise ValueError(f"links has {len(links)} entries for {len(pairs)} pairs")
    if model is None:
        model = BitextModel.train([(p.src, p.tgt) for p in (as_pair(x, i) for i, x in enumerate(pairs))])
    report = progress if callable(progress) else (print if progress else None)
    weights = model.weights.copy()
    options = {"method": method, "samples": samples, "seed": seed, "grammar": grammar, "beam": beam,
               "screen": screen, "links": None if links is None else list(links)}
    history: List[dict] = []
    accepted = None        # (weights, objective, gradient) of the last accepted point
    rate = learning_rate
    for iteration in range(1, iterations + 1):
        start = time.perf_counter()
        current = model.with_weights(weights)
        outcomes = map_pairs(_pair_gradient, current, pairs, options, processes, False, client=client)
        done = [v for v, err in outcomes if err is None]
        if not done:
            raise ValueError(f"no pair could be used: {outcomes[0][1] if outcomes else 'no pairs'}")
        gradient = np.mean([g for g, _, _ in done], axis=0) - l2 * weights
        objective = None
        if method == "exact":
            objective = float(np.mean([o for _, o, _ in done]) - 0.5 * l2 * weights @ weights)
        record = {"iteration": iteration, "objective": objective, "gradient_norm": float(np.linalg.norm(gradient)),
                  "learning_rate": rate, "skipped": len(outcomes) - len(done),
                  "dropped_links": int(sum(d for _, _, d in done)), "seconds": time.perf_counter() - start}
        if objective is not None and accepted is not None and objective < accepted[1]:
            # The step overshot: undo it and take half of it from the last accepted point.
            rate /= 2
            weights = accepted[0] + rate * accepted[2]
            record["rejected"] = True
        else:
            accepted = (weights.copy(), objective, gradient)
            weights = weights + rate * gradient
            record["rejected"] = False
        history.append(record)
        if report:
            shown = f"objective {objective:.4f}, " if objective is not None else ""
            report(f"fit: iteration {iteration}/{iterations}, {shown}|gradient| {record['gradient_norm']:.3f}, "
                   f"rate {record['learning_rate']:.3g}{', step undone' if record['rejected'] else ''}, "
                   f"{record['seconds']:.1f}s")
    # Exact: the best evaluated point; otherwise the last step.
    final = accepted[0] if method == "exact" and accepted is not None else weights
    return FitResult(model.with_weights(final), history)
