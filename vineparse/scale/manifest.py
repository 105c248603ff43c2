"""The job's records on disk: one JSON record per finished shard, and the manifest of the whole job.

Layout of an output folder:

    manifest.json            the job: model, settings, inputs, every shard's record, totals, skipped, failed
    shards/000000.conllu     shard 0's output (and/or 000000.spacy, a DocBin)
    shards/000000.json       shard 0's record, written last: its presence says the shard is done
    parsed.conllu            all CoNLL-U shards in order (only with merge)

Every file is written to a temporary name and renamed into place, so a killed worker or an interrupted job
leaves either the whole file or none. A shard counts as done on a re-run when its record names the same job
key (model fingerprint and settings) and the same input SHA-256, and its outputs have the recorded sizes and
SHA-256: then it is not parsed nor written again.
"""
import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from .parsing import ParsedShard, ParseSettings
from .plan import Shard

RECORD_FORMAT = "vineparse.scale.shard"
MANIFEST_FORMAT = "vineparse.scale.manifest"
VERSION = 1
EXTENSIONS = {"conllu": ".conllu", "spacy": ".spacy"}
SHARDS = "shards"
MERGED = "parsed.conllu"


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to run a shard besides the model: where to write and how to parse.

    output (str): the output folder. kind (str): "spacy" or "cascade". layout (str): the input layout.
    settings (ParseSettings): formats, batch size, word limit. key (str): the job key (`job_key`).
    """

    output: str
    kind: str
    layout: str
    settings: ParseSettings
    key: str


def job_key(model_digest: str, kind: str, layout: str, shard_size: int, max_shard_bytes: int,
            settings: ParseSettings) -> str:
    """SHA-256 of what a shard's output depends on besides its input: the model and every setting."""
    described = {"model": model_digest, "kind": kind, "layout": layout, "shard_size": shard_size,
                 "max_shard_bytes": max_shard_bytes, **settings.to_dict(), "version": VERSION}
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8")).hexdigest()


def shard_file(output: str, index: int, suffix: str) -> Path:
    return Path(output) / SHARDS / f"{index:06d}{suffix}"


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def output_entries(job: Job, shard: Shard, parsed: ParsedShard) -> Dict[str, Dict]:
    """{format: {"file" (relative to the output folder), "bytes", "sha256"}} of a parsed shard."""
    entries = {}
    for fmt, data in parsed.outputs.items():
        path = shard_file(job.output, shard.index, EXTENSIONS[fmt])
        entries[fmt] = {"file": path.relative_to(job.output).as_posix(), "bytes": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()}
    return entries


def make_record(job: Job, shard: Shard, parsed: ParsedShard, seconds: Dict[str, float], worker: str) -> Dict:
    return {"format": RECORD_FORMAT, "version": VERSION, "job": job.key, "shard": shard.to_dict(),
            "documents": parsed.documents, "sentences": parsed.sentences, "words": parsed.words,
            "skipped": parsed.skipped, "outputs": output_entries(job, shard, parsed), "seconds": seconds,
            "worker": worker}


def read_record(output: str, index: int) -> Optional[Dict]:
    """The record of shard `index`, or None if there is none or it cannot be read."""
    path = shard_file(output, index, ".json")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("format") == RECORD_FORMAT else None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def done_record(job: Job, shard: Shard) -> Optional[Dict]:
    """The record of `shard` if the shard is done for this job (see the module docstring), else None.
    Time: O(the shard's output bytes) (the outputs are hashed)."""
    record = read_record(job.output, shard.index)
    if record is None or record.get("job") != job.key or record.get("shard", {}).get("sha256") != shard.sha256:
        return None
    if set(record.get("outputs", {})) != set(job.settings.formats):
        return None
    for entry in record["outputs"].values():
        path = Path(job.output) / entry["file"]
        try:
            if path.stat().st_size != entry["bytes"] or file_sha256(path) != entry["sha256"]:
                return None
        except OSError:
            return None
    return record


def write_manifest(output: str, manifest: Dict) -> Path:
    path = Path(output) / "manifest.json"
    write_atomic(path, (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode("utf-8"))
    return path


def read_manifest(output: str) -> Optional[Dict]:
    path = Path(output) / "manifest.json"
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ValueError(f"{path}: not a readable manifest ({err}); remove it or choose another output") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{path} is not a vineparse corpus manifest; choose another output folder")
    return manifest


def stale_shard_files(output: str, shard_count: int) -> List[Path]:
    """Files under shards/ that belong to no shard of a job of `shard_count` shards (a longer earlier input)."""
    folder = Path(output) / SHARDS
    if not folder.is_dir():
        return []
    stale = []
    for path in folder.iterdir():
        stem = path.name.split(".")[0] if not path.name.startswith(".") else ""
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            stale.append(path)
        elif stem.isdigit() and int(stem) >= shard_count:
            stale.append(path)
    return sorted(stale)
