"""How alignment links agree with both sides' dependency trees: a precision check without gold alignments.

A link (i, k) joins source word i and target word k; its subtrees are S (word i and its descendants in the
source tree) and T (word k and its descendants in the target tree). Against a set of links R (the other links
of the same alignment), the link's subtrees *correspond* when every link of R has its source word in S
exactly when it has its target word in T: the two subtrees translate each other as far as R can tell. The
link is *checkable* when some link of R touches S or T (otherwise nothing can contradict it). A wrong link
tends to join words whose subtrees cover unrelated material and so fails the check; the share of checkable
links that correspond is a proxy for precision that needs only the two treebanks.
"""
from typing import Dict, Sequence

import numpy as np


def subtree_masks(heads: Sequence[int]) -> np.ndarray:
    """bool (n, n): [w, v] is True when word v (0-based) is in the subtree of word w (itself included).

    heads (Sequence[int]): CoNLL-U style, length n + 1, heads[0] == -1, heads[m] in 0..n for word m (1-based).
    Time O(n * depth).
    """
    heads = np.asarray(heads, dtype=np.int64)
    n = len(heads) - 1
    inside = np.eye(n, dtype=bool)
    for v in range(1, n + 1):
        h, steps = int(heads[v]), 0
        while h > 0:
            inside[h - 1, v - 1] = True
            h, steps = int(heads[h]), steps + 1
            if steps > n:
                raise ValueError("heads contain a cycle")
    return inside


def subtree_agreement(links: np.ndarray, src_heads: Sequence[int], tgt_heads: Sequence[int]) -> Dict[str, int]:
    """Count the links whose subtrees correspond (see the module docstring), each against the others.

    links (np.ndarray): int (n, 2) rows (i, k), 0-based word indices.
    RETURNS (Dict[str, int]): "links", "checkable" and "correspond" (among the checkable).
    """
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    out = {"links": len(links), "checkable": 0, "correspond": 0}
    if len(links) < 2:
        return out
    src_sub, tgt_sub = subtree_masks(src_heads), subtree_masks(tgt_heads)
    for x, (i, k) in enumerate(links):
        others = np.delete(links, x, axis=0)
        in_s = src_sub[i, others[:, 0]]
        in_t = tgt_sub[k, others[:, 1]]
        if (in_s | in_t).any():
            out["checkable"] += 1
            out["correspond"] += int(np.array_equal(in_s, in_t))
    return out
