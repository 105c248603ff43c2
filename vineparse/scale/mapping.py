"""An ordered map over items on a Dask cluster, with a model loaded once per worker process.

Used by the bitext engine (`corpus_expectations(..., client=)`, `fit(..., client=)`): items go out in chunks
(one task each), the model travels once to every worker as its own serialised bytes (scattered with
`broadcast=True`) and is deserialised once per worker process and model (a small cache keyed by the bytes'
SHA-256), results come back in item order, so that reducing them on the client gives the same numbers, bit
for bit, as the single-process loop. Dask reruns the chunks of a lost worker; an exception raised by `work`
(a bug: bad input is the caller's to catch inside `work`) cancels the rest and propagates.
"""
import hashlib
import threading
from collections import OrderedDict
from typing import Any, Callable, List, Optional, Sequence

from .cluster import worker_count

_MODELS: "OrderedDict[str, Any]" = OrderedDict()
_MODELS_LOCK = threading.Lock()
CACHED_MODELS = 2       # models kept per worker process (fit sends new weights each iteration)


def _cached_model(digest: str, payload: bytes, load: Callable[[bytes], Any]) -> Any:
    with _MODELS_LOCK:
        if digest in _MODELS:
            _MODELS.move_to_end(digest)
            return _MODELS[digest]
        model = load(payload)
        _MODELS[digest] = model
        while len(_MODELS) > CACHED_MODELS:
            _MODELS.popitem(last=False)
        return model


def _chunk_task(work: Callable, digest: str, payload: bytes, load: Callable, start: int, chunk: Sequence,
                options: Any) -> List[Any]:
    model = _cached_model(digest, payload, load)
    return [work(model, start + i, item, options) for i, item in enumerate(chunk)]


def default_chunk_size(items: int, workers: int) -> int:
    """About four chunks per worker, at most 8 items each (items vary a lot in cost)."""
    return max(1, min(8, items // (4 * workers)))


def map_ordered(client, work: Callable[[Any, int, Any, Any], Any], payload: bytes, load: Callable[[bytes], Any],
                items: Sequence[Any], options: Any, *, chunk_size: Optional[int] = None,
                on_chunk: Optional[Callable[[List[Any]], None]] = None, retries: int = 0) -> List[Any]:
    """[work(model, i, items[i], options) for every i], computed on the cluster, in order.

    client (distributed.Client): the cluster.
    work (Callable): a module-level function (it is pickled by reference).
    payload (bytes): the serialised model; load (Callable): bytes -> model, run once per worker process.
    options: passed to every call (sent to each worker once).
    chunk_size (int or None): items per task (None: `default_chunk_size`).
    on_chunk (Callable or None): called on the client with each chunk's results as chunks finish (any order).
    retries (int): Dask retries of a chunk whose task raised.
    """
    from distributed import as_completed

    items = list(items)
    if not items:
        return []
    size = int(chunk_size or default_chunk_size(len(items), worker_count(client)))
    if size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    digest = hashlib.sha256(payload).hexdigest()
    shared_payload, shared_options = client.scatter([payload, options], broadcast=True, hash=False)
    starts = range(0, len(items), size)
    futures = [client.submit(_chunk_task, work, digest, shared_payload, load, start, items[start:start + size],
                             shared_options, pure=False, retries=retries) for start in starts]
    position = {future.key: k for k, future in enumerate(futures)}
    results: List[Optional[List[Any]]] = [None] * len(futures)
    try:
        for future in as_completed(futures):
            values = future.result()
            results[position[future.key]] = values
            if on_chunk is not None:
                on_chunk(values)
    except BaseException:
        client.cancel(futures)
        raise
    return [value for chunk in results for value in chunk]


def map_pairs_on_cluster(client, call: Callable, fn: Callable, model: Any, items: Sequence[Any], options: Any,
                         report: Any) -> List[Any]:
    """The Dask path of `vineparse.bitext.parallel.map_pairs`: [call(fn, model, i, items[i], options)] in order,
    each a (value, None) or (None, reason) pair; `report.update(done, skipped)` as chunks finish.

    client (None, str or distributed.Client): a Client, or a scheduler address connected to for the call.
    model: has `to_bytes()` and the class method `from_bytes(data)`.
    """
    from functools import partial

    from .cluster import open_client

    done = skipped = 0

    def chunk_done(values: List[Any]) -> None:
        nonlocal done, skipped
        done += len(values)
        skipped += sum(error is not None for _, error in values)
        report.update(done, skipped)

    with open_client(client) as dask_client:
        return map_ordered(dask_client, partial(call, fn), model.to_bytes(), type(model).from_bytes, items,
                           options, on_chunk=chunk_done)
