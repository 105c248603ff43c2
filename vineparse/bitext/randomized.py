"""Randomized pruning: Algorithm 1 of Bouchard-Côté, Petrov & Klein (NIPS 2009).

The expectations E[f] over derivations d are computed as an average over a Markov chain of pruning masks.
Auxiliary variables are the alignment links A_ik = [d emits i with k] of a high-confidence set M' (the
one-to-one links of the HMM aligner trained by agreement, `hmm.AgreementHMM`, or with `aligner="model1"`
the intersected Model 1 Viterbi links). A state is a derivation d and a selection s ⊆ M'; the mask of (s, d)
is CreateMask(s, A_s(d)) (its bispans listed directly by `grammar.bispans_from_links`, or `masks.create_mask`
with a base keep table): links of s that d makes are positive, the others negative, so the pruned chart is
the distribution of derivations conditioned on A_s = A_s(d). One iteration:

    mask   <- CreateMask(s, a)                 a: the current values of the links of s
    counts <- counts + E[f | mask]             the soft-count estimator (pruned inside-outside)
    d      ~ p(d | mask)                       assignment chain: a derivation sampled in the pruned chart
    s      <- (M' \\ s) ∪ R,  R a uniformly random ⌊|s|/2⌋ of s    selection chain
    a      <- A_s(d)                           every selected link set from d

and the estimate after T iterations is counts / T. Each step resamples d from its conditional given some
links, which leaves p(d) invariant; links of R keep their value (d satisfied the old mask), the links that
were excluded take theirs from d. The chain starts from a random s with |s| = round(2 |M'| / 3) whose links
are all positive (M' is high-confidence); if the ITG cannot make all of them together (e.g. a 2-4-1-3
crossing), random links of s are made negative, one at a time, until the mask admits a derivation (these
`repairs` are reported). With M' empty every mask is the full chart: it is computed once and is exact.

Randomness comes from one numpy Generator seeded with `seed`, consumed the same way whatever the number of
iterations, so a run with T samples is the first T iterations of any longer run with the same seed.
"""
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np

from .grammar import Chart, ChartResult, NoDerivationError, PairScores, Statistics, bispans_from_links
from .masks import create_mask


@dataclass
class MaskRecord:
    """One iteration of the chain: the mask's links, its chart's size and its time."""

    positive: int
    negative: int
    kept: int           # bispans kept
    items: int          # chart items
    edges: int          # edges visited by the statistics pass
    seconds: float


@dataclass
class RandomizedResult:
    statistics: Statistics                       # the average over the iterations
    masks: List[MaskRecord]
    selected: int                                # |M'|
    repairs: int                                 # links made negative to start from a feasible mask
    seconds: float
    checkpoints: List[dict] = field(default_factory=list)   # {"samples", "seconds", "statistics"}


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2 ** 63))


def randomized_statistics(scores: PairScores, links: np.ndarray, grammar: str, samples: int, seed: int = 0,
                          base: Optional[np.ndarray] = None,
                          checkpoints: Sequence[int] = ()) -> RandomizedResult:
    """Expected part counts by randomized pruning (see the module docstring).

    scores (PairScores): part scores of the pair.
    links (np.ndarray): int (n, 2), the high-confidence links M' (one-to-one).
    grammar (str): "binary" or "ternary".
    samples (int): iterations T (masks), >= 1.
    seed (int): seeds the chain; equal seeds give equal results.
    base (np.ndarray or None): a keep table every mask is intersected with.
    checkpoints (Sequence[int]): also record the running estimate after these numbers of iterations.
    RETURNS (RandomizedResult): the estimate, one record per mask, and the checkpoints.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    start = time.perf_counter()
    p, q = scores.shape
    rng = np.random.default_rng(seed)
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    m = len(links)
    selected = np.zeros(m, dtype=bool)
    selected[rng.choice(m, int(round(2 * m / 3)), replace=False)] = True
    value = np.ones(m, dtype=bool)
    wanted = set(int(c) for c in checkpoints)
    total = Statistics.zeros(p, q)
    records: List[MaskRecord] = []
    marks: List[dict] = []
    repairs = 0
    cached: Optional[ChartResult] = None
    iteration = 0
    t0 = time.perf_counter()          # an iteration's time includes the repairs before it
    while iteration < samples:
        if m == 0 and cached is not None:
            result = cached
        else:
            positive, negative = links[selected & value], links[selected & ~value]
            if base is None:          # list the consistent bispans directly (no pass over a keep table)
                chart = Chart(scores.forbid(negative), None, grammar, bispans_from_links(p, q, positive))
            else:
                mask = create_mask(p, q, positive, negative, base)
                chart = Chart(scores.forbid(mask.negative), mask.keep, grammar)
            result = chart.run(statistics=True, samples=1, seed=_seed(rng))
            if result.log_z == -np.inf:
                if iteration > 0 or not (selected & value).any():
                    # A mask made from a sampled derivation always admits it; only the base can fail.
                    raise NoDerivationError(f"the mask admits no derivation of the {p} x {q} sentence pair")
                flip = rng.choice(np.flatnonzero(selected & value))
                value[flip] = False
                repairs += 1
                continue
            if m == 0:
                cached = result
        total.add(result.statistics)
        seconds = time.perf_counter() - t0
        records.append(MaskRecord(int((selected & value).sum()), int((selected & ~value).sum()), result.kept,
                                  result.items, result.edges, seconds))
        iteration += 1
        t0 = time.perf_counter()
        if iteration in wanted:
            marks.append({"samples": iteration, "seconds": time.perf_counter() - start,
                          "statistics": total.scaled(1.0 / iteration)})
        # Assignment chain: the sampled derivation's links; selection chain: (M' \ s) ∪ half of s.
        drawn = result.links[0].astype(bool)
        keep_half = rng.choice(np.flatnonzero(selected), int(selected.sum()) // 2, replace=False)
        selected = ~selected
        selected[keep_half] = True
        value = drawn[links[:, 0], links[:, 1]] if m else value
    return RandomizedResult(total.scaled(1.0 / samples), records, m, repairs, time.perf_counter() - start, marks)
