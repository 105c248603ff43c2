"""Bounded pieces of work: what `vine_cascade` parses at once, for docs with or without sentence boundaries.

A *unit* is a preset sentence (a doc with sentence starts or a parse, or a sentence of a doc without them
cut by the model's sentence-start scorer, `component.sentence_starts`) or a whole doc without boundaries
where the model has no such scorer. The
cascade never runs on more than MAX_SEGMENT words at once, and the vine pass that finds the cuts never reads
more than WINDOW words at once, so the work and memory per token are bounded for any unit length:

* a unit of at most MAX_SEGMENT words is one piece, unless it is a doc without boundaries whose vine
  structure has more than one ROOT word: then it is cut into sentences (`sentences.vine_sentences`, where a
  ROOT word starts a sentence only if the arc scorer agrees that the root outscores every head within
  ROOT_WINDOW words by more than the split margin, which `calibration.calibrate_splitting` sets on held-out
  docs);
* a longer unit is read in windows of WINDOW words: each window's vine structure gives its cuts (sentences
  for a doc without boundaries, then `sentences.bound_lengths` at vine-span starts), every piece but the
  window's last is kept and the next window starts at that last piece. Time O(n WINDOW) for the dense
  window scores and O(n b^2) for the vine.
* a preset sentence longer than MAX_SEGMENT words is cut into pieces of at most JOINED_PIECE words: the
  Eisner levels do O(n^2) work per word on an n-word piece however well the levels before prune (their
  complete spans), so shorter pieces keep the work per word of a long sentence near that of an ordinary
  one, for weak pruners too (a pipeline trained on 300 sentences keeps ~100 heads per word after its vine
  on 128-word pieces against ~14 on 20-word sentences).
* the pieces of one preset sentence are joined into one tree (`join_roots`): the piece roots are attached
  by a first-order tree over them (Eisner on their arc scores), in groups of at most MAX_SEGMENT roots and
  recursively over the groups' roots; the pieces are contiguous and projective, so the tree stays
  projective. A doc without boundaries keeps its pieces as sentences.

Units are scored from the batch's `parts.BatchScores`; the vine works on a unit's scores through `vine.py`, from
its max-marginals where the caller has them. A piece is (start, end, scores, vine max-marginals or None): the
vine max-marginals go with a piece that is a whole unit, for the cascade runtime to reuse.
"""
from typing import List, Optional, Tuple

import numpy as np

from .. import kernels
from .parts import BatchScores, SentenceScores
from .sentences import bound_lengths, vine_sentences
from .vine import MaxMarginals, at_most_one_root, best_structure

MAX_SEGMENT = 128       # the most words the cascade parses at once
JOINED_PIECE = 64       # the most words of a piece of a preset sentence longer than MAX_SEGMENT
WINDOW = 4 * MAX_SEGMENT   # the most words a vine pass that looks for cuts reads at once
ROOT_WINDOW = 64        # heads a vine ROOT word is checked against when splitting a doc into sentences

Piece = Tuple[int, int, SentenceScores, Optional[MaxMarginals]]


def sub_scores(sent: SentenceScores, start: int, end: int) -> SentenceScores:
    """The scores of words start..end - 1 (0-based) of `sent` as a sentence of their own (the root kept)."""
    if start == 0 and end == sent.n:
        return sent
    index = np.concatenate([[0], np.arange(start + 1, end + 1)])
    return SentenceScores(sent.dense_arcs()[np.ix_(index, index)], sent.outer[index], sent.tables,
                          sent.rows[index], cache=sent._cache is not None)


def window_cuts(sent: SentenceScores, band: int, sentences: bool, margin: float = 0.0,
                found: Optional[MaxMarginals] = None) -> List[Tuple[int, int]]:
    """Pieces (start, end) covering `sent`'s words, from its best vine structure (of band `band`; `found`: its
    vine max-marginals when known): with `sentences`, first the vine's sentences (ROOT words the arc scorer
    confirms by `margin`; a sentence longer than MAX_SEGMENT keeps every cut of the vine), then pieces of at
    most MAX_SEGMENT words at vine-span starts; without, pieces of at most JOINED_PIECE words (they are joined
    into one tree)."""
    heads, attach = best_structure(sent, band, found)
    if sentences:
        roots = np.flatnonzero(attach == kernels.ATTACH_ROOT)
        rejected = roots[~sent.prefers_root(roots, ROOT_WINDOW, margin)]
        every = vine_sentences(heads, attach)
        confirmed = attach.copy()
        confirmed[rejected] = kernels.ATTACH_OUTER_LEFT      # no sentence of its own: it joins the one before
        spans = []
        for start, end in vine_sentences(heads, confirmed):  # its cuts are a subset of those of `every`
            if end - start <= MAX_SEGMENT:
                spans.append((start, end))
            else:
                spans += [(a, b) for a, b in every if start <= a and b <= end]
        return bound_lengths(spans, heads, attach, MAX_SEGMENT)
    return bound_lengths([(0, sent.n)], heads, attach, JOINED_PIECE)


def unit_pieces(whole: Optional[SentenceScores], rows: np.ndarray, scores: BatchScores, band: Optional[int],
                sentences: bool, margin: float = 0.0, found: Optional[MaxMarginals] = None) -> List[Piece]:
    """The pieces of one unit of n = len(rows) - 1 words (`rows`: its rows of the batch, root row first);
    `whole`: the unit's scores when n <= MAX_SEGMENT (scored with its batch), `found` its vine max-marginals
    when the unit may be cut. band: the vine's (None: no vine to cut with); sentences: the unit has no
    boundaries (its pieces may become sentences); margin: the split margin."""
    n = len(rows) - 1
    if n <= MAX_SEGMENT:
        if band is None or not sentences or at_most_one_root(found):
            return [(0, n, whole, found)]
        return [(a, b, sub_scores(whole, a, b), found if (a, b) == (0, n) else None)
                for a, b in window_cuts(whole, band, True, margin, found)]
    if band is None:                    # no vine to find cuts: pieces of a fixed length
        step = MAX_SEGMENT if sentences else JOINED_PIECE
        bounds = list(range(0, n, step)) + [n]
        spans = list(zip(bounds[:-1], bounds[1:]))
        scored = scores.sentences([np.concatenate([[rows[0]], rows[1 + a:1 + b]]) for a, b in spans])
        return [(a, b, sent, None) for (a, b), sent in zip(spans, scored)]
    pieces = []
    start = 0
    while True:
        end = min(start + WINDOW, n)
        index = np.concatenate([[0], np.arange(start + 1, end + 1)])
        window = scores.sentences([rows[index]])[0]
        cuts = window_cuts(window, band, sentences, margin)
        last = end == n
        for a, b in cuts if last else cuts[:-1]:
            pieces.append((start + a, start + b, sub_scores(window, a, b), None))
        if last:
            return pieces
        start += cuts[-1][0]


def join_roots(roots: np.ndarray, root_row: int, rows: np.ndarray, scores: BatchScores) -> np.ndarray:
    """Heads that join the trees of a unit's pieces into one: `roots` (k,) are the pieces' root words (0-based
    word offsets in the unit, increasing), `rows` the unit's rows (root row first). RETURNS int64 (k,): each
    root's head word offset, -1 for the one root of the unit. Groups of at most MAX_SEGMENT roots are
    parsed by first-order Eisner over their arc scores, then their roots in turn. Time O(k MAX_SEGMENT^2)."""
    heads = np.full(len(roots), -1, dtype=np.int64)
    active = np.arange(len(roots))               # indices into roots still without a head
    while len(active) > 1:
        groups = [active[i:i + MAX_SEGMENT] for i in range(0, len(active), MAX_SEGMENT)]
        group_rows = [np.concatenate([[root_row], rows[1 + roots[g]]]) for g in groups]
        positions = [np.concatenate([[0], 1 + roots[g]]) for g in groups]
        next_active = []
        for g, sent in zip(groups, scores.sentences(group_rows, positions)):
            tree = kernels.eisner(sent.dense_arcs())
            for local, member in enumerate(g, 1):
                if tree[local] == 0:
                    next_active.append(member)
                else:
                    heads[member] = roots[g[tree[local] - 1]]
        active = np.asarray(next_active)
    return heads
