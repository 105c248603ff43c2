"""UD's raw text (vineparse.text.rawtext) against the real treebanks and small made-up files."""
import hashlib
import re

import pytest

from vineparse.corpus import CorpusError, corpus_path, parse_conllu, read_conllu
from vineparse.text.rawtext import PERL_WHITESPACE, WIDTH, conllu_to_text

# sha256 of what UniversalDependencies/tools conllu_to_text.pl (commit 446bd9696) writes for these files,
# measured by running the tool (perl) on the files in ../shared/corpora.
TOOL_SHA256 = {
    ("ud-english-ewt", "en_ewt-ud-test.conllu", "en"): "83be9ceb06966e553a7970a21826cf9207cfe7cb3152ec51cf9486bca23b18c1",
    ("ud-pud", "en_pud-ud-test.conllu", "en"): "a9b7a0d1f7cb6a949d21b2376f7cb195e524050caa1054b49d114e8bf7881cb7",
    ("ud-multi", "zh_gsd/zh_gsd-ud-test.conllu", "zh"): "380509cf2c51ea53ab857f0209b9e1b1e7d3536d1351dfc4cbdc82a96d28f473",
}


@pytest.fixture(scope="module")
def ewt_test():
    path = corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu")
    return read_conllu(path), conllu_to_text(path)


@pytest.fixture(scope="module")
def pud():
    path = corpus_path("ud-pud", "en_pud-ud-test.conllu")
    return read_conllu(path), conllu_to_text(path)


@pytest.mark.parametrize("key", sorted(TOOL_SHA256))
def test_byte_identical_to_the_tool(key):
    folder, name, language = key
    raw = conllu_to_text(corpus_path(folder, *name.split("/")), language=language)
    assert hashlib.sha256(raw.text.encode("utf-8")).hexdigest() == TOOL_SHA256[key]


def _assert_same_but_wraps(span_text, sentence_text):
    """Equal but for whitespace: a wrap puts a line break for a space, and the tool writes the space after a
    token as " " where ``# text`` may have another (EWT test: a no-break space in one sentence)."""
    assert len(span_text) == len(sentence_text), (span_text, sentence_text)
    for ours, theirs in zip(span_text, sentence_text):
        assert ours == theirs or (ours in PERL_WHITESPACE and theirs in PERL_WHITESPACE), (span_text, sentence_text)


def _blocks(text):
    return [block for block in re.split(r"\n\n+", text) if block.strip("\n")]


def _paragraphs_from_comments(corpus):
    return sum(1 for i, s in enumerate(corpus)
               if i == 0 or any(re.match(r"#\s*(newpar|newdoc)(\s|$)", c) for c in s.comments))


@pytest.mark.parametrize("which", ["ewt_test", "pud"])
def test_real_treebank(which, request):
    corpus, raw = request.getfixturevalue(which)
    # every sentence's # text is at its span (wrapping turns some of its spaces into line breaks)
    seen = []
    for doc in raw.documents:
        assert raw.text[doc.start:doc.start + len(doc.text)] == doc.text
        for (start, end), index in zip(doc.spans, doc.sentences):
            _assert_same_but_wraps(doc.text[start:end], corpus[index].text)
            seen.append(index)
    assert seen == list(range(len(corpus)))
    # documents = # newdoc, paragraphs = blank-line blocks of the .txt
    assert len(raw.documents) == sum(1 for s in corpus if any(c.startswith("# newdoc") for c in s.comments))
    assert len(_blocks(raw.text)) == _paragraphs_from_comments(corpus) == raw.n_paragraphs
    assert "\n".join(doc.text for doc in raw.documents) == raw.text
    # the non-whitespace characters are those of the words, in order
    words = "".join("".join(s.words) for s in corpus)
    assert "".join(raw.text.split()) == "".join(words.split())
    # lines of at most 80 characters, unless one has no whitespace to break at
    for line in raw.text.split("\n"):
        assert len(line) <= WIDTH or not any(c in PERL_WHITESPACE for c in line[:WIDTH + 1])


def test_measured_sizes(ewt_test, pud):
    _, ewt = ewt_test
    assert (len(ewt.documents), ewt.n_paragraphs, ewt.text.count("\n")) == (316, 854, 2911)
    _, raw = pud
    # PUD has # newdoc and no # newpar: one paragraph per document
    assert (len(raw.documents), raw.n_paragraphs) == (397, 397)
    assert raw.documents[0].doc_id == "n01001"


def conllu(*sentences):
    """CoNLL-U from sentences given as (comments, [(form, misc), ...]); range tokens as ("3-4", form, misc)."""
    out = []
    for comments, tokens in sentences:
        out.extend(comments)
        i = 0
        for token in tokens:
            if len(token) == 3:
                out.append(f"{token[0]}\t{token[1]}\t_\t_\t_\t_\t_\t_\t_\t{token[2]}")
                continue
            i += 1
            out.append(f"{i}\t{token[0]}\t_\tX\t_\t_\t{0 if i == 1 else 1}\tdep\t_\t{token[1]}")
        out.append("")
    return "\n".join(out) + "\n"


def test_no_newdoc_no_newpar_is_one_document_one_paragraph():
    text = conllu(([], [("Hi", "SpaceAfter=No"), (".", "_")]), ([], [("Bye", "SpaceAfter=No"), (".", "SpaceAfter=No")]),
                  ([], [("Again", "_")]))
    raw = conllu_to_text(parse_conllu(text))
    # the last token of sentence 2 has SpaceAfter=No: sentence 3 is glued to it
    assert raw.text == "Hi. Bye.Again \n"
    assert len(raw.documents) == 1 and raw.documents[0].doc_id is None
    assert raw.documents[0].spans == [(0, 3), (4, 8), (8, 13)]


def test_documents_and_paragraphs():
    text = conllu((["# newdoc id = a", "# newpar"], [("One", "_")]), ([], [("Two", "_")]),
                  (["# newpar"], [("Three", "_")]), (["# newdoc id = b"], [("Four", "_")]))
    raw = conllu_to_text(parse_conllu(text))
    assert raw.text == "One Two \n\nThree \n\nFour \n"
    assert [d.doc_id for d in raw.documents] == ["a", "b"]
    assert [d.text for d in raw.documents] == ["One Two \n\nThree \n", "Four \n"]
    assert raw.documents[0].spans == [(0, 3), (4, 7), (10, 15)]
    assert [d.n_paragraphs for d in raw.documents] == [2, 1]


def test_paragraph_inside_a_sentence_and_multiword_tokens():
    text = conllu((["# newpar"], [("- item", "_"), ("2-3", "don't", "_"), ("do", "_"), ("n't", "_"),
                                  ("stop", "NewPar=Yes"), ("now", "_")]))
    raw = conllu_to_text(parse_conllu(text))
    assert raw.text == "- item don't \n\nstop now \n"
    assert raw.documents[0].spans == [(0, 23)]
    assert raw.n_paragraphs == 2


# Expected strings below were checked against conllu_to_text.pl (perl) on the same input.
def test_paragraph_at_a_sentence_start_and_inside():
    text = conllu((["# newpar"], [("x", "_"), ("stop", "NewPar=Yes"), ("now", "_")]),
                  (["# newpar"], [("a", "NewPar=Yes"), ("b", "_")]))
    raw = conllu_to_text(parse_conllu(text))
    # NewPar=Yes on the first token of a sentence with # newpar: the tool writes two empty lines
    assert raw.text == "x \n\nstop now \n\n\n\na b \n"
    assert raw.documents[0].spans == [(0, 12), (17, 20)]


def test_wrapping():
    words = [("w%02d" % i, "_") for i in range(40)]  # 40 words of 3 characters and a space: 160 characters
    raw = conllu_to_text(parse_conllu(conllu(([], words))))
    first = " ".join(w for w, _ in words[:20])
    assert raw.text == first + "\n" + " ".join(w for w, _ in words[20:]) + "\n" and len(first) == 79
    assert raw.documents[0].spans == [(0, 159)]
    # a word longer than a line: broken before it; with SpaceAfter=No it waits for the next token
    long = "x" * 100
    raw = conllu_to_text(parse_conllu(conllu(([], [("a", "_"), (long, "SpaceAfter=No"), ("y", "_")]))))
    assert raw.text == "a\n" + long + "y\n"
    raw = conllu_to_text(parse_conllu(conllu(([], [("a", "_"), (long, "SpaceAfter=No"), ("y", "SpaceAfter=No")]),
                                             ([], [("z" * 90, "_")]))))
    assert raw.text == "a\n" + long + "y" + "z" * 90 + "\n"
    assert raw.documents[0].spans == [(0, 103), (103, 193)]
    # a no-break space inside a form is whitespace to the tool
    words = [("a\u00a0b", "_")] + [("w%02d" % i, "_") for i in range(30)]
    raw = conllu_to_text(parse_conllu(conllu(([], words))))
    assert raw.text.startswith("a\xa0b w00") and raw.text.split("\n")[1].startswith("w19 ")


def test_chinese_wrapping_keeps_latin_runs():
    sentence = [("中" * 78, "SpaceAfter=No"), ("ABCDEF", "SpaceAfter=No"), ("文", "SpaceAfter=No")]
    raw = conllu_to_text(parse_conllu(conllu(([], sentence))), language="zh")
    assert raw.text == "中" * 78 + "\nABCDEF文\n"
    raw = conllu_to_text(parse_conllu(conllu(([], [("中" * 200, "SpaceAfter=No")]))), language="zh_gsd")
    assert [len(line) for line in raw.text.split("\n")] == [81, 81, 38, 0]


def test_bad_input_names_file_and_line(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_text("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n2\tthere\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.conllu:2: expected 10"):
        conllu_to_text(path)
