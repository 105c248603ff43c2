import io
import logging
import pickle

import numpy as np
import pytest

from vineparse.corpus import (
    Corpus,
    CorpusError,
    Sentence,
    corpus_path,
    format_sentence,
    iter_conllu,
    parse_conllu,
    read_conllu,
    write_conllu,
)

EWT = "ud-english-ewt"


def real(*parts):
    return corpus_path(*parts)


@pytest.fixture(scope="session")
def ewt_train():
    """EWT train, read once for every test that needs it."""
    return read_conllu(real(EWT, "en_ewt-ud-train.conllu"))


@pytest.fixture(scope="module")
def ewt_dev_path():
    return real(EWT, "en_ewt-ud-dev.conllu")


@pytest.fixture(scope="module")
def ewt_dev(ewt_dev_path):
    return read_conllu(ewt_dev_path)


def row(word_id, form, head, label="dep", misc="_"):
    return f"{word_id}\t{form}\t{form.lower()}\tX\tXX\t_\t{head}\t{label}\t_\t{misc}"


GOOD = "\n".join(
    [
        "# sent_id = s1",
        "# text = I saw her.",
        row(1, "I", 2, "nsubj"),
        row(2, "saw", 0, "root"),
        row(3, "her", 2, "obj", "SpaceAfter=No"),
        row(4, ".", 2, "punct"),
    ]
) + "\n\n"


# --- real treebanks ---------------------------------------------------------------------------------------


def test_ewt_train_sentence_count(ewt_train):
    assert len(ewt_train) == 12544
    assert ewt_train.skipped == []
    assert all(s.heads[0] == -1 and s.heads.dtype == np.int64 for s in ewt_train)


@pytest.mark.parametrize(
    "parts,count",
    [
        ((EWT, "en_ewt-ud-dev.conllu"), 2001),
        ((EWT, "en_ewt-ud-test.conllu"), 2077),
        (("ud-pud", "en_pud-ud-test.conllu"), 1000),
        (("ud-pud", "zh_pud-ud-test.conllu"), 1000),
    ],
)
def test_sentence_counts(parts, count):
    corpus = read_conllu(real(*parts))
    assert len(corpus) == count
    assert corpus.path == real(*parts)


def test_ewt_multiword_tokens_and_empty_nodes_are_not_words(ewt_dev, ewt_dev_path):
    """n is the number of integer-ID lines; range and decimal IDs are present and are skipped."""
    blocks = ewt_dev_path.read_text(encoding="utf-8").split("\n\n")[:-1]
    ids = [[line.split("\t", 1)[0] for line in block.split("\n") if not line.startswith("#")] for block in blocks]
    assert sum("-" in i for block in ids for i in block) == 359
    assert sum("." in i for block in ids for i in block) == 4
    assert [s.n for s in ewt_dev] == [sum(i.isdigit() for i in block) for block in ids]
    with_empty = [s for s, block in zip(ewt_dev, ids) if any("." in i for i in block)]
    assert with_empty and all(len(s.heads) == s.n + 1 and s.heads.max() <= s.n for s in with_empty)
    ranges = [r for block in ids for r in block if "-" in r]
    assert [f"{first}-{last}" for s in ewt_dev for first, (last, _, _) in s.multiword_tokens().items()] == ranges
    for sentence, block in zip(ewt_dev, ids):       # a range line's FORM in place of its words
        tokens = sentence.surface_tokens()
        assert len(tokens) == sum(i.isdigit() for i in block) - sum(
            last - first for first, (last, _, _) in sentence.multiword_tokens().items())
        assert "".join(form for form, _, _ in tokens).replace(" ", "") == sentence.text.replace(" ", "")
        assert sum(words for _, _, words in tokens) == sentence.n


def test_ewt_dev_round_trip_is_byte_identical(ewt_dev, ewt_dev_path, tmp_path):
    out = tmp_path / "dev.conllu"
    write_conllu(ewt_dev, out)
    assert out.read_bytes() == ewt_dev_path.read_bytes()


def test_ewt_dev_text_is_rebuilt_from_tokens_without_the_text_comment(ewt_dev):
    for sentence in ewt_dev:
        bare = sentence.copy()
        bare.comments = [c for c in bare.comments if not c.startswith("# text")]
        assert bare.text == sentence.text


def test_ewt_dev_sentence_fields(ewt_dev):
    first = ewt_dev[0]
    assert first.sent_id == "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713-0001"
    assert first.text == "From the AP comes this story :"
    assert first.words == ["From", "the", "AP", "comes", "this", "story", ":"]
    assert first.heads.tolist() == [-1, 3, 3, 4, 0, 6, 4, 4]
    assert first.labels.tolist() == ["case", "det", "obl", "root", "det", "nsubj", "punct"]
    assert first.upos[6] == "PUNCT" and first.xpos[6] == ":"
    assert first.deps[2] == "4:obl:from"
    assert first.comments[0].startswith("# newdoc id = weblog")


# --- reading and writing -----------------------------------------------------------------------------------


def test_changed_heads_and_labels_are_written(tmp_path):
    (sentence,) = parse_conllu(GOOD)
    sentence.heads = np.array([-1, 2, 0, 2, 3])
    sentence.labels[3] = "dep"
    lines = format_sentence(sentence).split("\n")
    assert lines[5] == "4\t.\t.\tX\tXX\t_\t3\tdep\t_\t_"
    path = tmp_path / "out.conllu"
    write_conllu([sentence], path)
    (again,) = read_conllu(path)
    assert again.heads.tolist() == [-1, 2, 0, 2, 3]
    assert again.labels.tolist() == ["nsubj", "root", "obj", "dep"]


def test_format_and_write_to_a_file_object():
    corpus = parse_conllu(GOOD + GOOD.replace("s1", "s2"))
    buffer = io.StringIO()
    write_conllu(corpus, buffer)
    assert buffer.getvalue() == GOOD + GOOD.replace("s1", "s2")
    assert format_sentence(corpus[0]) == GOOD
    assert [s.sent_id for s in corpus] == ["s1", "s2"]


def test_extra_lines_are_written_back_in_place():
    text = "\n".join(
        [
            "0.1\tnull\t_\t_\t_\t_\t_\t_\t0:root\t_",
            "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
            row(1, "do", 0, "root"),
            row(2, "n't", 1, "advmod"),
            row(3, "go", 1, "xcomp"),
            "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t1:conj\t_",
            "4-5\tgonna\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
            row(4, "gon", 3, "dep"),
            row(5, "na", 3, "dep"),
            "5.1\tx\t_\t_\t_\t_\t_\t_\t5:dep\t_",
        ]
    ) + "\n\n"
    (sentence,) = parse_conllu(text)
    assert sentence.n == 5
    assert sentence.words == ["do", "n't", "go", "gon", "na"]
    assert format_sentence(sentence) == text
    assert sentence.text == "don't go gonna"


def test_text_and_sent_id_without_comments():
    sentence = Sentence(["Hello", "world", "!"], misc=["_", "SpaceAfter=No", "_"])
    assert sentence.sent_id is None
    assert sentence.text == "Hello world!"


def test_several_roots_are_legal():
    text = "\n".join([row(1, "a", 0), row(2, "b", 0), row(3, "c", 2)]) + "\n"
    (sentence,) = parse_conllu(text)
    assert sentence.heads.tolist() == [-1, 0, 0, 2]


@pytest.mark.parametrize(
    "text",
    [
        GOOD.rstrip("\n"),  # no trailing blank line, no final newline
        GOOD.rstrip("\n") + "\n",  # final newline but no blank line
        GOOD + "\n\n\n",  # blank lines at the very end
        GOOD.replace("\n", "\r\n"),  # Windows line endings
        "\n\n" + GOOD.replace("\n\n", "\n \t\n"),  # leading blank lines, whitespace-only separator
        "\ufeff" + GOOD,  # byte-order mark
    ],
)
def test_line_endings_and_blank_lines(tmp_path, text):
    path = tmp_path / "x.conllu"
    path.write_bytes(text.encode("utf-8"))
    (sentence,) = read_conllu(path)
    assert format_sentence(sentence) == GOOD


def test_iter_conllu_streams(tmp_path):
    path = tmp_path / "x.conllu"
    path.write_text(GOOD * 3, encoding="utf-8")
    stream = iter_conllu(path)
    assert next(stream).n == 4
    assert len(list(stream)) == 2


# --- Sentence ----------------------------------------------------------------------------------------------


def test_sentence_defaults_and_unparsed_heads():
    sentence = Sentence(["a", "b"])
    assert sentence.n == 2
    assert sentence.upos.dtype == object and sentence.upos.tolist() == ["_", "_"]
    assert sentence.heads.tolist() == [-1, -1, -1]
    assert format_sentence(sentence) == "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"upos": ["A"]}, r"upos must have one entry per word \(2\), got 1"),
        ({"lemmas": ["a", "b", "c"]}, r"lemmas must have one entry per word \(2\), got 3"),
        ({"heads": [-1, 0]}, r"heads must have shape \(3,\) for 2 words, got \(2,\)"),
        ({"heads": [0, 0, 1]}, r"heads\[0\] must be -1 \(the artificial root\), got 0"),
    ],
)
def test_sentence_checks_lengths(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Sentence(["a", "b"], **kwargs)


def test_format_checks_lengths_after_mutation():
    sentence = Sentence(["a", "b"], heads=[-1, 0, 1])
    sentence.heads = np.array([-1, 0])
    with pytest.raises(ValueError, match=r"heads must have length 3 for 2 words, got 2"):
        format_sentence(sentence)


def test_copy_is_deep():
    (sentence,) = parse_conllu(GOOD)
    copy = sentence.copy()
    copy.heads[1] = 3
    copy.labels[0] = "x"
    copy.words[0] = "x"
    assert format_sentence(sentence) == GOOD
    assert format_sentence(copy) != GOOD


# --- malformed input ---------------------------------------------------------------------------------------


def good_rows(*rows):
    return "\n".join(rows) + "\n"


MALFORMED = [
    # (text, line, reason); GOOD occupies lines 1-7 (comments 1-2, words 3-6, blank 7).
    (GOOD + "1\tx\tx\tX\tXX\t_\t0\troot\t_\n", 8, "expected 10 tab-separated columns, found 9"),
    (GOOD + good_rows(row(1, "a", 0), row("x", "b", 1)), 9, "invalid ID 'x'"),
    (GOOD + good_rows(row(1, "a", 0), row("2-x", "b", 1)), 9, "invalid ID '2-x'"),
    (GOOD + good_rows(row(1, "a", 0), row(3, "b", 1)), 9, "expected word ID 2, found 3"),
    (good_rows(row(0, "a", 0)), 1, "expected word ID 1, found 0"),
    (good_rows(row(1, "a", 0), row(2, "b", "two")), 2, "invalid HEAD 'two' on word 2: not an integer"),
    (good_rows(row(1, "a", 0), row(2, "b", "_")), 2, "empty HEAD '_' on word 2"),
    (good_rows(row(1, "a", 0), row(2, "b", 3)), 2, "head 3 of word 2 is out of range 0..2"),
    (good_rows(row(1, "a", -1), row(2, "b", 0)), 1, "head -1 of word 1 is out of range 0..2"),
    (good_rows(row(1, "a", 0), row(2, "b", 2)), 2, "word 2 is its own head (self-loop)"),
    (good_rows(row(1, "a", 2), row(2, "b", 1)), 1, "no word is attached to the root (heads contain no 0)"),
    (
        good_rows(row(1, "a", 0), row(2, "b", 3), row(3, "c", 4), row(4, "d", 2)),
        2,
        "cycle through word 2: 2 -> 3 -> 4 -> 2",
    ),
    (good_rows(row(1, "a", 0), "# late", row(2, "b", 1)), 2, "comment line after the first word of a sentence"),
    (GOOD + "# only a comment\n", 8, "sentence has no words (only comments or non-word lines)"),
]


@pytest.mark.parametrize("text,line,reason", MALFORMED)
def test_malformed_input_names_file_line_and_problem(tmp_path, text, line, reason):
    path = tmp_path / "en.conllu"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        read_conllu(path)
    error = info.value
    assert str(error) == f"{path}:{line}: {reason}"
    assert (error.path, error.line, error.reason) == (str(path), line, reason)
    assert isinstance(error, ValueError)


def test_parse_conllu_names_its_source():
    with pytest.raises(CorpusError, match=r"^stdin:1: expected word ID 1, found 2$"):
        parse_conllu(row(2, "a", 0), source="stdin")


def test_corpus_error_pickles():
    error = CorpusError("a.conllu", 3, "bad")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.path, again.line, again.reason) == ("a.conllu:3: bad", "a.conllu", 3, "bad")
    assert str(CorpusError("a.conllu", None, "bad")) == "a.conllu: bad"


def test_lenient_mode_skips_records_and_reports(tmp_path, caplog):
    bad_cycle = good_rows(row(1, "a", 2), row(2, "b", 1))
    bad_columns = "1\ta\n"
    path = tmp_path / "mixed.conllu"
    path.write_text(GOOD + bad_cycle + "\n" + GOOD + bad_columns, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="vineparse"):
        with pytest.warns(UserWarning, match=rf"^skipped 2 of 4 sentences in {path} \(first: {path}:8: no word"):
            corpus = read_conllu(path, lenient=True)
    assert isinstance(corpus, Corpus) and len(corpus) == 2
    assert [(e.line, e.reason) for e in corpus.skipped] == [
        (8, "no word is attached to the root (heads contain no 0)"),
        (18, "expected 10 tab-separated columns, found 2"),
    ]
    records = [r for r in caplog.records if r.name.startswith("vineparse")]
    assert len(records) == 1 and records[0].getMessage().startswith(f"skipped 2 of 4 sentences in {path}")
    assert "Corpus(2 sentences" in repr(corpus) and "skipped=2" in repr(corpus)


def test_lenient_mode_without_problems_is_silent(tmp_path, recwarn):
    path = tmp_path / "ok.conllu"
    path.write_text(GOOD, encoding="utf-8")
    corpus = read_conllu(path, lenient=True)
    assert len(corpus) == 1 and corpus.skipped == [] and len(recwarn) == 0


def test_iter_conllu_lenient_warns_when_exhausted(tmp_path):
    path = tmp_path / "mixed.conllu"
    path.write_text(GOOD + good_rows(row(1, "a", "_")), encoding="utf-8")
    with pytest.warns(UserWarning, match=r"skipped 1 of 2 sentences"):
        sentences = list(iter_conllu(path, lenient=True))
    assert len(sentences) == 1
    with pytest.raises(CorpusError, match=r":8: empty HEAD '_' on word 1$"):
        list(iter_conllu(path))


def test_unparsed_input_is_read_when_heads_are_not_required(tmp_path):
    text = "1\tDogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t_\t_\t_\t_\n\n"
    path = tmp_path / "raw.conllu"
    path.write_text(text)
    with pytest.raises(CorpusError, match=r"raw.conllu:1: empty HEAD '_' on word 1"):
        read_conllu(path)
    corpus = read_conllu(path, require_heads=False)
    assert corpus[0].heads.tolist() == [-1, -1, -1]
    mixed = tmp_path / "mixed.conllu"
    mixed.write_text(text.replace("VBP\t_\t_", "VBP\t_\t0"))
    with pytest.raises(CorpusError, match=r"mixed.conllu:1: empty HEAD '_' on word 1 while other words"):
        read_conllu(mixed, require_heads=False)


def test_set_tree_replaces_the_basic_tree_and_clears_the_enhanced_graph():
    text = "\n".join([
        "# sent_id = e1",
        "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t2:nsubj\t_",
        "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
        "2\tdo\tdo\tAUX\tVBP\t_\t0\troot\t0:root\t_",
        "3\tn't\tnot\tPART\tRB\t_\t2\tadvmod\t2:advmod\t_",
        "3.1\tdo\tdo\tAUX\tVBP\t_\t_\t_\t2:conj\t_",
    ]) + "\n\n"
    sentence = parse_conllu(text)[0]
    sentence.set_tree(np.array([-1, 0, 1, 1]), ["root", "aux", "advmod"])
    out = format_sentence(sentence)
    assert "2-3\tdon't" in out and "3.1\t" not in out
    again = parse_conllu(out)[0]
    assert again.heads.tolist() == [-1, 0, 1, 1] and list(again.labels) == ["root", "aux", "advmod"]
    assert again.deps == ["_"] * 3
    with pytest.raises(ValueError, match="cycle"):
        sentence.set_tree(np.array([-1, 2, 1, 0]), ["a", "b", "c"])
    with pytest.raises(ValueError, match="labels must have one entry per word"):
        sentence.set_tree(np.array([-1, 0, 1, 1]), ["root"])
