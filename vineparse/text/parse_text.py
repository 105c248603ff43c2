"""Raw text of any size in, CoNLL-U out, through a spaCy pipeline, in bounded memory.

The input is read as a stream and cut into pieces, a paragraph each (text between empty lines) where it has at
most ``max_chars`` characters; each piece is run through ``nlp.pipe`` as one doc and written
(``conllu_writer``) as the next part of one document: the whole input is one document (``# newdoc`` once), its
paragraphs are ``# newpar``. UD's ``.txt`` files write documents and paragraphs alike as blocks separated by an
empty line, so they cannot be told apart here. A doc per paragraph parses EWT dev as accurately as pieces of
many paragraphs, and faster, with each pipeline measured (docs/experiments.md, Raw text).

Where a piece ends, in order of preference: after the first empty line (a paragraph break; the empty lines and
whitespace after it are in the piece) if it is within the first ``max_chars`` characters; else, within them,
after the last line break, after the last whitespace, or (a run of ``max_chars`` characters without
whitespace) in the middle of the run: a hard cut, counted, which splits a token in two. Only the first kind
never separates words the pipeline would have seen together. The pieces, concatenated, are the input: every
character is in exactly one doc, so in exactly one token's text or whitespace.

Limits, checked before any text is read: 1 <= ``max_chars`` <= ``nlp.max_length`` (default 20,000 or
``nlp.max_length`` if smaller); 1 <= ``batch_size`` <= 10,000 pieces. Memory: O(``batch_size`` x
``max_chars``) characters of text and their docs, whatever the input size. Input must be UTF-8 (a leading BOM
is dropped; ``\\r\\n`` is kept as it is, whitespace to the pipeline); invalid bytes stop the run with an error
naming the file and line.
"""
import codecs
import re
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Callable, Iterator, Optional, Tuple, Union

from ..corpus.errors import CorpusError
from .conllu_writer import ConlluWriter, MultiwordRanges, WriteStats

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_MAX_CHARS", "MAX_BATCH_SIZE", "TextPiece", "iter_pieces", "parse_text",
           "ParseTextSummary"]

DEFAULT_MAX_CHARS = 20_000
DEFAULT_BATCH_SIZE = 64
MAX_BATCH_SIZE = 10_000
READ_BYTES = 1 << 16
_PARAGRAPH_END = re.compile(r"\n[^\S\n]*\n\s*")
_LAST_BREAK = re.compile(r"\n[^\n]*\Z")
_LAST_SPACE = re.compile(r"\s\S*\Z")


@dataclass
class TextPiece:
    """One piece of the input: its text, and where it starts (0-based character offset, 1-based line)."""

    text: str
    offset: int
    line: int
    hard_cut: bool = False  # it ends in the middle of a run without whitespace


def _cut(buffer: str, start: int, end: int, last: bool) -> Tuple[int, bool]:
    """Where the piece of ``buffer`` from ``start`` ends, ``end`` at most (``last``: the input ends at ``end``):
    (its end, whether it is a hard cut). Searches ``buffer[start:end]`` in place: O(end - start)."""
    match = _PARAGRAPH_END.search(buffer, start, end)
    if match is not None and (match.end() < end or not last):
        return match.end(), False
    if last:
        return end, False
    for pattern in (_LAST_BREAK, _LAST_SPACE):
        match = pattern.search(buffer, start, end)
        if match is not None:
            return match.start() + 1, False
    return end, True


def iter_pieces(file: IO[bytes], max_chars: int, source: str = "<stream>") -> Iterator[TextPiece]:
    """Cut a UTF-8 byte stream into pieces of at most ``max_chars`` characters (see the module docstring).
    Time O(input), memory O(``max_chars``) characters.

    RAISES (CorpusError): for bytes that are not UTF-8, naming ``source`` and the line.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    buffer, start = "", 0           # the text read and not yet yielded is buffer[start:]
    offset, line = 0, 1
    first = True
    eof = False
    while True:
        if not eof and len(buffer) - start <= max_chars:
            buffer, start = buffer[start:], 0
        while not eof and len(buffer) <= max_chars:
            data = file.read(READ_BYTES)
            eof = not data
            try:
                chunk = decoder.decode(data, final=eof)
            except UnicodeDecodeError as error:
                bad = error.object  # the bytes being decoded (what the decoder held back, then data)
                good = bad[:error.start].decode("utf-8", "ignore")
                at = line + buffer.count("\n") + good.count("\n")
                raise CorpusError(source, at, f"invalid UTF-8: byte 0x{bad[error.start]:02x}") from None
            if first and chunk:
                first = False
                if chunk.startswith("\ufeff"):
                    chunk = chunk[1:]
            buffer += chunk
        if start == len(buffer):
            return
        end = min(len(buffer), start + max_chars)
        stop, hard = _cut(buffer, start, end, eof and end == len(buffer))
        text = buffer[start:stop]
        yield TextPiece(text, offset, line, hard)
        start = stop
        offset += len(text)
        line += text.count("\n")


@dataclass
class ParseTextSummary:
    """What a run did: characters, lines and pieces read, hard cuts, what the writer wrote and changed
    (``WriteStats``), seconds, and words per second."""

    characters: int = 0
    lines: int = 0
    pieces: int = 0
    hard_cuts: int = 0
    written: WriteStats = field(default_factory=WriteStats)
    seconds: float = 0.0

    @property
    def words_per_second(self) -> float:
        return self.written.words / self.seconds if self.seconds > 0 else 0.0

    def format(self) -> str:
        """One line for people."""
        note = f", {self.hard_cuts:,} hard cuts (a token split)" if self.hard_cuts else ""
        return (f"{self.characters:,} characters in {self.pieces:,} pieces{note}: {self.written.format() or 'nothing'}"
                f" in {self.seconds:.1f}s ({self.words_per_second:,.0f} words/s)")


def check_limits(nlp, max_chars: Optional[int], batch_size: int) -> int:
    """The piece size to use; RAISES (ValueError) for a size or batch outside the limits of the module docstring."""
    limit = int(getattr(nlp, "max_length", DEFAULT_MAX_CHARS))
    if max_chars is None:
        max_chars = min(DEFAULT_MAX_CHARS, limit)
    if not 1 <= int(max_chars) <= limit:
        raise ValueError(f"max_chars must be in 1..{limit:,} (the pipeline's nlp.max_length), got {max_chars}")
    if not 1 <= int(batch_size) <= MAX_BATCH_SIZE:
        raise ValueError(f"batch_size must be in 1..{MAX_BATCH_SIZE:,}, got {batch_size}")
    return int(max_chars)


def parse_text(nlp, source: Union[IO[bytes], str, bytes], out: IO[str], *, max_chars: Optional[int] = None,
               batch_size: int = DEFAULT_BATCH_SIZE, multiword: Optional[MultiwordRanges] = None, contractions=None,
               doc_id: Optional[str] = None, name: str = "<stream>",
               progress: Union[bool, Callable[[str], None]] = False,
               progress_every: int = 1_000_000) -> ParseTextSummary:
    """Parse raw text with ``nlp`` and write CoNLL-U to ``out``, one document (see the module docstring).

    source: a binary stream (e.g. ``open(path, "rb")``, ``sys.stdin.buffer``), or the text itself.
    max_chars, batch_size: the piece size and the pieces per ``nlp.pipe`` batch (limits in the module docstring).
    multiword, contractions: how multiword tokens are written (``conllu_writer``;
    ``contractions.pipeline_multiword(nlp)`` gives a pipeline's); doc_id: the ``# newdoc id``.
    name: the input's name in error messages. progress: a line on stderr (or to this callable) every
    ``progress_every`` characters, and at the end if one was written.
    RETURNS (ParseTextSummary). RAISES (CorpusError): invalid UTF-8; (ValueError): limits.
    """
    import io

    max_chars = check_limits(nlp, max_chars, batch_size)
    if isinstance(source, str):
        source = source.encode("utf-8")
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    write_line = (lambda line: print(line, file=sys.stderr, flush=True)) if progress is True else progress
    summary = ParseTextSummary()
    writer = ConlluWriter(out, multiword=multiword, contractions=contractions)
    summary.written = writer.stats
    start = time.perf_counter()
    next_report = progress_every

    def pieces() -> Iterator[Tuple[str, TextPiece]]:
        for piece in iter_pieces(source, max_chars, name):
            summary.pieces += 1
            summary.hard_cuts += piece.hard_cut
            yield piece.text, piece

    first = True
    for doc, piece in nlp.pipe(pieces(), batch_size=batch_size, as_tuples=True):
        writer.write(doc, doc_id, continues=not first)
        first = False
        summary.characters += len(piece.text)
        summary.lines += piece.text.count("\n")
        if write_line and summary.characters >= next_report:
            next_report = summary.characters + progress_every
            summary.seconds = time.perf_counter() - start
            write_line(f"parse-text: {name}: line {piece.line + piece.text.count(chr(10)):,}, "
                       + summary.format())
    summary.seconds = time.perf_counter() - start
    if write_line and next_report > progress_every:
        write_line(f"parse-text: {name}: done, " + summary.format())
    return summary
