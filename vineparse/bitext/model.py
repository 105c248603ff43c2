"""The bitext model: IBM Model 1 tables, the HMM aligner of M', feature weights and settings, saved with srsly
(msgpack).

Settings live on the model's `BitextConfig`, never in globals. A saved model carries `MODEL_VERSION` and its
feature names; loading a different version, or a model whose features differ from this code's, is a clear
error.
"""
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Optional, Sequence, Tuple, Union

import numpy as np
import srsly

from .features import Featurizer, FeatureSpace
from .grammar import GRAMMARS, check_grammar
from .hmm import AgreementHMM, HMMConfig
from .model1 import BidirectionalModel1

ALIGNERS = ("hmm", "model1")
MODEL_VERSION = 2


@dataclass
class BitextConfig:
    """Settings of a bitext model.

    grammar (str): "binary" (ITG, O(p^3 q^3)) or "ternary" (adds the rules of branching factor 3, O(p^4 q^4)).
    floor (float): Model 1 probability used for unseen word pairs and unknown words.
    max_exact_product (dict): per grammar, the largest p x q that exact inference accepts (larger pairs raise
        ExactLimitError; randomized pruning and tic-tac-toe still work).
    model1_iterations (int): EM iterations for each Model 1 direction.
    aligner (str): where the high-confidence links M' come from: "hmm" (HMM alignment models trained by
        agreement, `hmm.AgreementHMM`, their agreement posterior thresholded) or "model1" (the intersected
        Model 1 Viterbi links).
    hmm_iterations (int): agreement EM iterations of the HMM aligner (after Model 1).
    link_threshold (float): the agreement posterior a link of M' needs, in (0, 1] (above 0.5 M' is
        one-to-one by construction; below, it is made one-to-one best link first).
    """

    grammar: str = "binary"
    floor: float = 1e-6
    max_exact_product: Optional[dict] = None
    model1_iterations: int = 5
    aligner: str = "hmm"
    hmm_iterations: int = 5
    link_threshold: float = 0.5

    def __post_init__(self):
        check_grammar(self.grammar)
        limits = {"binary": 2500, "ternary": 600}
        limits.update(self.max_exact_product or {})
        unknown = set(limits) - set(GRAMMARS)
        if unknown:
            raise ValueError(f"max_exact_product names unknown grammars: {sorted(unknown)}")
        if any(int(v) < 1 for v in limits.values()):
            raise ValueError(f"max_exact_product limits must be >= 1, got {limits}")
        self.max_exact_product = {k: int(v) for k, v in limits.items()}
        if self.model1_iterations < 0 or self.hmm_iterations < 0:
            raise ValueError(f"model1_iterations and hmm_iterations must be >= 0, got {self.model1_iterations}, "
                             f"{self.hmm_iterations}")
        if self.aligner not in ALIGNERS:
            raise ValueError(f"aligner must be one of {', '.join(ALIGNERS)}, got {self.aligner!r}")
        if not 0.0 < self.link_threshold <= 1.0:
            raise ValueError(f"link_threshold must be in (0, 1], got {self.link_threshold}")

    def hmm_config(self) -> HMMConfig:
        return HMMConfig(iterations=self.hmm_iterations, threshold=self.link_threshold, floor=self.floor)


class ModelVersionError(ValueError):
    """A saved model from another version of the bitext model format."""


class BitextModel:
    """Model 1 both ways, the HMM aligner, feature weights and settings.

    model1 (BidirectionalModel1 or None): lexical tables (None: untrained, every word unknown).
    weights (np.ndarray or None): one weight per feature of `FeatureSpace` (None: the defaults).
    config (BitextConfig or None): settings (None: the defaults).
    aligner (AgreementHMM or None): the HMM aligner, the source of M' when config.aligner == "hmm" (None: M'
        is then empty).
    """

    def __init__(self, model1: Optional[BidirectionalModel1] = None, weights: Optional[np.ndarray] = None,
                 config: Optional[BitextConfig] = None, aligner: Optional[AgreementHMM] = None):
        self.config = config or BitextConfig()
        self.model1 = model1 or BidirectionalModel1.untrained()
        self.aligner = aligner
        self.featurizer = Featurizer(self.model1, self.config.floor, aligner, self.config.link_threshold,
                                     self.config.aligner)
        space = self.featurizer.space
        if weights is None:
            weights = space.default_weights()
        weights = np.array(weights, dtype=np.float64)
        if weights.shape != (len(space),):
            raise ValueError(f"weights must have shape ({len(space)},), got {weights.shape}")
        if not np.isfinite(weights).all():
            raise ValueError("weights must be finite")
        self.weights = weights

    @property
    def space(self) -> FeatureSpace:
        return self.featurizer.space

    @classmethod
    def train(cls, pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], config: Optional[BitextConfig] = None,
              weights: Optional[np.ndarray] = None) -> "BitextModel":
        """A model whose Model 1 tables (and with config.aligner == "hmm" the agreement HMM aligner, started
        from them) are trained on (source words, target words) pairs."""
        config = config or BitextConfig()
        model1 = BidirectionalModel1.train(pairs, config.model1_iterations)
        aligner = AgreementHMM.train(pairs, model1, config.hmm_config()) if config.aligner == "hmm" else None
        return cls(model1, weights, config, aligner)

    def links(self, src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
        """M' of a pair: int64 (n, 2) one-to-one rows (i, k)."""
        return self.featurizer.links(src, tgt)

    def with_weights(self, weights: np.ndarray) -> "BitextModel":
        """A model sharing these tables, aligner and settings, with other weights."""
        return BitextModel(self.model1, weights, self.config, self.aligner)

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({
            "version": MODEL_VERSION,
            "config": asdict(self.config),
            "features": self.space.names,
            "weights": self.weights.tolist(),
            "model1": self.model1.to_dict(),
            "aligner": None if self.aligner is None else self.aligner.to_dict(),
        })

    @classmethod
    def from_bytes(cls, data: bytes) -> "BitextModel":
        msg = srsly.msgpack_loads(data)
        if not isinstance(msg, dict) or "version" not in msg:
            raise ModelVersionError("not a saved vineparse bitext model (no version field)")
        if msg["version"] != MODEL_VERSION:
            raise ModelVersionError(f"saved bitext model has version {msg['version']}, this vineparse reads "
                                    f"version {MODEL_VERSION}")
        if set(msg) != {"version", "config", "features", "weights", "model1", "aligner"}:
            raise ModelVersionError(f"malformed saved bitext model: its entries are {sorted(msg, key=str)}")
        names = FeatureSpace().names
        if list(msg["features"]) != names:
            raise ModelVersionError("saved bitext model has a different feature set than this vineparse")
        known = {f.name for f in fields(BitextConfig)}
        config = BitextConfig(**{k: v for k, v in msg["config"].items() if k in known})
        aligner = None if msg.get("aligner") is None else AgreementHMM.from_dict(msg["aligner"])
        return cls(BidirectionalModel1.from_dict(msg["model1"]), np.array(msg["weights"]), config, aligner)

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.to_bytes())

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "BitextModel":
        """RAISES (ModelVersionError, ValueError): "FILE: reason" for a missing, truncated, foreign, old or
        malformed file."""
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise ValueError(f"{path}: cannot read the bitext model ({error.strerror or error})") from None
        try:
            return cls.from_bytes(data)
        except ModelVersionError as error:
            raise ModelVersionError(f"{path}: {error}") from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as error:  # corrupt
            raise ValueError(f"{path}: not a readable vineparse bitext model ({error!r})") from None
