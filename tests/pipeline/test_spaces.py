"""Whitespace tokens: their attachment, sentence starts off them, and the component on text with line breaks."""
import numpy as np
import pytest
import spacy
from hypothesis import given, strategies as st

from vineparse import kernels
from vineparse.pipeline.spaces import SPACE_LABEL, attach_whitespace, contract_spaces, space_tokens, word_starts
from vineparse.trees import is_projective, validate_heads


def test_a_whitespace_head_passes_its_words_to_its_own_head():
    # words 1..5, word 3 whitespace: 1 <- 2 -> 3 -> 4, 3 -> 5; root 2
    tree = np.array([-1, 2, 0, 2, 3, 3])
    out = contract_spaces(tree, [False, False, True, False, False])
    assert out.tolist() == [-1, 2, 0, 2, 2, 2]


def test_a_whitespace_root_hands_the_root_to_its_first_word():
    tree = np.array([-1, 2, 0, 2])              # "a \n b": the whitespace token is the root
    out = contract_spaces(tree, [False, True, False])
    assert out.tolist() == [-1, 0, 1, 1]


def test_leading_whitespace_attaches_to_the_next_word_and_whitespace_only_is_one_tree():
    assert contract_spaces(np.array([-1, 0, 1]), [True, False]).tolist() == [-1, 2, 0]
    assert contract_spaces(np.array([-1, 2, 0, 2]), [True, True, True]).tolist() == [-1, 0, 1, 1]


@given(st.integers(0, 10_000), st.integers(1, 9))
def test_contracted_trees_keep_every_word_and_stay_projective(seed, n):
    rng = np.random.default_rng(seed)
    tree = kernels.eisner(rng.normal(size=(n + 1, n + 1)) * 3)
    space = rng.random(n) < 0.3
    out = contract_spaces(tree, space)
    validate_heads(out)
    assert is_projective(out)
    assert (out[1:] == 0).sum() == 1
    is_space = np.concatenate([[False], space])
    assert not is_space[out[1:]].any() or space.all()     # no whitespace head (unless nothing else is there)
    for m in np.flatnonzero(~space) + 1:                  # a word's new head is its nearest word ancestor
        h = tree[m]
        while h > 0 and is_space[h]:
            h = tree[h]
        assert out[m] == h or (h == 0 and out[m] == np.flatnonzero(out[1:] == 0)[0] + 1)
    for m in np.flatnonzero(space) + 1:
        if not space.all():
            words = np.flatnonzero(~is_space[:m])
            words = words[words > 0]
            assert out[m] == (words[-1] if len(words) else np.flatnonzero(~is_space[m:])[0] + m)


def test_whitespace_attaches_to_the_word_before_else_after():
    space = np.array([True, False, True, True, False, True])
    heads = np.arange(6)
    assert attach_whitespace(heads, space).tolist() == [1, 1, 1, 1, 4, 4]
    assert attach_whitespace(np.arange(3), np.ones(3, dtype=bool)).tolist() == [0, 0, 0]
    assert attach_whitespace(heads, np.zeros(6, dtype=bool)) is heads


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
