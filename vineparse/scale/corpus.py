"""`parse_corpus`: parse a corpus in shards on a Dask cluster (or in this process), resumable.

    from vineparse.scale import parse_corpus

    summary = parse_corpus("ewt.msgpack", ["a.conllu", "b.conllu"], "out/")          # local cluster, 1 per core
    summary = parse_corpus("model-best/", "texts/", "out/", formats=("spacy", "conllu"), client="tcp://sched:8786")
    print(summary.format())

The job: recognise the model (`models`), cut the inputs into shards (`plan`), skip the shards a previous run
finished (`manifest`), load the model once on each worker, run the other shards as Dask tasks
(`cluster.shard_task` -> `shards.run_shard`), print progress as they finish, then write the manifest and,
with `merge`, the CoNLL-U shards joined in order. `workers=0` runs the same shards in this process without
Dask. Output bytes do not depend on the number of workers, their failures or on resuming.

Limits (checked before any work): `shard_size` 1..1,000,000 items; `max_shard_bytes` >= 1 (default 64 MiB: a
shard's input is read whole on a worker); `batch_size` >= 1; `max_words` >= 1 (cascade sentences above it are
skipped and reported: the cascade's work per sentence is superlinear in the worst case); spaCy documents above
the pipeline's `nlp.max_length` characters are skipped and reported. Memory on the client: O(shards) records;
on a worker: one shard's input and output plus the model. Time: planning reads every input once, O(bytes);
a resumed shard's outputs are hashed again, O(output bytes).
"""
import shutil
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Union

from .manifest import (MANIFEST_FORMAT, MERGED, SHARDS, VERSION, Job, done_record, job_key, read_manifest,
                       shard_file, stale_shard_files, write_manifest)
from .models import FORMATS, LAYOUTS, check_kind_settings, detect_kind, load_model, model_digest
from .parsing import ParseSettings
from .plan import DEFAULT_MAX_SHARD_BYTES, Shard, check_sizes, expand_inputs, plan_inputs
from .shards import run_shard

DEFAULT_SHARD_SIZE = 2000
Progress = Union[bool, Callable[[str], None]]


@dataclass
class CorpusSummary:
    """What a corpus job did.

    output (Path), manifest (Path): the output folder and its manifest.json.
    shards (int): in the job; parsed: run by this call; resumed: found done and skipped.
    documents, sentences, words (int): totals over every done shard (resumed ones included).
    skipped (List[dict]): {"file", "line", "reason"} of every skipped input item, in input order.
    failed (List[dict]): {"shard", "file", "line", "reason", "traceback"} of every shard that failed.
    seconds (float): wall time of this call; words_per_second: words of the shards parsed by this call over
        the time spent parsing them (from the moment the model was loaded).
    merged (Path or None): parsed.conllu, when `merge` was asked for and nothing failed.
    """

    output: Path
    manifest: Path
    shards: int
    parsed: int
    resumed: int
    documents: int
    sentences: int
    words: int
    skipped: List[Dict] = field(default_factory=list)
    failed: List[Dict] = field(default_factory=list)
    seconds: float = 0.0
    words_per_second: float = 0.0
    merged: Optional[Path] = None

    @property
    def complete(self) -> bool:
        return not self.failed

    def format(self, limit: int = 20) -> str:
        """A few lines for people: counts, the first `limit` skipped items and every failed shard."""
        lines = [f"{self.shards:,} shards ({self.parsed:,} parsed, {self.resumed:,} resumed, {len(self.failed):,} "
                 f"failed): {self.documents:,} documents, {self.sentences:,} sentences, {self.words:,} words "
                 f"in {self.seconds:.1f}s ({self.words_per_second:,.0f} words/s)"]
        if self.skipped:
            lines.append(f"skipped {len(self.skipped):,} input items:")
            lines += [f"  {s['file']}:{s['line']}: {s['reason']}" for s in self.skipped[:limit]]
            if len(self.skipped) > limit:
                lines.append(f"  ... and {len(self.skipped) - limit:,} more (listed in {self.manifest})")
        for f in self.failed:
            lines.append(f"failed shard {f['shard']} ({f['file']}:{f['line']}): {f['reason']}")
        lines.append(f"manifest: {self.manifest}" + (f"; merged output: {self.merged}" if self.merged else ""))
        return "\n".join(lines)


class _ProgressLines:
    """`parse-corpus: done/total shards (resumed, failed), sentences, words, words/s, elapsed, left` at each
    tenth of the shards (at most one a second), at least every 10 s, and at the end."""

    def __init__(self, total: int, resumed: int, progress: Progress):
        self.total, self.resumed, self.done, self.failed = total, resumed, resumed, 0
        self.sentences = self.words = 0
        self.write = (lambda line: print(line, file=sys.stderr, flush=True)) if progress is True else progress
        self.start = self.last = time.perf_counter()
        self.every = max(1, (total - resumed) // 10)

    def note(self, line: str) -> None:
        if self.write:
            self.write(line)

    def restart(self) -> None:
        """Measure elapsed time and words/s from now (once the model is loaded)."""
        self.start = self.last = time.perf_counter()

    def loaded(self, seconds: Dict[str, Optional[float]]) -> None:
        known = [s for s in seconds.values() if s is not None]
        if known:
            self.note(f"parse-corpus: model loaded by {len(known)} worker(s) in {max(known):.1f}s")
        self.restart()

    def update(self, record: Optional[Dict]) -> None:
        self.done += 1
        if record is None:
            self.failed += 1
        else:
            self.sentences += record["sentences"]
            self.words += record["words"]
        if not self.write:
            return
        now = time.perf_counter()
        ran = self.done - self.resumed
        if self.done == self.total or (ran % self.every == 0 and now - self.last >= 1.0) or now - self.last > 10.0:
            self.last = now
            elapsed = now - self.start
            left = elapsed / ran * (self.total - self.done) if ran else 0.0
            notes = [f"{n:,} {what}" for n, what in ((self.resumed, "resumed"), (self.failed, "failed")) if n]
            note = f" ({', '.join(notes)})" if notes else ""
            self.write(f"parse-corpus: {self.done:,}/{self.total:,} shards{note}, {self.sentences:,} sentences, "
                       f"{self.words:,} words, {self.words / max(elapsed, 1e-9):,.0f} words/s, {elapsed:.0f}s "
                       f"elapsed, ~{left:.0f}s left")


class _Results:
    """Collects each shard's outcome on the client: records, failures, progress and the caller's hook."""

    def __init__(self, records: Dict[int, Dict], report: _ProgressLines, on_shard):
        self.records, self.report, self.on_shard = records, report, on_shard
        self.failed: Dict[int, Dict] = {}

    def done(self, shard: Shard, record: Dict) -> None:
        self.records[shard.index] = record
        self.report.update(record)
        if self.on_shard is not None:
            self.on_shard(record)

    def fail(self, shard: Shard, error: BaseException) -> None:
        """A failed shard is listed (file and line of its first item, the error and its traceback); the job
        goes on with the others."""
        first = shard.parts[0]
        self.failed[shard.index] = {
            "shard": shard.index, "file": first.path, "line": first.first_line,
            "reason": f"{type(error).__name__}: {error}",
            "traceback": "".join(traceback.format_exception(type(error), error, error.__traceback__))}
        self.report.update(None)


def _run_in_process(model_path: str, digest: str, job: Job, todo: List[Shard], results: _Results) -> Dict:
    start = time.perf_counter()
    model = load_model(job.kind, model_path, digest) if todo else None
    run_info = {"workers": 0, "scheduler": None, "model_load_seconds": {"local": time.perf_counter() - start}}
    results.report.loaded(run_info["model_load_seconds"])
    for shard in todo:
        try:
            record = run_shard(model, shard, job)
        except Exception as error:
            results.fail(shard, error)
        else:
            results.done(shard, record)
    return run_info


def _run_on_cluster(client, model_path: str, digest: str, job: Job, todo: List[Shard], retries: int,
                    results: _Results) -> Dict:
    from distributed import as_completed

    from .cluster import model_load_seconds, model_on_workers, shard_task, worker_count

    run_info = {"workers": worker_count(client), "scheduler": client.scheduler.address, "model_load_seconds": {}}
    if not todo:
        return run_info
    with model_on_workers(client, job, model_path, digest) as name:
        run_info["model_load_seconds"] = model_load_seconds(client, name)
        results.report.loaded(run_info["model_load_seconds"])
        run = uuid.uuid4().hex[:12]      # task keys unique to this run (a cancelled run's tasks may linger)
        keys = [f"vineparse-shard-{run}-{shard.index}" for shard in todo]
        futures = client.map(shard_task, [name] * len(todo), todo, [job] * len(todo), key=keys, retries=retries,
                             pure=False)
        shard_of = {future.key: shard for future, shard in zip(futures, todo)}
        try:
            for future in as_completed(futures):
                # Fetch and release first: a result still referenced on a worker that dies is computed again.
                error = future.exception() if future.status == "error" else None
                if error is not None:
                    error.__traceback__ = future.traceback()
                record = future.result() if error is None else None
                shard = shard_of.pop(future.key)
                future.release()
                if error is not None:
                    results.fail(shard, error)
                else:
                    results.done(shard, record)
        except BaseException:
            client.cancel(futures)
            raise
    run_info["workers"] = worker_count(client)
    return run_info


def _merge(output: Path, shards: int) -> Path:
    """Join the CoNLL-U shards in order into parsed.conllu (streamed; written to a temporary name first)."""
    target = output / MERGED
    temporary = output / f".{MERGED}.tmp"
    with open(temporary, "wb") as merged:
        for index in range(shards):
            with open(output / SHARDS / f"{index:06d}.conllu", "rb") as part:
                shutil.copyfileobj(part, merged, 1 << 20)
    temporary.replace(target)
    return target


def parse_corpus(model: Union[str, Path], inputs: Union[str, Path, Sequence[Union[str, Path]]],
                 output: Union[str, Path], *, client=None, workers: Optional[int] = None,
                 docs: str = "lines", formats: Optional[Sequence[str]] = None,
                 shard_size: int = DEFAULT_SHARD_SIZE, max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
                 batch_size: int = 64, max_words: int = 1000, merge: bool = False, overwrite: bool = False,
                 retries: int = 1, memory_limit: Union[str, int, None] = "auto", progress: Progress = True,
                 on_shard: Optional[Callable[[Dict], None]] = None) -> CorpusSummary:
    """Parse every input with `model` into `output`, in shards, on a Dask cluster; resume a previous run.

    model (str or Path): a spaCy pipeline folder (text in) or a cascade .msgpack file (CoNLL-U in).
    inputs (path or paths): files, or folders (their files in name order; CoNLL-U: their .conllu files).
    output (str or Path): the output folder (created): shards/, manifest.json, parsed.conllu (see `manifest`).
    client (None, str or distributed.Client): the cluster: a Client, a scheduler address, or None for an
        embedded LocalCluster of `workers` single-threaded processes.
    workers (int or None): local worker processes (None: one per core); 0 runs in this process, without Dask.
    docs (str): spaCy models: "lines" (one document a line) or "files" (one document a file).
    formats (Sequence[str] or None): "spacy" (DocBin) and/or "conllu" for a spaCy model (default "spacy");
        "conllu" for a cascade.
    shard_size (int): documents (text) or sentences (CoNLL-U) per shard; max_shard_bytes (int): a shard ends
        at the item that reaches this many input bytes.
    batch_size (int): documents per `nlp.pipe` batch. max_words (int): longest cascade sentence parsed.
    merge (bool): also write parsed.conllu, the CoNLL-U shards in order (if no shard failed).
    overwrite (bool): redo every shard, even one a previous run of another job left in `output`.
    retries (int): Dask retries of a shard whose task raised (a transient I/O error, say).
    memory_limit: each local worker's memory limit (Dask's notation).
    progress (bool or callable): progress lines on stderr (or passed to this function).
    on_shard (callable or None): called on the client with each shard's record as it finishes (an exception
        it raises interrupts the job like Ctrl-C: the remaining tasks are cancelled, the manifest says
        "interrupted", and a re-run resumes).
    RETURNS (CorpusSummary): counts, skipped items and failed shards.
    RAISES (ValueError): bad settings, a model of the wrong kind, an output folder holding another job (without
        `overwrite`); (FileNotFoundError): a missing model or input.
    """
    started = time.perf_counter()
    model_path = str(model)
    kind = detect_kind(model_path)
    layout = docs if kind == "spacy" else "conllu"
    formats = tuple(formats) if formats is not None else FORMATS[kind][:1]
    if kind == "spacy" and docs not in LAYOUTS["spacy"]:
        raise ValueError(f"docs must be 'lines' or 'files', got {docs!r}")
    check_kind_settings(kind, layout, formats)
    check_sizes(shard_size, max_shard_bytes)
    for name, value, low in (("batch_size", batch_size, 1), ("max_words", max_words, 1), ("retries", retries, 0)):
        if int(value) < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    if workers is not None and int(workers) < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    if workers == 0 and client is not None:
        raise ValueError("workers=0 runs in this process: give no client with it")
    files = expand_inputs(inputs, layout)
    settings = ParseSettings(formats, int(batch_size), int(max_words))
    digest = model_digest(model_path)
    key = job_key(digest, kind, layout, int(shard_size), int(max_shard_bytes), settings)
    out = Path(output)
    previous = read_manifest(str(out)) if out.exists() else None
    if previous is not None and previous.get("job") != key and not overwrite:
        changed = _differences(previous, digest, kind, layout, shard_size, max_shard_bytes, settings)
        raise ValueError(f"{out} holds the output of another job (its model or settings differ: {changed}); "
                         "choose another output folder, or pass overwrite=True (--overwrite) to redo it")
    (out / SHARDS).mkdir(parents=True, exist_ok=True)
    job = Job(str(out), kind, layout, settings, key)

    records: Dict[int, Dict] = {}
    use_dask = workers != 0
    context = None
    if use_dask:
        from .cluster import open_client

        context = open_client(client, workers, memory_limit)
    manifest = {"format": MANIFEST_FORMAT, "version": VERSION, "job": key, "status": "running",
                "model": {"path": model_path, "kind": kind, "sha256": digest},
                "settings": {"layout": layout, "shard_size": int(shard_size),
                             "max_shard_bytes": int(max_shard_bytes), **settings.to_dict()}}
    with (context if context is not None else _no_client()) as dask_client:
        planning = time.perf_counter()
        plans, shards = plan_inputs(files, layout, int(shard_size), int(max_shard_bytes), dask_client)
        planning = time.perf_counter() - planning
        manifest["inputs"] = [{"path": p.path, "bytes": p.size, "sha256": p.sha256} for p in plans]
        todo: List[Shard] = []
        for shard in shards:
            record = None if overwrite else done_record(job, shard)
            if record is None:
                todo.append(shard)
            else:
                records[shard.index] = record
        if overwrite:       # a worker skips a shard whose record is complete (a task sent again): none is, yet
            for shard in todo:
                shard_file(str(out), shard.index, ".json").unlink(missing_ok=True)
        done_before = set(records)
        resumed = len(done_before)
        report = _ProgressLines(len(shards), resumed, progress)
        size = sum(p.size for p in plans)
        report.note(f"parse-corpus: {len(shards):,} shards ({resumed:,} done before) from {len(files):,} files "
                    f"({size / 1e6:,.1f} MB), planned in {planning:.1f}s; "
                    + (f"{run_workers(dask_client)} workers" if use_dask else "in this process"))
        write_manifest(str(out), {**manifest, "shards": [s.to_dict() for s in shards]})
        run_start = time.perf_counter()
        results = _Results(records, report, on_shard)
        failed = results.failed
        try:
            if use_dask:
                run_info = _run_on_cluster(dask_client, model_path, digest, job, todo, int(retries), results)
            else:
                run_info = _run_in_process(model_path, digest, job, todo, results)
        except BaseException:
            _finish(out, manifest, shards, records, failed, done_before, "interrupted", {})
            raise
        run_seconds = time.perf_counter() - run_start
        parse_seconds = time.perf_counter() - report.start      # after the model was loaded
    for path in stale_shard_files(str(out), len(shards)):
        path.unlink(missing_ok=True)
    merged = _merge(out, len(shards)) if merge and "conllu" in formats and not failed else None
    status = "complete" if not failed else "incomplete"
    parsed_words = sum(records[s.index]["words"] for s in todo if s.index in records)
    run_info.update(planning_seconds=planning, seconds=run_seconds, parse_seconds=parse_seconds,
                    words=parsed_words, parsed=len(todo) - len(failed), resumed=resumed)
    manifest_path = _finish(out, manifest, shards, records, failed, done_before, status, run_info)
    ordered = [records[s.index] for s in shards if s.index in records]
    return CorpusSummary(
        output=out, manifest=manifest_path, shards=len(shards), parsed=len(todo) - len(failed), resumed=resumed,
        documents=sum(r["documents"] for r in ordered), sentences=sum(r["sentences"] for r in ordered),
        words=sum(r["words"] for r in ordered), skipped=[s for r in ordered for s in r["skipped"]],
        failed=[failed[i] for i in sorted(failed)], seconds=time.perf_counter() - started,
        words_per_second=parsed_words / parse_seconds if parsed_words else 0.0, merged=merged)


def run_workers(client) -> int:
    from .cluster import worker_count

    return worker_count(client)


class _no_client:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _differences(previous: Dict, digest: str, kind: str, layout: str, shard_size: int, max_shard_bytes: int,
                 settings: ParseSettings) -> str:
    now = {"layout": layout, "shard_size": int(shard_size), "max_shard_bytes": int(max_shard_bytes),
           **settings.to_dict()}
    was = previous.get("settings", {})
    changed = [f"{k} {was.get(k)!r} -> {v!r}" for k, v in now.items() if was.get(k) != v]
    if previous.get("model", {}).get("sha256") != digest:
        changed.insert(0, "another model")
    return ", ".join(changed) or "another format version"


def _finish(out: Path, manifest: Dict, shards: List[Shard], records: Dict[int, Dict], failed: Dict[int, Dict],
            resumed: Set[int], status: str, run_info: Dict) -> Path:
    """Write manifest.json: the job, every shard (its record if done, marked "resumed" if a previous run did
    it; else its plan and status), totals, skipped, failed."""
    def entry(shard: Shard) -> Dict:
        if shard.index in records:
            return {**records[shard.index], "resumed": True} if shard.index in resumed else records[shard.index]
        return {"shard": shard.to_dict(), "status": "failed" if shard.index in failed else "todo"}

    entries = [entry(s) for s in shards]
    done = [records[s.index] for s in shards if s.index in records]
    totals = {"shards": len(shards), "done": len(done), "failed": len(failed),
              **{k: sum(r[k] for r in done) for k in ("documents", "sentences", "words")},
              "skipped": sum(len(r["skipped"]) for r in done)}
    return write_manifest(str(out), {**manifest, "status": status, "totals": totals, "run": run_info,
                                     "failed": [failed[i] for i in sorted(failed)], "shards": entries})
