"""The vine that cuts a doc without sentence boundaries: its max-marginals, its best structure, its ROOT words.

The cuts come from the best vine structure (`sentences.vine_sentences`); a unit whose best structures have at
most one ROOT word stays one sentence. Both are read off the vine's unmasked max-marginals (best, arc_mm
(n + 1, n + 1), outer_mm (n + 1, 2)), which prediction computes once for a batch's units
(`max_marginals_batch`) and then hands on, to the cutting and to the runtime (which takes them instead of
running that vine pass again). Sentences are `parts.SentenceScores` without a cost.
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .. import kernels
from ..cascade.structures import Vine
from .parts import NEURAL_SCORER, SentenceScores

MaxMarginals = Tuple[float, np.ndarray, np.ndarray]
READ_OFF_LIMIT = 256    # longer sentences are decoded rather than read off their max-marginals


def max_marginals_batch(sentences: Sequence[SentenceScores], band: int) -> List[MaxMarginals]:
    """The unmasked vine max-marginals of many sentences in one kernel call (their dense scores as they are:
    the vine reads only their short and ROOT arcs)."""
    if not sentences:
        return []
    best, marginals = kernels.vine_max_marginals_batch([sent.dense_arcs() for sent in sentences],
                                                       [sent.outer for sent in sentences], band)
    return [(float(value), arc_mm, outer_mm) for value, (arc_mm, outer_mm) in zip(best, marginals)]


def at_most_one_root(found: Optional[MaxMarginals], rtol: float = 1e-9) -> bool:
    """True if no best vine structure has two ROOT words: at most one word's ROOT max-marginal reaches the
    best score (within rtol x max(1, |best|)); a ROOT word of a best structure has its ROOT max-marginal equal
    to the best score. Then the vine makes the sentence one sentence. False (not known) for None."""
    if found is None:
        return False
    best, arc_mm, _ = found
    return int(np.count_nonzero(arc_mm[0, 1:] >= best - rtol * max(1.0, abs(best)))) <= 1


def best_structure(sent: SentenceScores, band: int, found: Optional[MaxMarginals] = None):
    """The best vine structure (heads, attach) of `sent`, as `kernels.vine` returns it. For sentences of at most
    READ_OFF_LIMIT words it is read off the max-marginals (`found`, or computed) when no word has a tie
    between its two best attachments (the best structure is then unique, each word's best attachment its part
    of it); otherwise, and for longer sentences, it is decoded."""
    vine = Vine(band)
    if sent.n <= READ_OFF_LIMIT:
        found = vine.max_marginals(NEURAL_SCORER, sent) if found is None else found
        structure = structure_from_max_marginals(*found)
        if structure is not None:
            return structure
    return vine.decode(NEURAL_SCORER, sent)


def structure_from_max_marginals(best: float, arc_mm: np.ndarray, outer_mm: np.ndarray, rtol: float = 1e-9):
    """The best vine structure (heads, attach) from vine max-marginals, or None when some word's two best
    attachments tie (within rtol x max(1, |best|)) or its best one does not reach `best`.

    Each word m has one attachment in a vine structure: a short or ROOT arc (arc_mm[:, m]) or an outer
    label (outer_mm[m]). If no word ties, the best structure is unique and consists of each word's
    highest-max-marginal attachment. heads: int64 (n + 1,), heads[0] = -1, 0 for vine words; attach: int8
    (n + 1,), attach[0] = ATTACH_SHORT (as `kernels.vine`). Time O(n^2) (the dense max-marginal arrays).
    """
    n = arc_mm.shape[0] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    attach = np.zeros(n + 1, dtype=np.int8)
    if n == 0:
        return heads, attach
    options = np.vstack([arc_mm[:, 1:], outer_mm[1:].T])       # (n + 3, n): heads 0..n, left, right
    words = np.arange(n)
    top = options.argmax(axis=0)
    top_value = options[top, words]
    options[top, words] = -np.inf
    runner_up = options.max(axis=0)
    tol = rtol * max(1.0, abs(best))
    if not (np.all(np.abs(top_value - best) <= tol) and np.all(top_value - runner_up > tol)):
        return None
    heads[1:] = np.where(top <= n, top, 0)
    attach[1:] = np.select([top == 0, top <= n, top == n + 1],
                           [kernels.ATTACH_ROOT, kernels.ATTACH_SHORT, kernels.ATTACH_OUTER_LEFT],
                           kernels.ATTACH_OUTER_RIGHT)
    return heads, attach
