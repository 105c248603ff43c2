"""Dependency files of the Penn Treebank sample (``.dp``): ``word<TAB>TAG<TAB>head`` per line.

Sentences are separated by blank lines; heads are 1-based word positions, 0 for the root. Each sentence
becomes a CoNLL-U ``Sentence`` so the rest of the package sees one type:

- ``words`` = word, ``xpos`` = TAG, and ``upos`` = TAG as well (the files have no universal tags; code
  reading ``upos`` then still sees the PTB tag);
- ``heads`` from the third column (``heads[0] = -1``), validated like CoNLL-U (range, cycles, a root);
- ``labels``, ``lemmas``, ``feats``, ``deps``, ``misc`` are ``"_"``, and there are no comments.
"""
import os
from pathlib import Path
from typing import List, Union

import numpy as np

from ..trees import TreeError, validate_heads
from .conllu import Corpus, Sentence, _sentences, check_head_range, file_lines
from .errors import CorpusError
from .locate import ptb_sample_files

__all__ = ["read_dependency_file", "read_ptb_dependencies"]


def _parse_block(source: str, start: int, lines: List[str]) -> Sentence:
    """Parse one ``word TAG head`` block whose first line is line ``start`` of ``source``."""
    words, tags, heads, numbers = [], [], [-1], []
    for number, line in enumerate(lines, start):
        cols = line.split("\t")
        if len(cols) != 3:
            raise CorpusError(source, number, f"expected 3 tab-separated columns (word, tag, head), found {len(cols)}")
        word, tag, head = cols
        if not word or word.isspace():
            raise CorpusError(source, number, "empty word")
        if not tag or tag.isspace():
            raise CorpusError(source, number, f"empty tag for word '{word}'")
        digits = head[1:] if head[:1] == "-" else head
        if not (digits.isdigit() and digits.isascii()):
            raise CorpusError(source, number, f"invalid head '{head}' for word '{word}': not an integer")
        words.append(word)
        tags.append(tag)
        heads.append(int(head))
        numbers.append(number)
    check_head_range(source, numbers, heads)
    try:
        validate_heads(heads)
    except TreeError as error:
        raise CorpusError(source, numbers[error.word - 1], error.reason) from None
    return Sentence(words=words, upos=tags, xpos=tags, heads=np.array(heads, dtype=np.int64))


def read_dependency_file(path: Union[str, os.PathLike], *, lenient: bool = False) -> Corpus:
    """Read a ``word TAG head`` file.

    path (str | PathLike): a UTF-8 file; ``\\r\\n`` line endings and a missing final blank line are fine.
    lenient (bool): skip malformed sentences, record them in ``Corpus.skipped`` and warn once, instead of
        raising (as ``read_conllu``).
    RETURNS (Corpus): Sentences as described in the module docstring, with ``.path`` and ``.skipped``.
    RAISES (CorpusError): ``"FILE:LINE: reason"`` on the first malformed sentence, unless lenient.
    """
    skipped: List[CorpusError] = []
    with open(path, "rb") as file:
        sentences = list(_sentences(file_lines(file), str(path), lenient, skipped, parse_block=_parse_block))
    return Corpus(sentences, path=path, skipped=skipped)


def read_ptb_dependencies(section: str = "train", *, lenient: bool = False) -> Corpus:
    """Read the dependency version of the WSJ sample (``ptb-sample/dependency/`` through the locator).

    section (str): ``"train"`` (wsj_0001-0179), ``"test"`` (wsj_0180-0199) or ``"all"``.
    lenient (bool): as for ``read_dependency_file`` (one warning per file with skipped sentences).
    RETURNS (Corpus): the sentences of the section's files in order (3,914 for ``"all"``); ``.path`` is the
        directory, ``.skipped`` gathers every file's skipped sentences.
    RAISES (CorpusNotFoundError): if the sample or one of its files cannot be found.
    """
    files = ptb_sample_files("dependency", section)
    corpus = Corpus(path=Path(files[0]).parent)
    for path in files:
        part = read_dependency_file(path, lenient=lenient)
        corpus.extend(part)
        corpus.skipped.extend(part.skipped)
    return corpus
