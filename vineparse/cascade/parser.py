"""The vine pruning cascade as a parser object.

A cascade is a list of levels (`levels.py`) run in turn on each sentence; every
level but the last prunes the arcs the next one may use, by max-marginal
thresholds (`thresholds.py`). The default is vine -> first -> second -> third
order (Rush & Petrov 2012). Other lists give the baselines of the paper:
`orders=(3,)` is NoPrune (exhaustive third order), `orders=(1, 3)` FirstOnly,
`orders=("local", 3)` a Local (unstructured) pruner.

    parser = CascadeParser(orders=(0, 1, 2, 3))
    parser.train(train_sentences, dev_sentences)     # see training.py
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
labeller.
"""
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np
import srsly

from .cascade import Cascade
from .encoding import encode
from .labeler import Labeler, sparse_weights
from .levels import LEVELS, Level, LocalLevel, VineLevel

MODEL_FORMAT = "vineparse.cascade"
MODEL_VERSION = 3
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
    if order == 0:
        return VineLevel(bits, band)
    if order == "local":
        return LocalLevel(bits)
    if order not in LEVELS:
        raise ValueError(f"unknown cascade level {order!r}: use 0 (vine), 'local', 1, 2 or 3")
    return LEVELS[order](bits)


class CascadeParser(Cascade):
    """A dependency parser made of a pruning cascade.

    orders (Sequence): the levels, in order; 0 = vine, "local" = unstructured
        arc classifier, 1-3 = Eisner orders. The last level decodes; every other
        level prunes. Default: (0, 1, 2, 3).
    band (int): the vine's longest short arc.
    bits (int): log2 of each level's number of hashed feature weights.
    alphas (Sequence[float]): the pruning parameter a of each pruning level
        (usually set by `training.train` for a target gold-arc recall on dev).
    tag (str): the tag column the model was trained on ("xpos" or "upos").
    """

    def __init__(self, orders: Sequence = (0, 1, 2, 3), band: int = 5, bits: int = 20,
                 alphas: Optional[Sequence[float]] = None, tag: str = "xpos"):
        orders = tuple(orders)
        if not orders:
            raise ValueError("a cascade needs at least one level")
        if 0 in orders[1:] or "local" in orders[1:]:
            raise ValueError("the vine and local levels can only come first")
        if orders[-1] in (0, "local"):
            raise ValueError("the last level must be an Eisner order (1, 2 or 3)")
        if tag not in ("xpos", "upos"):
            raise ValueError(f"tag must be 'xpos' or 'upos', got {tag!r}")
        bits = _integer("bits", bits, 1, MAX_BITS)
        band = _integer("band", band, 1, None)
        self.tag = tag
        self.orders = orders
        self.band = band
        self.bits = bits
        self.labeler: Optional[Labeler] = None
        super().__init__([make_level(o, bits, band) for o in orders], alphas)

    def parse(self, words: Sequence[str], tags: Sequence[str],
              coarse_tags: Optional[Sequence[str]] = None) -> np.ndarray:
        """The predicted tree of one sentence.

        words, tags (Sequence[str]): n word forms and their part-of-speech tags (the kind the model
            was trained on, `self.tag`).
        coarse_tags (Sequence[str]): n universal tags (UPOS), if known; else the tags stand in.
        RETURNS (np.ndarray): heads, int64 of length n + 1, heads[0] = -1.
        """
        if len(words) == 0:
            return np.array([-1], dtype=np.int64)
        return self.run(encode(words, tags, coarse_tags))

    def parse_labelled(self, words: Sequence[str], tags: Sequence[str],
                       coarse_tags: Optional[Sequence[str]] = None) -> Tuple[np.ndarray, np.ndarray]:
        """The predicted tree of one sentence and its labels.

        RETURNS (Tuple[np.ndarray, np.ndarray]): heads (as `parse`) and labels (object array of str, n).
        RAISES (ValueError): if the parser has no labeller (trained without labels).
        """
        if self.labeler is None:
            raise ValueError("this cascade has no labeller (it was trained without labels); retrain it")
        sent = encode(words, tags, coarse_tags)
        heads = self.run(sent) if sent.n else np.array([-1], dtype=np.int64)
        return heads, self.labeler.predict(sent, heads)

    # -- saving and loading

    def to_dict(self) -> Dict:
        levels = []
        for level in self.levels:
            nonzero = np.flatnonzero(level.weights).astype(np.uint32)
            levels.append({"name": level.name, "head_cap": level.head_cap, "indices": nonzero,
                           "values": level.weights[nonzero].astype(np.float32)})
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION,
                "config": {"orders": list(self.orders), "band": self.band, "bits": self.bits, "tag": self.tag},
                "alphas": list(self.alphas), "levels": levels,
                "labeler": None if self.labeler is None else self.labeler.to_dict()}

    @classmethod
    def from_dict(cls, data: Dict) -> "CascadeParser":
        """Rebuild a saved parser. RAISES (ValueError): naming the first thing that is wrong (see the module
        docstring); nothing is allocated before the configuration and level list are checked."""
        if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
            raise ValueError("not a vineparse cascade model")
        if data.get("version") != MODEL_VERSION:
            added = " (version 3 added the labeller)" if data.get("version") == 2 else ""
            raise ValueError(f"this cascade model has format version {data.get('version')}, but this "
                             f"vineparse reads version {MODEL_VERSION}{added}: retrain it or use a matching "
                             "vineparse")
        config, levels, alphas = (data.get(key) for key in ("config", "levels", "alphas"))
        if not isinstance(config, dict) or not isinstance(levels, list) or not isinstance(alphas, list):
            raise ValueError("malformed cascade model: config must be a map, levels and alphas lists")
        try:
            parser = cls(orders=config["orders"], band=config["band"], bits=config["bits"], alphas=alphas,
                         tag=config["tag"])
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
            level.weights = sparse_weights(saved.get("indices", []), saved.get("values", []), 1 << parser.bits,
                                           f"level {level.name}")
            level.totals = None
            level.head_cap = cap
        if data.get("labeler") is not None:
            parser.labeler = Labeler.from_dict(data["labeler"])
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
