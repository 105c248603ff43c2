"""The bitext engine on a Dask cluster: the same numbers, bit for bit, as in one process."""
import numpy as np
import pytest

from vineparse.bitext import BitextModel, BitextPair, corpus_expectations, fit, pud_pairs
from vineparse.scale.mapping import default_chunk_size, map_ordered

pytest.importorskip("distributed")
PAIRS = pud_pairs(max_product=60)[:10]


@pytest.fixture(scope="module")
def model():
    return BitextModel.train([(p.src, p.tgt) for p in pud_pairs()[:200]])


def test_corpus_expectations_on_the_cluster_equal_one_process(client, model):
    pairs = list(PAIRS) + [BitextPair(["x"], [], id="empty-target")]
    lines = []
    single = corpus_expectations(pairs, "randomized", 3, 5, model=model, progress=False)
    cluster = corpus_expectations(pairs, "randomized", 3, 5, model=model, progress=lines.append, client=client)
    assert cluster.skipped == single.skipped and [s[0] for s in single.skipped] == ["empty-target"]
    for a, b in zip(single.results, cluster.results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.counts, b.counts)
            np.testing.assert_array_equal(a.link_posteriors, b.link_posteriors)
    np.testing.assert_array_equal(single.totals, cluster.totals)
    assert lines[-1].startswith("bitext randomized: 11/11 pairs, 1 skipped")


@pytest.mark.parametrize("method", ["exact", "randomized"])
def test_fit_on_the_cluster_equals_one_process(client, model, method):
    single = fit(PAIRS, model, iterations=2, method=method, samples=2, seed=3, progress=False)
    cluster = fit(PAIRS, model, iterations=2, method=method, samples=2, seed=3, progress=False, client=client)
    np.testing.assert_array_equal(single.model.weights, cluster.model.weights)
    assert [h["objective"] for h in single.history] == [h["objective"] for h in cluster.history]


def _twice(model, index, item, options):
    return (model * options["factor"], index, item)


LOADS = []


def _load(payload: bytes) -> str:
    LOADS.append(payload)          # in the worker process's copy of this module
    return payload.decode()


def _loads(dask_worker=None):
    return list(LOADS)


def test_map_ordered_keeps_the_order_and_loads_each_model_once_per_worker(client):
    out = map_ordered(client, _twice, b"ab", _load, range(23), {"factor": 2}, chunk_size=3)
    assert out == [("abab", i, i) for i in range(23)]
    out = map_ordered(client, _twice, b"ab", _load, range(5), {"factor": 1}, chunk_size=1)
    assert out == [("ab", i, i) for i in range(5)]
    assert all(loads.count(b"ab") <= 1 for loads in client.run(_loads).values())      # 13 tasks, <= 1 load each
    assert sum(len(loads) for loads in client.run(_loads).values()) >= 1
    assert map_ordered(client, _twice, b"ab", bytes.decode, [], {}) == []
    assert default_chunk_size(1000, 2) == 8 and default_chunk_size(10, 2) == 1


def _fails(model, index, item, options):
    if index == 5:
        raise RuntimeError("a bug on item 5")
    return index


def test_an_exception_in_the_work_propagates(client):
    with pytest.raises(RuntimeError, match="a bug on item 5"):
        map_ordered(client, _fails, b"", bytes.decode, range(10), None, chunk_size=2)
