"""Parse the items of one shard with a loaded model and serialise the result.

Items are (part, line, bytes) as `plan.split_items` cuts them. Bad input is skipped and reported as
{"file", "line", "reason"}: bytes that are not UTF-8, a malformed CoNLL-U sentence (the reader's message, with
the line in the file), an empty document, a document longer than the pipeline's `nlp.max_length` characters,
a sentence longer than `max_words` words (cascade); and a document whose parse is not a tree over each
sentence cannot be written as CoNLL-U (it stays in the DocBin). Anything a model raises is not bad input: it
fails the shard, with the item's file and line in the message.

Output bytes depend only on the items, the model and the settings (a shard is parsed in fixed batches of
`batch_size` documents), never on the worker or process that parses it.
"""
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


from ..corpus import CorpusError, format_sentence, parse_conllu
from .docs import doc_sentences, sentence_spans
from .plan import Part

Item = Tuple[Part, int, bytes]
SOURCE_KEY = "vineparse_source"      # Doc.user_data key of a document's origin, "file:line"


@dataclass
class ParseSettings:
    """What a shard's parse depends on besides its input and the model.

    formats (Tuple[str, ...]): "conllu" and/or "spacy" (DocBin).
    batch_size (int): documents per `nlp.pipe` batch (spaCy models).
    max_words (int): cascade: longer sentences are skipped and reported.
    """

    formats: Tuple[str, ...]
    batch_size: int = 64
    max_words: int = 1000

    def to_dict(self) -> Dict:
        return {"formats": list(self.formats), "batch_size": self.batch_size, "max_words": self.max_words}


@dataclass
class ParsedShard:
    """The serialised output of one shard and its counts.

    outputs (Dict[str, bytes]): one entry per format.
    documents (int): items parsed (documents or CoNLL-U sentences); sentences, words: what was parsed.
    skipped (List[dict]): {"file", "line", "reason"} per skipped item, in input order.
    seconds (Dict[str, float]): "parse" (model and input decoding) and "serialise".
    """

    outputs: Dict[str, bytes]
    documents: int = 0
    sentences: int = 0
    words: int = 0
    skipped: List[Dict] = field(default_factory=list)
    seconds: Dict[str, float] = field(default_factory=dict)


class ItemError(RuntimeError):
    """A model failed on one item (not bad input): the shard fails with the item's location."""


def _skip(part: Part, line: int, reason: str) -> Dict:
    return {"file": part.path, "line": line, "reason": reason}


def _decode(part: Part, line: int, data: bytes, out: ParsedShard) -> Optional[str]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad_line = line + data.count(b"\n", 0, err.start)
        column = err.start - data.rfind(b"\n", 0, err.start)
        out.skipped.append(_skip(part, bad_line, f"not valid UTF-8 (byte {column} of the line)"))
        return None


def parse_conllu_items(parser: Any, items: List[Item], settings: ParseSettings) -> ParsedShard:
    """Parse CoNLL-U sentences with a `CascadeParser`; output CoNLL-U with the predicted heads.

    Heads are predicted from FORM and the tag column the model was trained on (`parser.tag`) plus UPOS;
    DEPREL and DEPS are written as the `vineparse parse` command writes them (the labeller's labels, the
    enhanced graph cleared). Each item's sentences are parsed in one call of the compiled cascade.
    """
    out = ParsedShard({})
    start = time.perf_counter()
    blocks: List[str] = []
    kept: List[Tuple[Part, int, Any]] = []
    for part, line, data in items:
        text = _decode(part, line, data, out)
        if text is None:
            continue
        try:
            sentences = parse_conllu(text, source=part.path, require_heads=False)
        except CorpusError as err:
            where = line if err.line is None else line + err.line - 1
            out.skipped.append(_skip(part, where, err.reason))
            continue
        for sentence in sentences:
            if sentence.n > settings.max_words:
                out.skipped.append(_skip(part, line, f"sentence of {sentence.n:,} words, more than max_words = "
                                                     f"{settings.max_words:,}"))
            else:
                kept.append((part, line, sentence))
    for (part, line, sentence), (heads, labels) in zip(kept, _labelled_trees(parser, kept)):
        sentence.set_tree(heads, labels)
        blocks.append(format_sentence(sentence))
        out.documents += 1
        out.sentences += 1
        out.words += sentence.n
    parsed = time.perf_counter()
    out.outputs["conllu"] = "".join(blocks).encode("utf-8")
    out.seconds = {"parse": parsed - start, "serialise": time.perf_counter() - parsed}
    return out


def _labelled_trees(parser: Any, kept: List[Tuple[Part, int, Any]]) -> List:
    """(heads, labels) of every kept sentence, in one call of the compiled cascade; if it fails, the sentences
    are parsed one by one to name the one that fails."""
    batch = [(s.words, list(getattr(s, parser.tag)), list(s.upos)) for _, _, s in kept]
    try:
        return parser.parse_labelled_batch(batch)
    except Exception:
        pass
    trees = []
    for (part, line, _), sentence in zip(kept, batch):
        try:
            trees.extend(parser.parse_labelled_batch([sentence]))
        except Exception as err:
            raise ItemError(f"{part.path}:{line}: the cascade failed on this sentence: "
                            f"{type(err).__name__}: {err}") from err
    return trees


def parse_text_items(nlp: Any, items: List[Item], settings: ParseSettings, layout: str = "lines") -> ParsedShard:
    """Parse plain-text documents with a spaCy pipeline (`nlp.pipe` in batches of `settings.batch_size`);
    output a DocBin (with each doc's origin in `doc.user_data["vineparse_source"]`) and/or CoNLL-U.

    Layout "paragraphs" (raw text, one item a paragraph): CoNLL-U as `vineparse.text.conllu_writer` writes it,
    one document a file (``# newdoc id = FILE NAME`` in the shard holding its first paragraph), ``# newpar``
    per paragraph, sentence ids ``NAME:LINE-sK``, whitespace tokens not written, multiword tokens as UD writes
    them (as ``parse-text`` does)."""
    out = ParsedShard({})
    start = time.perf_counter()
    texts: List[str] = []
    sources: List[Tuple[Part, int]] = []
    for part, line, data in items:
        text = _decode(part, line, data, out)
        if text is None:
            continue
        if not text.strip():
            out.skipped.append(_skip(part, line, "empty document"))
        elif len(text) > nlp.max_length:
            out.skipped.append(_skip(part, line, f"document of {len(text):,} characters, more than the "
                                                 f"pipeline's max_length = {nlp.max_length:,}"))
        else:
            texts.append(text)
            sources.append((part, line))
    docs = []
    try:
        for doc in nlp.pipe(texts, batch_size=settings.batch_size):
            docs.append(doc)
    except Exception as err:
        part, line = sources[len(docs)] if len(docs) < len(sources) else sources[-1]
        raise ItemError(f"{part.path}:{line} (or another document of its batch): the pipeline failed: "
                        f"{type(err).__name__}: {err}") from err
    parsed = time.perf_counter()
    docbin = None
    if "spacy" in settings.formats:
        from spacy.tokens import DocBin

        docbin = DocBin(store_user_data=True)
    blocks: List[str] = []
    if layout == "paragraphs" and "conllu" in settings.formats:
        _write_paragraphs(nlp, docs, sources, blocks)
    for doc, (part, line) in zip(docs, sources):
        source = f"{part.path}:{line}"
        out.documents += 1
        out.words += len(doc)
        out.sentences += len(sentence_spans(doc))
        if docbin is not None:
            doc.user_data[SOURCE_KEY] = source
            docbin.add(doc)
        if "conllu" in settings.formats and layout != "paragraphs":
            try:
                sentences = doc_sentences(doc, source)
            except ValueError as err:           # the model's output, not the input: reported, not fatal
                out.skipped.append(_skip(part, line, f"not written as CoNLL-U: {err}"))
                sentences = []
            blocks.extend(format_sentence(s) for s in sentences)
    order = {part.path: k for k, (part, _, _) in enumerate(items)}
    out.skipped.sort(key=lambda skipped: (order[skipped["file"]], skipped["line"]))
    if docbin is not None:
        out.outputs["spacy"] = docbin.to_bytes()
    if "conllu" in settings.formats:
        out.outputs["conllu"] = "".join(blocks).encode("utf-8")
    out.seconds = {"parse": parsed - start, "serialise": time.perf_counter() - parsed}
    return out


def _write_paragraphs(nlp: Any, docs: List, sources: List[Tuple[Part, int]], blocks: List[str]) -> None:
    """The CoNLL-U of a shard's paragraphs (see parse_text_items), appended to blocks; multiword tokens as
    `parse-text` writes them (`vineparse.text.contractions.pipeline_multiword`)."""
    import io
    import os.path

    from ..text.conllu_writer import ConlluWriter
    from ..text.contractions import pipeline_multiword

    multiword, contractions = pipeline_multiword(nlp)
    buffer = io.StringIO()
    writer = ConlluWriter(buffer, multiword=multiword, contractions=contractions)
    path = None
    for doc, (part, line) in zip(docs, sources):
        name = os.path.basename(part.path)
        if part.path != path:
            path = part.path
            if part.offset > 0:  # the file's first paragraphs are in an earlier shard
                writer.resume(name)
            first = part.offset == 0
        writer.write(doc, name, continues=not first, new_paragraph=True, sent_prefix=f"{name}:{line}")
        first = False
    blocks.append(buffer.getvalue())


def parse_items(kind: str, model: Any, items: List[Item], settings: ParseSettings, layout: str = "") -> ParsedShard:
    """Dispatch on the model kind ("cascade": CoNLL-U items; "spacy": text items, in `layout`)."""
    if kind == "cascade":
        return parse_conllu_items(model, items, settings)
    return parse_text_items(model, items, settings, layout or "lines")
