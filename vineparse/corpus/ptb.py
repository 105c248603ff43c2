"""Penn Treebank bracketed trees (``.mrg`` files): ``( (S (NP-SBJ (NNP Pierre) ...) ...) )``.

A tree is a ``Tree(label, children)``; a leaf is ``Tree(word, [])`` and a preterminal is
``Tree(tag, [leaf])``. The treebank wraps each tree in an outer bracket without a label; the readers
return what is inside it (the single child; several children get the label ``"ROOT"``). A top-level
bracket that has a label (``(TOP ...)``, ``(ROOT ...)``, ``(S ...)``) is returned as it is.

By default the readers normalise trees the way parsers are trained and evaluated:

- ``strip_traces``: remove ``-NONE-`` preterminals (traces, empty elements), then every constituent left
  without words, recursively;
- ``strip_function_tags``: ``NP-SBJ-1`` -> ``NP``, ``PP-CLR`` -> ``PP``, ``NP=2`` -> ``NP`` (cut at the
  first ``-`` or ``=``); labels that start with ``-`` (``-NONE-``, ``-LRB-``, ``-RRB-``) are left intact.

Errors are ``CorpusError`` naming file and line (bytes that are not UTF-8 included). ``read_mrg(path,
lenient=True)`` skips malformed trees instead: the file is cut before every line that starts with ``(``
(where the treebank starts its trees), each piece is read on its own, and the pieces that fail are counted
in ``skipped`` and reported by one warning.
"""
import gc
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Tuple, Union

from .conllu import Corpus, check_text, report_skipped
from .errors import CorpusError
from .locate import ptb_sample_files

__all__ = ["Tree", "parse_brackets", "read_mrg", "read_ptb_sample", "strip_function_tag"]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_FUNCTION_TAG = re.compile(r"[-=]")
_TREE_START = re.compile(r"^\(", re.MULTILINE)


@dataclass
class Tree:
    """A constituent, a preterminal, or a leaf.

    label (str): the category (``"NP"``), the tag of a preterminal (``"NNP"``), or the word of a leaf.
    children (List[Tree]): empty for a leaf; a single leaf for a preterminal.
    """

    label: str
    children: List["Tree"] = field(default_factory=list)

    def is_leaf(self) -> bool:
        """Whether this is a word."""
        return not self.children

    def is_preterminal(self) -> bool:
        """Whether this is a tag over exactly one word."""
        return len(self.children) == 1 and not self.children[0].children

    def leaves(self) -> List[str]:
        """The words, left to right."""
        words: List[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(reversed(node.children))
            else:
                words.append(node.label)
        return words

    def pos(self) -> List[Tuple[str, str]]:
        """(word, tag) for every preterminal, left to right."""
        pairs: List[Tuple[str, str]] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.is_preterminal():
                pairs.append((node.children[0].label, node.label))
            else:
                stack.extend(reversed(node.children))
        return pairs

    def copy(self) -> "Tree":
        """A deep copy."""
        return Tree(self.label, [child.copy() for child in self.children])

    def __str__(self) -> str:
        """One line: ``(S (NP (NNP Pierre) (NNP Vinken)) (VP ...) (. .))``; a leaf is its word."""
        if not self.children:
            return self.label
        return f"({self.label} {' '.join(str(child) for child in self.children)})"


def strip_function_tag(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``NP=2`` -> ``NP``; labels starting with ``-`` (``-NONE-``) are unchanged."""
    if label.startswith("-"):
        return label
    return _FUNCTION_TAG.split(label, maxsplit=1)[0] or label


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while building trees.

    Parsing allocates hundreds of thousands of small objects that are all kept and hold no cycles; every
    collection pass would rescan all trees built so far (this pause makes the WSJ sample ~4x faster).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _line_of_token(text: str, index: int) -> int:
    """The 1-based line of the index-th token of ``text`` (computed only when reporting an error)."""
    for k, match in enumerate(_TOKEN.finditer(text)):
        if k == index:
            return text.count("\n", 0, match.start()) + 1
    return text.count("\n") + 1


def parse_brackets(
    text: str, *, source: str = "<string>", strip_traces: bool = True, strip_function_tags: bool = True,
    first_line: int = 1,
) -> List[Tree]:
    """Parse every bracketed tree in ``text``.

    text (str): trees in bracketed form, any whitespace between tokens.
    source (str): the name used in error messages (``"SOURCE:LINE: reason"``).
    first_line (int): the line number of text's first line in ``source``.
    strip_traces (bool): remove ``-NONE-`` elements and constituents left empty.
    strip_function_tags (bool): cut labels at the first ``-`` or ``=``, unless they start with ``-``.
    RETURNS (List[Tree]): one tree per top-level bracket, the unlabelled wrapper removed (see module doc).
    RAISES (CorpusError): unbalanced brackets, text outside brackets, an empty bracket, a word that is not
        the single child of a tag, or a tree with no words left after removing traces.
    """

    with _gc_paused():
        return _parse(text, source, strip_traces, strip_function_tags, first_line)


def _parse(text: str, source: str, strip_traces: bool, strip_function_tags: bool, first_line: int) -> List[Tree]:
    """The body of parse_brackets: one pass over the tokens with a stack of open brackets."""

    def error(index: int, reason: str) -> CorpusError:
        return CorpusError(source, first_line - 1 + _line_of_token(text, index), reason)

    trees: List[Tree] = []
    # One frame per open bracket, all in one pass (traces and function tags are removed as brackets close):
    # [label (None until read, "" if none), subtrees kept, index of "(", word or None, has had a subtree]
    stack: List[list] = []
    for index, token in enumerate(_TOKEN.findall(text)):
        if token == "(":
            if stack:
                frame = stack[-1]
                if frame[0] is None:
                    frame[0] = ""
                elif frame[3] is not None:
                    raise error(index, f"word '{frame[3]}' must be the only child of its tag '{frame[0]}'")
            stack.append([None, [], index, None, False])
        elif token == ")":
            if not stack:
                raise error(index, "unbalanced brackets: ')' closes nothing")
            label, children, opened, word, had_subtree = stack.pop()
            if word is not None:
                if strip_traces and label == "-NONE-":
                    tree = None
                else:
                    tag = strip_function_tag(label) if strip_function_tags else label
                    tree = Tree(tag, [Tree(word)])
            elif not had_subtree:
                raise error(opened, f"empty bracket '({label or ''})': a constituent needs children")
            elif children:
                tree = Tree(strip_function_tag(label) if strip_function_tags else label, children)
            else:
                tree = None  # every child was a trace
            if stack:
                stack[-1][4] = True
                if tree is not None:
                    stack[-1][1].append(tree)
            elif tree is None:
                raise error(opened, "tree has no words left after removing -NONE- traces")
            elif tree.label == "":
                trees.append(tree.children[0] if len(tree.children) == 1 else Tree("ROOT", tree.children))
            else:
                trees.append(tree)
        elif not stack:
            raise error(index, f"text outside brackets: '{token}'")
        else:
            frame = stack[-1]
            if frame[0] is None:
                frame[0] = token
            elif frame[0] == "":
                raise error(index, f"word '{token}' has no tag")
            elif frame[3] is not None or frame[4]:
                raise error(index, f"word '{token}' must be the only child of its tag '{frame[0]}'")
            else:
                frame[3] = token
    if stack:
        raise error(stack[0][2], f"unbalanced brackets: {len(stack)} bracket(s) opened here never closed")
    return trees


def read_mrg(
    path: Union[str, os.PathLike], *, strip_traces: bool = True, strip_function_tags: bool = True,
    lenient: bool = False,
) -> Corpus:
    """Read the trees of a ``.mrg`` file; see ``parse_brackets`` for the options and errors.

    path (str | PathLike): a UTF-8 (or ASCII) file; a leading BOM is dropped.
    lenient (bool): skip malformed trees (see the module docstring), record them in ``skipped`` and warn
        once, instead of raising.
    RETURNS (Corpus): the trees in file order, with ``.path`` and ``.skipped``.
    RAISES (CorpusError): ``"FILE:LINE: reason"`` on the first malformed tree, unless lenient.
    """
    source = str(path)
    text = Path(path).read_bytes().decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    options = dict(source=source, strip_traces=strip_traces, strip_function_tags=strip_function_tags)
    if not lenient:
        _check_utf8(text, source, 1)
        return Corpus(parse_brackets(text, **options), path=path)
    trees, skipped = [], []
    starts = [m.start() for m in _TREE_START.finditer(text)] or [0]
    starts[0] = 0                        # what comes before the first tree belongs to its piece
    line = 1
    for k, start in enumerate(starts):
        piece = text[start: starts[k + 1] if k + 1 < len(starts) else len(text)]
        try:
            _check_utf8(piece, source, line)
            trees.extend(parse_brackets(piece, first_line=line, **options))
        except CorpusError as error:
            skipped.append(error)
        line += piece.count("\n")
    report_skipped(skipped, len(starts), source, "trees")
    return Corpus(trees, path=path, skipped=skipped)


def _check_utf8(text: str, source: str, first_line: int) -> None:
    """RAISES (CorpusError): at the first line of `text` holding bytes that were not UTF-8."""
    if text.isascii():
        return
    for number, line in enumerate(text.split("\n"), first_line):
        check_text(source, number, line)


def read_ptb_sample(
    section: str = "train", *, strip_traces: bool = True, strip_function_tags: bool = True
) -> List[Tree]:
    """Read the WSJ sample of the Penn Treebank (``ptb-sample/constituency/`` through the locator).

    section (str): ``"train"`` (wsj_0001-0179), ``"test"`` (wsj_0180-0199) or ``"all"``.
    RETURNS (List[Tree]): the trees of the section's files in file order (3,914 for ``"all"``).
    RAISES (CorpusNotFoundError): if the sample or one of its files cannot be found.
    """
    trees: List[Tree] = []
    for path in ptb_sample_files("constituency", section):
        trees.extend(read_mrg(path, strip_traces=strip_traces, strip_function_tags=strip_function_tags))
    return trees
