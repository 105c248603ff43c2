"""CoNLL-U from spaCy docs parsed from raw text (vineparse.text.conllu_writer), checked by UD's validator."""
import numpy as np
import pytest
import spacy
from spacy.attrs import DEP, HEAD
from spacy.tokens import Doc

from vineparse.corpus import parse_conllu
from vineparse.text.conll18 import validate
from vineparse.text.conllu_writer import WriteStats, docs_to_conllu

REVIEW = ("Great service!! Would recommend them to anyone who needs a plumber\n\nWe called them on Monday "
          "and they came on Tuesday. The price was fair.\nthanks again - John\n\nP.S. call them, don't wait "
          "— I'm serious.  Tabs\there. \"Quoted.\" Done:)\r\n\r\nÜber naïve café 東京 мир 😊\n")


def chain_parse(doc):
    """A trivial parse: in each sentence the first token is the root, every other token hangs from the one before
    (so a word after a whitespace token hangs from that token). Labels: root / dep."""
    heads = np.zeros(len(doc), dtype="int64")
    for sent in doc.sents:
        for token in sent[1:]:
            heads[token.i] = -1
    deps = [doc.vocab.strings.add("ROOT" if h == 0 else "dep") for h in heads]
    doc.from_array([HEAD, DEP], np.stack([heads.astype("uint64"), np.array(deps, dtype="uint64")], axis=1))
    return doc


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def contractions(doc):
    """Multiword ranges for the test: a token followed directly by n't / 'm / 's."""
    return [(t.i - 1, t.i + 1) for t in doc[1:] if t.lower_ in ("n't", "'m", "'s") and not doc[t.i - 1].whitespace_]


def test_validator_accepts_a_pipeline_output(nlp):
    stats = WriteStats()
    text = docs_to_conllu([chain_parse(nlp(REVIEW)), chain_parse(nlp("Second doc.\n\n\nTwo paragraphs."))],
                          doc_ids=["review", None], multiword=contractions, stats=stats)
    assert validate(text, level=2) == []
    assert text.startswith("# newdoc id = review\n# newpar\n# sent_id = review-s1\n# text = Great service!!")
    assert "# newdoc\n" in text
    # paragraphs: 3 start a sentence (# newpar), 3 start inside one (NewPar=Yes)
    assert (text.count("# newpar"), text.count("NewPar=Yes"), stats.paragraphs) == (3, 3, 6)
    assert stats.missing_upos == stats.words and "\tX\t" in text
    assert stats.multiword_tokens == 2 and "\tdon't\t" in text and "\tI'm\t" in text
    assert stats.documents == 2
    # whitespace tokens are never words; words after them were re-attached
    corpus = parse_conllu(text)
    assert all(not w.isspace() for s in corpus for w in s.words)
    assert stats.reattached > 0 and stats.whitespace_tokens > 0
    assert stats.words == sum(s.n for s in corpus) == sum(1 for d in [REVIEW] for t in nlp(d) if not t.is_space) + 6
    # every sentence has one root
    assert all(int((s.heads[1:] == 0).sum()) == 1 for s in corpus)


def test_no_parser_every_extra_root_is_attached_and_counted(nlp):
    stats = WriteStats()
    doc = nlp("One two three. Four five.")
    text = docs_to_conllu([doc], stats=stats)
    assert validate(text, level=2) == []
    corpus = parse_conllu(text)
    assert [list(s.heads) for s in corpus] == [[-1, 0, 1, 1, 1], [-1, 0, 1, 1]]
    assert [list(s.labels) for s in corpus] == [["root", "parataxis", "parataxis", "parataxis"],
                                                ["root", "parataxis", "parataxis"]]
    assert stats.extra_roots == 5 and stats.sentences == 2


def test_paragraph_inside_a_sentence_and_spacing():
    nlp = spacy.blank("en")  # no sentence boundaries: the doc is one sentence
    doc = nlp("a b\n\nc d, end.")
    text = docs_to_conllu([doc])
    assert validate(text, level=2) == []
    lines = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert [(c[1], c[9]) for c in lines] == [("a", "_"), ("b", "_"), ("c", "NewPar=Yes"), ("d", "SpaceAfter=No"),
                                             (",", "_"), ("end", "SpaceAfter=No"), (".", "_")]
    assert "# text = a b c d, end.\n" in text


def test_whitespace_head_chain_and_cycle():
    nlp = spacy.blank("en")
    words = ["a", "\n", "b", "c", "d"]
    # a <- "\n" is the root; b hangs from "\n"; c and d form a cycle
    doc = Doc(nlp.vocab, words=words, spaces=[False, False, True, True, False])
    heads = np.array([1, 0, -1, 1, -1], dtype="int64")
    deps = [doc.vocab.strings.add(x) for x in ("dep", "ROOT", "dep", "dep", "dep")]
    doc.from_array([HEAD, DEP], np.stack([heads.astype("uint64"), np.array(deps, dtype="uint64")], axis=1))
    stats = WriteStats()
    text = docs_to_conllu([doc], stats=stats)
    corpus = parse_conllu(text)
    (sentence,) = corpus
    assert sentence.words == ["a", "b", "c", "d"]
    # a and b hung from the whitespace root: both become roots, b attached to a; the c <-> d cycle is broken
    assert stats.reattached == 2 and stats.extra_roots == 1 and stats.broken_cycles == 1
    assert int((sentence.heads[1:] == 0).sum()) == 1
    assert validate(text, level=2) == []


def test_empty_and_whitespace_docs_write_nothing(nlp):
    stats = WriteStats()
    assert docs_to_conllu([nlp(""), nlp(" \n\n\t ")], stats=stats) == ""
    assert stats.documents == 0 and stats.whitespace_tokens >= 1
