"""A batch's encoder output and scorer projections, shared by every sentence of the batch.

The encoder gives per doc an (n + 1, w) array (root row first); the batch stacks them into X (R, w), and each
scorer projects X once (`Batch.predict`), or once with its backward pass (`Batch.begin_update`, training).
`rows_of(doc, start, end)` names a sentence's rows (its doc's root row, then its tokens), `score` gives the
dense arc scores of any lists of rows (contiguous sentences batched by `scorers.biaffine_predict`) as `parts.SentenceScores` (the cascade reads them on the CPU).
"""
from typing import Dict, List, Optional, Sequence

import numpy as np
from thinc.api import Model

from .architectures import PART_REFS
from .parts import PartTable, SentenceScores
from .scorers import biaffine_predict, biaffine_row_terms, biaffine_scores


def as_cpu(ops, array) -> np.ndarray:
    return ops.to_numpy(array)


def project(layer: Model, X):
    """`layer.predict(X)` for a thinc `Linear` or `Relu` layer, as one `xp.matmul` (numpy's BLAS on the CPU,
    cupy's on a GPU): thinc's own CPU gemm is blis, whose generic fallback kernel is several times slower on
    CPUs it has no kernels for. Other layers predict as usual."""
    if layer.name not in ("linear", "relu") or not layer.has_param("W"):
        return layer.predict(X)
    xp = layer.ops.xp
    Y = xp.matmul(X, layer.get_param("W").T)
    Y += layer.get_param("b")
    return xp.maximum(Y, 0, out=Y) if layer.name == "relu" else Y


class Batch:
    """The stacked encoder output of a batch and what every sentence of it reads.

    model (Model): the `vine_cascade` model (`architectures.build_vine_cascade_model`).
    vectors (List[Floats2d]): the encoder output per doc, (n + 1, w) each.
    parts (bool): also project for the higher-order part scorers.
    """

    def __init__(self, model: Model, vectors: Sequence, parts: bool = True):
        self.model = model
        self.ops = model.ops
        sizes = [len(v) for v in vectors]
        self.doc_rows = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if sizes else np.zeros(0)
        self.X = self.ops.xp.vstack(vectors) if vectors else None
        self.want_parts = parts
        self.HD = None
        self.arc_terms = None
        self.outer = None
        self.tables: Optional[Dict[int, PartTable]] = None

    def rows_of(self, doc: int, start: int, end: int) -> np.ndarray:
        """The rows of tokens start..end - 1 of doc `doc`, its root row first (int64 (end - start + 1,))."""
        first = self.doc_rows[doc]
        return np.concatenate([[first], first + 1 + np.arange(start, end)]).astype(np.int64)

    def part_tables(self, projections) -> Dict[int, PartTable]:
        tables = {}
        for kind, name in PART_REFS.items():
            scorer = self.model.get_ref(name)
            tables[kind] = PartTable(np.ascontiguousarray(as_cpu(self.ops, projections[kind]), dtype=np.float32),
                                     *(np.ascontiguousarray(as_cpu(self.ops, scorer.get_param(p)), dtype=np.float32)
                                       for p in ("v", "none", "Q")))
        return tables

    def predict(self) -> "Batch":
        """Project X for every scorer (no gradients)."""
        if self.X is None:
            return self
        self.HD = project(self.model.get_ref("arcs").layers[0], self.X)
        self.arc_terms = biaffine_row_terms(self.model.get_ref("arcs"), self.HD)
        self.outer = as_cpu(self.ops, project(self.model.get_ref("outer"), self.X)).astype(np.float64)
        if self.want_parts:
            self.tables = self.part_tables({kind: project(self.model.get_ref(name).layers[0], self.X)
                                            for kind, name in PART_REFS.items()})
        return self

    def score(self, rows: List[np.ndarray], positions: Optional[List[Optional[np.ndarray]]] = None,
              cache: bool = False) -> List[SentenceScores]:
        """`SentenceScores` of each row list (dense arc scores by the biaffine layer, one call for all)."""
        if not rows:
            return []
        scorer = self.model.get_ref("arcs")
        if positions is None or all(p is None for p in positions):
            dense = biaffine_predict(self.arc_terms, rows)
        else:
            dense = [as_cpu(self.ops, S) for S in biaffine_scores(scorer, self.HD, rows, positions)[0]]
        return [SentenceScores(S, self.outer[r], self.tables, r, cache=cache) for S, r in zip(dense, rows)]
