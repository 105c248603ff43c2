"""Regressions of issue 15 (kernels): part counts past 2^31, failed allocations,
finite scores near the end of the double range, and the memory limit."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vineparse import kernels
from vineparse._kernels.arcs import ArcIndex
from vineparse._kernels.memory import parse_size


@pytest.fixture
def memory_limit():
    """Set the kernels' memory limit for one test, then restore it."""
    previous = kernels.get_memory_limit()
    yield kernels.set_memory_limit
    kernels.set_memory_limit(previous)


def test_issue15_part_counts_past_int32_are_exact():
    """Unmasked third-order layouts have more than 2^31 grand-sibling parts near n = 300;
    int32 counts went negative (n = 300) or wrapped (n = 340) and wrote past buffers."""
    for n in (300, 340):
        arcs = ArcIndex(np.ones((n + 1, n + 1), dtype=np.uint8))
        # every word h >= 1 has n allowed heads; its modifiers at list position j have j + 1 siblings
        sides = [(n - h) * (n - h + 1) // 2 + (h - 1) * h // 2 for h in range(1, n + 1)]
        assert arcs.n_grand_sibling_parts == n * sum(sides) > 2**31
        assert arcs.n_grandparent_parts == n * n * (n - 1) + 0     # root arcs have no grandparent
        assert arcs.n_sibling_parts == sum(sides) + n * (n + 1) // 2


def test_issue15_listing_too_many_parts_raises_before_allocating(memory_limit):
    memory_limit("1G")
    arcs = ArcIndex(np.ones((301, 301), dtype=np.uint8))
    with pytest.raises(kernels.KernelSizeError, match="memory limit"):
        arcs.grand_sibling_parts()
    with pytest.raises(kernels.KernelSizeError, match="memory limit"):
        kernels.third_order_parts(None, 300)
    with pytest.raises(kernels.KernelSizeError, match="third-order parsing would need about"):
        kernels.eisner3(np.zeros((301, 301)))


def test_issue15_failed_allocation_is_a_memory_error(tmp_path):
    """With the address space capped below what a chart needs (and the kernels' own limit
    lifted), malloc fails: the kernels raise MemoryError, never return garbage."""
    script = textwrap.dedent("""
        import resource, numpy as np
        from vineparse import kernels
        kernels.set_memory_limit("1T")
        scores = np.zeros((1601, 1601))
        outer = np.zeros((1601, 2))
        size = int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmSize")))
        resource.setrlimit(resource.RLIMIT_AS, ((size << 10) + (100 << 20), resource.RLIM_INFINITY))
        for call in (lambda: kernels.eisner(scores, engine="dense"),
                     lambda: kernels.eisner(scores, engine="hypergraph"),
                     lambda: kernels.vine(scores, outer, 1600)):
            try:
                call()
            except MemoryError as error:
                print("MemoryError:", error)
            else:
                print("no error")
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stderr
    assert len(lines) == 3 and all(line.startswith("MemoryError: could not allocate") for line in lines), lines


@pytest.mark.parametrize("value", [-1e308, 1e308, -1.5e300, np.nextafter(1e300, np.inf)])
def test_issue15_scores_beyond_the_finite_range_are_rejected(value):
    """Finite scores near -1e308 overflowed to -inf in sums and were reported as "no tree"."""
    scores = np.zeros((6, 6))
    scores[2, 3] = value
    for call in (kernels.eisner, kernels.eisner_marginals, lambda s: kernels.eisner(s, engine="hypergraph"),
                 lambda s: kernels.eisner2(s, np.zeros((6, 6, 6))), lambda s: kernels.eisner3(s),
                 lambda s: kernels.vine(s, np.zeros((6, 2)), 2)):
        with pytest.raises(ValueError, match=r"scores\[2, 3\] = .* is outside the finite score range"):
            call(scores)
    sib = np.zeros(len(kernels.second_order_parts(None, 5)))
    sib[4] = value
    with pytest.raises(ValueError, match=r"sib\[4\] = .* is outside the finite score range"):
        kernels.eisner2(np.zeros((6, 6)), sib)
    outer = np.zeros((6, 2))
    outer[3, 1] = value
    with pytest.raises(ValueError, match=r"outer\[3, 1\] = .* is outside the finite score range"):
        kernels.vine(np.zeros((6, 6)), outer, 2)


@pytest.mark.parametrize("engine", ["dense", "hypergraph"])
def test_scores_at_the_bound_give_finite_results(engine):
    n = 60
    scores = np.full((n + 1, n + 1), -1e300)
    scores[0, 1:] = 1e300
    heads = kernels.eisner(scores, engine=engine)
    best, mm = kernels.eisner_max_marginals(scores, engine=engine)
    log_z, marg = kernels.eisner_marginals(scores, engine=engine)
    assert np.isfinite(best) and np.isfinite(log_z) and best == pytest.approx(1e300 - (n - 1) * 1e300)
    assert (heads[1:] == 0).sum() == 1
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-9)


def test_memory_limit_is_checked_before_allocating(memory_limit):
    previous = memory_limit(2**20)
    assert previous == kernels.get_memory_limit() or previous > 0
    with pytest.raises(kernels.KernelSizeError, match=r"over the memory limit of 1 MiB .*set_memory_limit"):
        kernels.eisner(np.zeros((201, 201)))
    with pytest.raises(kernels.KernelSizeError):
        kernels.eisner_batch([np.zeros((5, 5)), np.zeros((201, 201))], n_threads=2)
    with pytest.raises(kernels.KernelSizeError, match="result arrays"):
        kernels.eisner_marginals(np.zeros((401, 401)))
    with pytest.raises(kernels.KernelSizeError):
        kernels.vine(np.zeros((2001, 2001)), np.zeros((2001, 2)), 100)
    assert kernels.eisner(np.zeros((11, 11)))[0] == -1            # small requests still run
    memory_limit("2G")
    assert kernels.get_memory_limit() == 2 << 30
    assert len(kernels.eisner(np.zeros((201, 201)))) == 201


def test_memory_limit_from_the_environment(tmp_path):
    done = subprocess.run([sys.executable, "-c", "from vineparse import kernels; print(kernels.get_memory_limit())"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"VINEPARSE_MEMORY_LIMIT": "512M", "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == str(512 << 20), done.stderr


@pytest.mark.parametrize("text,expected", [("2G", 2 << 30), ("512m", 512 << 20), ("1.5K", 1536),
                                           (" 1000 ", 1000), ("4GB", 4 << 30), (12345, 12345)])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["lots", "-1", "0", "2Q"])
def test_parse_size_rejects_nonsense(text):
    with pytest.raises(ValueError, match="memory"):
        parse_size(text)
