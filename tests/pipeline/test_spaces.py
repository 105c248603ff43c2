"""Whitespace tokens: their attachment, sentence starts off them, and the component on text with line breaks."""
import numpy as np
import pytest
import spacy
from hypothesis import given, strategies as st

from vineparse.pipeline.spaces import SPACE_LABEL, attach_whitespace, space_tokens, word_starts


def test_whitespace_attaches_to_the_word_before_else_after():
    space = np.array([True, False, True, True, False, True])
    heads = np.arange(6)
    assert attach_whitespace(heads, space).tolist() == [1, 1, 1, 1, 4, 4]
    assert attach_whitespace(np.arange(3), np.ones(3, dtype=bool)).tolist() == [0, 0, 0]
    assert attach_whitespace(heads, np.zeros(6, dtype=bool)) is heads


@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(0, 10_000))
def test_whitespace_never_heads_a_word_and_words_keep_their_heads(space, seed):
    space = np.array(space)
    heads = np.random.default_rng(seed).integers(0, len(space), size=len(space))
    out = attach_whitespace(heads, space)
    assert (out[~space] == heads[~space]).all()
    if (~space).any():
        assert not space[out[space]].any()
        for i in np.flatnonzero(space):         # the nearest word before, else after
            before = np.flatnonzero(~space[:i])
            assert out[i] == (before[-1] if len(before) else i + np.flatnonzero(~space[i:])[0])
    starts = np.unique(np.random.default_rng(seed).integers(0, len(space), size=4).tolist() + [0])
    moved = word_starts(starts, space)
    assert moved[0] == 0 and (np.diff(moved) > 0).all() and not space[moved[1:]].any()
    following = [next((j for j in range(s, len(space)) if not space[j]), None) for s in starts]
    assert moved.tolist() == sorted({0} | {j for j in following if j is not None})


def test_starts_move_off_whitespace():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Hi there.\n\nSecond one .\nthird\n\n")
    space = space_tokens(doc)
    assert [t.text for t, s in zip(doc, space) if s] == ["\n\n", "\n", "\n\n"]
    assert word_starts(np.array([0, 3, 7]), space).tolist() == [0, 4, 8]
    assert word_starts(np.array([0, 10]), space).tolist() == [0]              # nothing follows the last one


@pytest.mark.parametrize("text", ["Great service!! Would recommend.\n\nWe called them on Monday.\nthanks again",
                                  "\n\n", "  \n a", "a\n\n\n\nb"])
def test_the_component_never_makes_whitespace_a_head_or_a_sentence_start(trained, text):
    nlp, _ = trained
    doc = nlp(text)
    assert doc.text == text
    for token in doc:
        assert not (token.head.is_space and token.head.i != token.i and not token.is_space)
        if token.is_space and any(not t.is_space for t in token.sent):
            assert token.dep_ == SPACE_LABEL and not token.head.is_space
    assert all(not sent[0].is_space or all(t.is_space for t in sent) or sent.start == 0 for sent in doc.sents)
