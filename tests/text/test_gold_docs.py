"""Gold docs of whole documents on their raw text, and the convert-docs command, on real treebanks."""
import pytest
import spacy
from spacy.training import Example

from vineparse.cli import main
from vineparse.corpus import corpus_path, read_conllu
from vineparse.pipeline.spaces import SPACE_LABEL
from vineparse.text.gold_docs import SpellingError, gold_document, treebank_documents
from vineparse.text.rawtext import conllu_to_text


@pytest.fixture(scope="module")
def ewt_test():
    return read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"))


def test_every_document_is_its_raw_text_with_its_sentences_and_trees(ewt_test):
    nlp = spacy.blank("en")
    raw = conllu_to_text(ewt_test)
    docs, skipped = treebank_documents(nlp.vocab, ewt_test)
    assert not skipped and len(docs) == len(raw.documents) == 316
    assert sum(len(list(doc.sents)) for doc in docs) == len(ewt_test) == 2077
    for doc, document in zip(docs, raw.documents):
        assert doc.text == document.text
        words = [t for t in doc if not t.is_space]
        sentences = [ewt_test[i] for i in document.sentences]
        assert [t.text for t in words] == [w for s in sentences for w in s.words]
        for sent, sentence in zip(doc.sents, sentences):
            tokens = [t for t in sent if not t.is_space]
            assert [t.dep_ for t in tokens] == list(sentence.labels)
            assert [t.tag_ for t in tokens] == list(sentence.xpos)
            heads = [0 if t.head == t else tokens.index(t.head) + 1 for t in tokens]
            assert heads == list(sentence.heads[1:])
        for token in doc:
            if token.is_space:       # on the word before it, as punct: never a head, never scored or a start
                before = [t for t in doc[:token.i] if not t.is_space]
                assert token.head == (before[-1] if before else words[0]) and token.dep_ == SPACE_LABEL
                assert not token.is_sent_start and not list(token.children)


def test_line_and_paragraph_breaks_are_whitespace_tokens_spacy_aligns(ewt_test):
    nlp = spacy.blank("en")
    docs, _ = treebank_documents(nlp.vocab, ewt_test[:60])
    spaces = [t.text for doc in docs for t in doc if t.is_space]
    assert any("\n\n" in text for text in spaces) and any(text.strip(" ") == "\n" for text in spaces)
    for doc in docs:
        example = Example(nlp.make_doc(doc.text), doc)
        assert sum(example.get_aligned_sent_starts()) == len(list(doc.sents))


def test_words_that_do_not_spell_the_text_name_their_sentence(ewt_test):
    nlp = spacy.blank("en")
    sentence = ewt_test[0]
    with pytest.raises(SpellingError, match=sentence.sent_id):
        gold_document(nlp.vocab, "Something else entirely.", [sentence], [(0, 24)])


def test_convert_docs_writes_the_documents_and_reports_them(tmp_path, capsys):
    out = tmp_path / "dev.spacy"
    assert main(["convert-docs", str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")), str(out),
                 "--limit", "5"]) == 0
    from spacy.tokens import DocBin
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    assert len(docs) == 5 and all("\n" in doc.text for doc in docs)
    assert "5 documents" in capsys.readouterr().err
    assert main(["convert-docs", str(tmp_path / "missing.conllu"), str(out)]) == 2


def _words(span):
    """(text, head word, label, tag) of each word (whitespace tokens aside), heads as word offsets."""
    words = [token for token in span if not token.is_space]
    index = {token.i: k for k, token in enumerate(words)}
    return [(token.text, index[token.head.i], token.dep_, token.tag_) for token in words]


def test_convert_docs_sentences_adds_each_sentence_alone_with_its_annotation(tmp_path, capsys):
    out = tmp_path / "dev.spacy"
    assert main(["convert-docs", str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu")), str(out),
                 "--limit", "3", "--sentences"]) == 0
    from spacy.tokens import DocBin
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    sentences = [sent for doc in docs[:3] for sent in doc.sents]
    alone = docs[3:]
    assert len(alone) == len(sentences) > 3
    assert f"3 documents, {len(sentences)} sentences (each also a doc of its own)" in capsys.readouterr().err
    assert any("\n" in sent.text for sent in sentences)
    for sent, doc in zip(sentences, alone):
        assert len(list(doc.sents)) == 1 and "\n" not in doc.text
        assert doc.text == " ".join(sent.text.split("\n")).strip()
        assert _words(doc) == _words(sent)
