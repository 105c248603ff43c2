"""Whitespace tokens: how `vine_cascade` keeps them out of the parse and where they put sentence boundaries.

spaCy's tokenizer makes a token of any whitespace other than one space after a word: line breaks ("\\n"),
paragraph breaks ("\\n\\n") and runs of spaces. Such a token is no word of any sentence, so:

* the parser never sees it: the units and pieces the cascade parses are made of words only (the encoder still
  reads every token, so the line breaks inform the words around them and the sentence-start scorer);
* it attaches to the nearest word before it, else to the nearest word after it (`attach_whitespace`), with the
  label SPACE_LABEL, so it is never the head of a word and stays with the sentence before it;
* it never starts a sentence: a sentence start that falls on whitespace moves to the next word (`word_starts`);
* it never counts in a score (spaCy's scorer skips whitespace tokens; the CoNLL-U writer drops them).

Training learns from the same words: a gold sentence's tree is over its words (`training.gold_sentences`).
Time O(n) per doc.
"""
import numpy as np
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

# A whitespace token's arc label, in parsed docs and in gold docs (`vineparse.text.gold_docs`): punct, in every UD
# label set, which spaCy's scorer leaves out as it does whitespace (and, in gold docs, unlike "no annotation":
# spaCy 3.8's `Scorer.score_deps` keeps the indices of missing annotations from one doc to the next, so
# unannotated whitespace in some docs would drop real words of later docs from the predictions it scores; EWT
# dev: UAS 48.6 against 65.8, same parses).
SPACE_LABEL = "punct"


def space_tokens(doc: Doc) -> np.ndarray:
    """bool (len(doc),): which tokens are whitespace."""
    if not len(doc):
        return np.zeros(0, dtype=bool)
    return doc.to_array(IS_SPACE).astype(bool)


def word_starts(starts: np.ndarray, space: np.ndarray) -> np.ndarray:
    """Sentence starts (int64 token offsets, increasing, 0 first) moved off whitespace: a start on a whitespace
    token moves to the next word, and is dropped where no word follows before the next start or the end; 0
    stays a start. space: bool (n,) per token (`space_tokens`)."""
    n = len(space)
    if not len(starts) or (starts[-1] < n and not space[starts].any()):
        return starts
    positions = np.arange(n + 1)
    following = np.minimum.accumulate(np.where(np.append(space, False), n, positions)[::-1])[::-1]
    moved = following[starts]
    return np.unique(np.concatenate([[0], moved[moved < n]])).astype(np.int64)


def attach_whitespace(heads: np.ndarray, space: np.ndarray) -> np.ndarray:
    """A doc's heads (int64 (n,), absolute, a root pointing at itself) with each whitespace token attached to the
    nearest word before it, else to the nearest word after it; a doc of whitespace only keeps its first token
    as root and attaches the others to it. The parser never sees whitespace tokens (they are no words of its
    units), so this is their only attachment. space: bool (n,) (`space_tokens`)."""
    spaced = np.flatnonzero(space)
    if not len(spaced):
        return heads
    words = np.flatnonzero(~space)
    out = heads.copy()
    if not len(words):
        out[spaced] = 0
        return out
    before = np.searchsorted(words, spaced)         # how many words come before each whitespace token
    out[spaced] = words[np.where(before > 0, before - 1, 0)]
    return out
