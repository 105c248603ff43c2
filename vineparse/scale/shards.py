"""Run one shard: read its input, parse it, write its outputs and then its record.

The same function runs on a Dask worker (`cluster.shard_task`, the model from the worker's plugin) and in
the plain in-process loop, so both write the same bytes.
"""
import json
import os
import socket
import time
from typing import Any, Dict

from .manifest import EXTENSIONS, Job, done_record, make_record, shard_file, write_atomic
from .parsing import parse_items
from .plan import Shard, read_shard, split_items


def run_shard(model: Any, shard: Shard, job: Job) -> Dict:
    """Parse `shard` with the loaded `model` and write its outputs and record under `job.output` (unless a
    complete record of it is there already: Dask computes a finished task again when the worker holding its
    result dies, and that must cost no parsing nor rewrite a file).

    RETURNS (dict): the shard's record (see `manifest.make_record`), with "seconds": read, parse, serialise,
        write.
    RAISES (InputChangedError): the input changed since planning; (ItemError): the model failed on an item;
        (OSError): reading or writing failed.
    """
    done = done_record(job, shard)
    if done is not None:        # sent again after its result was lost with a worker: the files are written
        return done
    start = time.perf_counter()
    parts = read_shard(shard)
    items = [(part, line, data) for part, chunk in parts for line, data in split_items(job.layout, part, chunk)]
    if len(items) != shard.items:
        raise RuntimeError(f"{shard.where}: shard {shard.index} holds {len(items)} items, {shard.items} planned")
    read = time.perf_counter()
    parsed = parse_items(job.kind, model, items, job.settings, job.layout)
    written = time.perf_counter()
    for fmt, data in parsed.outputs.items():
        write_atomic(shard_file(job.output, shard.index, EXTENSIONS[fmt]), data)
    seconds = {"read": read - start, **parsed.seconds, "write": time.perf_counter() - written}
    record = make_record(job, shard, parsed, seconds, f"{socket.gethostname()}:{os.getpid()}")
    write_atomic(shard_file(job.output, shard.index, ".json"), json.dumps(record).encode("utf-8"))
    return record
