"""Dask: the client a job runs on, and the worker side of a corpus job (the model loaded once per worker).

`open_client` gives a `distributed.Client`: the one passed in, one connected to a scheduler address (any
deployment: `dask scheduler` + `dask worker` on machines, dask-kubernetes, dask-jobqueue, dask-yarn, ...), or
one on an embedded `LocalCluster` of single-threaded worker processes, closed again at the end. Dask does the
scheduling, the retries (`retries=` on the tasks) and the recovery from lost workers (their tasks run again
elsewhere); nothing here queues or retries work.

Each worker loads the model once, in `ModelPlugin.setup`, when the plugin is registered (and on any worker
that joins later, e.g. one a nanny restarts after a crash); a shard task takes the model from its worker's
plugin. Workers must see the model, the inputs and the output folder under the same paths (one machine, or
a shared file system).
"""
import logging
import time
from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional, Union

from .manifest import Job
from .models import load_model
from .plan import Shard
from .shards import run_shard

try:
    import dask
    from distributed import Client, LocalCluster, WorkerPlugin, get_worker
except ImportError as err:  # the optional dependency is missing
    raise ImportError("vineparse.scale needs Dask: pip install 'vineparse[scale]' (dask and distributed)") from err


# Settings of the LocalClusters we start (read when the scheduler and the worker processes start):
# - one task at a time per worker (no task waits on a worker that may die): a lost worker costs only its shard;
# - no statistical profiler sampling the parsing thread;
# - glibc's mmap threshold at its usual dynamic maximum (32 MiB), trimming above 256 MiB: Dask sets
#   MALLOC_TRIM_THRESHOLD_ for its workers, which also pins the mmap threshold at 128 KiB; every array above
#   that was then a fresh mapping (page faults, zeroing) and the weight tables got no transparent huge pages,
#   so a worker parsed ~10% slower than one process.
LOCAL_CLUSTER_CONFIG = {
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 1 << 28,
    "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 1 << 25,
}


@contextmanager
def open_client(client: Union[None, str, Client] = None, workers: Optional[int] = None,
                memory_limit: Union[str, int, None] = "auto") -> Iterator[Client]:
    """A Dask client for the duration of the block.

    client (None, str or Client): a Client to use as is; a scheduler address ("tcp://host:8786") to connect
        to; None for a new LocalCluster.
    workers (int or None): the LocalCluster's worker processes (None: one per core), one thread each.
    memory_limit: each local worker's memory limit (Dask's notation: "auto", "2GiB", bytes).
    """
    if isinstance(client, Client):
        yield client
        return
    if isinstance(client, str):
        with Client(client) as connected:
            yield connected
        return
    if client is not None:
        raise TypeError("client must be a distributed.Client, a scheduler address or None, not "
                        f"{type(client).__name__}")
    if workers is not None and int(workers) < 1:
        raise ValueError(f"a local cluster needs workers >= 1, got {workers}")
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                               dashboard_address=None, silence_logs=logging.ERROR)
    with cluster, Client(cluster) as local:
        yield local


def worker_count(client: Client) -> int:
    """The workers the scheduler knows now (at least 1 for sizing work)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


class ModelPlugin(WorkerPlugin):
    """Loads the job's model once on each worker (`setup`) and keeps it until the plugin is removed.

    kind, path, digest: as for `models.load_model` (the fingerprint is checked on the worker).
    """

    def __init__(self, kind: str, path: str, digest: str):
        self.kind, self.path, self.digest = kind, path, digest
        self.model: Any = None
        self.seconds = 0.0

    def setup(self, worker) -> None:
        start = time.perf_counter()
        self.model = load_model(self.kind, self.path, self.digest)
        self.seconds = time.perf_counter() - start

    def teardown(self, worker) -> None:
        self.model = None


def plugin_name(job: Job) -> str:
    return f"vineparse-model-{job.key[:16]}"


@contextmanager
def model_on_workers(client: Client, job: Job, path: str, digest: str,
                     worker_timeout: float = 60.0) -> Iterator[str]:
    """Load the model on every worker (and on workers that join later) for the duration of the block, then
    remove it. YIELDS (str): the plugin's name.
    RAISES: what loading raised on a worker (a missing or bad model file); (TimeoutError): no worker joined the
        scheduler within `worker_timeout` seconds.
    """
    try:
        client.wait_for_workers(1, timeout=worker_timeout)
    except TimeoutError:
        raise TimeoutError(f"no Dask worker joined the scheduler at {client.scheduler.address} within "
                           f"{worker_timeout:.0f}s") from None
    name = plugin_name(job)
    try:
        client.register_plugin(ModelPlugin(job.kind, path, digest), name=name)
        yield name
    finally:
        try:
            client.unregister_worker_plugin(name)
        except ValueError:              # the registration itself failed: nothing to remove
            pass


def model_load_seconds(client: Client, name: str) -> Dict[str, float]:
    """{worker address: seconds its plugin took to load the model}."""
    return client.run(lambda dask_worker: getattr(dask_worker.plugins.get(name), "seconds", None))


def shard_task(plugin: str, shard: Shard, job: Job) -> Dict:
    """A Dask task: run one shard with the model of this worker's plugin."""
    return run_shard(get_worker().plugins[plugin].model, shard, job)
