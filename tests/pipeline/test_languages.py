"""Any language (issue 33): a blank pipeline of each of the paper's six languages trains vine_cascade on a small
slice of its UD treebank and parses (Chinese without spaces included); nothing raises and no sentence is lost."""
import numpy as np
import pytest
import spacy
from spacy.tokens import Doc

from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import validate_heads

from .tiny import TINY_MODEL, make_examples

TREEBANKS = {"en": ("ud-english-ewt", "en_ewt-ud-dev.conllu"), "pt": ("ud-multi", "pt_bosque", "pt_bosque-ud-dev.conllu"),
             "bg": ("ud-multi", "bg_btb", "bg_btb-ud-dev.conllu"), "de": ("ud-multi", "de_gsd", "de_gsd-ud-dev.conllu"),
             "sv": ("ud-multi", "sv_talbanken", "sv_talbanken-ud-dev.conllu"),
             "zh": ("ud-multi", "zh_gsd", "zh_gsd-ud-dev.conllu")}


@pytest.mark.parametrize("lang", sorted(TREEBANKS))
def test_a_blank_pipeline_of_each_language_trains_and_parses(lang):
    sentences = [s for s in read_conllu(corpus_path(*TREEBANKS[lang])) if 2 <= s.n <= 30][:40]
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank(lang)
    nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL})
    examples = make_examples(nlp, sentences)
    optimizer = nlp.initialize(lambda: examples)
    for step in range(3):
        nlp.update(examples[step * 10:(step + 1) * 10], sgd=optimizer)
    docs = [Doc(nlp.vocab, words=list(s.words), sent_starts=[i == 0 for i in range(s.n)]) for s in sentences]
    docs.append(Doc(nlp.vocab, words=[w for s in sentences[:5] for w in s.words]))        # no boundaries
    parsed = list(nlp.pipe(docs))
    assert len(parsed) == len(docs) and [len(d) for d in parsed] == [len(d) for d in docs]
    for doc in parsed:
        heads = np.array([-1] + [0 if t.head.i == t.i else t.head.i + 1 for t in doc])
        validate_heads(heads)
        assert sum(t.head.i == t.i for t in doc) == len(list(doc.sents))
    text = "".join(t.text_with_ws for t in parsed[0])
    assert len(nlp(text)) > 0            # raw text through the language's own tokenizer
