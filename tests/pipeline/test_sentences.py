"""Sentence boundaries from vine structures: explicit cases and properties on random vine parses."""
import numpy as np
from hypothesis import given, strategies as st

from vineparse import kernels
from vineparse.pipeline.sentences import span_roots, vine_sentences

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
