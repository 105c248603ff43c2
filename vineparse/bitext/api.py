"""The bitext expectation engine's Python API: feature expectations of one pair, of a corpus, and training.

    from vineparse.bitext import BitextModel, expectations, corpus_expectations, fit, pud_pairs

    pairs = pud_pairs(max_product=130)
    model = BitextModel.train([(p.src, p.tgt) for p in pairs])            # Model 1 both ways + HMM aligner
    e = expectations(pairs[0].src, pairs[0].tgt, method="randomized", samples=10, seed=0, model=model)
    e["rule:inverted"], e.link_posteriors, e.diagnostics["seconds"]

Methods: "exact" (inside-outside over every bispan), "tictactoe" (exact on the bispans a Model 1 figure of
merit keeps, `beam` nats below the best), "randomized" (the randomized-pruning chain, `samples` masks).

Deliberate handling of awkward input:
- an empty sentence on either side raises EmptySentenceError (a ValueError: the grammar has no derivation of an
  empty side; every word is a terminal); corpus-level calls skip such pairs, count them and report why;
- a pair beyond the model's `max_exact_product` raises ExactLimitError for method="exact" (the message gives
  the size, the limit and the chart's memory); "randomized" and "tictactoe" still work on it;
- unknown words (not in Model 1's corpus) get lexical probability `floor` and fire `emit:unseen`; the number
  of unknown words is in the diagnostics; tags outside UPOS count as OTHER.
"""
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from .data import PairLike, as_pair
from .exact import check_exact_size, exact_statistics
from .grammar import EmptySentenceError, bispan_count, check_grammar
from .masks import user_keep
from .model import BitextModel
from .parallel import map_pairs, pair_id, pair_seed
from .randomized import randomized_statistics
from .tictactoe import tictactoe_statistics

METHODS = ("exact", "tictactoe", "randomized")


@dataclass
class Expectations:
    """Expected feature counts of one pair and how they were computed.

    counts (np.ndarray): one expectation per feature (`names`).
    link_posteriors (np.ndarray): (p, q) expected emission of each word pair.
    log_partition (float or None): log Z of the chart (of the pruned chart for tic-tac-toe; None for
        randomized pruning, which averages conditional expectations).
    diagnostics (dict): method, grammar, p, q, seconds (whole call), inference_seconds, bispans (of the full
        chart), kept (bispans kept, per mask for randomized pruning: mean), and method-specific entries.
    checkpoints (list): randomized pruning only, the running estimate after the requested sample counts:
        {"samples", "seconds", "counts"}.
    """

    counts: np.ndarray
    names: List[str]
    link_posteriors: np.ndarray
    log_partition: Optional[float]
    diagnostics: Dict[str, Any]
    checkpoints: List[dict] = field(default_factory=list)

    def __getitem__(self, name: str) -> float:
        try:
            return float(self.counts[self.names.index(name)])
        except ValueError:
            raise KeyError(f"no feature {name!r}") from None

    def as_dict(self, nonzero: bool = True) -> Dict[str, float]:
        """{feature name: expectation}; with `nonzero`, only the non-zero ones."""
        return {n: float(v) for n, v in zip(self.names, self.counts) if v != 0 or not nonzero}


def check_pair(src: Sequence[str], tgt: Sequence[str]) -> None:
    for side, words in (("source", src), ("target", tgt)):
        if isinstance(words, str):
            raise ValueError(f"the {side} sentence must be a sequence of tokens, not a string")
        if len(words) == 0:
            raise EmptySentenceError(f"the {side} sentence is empty: the grammar has no derivation of an empty side "
                             "(every word is a terminal), so a pair needs at least one word on each side")


def expectations(src: Sequence[str], tgt: Sequence[str], method: str = "exact", samples: int = 10,
                 seed: int = 0, *, model: Optional[BitextModel] = None,
                 src_tags: Optional[Sequence[str]] = None, tgt_tags: Optional[Sequence[str]] = None,
                 grammar: Optional[str] = None, beam: float = 10.0, mask: Optional[np.ndarray] = None,
                 checkpoints: Sequence[int] = (), screen: Optional[float] = None) -> Expectations:
    """Expected feature counts over the derivations of one sentence pair, p(d) ∝ exp(weights . f(d)).

    src, tgt (Sequence[str]): the tokens (p and q of them, both >= 1).
    method (str): "exact", "tictactoe" or "randomized".
    samples (int): randomized pruning's number of masks (iterations of the chain).
    seed (int): seeds randomized pruning; equal seeds give equal results.
    model (BitextModel or None): tables, weights and settings (None: an untrained model, default weights).
    src_tags, tgt_tags (Sequence[str] or None): UPOS tags for the tag features.
    grammar (str or None): "binary" or "ternary" (None: the model's).
    beam (float): tic-tac-toe's beam in nats (widened if it leaves no derivation).
    mask (np.ndarray or None): bool (p+1, p+1, q+1, q+1), allowed bispans [i, j) x [k, l), for every method.
    checkpoints (Sequence[int]): randomized pruning also reports its estimate after these sample counts.
    screen (float or None): randomized pruning runs its chain only on the links of M' whose doubt (1 - posterior,
        estimated by three pilot charts) is at most this (`randomized.link_doubts`); None: on all of M'.
    RETURNS (Expectations): counts, link posteriors and diagnostics.
    Time: exact O(p^3 q^3) binary, O(p^4 q^4) ternary; the others follow the bispans their masks keep.
    """
    start = time.perf_counter()
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    model = model if model is not None else BitextModel()
    grammar = grammar or model.config.grammar
    check_grammar(grammar)
    check_pair(src, tgt)
    p, q = len(src), len(tgt)
    featurizer = model.featurizer
    feats = featurizer.pair(src, tgt, src_tags, tgt_tags)
    scores = featurizer.scores(feats, model.weights)
    base = user_keep(mask, p, q) if mask is not None else None
    diag: Dict[str, Any] = {"method": method, "grammar": grammar, "p": p, "q": q,
                            "bispans": bispan_count(p, q), "links": len(feats.links),
                            "unknown_words": feats.unknown_words, "unknown_tags": feats.unknown_tags}
    marks: List[dict] = []
    log_z: Optional[float] = None
    infer = time.perf_counter()
    if method == "exact":
        check_exact_size(p, q, grammar, model.config.max_exact_product[grammar])
        result = exact_statistics(scores, grammar, base, what="the mask" if base is not None else "the chart")
        stats, log_z = result.statistics, result.log_z
        diag.update(kept=result.kept, items=result.items, edges=result.edges)
    elif method == "tictactoe":
        tables = model.model1.tables(src, tgt)
        ttt = tictactoe_statistics(scores, tables, model.config.floor, grammar, beam, base)
        stats, log_z = ttt.chart.statistics, ttt.chart.log_z
        diag.update(kept=ttt.chart.kept, items=ttt.chart.items, edges=ttt.chart.edges, beam=ttt.beam,
                    attempts=ttt.attempts, fom_seconds=ttt.fom_seconds)
    else:
        run = randomized_statistics(scores, feats.links, grammar, int(samples), seed, base, checkpoints, screen)
        stats = run.statistics
        diag.update(samples=int(samples), repairs=run.repairs, screened=run.screened,
                    screen_seconds=run.screen_seconds,
                    kept=float(np.mean([r.kept for r in run.masks])),
                    masks=[vars(r) for r in run.masks],
                    sample_seconds=float(np.median([r.seconds for r in run.masks])))
        marks = [{"samples": c["samples"], "seconds": c["seconds"],
                  "counts": featurizer.expected(feats, c["statistics"])} for c in run.checkpoints]
    counts = featurizer.expected(feats, stats)
    diag["inference_seconds"] = time.perf_counter() - infer
    diag["seconds"] = time.perf_counter() - start
    return Expectations(counts, list(featurizer.space.names), stats.emit.copy(), log_z, diag, marks)


@dataclass
class CorpusExpectations:
    """Expectations of every pair of a corpus.

    results (list): one Expectations per pair, None for a skipped pair.
    totals (np.ndarray): counts summed over the pairs that were not skipped.
    skipped (list): (pair id, reason) of every skipped pair.
    seconds (float): wall time.
    """

    results: List[Optional[Expectations]]
    totals: np.ndarray
    names: List[str]
    skipped: List[tuple]
    seconds: float


def _pair_expectations(model: BitextModel, index: int, item: PairLike, options: dict) -> Expectations:
    pair = as_pair(item, index)
    return expectations(pair.src, pair.tgt, model=model, src_tags=pair.src_tags, tgt_tags=pair.tgt_tags,
                        seed=pair_seed(options.pop("seed"), index), **options)


def corpus_expectations(pairs: Sequence[PairLike], method: str = "randomized", samples: int = 10, seed: int = 0,
                        *, model: Optional[BitextModel] = None, grammar: Optional[str] = None, beam: float = 10.0,
                        screen: Optional[float] = None, processes: int = 1,
                        progress: Union[bool, Callable[[str], None]] = True,
                        client=None) -> CorpusExpectations:
    """Expectations of every pair, with progress lines and sentence-level parallelism.

    pairs (Sequence): BitextPair or tuples (src, tgt[, src_tags, tgt_tags[, id]]).
    method, samples, grammar, beam, screen: as for `expectations`; pair i is seeded from (seed, i), so results do
        not depend on `processes`.
    processes (int): worker processes (1: in this process).
    progress (bool or callable): print progress lines (or pass them to this function).
    client (None, str or distributed.Client): compute on this Dask cluster (or scheduler address) instead of
        `processes`; the results are the same, bit for bit (`vineparse.scale.map_ordered`).
    RETURNS (CorpusExpectations): per-pair results; pairs with a documented input error (an empty side:
        EmptySentenceError; too long for exact inference: ExactLimitError) are skipped and listed with the
        reason. Any other exception propagates.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    model = model if model is not None else BitextModel()
    check_grammar(grammar or model.config.grammar)
    options = {"method": method, "samples": samples, "grammar": grammar, "beam": beam, "screen": screen,
               "seed": seed}
    start = time.perf_counter()
    outcomes = map_pairs(_pair_expectations, model, pairs, options, processes, progress,
                         label=f"bitext {method}", client=client)
    results: List[Optional[Expectations]] = []
    skipped = []
    totals = np.zeros(len(model.space))
    for index, (value, error) in enumerate(outcomes):
        results.append(value)
        if error is not None:
            skipped.append((pair_id(pairs[index], index), error))
        else:
            totals += value.counts
    return CorpusExpectations(results, totals, list(model.space.names), skipped, time.perf_counter() - start)
