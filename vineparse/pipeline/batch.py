"""A batch's encoder output and scorer projections, shared by every sentence of the batch.

The encoder gives per doc an (n + 1, w) array (root row first); the batch stacks them into X (R, w), and each
scorer projects X once (`Batch.predict`), or once with its backward pass (`Batch.begin_update`, training).
`rows_of(doc, start, end)` names a sentence's rows (its doc's root row, then its tokens); `scores`
(`parts.BatchScores`) turns any lists of rows into `parts.SentenceScores` (the cascade reads them on the CPU).
"""
from typing import Dict, List, Optional, Sequence

import numpy as np
from scipy.linalg.blas import sgemm
from scipy.special import expit
from thinc.api import Model

from .._kernels.row_blocks import consecutive_rows
from .architectures import PART_REFS
from .parts import BatchScores, PartTable, SentenceScores
from .scorers import biaffine_row_terms, span_row_terms, start_logits


def as_cpu(ops, array) -> np.ndarray:
    return ops.to_numpy(array)


def project(layer: Model, X):
    """`layer.predict(X)` for a thinc `Linear` or `Relu` layer, as one `xp.matmul` (numpy's BLAS on the CPU,
    cupy's on a GPU): thinc's own CPU gemm is blis, whose generic fallback kernel is several times slower on
    CPUs it has no kernels for. Other layers predict as usual."""
    return project_all([layer], X)[0]


def _is_affine(layer: Model) -> bool:
    return layer.name in ("linear", "relu") and layer.has_param("W")


def project_all(layers: Sequence[Model], X) -> list:
    """`[project(layer, X) for layer in layers]`, the `Linear` and `Relu` layers among them as one matmul
    with their weights stacked (a wide product runs faster than several narrow ones, and writes one output);
    their outputs are column slices of it. A layer listed twice (a projection scorers share) is computed once."""
    affine = list({id(layer): layer for layer in layers if _is_affine(layer)}.values())
    out = {}
    if affine:
        xp = affine[0].ops.xp
        Y = affine_product(xp, X, xp.concatenate([layer.get_param("W") for layer in affine]),
                           xp.concatenate([layer.get_param("b") for layer in affine]))
        start = 0
        for layer in affine:
            width = layer.get_param("W").shape[0]
            out[id(layer)] = Y[:, start:start + width]
            if layer.name == "relu":
                xp.maximum(out[id(layer)], 0, out=out[id(layer)])
            start += width
    return [out[id(layer)] if id(layer) in out else layer.predict(X) for layer in layers]


def affine_product(xp, X, W, b):
    """X W^T + b for X (R, w), W (c, w), b (c,). For float32 numpy arrays the bias is the product's starting
    value (scipy's sgemm with beta = 1), which saves a pass over the (R, c) output; elsewhere `xp.matmul`."""
    if xp is np and X.dtype == W.dtype == b.dtype == np.float32 and len(X) and len(W) and X.shape[1]:
        Y = np.empty((X.shape[0], W.shape[0]), dtype=np.float32)
        Y[...] = b
        sgemm(1.0, W.T, X.T, beta=1.0, c=Y.T, trans_a=1, overwrite_c=1)      # Y^T = W X^T + Y^T, in place
        return Y
    Y = xp.matmul(X, W.T)
    Y += b
    return Y


def stacked(xp, vectors: Sequence):
    """The rows of `vectors` (2-d arrays of one width and dtype) in one (R, w) array: the array they are
    consecutive row blocks of, in order, where there is one (numpy views of one C-contiguous array, as
    `scorers.with_root_row` gives them; no copy, `_kernels/row_blocks.pyx`), else `xp.vstack(vectors)`."""
    joined = consecutive_rows(list(vectors)) if xp is np else None
    return xp.vstack(vectors) if joined is None else joined


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
        self.X = stacked(self.ops.xp, vectors) if vectors else None
        self.want_parts = parts
        self.HD = None
        self.arc_terms = None
        self.span_terms = None
        self.outer = None
        self.tables: Optional[Dict[int, PartTable]] = None
        self.label_projection = None
        self.start_projection = None
        self.starts = None

    def rows_of(self, doc: int, start: int, end: int) -> np.ndarray:
        """The rows of tokens start..end - 1 of doc `doc`, its root row first (int64 (end - start + 1,))."""
        first = int(self.doc_rows[doc])
        rows = np.arange(first + start, first + end + 1, dtype=np.int64)
        rows[0] = first
        return rows

    def part_tables(self, projections) -> Dict[int, PartTable]:
        tables = {}
        for kind, name in PART_REFS.items():
            scorer = self.model.get_ref(name)
            # the column block of the batch's projection as it is: the runtime reads its rows in place
            tables[kind] = PartTable(as_cpu(self.ops, projections[kind]).astype(np.float32, copy=False),
                                     np.asarray(scorer.attrs["starts"], dtype=np.int64),
                                     *(np.ascontiguousarray(as_cpu(self.ops, scorer.get_param(p)), dtype=np.float32)
                                       for p in ("v", "none", "Q")))
        return tables

    def predict(self, labels: bool = False, starts: bool = False) -> "Batch":
        """Project X for every scorer (no gradients), all in one product (`project_all`); with `labels` for
        the label scorer too (`label_projection`, every row), with `starts` for the sentence-start scorer
        (where the model has one; for `start_probabilities`). Without `labels`, labelling projects only the
        rows the labelled arcs read (`labels.label_projection_where_read`): `labels` pays where one batch
        labels many sets of arcs."""
        if self.X is None:
            return self
        layers = [self.model.get_ref("arcs").layers[0], self.model.get_ref("outer")]
        if self.want_parts:
            layers += [self.model.get_ref(name).layers[0] for name in PART_REFS.values()]
        start_at = len(layers) if starts and self.model.has_ref("starts") else None
        if start_at is not None:
            layers.append(self.model.get_ref("starts").layers[0])
        if labels:
            layers.append(self.model.get_ref("labels").layers[0])
        projections = project_all(layers, self.X)
        if start_at is not None:
            self.start_projection = projections[start_at]
        self.HD = projections[0]
        self.arc_terms = biaffine_row_terms(self.model.get_ref("arcs"), self.HD)
        self.span_terms = span_row_terms(self.model.get_ref("arcs"), self.HD)
        self.outer = as_cpu(self.ops, projections[1]).astype(np.float64)
        if self.want_parts:
            self.tables = self.part_tables(dict(zip(PART_REFS, projections[2:2 + len(PART_REFS)])))
        if labels:
            self.label_projection = projections[-1]
        return self

    def start_probabilities(self) -> np.ndarray:
        """The sentence-start scorer's probability for every row of X (float64 (R,); read token rows only):
        one pass over X, no gradients, kept for later calls. Only for a model with that scorer
        (`start_width` > 0)."""
        if self.starts is None:
            scorer = self.model.get_ref("starts")
            P = project(scorer.layers[0], self.X) if self.start_projection is None else self.start_projection
            self.starts = expit(as_cpu(self.ops, start_logits(scorer, P)[0]).astype(np.float64))
        return self.starts

    @property
    def scores(self) -> BatchScores:
        """What the batch's sentences are scored from (after `predict`, or the training projections set)."""
        return BatchScores(self.arc_terms, self.outer, self.tables, self.model.get_ref("arcs"), self.HD,
                           self.span_terms)

    def score(self, rows: List[np.ndarray], positions: Optional[List[Optional[np.ndarray]]] = None,
              cache: bool = False) -> List[SentenceScores]:
        """`SentenceScores` of each row list (see `parts.BatchScores.sentences`)."""
        return self.scores.sentences(rows, positions, cache)
