"""Thinc architectures of the `vine_cascade` component.

`build_vine_cascade_model` (registered as `vineparse.VineCascadeModel.v1`) chains a tok2vec (its own or a
listener) with `part_features`: per doc, an affine map of [root; token vectors] to the role features Z that
`parts.SentenceScores` reads (biaffine arc roles, vine outer scores, sibling / grandparent / grand-sibling
roles, label roles). The layer also owns the scorer parameters that act on Z (biaffine U and u, the part MLPs'
output vectors and "no sibling" rows, the label classifier); the component adds their gradients, computed
from the part-score gradients of the cascade's losses, with `inc_grad`.

Shapes: input List[Doc]; output List[Floats2d], one (n_tokens + 1, K) array per doc, row 0 the root.
Cost: O(tokens x width x K) per batch.
"""
from typing import List, Optional

import numpy as np
from thinc.api import Model, chain
from thinc.types import Floats2d

from spacy.ml.models.tok2vec import MaxoutWindowEncoder

from .parts import FeatureLayout

SCORER_PARAMS = ("U", "u", "v_sib", "v_gp", "v_gs", "none_sib", "none_gs", "L", "l_b")


def build_vine_cascade_model(tok2vec: Model, arc_width: int = 128, part_width: int = 32,
                             label_width: int = 128, context_depth: int = 0,
                             nL: Optional[int] = None) -> Model[List, List[Floats2d]]:
    """tok2vec >> (context encoder) >> part_features.

    tok2vec (Model[List[Doc], List[Floats2d]]): token vectors (width nI).
    context_depth (int): residual maxout window layers (window 1) of the parser's own on top of the tok2vec,
        each widening what a token vector sees by one word on each side (0 = none); the arc scorer of a
        graph-based parser needs more context than a tagger, and a shared tok2vec stays as it is.
    arc_width, part_width, label_width (int): hidden widths of the biaffine arc scorer, of each higher-order
        part MLP, and of the label classifier.
    nL (int or None): number of labels; set by the component's `initialize` when None.
    """
    for name, value in (("arc_width", arc_width), ("part_width", part_width), ("label_width", label_width)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(context_depth, int) or context_depth < 0:
        raise ValueError(f"context_depth must be an integer >= 0, got {context_depth!r}")
    features = part_features(FeatureLayout(arc_width, part_width, label_width), nL=nL)
    if context_depth:
        encoder = MaxoutWindowEncoder(width=tok2vec.get_dim("nO"), window_size=1, maxout_pieces=3,
                                      depth=context_depth)
        model = chain(tok2vec, encoder, features)
    else:
        model = chain(tok2vec, features)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("features", features)
    return model


def part_features(layout: FeatureLayout, nI: Optional[int] = None, nL: Optional[int] = None) -> Model[List[Floats2d], List[Floats2d]]:
    return Model("vine_part_features", _features_forward, init=_features_init,
                 dims={"nI": nI, "nO": layout.width, "nL": nL},
                 params={name: None for name in ("W", "b", "root") + SCORER_PARAMS},
                 attrs={"arc_width": layout.arc_width, "part_width": layout.part_width,
                        "label_width": layout.label_width})


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
    for name in ("v_sib", "v_gp", "v_gs"):
        model.set_param(name, ops.alloc1f(p))
    for name in ("none_sib", "none_gs"):
        model.set_param(name, ops.asarray1f(rng.normal(0, 0.1, p).astype("f")))
    model.set_param("L", ops.alloc2f(nL, l))
    model.set_param("l_b", ops.alloc1f(nL))


def _features_forward(model: Model, X: List[Floats2d], is_train: bool):
    W, b, root = model.get_param("W"), model.get_param("b"), model.get_param("root")
    rooted = [np.vstack([root[None, :], x]) if len(x) else root[None, :] for x in X]
    Z = [r @ W.T + b for r in rooted]

    def backprop(dZ: List[Floats2d]) -> List[Floats2d]:
        if not dZ:
            return []
        dW = sum(d.T @ r for d, r in zip(dZ, rooted))
        model.inc_grad("W", dW)
        model.inc_grad("b", sum(d.sum(axis=0) for d in dZ))
        dX = [d @ W for d in dZ]
        model.inc_grad("root", sum(d[0] for d in dX))
        return [d[1:] for d in dX]

    return Z, backprop
