"""Thinc architectures of the `vine_cascade` component.

`build_vine_cascade_model` (registered as `vineparse.VineCascadeModel.v3`) is a model whose forward pass is the
encoder: tok2vec (its own or a listener) >> optional BiLSTM >> a learned root row before each doc's tokens >>
dropout, giving per doc (n_tokens + 1, w) vectors, row 0 the root. Its other layers are the scorers that read
those vectors (`scorers.py`), reachable by reference: "arcs", "outer", "sibling", "grandparent",
"grand_sibling", "labels", and "starts" where the model has a sentence-start scorer (`start_width` > 0). The
component runs them on the batch's stacked vectors; they are part of the model, so `finish_update`, `to_bytes`
and `initialize` cover them.

Defaults: each argument's default is the shipped English model's (configs/ewt.cfg), and `default_model_config`
builds the component's default model block from them, with `DEFAULT_TOK2VEC`, a tok2vec of the component's own
with the architecture of configs/ewt.cfg's shared one.

Shapes: input List[Doc]; output List[Floats2d], one (n_tokens + 1, w) array per doc.
"""
import copy
import inspect
from typing import Any, Dict, List, Optional

import numpy as np
from thinc.api import LSTM, Dropout, Model, chain, with_padded
from thinc.types import Floats2d

from spacy.ml.models.tok2vec import MaxoutWindowEncoder

from .._kernels.bilstm import bilstm_forward
from .scorers import (GRAND_SIBLING, GRANDPARENT, SIBLING, arc_scorer, label_scorer, outer_scorer, part_scorer,
                      shared_part_projection, split_sizes, start_scorer, with_root_row)

SCORERS = ("arcs", "outer", "sibling", "grandparent", "grand_sibling", "labels")
PART_REFS = {SIBLING: "sibling", GRANDPARENT: "grandparent", GRAND_SIBLING: "grand_sibling"}
# the component's own tok2vec in its default config: the architecture of configs/ewt.cfg's shared tok2vec
# (spaCy's --optimize efficiency one with the space-after flag), which the shipped model listens to
DEFAULT_TOK2VEC = {
    "@architectures": "spacy.Tok2Vec.v2",
    "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 96,
              "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE", "SPACY"], "rows": [5000, 1000, 2500, 2500, 50],
              "include_static_vectors": False},
    "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "depth": 4, "window_size": 1,
               "maxout_pieces": 3}}
# model arguments tried and not adopted, removed: each with the value that gives the behaviour kept
RETIRED = {"context_depth": 0, "lstm_depth": 1, "tag_rows": 0, "span_weighted": False, "label_span": False}


def build_vine_cascade_model(tok2vec: Model, arc_width: int = 128, part_width: int = 64,
                             label_width: int = 64, lstm_width: int = 128, label_children: bool = True,
                             start_width: int = 64, span_width: int = 32, shared_part_roles: bool = True,
                             nL: Optional[int] = None) -> Model[List, List[Floats2d]]:
    """The encoder (see the module docstring) and the scorers.

    tok2vec (Model[List[Doc], List[Floats2d]]): token vectors (width nI).
    lstm_width (int): width of a one-layer BiLSTM (lstm_width / 2 per direction) whose outputs are
        concatenated to the token vectors (0 = none; must be even).
    arc_width, part_width, label_width (int): widths of the biaffine arc scorer, of each higher-order part
        MLP and of the label classifier's hidden layer.
    label_children (bool): the label classifier also reads the dependent's outermost left and right child
        (gold trees in training, predicted ones when parsing; `scorers.label_scorer`).
    span_width (int): width k of the arc scorer's span term, what lies between head and dependent (0 = none;
        `scorers.span_scores`): O(n^2 k) more per sentence.
    shared_part_roles (bool): the three part MLPs read one projection of each word in each role (grandparent,
        head, sibling, modifier: 4 x part_width columns) instead of one projection each (10 x part_width
        columns in all); each keeps its own output, "no sibling" row and distance rows
        (`scorers.shared_part_projection`).
    start_width (int): width of the sentence-start scorer's hidden layer (0 = none; `scorers.start_scorer`).
    nL (int or None): number of labels; set by the component's `initialize` when None.
    """
    for name, value in (("arc_width", arc_width), ("part_width", part_width), ("label_width", label_width)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(lstm_width, bool) or not isinstance(lstm_width, int) or lstm_width < 0 or lstm_width % 2:
        raise ValueError(f"lstm_width must be an even integer >= 0, got {lstm_width!r}")
    for name, value in (("start_width", start_width), ("span_width", span_width)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    width = tok2vec.get_dim("nO")
    layers = [tok2vec]
    if lstm_width:
        layers.append(with_lstm(LSTM(nO=lstm_width, nI=width, bi=True, depth=1)))
        width += lstm_width
    layers += [with_root_row(width), Dropout(0.0)]
    encoder = chain(*layers)
    scorers = {"arcs": arc_scorer(arc_width, nI=width, span_width=span_width),
               "outer": outer_scorer(nI=width),
               "labels": label_scorer(label_width, nL=nL, nI=width, children=label_children)}
    shared = shared_part_projection(part_width, nI=width) if shared_part_roles else None
    for kind, name in PART_REFS.items():
        scorers[name] = part_scorer(kind, part_width, nI=width, projection=shared)
    if start_width:
        scorers["starts"] = start_scorer(start_width, nI=width)
    names = [name for name in SCORERS + ("starts",) if name in scorers]
    model = Model("vine_cascade_model", _forward, init=_init, layers=[encoder] + [scorers[s] for s in names],
                  dims={"nO": width})
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("encoder", encoder)
    for name in names:
        model.set_ref(name, scorers[name])
    return model


def default_model_config() -> Dict[str, Any]:
    """The component's default model block: `vineparse.VineCascadeModel.v3` with every argument at its default
    (the function's signature is where each is declared) and `DEFAULT_TOK2VEC`."""
    arguments = {name: parameter.default for name, parameter in
                 inspect.signature(build_vine_cascade_model).parameters.items() if name != "tok2vec"}
    return {"@architectures": "vineparse.VineCascadeModel.v3", **arguments,
            "tok2vec": copy.deepcopy(DEFAULT_TOK2VEC)}


def _forward(model: Model, docs: List, is_train: bool):
    return model.get_ref("encoder")(docs, is_train)


def _init(model: Model, X=None, Y=None) -> None:
    encoder = model.get_ref("encoder")
    encoder.initialize(X=X)
    sample = None
    if X is not None:
        vectors = encoder.predict(list(X)[:4])
        sample = model.ops.xp.vstack(vectors) if vectors else None
    for name in SCORERS + ("starts",) * model.has_ref("starts"):
        scorer = model.get_ref(name)
        if name == "outer":
            scorer.initialize(X=sample)
            continue
        scorer.layers[0].initialize(X=sample)
        scorer.initialize()


def build_maxout_window_bilstm_encoder(width: int, depth: int, window_size: int, maxout_pieces: int,
                                       lstm_width: int) -> Model[List[Floats2d], List[Floats2d]]:
    """spaCy's `MaxoutWindowEncoder.v2` followed by a one-layer BiLSTM whose outputs are concatenated to its
    own (registered as `vineparse.MaxoutWindowBiLSTMEncoder.v1`): the `encode` of a shared tok2vec that gives
    every listener, spaCy's parser as well as vine_cascade, the same whole-sentence context. Output width
    width + lstm_width (listeners must say so)."""
    if isinstance(lstm_width, bool) or not isinstance(lstm_width, int) or lstm_width < 2 or lstm_width % 2:
        raise ValueError(f"lstm_width must be an even integer >= 2, got {lstm_width!r}")
    cnn = MaxoutWindowEncoder(width=width, window_size=window_size, maxout_pieces=maxout_pieces, depth=depth)
    model = chain(cnn, with_lstm(LSTM(nO=lstm_width, nI=width, bi=True, depth=1)))
    model.set_dim("nO", width + lstm_width)
    return model


def with_lstm(lstm: Model) -> Model[List[Floats2d], List[Floats2d]]:
    """Each doc's token vectors X (n, w) -> [X | BiLSTM(X)] (n, w + lstm nO). At prediction on the CPU, a
    one-layer bidirectional LSTM runs through `_kernels.bilstm` (the same function of the same parameters as
    thinc's forward pass, on scipy's BLAS with vectorized gates); training and GPUs use thinc's."""
    return Model("with_lstm", _with_lstm_forward, init=_with_lstm_init, layers=[with_padded(lstm)])


def _with_lstm_init(model: Model, X=None, Y=None) -> None:
    model.layers[0].initialize(X=X)


def _compiled_lstm(model: Model, X: List[Floats2d]) -> Optional[List[Floats2d]]:
    """[X | BiLSTM(X)] per doc by `_kernels.bilstm`, as views of one (N, w + lstm nO) array written once; or
    None where the kernel does not apply (another LSTM shape, arrays not on the CPU, no tokens)."""
    lstm = model.layers[0].layers[0]
    if (lstm.get_dim("depth") != 1 or lstm.get_dim("dirs") != 2 or model.ops.xp is not np or not X
            or not all(isinstance(x, np.ndarray) and x.dtype == np.float32 for x in X)):
        return None
    width, sizes = X[0].shape[1], [len(x) for x in X]
    joined = np.empty((sum(sizes), width + lstm.get_dim("nO")), dtype=np.float32)
    np.concatenate(X, out=joined[:, :width])
    bilstm_forward(list(X), np.ascontiguousarray(lstm.get_param("LSTM"), dtype=np.float32),
                   np.ascontiguousarray(lstm.get_param("HC0"), dtype=np.float32), lstm.get_dim("nO") // 2,
                   out=joined[:, width:])
    return split_sizes(joined, sizes)


def _with_lstm_forward(model: Model, X: List[Floats2d], is_train: bool):
    out = None if is_train else _compiled_lstm(model, X)
    if out is not None:
        return out, _no_backprop
    Y, backprop_lstm = model.layers[0](X, is_train)
    out = [model.ops.xp.hstack([x, y]) for x, y in zip(X, Y)]

    def backprop(d_out: List[Floats2d]) -> List[Floats2d]:
        widths = [x.shape[1] for x in X]
        dX = backprop_lstm([d[:, w:] for d, w in zip(d_out, widths)])
        return [d[:, :w] + dx for d, w, dx in zip(d_out, widths, dX)]

    return out, backprop


def _no_backprop(d_out):
    raise ValueError("with_lstm ran in prediction mode (is_train=False): it has no backward pass")
