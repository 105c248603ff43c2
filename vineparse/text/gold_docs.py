"""Gold spaCy docs of whole documents, as their raw text has them: for training and scoring on raw text.

A document of a treebank is its raw text (`rawtext.py`: paragraphs as blank-line blocks, long lines wrapped,
as UD's `conllu_to_text` writes it) with its sentences' words at their places in it. The gold doc is built
on that text, so that `doc.text` is the raw text itself: spaCy's `Corpus` reader with `gold_preproc false`
tokenizes `doc.text` for the predicted doc, so the models train on the line breaks and paragraph breaks they
will meet. The words are the treebank's syntactic words (a multiword token is written as its words, which
in English spell it: "do" + "n't"); any other whitespace than one space after a word (a line break, a
paragraph break, several spaces) is a token of its own, as spaCy's tokenizer makes one of it, attached to the
word before it (the first word for leading whitespace) as SPACE_LABEL, tagged "_SP" / SPACE as spaCy tags
whitespace: it never counts in spaCy's scores and never starts a sentence (vine_cascade's own rule for
whitespace: `vineparse.pipeline.spaces`). Heads, labels,
tags, POS, lemmas and morphology come from the treebank.
"""
from typing import List, Sequence, Tuple

from spacy.tokens import Doc

from ..corpus.conllu import Sentence
from ..pipeline.spaces import SPACE_LABEL




class SpellingError(ValueError):
    """A sentence's words do not spell its text (e.g. a multiword token whose words are not its letters)."""


def _whitespace(gap: str) -> Tuple[bool, List[Tuple[str, bool]]]:
    """How the whitespace `gap` between two words becomes spaCy tokens: (whether the word before has a trailing
    space, [(whitespace token text, its trailing space)])."""
    if gap in ("", " "):
        return gap == " ", []
    space_after_word = gap.startswith(" ")
    rest = gap[1:] if space_after_word else gap
    text = rest[:-1] if rest.endswith(" ") and len(rest) > 1 else rest
    return space_after_word, [(text, text != rest)]


def gold_document(vocab, text: str, sentences: Sequence[Sentence], spans: Sequence[Tuple[int, int]]) -> Doc:
    """The gold doc of one document. text: its raw text; sentences: its sentences in order; spans: each
    sentence's (start, end) character offsets in `text` (`rawtext.py`).

    RETURNS (Doc): `doc.text == text` exactly; each sentence's words in order, whitespace tokens between
    them on the word before (see the module docstring). RAISES (SpellingError): a sentence whose words,
    whitespace aside, are not the characters of its span (named by its sent_id).
    """
    words: List[str] = []
    spaces: List[bool] = []
    heads: List = []
    deps: List = []
    tags: List = []
    pos: List = []
    lemmas: List = []
    morphs: List = []
    cursor = 0
    placed_words: List[int] = []        # the doc token of every word so far

    def add_whitespace(gap: str) -> None:
        if not gap:
            return
        if words:
            spaces[-1], tokens = _whitespace(gap)
        else:
            tokens = [(gap[:-1], True)] if gap.endswith(" ") and len(gap) > 1 else [(gap, False)]
        for token, trailing in tokens:
            words.append(token)
            spaces.append(trailing)
            heads.append(placed_words[-1] if placed_words else -1)    # -1: the first word, once known
            deps.append(SPACE_LABEL)
            tags.append("_SP")          # spaCy's tag and POS of whitespace
            pos.append("SPACE")
            lemmas.append(token)
            morphs.append("")

    for sentence, (start, end) in zip(sentences, spans):
        add_whitespace(text[cursor:start])
        cursor = start
        placed = []                 # the doc token of each word of the sentence
        for k, word in enumerate(sentence.words):
            found = cursor
            while found < end and text[found].isspace():
                found += 1
            if text[found:found + len(word)] != word:
                raise SpellingError(f"sentence {sentence.sent_id or '?'}: word {k + 1} {word!r} is not at "
                                    f"{text[found:found + len(word) + 10]!r} in its text")
            if k:
                add_whitespace(text[cursor:found])
            placed.append(len(words))
            placed_words.append(len(words))
            words.append(word)
            spaces.append(False)
            heads.append(int(sentence.heads[k + 1]))          # 1-based in the sentence for now, 0 = the root
            deps.append(_value(sentence.labels[k]))
            tags.append(_value(sentence.xpos[k]) or "")
            pos.append(_value(sentence.upos[k]) or "X")
            lemmas.append(_value(sentence.lemmas[k]) or word)
            morphs.append(_value(sentence.feats[k]) or "")
            cursor = found + len(word)
        if text[cursor:end].strip():
            raise SpellingError(f"sentence {sentence.sent_id or '?'}: its words end before its text does "
                                f"({text[cursor:end]!r} left)")
        for i in placed:            # spaCy's heads: doc token indices, a root its own
            h = heads[i]
            heads[i] = None if h < 0 else i if h == 0 else placed[h - 1]
            if heads[i] is None:
                deps[i] = None
        cursor = end
    add_whitespace(text[cursor:])
    heads = [placed_words[0] if h == -1 else h for h in heads]
    return Doc(vocab, words=words, spaces=spaces, heads=heads, deps=deps, tags=tags, pos=pos, lemmas=lemmas,
               morphs=morphs)


def _value(field):
    """A CoNLL-U column's value, None for "_" (unannotated)."""
    return None if field is None or field == "_" else str(field)


def treebank_documents(vocab, source, language: str = "en") -> Tuple[List[Doc], List[str]]:
    """The gold docs of a treebank's documents on its raw text (`rawtext.conllu_to_text`, `gold_document`).

    source: a CoNLL-U path or sentences already read; language: the treebank's (the text's wrapping).
    RETURNS (docs, skipped): one doc per document, and a line per document left out because a sentence's words
    do not spell its text (`SpellingError`: multiword tokens whose words are not their letters, as in
    Portuguese "do" = "de" + "o"), naming its first sentence.
    RAISES (CorpusError): for a malformed file, naming the file and line.
    """
    from ..corpus.conllu import read_conllu
    from .rawtext import conllu_to_text

    sentences = read_conllu(source) if not isinstance(source, list) else source
    docs, skipped = [], []
    for document in conllu_to_text(sentences, language=language).documents:
        try:
            docs.append(gold_document(vocab, document.text, [sentences[i] for i in document.sentences],
                                      document.spans))
        except SpellingError as error:
            skipped.append(f"document {document.doc_id or document.sentences[0]}: {error}")
    return docs, skipped
