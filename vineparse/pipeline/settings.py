"""The settings of `vine_cascade`, written and checked once.

`CascadeSettings` is the one place each setting is declared (name, type, default, meaning) and validated. The
factory's signature and default config are made from its fields (`registrations.py`), so a `spacy train`
config sets them as flat keys of `[components.vine_cascade]`, as any spaCy component's; the component keeps
one instance (`VineCascadeParser.settings`, changed through `configure`), and saves and loads it as the JSON of
its `cfg`. Each default is the value of the shipped English model (configs/ewt.cfg), the one the results
measure: a config that leaves a setting out gets that model's.

Settings tried and not adopted were removed (`RETIRED`, each with the behaviour every model now has): a saved
component that recorded one at that value loads, one that recorded another value is refused.
"""
import dataclasses
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from .levels import check_orders
from .thresholds import recall_targets


def _number(name: str, value, low: float, high: float = float("inf"), low_open: bool = False,
            integer: bool = False, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    kinds = (int,) if integer else (int, float)
    ok = not isinstance(value, bool) and isinstance(value, kinds)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        bound = f"> {low}" if low_open else f">= {low}"
        extra = "" if high == float("inf") else f" and <= {high}"
        what = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {what} {bound}{extra}{' or None' if allow_none else ''}, got {value!r}")


def _scaling(value) -> List[float]:
    """`head_scaling` as [a, b] of floats: two finite numbers, a > 0 (the map must be increasing)."""
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"head_scaling must be two numbers [a, b], got {value!r}") from None
    if not (math.isfinite(a) and math.isfinite(b) and a > 0.0):
        raise ValueError(f"head_scaling must be [a, b] with a > 0 and both finite, got {value!r}")
    return [a, b]


@dataclass(frozen=True)
class CascadeSettings:
    """Every setting of `vine_cascade` (besides its `model` and `scorer`).

    orders (List[int]): the cascade's levels, trained together: 0 = vine, 1-3 = Eisner orders, increasing; the
        last one decodes.
    band (int): the vine's longest short arc.
    alphas (List[float] or None): the pruning parameter a of each pruning level (len(orders) - 1); None = 0.0
        each until training (`threshold_interval`) or `calibrate` sets them.
    recall (float or List[float]): the gold-arc recall a pruning level keeps of the gold arcs that reach it,
        which training (and `calibrate`) set the thresholds for: one for every level or one per level.
    threshold_interval (int): every this many batches, training sets each pruning level's a from the recall of
        the held-out sentences seen since, on the masks the cascade predicts with; 0 = keep `alphas` as given.
    held_out (float): the share of training sentences (chosen by a hash of their words, the same in every
        epoch) whose recall sets the thresholds, in [0, 0.5].
    learn_held_out (bool): also learn from the `held_out` sentences; False keeps them out of the losses.
    train_alpha (float): the a inside the structured cascade loss.
    witnesses (int): sampled parts per cascade-loss step (`vineparse.cascade.objective.cascade_step`).
    structured_weight (float): weight of the structured losses (cascade, hinges) against the arc loss.
    max_heads (int or None): each Eisner-order pruning level keeps at most this many heads per word.
    max_order (int or None): stop the cascade at this order when predicting (None = the last level).
    predict_orders (List[int] or None): the levels that parse, a subsequence of `orders` ending with its last
        level (e.g. [1, 3]: fewer pruning levels with thresholds of their own); None = `orders`.
    predict_alphas (List[float] or None): the parsing pruning levels' a, set while training for
        `predict_recall` on the held-out sentences, as the training cascade's are, and by `calibrate`;
        None = the trained levels' `alphas`. Only with `predict_orders`.
    predict_recall (float, List[float] or None): the gold-arc recall the parsing pruning levels' thresholds
        are set for (None = `recall`). Only with `predict_orders`.
    seed (int): seed of the witness sampling.
    direct_max_length (int): when predicting, sentences of at most this many words skip the pruning levels
        and are decoded by the last level over every arc (exact); 0 = always run the whole cascade.
    label_weight (float): weight of the label cross-entropy.
    dropout (float or None): dropout rate on the encoder output while training; None = the rate `spacy train`
        passes.
    split_margin (float): in a doc without sentence boundaries, a ROOT word of the vine starts a sentence only
        if the arc scorer prefers the root for it by more than this over every head within
        `splitting.ROOT_WINDOW` words (`calibrate` sets it on held-out docs for their sentence-boundary F1).
    start_threshold (float): in a doc without sentence boundaries, with a model that has a sentence-start
        scorer (`start_width` > 0 in its architecture), a token starts a sentence where that scorer's
        probability is above this (`calibrate` sets it on held-out docs for their sentence-boundary F1; 1.0
        never cuts); `split_margin` then plays no part.
    pseudo_projective (bool): non-projective training trees are lifted to projective ones (the cascade
        parses projective trees only) with each lifted arc's label decorated with its head's
        ("label||head_label", Nivre & Nilsson 2005), and predicted arcs with decorated labels are lowered
        again, so that non-projective arcs can be predicted; false lifts without decorating. Takes effect
        only where the training data has non-projective trees (the label set records it).
    confidences (bool): also write each token's head and label probabilities and its distribution over heads
        (`Token._.head_prob`, `Token._.dep_prob`, `Token._.head_distribution`; `confidence.py`): one first-order
        inside-outside pass per sentence, just under a tenth of the component's time
        (`bench/results/calibration.json`); off by default, so that docs and their serialised user data stay
        as they are for users who do not ask for them.
    head_temperature (float): the temperature of the head probabilities, set on held-out sentences while
        training and by `calibrate` (`confidence.TemperatureTracker`).
    label_temperature (float): the temperature of the label probabilities, set alike.
    head_scaling (List[float]): [a, b] of the map head_prob = sigmoid(a logit(m) + b) of the predicted head's
        marginal m at `head_temperature`, set by `calibrate` on held-out data (`confidence.fit_logistic`);
        [1, 0] = the marginal itself.
    """

    orders: List[int] = field(default_factory=lambda: [0, 1, 2, 3])
    band: int = 5
    alphas: Optional[List[float]] = None
    recall: Union[float, List[float]] = 0.995
    threshold_interval: int = 50
    held_out: float = 0.05
    learn_held_out: bool = True
    train_alpha: float = 0.5
    witnesses: int = 2
    structured_weight: float = 0.1
    max_heads: Optional[int] = 8
    max_order: Optional[int] = None
    predict_orders: Optional[List[int]] = field(default_factory=lambda: [1, 3])
    predict_alphas: Optional[List[float]] = None
    predict_recall: Union[None, float, List[float]] = 0.95
    seed: int = 0
    direct_max_length: int = 5
    label_weight: float = 2.0
    dropout: Optional[float] = 0.2
    split_margin: float = 0.0
    start_threshold: float = 0.5
    pseudo_projective: bool = True
    confidences: bool = False
    head_temperature: float = 1.0
    label_temperature: float = 1.0
    head_scaling: List[float] = field(default_factory=lambda: [1.0, 0.0])

    def __post_init__(self):
        orders = list(check_orders(self.orders))
        _number("band", self.band, 1, integer=True)
        alphas = [0.0] * (len(orders) - 1) if self.alphas is None else [float(a) for a in self.alphas]
        if len(alphas) != len(orders) - 1:
            raise ValueError(f"alphas needs one value per pruning level: {len(orders) - 1} for orders {orders}, "
                             f"got {len(alphas)}")
        targets = recall_targets(self.recall, len(orders) - 1)
        recall = float(self.recall) if isinstance(self.recall, (int, float)) else targets
        _number("threshold_interval", self.threshold_interval, 0, integer=True)
        _number("held_out", self.held_out, 0.0, 0.5)
        for name in ("learn_held_out", "pseudo_projective", "confidences"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        _number("train_alpha", self.train_alpha, -1.0, 1.0)
        _number("witnesses", self.witnesses, 1, integer=True)
        _number("structured_weight", self.structured_weight, 0.0)
        _number("max_heads", self.max_heads, 1, integer=True, allow_none=True)
        predict_orders, predict_alphas, predict_recall = None, None, None
        if self.predict_orders is not None:
            predict_orders = list(check_orders(self.predict_orders))
            if not set(predict_orders) <= set(orders) or predict_orders[-1] != orders[-1]:
                raise ValueError(f"predict_orders must be a subsequence of orders {orders} that ends with "
                                 f"{orders[-1]}, got {predict_orders} (null parses with every trained level)")
            kept = [orders.index(order) for order in predict_orders[:-1]]
            predict_alphas = ([alphas[k] for k in kept] if self.predict_alphas is None
                              else [float(a) for a in self.predict_alphas])
            if len(predict_alphas) != len(predict_orders) - 1:
                raise ValueError(f"predict_alphas needs one value per pruning level of {predict_orders}, got "
                                 f"{len(predict_alphas)}")
            if self.predict_recall is not None:
                recall_targets(self.predict_recall, len(predict_orders) - 1)
                predict_recall = (float(self.predict_recall) if isinstance(self.predict_recall, (int, float))
                                  else [float(r) for r in self.predict_recall])
        elif self.predict_alphas is not None or self.predict_recall is not None:
            raise ValueError("predict_alphas and predict_recall go with predict_orders: with predict_orders null, set "
                             "them null too (the trained levels parse with `alphas` and `recall`)")
        parsing = orders if predict_orders is None else predict_orders
        if self.max_order is not None and self.max_order not in parsing[1:]:
            raise ValueError(f"max_order must be one of the Eisner orders {parsing[1:]} or None, got "
                             f"{self.max_order!r}")
        _number("seed", self.seed, 0, integer=True)
        _number("direct_max_length", self.direct_max_length, 0, integer=True)
        _number("label_weight", self.label_weight, 0.0, low_open=True)
        _number("dropout", self.dropout, 0.0, 0.999999, allow_none=True)
        _number("split_margin", self.split_margin, 0.0)
        _number("start_threshold", self.start_threshold, 0.0, 1.0)
        _number("head_temperature", self.head_temperature, 0.0, low_open=True)
        _number("label_temperature", self.label_temperature, 0.0, low_open=True)
        head_scaling = _scaling(self.head_scaling)
        normal = {"orders": orders, "alphas": alphas, "recall": recall, "predict_orders": predict_orders,
                  "predict_alphas": predict_alphas, "predict_recall": predict_recall, "held_out": float(self.held_out),
                  "structured_weight": float(self.structured_weight),
                  "label_weight": float(self.label_weight), "split_margin": float(self.split_margin),
                  "start_threshold": float(self.start_threshold),
                  "train_alpha": float(self.train_alpha),
                  "dropout": None if self.dropout is None else float(self.dropout),
                  "head_temperature": float(self.head_temperature), "label_temperature": float(self.label_temperature),
                  "head_scaling": head_scaling}
        for name, value in normal.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes) -> "CascadeSettings":
        """A copy with `changes` (checked like any settings; unknown names raise). Where `orders` changes and
        `alphas` does not, thresholds filled in by default (all 0.0) follow the new number of levels; where
        `predict_orders` becomes None, `predict_alphas` and `predict_recall` not given go with it."""
        unknown = set(changes) - set(NAMES)
        if unknown:
            raise ValueError(f"unknown vine_cascade settings {sorted(unknown)}; the settings are {list(NAMES)}")
        if "orders" in changes and "alphas" not in changes and not any(self.alphas):
            changes["alphas"] = None
        if "predict_orders" in changes and changes["predict_orders"] is None:
            changes = {"predict_alphas": None, "predict_recall": None, **changes}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        """The settings as JSON-ready values."""
        return {name: getattr(self, name) for name in NAMES}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "CascadeSettings":
        """Settings from `to_dict` output (other keys, such as a saved component's labels, are ignored; so is
        a retired setting at its kept value, and one at another value raises: `check_retired`)."""
        check_retired(data, RETIRED, "vine_cascade setting")
        return cls(**{name: data[name] for name in NAMES if name in data})

    @property
    def pruning_levels(self) -> int:
        return len(self.orders) - 1

    @property
    def prediction(self) -> Tuple[List[int], List[float]]:
        """The levels that parse and their thresholds: `predict_orders` (or `orders`) up to `max_order`."""
        orders, alphas = ((self.orders, self.alphas) if self.predict_orders is None
                          else (self.predict_orders, self.predict_alphas))
        stop = len(orders) if self.max_order is None else orders.index(self.max_order) + 1
        return list(orders[:stop]), list(alphas[:stop - 1])

    @property
    def prediction_recall(self):
        """The recall target(s) of the parsing cascade's pruning levels (`predict_recall`, else `recall`)."""
        if self.predict_orders is None:
            return self.recall
        if self.predict_recall is not None:
            return self.predict_recall
        if isinstance(self.recall, list):
            return [self.recall[self.orders.index(order)] for order in self.predict_orders[:-1]]
        return self.recall


NAMES = tuple(f.name for f in dataclasses.fields(CascadeSettings))

# settings tried and not adopted, removed: each with the value that gives the behaviour every model now has
RETIRED = {"arc_loss": "crf", "decoder": "map", "learn_rate_scale": 1.0, "adam_beta2": None, "scorer_dropout": 0.0,
           "reparse_bonus": None}


def check_retired(data: Dict[str, Any], retired: Dict[str, Any], what: str) -> None:
    """Refuse saved settings `data` that give one of the `retired` settings ({name: the value whose behaviour
    was kept}) another value; one at its kept value (a model saved before the setting was removed) changes
    nothing and is for the caller to skip. RAISES (ValueError): naming each such setting."""
    changed = {name: data[name] for name in retired if name in data and data[name] != retired[name]}
    if changed:
        raise ValueError(f"this model was saved with {what}s vineparse no longer has: "
                         + ", ".join(f"{name} = {value!r} (only {retired[name]!r} is kept)"
                                     for name, value in changed.items())
                         + "; retrain it, or load it with the vineparse it was trained with")


def declared_defaults() -> Dict[str, Any]:
    """Each setting's default as declared (before `__post_init__` fills in, e.g., one a per pruning level):
    the values a config leaves unset."""
    return {f.name: f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            for f in dataclasses.fields(CascadeSettings)}


def factory_signature(head: List[inspect.Parameter], tail: List[inspect.Parameter]) -> inspect.Signature:
    """A factory's signature: `head` parameters, then one keyword parameter per setting (its type and default),
    then `tail` (spaCy validates a component's config against its factory's signature)."""
    defaults = declared_defaults()
    settings = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=f.type, default=defaults[f.name])
                for f in dataclasses.fields(CascadeSettings)]
    return inspect.Signature(head + settings + tail)
