"""Corpus scale on Dask: parse a corpus in resumable shards, and map the bitext engine over a cluster.

- `parse_corpus` (`corpus.py`): a spaCy pipeline over plain text, or a cascade model over CoNLL-U, in shards
  on an embedded LocalCluster (default) or any Dask scheduler; `python -m vineparse parse-corpus`.
- `map_ordered` (`mapping.py`): the ordered map behind `vineparse.bitext.corpus_expectations(client=...)` and
  `fit(client=...)`.

Dask (`dask`, `distributed`) is the optional dependency `vineparse[scale]`; `parse_corpus(..., workers=0)`
runs in this process without it.
"""
from .corpus import DEFAULT_SHARD_SIZE, CorpusSummary, parse_corpus

__all__ = ["parse_corpus", "CorpusSummary", "DEFAULT_SHARD_SIZE", "open_client", "map_ordered"]


def __getattr__(name):
    # The Dask-dependent parts load on first use, so that `workers=0` works without Dask.
    if name == "open_client":
        from .cluster import open_client

        return open_client
    if name == "map_ordered":
        from .mapping import map_ordered

        return map_ordered
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
