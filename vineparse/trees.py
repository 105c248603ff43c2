"""Dependency-tree utilities over head arrays.

Convention (project-wide): a sentence has n words at positions 1..n and an artificial root at position 0.
A tree is a head array ``heads`` of shape (n + 1,), integer, with ``heads[0] == -1``; ``heads[m]`` is the
head of word m, in 0..n (0 = attached to the root). Several words may attach to the root (CoNLL-U allows
it); a well-formed tree has no cycle, so following heads from any word always reaches the root.
"""
from bisect import insort
from typing import List, Optional, Sequence

import numpy as np

__all__ = ["TreeError", "validate_heads", "find_cycle", "root_children", "is_projective", "nonprojective_arc_mask",
           "projectivize", "pseudo_projectivize", "deprojectivize", "is_decorated", "DELIMITER"]

DELIMITER = "||"      # a lifted arc's label: "label||head_label" (spaCy's HEAD decoration scheme)


class TreeError(ValueError):
    """A head array that is not a dependency tree.

    word (Optional[int]): the word the problem is attached to (1..n), or None for whole-array problems.
    reason (str): what is wrong, also the exception message.
    """

    def __init__(self, reason: str, word: Optional[int] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.word = word


def _as_heads(heads) -> np.ndarray:
    array = np.asarray(heads)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise TreeError(f"heads must be a 1-D integer array, got shape {array.shape} and dtype {array.dtype}")
    return array.astype(np.int64, copy=False)


def find_cycle(heads) -> Optional[List[int]]:
    """Find a cycle in a head array whose heads are all in range.

    heads (array-like of int): shape (n + 1,), heads[0] == -1, every other entry in 0..n.
    RETURNS (Optional[List[int]]): the words of one cycle in head order, starting from its smallest word
        (``[3, 5]`` means 3 -> 5 -> 3: the head of 3 is 5 and the head of 5 is 3); None if there is none.
    """
    heads = _as_heads(heads)
    n = heads.size - 1
    # state: 0 = unvisited, 1 = on the current path, 2 = known to reach the root.
    state = [0] * (n + 1)
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = int(heads[node])
        if state[node] == 1:
            cycle = path[path.index(node):]
            first = cycle.index(min(cycle))
            return cycle[first:] + cycle[:first]
        for visited in path:
            state[visited] = 2
    return None


def validate_heads(heads) -> None:
    """Check that a head array is a dependency tree rooted at position 0.

    heads (array-like of int): shape (n + 1,) with n >= 1.
    RAISES (TreeError): a ValueError naming the first problem found, in this order: wrong shape or dtype,
        no words, heads[0] != -1, a head out of range 0..n, a word that is its own head, no word attached
        to the root, a cycle (naming its words). ``error.word`` is the offending word where there is one.
    """
    heads = _as_heads(heads)
    n = heads.size - 1
    if n < 1:
        raise TreeError("a tree needs at least one word, got an empty head array")
    if heads[0] != -1:
        raise TreeError(f"heads[0] must be -1 (the artificial root), got {heads[0]}")
    body = heads[1:]
    bad = np.flatnonzero((body < 0) | (body > n))
    if bad.size:
        word = int(bad[0]) + 1
        raise TreeError(f"head {heads[word]} of word {word} is out of range 0..{n}", word)
    loops = np.flatnonzero(body == np.arange(1, n + 1))
    if loops.size:
        word = int(loops[0]) + 1
        raise TreeError(f"word {word} is its own head (self-loop)", word)
    if not np.any(body == 0):
        raise TreeError("no word is attached to the root (heads contain no 0)", 1)
    cycle = find_cycle(heads)
    if cycle is not None:
        path = " -> ".join(str(word) for word in cycle + cycle[:1])
        raise TreeError(f"cycle through word {cycle[0]}: {path}", cycle[0])


def root_children(heads) -> np.ndarray:
    """The words attached to the artificial root.

    heads (array-like of int): shape (n + 1,).
    RETURNS (np.ndarray): int64, the words m in 1..n with heads[m] == 0, increasing.
    """
    heads = _as_heads(heads)
    return np.flatnonzero(heads[1:] == 0).astype(np.int64) + 1


def is_projective(heads) -> bool:
    """Whether no two arcs cross when drawn above the sentence, root at position 0.

    Arcs from the root count like any other: (0, m) covers positions 0..m. Arcs (h1, m1) and (h2, m2)
    with spans [l1, r1] and [l2, r2] cross iff l1 < l2 < r1 < r2 (or the same with the arcs swapped);
    arcs that share an endpoint never cross. The head array is not validated; call validate_heads first.

    heads (array-like of int): shape (n + 1,), heads[0] == -1.
    RETURNS (bool): True iff the tree is projective.
    """
    heads = _as_heads(heads)
    n = heads.size - 1
    if n < 2:
        return True
    words = np.arange(1, n + 1)
    left = np.minimum(heads[1:], words)
    right = np.maximum(heads[1:], words)
    # crosses[a, b]: arc a starts strictly outside arc b on the left and ends strictly inside it.
    crosses = (left[:, None] < left[None, :]) & (left[None, :] < right[:, None]) & (right[:, None] < right[None, :])
    return not bool(crosses.any())


def nonprojective_arc_mask(heads: Sequence[int]) -> np.ndarray:
    """Mark the non-projective arcs of a dependency tree.

    An arc h -> m is non-projective when some word strictly between h and m is not a descendant of h
    (Nivre & Nilsson 2005, the arcs pseudo-projective parsing lifts; spaCy's `is_nonproj_arc`). With the
    artificial root at position 0 a tree is projective exactly when no arc is non-projective, and root arcs
    are never non-projective. Of two crossing arcs, this definition may count one or both.

    heads (Sequence[int]): Length n + 1, heads[0] == -1, heads[m] in 0..n the head of word m.
    RETURNS (np.ndarray): bool array of length n + 1; entry m is True when the arc into m is
        non-projective (entry 0 is always False).
    """
    heads = np.asarray(heads, dtype=np.int64)
    n = heads.shape[0] - 1
    if n < 0 or heads[0] != -1 or np.any(heads[1:] < 0) or np.any(heads[1:] > n):
        raise ValueError(f"Not a head array (need heads[0] == -1 and heads[1:] in 0..n): {heads.tolist()}")
    parent = heads.copy()
    parent[0] = 0
    nodes = np.arange(n + 1)
    # dominates[a, k]: a is k or an ancestor of k. Walk every word up one step at a time, all words at once.
    dominates = np.zeros((n + 1, n + 1), dtype=bool)
    current = nodes.copy()
    dominates[current, nodes] = True
    for _ in range(n):
        current = parent[current]
        dominates[current, nodes] = True
    if np.any(current != 0):
        raise ValueError(f"Head array has a cycle: {heads.tolist()}")
    # outside[a, j] = number of words k < j that a does not dominate, so that the count strictly between
    # lo and hi is outside[h, hi] - outside[h, lo + 1].
    outside = np.zeros((n + 1, n + 2), dtype=np.int64)
    np.cumsum(~dominates, axis=1, out=outside[:, 1:])
    mods = nodes[1:]
    h = heads[1:]
    lo = np.minimum(h, mods)
    hi = np.maximum(h, mods)
    mask = np.zeros((n + 1,), dtype=bool)
    mask[1:] = (outside[h, hi] - outside[h, lo + 1]) > 0
    return mask


def projectivize(heads) -> np.ndarray:
    """The projective tree obtained by lifting non-projective arcs (Nivre & Nilsson 2005), as spaCy does.

    Each arc that crosses another is re-attached to its head's head until no arcs cross; projective trees
    come back unchanged. Uses spaCy's implementation (`spacy.pipeline._parser_internals.nonproj`).

    heads (array-like of int): a tree, shape (n + 1,), heads[0] == -1.
    RETURNS (np.ndarray): int64 heads of a projective tree over the same words.
    """
    return pseudo_projectivize(heads, None)[0]


def pseudo_projectivize(heads, labels) -> tuple:
    """Pseudo-projective lifting (Nivre & Nilsson 2005, HEAD scheme): `projectivize`, and each lifted word's
    label decorated with the label of its original head, "label||head_label", so that `deprojectivize` can
    lower it again. Uses spaCy's implementation.

    heads (array-like of int): a tree, shape (n + 1,), heads[0] == -1.
    labels (Sequence[str] or None): the n labels (None: heads only).
    RETURNS (Tuple[np.ndarray, Optional[np.ndarray]]): int64 projective heads (n + 1,) and the decorated labels
        (object (n,); None without labels).
    """
    heads = _as_heads(heads).astype(np.int64)
    labels = None if labels is None else np.asarray(labels, dtype=object)
    if is_projective(heads):
        return heads.copy(), None if labels is None else labels.copy()
    from spacy.pipeline._parser_internals import nonproj

    n = heads.size - 1
    # spaCy's convention: 0-based positions, a root word is its own head.
    spacy_heads = [int(h) - 1 if h > 0 else m for m, h in enumerate(heads[1:])]
    lifted, decorated = nonproj.projectivize(spacy_heads, ["dep"] * n if labels is None else list(labels))
    out = np.empty(n + 1, dtype=np.int64)
    out[0] = -1
    out[1:] = [0 if h == m else h + 1 for m, h in enumerate(lifted)]
    return out, None if labels is None else np.asarray(decorated, dtype=object)


def is_decorated(label: str) -> bool:
    """Whether a label marks a lifted arc ("label||head_label")."""
    return DELIMITER in label


def deprojectivize(heads, labels) -> tuple:
    """Lower the lifted arcs of a pseudo-projective tree (the HEAD scheme of spaCy's `nonproj.deprojectivize`):
    each word whose label is decorated, "label||head_label", moves under the first word labelled head_label
    found below its head, breadth-first, children left to right, the word's own subtree skipped, and keeps
    "label"; where there is none it stays. Words are lowered left to right, each search reading the tree and
    labels as lowered so far, so the result is always a tree (spaCy's Doc version reads the children of the
    input and can close a cycle when lowered words depend on each other). Time O(n) plus, per decorated word,
    the size of its head's subtree (each search reads the children lists, kept as words are lowered).

    heads (array-like of int): shape (n + 1,), heads[0] == -1; labels (Sequence[str]): n labels.
    RETURNS (Tuple[np.ndarray, np.ndarray]): int64 heads (n + 1,) and the undecorated labels (object (n,)).
    """
    lowered = _as_heads(heads).astype(np.int64).copy()
    labels = np.asarray(labels, dtype=object).copy()
    n = lowered.size - 1
    if len(labels) != n:
        raise ValueError(f"{n} words but {len(labels)} labels")
    children = [[] for _ in range(n + 1)]           # each word's children, left to right
    for word in range(1, n + 1):
        children[lowered[word]].append(word)
    for m in range(1, n + 1):
        if is_decorated(labels[m - 1]):
            label, head_label = labels[m - 1].split(DELIMITER, 1)
            head = int(lowered[m])
            new = _find_new_head(children, labels, m, head, head_label)
            if new != head:
                children[head].remove(m)
                insort(children[new], m)
                lowered[m] = new
            labels[m - 1] = label
    return lowered, labels


def _find_new_head(children: List[List[int]], labels: np.ndarray, m: int, head: int, head_label: str) -> int:
    """The first word labelled `head_label` below m's head `head` (breadth-first, children left to right, m
    and its subtree skipped), or `head` when there is none."""
    queue = [head]
    while queue:
        following = []
        for node in queue:
            for child in children[node]:
                if child == m:
                    continue
                if labels[child - 1] == head_label:
                    return child
                following.append(child)
        queue = following
    return head
