"""Fuzzing the corpus readers with corrupted real files (issue 15).

Each example takes a window of consecutive sentences (or trees) of a real treebank in ../shared/corpora,
corrupts some of them at random (truncated lines, dropped / duplicated columns, bad IDs and heads,
invalid UTF-8, stray carriage returns, NUL bytes, multiword tokens and empty nodes, merged sentences) and
the whole file (CRLF line endings, a BOM, no final blank line), writes it, and reads it back:

- strict reading either succeeds or raises ``CorpusError`` whose message starts with ``FILE:LINE:``,
  the line lying inside a corrupted sentence; nothing else is ever raised;
- lenient reading never raises; every sentence not corrupted is read, and the sentences read plus those
  reported as skipped (one warning giving the count) account for every sentence of the file;
- whatever is read writes back as CoNLL-U that reads again to the same words, tags and heads.
"""
import os
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from vineparse.corpus import CorpusError, corpus_path, read_conllu, read_dependency_file, read_mrg
from vineparse.corpus.conllu import format_sentence, parse_conllu
from vineparse.corpus.ptb import parse_brackets

EXAMPLES = 40 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 300
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                              HealthCheck.too_slow])
WINDOW = 8                   # sentences per example


def _blocks(path):
    """The sentence blocks of a real line-based file, as lists of byte lines (no line endings)."""
    blocks, block = [], []
    for line in Path(path).read_bytes().split(b"\n"):
        if line.strip():
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    if block:
        blocks.append(block)
    return blocks


SOURCES = {
    "ewt-dev": ("conllu", ("ud-english-ewt", "en_ewt-ud-dev.conllu")),
    "pud-en": ("conllu", ("ud-pud", "en_pud-ud-test.conllu")),
    "pud-zh": ("conllu", ("ud-pud", "zh_pud-ud-test.conllu")),
    "ptb-dp": ("dependency", ("ptb-sample", "dependency", "wsj_0003.dp")),
}
_CACHE = {}


def real_blocks(name):
    if name not in _CACHE:
        _CACHE[name] = _blocks(corpus_path(*SOURCES[name][1]))
    return _CACHE[name]


BAD_VALUES = [b"", b"x", b"0", b"-1", b"-7", b"1.5", b"3-", b"2-1", b"1.0.1", b"99", b"99999999999999999999999",
              b"\xd9\xa3", b"+2", b" 1", b"1 ", b"_"]
BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x00", b"\r", b"\xc2\x85", b"\x0b"]


@st.composite
def corruption(draw, n_columns):
    """One operation on a block of lines (applied by ``corrupt``)."""
    kind = draw(st.sampled_from(["truncate", "drop_column", "duplicate_column", "bad_id", "bad_head",
                                 "bad_bytes", "delete_line", "duplicate_line", "swap_lines", "multiword",
                                 "empty_node", "tabs_to_spaces", "comment_inside", "only_comments"]))
    return (kind, draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6)),
            draw(st.sampled_from(BAD_VALUES)), draw(st.sampled_from(BAD_BYTES)))


def corrupt(block, op, n_columns, id_column):
    """Apply one operation to a block (a list of byte lines). RETURNS the new block."""
    kind, a, b, value, junk = op
    lines = list(block)
    words = [k for k, line in enumerate(lines) if not line.startswith(b"#")]
    k = words[a % len(words)] if words else a % len(lines)
    cols = lines[k].split(b"\t")
    c = b % max(len(cols), 1)
    if kind == "truncate":
        lines[k] = lines[k][: b % (len(lines[k]) + 1)]
    elif kind == "drop_column":
        lines[k] = b"\t".join(cols[:c] + cols[c + 1:])
    elif kind == "duplicate_column":
        lines[k] = b"\t".join(cols[:c + 1] + cols[c:])
    elif kind == "bad_id" and id_column is not None and len(cols) == n_columns:
        cols[id_column] = value
        lines[k] = b"\t".join(cols)
    elif kind == "bad_head" and len(cols) == n_columns:
        cols[n_columns - 1 if id_column is None else 6] = value if b % 3 else str(len(words) + 1 + b % 5).encode()
        lines[k] = b"\t".join(cols)
    elif kind == "bad_bytes":
        where = b % (len(lines[k]) + 1)
        lines[k] = lines[k][:where] + junk + lines[k][where:]
    elif kind == "delete_line" and len(lines) > 1:
        del lines[k]
    elif kind == "duplicate_line":
        lines.insert(k, lines[k])
    elif kind == "swap_lines" and len(words) > 1:
        j = words[b % len(words)]
        lines[k], lines[j] = lines[j], lines[k]
    elif kind == "multiword" and id_column is not None:
        i = k - (len(lines) - len(words))
        span = (b"%d-%d" % (i + 1, i + 2)) if b % 4 else value + b"-" + value
        lines.insert(k, b"\t".join([span, b"xy"] + [b"_"] * (n_columns - 2 - (b % 5 == 0))))
    elif kind == "empty_node" and id_column is not None:
        i = k - (len(lines) - len(words))
        node = (b"%d.1" % (i + 1)) if b % 4 else value + b"." + value
        lines.insert(k + 1, b"\t".join([node, b"e"] + [b"_"] * (n_columns - 2 - (b % 5 == 0))))
    elif kind == "tabs_to_spaces":
        lines[k] = lines[k].replace(b"\t", b" ")
    elif kind == "comment_inside":
        lines.insert(k + 1, b"# a comment among the words")
    elif kind == "only_comments":
        lines = [line for line in lines if line.startswith(b"#")] or [b"# nothing"]
    return lines


@st.composite
def corrupted_file(draw, name):
    """(file bytes, line ranges of the corrupted sentences, sentences in the file, clean sentences)."""
    fmt = SOURCES[name][0]
    n_columns, id_column = (10, 0) if fmt == "conllu" else (3, None)
    blocks = real_blocks(name)
    first = draw(st.integers(0, len(blocks) - WINDOW))
    window = [list(block) for block in blocks[first:first + WINDOW]]
    targets = draw(st.lists(st.integers(0, WINDOW - 1), max_size=3, unique=True))
    for t in targets:
        for op in draw(st.lists(corruption(n_columns), min_size=1, max_size=3)):
            window[t] = corrupt(window[t], op, n_columns, id_column)
    merges = draw(st.lists(st.integers(0, WINDOW - 2), max_size=1))
    crlf, bom, trailing = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    ending = b"\r\n" if crlf else b"\n"
    out, bad_ranges, line = [], [], 1
    bad = set(targets) | set(merges) | {m + 1 for m in merges}
    for k, block in enumerate(window):
        start = line
        out.extend(block)
        line += len(block)
        if k in bad:
            bad_ranges.append((start, line))
        if k not in merges and (k < WINDOW - 1 or trailing):
            out.append(b"")
            line += 1
    data = ending.join(out) + (ending if out and (trailing or out[-1] != b"") else b"")
    if bom:
        data = b"\xef\xbb\xbf" + data
    clean = WINDOW - len(bad)
    return data, bad_ranges, clean


def error_line(error, path):
    match = re.match(re.escape(str(path)) + r":(\d+): \S", str(error))
    assert match, f"error does not name the file and line: {error}"
    return int(match.group(1))


def in_bad_range(line, bad_ranges):
    return any(start <= line <= end for start, end in bad_ranges)


def blocks_in(data):
    """Sentence blocks as the readers see them (blank: empty or whitespace after decoding)."""
    count, inside = 0, False
    text = data.decode("utf-8", errors="surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    for line in text.split("\n"):
        line = line.rstrip("\r\n")
        blank = not line or line.isspace()
        if not blank and not inside:
            count += 1
        inside = not blank
    return count


READERS = {"conllu": read_conllu, "dependency": read_dependency_file}


@pytest.mark.parametrize("name", list(SOURCES))
@FUZZ
@given(data=st.data())
def test_line_readers_on_corrupted_files(name, data, tmp_path):
    content, bad_ranges, clean = data.draw(corrupted_file(name))
    path = tmp_path / f"fuzz-{name}.txt"
    path.write_bytes(content)
    read = READERS[SOURCES[name][0]]
    total = blocks_in(content)
    try:
        corpus = read(path)
    except CorpusError as error:
        line = error_line(error, path)
        assert in_bad_range(line, bad_ranges), (str(error), bad_ranges)
        assert error.path == str(path) and error.line == line
    else:
        assert len(corpus) == total
        _round_trip(corpus)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = read(path, lenient=True)
    assert len(corpus) + len(corpus.skipped) == total
    assert len(corpus) >= clean
    for error in corpus.skipped:
        assert isinstance(error, CorpusError) and in_bad_range(error_line(error, path), bad_ranges)
    reports = [w for w in caught if "skipped" in str(w.message)]
    if corpus.skipped:
        assert len(reports) == 1 and f"skipped {len(corpus.skipped)} of {total} sentences in {path}" in str(
            reports[0].message)
    else:
        assert not reports
    _round_trip(corpus)


def _round_trip(corpus):
    """What was read writes back as CoNLL-U that reads again the same."""
    text = "".join(format_sentence(s) for s in corpus)
    again = parse_conllu(text, require_heads=False)
    assert len(again) == len(corpus)
    for a, b in zip(corpus, again):
        assert a.words == b.words and list(a.xpos) == list(b.xpos) and list(a.heads) == list(b.heads)


# -- bracketed trees -------------------------------------------------------------------------------------

MRG = ("ptb-sample", "constituency", "wsj_0003.mrg")


@st.composite
def corrupted_mrg(draw):
    text = Path(corpus_path(*MRG)).read_bytes()
    ops = draw(st.lists(st.tuples(st.sampled_from(["delete", "insert", "bytes", "truncate", "crlf"]),
                                  st.integers(0, len(text)), st.sampled_from([b"(", b")", b"( )", b"word", b"(X",
                                                                               b"\xff", b"\xe2\x82", b"\x00"])),
                        min_size=1, max_size=4))
    for kind, at, junk in ops:
        at %= len(text) + 1
        if kind == "delete":
            brackets = [m.start() for m in re.finditer(rb"[()]", text)]
            if brackets:
                k = brackets[at % len(brackets)]
                text = text[:k] + text[k + 1:]
        elif kind == "insert" or kind == "bytes":
            text = text[:at] + junk + text[at:]
        elif kind == "truncate":
            text = text[:at]
        else:
            text = text.replace(b"\n", b"\r\n")
    return text


@FUZZ
@given(content=corrupted_mrg())
def test_bracket_reader_on_corrupted_files(content, tmp_path):
    path = tmp_path / "fuzz.mrg"
    path.write_bytes(content)
    lines = content.count(b"\n") + 1
    try:
        trees = read_mrg(path)
    except CorpusError as error:
        assert 1 <= error_line(error, path) <= lines
    else:
        for tree in trees:
            assert tree.leaves()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        trees = read_mrg(path, lenient=True)
    for error in trees.skipped:
        assert isinstance(error, CorpusError) and 1 <= error_line(error, path) <= lines


def test_bracket_reader_lenient_keeps_the_other_trees(tmp_path):
    text = Path(corpus_path(*MRG)).read_text(encoding="utf-8")
    clean = parse_brackets(text)
    starts = [m.start() for m in re.finditer(r"^\(", text, flags=re.M)]
    broken = text[:starts[1] + 2] + text[starts[1] + 3:]          # the second tree loses its second bracket
    path = tmp_path / "broken.mrg"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(CorpusError, match=re.escape(str(path)) + r":\d+: "):
        read_mrg(path)
    with pytest.warns(UserWarning, match=f"skipped 1 of {len(clean)} trees in {re.escape(str(path))}"):
        trees = read_mrg(path, lenient=True)
    assert len(trees) == len(clean) - 1 and len(trees.skipped) == 1
    assert [str(t) for t in trees] == [str(t) for k, t in enumerate(clean) if k != 1]


# -- regressions found by the fuzz tests -----------------------------------------------------------------

WORD = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_"


@pytest.mark.parametrize("content,line,message", [
    (b"# a\n" + WORD.encode() + b"\n\n2\xff\n", 4, "invalid UTF-8: byte 0xff at column 2"),      # was UnicodeDecodeError
    (WORD.replace("\t0\t", "\t99999999999999999999999\t").encode() + b"\n", 1,
     "head 99999999999999999999999 of word 1 is out of range 0..1"),                            # was TypeError
    (WORD.replace("Hi", "").encode() + b"\n", 1, "empty FORM column"),
    (b"# a\r\n" + WORD.encode().replace(b"Hi", b"H\ri") + b"\r\n\r\n" + WORD.encode().replace(b"\t0\t", b"\t5\t"),
     4, "head 5 of word 1 is out of range"),               # a lone \r used to split the line: wrong line numbers
])
def test_conllu_regressions(tmp_path, content, line, message):
    path = tmp_path / "bad.conllu"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=f"^{re.escape(str(path))}:{line}: {re.escape(message)}"):
        read_conllu(path)


def test_parse_conllu_splits_lines_at_newline_only():
    """A vertical tab or form feed inside a field used to split the line (str.splitlines)."""
    corpus = parse_conllu(WORD.replace("Hi", "H\x0bi\x0ci") + "\n")
    assert corpus[0].words == ["H\x0bi\x0ci"]


def test_dependency_reader_regressions(tmp_path):
    path = tmp_path / "bad.dp"
    path.write_bytes(b"a\tDT\t2\nb\tNN\t0\n\nc\tNN\t123456789012345678901234\n")
    with pytest.raises(CorpusError, match=f"^{re.escape(str(path))}:4: head 123456789012345678901234 of word 1"):
        read_dependency_file(path)
    path.write_bytes(b"a\tDT\t2\nb\tN\xc3N\t0\n")
    with pytest.raises(CorpusError, match=f"^{re.escape(str(path))}:2: invalid UTF-8: byte 0xc3 at column 4"):
        read_dependency_file(path)


def test_bracket_reader_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "bad.mrg"
    path.write_bytes(b"( (S (NN a)))\n\n( (S (NN \xffb)))\n")
    with pytest.raises(CorpusError, match=f"^{re.escape(str(path))}:3: invalid UTF-8: byte 0xff at column 10"):
        read_mrg(path)
    with pytest.warns(UserWarning, match="skipped 1 of 2 trees"):
        trees = read_mrg(path, lenient=True)
    assert [str(t) for t in trees] == ["(S (NN a))"]
