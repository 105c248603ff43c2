"""Find the treebanks, which live outside the repository and are never copied into it.

Places searched, in order:

1. ``$VINEPARSE_CORPORA``, if set and non-empty;
2. ``<repository>/../shared/corpora``, where ``<repository>`` is the directory holding the ``vineparse``
   package (a source checkout, or an editable install);
3. ``<cwd>/../shared/corpora``, for a package installed into site-packages and run from the checkout;
4. ``<repository>/corpora`` and ``<cwd>/corpora``, for small data the project writes itself.

Duplicate places (e.g. when the working directory is the repository) are searched once.
"""
import os
from pathlib import Path
from typing import List, Tuple, Union

from .errors import CorpusNotFoundError

__all__ = ["ENV_VAR", "PTB_SAMPLE_SECTIONS", "corpora_root", "corpus_path", "ptb_sample_files", "search_path"]

ENV_VAR = "VINEPARSE_CORPORA"

# File numbers of the WSJ sample (wsj_0001 .. wsj_0199) in each section of the project's split.
PTB_SAMPLE_SECTIONS = {"train": range(1, 180), "test": range(180, 200), "all": range(1, 200)}
_PTB_SAMPLE_SUFFIX = {"constituency": ".mrg", "dependency": ".dp"}


def _repository_root() -> Path:
    """The directory containing the ``vineparse`` package (``vineparse/corpus/locate.py`` -> parents[2])."""
    return Path(__file__).resolve().parents[2]


def search_path() -> List[Tuple[Path, str]]:
    """The places searched for corpora, in order.

    RETURNS (List[Tuple[Path, str]]): (absolute directory, why it is searched), without duplicates.
        Directories need not exist.
    """
    places = []
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        places.append((Path(env).expanduser(), f"${ENV_VAR}"))
    repo, cwd = _repository_root(), Path.cwd()
    places.append((repo / ".." / "shared" / "corpora", "next to the repository"))
    places.append((cwd / ".." / "shared" / "corpora", "next to the working directory"))
    places.append((repo / "corpora", "inside the repository"))
    places.append((cwd / "corpora", "inside the working directory"))
    unique, seen = [], set()
    for directory, why in places:
        directory = directory.resolve()
        if directory not in seen:
            seen.add(directory)
            unique.append((directory, why))
    return unique


def _not_found(what: str, places: List[Tuple[Path, str]]) -> CorpusNotFoundError:
    looked = "\n".join(f"  - {directory}  ({why})" for directory, why in places)
    return CorpusNotFoundError(
        f"{what} not found. Looked in:\n{looked}\n"
        f"Set {ENV_VAR} to the directory holding the corpora, e.g. `export {ENV_VAR}=/path/to/corpora`."
    )


def corpora_root() -> Path:
    """The first searched place that exists as a directory.

    RETURNS (Path): an absolute directory.
    RAISES (CorpusNotFoundError): if none exists; the message lists every place searched.
    """
    places = search_path()
    for directory, _ in places:
        if directory.is_dir():
            return directory
    raise _not_found("No corpora directory", places)


def corpus_path(*parts: Union[str, os.PathLike]) -> Path:
    """Locate a corpus file or directory, e.g. ``corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu")``.

    parts (str | PathLike): path components relative to a corpora directory.
    RETURNS (Path): the first ``place / *parts`` that exists, over the places of ``search_path()``.
    RAISES (CorpusNotFoundError): if it exists nowhere; the message lists every place searched.
    """
    if not parts:
        raise ValueError("corpus_path needs at least one path component; use corpora_root() for the root")
    relative = Path(*parts)
    if relative.is_absolute():
        raise ValueError(f"corpus_path takes a path relative to the corpora directory, got {relative}")
    places = search_path()
    for directory, _ in places:
        candidate = directory / relative
        if candidate.exists():
            return candidate
    raise _not_found(f"Corpus file '{relative.as_posix()}'", places)


def ptb_sample_files(kind: str, section: str = "train") -> List[Path]:
    """The files of one section of the Penn Treebank WSJ sample, in order.

    kind (str): ``"constituency"`` (``.mrg`` bracketed trees) or ``"dependency"`` (``.dp`` word/tag/head).
    section (str): ``"train"`` (wsj_0001-0179), ``"test"`` (wsj_0180-0199) or ``"all"``.
    RETURNS (List[Path]): ``ptb-sample/<kind>/wsj_NNNN.<suffix>`` for every file number of the section.
    RAISES (ValueError): for an unknown kind or section.
    RAISES (CorpusNotFoundError): if the sample directory, or any file of the section, is missing.
    """
    if kind not in _PTB_SAMPLE_SUFFIX:
        raise ValueError(f"unknown PTB sample kind {kind!r}; expected one of {sorted(_PTB_SAMPLE_SUFFIX)}")
    if section not in PTB_SAMPLE_SECTIONS:
        raise ValueError(f"unknown PTB sample section {section!r}; expected one of {sorted(PTB_SAMPLE_SECTIONS)}")
    directory = corpus_path("ptb-sample", kind)
    files = [directory / f"wsj_{number:04d}{_PTB_SAMPLE_SUFFIX[kind]}" for number in PTB_SAMPLE_SECTIONS[section]]
    missing = [path.name for path in files if not path.is_file()]
    if missing:
        raise CorpusNotFoundError(
            f"{len(missing)} file(s) of the PTB sample section {section!r} missing from {directory}: "
            f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}"
        )
    return files
