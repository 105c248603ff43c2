"""Run a function over items from several Python threads at once, with a time bound.

The threads are daemons: a deadlock fails the test (the bound passes) instead of hanging the run.
"""
import threading
from typing import Any, Callable, List, Sequence

THREAD_COUNTS = (2, 4, 8)


def run_in_threads(work: Callable[[Any], Any], items: Sequence[Any], n_threads: int,
                   timeout: float = 300.0) -> List[Any]:
    """[work(item) for item in items], computed by `n_threads` threads that start together and take the items
    in turn from a shared counter. RAISES: the first exception a call raised; AssertionError when the threads
    have not finished after `timeout` seconds."""
    results: List[Any] = [None] * len(items)
    errors: List[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(n_threads)
    next_item = [0]

    def worker():
        start.wait()
        while True:
            with lock:
                i = next_item[0]
                next_item[0] += 1
            if i >= len(items) or errors:
                return
            try:
                results[i] = work(items[i])
            except BaseException as error:      # noqa: B902 -- reported to the test
                errors.append(error)
                return

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), f"{n_threads} threads still running after {timeout} s"
    if errors:
        raise errors[0]
    return results
