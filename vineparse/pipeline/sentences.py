"""Sentence boundaries from a vine structure.

A vine structure over a whole document splits its words into adjacent projective subtrees (spans); the root
of each span attaches to the vine as ROOT, OUTER-LEFT (its head lies further left) or OUTER-RIGHT (further
right). A sentence holds one ROOT span, the OUTER-LEFT spans after it and the OUTER-RIGHT spans before the next
ROOT span: between two ROOT spans the cut goes before the first OUTER-RIGHT span (or before the second ROOT
span when there is none). Spans before the first ROOT span join the first sentence. Time O(n log n) at worst
(pointer jumping to the span roots), O(n) for shallow subtrees. `bound_lengths` cuts spans that are still too
long for the cascade (a model sure of one ROOT per document leaves a single sentence) at span starts.
"""
from typing import List, Tuple

import numpy as np

from .. import kernels


def span_roots(heads: np.ndarray, attach: np.ndarray) -> np.ndarray:
    """The vine word whose subtree contains each word: int64 (n + 1,), entry 0 unused."""
    n = len(heads) - 1
    up = np.where(attach == kernels.ATTACH_SHORT, heads, np.arange(n + 1))
    up[0] = 0
    while True:
        nxt = up[up]
        if np.array_equal(nxt, up):
            return up
        up = nxt


def vine_sentences(heads: np.ndarray, attach: np.ndarray) -> List[Tuple[int, int]]:
    """Sentence spans (start, end) over words 1..n, as 0-based token offsets [start, end), covering the
    document in order, from a vine structure (`kernels.vine` output)."""
    n = len(heads) - 1
    if n == 0:
        return []
    roots = span_roots(heads, attach)[1:]
    starts = np.flatnonzero(np.concatenate([[True], roots[1:] != roots[:-1]]))
    labels = attach[roots[starts]]
    cuts = []
    seen_root = False
    cut_pending = None      # the first OUTER-RIGHT span after the last ROOT span
    for start, label in zip(starts, labels):
        if label == kernels.ATTACH_ROOT:
            if seen_root:
                cuts.append(start if cut_pending is None else cut_pending)
            seen_root, cut_pending = True, None
        elif label == kernels.ATTACH_OUTER_RIGHT and seen_root and cut_pending is None:
            cut_pending = int(start)
    bounds = [0] + [int(c) for c in cuts] + [n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def bound_lengths(spans: List[Tuple[int, int]], heads: np.ndarray, attach: np.ndarray,
                  limit: int) -> List[Tuple[int, int]]:
    """`spans` with each one longer than `limit` words cut into pieces of at most `limit`: each cut at the
    last vine-span start the piece allows (so no short arc is cut), at `limit` words where a single vine
    span is longer. Time O(n)."""
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    if all(end - start <= limit for start, end in spans):
        return spans
    roots = span_roots(heads, attach)[1:]
    span_start = np.concatenate([[True], roots[1:] != roots[:-1]])      # word offset i starts a vine span
    out = []
    for start, end in spans:
        while end - start > limit:
            window = np.flatnonzero(span_start[start + 1:start + limit + 1])
            cut = start + 1 + int(window[-1]) if len(window) else start + limit
            out.append((start, cut))
            start = cut
        out.append((start, end))
    return out
