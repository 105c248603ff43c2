"""Thinc architectures of the `vine_cascade` component.

`build_vine_cascade_model` (registered as `vineparse.VineCascadeModel.v1`) chains a tok2vec (its own or a
listener), optionally a context encoder and a BiLSTM, with `part_features`: per doc, an affine map of [root;
token vectors] to the role features Z that `parts.SentenceScores` reads (biaffine arc roles, vine outer
scores, sibling / grandparent / grand-sibling roles, label roles). The layer also owns the scorer parameters
that act on Z (biaffine U and u, the distance terms, the part MLPs' output vectors and "no sibling" rows, the
label classifier); the component adds their gradients, computed from the part-score gradients of the
cascade's losses, with `inc_grad`.

Shapes: input List[Doc]; output List[Floats2d], one (n_tokens + 1, K) array per doc, row 0 the root.
Cost: O(tokens x width x K) per batch.
"""
from typing import List, Optional

import numpy as np
from thinc.api import LSTM, Model, chain, with_padded
from thinc.types import Floats2d

from spacy.ml.models.tok2vec import MaxoutWindowEncoder

from .parts import N_BUCKETS, FeatureLayout

SCORER_PARAMS = ("U", "u", "E_dist", "F_dist", "c_dist", "v_sib", "v_gp", "v_gs", "none_sib", "none_gs", "Q_sib",
                 "Q_gp", "Q_gs", "L", "l_b", "M_dist")


def build_vine_cascade_model(tok2vec: Model, arc_width: int = 128, part_width: int = 16,
                             label_width: int = 128, context_depth: int = 0, lstm_width: int = 0,
                             nL: Optional[int] = None) -> Model[List, List[Floats2d]]:
    """tok2vec >> (context encoder) >> (token vectors | BiLSTM over them) >> part_features.

    tok2vec (Model[List[Doc], List[Floats2d]]): token vectors (width nI).
    context_depth (int): residual maxout window layers (window 1) of the parser's own on top of the tok2vec,
        each widening what a token vector sees by one word on each side (0 = none); the arc scorer of a
        graph-based parser needs more context than a tagger, and a shared tok2vec stays as it is.
    lstm_width (int): width of a one-layer BiLSTM (lstm_width / 2 per direction) whose outputs are
        concatenated to the token vectors: the whole sentence in every vector, where the convolutional
        tok2vec sees a few words (0 = none; must be even).
    arc_width, part_width, label_width (int): hidden widths of the biaffine arc scorer, of each higher-order
        part MLP, and of the label classifier.
    nL (int or None): number of labels; set by the component's `initialize` when None.
    """
    for name, value in (("arc_width", arc_width), ("part_width", part_width), ("label_width", label_width)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(context_depth, int) or context_depth < 0:
        raise ValueError(f"context_depth must be an integer >= 0, got {context_depth!r}")
    if isinstance(lstm_width, bool) or not isinstance(lstm_width, int) or lstm_width < 0 or lstm_width % 2:
        raise ValueError(f"lstm_width must be an even integer >= 0, got {lstm_width!r}")
    features = part_features(FeatureLayout(arc_width, part_width, label_width), nL=nL)
    layers = [tok2vec]
    width = tok2vec.get_dim("nO")
    if context_depth:
        layers.append(MaxoutWindowEncoder(width=width, window_size=1, maxout_pieces=3, depth=context_depth))
    if lstm_width:
        layers.append(with_lstm(LSTM(nO=lstm_width, nI=width, bi=True, depth=1)))
    model = chain(*layers, features)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("features", features)
    return model


def with_lstm(lstm: Model) -> Model[List[Floats2d], List[Floats2d]]:
    """Each doc's token vectors X (n, w) -> [X | BiLSTM(X)] (n, w + lstm nO)."""
    return Model("with_lstm", _with_lstm_forward, init=_with_lstm_init, layers=[with_padded(lstm)])


def _with_lstm_init(model: Model, X=None, Y=None) -> None:
    model.layers[0].initialize(X=X)


def _with_lstm_forward(model: Model, X: List[Floats2d], is_train: bool):
    Y, backprop_lstm = model.layers[0](X, is_train)
    out = [model.ops.xp.hstack([x, y]) for x, y in zip(X, Y)]

    def backprop(d_out: List[Floats2d]) -> List[Floats2d]:
        widths = [x.shape[1] for x in X]
        dX = backprop_lstm([d[:, w:] for d, w in zip(d_out, widths)])
        return [d[:, :w] + dx for d, w, dx in zip(d_out, widths, dX)]

    return out, backprop


def part_features(layout: FeatureLayout, nI: Optional[int] = None,
                  nL: Optional[int] = None) -> Model[List[Floats2d], List[Floats2d]]:
    """The affine map to role features, owning the scorer parameters (see the module docstring).

    While training, each input token vector is dropped out (inverted dropout) at the rate `set_dropout_rate`
    sets (the component passes spaCy's `drop` through it)."""
    return Model("vine_part_features", _features_forward, init=_features_init,
                 dims={"nI": nI, "nO": layout.width, "nL": nL},
                 params={name: None for name in ("W", "b", "root") + SCORER_PARAMS},
                 attrs={"arc_width": layout.arc_width, "part_width": layout.part_width,
                        "label_width": layout.label_width, "dropout_rate": 0.0})


def layout_of(model: Model) -> FeatureLayout:
    features = model.get_ref("features")
    return FeatureLayout(features.attrs["arc_width"], features.attrs["part_width"], features.attrs["label_width"])


def _features_init(model: Model, X=None, Y=None) -> None:
    if X is not None and not model.has_dim("nI"):
        model.set_dim("nI", X[0].shape[1])
    nI, nO, nL = model.get_dim("nI"), model.get_dim("nO"), model.get_dim("nL")
    a, p, l = model.attrs["arc_width"], model.attrs["part_width"], model.attrs["label_width"]
    ops = model.ops
    rng = np.random.default_rng(0)
    scale = np.sqrt(6.0 / (nI + nO))
    model.set_param("W", ops.asarray2f(rng.uniform(-scale, scale, (nO, nI)).astype("f")))
    model.set_param("b", ops.alloc1f(nO))
    model.set_param("root", ops.asarray1f(rng.normal(0, 0.1, nI).astype("f")))
    model.set_param("U", ops.alloc2f(a, a))
    model.set_param("u", ops.alloc1f(a))
    model.set_param("E_dist", ops.alloc2f(N_BUCKETS, a))
    model.set_param("F_dist", ops.alloc2f(N_BUCKETS, a))
    model.set_param("c_dist", ops.alloc1f(N_BUCKETS))
    for name in ("v_sib", "v_gp", "v_gs"):
        model.set_param(name, ops.alloc1f(p))
    for name in ("Q_sib", "Q_gp", "Q_gs"):
        model.set_param(name, ops.alloc2f(N_BUCKETS, p))
    for name in ("none_sib", "none_gs"):
        model.set_param(name, ops.asarray1f(rng.normal(0, 0.1, p).astype("f")))
    # L random (Glorot), not zero: a zero L sends no gradient to the label roles of Z until it has grown
    label_scale = np.sqrt(6.0 / (nL + l))
    model.set_param("L", ops.asarray2f(rng.uniform(-label_scale, label_scale, (nL, l)).astype("f")))
    model.set_param("l_b", ops.alloc1f(nL))
    model.set_param("M_dist", ops.alloc2f(N_BUCKETS, l))


def _features_forward(model: Model, X: List[Floats2d], is_train: bool):
    """One affine map over the rows of the whole batch ([root; tokens] per doc), split back per doc."""
    W, b, root = model.get_param("W"), model.get_param("b"), model.get_param("root")
    if not X:
        return [], lambda dZ: []
    stacked = np.vstack([row for x in X for row in (root[None, :], x)])
    starts = np.concatenate([[0], np.cumsum([len(x) + 1 for x in X])[:-1]])
    rate = model.attrs["dropout_rate"] if is_train else 0.0
    mask = None
    if rate > 0.0:
        mask = model.ops.get_dropout_mask(stacked.shape, rate)
        stacked = stacked * mask
    Z = np.split(stacked @ W.T + b, starts[1:])

    def backprop(dZ: List[Floats2d]) -> List[Floats2d]:
        d_stacked = np.vstack(dZ)
        model.inc_grad("W", d_stacked.T @ stacked)
        model.inc_grad("b", d_stacked.sum(axis=0))
        dX = d_stacked @ W
        if mask is not None:
            dX *= mask
        model.inc_grad("root", dX[starts].sum(axis=0))
        return [d[1:] for d in np.split(dX, starts[1:])]

    return Z, backprop
