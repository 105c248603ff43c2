"""Shards: how a corpus is cut into units of work, deterministically.

A shard is a byte range of one input file holding at most `shard_size` items (documents or sentences) and at
most `max_shard_bytes` bytes (the item that crosses the byte bound ends the shard), or, for a file-a-document
corpus, up to `shard_size` whole files. Items never straddle shards and shards never straddle files (except
whole-file documents), so a shard is parsed alone, and the cut depends only on the input bytes and the two
sizes: the same corpus gives the same shards on any cluster, which makes the output order deterministic and
lets a re-run recognise the shards it has already done (by their index and the SHA-256 of their input bytes).

Item layouts (`layout`):
- "lines": one document a line (text), split at b"\\n"; every line is an item, blank ones included (they are
  skipped and reported at parse time, never silently dropped);
- "conllu": one sentence a block of non-blank lines (CoNLL-U); blank lines between blocks belong to the block
  before them;
- "files": one document a file;
- "paragraphs": one document a paragraph of raw text (a block of non-blank lines, as UD's `.txt` files write
  paragraphs and documents), cut as "conllu" blocks are.

Planning reads every input once, streaming (memory: one line), in O(bytes); with a Dask client the files are
planned in parallel on the workers (`plan_inputs`).
"""
import hashlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

LAYOUTS = ("lines", "conllu", "files", "paragraphs")
MAX_SHARD_SIZE = 1_000_000
DEFAULT_MAX_SHARD_BYTES = 64 << 20
PathLike = Union[str, os.PathLike]


@dataclass(frozen=True)
class Part:
    """A byte range of one input file: [offset, offset + length), starting at line `first_line` (1-based)."""

    path: str
    offset: int
    length: int
    first_line: int


@dataclass(frozen=True)
class Shard:
    """One unit of work: its index in the job, its input parts, how many items they hold, and the SHA-256 of
    the parts (each part's path, then its bytes)."""

    index: int
    parts: Tuple[Part, ...]
    items: int
    sha256: str

    @property
    def where(self) -> str:
        """`file:line` of the shard's first item, for reports."""
        first = self.parts[0]
        return f"{first.path}:{first.first_line}"

    def to_dict(self) -> Dict:
        return {"index": self.index, "parts": [asdict(p) for p in self.parts], "items": self.items,
                "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: Dict) -> "Shard":
        return cls(int(data["index"]), tuple(Part(**p) for p in data["parts"]), int(data["items"]),
                   str(data["sha256"]))


@dataclass(frozen=True)
class FilePlan:
    """The shards of one input file (indices local to the file; `plan_inputs` numbers them globally), its size
    and its SHA-256."""

    path: str
    size: int
    sha256: str
    shards: Tuple[Shard, ...]


def check_sizes(shard_size: int, max_shard_bytes: int) -> None:
    if not 1 <= int(shard_size) <= MAX_SHARD_SIZE:
        raise ValueError(f"shard_size must be in 1..{MAX_SHARD_SIZE:,}, got {shard_size}")
    if int(max_shard_bytes) < 1:
        raise ValueError(f"max_shard_bytes must be >= 1, got {max_shard_bytes}")


def expand_inputs(inputs: Union[PathLike, Sequence[PathLike]], layout: str) -> List[str]:
    """The input files, in order: files as given, folders as their files in name order (for "conllu": the
    `.conllu` files; otherwise every file whose name does not start with '.').

    RAISES (FileNotFoundError): for an input that does not exist; (ValueError) when nothing is left.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: List[str] = []
    for spec in inputs:
        path = Path(spec)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")
                           and (layout != "conllu" or p.suffix == ".conllu"))
            files.extend(str(p) for p in found)
        elif path.is_file():
            files.append(str(path))
        else:
            raise FileNotFoundError(2, "no such input file or folder", str(spec))
    if not files:
        raise ValueError(f"no input files in {', '.join(str(s) for s in inputs)}")
    if len(set(files)) != len(files):
        raise ValueError("an input file is named twice: " + next(f for f in files if files.count(f) > 1))
    return files


class _ShardCutter:
    """Accumulates the items of one file into shards."""

    def __init__(self, path: str, shard_size: int, max_shard_bytes: int):
        self.path, self.shard_size, self.max_bytes = path, shard_size, max_shard_bytes
        self.shards: List[Shard] = []
        self._open(0, 1)

    def _open(self, offset: int, line: int) -> None:
        self.offset, self.line, self.length, self.items = offset, line, 0, 0
        self.digest = hashlib.sha256(self.path.encode("utf-8") + b"\0")

    def add(self, data: bytes, item_ends: bool) -> None:
        """Add `data` (whole lines) to the open shard; `item_ends` says whether an item ends with it."""
        self.digest.update(data)
        self.length += len(data)
        self.items += item_ends

    def cut_if_full(self, next_line: int) -> None:
        """Close the open shard if it holds `shard_size` items or `max_shard_bytes` bytes."""
        if self.items and (self.items >= self.shard_size or self.length >= self.max_bytes):
            self.close()
            self._open(self.offset + self.length, next_line)

    def close(self) -> None:
        if self.items:
            part = Part(self.path, self.offset, self.length, self.line)
            self.shards.append(Shard(len(self.shards), (part,), self.items, self.digest.hexdigest()))


def plan_file(path: str, layout: str, shard_size: int, max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES) -> FilePlan:
    """The shards of one "lines" or "conllu" file (see the module docstring). Time O(bytes), memory O(line)."""
    check_sizes(shard_size, max_shard_bytes)
    cutter = _ShardCutter(path, shard_size, max_shard_bytes)
    whole = hashlib.sha256()
    size = 0
    with open(path, "rb") as file:
        number = 0
        in_block = False
        for number, line in enumerate(file, 1):
            whole.update(line)
            size += len(line)
            if layout == "lines":
                cutter.add(line, True)
                cutter.cut_if_full(number + 1)
            elif line.strip():
                cutter.add(line, False)
                in_block = True
            else:
                # A blank line ends the block before it (and belongs to it); blank lines before the first
                # block of a shard just ride along.
                cutter.add(line, in_block)
                in_block = False
                cutter.cut_if_full(number + 1)
        if in_block:
            cutter.add(b"", True)
        cutter.close()
    return FilePlan(path, size, whole.hexdigest(), tuple(cutter.shards))


def plan_documents(paths: Sequence[str], shard_size: int) -> List[FilePlan]:
    """One-document-a-file corpora: shards of up to `shard_size` whole files, in the order given. Every file
    is read once, in blocks of 1 MiB (memory O(1 MiB))."""
    check_sizes(shard_size, DEFAULT_MAX_SHARD_BYTES)
    plans: List[FilePlan] = []
    shards: List[Shard] = []
    for start in range(0, len(paths), shard_size):
        group = paths[start:start + shard_size]
        shard_digest = hashlib.sha256()
        parts = []
        for path in group:
            whole = hashlib.sha256()
            shard_digest.update(path.encode("utf-8") + b"\0")
            size = 0
            with open(path, "rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""):
                    whole.update(block)
                    shard_digest.update(block)
                    size += len(block)
            parts.append(Part(path, 0, size, 1))
            plans.append(FilePlan(path, size, whole.hexdigest(), ()))
        shards.append(Shard(len(shards), tuple(parts), len(parts), shard_digest.hexdigest()))
    # The shards of a file-a-document corpus are listed under its first file.
    if plans:
        plans[0] = FilePlan(plans[0].path, plans[0].size, plans[0].sha256, tuple(shards))
    return plans


def _parts_digest(parts: Iterable[Tuple[Part, bytes]]) -> str:
    """The digest of a shard's parts: each part's path, then its bytes (as planned)."""
    digest = hashlib.sha256()
    for part, data in parts:
        digest.update(part.path.encode("utf-8") + b"\0")
        digest.update(data)
    return digest.hexdigest()


def read_shard(shard: Shard) -> List[Tuple[Part, bytes]]:
    """Every part of `shard` with its bytes, checked against the planned SHA-256.

    RAISES (InputChangedError): the input no longer holds the bytes it held when the job was planned.
    """
    out = []
    for part in shard.parts:
        with open(part.path, "rb") as file:
            file.seek(part.offset)
            data = file.read(part.length)
        out.append((part, data))
    if _parts_digest(out) != shard.sha256:
        raise InputChangedError(f"{shard.where}: the input changed after the job was planned (shard "
                                f"{shard.index}: its SHA-256 differs); re-run to plan it again")
    return out


class InputChangedError(OSError):
    """A shard's input bytes differ from those planned."""


def number_shards(plans: Sequence[FilePlan]) -> List[Shard]:
    """Every shard of `plans`, in order, with its index in the job."""
    shards: List[Shard] = []
    for plan in plans:
        for shard in plan.shards:
            shards.append(Shard(len(shards), shard.parts, shard.items, shard.sha256))
    return shards


def plan_inputs(paths: Sequence[str], layout: str, shard_size: int,
                max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES, client=None) -> Tuple[List[FilePlan], List[Shard]]:
    """Plan every input file (on the cluster's workers when `client` is given and there are several files).

    RETURNS (Tuple[List[FilePlan], List[Shard]]): one plan per file, and every shard numbered in order.
    """
    check_sizes(shard_size, max_shard_bytes)
    if layout == "files":
        plans = plan_documents(paths, shard_size)
    elif client is not None and len(paths) > 1:
        futures = client.map(plan_file, list(paths), layout=layout, shard_size=shard_size,
                             max_shard_bytes=max_shard_bytes, pure=False)
        plans = client.gather(futures)
    else:
        plans = [plan_file(p, layout, shard_size, max_shard_bytes) for p in paths]
    return plans, number_shards(plans)


def split_items(layout: str, part: Part, data: bytes) -> List[Tuple[int, bytes]]:
    """The items of one part: (line number of the item's first line, its bytes without the final newline).

    "lines": one item a line (without a final b"\\r"); "conllu" and "paragraphs": one item a block of non-blank
    lines (lines joined by b"\\n"); "files": the whole part. A UTF-8 byte-order mark opening a file is dropped.
    """
    if part.offset == 0 and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if layout == "files":
        return [(1, data)]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if layout == "lines":
        return [(part.first_line + i, line[:-1] if line.endswith(b"\r") else line) for i, line in enumerate(lines)]
    items: List[Tuple[int, bytes]] = []
    block: List[bytes] = []
    start: Optional[int] = None
    for i, line in enumerate(lines):
        if line.strip():
            if start is None:
                start = part.first_line + i
            block.append(line)
        elif block:
            items.append((start, b"\n".join(block)))
            block, start = [], None
    if block:
        items.append((start, b"\n".join(block)))
    return items
