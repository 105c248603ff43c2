import logging

import pytest

from vineparse.corpus import (
    CorpusError,
    format_sentence,
    read_dependency_file,
    read_ptb_dependencies,
    read_ptb_sample,
)

GOOD = "Pierre\tNNP\t2\nVinken\tNNP\t3\nsleeps\tVBZ\t0\n.\t.\t3\n"


@pytest.fixture(scope="module")
def sample():
    return read_ptb_dependencies("all")


def test_sample_counts_and_split(sample):
    assert len(sample) == 3914
    assert sample.skipped == []
    train, test = read_ptb_dependencies("train"), read_ptb_dependencies("test")
    assert (len(train), len(test)) == (3669, 245)
    assert [s.words for s in train + test] == [s.words for s in sample]
    assert sample.path.name == "dependency"


def test_first_sentence_of_the_sample(sample):
    first = sample[0]
    assert first.words[:4] == ["Pierre", "Vinken", ",", "61"]
    assert first.heads.tolist()[:5] == [-1, 2, 8, 2, 5]
    assert first.xpos.tolist()[:3] == ["NNP", "NNP", ","]


def test_sample_matches_the_constituency_trees(sample):
    """Same sentences, words and tags as the .mrg files once traces are removed."""
    trees = read_ptb_sample("all")
    assert [s.words for s in sample] == [t.leaves() for t in trees]
    assert [s.xpos.tolist() for s in sample] == [[tag for _, tag in t.pos()] for t in trees]


def test_fields(tmp_path):
    path = tmp_path / "a.dp"
    path.write_text(GOOD)
    (sentence,) = read_dependency_file(path)
    assert sentence.words == ["Pierre", "Vinken", "sleeps", "."]
    assert sentence.heads.tolist() == [-1, 2, 3, 0, 3]
    assert sentence.xpos.tolist() == sentence.upos.tolist() == ["NNP", "NNP", "VBZ", "."]
    assert sentence.labels.tolist() == ["_"] * 4
    assert sentence.comments == [] and sentence.sent_id is None
    assert format_sentence(sentence).split("\n")[2] == "3\tsleeps\t_\tVBZ\tVBZ\t_\t0\t_\t_\t_"


@pytest.mark.parametrize(
    "text",
    [
        GOOD + "\n" + GOOD,
        GOOD + "\n\n" + GOOD + "\n\n",
        (GOOD + "\n" + GOOD).replace("\n", "\r\n"),
        GOOD + "\n" + GOOD[:-1],
    ],
)
def test_blank_lines_and_line_endings(tmp_path, text):
    path = tmp_path / "a.dp"
    path.write_bytes(text.encode())
    corpus = read_dependency_file(path)
    assert [s.words for s in corpus] == [["Pierre", "Vinken", "sleeps", "."]] * 2


MALFORMED = [
    # GOOD occupies lines 1-4, the blank line 5.
    (GOOD + "\na\tDT\n", 6, "expected 3 tab-separated columns (word, tag, head), found 2"),
    (GOOD + "\na DT 0\n", 6, "expected 3 tab-separated columns (word, tag, head), found 1"),
    ("a\tDT\t0\n\tNN\t1\n", 2, "empty word"),
    ("a\t\t0\n", 1, "empty tag for word 'a'"),
    ("a\tDT\t0\nb\tNN\tx\n", 2, "invalid head 'x' for word 'b': not an integer"),
    ("a\tDT\t0\nb\tNN\t3\n", 2, "head 3 of word 2 is out of range 0..2"),
    ("a\tDT\t-1\nb\tNN\t0\n", 1, "head -1 of word 1 is out of range 0..2"),
    ("a\tDT\t2\nb\tNN\t1\n", 1, "no word is attached to the root (heads contain no 0)"),
    ("a\tDT\t0\nb\tNN\t3\nc\tNN\t2\n", 2, "cycle through word 2: 2 -> 3 -> 2"),
]


@pytest.mark.parametrize("text,line,reason", MALFORMED)
def test_malformed_input(tmp_path, text, line, reason):
    path = tmp_path / "wsj_9999.dp"
    path.write_text(text)
    with pytest.raises(CorpusError) as info:
        read_dependency_file(path)
    assert str(info.value) == f"{path}:{line}: {reason}"


def test_lenient_mode(tmp_path, caplog):
    path = tmp_path / "wsj_9999.dp"
    path.write_text(GOOD + "\na\tDT\t2\nb\tNN\t1\n\n" + GOOD)
    with caplog.at_level(logging.WARNING, logger="vineparse"):
        with pytest.warns(UserWarning, match=rf"^skipped 1 of 3 sentences in {path} \(first: {path}:6: no word"):
            corpus = read_dependency_file(path, lenient=True)
    assert len(corpus) == 2 and [e.line for e in corpus.skipped] == [6]
    assert any(r.getMessage().startswith("skipped 1 of 3") for r in caplog.records)
