"""The two kinds of model a corpus job runs, how they are recognised, fingerprinted and loaded.

- "spacy": a saved spaCy pipeline (a folder with `config.cfg`), normally one with `vine_cascade`; input: plain
  text (one document a line, or a file a document); output: DocBin shards and/or CoNLL-U.
- "cascade": a `vineparse.cascade.CascadeParser` model (a msgpack file); input: CoNLL-U; output: CoNLL-U.

A model's fingerprint is the SHA-256 of its bytes (for a folder: every file's relative path and bytes, in
name order). It keys the job, so that a re-run with another model redoes every shard, and it is checked again
where the model is loaded (on each worker), so that a worker that sees another file under the same path fails
clearly instead of writing different output.
"""
import hashlib
import os
from pathlib import Path
from typing import Any, Tuple, Union

KINDS = ("spacy", "cascade")
# The input layout and the output formats of each kind (the first format is the default).
LAYOUTS = {"spacy": ("lines", "files", "paragraphs"), "cascade": ("conllu",)}
FORMATS = {"spacy": ("spacy", "conllu"), "cascade": ("conllu",)}
PathLike = Union[str, os.PathLike]


def detect_kind(path: PathLike) -> str:
    """"spacy" for a pipeline folder (with config.cfg), "cascade" for a file.

    RAISES (FileNotFoundError): nothing at `path`; (ValueError): a folder that is not a spaCy pipeline.
    """
    path = Path(path)
    if path.is_dir():
        if not (path / "config.cfg").is_file():
            raise ValueError(f"{path} is a folder without config.cfg: not a saved spaCy pipeline (a cascade "
                             "model is a .msgpack file)")
        return "spacy"
    if path.is_file():
        return "cascade"
    raise FileNotFoundError(2, "no model at this path", str(path))


def model_digest(path: PathLike) -> str:
    """The SHA-256 of a model file, or of a pipeline folder's files (relative paths and bytes, in name order).
    Time O(model bytes)."""
    path = Path(path)
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def load_model(kind: str, path: PathLike, digest: str = "") -> Any:
    """Load a model of `kind` from `path` (after checking its fingerprint when `digest` is given).

    RETURNS: a `spacy.Language` ("spacy") or a `CascadeParser` ("cascade").
    RAISES (ValueError): a fingerprint that differs, or a file that is not a model of that kind (the message
        names the file).
    """
    if kind not in KINDS:
        raise ValueError(f"model kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if digest and model_digest(path) != digest:
        raise ValueError(f"the model at {path} differs from the one the job was planned with (its SHA-256 "
                         f"differs): every worker must see the same model")
    if kind == "spacy":
        import spacy

        return spacy.load(path)
    from ..cascade import CascadeParser

    try:
        return CascadeParser.load(path)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def check_kind_settings(kind: str, layout: str, formats: Tuple[str, ...]) -> None:
    """RAISES (ValueError): a layout or format the kind does not support, or no format."""
    if layout not in LAYOUTS[kind]:
        raise ValueError(f"a {kind} model reads {' or '.join(LAYOUTS[kind])} input, not {layout!r}")
    if not formats:
        raise ValueError("give at least one output format")
    for fmt in formats:
        if fmt not in FORMATS[kind]:
            raise ValueError(f"a {kind} model writes {' and/or '.join(FORMATS[kind])}, not {fmt!r}")
