"""Sentence boundaries from vine structures: explicit cases and properties on random vine parses."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse import kernels
from vineparse.pipeline.sentences import bound_lengths, span_roots, vine_sentences

S, R, L, RR = kernels.ATTACH_SHORT, kernels.ATTACH_ROOT, kernels.ATTACH_OUTER_LEFT, kernels.ATTACH_OUTER_RIGHT


def test_two_sentences_with_outer_spans():
    # words 1..7: [1 2] ROOT at 2; [3] OUTER-LEFT; [4] OUTER-RIGHT; [5 6] ROOT at 5; [7] OUTER-LEFT
    heads = np.array([-1, 2, 0, 0, 0, 0, 5, 0])
    attach = np.array([S, S, R, L, RR, R, S, L])
    assert vine_sentences(heads, attach) == [(0, 3), (3, 7)]


def test_no_outer_right_cuts_before_the_next_root():
    heads = np.array([-1, 0, 1, 0, 3])
    attach = np.array([S, R, S, R, S])
    assert vine_sentences(heads, attach) == [(0, 2), (2, 4)]


def test_no_root_is_one_sentence_and_empty_is_none():
    assert vine_sentences(np.array([-1, 0, 0]), np.array([S, RR, L])) == [(0, 2)]
    assert vine_sentences(np.array([-1]), np.array([S])) == []


@given(st.integers(0, 10_000), st.integers(1, 14), st.integers(1, 4))
def test_sentences_partition_the_doc_at_span_starts_with_one_root_each(seed, n, band):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1)) * 2
    outer = rng.normal(size=(n + 1, 2)) * 2
    heads, attach = kernels.vine(scores, outer, band)
    spans = vine_sentences(heads, attach)
    assert spans[0][0] == 0 and spans[-1][1] == n
    assert all(a < b and b == c for (a, b), (c, _) in zip(spans, spans[1:] + [(n, n)]))
    roots = span_roots(heads, attach)[1:]
    vine_words = [m for m in range(1, n + 1) if attach[m] == R]
    for start, end in spans:
        assert start == 0 or roots[start] != roots[start - 1]          # never inside a vine subtree
        if vine_words:
            assert sum(start < m <= end for m in vine_words) == 1


def test_bound_lengths_cuts_long_sentences_at_span_starts():
    # one ROOT span [1 2] then OUTER-LEFT spans [3 4 5] [6] [7 8]: a single sentence of 8 words
    heads = np.array([-1, 2, 0, 0, 3, 4, 0, 0, 7])
    attach = np.array([S, S, R, L, S, S, L, L, S])
    assert vine_sentences(heads, attach) == [(0, 8)]
    assert bound_lengths([(0, 8)], heads, attach, 8) == [(0, 8)]
    assert bound_lengths([(0, 8)], heads, attach, 5) == [(0, 5), (5, 8)]       # cuts before 6 and 7
    assert bound_lengths([(0, 8)], heads, attach, 3) == [(0, 2), (2, 5), (5, 8)]
    assert bound_lengths([(0, 8)], heads, attach, 2) == [(0, 2), (2, 4), (4, 6), (6, 8)]     # 4: inside [3 4 5]
    assert bound_lengths([(0, 8)], heads, attach, 1) == [(i, i + 1) for i in range(8)]   # inside spans too
    with pytest.raises(ValueError, match="limit"):
        bound_lengths([(0, 8)], heads, attach, 0)


@given(st.integers(0, 10_000), st.integers(1, 30), st.integers(1, 4), st.integers(1, 12))
def test_bound_lengths_partitions_into_pieces_of_at_most_limit(seed, n, band, limit):
    rng = np.random.default_rng(seed)
    heads, attach = kernels.vine(rng.normal(size=(n + 1, n + 1)) * 2, rng.normal(size=(n + 1, 2)) * 2, band)
    spans = vine_sentences(heads, attach)
    pieces = bound_lengths(spans, heads, attach, limit)
    assert pieces[0][0] == 0 and pieces[-1][1] == n
    assert all(a < b == c for (a, b), (c, _) in zip(pieces, pieces[1:] + [(n, None)]))
    assert all(b - a <= limit for a, b in pieces)
    assert {a for a, _ in spans} <= {a for a, _ in pieces}                   # every sentence start is kept
    roots = span_roots(heads, attach)[1:]
    for (a, b), (c, _) in zip(pieces, pieces[1:]):
        if roots[c] == roots[c - 1]:            # a cut inside a vine span: only when no span start fits
            assert b - a == limit and all(roots[i] == roots[i - 1] for i in range(a + 1, b + 1))
