"""Whitespace tokens: how `vine_cascade` attaches them and where they put sentence boundaries.

spaCy's tokenizer makes a token of any whitespace other than one space after a word: line breaks ("\\n"),
paragraph breaks ("\\n\\n") and runs of spaces. Such a token is no word of the sentence, so:

* it is never the head of a word: a word whose parse gives it a whitespace head takes that token's nearest
  non-whitespace ancestor instead (its grandparent, or further up), so no word is lost from the tree;
* it attaches to the nearest word before it in its sentence, else to the nearest word after it (a sentence
  of whitespace only keeps its first token as root), with the label SPACE_LABEL;
* it never starts a sentence: a sentence start that falls on whitespace moves to the next word;
* it never counts in a score (spaCy's scorer skips whitespace tokens; the CoNLL-U writer drops them).

Training learns the same attachment (`training.gold_sentences`), so the scorers see whitespace tokens where
they are, and a gold tree never makes a whitespace token a head. Contracting whitespace nodes out of a
projective tree and attaching them to an adjacent word keeps it projective. Time O(n) per sentence but for
chains of whitespace heads, which the rule never builds.
"""
from typing import Sequence

import numpy as np
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

SPACE_LABEL = "dep"     # UD's unspecified relation: what a whitespace token's arc is called in a parsed doc


def space_tokens(doc: Doc) -> np.ndarray:
    """bool (len(doc),): which tokens are whitespace."""
    if not len(doc):
        return np.zeros(0, dtype=bool)
    return doc.to_array(IS_SPACE).astype(bool)


def is_paragraph_break(text: str) -> bool:
    """Whether a whitespace token's text breaks a paragraph: two line breaks or more."""
    return text.count("\n") >= 2


def contract_spaces(tree: np.ndarray, space: Sequence[bool]) -> np.ndarray:
    """A sentence's tree with its whitespace tokens attached by the rule above.

    tree: int64 (n + 1,), tree[0] = -1, tree[m] the head of word m (0 = the root); space: bool (n,) per word.
    RETURNS a new int64 (n + 1,) tree in which no word has a whitespace head, exactly one non-whitespace word
    has the root (the first of those that had it, directly or through whitespace; the others attach to it) and
    each whitespace word attaches to the nearest non-whitespace word before it, else after it. A sentence of
    whitespace only: its first token is the root and the others attach to it.
    """
    space = np.concatenate([[False], np.asarray(space, dtype=bool)])
    n = len(tree) - 1
    out = np.array(tree, dtype=np.int64, copy=True)
    if n == 0 or not space.any():
        return out
    words = np.flatnonzero(~space[1:]) + 1
    if not len(words):
        out[1:] = 1
        out[1] = 0
        return out
    for m in words:                 # the nearest non-whitespace ancestor, or the root
        h, steps = int(tree[m]), 0
        while h > 0 and space[h] and steps < n:     # `steps`: a malformed input cannot loop
            h, steps = int(tree[h]), steps + 1
        out[m] = h if h > 0 and not space[h] else 0
    roots = words[out[words] == 0]
    if len(roots) > 1:              # the root's whitespace had several word children: the first keeps it
        out[roots[1:]] = roots[0]
    before = np.maximum.accumulate(np.where(space, 0, np.arange(n + 1)))        # nearest word at or before
    after = np.minimum.accumulate(np.where(space, n + 1, np.arange(n + 1))[::-1])[::-1]
    blanks = np.flatnonzero(space)
    out[blanks] = np.where(before[blanks] > 0, before[blanks], after[blanks])
    return out


def word_starts(starts: np.ndarray, space: np.ndarray) -> np.ndarray:
    """Sentence starts (int64 token offsets, increasing, 0 first) moved off whitespace: a start on a whitespace
    token moves to the next word, and is dropped where no word follows before the next start or the end; 0
    stays a start. space: bool (n,) per token (`space_tokens`)."""
    n = len(space)
    if not space.any() or not len(starts):
        return starts
    positions = np.arange(n + 1)
    following = np.minimum.accumulate(np.where(np.append(space, False), n, positions)[::-1])[::-1]
    moved = following[starts]
    return np.unique(np.concatenate([[0], moved[moved < n]])).astype(np.int64)


def paragraph_starts(doc: Doc, space: np.ndarray) -> np.ndarray:
    """int64: the first word after each paragraph break (`is_paragraph_break`) of the doc."""
    blanks = np.flatnonzero(space)
    breaks = [i for i in blanks if is_paragraph_break(doc[int(i)].text)]
    if not breaks:
        return np.zeros(0, dtype=np.int64)
    starts = word_starts(np.asarray(breaks, dtype=np.int64), space)
    return starts[starts > 0]


def attach_spaces(docs: Sequence[Doc], units, trees: list) -> list:
    """The pieces' trees (one per piece, in the order of `units`: per doc, (unit start, end, preset, pieces)
    with pieces (start, end, ...) relative to the unit) with their whitespace tokens attached by
    `contract_spaces`; the same list where no doc has whitespace tokens."""
    space = [space_tokens(doc) for doc in docs]
    if not any(found.any() for found in space):
        return trees
    out, k = list(trees), 0
    for found, doc_units in zip(space, units):
        for start, _, _, pieces in doc_units:
            for a, b, *_ in pieces:
                if found[start + a:start + b].any():
                    out[k] = contract_spaces(out[k], found[start + a:start + b])
                k += 1
    return out
