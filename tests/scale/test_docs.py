"""spaCy Docs as CoNLL-U sentences: heads per sentence, escapes, unparsed docs, parses that are not trees."""
import numpy as np
import pytest
import spacy
from spacy.attrs import HEAD
from spacy.tokens import Doc

from vineparse.corpus import format_sentence, parse_conllu
from vineparse.scale.docs import doc_sentences


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def test_two_sentences_round_trip_through_the_reader(vocab):
    words = ["She", "sleeps", ".", "He", "reads", "\n\t"]
    doc = Doc(vocab, words=words, spaces=[True, False, True, True, False, False], heads=[1, 1, 1, 4, 4, 4],
              deps=["nsubj", "ROOT", "punct", "nsubj", "ROOT", "dep"],
              tags=["PRP", "VBZ", ".", "PRP", "VBZ", "_SP"])
    sentences = doc_sentences(doc, "in.txt:7")
    assert [s.n for s in sentences] == [3, 3]
    assert sentences[0].comments == ["# newdoc id = in.txt:7", "# sent_id = in.txt:7.1", "# text = She sleeps."]
    assert sentences[1].comments == ["# sent_id = in.txt:7.2", "# text = He reads"]
    text = "".join(format_sentence(s) for s in sentences)
    again = parse_conllu(text)
    assert [list(s.heads) for s in again] == [[-1, 2, 0, 2], [-1, 2, 0, 2]]
    assert again[1].words[2] == "\\n\\t" and list(again[1].xpos) == ["PRP", "VBZ", "_SP"]
    assert again[0].misc == ["_", "SpaceAfter=No", "_"] and again[1].misc[-1] == "_"   # the doc's last token
    assert list(again[0].labels) == ["nsubj", "ROOT", "punct"] and again[0].lemmas == ["_"] * 3


def test_an_unparsed_doc_is_one_sentence_without_heads(vocab):
    (sentence,) = doc_sentences(Doc(vocab, words=["a", "b"]), "x:1")
    assert list(sentence.heads) == [-1, -1, -1] and "\t_\t_\t_\t_\n" in format_sentence(sentence)


def test_a_parse_that_is_not_a_tree_is_refused(vocab):
    doc = Doc(vocab, words=["a", "b", "c"], heads=[1, 2, 2], deps=["dep", "dep", "ROOT"])
    # A cycle a -> b -> a with c its own root: what a broken deprojectivization can leave.
    doc.from_array([HEAD], np.array([1, -1, 0], dtype=np.int64).view(np.uint64).reshape(3, 1))
    with pytest.raises(ValueError, match="not a tree"):
        doc_sentences(doc, "x:1")
