"""The scorers of `vine_cascade` as thinc layers: arcs, vine outer arcs, higher-order parts and labels.

Every scorer reads X, the encoder's token vectors of a batch stacked into one (R, w) array with a learned
root row before each doc's tokens (`with_root_row`), and owns its projection of X (a thinc `Relu` or
`Linear`) and the parameters on top of it. Forward and backward passes use the layer's `ops` (`ops.xp`,
`ops.gemm`, `ops.scatter_add`), so the same config trains on CPU or GPU; the cascade's dynamic programs read
the scores on the CPU. Positions: a sentence is a list of rows of X (its root row first, then its tokens);
`distance_buckets` gives the signed, log-bucketed distance of an arc (h, m) of token positions (0 = root).

* arcs (biaffine, Dozat & Manning 2017): [H | D] = relu(X W_a + b_a), s(h, m) = H[h] U D[m] + H[h] . u +
  H[h] . F[b] + D[m] . E[b] + c[b], b = bucket(h, m): a translation-invariant convolutional encoder cannot
  tell equal words at different distances apart without the distance terms. Per sentence the scores are a
  dense (n + 1, n + 1) array; O(n^2 a) per sentence. With a span width k > 0 the projection also gives
  Z (rows, k) and each arc adds (H[h] G + D[m] G') . mean(Z[i + 1 .. j - 1]), i < j the arc's two places in
  the sentence's row list: what lies between head and dependent (0 for adjacent words). With prefix sums
  C of Z that is a difference of two entries of (H G) C^T and of (D G') C^T, divided by j - i - 1: O(n^2 k)
  per sentence (`span_scores`).
* outer arcs of the vine: a `Linear` (w -> 2) per row: s(m, left), s(m, right).
* sentence starts: a logit per row from the row and the one before it (`start_scorer`), for docs without
  boundaries.
* sibling (h, s, m), grandparent (g, h, m), grand-sibling (g, h, s, m): v . relu(sum_j P[w_j, role j] +
  Q[bucket(h, m)]) with P = X W_k + b_k (rows, roles x p) (a linear layer over the concatenated words is
  the sum of per-role projections, so each row is projected once and a part costs O(p)); a learned row
  replaces the sibling's when s == h. `PART_ROLES[kind]` counts the roles; `ROLE_COLUMNS[kind]` names them,
  in column order. Each kind projects X on its own, or (`shared_part_projection`) the three kinds read one
  projection P = X W + b (rows, 4 x p) of every row in each role g, h, s, m, each kind with its own v, "no
  sibling" row and distance rows (`role_starts` gives each kind's column blocks).
* labels of an arc (h, m): logits = Linear(relu(P_l[h, head] + P_l[m, dep] + M[b])), P_l = X W_l + b_l,
  with `children` also + P_l[l, left] + P_l[r, right] for m's outermost left and right children l, r in the
  tree (a learned row where m has none); `outer_children` finds them.

Sizes: a, p, l (the widths) and nL labels; every scorer costs O(rows x w x width) for its projection.
Initialization: the top model (`architectures.py`) initializes each projection (`layers[0]`) on a sample of X,
then the scorer (its own parameters: zeros, or small random "no sibling" rows).
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np
from thinc.api import Linear, Model, Relu
from thinc.types import Floats1d, Floats2d, Ints1d

from .._kernels.biaffine import biaffine_dense
from ..cascade.structures import GRAND_SIBLING, GRANDPARENT, SIBLING
from .._kernels.label_hidden import label_hidden_rows
from .._kernels.span import add_span_dense

# upper bounds (exclusive) of the distance classes |h - m| = 1, 2, 3, 4, 5, 6-7, 8-10, 11-15, 16-20, 21-30, 31+
DISTANCE_EDGES = np.array([2, 3, 4, 5, 6, 8, 11, 16, 21, 31])
DISTANCE_CLASSES = len(DISTANCE_EDGES) + 1
N_BUCKETS = 1 + 2 * DISTANCE_CLASSES          # the root, then heads left of m, then heads right of m
BUCKET_TABLE_LIMIT = 512                      # tables of `dense_buckets` are cached up to this length
_DENSE_BUCKETS = {}

ROLE_COLUMNS = {SIBLING: ("h", "s", "m"), GRANDPARENT: ("g", "h", "m"), GRAND_SIBLING: ("g", "h", "s", "m")}
PART_ROLES = {kind: len(roles) for kind, roles in ROLE_COLUMNS.items()}
SHARED_ROLES = ("g", "h", "s", "m")                                   # a shared projection's column blocks
SIBLING_COLUMN = {SIBLING: 1, GRANDPARENT: -1, GRAND_SIBLING: 2}    # the role that may be "no sibling"
HEAD_COLUMN = {SIBLING: 0, GRANDPARENT: 1, GRAND_SIBLING: 1}       # the column of h (m is the last one)


def distance_buckets(h, m) -> np.ndarray:
    """The distance bucket of each arc h -> m (int64, broadcast shape; positions, 0 = root): 0 for the root,
    1 + class(|h - m|) for a head left of m, 1 + DISTANCE_CLASSES + class(|h - m|) for a head right of m."""
    h, m = np.asarray(h), np.asarray(m)
    classes = np.searchsorted(DISTANCE_EDGES, np.abs(h - m), side="right")
    return np.where(h == 0, 0, 1 + classes + DISTANCE_CLASSES * (h > m)).astype(np.int64)


def dense_buckets(n: int) -> np.ndarray:
    """`distance_buckets` of every (h, m) of an n-word sentence, (n + 1, n + 1), cached up to
    BUCKET_TABLE_LIMIT words (read only)."""
    out = _DENSE_BUCKETS.get(n)
    if out is None:
        index = np.arange(n + 1)
        out = distance_buckets(index[:, None], index[None, :])
        out.setflags(write=False)
        if n <= BUCKET_TABLE_LIMIT:
            _DENSE_BUCKETS[n] = out
    return out


# -- the root row


def split_sizes(array: np.ndarray, sizes: Sequence[int]) -> List[np.ndarray]:
    """`array` cut into consecutive views of `sizes` rows (as `np.split` at their cumulative sums, faster)."""
    ends = np.cumsum(sizes).tolist()
    return [array[end - size:end] for end, size in zip(ends, sizes)]


def with_root_row(nO: Optional[int] = None) -> Model[List[Floats2d], List[Floats2d]]:
    """Each doc's token vectors (n, w) -> (n + 1, w) with a learned root row (param "root") first. The
    outputs are consecutive row blocks of one (sum (n + 1), w) array, in order, so that the batch's stacked X
    is that array (`batch.stacked`, no copy)."""
    return Model("vine_root_row", _root_forward, init=_root_init, dims={"nO": nO}, params={"root": None})


def _root_init(model: Model, X=None, Y=None) -> None:
    if X is not None and X:
        model.set_dim("nO", X[0].shape[1])
    rng = np.random.default_rng(0)
    model.set_param("root", model.ops.asarray1f(rng.normal(0.0, 0.1, model.get_dim("nO")).astype("f")))


def _root_forward(model: Model, X: List[Floats2d], is_train: bool):
    root = model.get_param("root")
    sizes = [len(x) + 1 for x in X]
    Y = split_sizes(model.ops.xp.empty((sum(sizes), root.shape[0]), dtype=X[0].dtype), sizes) if X else []
    for y, x in zip(Y, X):
        y[0] = root
        y[1:] = x

    def backprop(dY: List[Floats2d]) -> List[Floats2d]:
        if dY:
            model.inc_grad("root", sum(d[0] for d in dY))
        return [d[1:] for d in dY]

    return Y, backprop


# -- arcs


ArcInput = Tuple[Floats2d, List[Ints1d], Optional[List[Ints1d]]]


def arc_scorer(width: int, nI: Optional[int] = None, span_width: int = 0) -> Model[ArcInput, List[Floats2d]]:
    """Biaffine arc scores (see the module docstring), with the span term when span_width > 0. Input (X (R,
    w), rows, positions): per sentence its rows of X and, optionally, the token positions of those rows
    (None = 0..n, a contiguous sentence); output: per sentence the dense (n + 1, n + 1) scores [h, m].
    `layers[0]` is the projection, (R, 2 width + span_width) (call it once per batch and `biaffine_scores`
    per group of sentences to score a batch in pieces; at prediction, `biaffine_row_terms` once per batch and
    `biaffine_predict` per group of contiguous sentences, plus `span_row_terms` and `add_span_scores`)."""
    projection = Relu(nO=2 * width + span_width, nI=nI)
    params, dims = {"U": None, "u": None, "E": None, "F": None, "c": None}, {"width": width}
    if span_width:             # a scorer without one keeps the parameters and file format it had before
        params.update({"G": None, "G2": None})
        dims["span"] = span_width
    return Model("vine_arc_scorer", _arc_forward, init=_arc_init, layers=[projection], dims=dims, params=params)


def span_width_of(model: Model) -> int:
    """The span width k of an arc scorer (0: none)."""
    return model.get_dim("span") if model.has_dim("span") else 0


def _arc_init(model: Model, X=None, Y=None) -> None:
    a, k = model.get_dim("width"), span_width_of(model)
    ops = model.ops
    model.set_param("U", ops.alloc2f(a, a))
    model.set_param("u", ops.alloc1f(a))
    model.set_param("E", ops.alloc2f(N_BUCKETS, a))
    model.set_param("F", ops.alloc2f(N_BUCKETS, a))
    model.set_param("c", ops.alloc1f(N_BUCKETS))
    if k:
        model.set_param("G", ops.alloc2f(a, k))
        model.set_param("G2", ops.alloc2f(a, k))


def _sentence_buckets(model: Model, rows: Ints1d, positions: Optional[Ints1d]):
    n = len(rows) - 1
    table = dense_buckets(n) if positions is None else distance_buckets(positions[:, None], positions[None, :])
    return model.ops.asarray(table)


def biaffine_scores(model: Model, HD: Floats2d, rows: Sequence[Ints1d], positions=None, is_train: bool = False):
    """The dense scores of each sentence from the projection HD (R, 2a + k) = `layers[0]` of X (k the span
    width, 0 without a span term); RETURNS (scores, backprop) with backprop(d scores) -> d HD (R, 2a + k)."""
    a, k = model.get_dim("width"), span_width_of(model)
    U, u, E, F, c = (model.get_param(name) for name in ("U", "u", "E", "F", "c"))
    G, G2 = (model.get_param("G"), model.get_param("G2")) if k else (None, None)
    xp = model.ops.xp
    positions = [None] * len(rows) if positions is None else positions
    out, saved = [], []
    for index, pos in zip(rows, positions):
        index = model.ops.asarray(index, dtype="i")
        H, D = HD[index, :a], HD[index, a:2 * a]
        HU = H @ U
        b = _sentence_buckets(model, index, pos)
        HF = H @ F.T + c[None, :]               # (n + 1, N_BUCKETS), per head and bucket
        DE = D @ E.T
        columns = xp.arange(len(index))
        S = HU @ D.T + (H @ u)[:, None] + xp.take_along_axis(HF, b, axis=1) + DE[columns[None, :], b]
        span = None
        if k:
            span_S, span = span_scores(xp, H @ G, D @ G2, HD[index, 2 * a:])
            S += span_S
        out.append(S)
        saved.append((index, H, D, HU, b, span))

    def backprop(dS_list: List[Floats2d]) -> Floats2d:
        dHD = model.ops.alloc2f(*HD.shape, dtype=HD.dtype)
        for (index, H, D, HU, b, span), dS in zip(saved, dS_list):
            dS = model.ops.asarray(dS, dtype=HD.dtype)
            size = len(index)
            d_row = dS.sum(axis=1)
            d_HU = dS @ D
            model.inc_grad("U", H.T @ d_HU)
            model.inc_grad("u", H.T @ d_row)
            dH = d_HU @ U.T + d_row[:, None] * u[None, :]
            dD = dS.T @ HU
            # dS summed per (head, bucket) and per (dependent, bucket)
            columns = xp.arange(size)
            by_head = _bucket_table(model.ops, (columns[:, None] * N_BUCKETS + b).ravel(), dS.ravel(), size)
            by_dep = _bucket_table(model.ops, (columns[None, :] * N_BUCKETS + b).ravel(), dS.ravel(), size)
            model.inc_grad("c", by_head.sum(axis=0))
            model.inc_grad("F", by_head.T @ H)
            model.inc_grad("E", by_dep.T @ D)
            dH += by_head @ F
            dD += by_dep @ E
            if span is None:
                model.ops.scatter_add(dHD, index, xp.hstack([dH, dD]))
                continue
            dA, dB, dZ = span(dS)
            model.inc_grad("G", H.T @ dA)
            model.inc_grad("G2", D.T @ dB)
            dH += dA @ G.T
            dD += dB @ G2.T
            model.ops.scatter_add(dHD, index, xp.hstack([dH, dD, dZ]))
        return dHD

    return out, backprop


def span_scores(xp, A, B, Z):
    """The span term of one sentence's arcs (module docstring): S[h, m] = (A[h] + B[m]) . z(i, j), z(i, j) the
    mean of Z[i + 1 .. j - 1], i = min(h, m), j = max(h, m); 0 on the diagonal and for adjacent rows. A = H G,
    B = D G' (n1, k), Z (n1, k), all rows of the sentence in order. RETURNS (S (n1, n1), backprop):
    backprop(dS) -> (dA, dB, dZ). O(n1^2 k) time, O(n1^2) memory."""
    n1 = len(Z)
    order = xp.arange(n1)
    i, j = xp.minimum(order[:, None], order[None, :]), xp.maximum(order[:, None], order[None, :])
    zero = xp.zeros((1, Z.shape[1]), dtype=Z.dtype)
    C = xp.concatenate((zero, xp.cumsum(Z, axis=0)))                     # C[t] = Z[:t] summed
    between = j > i + 1
    weight = between / xp.where(between, j - i - 1, 1).astype(Z.dtype)  # 1 / (words between); 0 if none
    AC, BC = A @ C.T, B @ C.T                                            # (n1, n1 + 1)
    S = weight * (xp.take_along_axis(AC, j, axis=1) - xp.take_along_axis(AC, i + 1, axis=1)
                  + (xp.take_along_axis(BC, j.T, axis=1) - xp.take_along_axis(BC, i.T + 1, axis=1)).T)

    def backprop(dS):
        dN = dS * weight                                 # d of the numerator (A[h] + B[m]) . (C[j] - C[i + 1])
        size = n1 * (n1 + 1)

        def spread(row, d):     # d(X C^T) of d: + at (row, j), - at (row, i + 1), row = h for A, m for B
            start = (xp.broadcast_to(row, (n1, n1)) * (n1 + 1)).ravel()
            return (xp.bincount(start + j.ravel(), weights=d.ravel(), minlength=size)
                    - xp.bincount(start + (i + 1).ravel(), weights=d.ravel(), minlength=size)).reshape(n1, n1 + 1)

        dAC, dBC = spread(order[:, None], dN).astype(Z.dtype), spread(order[None, :], dN).astype(Z.dtype)
        dC = dAC.T @ A + dBC.T @ B
        dZ = xp.cumsum(dC[::-1], axis=0)[::-1][1:]        # Z[r] is in every C[t] with t > r
        return dAC @ C, dBC @ C, dZ

    return S, backprop


def biaffine_row_terms(model: Model, HD: Floats2d) -> Tuple[np.ndarray, ...]:
    """The per-row terms of the biaffine scores of every row of HD (R, 2a), on the CPU, for
    `biaffine_predict`: (H U (R, a), H . u (R,), H F^T + c (R, N_BUCKETS), D (R, a), D E^T (R, N_BUCKETS)).
    One matmul for the head terms, one for the dependent's. O(R a (a + N_BUCKETS))."""
    a = model.get_dim("width")
    U, u, E, F, c = (model.ops.to_numpy(model.get_param(name)) for name in ("U", "u", "E", "F", "c"))
    HD = model.ops.to_numpy(HD)
    head_terms = HD[:, :a] @ np.hstack([U, u[:, None], F.T]).astype(HD.dtype)
    D = HD[:, a:2 * a]
    return head_terms[:, :a], head_terms[:, a], head_terms[:, a + 1:] + c[None, :], D, D @ E.T.astype(HD.dtype)


def biaffine_predict(terms: Tuple[np.ndarray, ...], rows: Sequence[Ints1d]) -> List[np.ndarray]:
    """`biaffine_scores` of contiguous sentences (positions 0..n), without gradients, as float64 (n + 1,
    n + 1) C-contiguous numpy arrays, from the batch's `biaffine_row_terms`: one compiled call for all
    (`_kernels/biaffine.pyx`, an sgemm per sentence over its gathered rows). Time O(sum_i (n_i + 1)^2 a)."""
    HU, Hu, HF, D, DE = (np.asarray(term, dtype=np.float32) for term in terms)
    return biaffine_dense(HU, D, Hu, HF, DE, rows, DISTANCE_EDGES)


def span_row_terms(model: Model, HD: Floats2d) -> Optional[Tuple[np.ndarray, ...]]:
    """The per-row terms of the span term for `add_span_scores`, on the CPU: (H G, D G', Z), each (R, k)
    float32; None for an arc scorer without one (span width 0)."""
    a, k = model.get_dim("width"), span_width_of(model)
    if not k:
        return None
    G, G2 = (model.ops.to_numpy(model.get_param(name)) for name in ("G", "G2"))
    HD = np.asarray(model.ops.to_numpy(HD), dtype=np.float32)
    return HD[:, :a] @ G.astype(np.float32), HD[:, a:2 * a] @ G2.astype(np.float32), HD[:, 2 * a:]


def add_span_scores(terms, rows: Sequence[Ints1d], dense: List[np.ndarray]) -> List[np.ndarray]:
    """Add the span term of each sentence (its rows of the batch, in order) to its dense arc scores (float64
    (n + 1, n + 1), C-contiguous, as `biaffine_predict` returns them; in place), from the batch's
    `span_row_terms` (nothing when None): one compiled call for all (`_kernels/span.pyx`).
    O(sum_i (n_i + 1)^2 k)."""
    if terms is not None:
        A, B, Z = terms
        add_span_dense(A, B, Z, rows, dense)
    return dense


def _bucket_table(ops, flat_index, values, size: int):
    """(size, N_BUCKETS): values summed at flat_index = row * N_BUCKETS + bucket (ops.scatter_add, so any
    backend)."""
    out = ops.alloc1f(size * N_BUCKETS, dtype=values.dtype)
    ops.scatter_add(out, ops.asarray(flat_index, dtype="i"), values)
    return out.reshape(size, N_BUCKETS)


def _arc_forward(model: Model, inputs: ArcInput, is_train: bool):
    X, rows, positions = inputs
    HD, backprop_projection = model.layers[0](X, is_train)
    scores, backprop_biaffine = biaffine_scores(model, HD, rows, positions, is_train)

    def backprop(dS: List[Floats2d]) -> Floats2d:
        return backprop_projection(backprop_biaffine(dS))

    return scores, backprop


# -- outer arcs


def outer_scorer(nI: Optional[int] = None) -> Model[Floats2d, Floats2d]:
    """The vine's outer-arc scores of every row: (R, w) -> (R, 2) [left, right]."""
    return Linear(nO=2, nI=nI, init_W=_zeros)


def _zeros(ops, shape):
    return ops.alloc(shape)


# -- sentence starts


def start_scorer(width: int, nI: Optional[int] = None) -> Model[Floats2d, Floats1d]:
    """Sentence-start logits of every row of X (R, w) -> (R,): row r starts a sentence with probability
    sigmoid(v . relu(P[r, this] + P[r - 1, before]) + c), P = X W_s + b_s (R, 2 width), so a token is read
    beside the one before it (a doc's first token beside its root row). Row 0 and the root rows get a value
    too; callers read token rows only. O(R w width)."""
    projection = Linear(nO=2 * width, nI=nI)
    return Model("vine_start_scorer", _start_forward, init=_start_init, layers=[projection],
                 dims={"width": width}, params={"v": None, "c": None})


def _start_init(model: Model, X=None, Y=None) -> None:
    rng = np.random.default_rng(0)
    width = model.get_dim("width")
    model.set_param("v", model.ops.asarray1f(rng.normal(0.0, width ** -0.5, width).astype("f")))
    model.set_param("c", model.ops.alloc1f(1))


def start_hidden(P: Floats2d, xp):
    """relu(P[r, this] + P[r - 1, before]) for every row r of the projection P (R, 2 width) (row 0 reads
    zeros before it): (R, width)."""
    width = P.shape[1] // 2
    H = P[:, :width].copy()
    H[1:] += P[:-1, width:]
    return xp.maximum(H, 0, out=H)


def start_logits(model: Model, P: Floats2d):
    """The start scorer's logits (R,) from its projection P = `layers[0]`(X) (R, 2 width), and its hidden
    layer (R, width)."""
    v, c = model.get_param("v"), model.get_param("c")
    H = start_hidden(P, model.ops.xp)
    return H @ v + c[0], H


def _start_forward(model: Model, X: Floats2d, is_train: bool):
    P, backprop_projection = model.layers[0](X, is_train)
    v = model.get_param("v")
    logits, H = start_logits(model, P)

    def backprop(d_logits: Floats1d) -> Floats2d:
        model.inc_grad("v", H.T @ d_logits)
        model.inc_grad("c", d_logits.sum(keepdims=True))
        dH = d_logits[:, None] * v[None, :] * (H > 0)
        width = dH.shape[1]
        dP = model.ops.alloc2f(*P.shape, dtype=P.dtype)
        dP[:, :width] = dH
        dP[:-1, width:] = dH[1:]
        return backprop_projection(dP)

    return logits, backprop


# -- higher-order parts


PartInput = Tuple[Floats2d, Ints1d, Ints1d]     # X (R, w), part rows (P, roles) of X, buckets (P,)


def part_scorer(kind: int, width: int, nI: Optional[int] = None,
                projection: Optional[Model] = None) -> Model[PartInput, Floats1d]:
    """The part MLP of one kind (see the module docstring): (X, part rows (parts, roles) as rows of X,
    distance buckets (parts,) of their arc h -> m) -> scores (parts,). `layers[0]` projects X (R, w) to
    P (R, c): its own `Linear` (c = roles x width), or `projection`, a `Linear` of c = 4 x width columns
    (roles g, h, s, m) that the three kinds share (`shared_part_projection`). The kind reads role j from
    columns `attrs["starts"][j]` on (call the projection once per batch and `part_mlp` per group of parts).
    Inference reads the same parameters in the fused CPU kernel (`_kernels/part_mlp.pyx`, via
    `parts.PartTable`)."""
    if kind not in PART_ROLES:
        raise ValueError(f"unknown part kind {kind!r}")
    if projection is None:
        projection = Linear(nO=PART_ROLES[kind] * width, nI=nI)
        starts = [j * width for j in range(PART_ROLES[kind])]
    else:
        if projection.get_dim("nO") != len(SHARED_ROLES) * width:
            raise ValueError(f"a shared part projection needs {len(SHARED_ROLES)} x {width} columns, "
                             f"got {projection.get_dim('nO')}")
        starts = role_starts(kind, width)
    return Model(f"vine_part_{kind}", _part_forward, init=_part_init, layers=[projection],
                 dims={"width": width}, attrs={"kind": kind, "starts": starts},
                 params={"v": None, "none": None, "Q": None})


def shared_part_projection(width: int, nI: Optional[int] = None) -> Model:
    """The `Linear` (w -> 4 x width) that projects every row in each role g, h, s, m once for all three part
    kinds (`part_scorer(..., projection=)`): 4 / 10 of the columns of three projections of their own."""
    return Linear(nO=len(SHARED_ROLES) * width, nI=nI)


def role_starts(kind: int, width: int) -> List[int]:
    """The first column of each of the kind's roles in a shared part projection of hidden width `width`."""
    return [SHARED_ROLES.index(role) * width for role in ROLE_COLUMNS[kind]]


def _part_init(model: Model, X=None, Y=None) -> None:
    p = model.get_dim("width")
    rng = np.random.default_rng(model.attrs["kind"])
    ops = model.ops
    model.set_param("v", ops.alloc1f(p))
    model.set_param("none", ops.asarray1f(rng.normal(0.0, 0.1, p).astype("f")))
    model.set_param("Q", ops.alloc2f(N_BUCKETS, p))


def part_mlp(model: Model, P: Floats2d, rows, buckets, is_train: bool = False):
    """Scores (parts,) of the parts `rows` (parts, roles), rows of the part projection P (R, c) (`layers[0]`'s
    output; role j in columns starts[j]..starts[j] + width - 1); RETURNS (scores, backprop(d scores) -> dP)."""
    ops, xp = model.ops, model.ops.xp
    p, kind, starts = model.get_dim("width"), model.attrs["kind"], model.attrs["starts"]
    v, none, Q = model.get_param("v"), model.get_param("none"), model.get_param("Q")
    rows = ops.asarray(rows, dtype="i")
    buckets = ops.asarray(buckets, dtype="i")
    sibling = SIBLING_COLUMN[kind]
    first = rows[:, sibling] == rows[:, sibling - 1] if sibling > 0 else None
    pre = Q[buckets].astype(P.dtype)
    for j in range(rows.shape[1]):
        block = P[rows[:, j], starts[j]:starts[j] + p]
        if j == sibling:
            block = xp.where(first[:, None], none[None, :].astype(P.dtype), block)
        pre = pre + block
    hidden = ops.relu(pre)
    scores = hidden @ v

    def backprop(d_scores: Floats1d) -> Floats2d:
        d_scores = ops.asarray(d_scores, dtype=P.dtype)
        model.inc_grad("v", hidden.T @ d_scores)
        d_pre = ops.backprop_relu(d_scores[:, None] * v[None, :], hidden)
        model.inc_grad("Q", _bucket_sum(ops, buckets, d_pre))
        dP = ops.alloc2f(*P.shape, dtype=P.dtype)
        for j in range(rows.shape[1]):
            target = d_pre
            if j == sibling:
                model.inc_grad("none", d_pre[first].sum(axis=0))
                target = xp.where(first[:, None], 0.0, d_pre)
            dP[:, starts[j]:starts[j] + p] += _row_sum(ops, rows[:, j], target, P.shape[0])
        return dP

    return scores, backprop


def _part_forward(model: Model, inputs: PartInput, is_train: bool):
    X, rows, buckets = inputs
    P, backprop_projection = model.layers[0](X, is_train)
    scores, backprop_mlp = part_mlp(model, P, rows, buckets, is_train)

    def backprop(d_scores: Floats1d) -> Floats2d:
        return backprop_projection(backprop_mlp(d_scores))

    return scores, backprop


def _bucket_sum(ops, buckets, values):
    out = ops.alloc2f(N_BUCKETS, values.shape[1], dtype=values.dtype)
    ops.scatter_add(out, buckets, values)
    return out


def _row_sum(ops, index, values, size: int):
    """(size, width): values summed into the rows `index` names."""
    out = ops.alloc2f(size, values.shape[1], dtype=values.dtype)
    ops.scatter_add(out, index, values)
    return out


# -- labels


LabelInput = Tuple    # X (R, w), heads (A,), mods (A,), buckets (A,)[, children (A, 2)]


def label_scorer(width: int, nL: Optional[int] = None, nI: Optional[int] = None,
                 children: bool = False) -> Model[LabelInput, Floats2d]:
    """Label logits of arcs: (X, head rows, dependent rows, distance buckets[, children]) -> (A, nL). With
    [Ph | Pd] = X W + b (rows, 2 width), the hidden layer relu(Ph[h] + Pd[m] + M[bucket]) reads the head and
    the dependent (each row carries its context from the encoder) and the arc's direction and distance;
    `layers[1]` (a `Linear`) maps it to the logits. With `children` the projection has two more blocks
    [Pl | Pr] and the hidden layer adds Pl[l] + Pr[r] for the dependent's outermost left and right children
    l, r (rows of X, -1 for none: a learned row "none" (2, width) stands in), which tell its clause's
    relation: a leading "and" (conj), "if" (advcl), "that" (ccomp) or comma (parataxis)."""
    projection = Linear(nO=(4 if children else 2) * width, nI=nI)
    output = Linear(nO=nL, nI=width)
    params = {"M": None, "none": None} if children else {"M": None}
    return Model("vine_label_scorer", _label_forward, init=_label_init, layers=[projection, output],
                 dims={"width": width, "nL": nL}, params=params, attrs={"children": children})


def _label_init(model: Model, X=None, Y=None) -> None:
    if model.has_dim("nL") and model.get_dim("nL") and not model.layers[1].has_dim("nO"):
        model.layers[1].set_dim("nO", model.get_dim("nL"))
    model.layers[1].initialize()
    l = model.get_dim("width")
    model.set_param("M", model.ops.alloc2f(N_BUCKETS, l))
    if model.attrs["children"]:
        rng = np.random.default_rng(1)
        model.set_param("none", model.ops.asarray2f(rng.normal(0.0, 0.1, (2, l)).astype("f")))


def label_hidden(model: Model, P: Floats2d, heads, mods, buckets, children=None, is_train: bool = False):
    """The hidden layer of the arcs from the projection P (R, 2 width, or 4 width with children (A, 2),
    rows of the dependent's outermost left and right child or -1); RETURNS (hidden (A, width),
    backprop(d hidden) -> dP)."""
    ops, xp = model.ops, model.ops.xp
    l = model.get_dim("width")
    heads, mods, buckets = (ops.asarray(x, dtype="i") for x in (heads, mods, buckets))
    M = model.get_param("M").astype(P.dtype)
    use_children = model.attrs["children"]
    none = missing = safe = None
    if use_children:
        if children is None:
            raise ValueError("this label scorer reads the dependents' children: pass children (A, 2)")
        children = ops.asarray(children, dtype="i")
        none = model.get_param("none").astype(P.dtype)
        missing = children < 0
        safe = xp.where(missing, 0, children)
    if xp is np and P.dtype == np.float32:          # one compiled pass, the same sums in order
        h, m, b = (np.ascontiguousarray(a) for a in (heads, mods, buckets))
        kids = np.ascontiguousarray(children) if use_children else None
        hidden = label_hidden_rows(P, l, h, m, M, b, kids, none)
    else:
        hidden = P[heads, :l] + P[mods, l:2 * l]
        hidden += M[buckets]
        if use_children:
            for side in (0, 1):
                block = P[safe[:, side], (2 + side) * l:(3 + side) * l]
                hidden += xp.where(missing[:, side, None], none[side][None, :], block)
        xp.maximum(hidden, 0, out=hidden)           # relu in place

    def backprop(d_hidden: Floats2d) -> Floats2d:
        d_pre = ops.backprop_relu(d_hidden, hidden)
        model.inc_grad("M", _bucket_sum(ops, buckets, d_pre))
        dP = ops.alloc2f(*P.shape, dtype=P.dtype)
        dP[:, :l] += _row_sum(ops, heads, d_pre, P.shape[0])
        dP[:, l:2 * l] += _row_sum(ops, mods, d_pre, P.shape[0])
        if use_children:
            d_none = ops.alloc2f(2, l, dtype=P.dtype)
            for side in (0, 1):
                d_none[side] = d_pre[missing[:, side]].sum(axis=0)
                target = xp.where(missing[:, side, None], 0.0, d_pre).astype(P.dtype)
                dP[:, (2 + side) * l:(3 + side) * l] += _row_sum(ops, safe[:, side], target, P.shape[0])
            model.inc_grad("none", d_none)
        return dP

    return hidden, backprop


def _label_forward(model: Model, inputs: LabelInput, is_train: bool):
    X, heads, mods, buckets = inputs[:4]
    children = inputs[4] if len(inputs) > 4 else None
    P, backprop_projection = model.layers[0](X, is_train)
    hidden, backprop_hidden = label_hidden(model, P, heads, mods, buckets, children, is_train)
    logits, backprop_output = model.layers[1](hidden, is_train)

    def backprop(d_logits: Floats2d) -> Floats2d:
        return backprop_projection(backprop_hidden(backprop_output(d_logits)))

    return logits, backprop


def outer_children(heads, rows=None) -> np.ndarray:
    """The outermost left and right child of every position of trees: heads (N,) int, the head of each
    position (-1 or the position itself for none; several sentences may share the array as long as no
    head crosses between them). RETURNS int64 (N, 2): [leftmost child left of it, rightmost child right of
    it], -1 where there is none; with rows (N,), the children's rows rows[child] instead. O(N)."""
    heads = np.asarray(heads, dtype=np.int64)
    size = len(heads)
    index = np.arange(size)
    out = np.full((size, 2), -1, dtype=np.int64)
    left = (heads >= 0) & (index < heads)
    first = np.full(size, size, dtype=np.int64)
    np.minimum.at(first, heads[left], index[left])
    out[:, 0] = np.where(first < size, first, -1)
    right = (heads >= 0) & (index > heads)
    np.maximum.at(out[:, 1], heads[right], index[right])
    return out if rows is None else np.where(out >= 0, np.asarray(rows)[np.maximum(out, 0)], -1)
