"""Corpus readers and writers, and the corpus locator.

- ``locate``: find the treebanks (``$VINEPARSE_CORPORA``, ``../shared/corpora``, ``corpora/``).
- ``conllu``: CoNLL-U sentences, read and written back byte for byte.
- ``ptb``: Penn Treebank bracketed trees (``.mrg``).
- ``dependency``: ``word TAG head`` files (``.dp``), read as CoNLL-U sentences.
"""
from . import conllu
from .conllu import Corpus, Sentence, format_sentence, iter_conllu, parse_conllu, read_conllu, write_conllu
from .dependency import read_dependency_file, read_ptb_dependencies
from .errors import CorpusError, CorpusNotFoundError
from .locate import corpora_root, corpus_path, ptb_sample_files
from .ptb import Tree, parse_brackets, read_mrg, read_ptb_sample

__all__ = [
    "corpus_path",
    "corpora_root",
    "ptb_sample_files",
    "CorpusNotFoundError",
    "CorpusError",
    *conllu.__all__,
    "Tree",
    "read_mrg",
    "parse_brackets",
    "read_ptb_sample",
    "read_dependency_file",
    "read_ptb_dependencies",
]
