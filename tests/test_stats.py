"""Tests for vineparse.stats on hand-made sentences with hand-computed expectations."""
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy
import pytest
import srsly
from hypothesis import given, settings
from hypothesis import strategies as st

from vineparse.stats import (
    arc_length_by_tag,
    collect_arcs,
    format_report,
    format_table,
    has_tags,
    projectivity_stats,
    sentence_length_stats,
    treebank_stats,
)
from vineparse.trees import is_projective, nonprojective_arc_mask


def make_sentence(heads, upos=None, xpos=None):
    """A Sentence-like object from the heads of words 1..n (heads[0] = -1 is prepended)."""
    n = len(heads)
    return SimpleNamespace(
        heads=numpy.asarray([-1] + list(heads), dtype=numpy.int64),
        upos=numpy.asarray(upos if upos is not None else ["X"] * n, dtype=object),
        xpos=numpy.asarray(xpos if xpos is not None else ["XX"] * n, dtype=object),
    )


def chain(n):
    """A sentence of n words: word 1 attached to the root, word i to word i - 1."""
    return make_sentence([0] + list(range(1, n)))


@pytest.fixture
def sentences():
    """Three sentences covering a projective tree, a non-projective one and a one-word sentence.

    "The dog barks loudly": 1 -> 2, 2 -> 3, 3 root, 4 -> 3; arc lengths 1, 1, (root), 1.
    A non-projective tree: heads 3, 4, 0, 3. Arcs 3 -> 1 and 4 -> 2 cross; only 4 -> 2 is non-projective,
    because word 3 between 4 and 2 is not below 4 (word 2 between 3 and 1 is below 3). Lengths 2, 2, -, 1.
    "Wow": a single root arc.
    """
    return [
        make_sentence([2, 3, 0, 3], ["DET", "NOUN", "VERB", "ADV"], ["DT", "NN", "VBZ", "RB"]),
        make_sentence([3, 4, 0, 3], ["NOUN", "ADJ", "VERB", "NOUN"], ["NN", "JJ", "VBZ", "NN"]),
        make_sentence([0], ["INTJ"], ["UH"]),
    ]


def test_sentence_length_stats(sentences):
    stats = sentence_length_stats(sentences)
    assert stats["sentences"] == 3
    assert stats["words"] == 9
    assert stats["mean"] == pytest.approx(3.0)
    assert stats["median"] == 4.0
    assert stats["p90"] == pytest.approx(4.0)
    assert stats["max"] == 4
    first = stats["histogram"][0]
    assert first == {"bucket": "1-10", "low": 1, "high": 10, "count": 3, "share": 1.0}
    assert sum(b["count"] for b in stats["histogram"]) == 3


def test_sentence_length_histogram_buckets():
    stats = sentence_length_stats([chain(n) for n in (1, 10, 11, 25, 70, 71, 200)])
    buckets = [b["bucket"] for b in stats["histogram"]]
    assert buckets == ["1-10", "11-20", "21-30", "31-40", "41-50", "51-60", "61-70", "71+"]
    assert [b["count"] for b in stats["histogram"]] == [2, 1, 1, 0, 0, 0, 1, 2]
    assert stats["histogram"][-1]["high"] is None
    assert stats["median"] == 25.0
    assert stats["max"] == 200
    # Linear interpolation between the two longest sentences (71 and 200) at rank 0.99 * 6 = 5.94.
    assert stats["p99"] == pytest.approx(71 + 0.94 * 129)


def test_sentence_length_stats_rejects_empty():
    with pytest.raises(ValueError, match="empty treebank"):
        sentence_length_stats([])


@pytest.mark.parametrize(
    "heads,expected",
    [
        ([0], [False]),
        ([2, 3, 0, 3], [False, False, False, False]),
        ([3, 4, 0, 3], [False, True, False, False]),
        # Word 2's arc from the root spans word 1, which hangs below word 3: root arcs are never
        # non-projective, but 3 -> 1 is (word 2 lies between and is not below 3).
        ([3, 0, 2], [True, False, False]),
        # Two root children; 1 -> 3 spans word 2, a root child.
        ([0, 0, 1], [False, False, True]),
    ],
)
def test_nonprojective_arc_mask(heads, expected):
    mask = nonprojective_arc_mask([-1] + heads)
    assert mask.tolist() == [False] + expected
    assert bool(mask.any()) == (not is_projective([-1] + heads))


@pytest.mark.parametrize("heads", [[0, 3, 2], [1, 5], [0, -2], [0, 3], []])
def test_nonprojective_arc_mask_rejects_non_trees(heads):
    with pytest.raises(ValueError):
        nonprojective_arc_mask([-1] + heads if heads else heads)


def _nonprojective_oracle(heads):
    """Arc h -> m is non-projective iff a word strictly between them is not a descendant of h."""

    def below(node, ancestor):
        while node > 0 and node != ancestor:
            node = heads[node]
        return node == ancestor

    mask = [False]
    for m in range(1, len(heads)):
        h = heads[m]
        mask.append(any(not below(k, h) for k in range(min(h, m) + 1, max(h, m))))
    return mask


@st.composite
def trees(draw, max_words=9):
    """Uniform-ish random trees: attach words in a random order, each to the root or an attached word."""
    n = draw(st.integers(1, max_words))
    order = draw(st.permutations(list(range(1, n + 1))))
    heads = [-1] + [0] * n
    for i, word in enumerate(order):
        heads[word] = draw(st.sampled_from([0] + list(order[:i])))
    return heads


@settings(max_examples=300, deadline=None)
@given(trees())
def test_nonprojective_arc_mask_matches_oracle_and_is_projective(heads):
    mask = nonprojective_arc_mask(heads)
    assert mask.tolist() == _nonprojective_oracle(heads)
    assert bool(mask.any()) == (not is_projective(heads))


def test_projectivity_stats(sentences):
    stats = projectivity_stats(sentences)
    assert stats == {
        "sentences": 3,
        "nonprojective_sentences": 1,
        "nonprojective_sentence_share": pytest.approx(1 / 3),
        "arcs": 9,
        "nonprojective_arcs": 1,
        "nonprojective_arc_share": pytest.approx(1 / 9),
    }


def test_arc_length_by_tag(sentences):
    result = arc_length_by_tag(sentences, tag="upos")
    rows = {row["tag"]: row for row in result["rows"]}
    # Ties in count are ordered by tag name.
    assert [row["tag"] for row in result["rows"]] == ["NOUN", "VERB", "ADJ", "ADV", "DET", "INTJ"]
    # NOUN: lengths 1 (dog -> barks), 2 and 1 in the second sentence; no root arcs.
    noun = rows["NOUN"]
    assert (noun["arcs"], noun["root_arcs"], noun["root_share"]) == (3, 0, 0.0)
    assert noun["mean_length"] == pytest.approx(4 / 3)
    assert noun["le1"] == pytest.approx(2 / 3)
    assert noun["le3"] == noun["le5"] == noun["le10"] == 1.0
    # VERB: only root arcs, so no length figures.
    verb = rows["VERB"]
    assert (verb["arcs"], verb["root_arcs"], verb["root_share"]) == (2, 2, 1.0)
    assert verb["mean_length"] is None and verb["le1"] is None
    assert rows["ADJ"]["le1"] == 0.0 and rows["ADJ"]["le3"] == 1.0
    assert rows["INTJ"]["root_share"] == 1.0
    overall = result["overall"]
    assert overall["tag"] == "(all)"
    assert (overall["arcs"], overall["root_arcs"]) == (9, 3)
    assert overall["root_share"] == pytest.approx(1 / 3)
    assert overall["mean_length"] == pytest.approx(8 / 6)
    assert overall["le1"] == pytest.approx(4 / 6)
    assert overall["le3"] == 1.0
    assert sum(row["arcs"] for row in result["rows"]) == overall["arcs"]


def test_arc_length_thresholds():
    # Word 1 is the root; words 2..13 all attach to it, so the lengths are 1..12.
    sentence = make_sentence([0] + [1] * 12)
    overall = arc_length_by_tag([sentence], thresholds=(1, 3, 5, 10))["overall"]
    assert overall["mean_length"] == pytest.approx(6.5)
    assert [overall[f"le{t}"] for t in (1, 3, 5, 10)] == pytest.approx([1 / 12, 3 / 12, 5 / 12, 10 / 12])
    assert arc_length_by_tag([sentence], thresholds=(2,))["overall"]["le2"] == pytest.approx(2 / 12)


def test_arc_length_by_xpos(sentences):
    result = arc_length_by_tag(sentences, tag="xpos")
    assert result["tag"] == "xpos"
    assert [row["tag"] for row in result["rows"]][:2] == ["NN", "VBZ"]


def test_missing_tags_become_underscore():
    sentence = make_sentence([0, 1], upos=[None, "_"])
    assert collect_arcs([sentence]).tags.tolist() == ["_", "_"]
    assert not has_tags([sentence], "upos")
    assert has_tags([sentence], "xpos")


def test_unknown_tag_attribute(sentences):
    with pytest.raises(ValueError, match="Unknown tag attribute 'lemma'"):
        arc_length_by_tag(sentences, tag="lemma")


def test_tags_must_match_words():
    sentence = make_sentence([0, 1], upos=["NOUN"])
    with pytest.raises(ValueError, match="one upos tag per word"):
        arc_length_by_tag([sentence])


def test_treebank_stats_is_json_serialisable(sentences):
    stats = treebank_stats(sentences)
    assert set(stats) == {"lengths", "projectivity", "arc_length"}

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or type(value) in (str, int, float, bool)

    assert plain(stats)  # no numpy scalars, no NaN-producing types
    assert srsly.json_loads(srsly.json_dumps(stats))["lengths"] == stats["lengths"]


def test_format_table():
    table = format_table(["tag", "arcs"], [["NOUN", "1,234"], ["X", "5"]])
    assert table.splitlines() == ["  tag    arcs", "  ----  -----", "  NOUN  1,234", "  X         5"]
    with pytest.raises(ValueError):
        format_table(["a", "b"], [["only one"]])


def test_format_report(sentences):
    text = format_report(treebank_stats(sentences))
    assert "3 sentences, 9 words" in text
    assert "non-projective arcs" in text
    assert "33.33%" in text  # one of three sentences is non-projective
    overall = [line for line in text.splitlines() if line.strip().startswith("(all)")][0]
    # (all): 9 arcs, mean 1.33, <=1 66.7, <=3 100.0, ..., root 33.3
    assert overall.split() == ["(all)", "9", "1.33", "66.7", "100.0", "100.0", "100.0", "33.3"]
    verb = [line for line in text.splitlines() if line.strip().startswith("VERB")][0]
    assert verb.split() == ["VERB", "2", "-", "-", "-", "-", "-", "100.0"]


def test_importing_vineparse_does_not_import_matplotlib():
    package_parent = str(Path(__import__("vineparse").__file__).resolve().parents[1])
    code = "import sys, vineparse, vineparse.stats, vineparse.cli; print('matplotlib' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=package_parent, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_benchmark_and_plot_helpers_are_not_in_the_library():
    """Issue 34: the timing helpers, the plot and the benchmark table live under bench/, not in vineparse."""
    import vineparse.stats

    assert importlib.util.find_spec("vineparse.bench") is None
    for name in ("plot_stats", "format_bench_table", "empirical_exponent"):
        assert not hasattr(vineparse.stats, name)
