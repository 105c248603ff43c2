"""UD's raw text of a treebank: the ``.txt`` that UD's ``conllu_to_text`` tool writes, and where each sentence is.

The CoNLL 2018 shared task gave systems each treebank's raw text as UD releases it, written by
``conllu_to_text.pl`` (UniversalDependencies/tools). This module rebuilds that text from the CoNLL-U file,
with the tool's conventions (read from its source; the code here is the project's own):

- The text of a sentence is its surface tokens in order: the FORM of each multiword-token line (``3-4``) in
  place of the words it spans, the FORM of every other word; empty nodes (``8.1``) are not text. A token is
  followed by one space unless its MISC has ``SpaceAfter=No``. The ``# text`` comment is not used.
- Sentences of one paragraph follow each other on the same line: the space after a sentence is the space after
  its last token, so a last token with ``SpaceAfter=No`` glues the next sentence to it.
- A sentence with a ``# newpar`` or ``# newdoc`` comment starts a new paragraph (except the first sentence of
  the file): the current line is ended and one empty line written. A word (or multiword token) with
  ``NewPar=Yes`` in its MISC starts a paragraph in the middle of a sentence. A file without ``# newpar`` has
  one paragraph per document; without ``# newdoc``, one document.
- Lines are wrapped: while the pending text has at least ``width`` (80) characters, it is broken at the last
  whitespace at index ``width`` or before (so a line holds at most ``width`` characters), or, when there is
  none there, at the first whitespace after it; the whitespace character is replaced by the line
  break. Text with no whitespace at all is written on one line once it is known to end (the last token had a
  space after it). Pending text is written when a paragraph ends and at the end of the file, with what
  trailing space it has (UD's ``.txt`` files do have spaces at the ends of paragraphs' last lines).
- ``language`` zh, ja, lzh, yue (alone or as ``zh_...``) selects the tool's Chinese wrapping instead: lines of
  at most ``width`` + 1 characters broken anywhere except between two Latin letters or ASCII digits (Latin:
  a letter whose Unicode name says LATIN, which approximates Perl's ``\\p{Latin}``).
- Whitespace is what Perl's ``\\s`` matches in Unicode text (the White_Space property); Python's
  ``str.isspace`` would add U+001C..U+001F.

Every character of a token keeps one place in the text (a wrap replaces a space by a line break, one character
for one), so each sentence has a character span: from its first token's first character to its last token's
last character (the space after it excluded). A document's text is its part of the ``.txt``: from its first
character to the line break ending its last line, without the empty line that separates it from the next;
``"\\n".join(doc.text for doc in raw.documents) == raw.text`` for every file that starts with a sentence.
"""
import os
import unicodedata
from dataclasses import dataclass, field
from typing import IO, Iterable, List, Optional, Tuple, Union

from ..corpus.conllu import Sentence, iter_conllu

__all__ = ["RawDocument", "RawText", "conllu_to_text", "has_comment", "WIDTH", "PERL_WHITESPACE"]

WIDTH = 80
# Perl's \s on Unicode strings (the White_Space property): what the tool breaks lines at.
PERL_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_CHINESE = ("zh", "ja", "lzh", "yue")


@dataclass
class RawDocument:
    """One document of the raw text.

    doc_id (Optional[str]): the value of its ``# newdoc id = ...`` comment, or None.
    text (str): its text (paragraphs separated by one empty line, wrapped lines), ending with ``"\\n"``.
    spans (List[Tuple[int, int]]): per sentence, [start, end) in ``text``: the sentence's surface text, with
        some spaces replaced by line breaks where the line was wrapped (and ``"\\n\\n"`` where a paragraph
        started inside the sentence).
    sentences (List[int]): per span, the sentence's index in the input (0-based, file order).
    sent_ids (List[Optional[str]]): per span, the sentence's ``# sent_id``, or None.
    start (int): where ``text`` starts in the whole ``.txt``.
    n_paragraphs (int): its paragraphs (blocks of non-empty lines).
    """

    doc_id: Optional[str]
    text: str = ""
    spans: List[Tuple[int, int]] = field(default_factory=list)
    sentences: List[int] = field(default_factory=list)
    sent_ids: List[Optional[str]] = field(default_factory=list)
    start: int = 0
    n_paragraphs: int = 0


@dataclass
class RawText:
    """The raw text of a CoNLL-U file.

    text (str): what ``conllu_to_text.pl`` writes (every line ends with ``"\\n"``).
    documents (List[RawDocument]): its documents in order.
    """

    text: str
    documents: List[RawDocument]

    @property
    def n_paragraphs(self) -> int:
        """Paragraphs over all documents."""
        return sum(doc.n_paragraphs for doc in self.documents)


def has_comment(sentence: Sentence, key: str) -> bool:
    """Whether the sentence has a ``# key`` comment, as the tool matches it (``#\\s*key`` then space or end)."""
    for comment in sentence.comments:
        rest = comment[1:].lstrip()
        if rest[: len(key)].lower() == key and (len(rest) == len(key) or rest[len(key)].isspace()):
            return True
    return False


def _doc_id(sentence: Sentence) -> Optional[str]:
    for comment in sentence.comments:
        rest = comment[1:].lstrip()
        if rest[:6].lower() == "newdoc":
            name, sep, value = rest.partition("=")
            return value.strip() if sep and name.strip().lower() == "newdoc id" else None
    return None


def _count_blocks(text: str) -> int:
    """The blocks of non-empty lines in text (its paragraphs)."""
    blocks, inside = 0, False
    for line in text.split("\n"):
        if line and not inside:
            blocks += 1
        inside = bool(line)
    return blocks


def _is_latin_or_digit(char: str) -> bool:
    if "0" <= char <= "9":
        return True
    return char.isalpha() and "LATIN" in unicodedata.name(char, "")


class _Writer:
    """The tool's state: text written so far, the pending (not yet wrapped) buffer, and the paragraph flags."""

    def __init__(self, width: int, chinese: bool) -> None:
        self.width = width
        self.chinese = chinese
        self.out: List[str] = []
        self.out_len = 0
        self.buffer = ""
        self.start = True
        self.nobreak = False  # the last token added had SpaceAfter=No
        self.n_paragraphs = 0

    def emit(self, text: str) -> None:
        self.out.append(text)
        self.out_len += len(text)

    def paragraph_break(self, newdoc: bool, newpar: bool) -> None:
        if not self.start and (newdoc or newpar):
            if self.buffer:
                self.emit(self.buffer + "\n")
                self.buffer = ""
            self.emit("\n")

    def add(self, text: str) -> int:
        """Append text to the pending buffer; returns the position in the output of its first character."""
        position = self.out_len + len(self.buffer)
        self.buffer += text
        self.wrap()
        return position

    def wrap(self) -> None:
        if self.chinese:
            self._wrap_chinese()
            return
        width, buffer = self.width, self.buffer
        while len(buffer) >= width:
            last_space = None
            for i, char in enumerate(buffer):
                if i > width and last_space is not None:
                    break
                if char in PERL_WHITESPACE:
                    last_space = i
            if last_space:  # found, and not at index 0
                self.emit(buffer[:last_space] + "\n")
                buffer = buffer[last_space + 1:]
            elif self.nobreak:
                break  # one long string that the next token continues: wait for it
            else:
                self.emit(buffer + "\n")
                buffer = ""
        self.buffer = buffer

    def _wrap_chinese(self) -> None:
        width, buffer = self.width, self.buffer
        while len(buffer) >= width:
            cut = 0
            for i, char in enumerate(buffer):
                if i > width and cut > 0:
                    break
                if not (i < len(buffer) - 1 and _is_latin_or_digit(char) and _is_latin_or_digit(buffer[i + 1])):
                    cut = i + 1
            self.emit(buffer[:cut] + "\n")
            buffer = buffer[cut:]
        self.buffer = buffer


def _hand_over(writer: _Writer, document: RawDocument, newdoc: bool, newpar: bool, pending: str,
               end_in_pending: int, start: Optional[int], end: Optional[int]) -> Tuple[Optional[int], Optional[int]]:
    """End the paragraph before `pending` where one ends (`_Writer.paragraph_break`), then hand the sentence's
    pending text to the writer; RETURNS the sentence's span (start, end) in the whole output so far."""
    writer.paragraph_break(newdoc, newpar)
    if document.start < 0:
        document.start = writer.out_len + len(writer.buffer)
    if pending:
        position = writer.add(pending)
        start = position if start is None else start
        end = position + end_in_pending
    return start, end


def conllu_to_text(
    source: Union[str, os.PathLike, IO[bytes], Iterable[Sentence]],
    *,
    language: str = "en",
    width: int = WIDTH,
) -> RawText:
    """The raw text of a CoNLL-U file as UD's ``conllu_to_text.pl`` writes it, with documents and sentence spans.

    source: a CoNLL-U path, an open binary stream, or sentences already read (``vineparse.corpus.conllu``,
        whose ``comments`` keep ``# newdoc`` / ``# newpar``). A path is read with ``require_heads=False`` (raw
        or parsed files alike).
    language (str): the tool's ``--language``; zh, ja, lzh, yue (or ``zh_...``) wrap as Chinese.
    width (int): the line width (the tool's 80).
    RETURNS (RawText): the text and its documents (see the module docstring for the conventions).
    RAISES (CorpusError): for a malformed file, naming the file and line.
    """
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        sentences: Iterable[Sentence] = iter_conllu(source, require_heads=False)
    else:
        sentences = source
    writer = _Writer(width, language.split("_")[0] in _CHINESE)
    documents: List[RawDocument] = []
    for index, sentence in enumerate(sentences):
        newdoc = has_comment(sentence, "newdoc")
        newpar = has_comment(sentence, "newpar")
        if newdoc or not documents:
            documents.append(RawDocument(_doc_id(sentence) if newdoc else None, start=-1))
        document = documents[-1]
        pending = ""  # the sentence's text not yet handed to the writer (the tool's $ftext)
        end_in_pending = 0  # where the last token's FORM ends in pending
        start = end = None  # the sentence's span in the whole output
        for form, misc, _ in sentence.surface_tokens():
            flags = misc.split("|")
            if "NewPar=Yes" in flags:  # a paragraph starts inside the sentence, at this token
                start, end = _hand_over(writer, document, newdoc, newpar, pending, end_in_pending, start, end)
                writer.emit(writer.buffer + "\n\n")
                writer.buffer = ""
                writer.start = False
                newdoc = newpar = False
                pending = ""
            pending += form
            end_in_pending = len(pending)
            writer.nobreak = "SpaceAfter=No" in flags
            if not writer.nobreak:
                pending += " "
        start, end = _hand_over(writer, document, newdoc, newpar, pending, end_in_pending, start, end)
        writer.start = False
        document.spans.append((start, end))
        document.sentences.append(index)
        document.sent_ids.append(sentence.sent_id)
    if writer.buffer:
        writer.emit(writer.buffer + "\n")
    text = "".join(writer.out)
    for k, document in enumerate(documents):
        stop = documents[k + 1].start if k + 1 < len(documents) else len(text)
        piece = text[document.start:stop]
        while piece.endswith("\n\n"):
            piece = piece[:-1]
        document.text = piece
        document.spans = [(a - document.start, b - document.start) for a, b in document.spans]
        document.n_paragraphs = _count_blocks(piece)
    return RawText(text, documents)
