"""Batches: one checked call for many sentences, run in C without the GIL, on several threads.

Each function takes the sentences of a batch in one of two forms:

* a list of per-sentence arrays (scores (n_i + 1, n_i + 1), masks, part vectors,
  outer scores: one per sentence, or None), answered by lists of per-sentence
  results; this form serves every kernel;
* for first order and the vine, a padded array `scores` (B, N, N) with `lengths`
  (B,) words per sentence (sentence i uses the block [:lengths[i] + 1, :lengths[i] + 1];
  None: all N - 1), masks padded alike (B, N, N) and vine outer scores (B, N, 2),
  answered by padded arrays: heads -1, max-marginals -inf and marginals 0
  beyond each sentence (as SuPar and torch-struct take and give them).

Arrays that are already float64 with contiguous rows are read in place. Every
sentence is checked like a single call (shapes, dtypes, NaN, +inf, scores beyond
±1e300, part-vector lengths); an error names the sentence ("sentence 3: ...").
The work runs without the GIL on `n_threads` OpenMP threads (default 1; grammar
objects and their charts are reused across sentences and calls), so a batch costs
one Python call however many sentences it holds. Results equal those of the
single-sentence functions.
"""
from .._kernels import calls as _calls
from .._kernels.parallel import has_openmp
from ._checks import sample_count
from .vine import checked_band

__all__ = ["eisner_batch", "eisner_max_marginals_batch", "eisner_marginals_batch", "eisner_sample_batch",
           "eisner2_batch", "eisner2_max_marginals_batch", "eisner2_marginals_batch",
           "eisner3_batch", "eisner3_max_marginals_batch", "eisner3_marginals_batch",
           "vine_batch", "vine_max_marginals_batch", "vine_marginals_batch", "has_openmp"]

_BEST, _MAX, _MARG, _SAMPLE = (_calls.WHAT[k] for k in ("best", "max_marginals", "marginals", "sample"))


def _first(scores, lengths, mask, single_root, n_threads, engine, what, count=1, seed=0):
    return _calls.eisner_batch("first", scores, lengths, mask, (), bool(single_root), what,
                               _calls.thread_count(n_threads), count, seed, _calls.engine_code(engine))


def eisner_batch(scores, lengths=None, mask=None, single_root=True, n_threads=1, engine="auto"):
    """Best projective trees of a batch (see `kernels.eisner`).

    scores (list of arrays or array (B, N, N)): arc scores per sentence, or padded.
    lengths (array (B,) or None): words per sentence, for padded scores.
    mask (list of bool arrays, bool array (B, N, N) or None): allowed arcs.
    single_root (bool), engine (str): as for `eisner`.
    n_threads (int): OpenMP threads (1: none started).
    RETURNS (list or np.ndarray): heads per sentence, or int64 (B, N) padded with -1.
    """
    return _first(scores, lengths, mask, single_root, n_threads, engine, _BEST)[1]


def eisner_max_marginals_batch(scores, lengths=None, mask=None, single_root=True, n_threads=1, engine="auto"):
    """Best tree scores and arc max-marginals of a batch (see `kernels.eisner_max_marginals`).

    RETURNS (Tuple[np.ndarray, list or np.ndarray]): float64 (B,) best scores, and
        per sentence an (n + 1, n + 1) array, or one (B, N, N) array padded with -inf.
    """
    return _first(scores, lengths, mask, single_root, n_threads, engine, _MAX)


def eisner_marginals_batch(scores, lengths=None, mask=None, single_root=True, n_threads=1, engine="auto"):
    """Log partition functions and arc marginals of a batch (see `kernels.eisner_marginals`).

    RETURNS (Tuple[np.ndarray, list or np.ndarray]): float64 (B,) log Z, and per
        sentence an (n + 1, n + 1) array, or one (B, N, N) array padded with 0.
    """
    return _first(scores, lengths, mask, single_root, n_threads, engine, _MARG)


def eisner_sample_batch(scores, count=1, seed=0, lengths=None, mask=None, single_root=True, n_threads=1,
                        engine="auto"):
    """`count` trees per sentence drawn from p(tree) ∝ exp(score); sentence i is sampled
    with seed `seed + i` (so results do not depend on n_threads).

    RETURNS (list or np.ndarray): int64 (count, n + 1) heads per sentence, or
        (B, count, N) padded with -1.
    """
    return _first(scores, lengths, mask, single_root, n_threads, engine, _SAMPLE, sample_count(count),
                  int(seed) & (2**64 - 1))[1]


def _higher(grammar, scores, parts, mask, single_root, n_threads, what):
    return _calls.eisner_batch(grammar, scores, None, mask, parts, bool(single_root), what,
                               _calls.thread_count(n_threads))


def eisner2_batch(scores, sib, mask=None, single_root=True, n_threads=1):
    """Best trees of a batch under the sibling model (see `kernels.eisner2`).

    scores (list of arrays): arc scores per sentence.
    sib (list of arrays): sibling scores per sentence, dense or compact.
    mask (list of bool arrays or None): allowed arcs per sentence (None entries allowed).
    RETURNS (list): int64 heads per sentence.
    """
    return _higher("second", scores, (sib,), mask, single_root, n_threads, _BEST)[1]


def eisner2_max_marginals_batch(scores, sib, mask=None, single_root=True, n_threads=1):
    """Best scores (B,) and arc max-marginals (a list) under the sibling model."""
    return _higher("second", scores, (sib,), mask, single_root, n_threads, _MAX)


def eisner2_marginals_batch(scores, sib, mask=None, single_root=True, n_threads=1):
    """Log partition functions (B,) and arc marginals (a list) under the sibling model."""
    return _higher("second", scores, (sib,), mask, single_root, n_threads, _MARG)


def eisner3_batch(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True, n_threads=1):
    """Best trees of a batch under the grand-sibling model (see `kernels.eisner3`).

    sib, grand, gsib (lists of arrays or None): part scores per sentence, dense or
        compact (None: all zero for every sentence; None entries: zero for that one).
    RETURNS (list): int64 heads per sentence.
    """
    return _higher("third", scores, (sib, grand, gsib), mask, single_root, n_threads, _BEST)[1]


def eisner3_max_marginals_batch(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True,
                                n_threads=1):
    """Best scores (B,) and arc max-marginals (a list) under the grand-sibling model."""
    return _higher("third", scores, (sib, grand, gsib), mask, single_root, n_threads, _MAX)


def eisner3_marginals_batch(scores, sib=None, grand=None, gsib=None, mask=None, single_root=True,
                            n_threads=1):
    """Log partition functions (B,) and arc marginals (a list) under the grand-sibling model."""
    return _higher("third", scores, (sib, grand, gsib), mask, single_root, n_threads, _MARG)


def _vine(scores, outer, band, mask, outer_mask, lengths, n_threads, what):
    return _calls.vine_batch(scores, outer, checked_band(band, 1 << 30), mask, outer_mask, lengths, what,
                             _calls.thread_count(n_threads))


def vine_batch(scores, outer, band, mask=None, outer_mask=None, lengths=None, n_threads=1):
    """Best vine structures of a batch (see `kernels.vine`).

    scores (list of arrays or array (B, N, N)), outer (list of (n + 1, 2) arrays or
        array (B, N, 2)), band (int), mask / outer_mask (lists, padded bool arrays or
        None), lengths (array (B,) or None, for padded input).
    RETURNS (list or Tuple[np.ndarray, np.ndarray]): (heads, attach) per sentence, or
        padded int64 heads (B, N) (-1 beyond a sentence) and int8 attach (B, N).
    """
    return _vine(scores, outer, band, mask, outer_mask, lengths, n_threads, _BEST)[1]


def vine_max_marginals_batch(scores, outer, band, mask=None, outer_mask=None, lengths=None, n_threads=1):
    """Best scores (B,) and, per sentence or padded, arc and outer-label max-marginals.

    RETURNS (Tuple): (best (B,), list of (arcs, outer)) or (best, (arcs (B, N, N), outer (B, N, 2))).
    """
    return _vine(scores, outer, band, mask, outer_mask, lengths, n_threads, _MAX)


def vine_marginals_batch(scores, outer, band, mask=None, outer_mask=None, lengths=None, n_threads=1):
    """Log partition functions (B,) and, per sentence or padded, arc and outer-label marginals."""
    return _vine(scores, outer, band, mask, outer_mask, lengths, n_threads, _MARG)
