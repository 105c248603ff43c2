"""spaCy Docs as CoNLL-U sentences, for writing with the corpus writer (`vineparse.corpus.format_sentence`).

One sentence per `doc.sents` (the whole doc when the pipeline sets no sentence boundaries). Columns: FORM
`token.text`, LEMMA `lemma_`, UPOS `pos_`, XPOS `tag_`, FEATS `morph`, HEAD (0 for a sentence root; `_` when
the pipeline assigns no heads), DEPREL `dep_`, DEPS `_`, MISC `SpaceAfter=No` where no whitespace follows a
token inside the doc; empty values are written as `_`. Tabs, newlines and carriage returns inside a value
(whitespace tokens of a multi-line document) are written as the two-character escapes `\\t`, `\\n`, `\\r` (and
a backslash as `\\\\`), so every token stays on one line. Comments: `# newdoc id = SOURCE` before a doc's first
sentence, `# sent_id = SOURCE.K` (K from 1) and `# text = ...` (whitespace collapsed).
"""
from typing import List

import numpy as np

from ..corpus import Sentence
from ..trees import TreeError, validate_heads

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _value(text: str) -> str:
    return text.translate(_ESCAPES) if text else "_"


def sentence_spans(doc) -> list:
    """`doc.sents` where the pipeline set sentence boundaries or a parse, else the whole doc as one span."""
    return list(doc.sents) if doc.has_annotation("DEP") or doc.has_annotation("SENT_START") else [doc[:]]


def doc_sentences(doc, source: str) -> List[Sentence]:
    """The sentences of a parsed Doc.

    doc (Doc): a Doc whose heads, if set, stay inside each sentence.
    source (str): the document's origin (`file:line`), used in the comments.
    RETURNS (List[Sentence]): one per sentence, with heads in 0..n.
    RAISES (ValueError): a parse that is not a tree over each sentence (a head outside its sentence, no root,
        a cycle): such a doc cannot be written as CoNLL-U.
    """
    parsed = doc.has_annotation("DEP")
    spans = sentence_spans(doc)
    out: List[Sentence] = []
    last = len(doc) - 1
    for k, span in enumerate(spans, 1):
        start, n = span.start, len(span)
        heads = np.full(n + 1, -1, dtype=np.int64)
        for i, token in enumerate(span if parsed else ()):
            head = token.head.i
            if not start <= head < start + n:
                raise ValueError(f"token {token.i} ({token.text!r}) has its head outside its sentence")
            heads[i + 1] = 0 if head == token.i else head - start + 1
        if parsed:
            try:
                validate_heads(heads)
            except TreeError as err:
                raise ValueError(f"the pipeline's parse of sentence {k} is not a tree: {err}") from None
        comments = [f"# sent_id = {source}.{k}", "# text = " + " ".join(span.text.split())]
        if k == 1:
            comments.insert(0, f"# newdoc id = {source}")
        out.append(Sentence(
            words=[_value(t.text) for t in span],
            lemmas=[_value(t.lemma_) for t in span],
            upos=[_value(t.pos_) for t in span],
            xpos=[_value(t.tag_) for t in span],
            feats=[_value(str(t.morph)) for t in span],
            heads=heads,
            labels=[_value(t.dep_) for t in span],
            comments=comments,
            deps=["_"] * n,
            misc=["SpaceAfter=No" if not t.whitespace_ and t.i != last else "_" for t in span],
        ))
    return out
