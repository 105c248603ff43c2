"""Checked Python entry points over the Cython dynamic programs.

Conventions of every function here: a sentence of n words has positions
0..n, 0 the root. Arc scores are float64 arrays `scores[h, m]` of shape
(n + 1, n + 1) in log space; `-inf` marks an impossible arc. An optional
boolean `mask` of the same shape says which arcs may be used (True = allowed).
The root column and the diagonal are never allowed. Heads are int64 arrays of
length n + 1 with heads[0] == -1.

Every function validates its input and raises `ValueError` naming the problem
(shape, dtype, NaN or +inf scores, finite scores beyond ±1e300, a mask that
admits no tree); the loops run in Cython with the GIL released, on a hypergraph
engine shared by all models (`vineparse/_kernels/hypergraph.pyx`; first order
also on dense SIMD charts). `*_batch` functions take many sentences in one call
and can use several threads (`batch.py`). A request whose memory would pass the
limit (`set_memory_limit`, default 2 GiB) raises `KernelSizeError` first.

The Eisner and vine kernels cover projective trees.
"""
from .._kernels.memory import DEFAULT_MEMORY_LIMIT, KernelSizeError, get_memory_limit, set_memory_limit
from ._checks import NoStructureError
from .first_order import eisner, eisner_marginals, eisner_max_marginals, eisner_sample
from .second_order import (eisner2, eisner2_marginals, eisner2_max_marginals, eisner2_sample,
                           second_order_parts)
from .third_order import (eisner3, eisner3_marginals, eisner3_max_marginals, eisner3_sample,
                          third_order_parts)
from .batch import (eisner2_batch, eisner2_marginals_batch, eisner2_max_marginals_batch, eisner3_batch,
                    eisner3_marginals_batch, eisner3_max_marginals_batch, eisner_batch, eisner_marginals_batch,
                    eisner_max_marginals_batch, eisner_sample_batch, has_openmp, vine_batch, vine_marginals_batch,
                    vine_max_marginals_batch)
from .vine import (ATTACH_OUTER_LEFT, ATTACH_OUTER_RIGHT, ATTACH_ROOT, ATTACH_SHORT, vine, vine_marginals,
                   vine_max_marginals)

__all__ = ["NoStructureError", "KernelSizeError", "set_memory_limit", "get_memory_limit", "DEFAULT_MEMORY_LIMIT",
           "eisner", "eisner_max_marginals", "eisner_marginals", "eisner_sample",
           "eisner2", "eisner2_max_marginals", "eisner2_marginals", "eisner2_sample", "second_order_parts",
           "eisner3", "eisner3_max_marginals", "eisner3_marginals", "eisner3_sample", "third_order_parts",
           "vine", "vine_max_marginals", "vine_marginals",
           "ATTACH_SHORT", "ATTACH_ROOT", "ATTACH_OUTER_LEFT", "ATTACH_OUTER_RIGHT",
           "eisner_batch", "eisner_max_marginals_batch", "eisner_marginals_batch", "eisner_sample_batch",
           "eisner2_batch", "eisner2_max_marginals_batch", "eisner2_marginals_batch",
           "eisner3_batch", "eisner3_max_marginals_batch", "eisner3_marginals_batch",
           "vine_batch", "vine_max_marginals_batch", "vine_marginals_batch", "has_openmp"]
