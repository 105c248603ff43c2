"""Raw text in, CoNLL-U out (vineparse.text.parse_text and `python -m vineparse parse-text`)."""
import io
import os
import subprocess
import sys
import time
from functools import partial

import numpy as np
import pytest
import spacy
from spacy.attrs import DEP, HEAD
from spacy.language import Language

from vineparse.corpus import CorpusError, corpus_path, parse_conllu
from vineparse.text.conll18 import evaluate, validate
from vineparse.text.parse_text import iter_pieces, parse_text
from vineparse.text.rawtext import conllu_to_text


@Language.component("test_chain_parse")
def chain_parse(doc):
    """In each sentence the first token is the root and every other token hangs from the one before."""
    heads = np.zeros(len(doc), dtype="int64")
    for sent in doc.sents:
        heads[sent.start + 1:sent.end] = -1
    deps = np.array([doc.vocab.strings.add("ROOT" if h == 0 else "dep") for h in heads], dtype="uint64")
    doc.from_array([HEAD, DEP], np.stack([heads.astype("uint64"), deps], axis=1))
    return doc


class Recording:
    """A pipeline that keeps the text of every token with its whitespace, doc by doc (what parse_text calls)."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.max_length = nlp.max_length
        self.texts = []

    def pipe(self, texts, **kwargs):
        for doc, context in self.nlp.pipe(texts, **kwargs):
            self.texts.append("".join(t.text_with_ws for t in doc))
            yield doc, context


def pipeline(parse=True):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    if parse:
        nlp.add_pipe("test_chain_parse")
    recording = Recording(nlp)
    return recording, recording


def run(text, **kwargs):
    nlp, recorder = pipeline()
    out = io.StringIO()
    summary = parse_text(nlp, text, out, **kwargs)
    return out.getvalue(), summary, recorder.texts


@pytest.mark.parametrize("text, max_chars", [
    ("", 10), ("abc", 10), ("a b\n\nc d\n\n\ne f g h i j k l", 8), ("x" * 25, 10), ("a\nb c d e f g", 5),
    ("p1 p1\n\np2\n p2 p2 p2 p2\n\np3", 14),
])
def test_pieces_cover_the_input(text, max_chars):
    pieces = list(iter_pieces(io.BytesIO(text.encode()), max_chars))
    assert "".join(p.text for p in pieces) == text
    assert all(0 < len(p.text) <= max_chars for p in pieces)
    assert [p.offset for p in pieces] == [sum(len(q.text) for q in pieces[:k]) for k in range(len(pieces))]


def test_pieces_are_paragraphs_where_they_fit():
    pieces = [p.text for p in iter_pieces(io.BytesIO(b"a.\n\nb.\n \n\n  c.\nd.\n\ne."), 1000)]
    assert pieces == ["a.\n\n", "b.\n \n\n  ", "c.\nd.\n\n", "e."]
    pieces = [p.text for p in iter_pieces(io.BytesIO(b"p1 p1\n\np2\n p2 p2 p2 p2\n\np3"), 14)]
    assert pieces == ["p1 p1\n\n", "p2\n", " p2 p2 p2 p2\n\n", "p3"]
    pieces = list(iter_pieces(io.BytesIO(b"x" * 25), 10))
    assert [p.hard_cut for p in pieces] == [True, True, False]


def test_invalid_utf8_names_the_line():
    data = "line one\nline two\n".encode() * 40_000 + b"bad \xff here\n"
    with pytest.raises(CorpusError, match=r"in\.txt:80001: invalid UTF-8: byte 0xff"):
        list(iter_pieces(io.BytesIO(data), 1000, "in.txt"))


ROBUST = {
    "empty": "",
    "whitespace only": " \n\n\t \r\n  \u3000\n",
    "control characters": "a\x00b \x01\x07 c\x1b[31m red\x7f. \x0c next\x0b line\x1c\x1d\x1e\x1f\x85 end.",
    "mixed scripts": "Hello мир! 東京は大きい。 مرحبا بالعالم. שלום. नमस्ते दुनिया। 😊👍🏽 café naïve Ωmega.\n\n" * 50,
    "1 MB without a line break": "Words and more words, sentences too. " * 28_500,
    "1 MB without whitespace": "x" * 1_000_000,
}


@pytest.mark.parametrize("name", sorted(ROBUST))
def test_robust_inputs_lose_no_character(name):
    text = ROBUST[name]
    start = time.perf_counter()
    conllu, summary, docs = run(text)
    seconds = time.perf_counter() - start
    assert "".join(docs) == text  # every character in exactly one token's text or whitespace
    assert summary.characters == len(text)
    assert seconds < 120, seconds
    corpus = parse_conllu(conllu) if conllu else []
    words = "".join(w for s in corpus for w in s.words)
    assert words == "".join(text.split()) or name == "control characters"
    if name == "control characters":  # spaCy splits at str.isspace, which \x1c..\x1f and \x85 are
        assert words == "".join(c for c in text if not c.isspace())
    if name == "mixed scripts":  # (validating the 1 MB output takes the validator 40 s)
        assert validate(conllu, level=2) == []
    if name == "1 MB without a line break":
        assert summary.written.sentences == 28_500 + 52 and summary.hard_cuts == 0
    if name == "1 MB without whitespace":
        assert summary.hard_cuts == 49 and summary.written.sentences == 50


def test_paragraphs_across_pieces():
    text = "One. Two.\n\nThree.\nFour.\n\n\nFive."
    conllu, summary, _ = run(text, max_chars=12)
    assert summary.pieces > 2
    assert conllu.count("# newdoc") == 1 and conllu.count("# newpar") == 3
    ids = [line for line in conllu.splitlines() if line.startswith("# sent_id")]
    assert ids == [f"# sent_id = d1-s{k}" for k in range(1, 6)]


def test_limits_are_checked_before_reading():
    nlp, _ = pipeline()
    with pytest.raises(ValueError, match="max_chars must be in 1..1,000,000"):
        parse_text(nlp, "text", io.StringIO(), max_chars=2_000_000)
    with pytest.raises(ValueError, match="batch_size"):
        parse_text(nlp, "text", io.StringIO(), batch_size=0)


def test_ewt_test_raw_text_scores_with_the_conll18_script(tmp_path):
    gold = corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu")
    raw = conllu_to_text(gold)
    conllu, summary, docs = run(raw.text, progress=(lines := []).append, progress_every=50_000)
    assert "".join(docs) == raw.text
    assert len(lines) == 3 and lines[-1].startswith("parse-text: <stream>: done")
    scores = evaluate(gold, conllu)
    # spaCy's English rules without UD's multiword tokens (issue 69 measured tokens F1 95.70, words 97.48)
    assert 0.95 < scores["Tokens"]["f1"] < 0.97 and 0.96 < scores["Words"]["f1"] < 0.99
    # every paragraph is marked: # newpar at a sentence start, NewPar=Yes inside a sentence
    assert conllu.count("# newpar") + conllu.count("NewPar=Yes") == raw.n_paragraphs == 854
    assert validate(conllu, level=2) == []


def test_command_line(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    model = tmp_path / "model"
    nlp.to_disk(model)
    text = "First paragraph. Two sentences.\n\nSecond one\n"
    (tmp_path / "in.txt").write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "vineparse", "parse-text", str(model)]
    shell = partial(subprocess.run, capture_output=True, cwd=tmp_path)  # not the source tree: the installed package
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = shell(command + ["-"], input=text.encode(), env=env, check=True)
    out = result.stdout.decode()
    assert out.count("# newpar") == 2 and out.count("# sent_id") == 3
    assert "3 sentences" in result.stderr.decode() or "sentences 3" in result.stderr.decode()
    shell(command + [str(tmp_path / "in.txt"), "--out", str(tmp_path / "out.conllu")], check=True, env=env)
    assert (tmp_path / "out.conllu").read_text(encoding="utf-8") == out
    (tmp_path / "bad.txt").write_bytes(b"ok\nnot \xc3( ok\n")
    result = shell(command + [str(tmp_path / "bad.txt")], env=env)
    assert result.returncode == 2 and "bad.txt:2: invalid UTF-8" in result.stderr.decode()
    result = shell(command + [str(tmp_path / "missing.txt")], env=env)
    assert result.returncode == 2 and "missing.txt" in result.stderr.decode()
