"""Gold spaCy docs of whole documents, as their raw text has them: for training and scoring on raw text.

A document of a treebank is its raw text (`rawtext.py`: paragraphs as blank-line blocks, long lines wrapped,
as UD's `conllu_to_text` writes it) with its sentences' words at their places in it. The gold doc is built
on that text, so that `doc.text` is the raw text itself: spaCy's `Corpus` reader with `gold_preproc false`
tokenizes `doc.text` for the predicted doc, so the models train on the line breaks and paragraph breaks they
will meet. The tokens are the treebank's syntactic words, except in multiword tokens (`_pieces`): one the
tokenizer splits into its words is its words (English "do" + "n't"), a hyphenated clitic is two tokens
("trata" + "-se"), any other (a contraction, Portuguese "do" = "de" + "o") is one token carrying its kept
word's annotation (`contractions`). Any other whitespace than one space after a word (a line break, a
paragraph break, several spaces) is a token of its own, as spaCy's tokenizer makes one of it, attached to the
word before it (the first word for leading whitespace) as SPACE_LABEL, tagged "_SP" / SPACE as spaCy tags
whitespace: it never counts in spaCy's scores and never starts a sentence (vine_cascade's own rule for
whitespace: `vineparse.pipeline.spaces`). Heads, labels, tags, POS, lemmas and morphology come from the
treebank.
"""
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from ..corpus.conllu import Sentence
from ..pipeline.spaces import SPACE_LABEL
from .contractions import is_clitic, kept_word, tokenizer_splits
from .rawtext import has_comment


class SpellingError(ValueError):
    """A sentence's tokens are not the characters of its text (e.g. a text that is not the sentence's)."""


def _whitespace(gap: str) -> Tuple[bool, List[Tuple[str, bool]]]:
    """How the whitespace `gap` between two words becomes spaCy tokens: (whether the word before has a trailing
    space, [(whitespace token text, its trailing space)])."""
    if gap in ("", " "):
        return gap == " ", []
    space_after_word = gap.startswith(" ")
    rest = gap[1:] if space_after_word else gap
    text = rest[:-1] if rest.endswith(" ") and len(rest) > 1 else rest
    return space_after_word, [(text, text != rest)]


def gold_document(vocab, text: str, sentences: Sequence[Sentence], spans: Sequence[Tuple[int, int]],
                  tokenizer: Optional[Callable] = None) -> Doc:
    """The gold doc of one document. text: its raw text; sentences: its sentences in order; spans: each
    sentence's (start, end) character offsets in `text` (`rawtext.py`); tokenizer: which multiword tokens are
    split into their words (`_pieces`).

    RETURNS (Doc): `doc.text == text` exactly; each sentence's tokens in order, whitespace tokens between
    them on the word before (see the module docstring). RAISES (SpellingError): a sentence whose tokens,
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
        word_token = [0] * (sentence.n + 1)     # the doc token of each word (1-based) of the sentence
        annotated = []                          # (doc token, the word it carries)
        for covered, piece, word in _pieces(sentence, tokenizer):
            found = cursor
            while found < end and text[found].isspace():
                found += 1
            if text[found:found + len(piece)] != piece:
                raise SpellingError(f"sentence {sentence.sent_id or '?'}: word {word} {piece!r} is not at "
                                    f"{text[found:found + len(piece) + 10]!r} in its text")
            if annotated:
                add_whitespace(text[cursor:found])
            for k in covered:
                word_token[k] = len(words)
            annotated.append((len(words), word))
            placed_words.append(len(words))
            words.append(piece)
            spaces.append(False)
            w = word - 1
            heads.append(int(sentence.heads[word]))          # 1-based in the sentence for now, 0 = the root
            deps.append(_value(sentence.labels[w]))
            tags.append(_value(sentence.xpos[w]) or "")
            pos.append(_value(sentence.upos[w]) or "X")
            lemmas.append(_value(sentence.lemmas[w]) or piece)
            morphs.append(_value(sentence.feats[w]) or "")
            cursor = found + len(piece)
        if text[cursor:end].strip():
            raise SpellingError(f"sentence {sentence.sent_id or '?'}: its words end before its text does "
                                f"({text[cursor:end]!r} left)")
        for i, _ in annotated:      # spaCy's heads: doc token indices, a root its own
            h = heads[i]
            heads[i] = None if h < 0 else i if h == 0 else word_token[h]
            if heads[i] is None:
                deps[i] = None
        cursor = end
    add_whitespace(text[cursor:])
    heads = [placed_words[0] if h == -1 else h for h in heads]
    return Doc(vocab, words=words, spaces=spaces, heads=heads, deps=deps, tags=tags, pos=pos, lemmas=lemmas,
               morphs=morphs)


def _pieces(sentence: Sentence, tokenizer: Optional[Callable] = None
            ) -> Iterator[Tuple[Tuple[int, ...], str, int]]:
    """The doc tokens of a sentence: (the words it covers, 1-based; its text; the word whose annotation it
    carries). A word is its own token, and so is each word of a multiword token that the tokenizer splits into
    its words (`contractions.tokenizer_splits`); a hyphenated clitic is two tokens, ``trata`` + ``-se``; any
    other multiword token (a contraction, "do" = "de" + "o") is one token with the annotation of its kept word
    (`contractions.kept_word`)."""
    spans = sentence.multiword_tokens()
    k = 1
    while k <= sentence.n:
        last, surface, _ = spans.get(k, (k, None, None))
        if surface is None or last <= k:
            yield (k,), sentence.words[k - 1], k
            k += 1
            continue
        words = sentence.words[k - 1:last]
        if is_clitic(surface, words) or tokenizer_splits(surface, words, tokenizer):
            at = 0
            for j, word in enumerate(words):        # the surface's own letters (its case: "Ao" = "A" + "o")
                end = len(surface) if j == len(words) - 1 else at + len(word)
                yield (k + j,), surface[at:end], k + j
                at = end
        else:
            yield tuple(range(k, last + 1)), surface, kept_word(sentence, k, last)
        k = last + 1


def documents_from_sent_ids(sentences: Sequence[Sentence]) -> List[Sentence]:
    """The sentences of a file that marks no document (no ``# newdoc`` as UD's tool reads it) and whose every
    sentence has a sent_id with a prefix (``CF1-3``: sentence 3 of document CF1), with a copy carrying
    ``# newdoc id = CF1`` where the prefix changes; any other file's sentences as they are. The input is not
    changed."""
    prefixes = [(s.sent_id or "").rpartition("-")[0] for s in sentences]
    if not all(prefixes) or any(has_comment(s, "newdoc") for s in sentences):
        return list(sentences)
    marked = []
    for i, (sentence, prefix) in enumerate(zip(sentences, prefixes)):
        if i == 0 or prefix != prefixes[i - 1]:
            sentence = sentence.copy()
            sentence.comments.insert(0, f"# newdoc id = {prefix}")
        marked.append(sentence)
    return marked


def _value(field):
    """A CoNLL-U column's value, None for "_" (unannotated)."""
    return None if field is None or field == "_" else str(field)


def treebank_documents(vocab, source, language: str = "en", tokenizer: Optional[Callable] = None,
                       limit: int = 0, sentences: bool = False) -> Tuple[List[Doc], List[str]]:
    """The gold docs of a treebank's documents on its raw text (`rawtext.conllu_to_text`, `gold_document`).

    source: a CoNLL-U path or sentences already read; language: the treebank's (the text's wrapping);
    tokenizer: the pipeline's (which multiword tokens it splits into their words; None: every multiword token
    whose words spell it, as in English, `_pieces`); limit: the first `limit` documents converted (0: all);
    sentences: also every sentence of those documents as a doc of its own, on its text (line wraps as
    spaces), after the documents. A file that marks no document has its documents from its sent_ids
    (`documents_from_sent_ids`).
    RETURNS (docs, skipped): one doc per document (then one per sentence), and a line per document left out
    because a sentence's words are not at their places in its text (`SpellingError`), naming its first sentence.
    RAISES (CorpusError): for a malformed file, naming the file and line.
    """
    from ..corpus.conllu import read_conllu
    from .rawtext import conllu_to_text

    read = documents_from_sent_ids(read_conllu(source) if not isinstance(source, list) else source)
    docs, alone, skipped = [], [], []
    for document in conllu_to_text(read, language=language).documents:
        if limit and len(docs) == limit:
            break
        own = [read[i] for i in document.sentences]
        try:
            docs.append(gold_document(vocab, document.text, own, document.spans, tokenizer))
        except SpellingError as error:
            skipped.append(f"document {document.doc_id or document.sentences[0]}: {error}")
            continue
        if sentences:
            alone += [gold_document(vocab, document.text[start:end].replace("\n", " "), [sentence],
                                    [(0, end - start)], tokenizer)
                      for sentence, (start, end) in zip(own, document.spans)]
    return docs + alone, skipped
