"""Brute force for the dynamic programs: enumerate every projective tree.

Used by the kernel tests as the reference for best trees, max-marginals, log
partitions and marginals. Fine for n <= 7 (21,318 multi-rooted trees). Also the
masks the tests draw: `random_mask`, and `vine_style_mask`, which the kernel
benchmarks (bench/timing.py) time the masked kernels under as well.
"""
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=None)
def _subtrees(i, j):
    """Every projective subtree spanning exactly words i..j: (root, arcs)."""
    out = []
    for r in range(i, j + 1):
        for left_roots, left_arcs in _sequences(i, r - 1):
            for right_roots, right_arcs in _sequences(r + 1, j):
                arcs = left_arcs + right_arcs + tuple((r, c) for c in left_roots + right_roots)
                out.append((r, arcs))
    return tuple(out)


@lru_cache(maxsize=None)
def _sequences(i, j):
    """Every split of words i..j into adjacent projective subtrees: (roots, arcs)."""
    if i > j:
        return (((), ()),)
    out = []
    for k in range(i, j + 1):
        for root, arcs in _subtrees(i, k):
            for roots, more in _sequences(k + 1, j):
                out.append(((root,) + roots, arcs + more))
    return tuple(out)


def projective_trees(n, single_root=True):
    """All projective trees of n words as int64 head arrays (heads[0] = -1)."""
    if single_root:
        shapes = [((root,), arcs) for root, arcs in _subtrees(1, n)] if n else [((), ())]
    else:
        shapes = _sequences(1, n)
    trees = []
    for roots, arcs in shapes:
        heads = np.full(n + 1, -1, dtype=np.int64)
        for r in roots:
            heads[r] = 0
        for h, m in arcs:
            heads[m] = h
        trees.append(heads)
    return trees


def first_order_score(heads, scores):
    return float(sum(scores[heads[m], m] for m in range(1, len(heads))))


def allowed_trees(trees, mask):
    """The trees whose every arc the mask allows."""
    if mask is None:
        return list(trees)
    return [t for t in trees if all(mask[t[m], m] for m in range(1, len(t)))]


def oracle(trees, score_fn):
    """Best score, best trees, arc max-marginals, log Z and arc marginals.

    trees: candidate head arrays (all of one length n + 1); score_fn(heads) -> float.
    """
    N = len(trees[0])
    scores = np.array([score_fn(t) for t in trees])
    best = scores.max()
    maxmarg = np.full((N, N), -np.inf)
    marg = np.zeros((N, N))
    log_z = np.logaddexp.reduce(scores)
    probs = np.exp(scores - log_z)
    for t, s, p in zip(trees, scores, probs):
        for m in range(1, N):
            maxmarg[t[m], m] = max(maxmarg[t[m], m], s)
            marg[t[m], m] += p
    best_trees = [t for t, s in zip(trees, scores) if s == best]
    return best, best_trees, maxmarg, log_z, marg


def random_mask(rng, n, keep=0.6):
    """A random arc mask that still admits at least one projective tree
    (the first-child chain 0 -> 1 -> 2 ... is always allowed)."""
    mask = rng.random((n + 1, n + 1)) < keep
    for m in range(1, n + 1):
        mask[m - 1, m] = True
    return mask


def vine_style_mask(n, rng, heads_per_word=3, near=5, far_share=0.1):
    """A mask like the one a vine pass leaves: every word keeps the root and at
    most `heads_per_word` heads, the left neighbour among them (so a tree always
    exists) and the others within distance `near`, except a `far_share` of them
    drawn from anywhere.

    RETURNS (np.ndarray): bool (n + 1, n + 1), mask[h, m].
    """
    mask = np.zeros((n + 1, n + 1), dtype=bool)
    mask[0, 1:] = True
    for m in range(1, n + 1):
        if m > 1:
            mask[m - 1, m] = True
        for _ in range(heads_per_word - 1):
            if rng.random() < far_share:
                h = int(rng.integers(1, n + 1))
            else:
                h = m + int(rng.integers(-near, near + 1))
            if 1 <= h <= n and h != m:
                mask[h, m] = True
    return mask


def tree_parts(heads):
    """The parts a tree scores: arcs (h, m), siblings (h, s, m), grandparents
    (g, h, m) and grand-siblings (g, h, s, m), the last two only for h > 0."""
    n = len(heads) - 1
    arcs, sibs, grands, gsibs = [], [], [], []
    for m in range(1, n + 1):
        h = int(heads[m])
        inner = [c for c in range(1, n + 1)
                 if heads[c] == h and (c > h) == (m > h) and abs(c - h) < abs(m - h)]
        s = max(inner, key=lambda c: abs(c - h)) if inner else h
        arcs.append((h, m))
        sibs.append((h, s, m))
        if h > 0:
            g = int(heads[h])
            grands.append((g, h, m))
            gsibs.append((g, h, s, m))
    return arcs, sibs, grands, gsibs


def brute_force_cases(seeds):
    """(n, single_root, masked, seed) for every sentence length of 1 to 7 words, with and without the single-root
    constraint and a mask, `seeds` seeds each: the cases a kernel is checked against every tree in."""
    return [(n, single_root, masked, seed) for n in range(1, 8) for single_root in (True, False)
            for masked in (False, True) for seed in range(seeds)]
