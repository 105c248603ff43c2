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

Screening (`screen`, off by default; not in the paper). The chain visits a cell A_s = a at about its
probability, so a link of M' that the model doubts a little (posterior 1 - eps, eps ~ 1e-3 .. 1e-2) is almost
never sampled negative in tens of iterations, and the estimate stays near E[f | the link made]: a bias of
about eps times the link's effect on the counts, which more samples do not remove until T >> 1/eps. With
`screen` = tau, the first iterations are three pilot charts: M' is cut into random thirds, and each chart is
conditioned on the links of the other two (positive, as the chain's first mask is) except those an earlier
pilot chart found doubtful, and gives the posteriors of its own third. The chain then runs on the links whose
doubt 1 - posterior is at most tau, leaving the others to the charts (marginalised exactly). The estimate is
the chain's average once it has an iteration, the last pilot chart's before (each pilot chart is conditioned
on fewer doubtful links than the one before). Fewer selected links mean larger charts: screening buys a much
lower bias with slower samples (docs/bitext.md).

Randomness comes from one numpy Generator seeded with `seed`, consumed the same way whatever the number of
iterations, so a run with T samples is the first T iterations of any longer run with the same seed.
"""
import time
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence, Tuple

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
    screened: int = 0                            # links of M' dropped by screening (0 if it ended in the pilot)
    screen_seconds: float = 0.0                  # the pilot charts' time


def _pruned_chart(scores: PairScores, grammar: str, positive: np.ndarray, negative: np.ndarray,
                  base: Optional[np.ndarray]) -> Chart:
    """The chart conditioned on positive and negative links (and intersected with `base`)."""
    p, q = scores.shape
    if base is None:          # list the consistent bispans directly (no pass over a keep table)
        return Chart(scores.forbid(negative), None, grammar, bispans_from_links(p, q, positive))
    mask = create_mask(p, q, positive, negative, base)
    return Chart(scores.forbid(mask.negative), mask.keep, grammar)


PILOT_CHARTS = 3     # screening's pilot charts (fewer when M' has fewer links)


def pilot_thirds(order: np.ndarray) -> List[np.ndarray]:
    """`order` (a permutation of M's indices) cut into PILOT_CHARTS parts, the smaller first."""
    small, extra = divmod(len(order), PILOT_CHARTS)
    sizes = [small] * (PILOT_CHARTS - extra) + [small + 1] * extra
    ends = np.cumsum(sizes)
    return [order[end - size:end] for size, end in zip(sizes, ends) if size]


def _pilot_charts(scores: PairScores, links: np.ndarray, grammar: str, rng: np.random.Generator,
                  base: Optional[np.ndarray], screen: Optional[float]
                  ) -> Iterator[Tuple[np.ndarray, ChartResult, np.ndarray]]:
    """The pilot charts of screening, one at a time: (the conditioned links as a bool (m,) mask, the chart's
    result, the doubts so far (float64 (m,), 0 where not yet estimated)).

    M' is split into random thirds (`pilot_thirds`); each chart is conditioned on the links of the other two
    (positive, as the chain's first mask is) except those an earlier chart found doubtful (above `screen`),
    and raises the doubts of the links it leaves free to 1 - their posterior. Links the grammar cannot make
    together are freed at random until it can.
    """
    m = len(links)
    doubt = np.zeros(m)
    seen = np.zeros(m, dtype=bool)
    for third in pilot_thirds(rng.permutation(m)):
        fixed = np.ones(m, dtype=bool)
        fixed[third] = False
        if screen is not None:
            fixed &= ~(seen & (doubt > screen))
        while True:
            result = _pruned_chart(scores, grammar, links[fixed], links[:0], base).run(statistics=True)
            if result.log_z > -np.inf:
                break
            on = np.flatnonzero(fixed)
            if len(on) == 0:
                raise NoDerivationError(f"the mask admits no derivation of the {scores.shape[0]} x "
                                        f"{scores.shape[1]} sentence pair")
            fixed[on[rng.integers(len(on))]] = False
        free = links[~fixed]
        doubt[~fixed] = np.maximum(doubt[~fixed], 1.0 - result.statistics.emit[free[:, 0], free[:, 1]])
        seen |= ~fixed
        yield fixed, result, doubt


def link_doubts(scores: PairScores, links: np.ndarray, grammar: str, rng: np.random.Generator,
                base: Optional[np.ndarray] = None, screen: Optional[float] = None) -> np.ndarray:
    """Estimated 1 - posterior of each link of M' from the three pilot charts of screening: each chart is
    conditioned on two random thirds of M' (positive; with `screen`, without the links an earlier chart found
    doubtful above it) and gives the posteriors of the other third (a link left free twice keeps the larger
    doubt).

    links (np.ndarray): int64 (m, 2). RETURNS (np.ndarray): float64 (m,), in [0, 1] up to rounding.
    Time: three charts about as large as one iteration of the chain.
    """
    doubt = np.zeros(len(links))
    for _, _, doubt in _pilot_charts(scores, links, grammar, rng, base, screen):
        pass
    return doubt


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2 ** 63))


def randomized_statistics(scores: PairScores, links: np.ndarray, grammar: str, samples: int, seed: int = 0,
                          base: Optional[np.ndarray] = None,
                          checkpoints: Sequence[int] = (), screen: Optional[float] = None) -> RandomizedResult:
    """Expected part counts by randomized pruning (see the module docstring).

    scores (PairScores): part scores of the pair.
    links (np.ndarray): int (n, 2), the high-confidence links M' (one-to-one).
    grammar (str): "binary" or "ternary".
    samples (int): iterations T (masks), >= 1.
    seed (int): seeds the chain; equal seeds give equal results.
    base (np.ndarray or None): a keep table every mask is intersected with.
    checkpoints (Sequence[int]): also record the running estimate after these numbers of iterations.
    screen (float or None): screen M' (see the module docstring): the first iterations are the pilot charts
        (three for three or more links), and the chain runs on the links whose doubt is at most this, in
        [0, 1]. The estimate is the chain's average, or the last pilot chart's while the chain has no
        iteration yet. None: the chain on all of M', as in the paper.
    RETURNS (RandomizedResult): the estimate, one record per mask, and the checkpoints.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if screen is not None and not 0.0 <= screen <= 1.0:
        raise ValueError(f"screen must be in [0, 1] or None, got {screen}")
    start = time.perf_counter()
    p, q = scores.shape
    rng = np.random.default_rng(seed)
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    wanted = set(int(c) for c in checkpoints)
    records: List[MaskRecord] = []
    marks: List[dict] = []

    def record(positive: int, negative: int, result: ChartResult, t0: float, estimate) -> None:
        """One iteration's record, and the running estimate (`estimate()`) at a checkpoint."""
        records.append(MaskRecord(positive, negative, result.kept, result.items, result.edges,
                                  time.perf_counter() - t0))
        if len(records) in wanted:
            marks.append({"samples": len(records), "seconds": time.perf_counter() - start,
                          "statistics": estimate()})

    def done(statistics: Statistics, selected: int, repairs: int, screened: int, screen_seconds: float):
        return RandomizedResult(statistics, records, selected, repairs, time.perf_counter() - start, marks,
                                screened, screen_seconds)

    screened = 0
    if screen is not None and len(links):
        t0 = time.perf_counter()
        for fixed, result, doubt in _pilot_charts(scores, links, grammar, rng, base, screen):
            record(int(fixed.sum()), 0, result, t0, result.statistics.copy)
            if len(records) == samples:
                return done(result.statistics, len(links), 0, 0, time.perf_counter() - start)
            t0 = time.perf_counter()
        screened = int(np.sum(doubt > screen))
        links = links[doubt <= screen]
    screen_seconds = time.perf_counter() - start
    m = len(links)
    selected = np.zeros(m, dtype=bool)
    selected[rng.choice(m, int(round(2 * m / 3)), replace=False)] = True
    value = np.ones(m, dtype=bool)
    total: Optional[Statistics] = None
    chain = 0
    repairs = 0
    cached: Optional[ChartResult] = None
    t0 = time.perf_counter()          # an iteration's time includes the repairs before it
    while len(records) < samples:
        if m == 0 and cached is not None:
            result = cached
        else:
            chart = _pruned_chart(scores, grammar, links[selected & value], links[selected & ~value], base)
            result = chart.run(statistics=True, samples=1, seed=_seed(rng))
            if result.log_z == -np.inf:
                if chain > 0 or not (selected & value).any():
                    # A mask made from a sampled derivation always admits it; only the base can fail.
                    raise NoDerivationError(f"the mask admits no derivation of the {p} x {q} sentence pair")
                flip = rng.choice(np.flatnonzero(selected & value))
                value[flip] = False
                repairs += 1
                continue
            if m == 0:
                cached = result
        if total is None:
            total = result.statistics.copy()
        else:
            total.add(result.statistics)
        chain += 1
        record(int((selected & value).sum()), int((selected & ~value).sum()), result, t0,
               lambda: total.scaled(1.0 / chain))
        t0 = time.perf_counter()
        # Assignment chain: the sampled derivation's links; selection chain: (M' \ s) ∪ half of s.
        drawn = result.links[0].astype(bool)
        keep_half = rng.choice(np.flatnonzero(selected), int(selected.sum()) // 2, replace=False)
        selected = ~selected
        selected[keep_half] = True
        value = drawn[links[:, 0], links[:, 1]] if m else value
    return done(total.scaled(1.0 / chain), m, repairs, screened, screen_seconds)
