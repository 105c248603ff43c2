"""Read and write CoNLL-U (https://universaldependencies.org/format.html).

A sentence is a block of lines ended by a blank line: ``# ...`` comment lines first, then one line of ten
tab-separated columns ``ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC`` per word. Syntactic words have
integer IDs 1..n in order. Multiword-token range lines (``3-4``) and empty nodes (``8.1``) take no part in
the basic tree: they are kept verbatim, at their place, and written back as they were, as are DEPS and
MISC. Reading a file and writing it again reproduces it byte for byte (for ``\\n`` line endings and a
blank line after the last sentence); after changing ``heads`` or ``labels`` the new values are written.

Errors name the file and line (``CorpusError``). Several roots are legal in CoNLL-U; a sentence with no
word attached to the root, a cycle, a head out of range, or an empty HEAD ``_`` is not; nor is an empty
column (``_`` stands for no value) or a line that is not valid UTF-8. Lines end at ``\n`` only (a ``\r``
before it is dropped; other characters Unicode counts as line breaks stay in their field), so every line
number is the one an editor shows.
"""
import logging
import os
import warnings
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..trees import TreeError, validate_heads
from .errors import CorpusError

__all__ = [
    "Sentence",
    "Corpus",
    "read_conllu",
    "iter_conllu",
    "parse_conllu",
    "write_conllu",
    "format_sentence",
]

logger = logging.getLogger(__name__)

N_COLUMNS = 10
COLUMN_NAMES = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
PathLike = Union[str, os.PathLike]


@dataclass(eq=False)
class Sentence:
    """One sentence: n syntactic words and their basic dependency tree.

    Per-word fields have length n; word i (1-based, as in the file) is at index i - 1.

    words (List[str]): FORM.
    lemmas (List[str]): LEMMA.
    upos (np.ndarray): UPOS, dtype object, shape (n,).
    xpos (np.ndarray): XPOS, dtype object, shape (n,).
    feats (List[str]): FEATS, verbatim (``"Number=Sing|Person=3"`` or ``"_"``).
    heads (np.ndarray): HEAD, int64, shape (n + 1,); heads[0] == -1, heads[i] in 0..n (0 = root).
        A sentence built without heads gets -1 everywhere ("not parsed"), written as ``_``.
    labels (np.ndarray): DEPREL, dtype object, shape (n,).
    comments (List[str]): the ``# ...`` lines before the words, verbatim (without line ending).
    deps (List[str]): DEPS (enhanced graph), verbatim. Not updated when ``heads`` change; ``set_tree``
        replaces the basic tree and clears the enhanced graph.
    misc (List[str]): MISC, verbatim.

    Fields left as None are filled with ``"_"``. Lines that are not syntactic words (multiword-token
    ranges, empty nodes) are kept in a private record and written back in place.
    """

    words: List[str]
    lemmas: Optional[List[str]] = None
    upos: Optional[np.ndarray] = None
    xpos: Optional[np.ndarray] = None
    feats: Optional[List[str]] = None
    heads: Optional[np.ndarray] = None
    labels: Optional[np.ndarray] = None
    comments: List[str] = field(default_factory=list)
    deps: Optional[List[str]] = None
    misc: Optional[List[str]] = None
    # (number of words before the line, the line verbatim) for range lines and empty nodes.
    _extra: List[Tuple[int, str]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.words = list(self.words)
        n = len(self.words)
        self.lemmas = _string_list(self.lemmas, n, "lemmas")
        self.feats = _string_list(self.feats, n, "feats")
        self.deps = _string_list(self.deps, n, "deps")
        self.misc = _string_list(self.misc, n, "misc")
        self.upos = _object_array(self.upos, n, "upos")
        self.xpos = _object_array(self.xpos, n, "xpos")
        self.labels = _object_array(self.labels, n, "labels")
        if self.heads is None:
            self.heads = np.full(n + 1, -1, dtype=np.int64)
        else:
            self.heads = np.asarray(self.heads, dtype=np.int64)
            if self.heads.shape != (n + 1,):
                raise ValueError(f"heads must have shape ({n + 1},) for {n} words, got {self.heads.shape}")
            if self.heads[0] != -1:
                raise ValueError(f"heads[0] must be -1 (the artificial root), got {self.heads[0]}")
        self.comments = list(self.comments)

    @property
    def n(self) -> int:
        """The number of syntactic words."""
        return len(self.words)

    @property
    def sent_id(self) -> Optional[str]:
        """The value of the ``# sent_id = ...`` comment, or None."""
        return self._comment_value("sent_id")

    @property
    def text(self) -> str:
        """The ``# text = ...`` comment; without one, the text rebuilt from the tokens and ``SpaceAfter=No``."""
        text = self._comment_value("text")
        return text if text is not None else self._rebuild_text()

    def set_tree(self, heads: np.ndarray, labels: Sequence[str]) -> None:
        """Replace the basic tree (HEAD, DEPREL), e.g. with a parser's, and clear the enhanced graph.

        The enhanced graph (DEPS and the empty nodes, which only it uses) was annotated over the old tree and
        would contradict the new one, so DEPS become ``_`` and empty-node lines are dropped; multiword-token
        lines stay (they are tokenization).
        heads (np.ndarray): int, shape (n + 1,), a tree (``trees.validate_heads``).
        labels (Sequence[str]): n labels.
        RAISES (ValueError): for a head array that is not a tree of n words, or n labels missing.
        """
        heads = np.asarray(heads, dtype=np.int64)
        if heads.shape != (self.n + 1,):
            raise ValueError(f"heads must have shape ({self.n + 1},) for {self.n} words, got {heads.shape}")
        validate_heads(heads)
        self.labels = _object_array(labels, self.n, "labels")
        self.heads = heads.copy()
        self.deps = ["_"] * self.n
        self._extra = [(k, line) for k, line in self._extra if "." not in line.split("\t", 1)[0]]

    def copy(self) -> "Sentence":
        """A deep copy (arrays and lists are copied; the private record of extra lines too)."""
        copied = Sentence(
            words=list(self.words),
            lemmas=list(self.lemmas),
            upos=self.upos.copy(),
            xpos=self.xpos.copy(),
            feats=list(self.feats),
            heads=self.heads.copy(),
            labels=self.labels.copy(),
            comments=list(self.comments),
            deps=list(self.deps),
            misc=list(self.misc),
        )
        copied._extra = list(self._extra)
        return copied

    def _comment_value(self, key: str) -> Optional[str]:
        for comment in self.comments:
            name, sep, value = comment[1:].partition("=")
            if sep and name.strip() == key:
                return value.strip()
        return None

    def multiword_tokens(self) -> Dict[int, Tuple[int, str, str]]:
        """The multiword tokens (range lines, ``3-4``): first word (1-based) -> (last word, FORM, MISC)."""
        found = {}
        for _, line in self._extra:
            cols = line.split("\t")
            if "-" in cols[0]:
                first, last = (int(part) for part in cols[0].split("-"))
                found[first] = (last, cols[1], cols[9] if len(cols) > 9 else "_")
        return found

    def surface_tokens(self) -> List[Tuple[str, str, int]]:
        """(FORM, MISC, number of words) of each surface token in order: a multiword token's range line in place
        of its words."""
        ranges = self.multiword_tokens()
        tokens: List[Tuple[str, str, int]] = []
        i = 1
        while i <= self.n:
            last, form, misc = ranges.get(i, (i, self.words[i - 1], self.misc[i - 1]))
            tokens.append((form, misc, max(last, i) - i + 1))
            i = max(last, i) + 1
        return tokens

    def _rebuild_text(self) -> str:
        return "".join(form if "SpaceAfter=No" in misc.split("|") else form + " "
                       for form, misc, _ in self.surface_tokens()).rstrip(" ")


def _string_list(values: Optional[Sequence[str]], n: int, name: str) -> List[str]:
    if values is None:
        return ["_"] * n
    values = list(values)
    if len(values) != n:
        raise ValueError(f"{name} must have one entry per word ({n}), got {len(values)}")
    return values


def _object_array(values, n: int, name: str) -> np.ndarray:
    if values is None:
        return np.full(n, "_", dtype=object)
    array = np.empty(n, dtype=object)
    values = list(values)
    if len(values) != n:
        raise ValueError(f"{name} must have one entry per word ({n}), got {len(values)}")
    array[:] = values
    return array


class Corpus(list):
    """The sentences (or trees) of one file, plus where they came from and what was skipped.

    path (Optional[Path]): the file read, or None.
    skipped (List[CorpusError]): one error per sentence skipped in lenient mode (empty otherwise).
    """

    def __init__(self, sentences: Iterable = (), path: Optional[PathLike] = None, skipped=None) -> None:
        super().__init__(sentences)
        self.path = None if path is None else Path(path)
        self.skipped: List[CorpusError] = [] if skipped is None else list(skipped)

    def __repr__(self) -> str:
        return f"Corpus({len(self)} sentences, path={self.path!r}, skipped={len(self.skipped)})"


# ---------------------------------------------------------------------------------------------------------
# Reading


def file_lines(file: IO[bytes]) -> Iterator[str]:
    """The lines of a binary file, split at ``\n`` only and decoded as UTF-8; a leading BOM is dropped.

    Bytes that are not UTF-8 are kept as surrogate escapes (``errors="surrogateescape"``), so that the
    sentence holding them is reported with its line (``check_text``) rather than failing the whole read.
    """
    first = True
    for raw in file:
        line = raw.decode("utf-8", "surrogateescape")
        if first:
            first = False
            if line.startswith("\ufeff"):
                line = line[1:]
        yield line


def check_text(source: str, number: int, line: str) -> None:
    """RAISES (CorpusError): if ``line`` (line ``number`` of ``source``) holds bytes that were not UTF-8."""
    if line.isascii():
        return
    try:
        line.encode("utf-8")
    except UnicodeEncodeError as error:
        char = ord(line[error.start])
        what = (f"byte 0x{char - 0xDC00:02x}" if 0xDC80 <= char <= 0xDCFF else f"character U+{char:04X}")
        raise CorpusError(source, number, f"invalid UTF-8: {what} at column {error.start + 1}") from None


def report_skipped(skipped: List[CorpusError], total: int, source: str, what: str = "sentences") -> None:
    """Warn once (``warnings.warn`` and the ``vineparse`` logger) that lenient reading skipped items."""
    if skipped:
        message = f"skipped {len(skipped)} of {total} {what} in {source} (first: {skipped[0]})"
        logger.warning(message)
        warnings.warn(message, stacklevel=4)


def _blocks(lines: Iterable[str]) -> Iterator[Tuple[int, List[str]]]:
    """Group lines into sentences: yields (line number of the first line, lines without line endings).

    Lines holding only whitespace count as blank, so runs of blank lines and a missing final blank line
    are both fine.
    """
    block: List[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if not line or line.isspace():
            if block:
                yield start, block
                block = []
            continue
        if not block:
            start = number
        block.append(line)
    if block:
        yield start, block


def _is_uint(text: str) -> bool:
    """Whether text is a non-negative integer in ASCII digits (``int`` alone would accept "+3", "٣", "1_0")."""
    return text.isdigit() and text.isascii()


def _parse_block(source: str, start: int, lines: List[str], require_heads: bool = True) -> Sentence:
    """Parse one sentence block whose first line is line ``start`` of ``source``.

    With ``require_heads=False`` a sentence whose HEAD column is ``_`` on every word is read as
    not parsed (heads of -1), as input to a parser.
    """
    comments: List[str] = []
    extra: List[Tuple[int, str]] = []
    columns: List[List[str]] = []
    numbers: List[int] = []  # line number of each word
    heads = [-1]
    for number, line in enumerate(lines, start):
        if line[0] == "#":
            if columns or extra:
                raise CorpusError(source, number, "comment line after the first word of a sentence")
            comments.append(line)
            continue
        cols = line.split("\t")
        if len(cols) != N_COLUMNS:
            raise CorpusError(source, number, f"expected {N_COLUMNS} tab-separated columns, found {len(cols)}")
        if "" in cols:
            raise CorpusError(source, number, f"empty {COLUMN_NAMES[cols.index('')]} column (write _ for no value)")
        word_id = cols[0]
        if not _is_uint(word_id):
            for separator in "-.":
                parts = word_id.split(separator)
                if len(parts) == 2 and _is_uint(parts[0]) and _is_uint(parts[1]):
                    extra.append((len(columns), line))
                    break
            else:
                raise CorpusError(source, number, f"invalid ID '{word_id}'")
            continue
        expected = len(columns) + 1
        if int(word_id) != expected:
            raise CorpusError(source, number, f"expected word ID {expected}, found {word_id}")
        head = cols[6]
        if head == "_" and not require_heads:
            head = "-1"
        elif head == "_":
            raise CorpusError(source, number, f"empty HEAD '_' on word {word_id}")
        if not (_is_uint(head) or (head[:1] == "-" and _is_uint(head[1:]))):
            raise CorpusError(source, number, f"invalid HEAD '{head}' on word {word_id}: not an integer")
        heads.append(int(head))
        columns.append(cols)
        numbers.append(number)
    if not columns:
        raise CorpusError(source, start, "sentence has no words (only comments or non-word lines)")
    check_head_range(source, numbers, heads)
    unparsed = [i for i, h in enumerate(heads[1:]) if h == -1 and columns[i][6] == "_"]
    if len(unparsed) == len(columns):
        pass
    elif unparsed:
        raise CorpusError(source, numbers[unparsed[0]], f"empty HEAD '_' on word {unparsed[0] + 1} "
                          "while other words have heads")
    else:
        try:
            validate_heads(heads)
        except TreeError as error:
            raise CorpusError(source, numbers[error.word - 1], error.reason) from None
    _, words, lemmas, upos, xpos, feats, _, labels, deps, misc = zip(*columns)
    sentence = Sentence(
        words=words,
        lemmas=lemmas,
        upos=upos,
        xpos=xpos,
        feats=feats,
        heads=np.array(heads, dtype=np.int64),
        labels=labels,
        comments=comments,
        deps=deps,
        misc=misc,
    )
    sentence._extra = extra
    return sentence


def check_head_range(source: str, numbers: Sequence[int], heads: Sequence[int]) -> None:
    """RAISES (CorpusError): for a head outside -1..n (before it reaches a fixed-width integer array);
    numbers[i] is the line of word i + 1."""
    n = len(heads) - 1
    for word, head in enumerate(heads[1:], 1):
        if not -1 <= head <= n:
            raise CorpusError(source, numbers[word - 1], f"head {head} of word {word} is out of range 0..{n}")


def _sentences(
    lines: Iterable[str],
    source: str,
    lenient: bool,
    skipped: List[CorpusError],
    parse_block: Callable[[str, int, List[str]], Sentence] = _parse_block,
) -> Iterator[Sentence]:
    """Yield the sentences of ``lines``, one per block of non-blank lines, parsed by ``parse_block``.

    In lenient mode a block that raises CorpusError (or holds bytes that are not UTF-8) is appended to
    ``skipped`` and reading goes on; at the end one warning reports how many were skipped. Shared by every
    line-based reader.
    """
    total = 0
    for start, block in _blocks(lines):
        total += 1
        try:
            for number, line in enumerate(block, start):
                check_text(source, number, line)
            sentence = parse_block(source, start, block)
        except CorpusError as error:
            if not lenient:
                raise
            skipped.append(error)
            continue
        yield sentence
    report_skipped(skipped, total, source)


def iter_conllu(path: Union[PathLike, IO[bytes]], *, lenient: bool = False, require_heads: bool = True,
                source: Optional[str] = None) -> Iterator[Sentence]:
    """Stream the sentences of a CoNLL-U file, holding one sentence in memory at a time.

    path (str | PathLike | IO[bytes]): a UTF-8 file, or an open binary stream (e.g. ``sys.stdin.buffer``);
        ``\\r\\n`` line endings and a leading BOM are accepted.
    lenient (bool): skip malformed sentences instead of raising; when the file is exhausted one warning
        (``warnings.warn`` and the ``vineparse`` logger) reports "skipped K of N sentences in FILE".
    require_heads (bool): False accepts sentences whose HEAD column is ``_`` throughout (parser input);
        their heads are -1.
    source (Optional[str]): the name in error messages (default: the path, or ``"<stream>"``).
    YIELDS (Sentence): in file order.
    RAISES (CorpusError): on the first malformed sentence, unless lenient.
    """
    parse = partial(_parse_block, require_heads=require_heads)
    if hasattr(path, "read"):
        yield from _sentences(file_lines(path), source or "<stream>", lenient, [], parse)
        return
    with open(path, "rb") as file:
        yield from _sentences(file_lines(file), source or str(path), lenient, [], parse)


def read_conllu(path: PathLike, *, lenient: bool = False, require_heads: bool = True) -> Corpus:
    """Read a CoNLL-U file.

    path (str | PathLike): a UTF-8 file; ``\\r\\n`` line endings and a leading BOM are accepted.
    lenient (bool): skip malformed sentences, record them in ``Corpus.skipped`` and warn once (see
        ``iter_conllu``), instead of raising.
    require_heads (bool): as for ``iter_conllu``.
    RETURNS (Corpus): the sentences, with ``.path`` and ``.skipped``.
    RAISES (CorpusError): ``"FILE:LINE: reason"`` on the first malformed sentence, unless lenient.
    """
    skipped: List[CorpusError] = []
    with open(path, "rb") as file:
        parse = partial(_parse_block, require_heads=require_heads)
        sentences = list(_sentences(file_lines(file), str(path), lenient, skipped, parse))
    return Corpus(sentences, path=path, skipped=skipped)


def parse_conllu(text: str, *, source: str = "<string>", lenient: bool = False,
                 require_heads: bool = True) -> Corpus:
    """Read CoNLL-U from a string; errors are located as ``"SOURCE:LINE: reason"``.

    text (str): CoNLL-U content.
    source (str): the name used in error messages.
    lenient, require_heads (bool): as for ``read_conllu``.
    RETURNS (Corpus): with ``path`` None.
    """
    skipped: List[CorpusError] = []
    parse = partial(_parse_block, require_heads=require_heads)
    sentences = list(_sentences(text.split("\n"), source, lenient, skipped, parse))
    return Corpus(sentences, skipped=skipped)


# ---------------------------------------------------------------------------------------------------------
# Writing


def format_sentence(sentence: Sentence) -> str:
    """One sentence as CoNLL-U: its comments, its lines, and the blank line that ends it.

    sentence (Sentence): heads of -1 (not parsed) are written as ``_``.
    RETURNS (str): every line ends with ``"\\n"``, and the block ends with ``"\\n\\n"``, so that
        ``"".join(format_sentence(s) for s in sentences)`` is a complete file.
    """
    n = sentence.n
    heads = sentence.heads
    if len(heads) != n + 1:
        raise ValueError(f"heads must have length {n + 1} for {n} words, got {len(heads)}")
    fields = (sentence.lemmas, sentence.upos, sentence.xpos, sentence.feats, sentence.labels)
    for name, values in zip(("lemmas", "upos", "xpos", "feats", "labels"), fields):
        if len(values) != n:
            raise ValueError(f"{name} must have one entry per word ({n}), got {len(values)}")
    lines = list(sentence.comments)
    extra = sentence._extra
    k = 0
    for i in range(n):
        while k < len(extra) and extra[k][0] <= i:
            lines.append(extra[k][1])
            k += 1
        head = int(heads[i + 1])
        lines.append(
            "\t".join(
                (
                    str(i + 1),
                    sentence.words[i],
                    sentence.lemmas[i],
                    sentence.upos[i],
                    sentence.xpos[i],
                    sentence.feats[i],
                    "_" if head < 0 else str(head),
                    sentence.labels[i],
                    sentence.deps[i],
                    sentence.misc[i],
                )
            )
        )
    lines.extend(line for _, line in extra[k:])
    return "\n".join(lines) + "\n\n"


def write_conllu(sentences: Iterable[Sentence], path_or_file: Union[PathLike, IO[str]]) -> None:
    """Write sentences as CoNLL-U (UTF-8, ``\\n`` line endings, a blank line after every sentence).

    sentences (Iterable[Sentence]): what to write.
    path_or_file (str | PathLike | IO[str]): a path to create or overwrite, or an open text file.
    """
    if hasattr(path_or_file, "write"):
        for sentence in sentences:
            path_or_file.write(format_sentence(sentence))
        return
    with open(path_or_file, "w", encoding="utf-8", newline="\n") as file:
        for sentence in sentences:
            file.write(format_sentence(sentence))
