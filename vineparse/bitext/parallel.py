"""Sentence-level parallelism and progress lines for corpus-level calls.

Work is a function `fn(model, index, item, options) -> value` applied to every item; a documented input error
(`grammar.SkippablePairError`: an empty side, a pair too long for exact inference) skips the item with its
message; anything else, other ValueErrors included, is a bug or a bad argument and propagates. With
`processes > 1` a pool of worker processes each receives the model once, as msgpack bytes (the model's own
serialisation); items and results travel as usual between processes.
"""
import multiprocessing
import sys
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from .grammar import SkippablePairError

Progress = Union[bool, Callable[[str], None]]


def pair_seed(seed: int, index: int) -> int:
    """A seed for item `index` of a run seeded with `seed` (independent of how work is split)."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1, np.uint64)[0] >> 1)


def pair_id(item: Any, index: int) -> str:
    """The id of an item for reports: its `id` field if it has one, else its index."""
    return str(getattr(item, "id", "") or index)


class ProgressLines:
    """Prints `label: done/total pairs (skipped), elapsed, estimate left` at each tenth of the work (at most
    one line a second) and at least every 10 s, and always at the end."""

    def __init__(self, label: str, total: int, progress: Progress):
        self.label = label
        self.total = total
        self.write = (lambda line: print(line, file=sys.stdout, flush=True)) if progress is True else progress
        self.start = time.perf_counter()
        self.last = self.start
        self.every = max(1, total // 10)

    def update(self, done: int, skipped: int) -> None:
        if not self.write:
            return
        now = time.perf_counter()
        tenth = done % self.every == 0 and now - self.last >= 1.0
        if done == self.total or tenth or now - self.last > 10.0:
            self.last = now
            elapsed = now - self.start
            left = elapsed / done * (self.total - done) if done else 0.0
            note = f", {skipped} skipped" if skipped else ""
            self.write(f"{self.label}: {done}/{self.total} pairs{note}, {elapsed:.1f}s elapsed, ~{left:.0f}s left")


class _Worker:
    """Per-process state of a pool worker: the model, loaded once."""

    model = None
    fn: Optional[Callable] = None
    options: Optional[dict] = None


def _init_worker(model_bytes: bytes, fn: Callable, options: dict) -> None:
    from .model import BitextModel

    _Worker.model = BitextModel.from_bytes(model_bytes)
    _Worker.fn = fn
    _Worker.options = options


def _call(fn: Callable, model: Any, index: int, item: Any, options: dict) -> Tuple[Any, Optional[str]]:
    try:
        return fn(model, index, item, dict(options)), None
    except SkippablePairError as err:
        return None, f"{type(err).__name__}: {err}"


def _work(task: Tuple[int, Any]) -> Tuple[Any, Optional[str]]:
    index, item = task
    return _call(_Worker.fn, _Worker.model, index, item, _Worker.options)


def map_pairs(fn: Callable, model: Any, items: Sequence[Any], options: dict, processes: int = 1,
              progress: Progress = True, label: str = "bitext", client=None) -> List[Tuple[Any, Optional[str]]]:
    """[(value, None) or (None, reason)] for every item, in order.

    fn (Callable): module-level function `fn(model, index, item, options)` (picklable for worker processes).
    processes (int): >= 1; 1 runs in this process.
    client (None, str or distributed.Client): run on this Dask cluster instead (`vineparse.scale`; a scheduler
        address is connected to for the call); `processes` is then ignored.
    """
    if int(processes) < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    report = ProgressLines(label, len(items), progress)
    out: List[Tuple[Any, Optional[str]]] = []
    skipped = 0
    if client is not None:
        from ..scale.mapping import map_pairs_on_cluster

        return map_pairs_on_cluster(client, _call, fn, model, items, options, report)
    if processes == 1 or len(items) <= 1:
        for index, item in enumerate(items):
            out.append(_call(fn, model, index, item, options))
            skipped += out[-1][1] is not None
            report.update(len(out), skipped)
        return out
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    chunk = max(1, min(8, len(items) // (4 * processes)))
    with context.Pool(int(processes), initializer=_init_worker, initargs=(model.to_bytes(), fn, options)) as pool:
        for result in pool.imap(_work, list(enumerate(items)), chunksize=chunk):
            out.append(result)
            skipped += result[1] is not None
            report.update(len(out), skipped)
    return out
