"""The vine pruning cascade as a parser object.

A cascade is a list of levels (`levels.py`) run in turn on each sentence; every
level but the last prunes the arcs the next one may use, by max-marginal
thresholds (`thresholds.py`). The default is vine -> first -> second -> third
order (Rush & Petrov 2012). Other lists give the baselines of the paper:
`orders=(3,)` is NoPrune (exhaustive third order), `orders=(1, 3)` FirstOnly,
`orders=("local", 3)` a Local (unstructured) pruner.

    parser = CascadeParser(orders=(0, 1, 2, 3))
    train(parser, train_examples, dev_examples)      # vineparse.cascade.train, see training.py
    heads = parser.parse(["The", "cat", "sat"], ["DT", "NN", "VBD"])
    parser.save("model.msgpack"); CascadeParser.load("model.msgpack")

A trained parser also labels its trees (`labeler.py`, trained after the
levels on the gold trees): `parse_labelled` gives heads and labels.

Models are saved with srsly (msgpack): the configuration, the pruning
thresholds, each pruning level's head cap, each level's non-zero weights as
float32 and the labeller. Loading checks everything before allocating weights
(format and version, level count and names, weight sizes, indices and values)
and names the file in every error; a file written by an incompatible version
is refused with a clear message. Version 2 added the head caps, version 3 the
labeller, version 4 the precision of the runtime's weight table, version 5
whether the labels are pseudo-projective (version 4 files load as not), version 6
the lowering model that replaced version 5's decorated labels (version 5 files
still lower by their labels).
"""
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly

from .._kernels.cascade_runtime import Stats
from .._kernels.sparse_scorer import SparseScorer
from .cascade import Cascade, CascadeStats
from .encoding import Encoded, encode
from .labeler import Labeler, sparse_weights
from .hashed import HashedScorer
from .lowering import LoweringModel
from ..trees import deprojectivize, is_decorated
from .levels import Level
from .structures import make_structure

_TABLE_LOCK = threading.RLock()    # see `CascadeParser.weight_table` (module-level: parsers pickle)
MODEL_FORMAT = "vineparse.cascade"
MODEL_VERSION = 6        # 2: head caps, 3: the labeller, 4: the runtime's weight precision, 5: pseudo-projective
                         # (decorated labels), 6: the lowering model
READABLE_VERSIONS = (4, 5, 6)  # version 4 models read as not pseudo-projective
MODEL_KEYS = {"format", "version", "config", "alphas", "levels", "labeler", "lowering"}   # labeler None: trained
                                                              # without labels; lowering None: not pseudo-projective
DEFAULT_BAND = 5
PRECISIONS = ("int8", "int16", "float32")      # how the runtime stores the weights (see `weight_table`)
MAX_BITS = 26           # 2^26 weights per level at most (1 GiB of float64 weights and totals while training):
                        # a larger request, in a file too, is refused before anything is allocated


class ModelFileError(ValueError):
    """A cascade model that cannot be loaded: the message names the file (if any) and the problem."""


def _integer(name: str, value, low: int, high: Optional[int]) -> int:
    """`value` as an int in low..high (None: unbounded). RAISES (ValueError): naming `name` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return int(value)


def make_level(order, bits: int, band: int) -> Level:
    """A level of `order` (0 = vine, "local", 1-3) scored by its own hashed weights (2^bits)."""
    return Level(make_structure(order, band), HashedScorer(bits))


def grid_step(weights: np.ndarray, largest: int) -> float:
    """The power of two by which integers of magnitude <= `largest` cover the weights (1.0 for all zero)."""
    top = float(np.abs(weights).max()) if len(weights) else 0.0
    return 2.0 ** int(np.ceil(np.log2(top / largest))) if top > 0 else 1.0


class CascadeParser(Cascade):
    """A dependency parser made of a pruning cascade.

    orders (Sequence): the levels, in order; 0 = vine, "local" = unstructured
        arc classifier, 1-3 = Eisner orders. The last level decodes; every other
        level prunes. Default: (0, 1, 2, 3).
    band (int): the vine's longest short arc (`DEFAULT_BAND`; bands 5-12 compared on dev in
        bench/band_sweep.py).
    bits (int): log2 of each level's number of hashed feature weights.
    alphas (Sequence[float]): the pruning parameter a of each pruning level
        (usually set by `training.train` for a target gold-arc recall on dev).
    tag (str): the tag column the model was trained on ("xpos" or "upos").
    pseudo_projective (bool or None): the labeller learns the labels of the lifted (projectivized) training
        trees, Nivre & Nilsson 2005, and a lowering model (`lowering.py`) learns which arcs to lower again
        after parsing, so that non-projective arcs can be predicted; None (the default) = decided by
        `training.train`: on when a training tree is non-projective. Saved with the model.
    """

    def __init__(self, orders: Sequence = (0, 1, 2, 3), band: int = DEFAULT_BAND, bits: int = 20,
                 alphas: Optional[Sequence[float]] = None, tag: str = "xpos", precision: str = "int8",
                 pseudo_projective: Optional[bool] = None):
        orders = tuple(orders)
        if not orders:
            raise ValueError("a cascade needs at least one level")
        if 0 in orders[1:] or "local" in orders[1:]:
            raise ValueError("the vine and local levels can only come first")
        if orders[-1] in (0, "local"):
            raise ValueError("the last level must be an Eisner order (1, 2 or 3)")
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.precision = precision
        if tag not in ("xpos", "upos"):
            raise ValueError(f"tag must be 'xpos' or 'upos', got {tag!r}")
        bits = _integer("bits", bits, 1, MAX_BITS)
        band = _integer("band", band, 1, None)
        if pseudo_projective not in (None, True, False):
            raise ValueError(f"pseudo_projective must be true, false or None, got {pseudo_projective!r}")
        self.pseudo_projective = pseudo_projective
        self.tag = tag
        self.orders = orders
        self.band = band
        self.bits = bits
        self.labeler: Optional[Labeler] = None
        self.lowering: Optional[LoweringModel] = None
        super().__init__([make_level(o, bits, band) for o in orders], alphas)

    # -- running the cascade: the compiled runtime (`_kernels/cascade_runtime.pyx`)

    def weight_table(self):
        """The levels' weights side by side as the runtime reads them: (table (2^bits, levels) of
        `self.precision`, one scale per level).

        With integer precision each trained level's weights are snapped to its grid (multiples of a power
        of two, see `grid_step`) in the level itself: the float32 weights are then exact, so the per-level
        Python path scores bit for bit what the runtime does, and snapping again is the identity. Kept while every level holds the same float32
        (averaged) weight array; rebuilt on each call while a level trains (float64 weights change in place).
        Built under a lock, so threads parsing with one loaded parser build it once and share it.
        """
        with _TABLE_LOCK:
            return self._weight_table()

    def _weight_table(self):
        weights = [level.scorer.weights for level in self.levels]
        cached = getattr(self, "_table_source", None)
        if cached is not None and len(cached) == len(weights) and all(a is b for a, b in zip(cached, weights)):
            return self._table
        dtype = np.dtype(self.precision)
        table = np.empty((1 << self.bits, len(weights)), dtype=dtype)
        scales = np.ones(len(weights))
        for k, scorer in enumerate(level.scorer for level in self.levels):
            if dtype.kind != "i":
                table[:, k] = scorer.weights
                continue
            scales[k] = grid_step(scorer.weights, np.iinfo(dtype).max)
            grid = np.rint(scorer.weights / scales[k])
            table[:, k] = grid
            if scorer.weights.dtype == np.float32:     # a trained level: keep the weights it now scores with
                snapped = (grid * scales[k]).astype(np.float32)
                if not np.array_equal(snapped, scorer.weights):   # a level shared with another cascade keeps
                    scorer.weights = snapped                      # its array, so that one's table stays cached
        result = (table, scales)
        if all(level.scorer.weights.dtype == np.float32 for level in self.levels):
            self._table, self._table_source = result, [level.scorer.weights for level in self.levels]
        else:
            self._table_source = None
        return result

    def scorer(self, sentences: Sequence[Encoded]) -> SparseScorer:
        """The levels' weights over a batch of encoded sentences (cost-augmented ones are not supported)."""
        if any(sent.cost is not None for sent in sentences):
            raise ValueError("the compiled cascade scores sentences without a cost term")
        table, scales = self.weight_table()
        return SparseScorer([sent.tokens for sent in sentences], table, scales)

    def run_batch(self, sentences: Sequence[Encoded], gold: Optional[Sequence[np.ndarray]] = None,
                  stats: Optional[CascadeStats] = None, upto: Optional[int] = None,
                  seconds: Optional[np.ndarray] = None, n_threads: int = 1) -> List[np.ndarray]:
        """`run` for a batch of sentences in one call: heads per sentence, or with `upto` the arc mask level
        `upto` runs on (None for level 0). `gold` (projective heads) feeds the gold-arc recall of `stats`;
        `seconds` (float64, one per sentence) receives each sentence's time; `n_threads` threads share the
        sentences (OpenMP, see `_kernels/parallel.pyx`)."""
        sentences = list(sentences)
        if upto == 0:
            return [None] * len(sentences)
        table = Stats(len(self.levels)) if stats is not None else None
        out = self.runtime().run(self.scorer(sentences), -1 if upto is None else upto, gold, table, seconds,
                                 n_threads)
        if stats is not None:
            stats.add_table(np.asarray(table.table), len(sentences))
        return out

    def run(self, sent, gold: Optional[np.ndarray] = None, stats: Optional[CascadeStats] = None,
            upto: Optional[int] = None):
        return self.run_batch([sent], None if gold is None else [gold], stats, upto)[0]

    def input_mask(self, sent, k: int):
        return self.run_batch([sent], upto=k)[0]

    def parse(self, words: Sequence[str], tags: Sequence[str],
              coarse_tags: Optional[Sequence[str]] = None) -> np.ndarray:
        """The predicted tree of one sentence.

        words, tags (Sequence[str]): n word forms and their part-of-speech tags (the kind the model
            was trained on, `self.tag`).
        coarse_tags (Sequence[str]): n universal tags (UPOS), if known; else the tags stand in.
        RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
        """
        return self.parse_batch([(words, tags, coarse_tags)])[0]

    def parse_batch(self, sentences: Sequence, n_threads: int = 1) -> List[np.ndarray]:
        """The predicted trees of many sentences in one call of the compiled cascade (no Python between
        sentences; `n_threads` threads share them).

        sentences (Sequence): (words, tags) or (words, tags, coarse_tags) per sentence, as for `parse`.
        RETURNS (List[np.ndarray]): heads per sentence.
        """
        encoded = [encode(*sentence) for sentence in sentences]
        return self.run_batch(encoded, n_threads=n_threads)

    def parse_labelled(self, words: Sequence[str], tags: Sequence[str],
                       coarse_tags: Optional[Sequence[str]] = None) -> Tuple[np.ndarray, np.ndarray]:
        """The predicted tree of one sentence and its labels.

        RETURNS (Tuple[np.ndarray, np.ndarray]): heads (as `parse`) and labels (object array of str, n).
        RAISES (ValueError): if the parser has no labeller (trained without labels).
        """
        return self.parse_labelled_batch([(words, tags, coarse_tags)])[0]

    def parse_labelled_batch(self, sentences: Sequence, n_threads: int = 1) -> List[Tuple[np.ndarray, np.ndarray]]:
        """`parse_labelled` for many sentences: the trees in one runtime call (see `parse_batch`), then the
        labels (`label`). RETURNS (List[Tuple[np.ndarray, np.ndarray]]): (heads, labels) per sentence."""
        if self.labeler is None:
            raise ValueError("this cascade has no labeller (it was trained without labels); retrain it")
        encoded = [encode(*sentence) for sentence in sentences]
        trees = self.run_batch(encoded, n_threads=n_threads)
        return [self.label(sent, heads) for sent, heads in zip(encoded, trees)]

    def label(self, sent: Encoded, heads: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """The labels of a parsed tree, and with `pseudo_projective` the tree with the arcs the lowering model
        chooses lowered (it may then be non-projective; a version 5 model lowers the arcs its labeller
        decorates, `vineparse.trees.deprojectivize`). RETURNS (heads, labels)."""
        labels = self.labeler.predict(sent, heads)
        if self.lowering is not None:
            return self.lowering.lower(sent.tokens, heads, labels), labels
        if self.pseudo_projective and any(is_decorated(label) for label in self.labeler.labels):
            return deprojectivize(heads, labels)
        return heads, labels

    # -- saving and loading

    def to_dict(self) -> Dict:
        levels = []
        for level in self.levels:
            nonzero = np.flatnonzero(level.scorer.weights).astype(np.uint32)
            levels.append({"name": level.name, "head_cap": level.head_cap, "indices": nonzero,
                           "values": level.scorer.weights[nonzero].astype(np.float32)})
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION,
                "config": {"orders": list(self.orders), "band": self.band, "bits": self.bits, "tag": self.tag,
                           "precision": self.precision, "pseudo_projective": bool(self.pseudo_projective)},
                "alphas": list(self.alphas), "levels": levels,
                "labeler": None if self.labeler is None else self.labeler.to_dict(),
                "lowering": None if self.lowering is None else self.lowering.to_dict()}

    @classmethod
    def from_dict(cls, data: Dict) -> "CascadeParser":
        """Rebuild a saved parser. RAISES (ValueError): naming the first thing that is wrong (see the module
        docstring); nothing is allocated before the configuration and level list are checked."""
        if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
            raise ValueError("not a vineparse cascade model")
        if data.get("version") not in READABLE_VERSIONS:
            added = {2: " (version 3 added the labeller, 4 the weight precision, 5 pseudo-projective labels, "
                        "6 the lowering model)",
                     3: " (version 4 added the weight precision, 5 pseudo-projective labels, 6 the lowering model)"
                     }.get(data.get("version"), "")
            raise ValueError(f"this cascade model has format version {data.get('version')}, but this "
                             f"vineparse reads version {MODEL_VERSION} (and 4, 5){added}: retrain it or use a "
                             "matching vineparse")
        if data.get("version") in (4, 5):
            data = {**data, "lowering": None}
        if set(data) != MODEL_KEYS:
            raise ValueError(f"malformed cascade model: its entries are {sorted(data, key=str)}, not "
                             f"{sorted(MODEL_KEYS)}")
        config, levels, alphas = (data.get(key) for key in ("config", "levels", "alphas"))
        if not isinstance(config, dict) or not isinstance(levels, list) or not isinstance(alphas, list):
            raise ValueError("malformed cascade model: config must be a map, levels and alphas lists")
        try:
            parser = cls(orders=config["orders"], band=config["band"], bits=config["bits"], alphas=alphas,
                         tag=config["tag"], precision=config["precision"],
                         pseudo_projective=config.get("pseudo_projective", False))
        except KeyError as missing:
            raise ValueError(f"malformed cascade model: the config lacks {missing}") from None
        except TypeError as error:
            raise ValueError(f"malformed cascade model config: {error}") from None
        expected = [level.name for level in parser.levels]
        found = [saved.get("name") if isinstance(saved, dict) else None for saved in levels]
        if found != expected:
            raise ValueError(f"the model's config lists levels {expected} but it holds weights for {found}")
        if not all(isinstance(a, (int, float)) and np.isfinite(a) for a in alphas):
            raise ValueError("malformed cascade model: the alphas must be finite numbers")
        for level, saved in zip(parser.levels, levels):
            cap = saved.get("head_cap")
            cap = None if cap is None else _integer(f"level {level.name}: the head cap", cap, 1, None)
            level.scorer.weights = sparse_weights(saved.get("indices", []), saved.get("values", []), 1 << parser.bits,
                                           f"level {level.name}")
            level.scorer.totals = None
            level.head_cap = cap
        if data.get("labeler") is not None:
            parser.labeler = Labeler.from_dict(data["labeler"])
        if data.get("lowering") is not None:
            if not parser.pseudo_projective or parser.labeler is None:
                raise ValueError("malformed cascade model: a lowering model without pseudo_projective labels")
            parser.lowering = LoweringModel.from_dict(data["lowering"])
        parser.weight_table()          # integer precision: the levels' weights on the runtime's grid
        return parser

    def save(self, path: Union[str, Path]) -> None:
        """Write the model to a msgpack file (creating its folder)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_msgpack(path, self.to_dict())

    @classmethod
    def load(cls, path: Union[str, Path]) -> "CascadeParser":
        """Read a model written by `save`.

        RAISES (ModelFileError): "FILE: reason" for a missing, truncated, foreign, old or malformed file.
        """
        try:
            data = srsly.read_msgpack(path)
        except OSError as err:
            raise ModelFileError(f"{path}: cannot read the cascade model ({err.strerror or err})") from None
        except (ValueError, TypeError, KeyError, IndexError) as err:     # corrupt msgpack
            raise ModelFileError(f"{path}: not a vineparse cascade model (not msgpack: {err})") from None
        try:
            return cls.from_dict(data)
        except ValueError as err:
            raise ModelFileError(f"{path}: {err}") from None
