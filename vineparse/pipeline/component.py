"""`VineCascadeParser`: the spaCy component `vine_cascade`.

A graph-based dependency parser that runs the vine pruning cascade of Rush & Petrov (2012) (vine -> first
-> second -> third order, each level pruned by the max-marginals of the one before) on neural part scores
from thinc layers (`architectures.py`, `scorers.py`), through the cascade's own runner and levels
(`levels.py`). This module is the TrainablePipe glue; each concern has its module:

* `splitting.py`: what is parsed at once (preset sentences and docs without boundaries, in pieces of at most
  `splitting.MAX_SEGMENT` words; the pieces of a long preset sentence joined into one tree);
* `training.py`: the losses of a batch and their gradients (`objective.py` for one sentence), on the masks
  the cascade predicts with; `thresholds.py`: the pruning thresholds set while training;
* `calibration.py`: thresholds set on held-out data after training (optional);
* `labels.py`: the label set, batch label prediction, writing parses (deprojectivized);
* `serialization.py`: saving and loading, with a format version and clear errors.
"""
import warnings
from itertools import islice
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.errors import Errors
from spacy.language import Language
from spacy.pipeline.dep_parser import parser_score
from spacy.pipeline.trainable_pipe import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Model, set_dropout_rate

from .._kernels.cascade_runtime import DECODERS
from ..cascade.training import TrainingSettings
from . import calibration, serialization
from .batch import Batch, split_sizes
from .labels import collect_labels, predict_labels, write_parses
from .levels import NeuralVineLevel, check_orders, neural_cascade, parse_pieces
from .objective import ARC_LOSSES
from .parts import may_split
from .splitting import MAX_SEGMENT, ROOT_WINDOW, join_roots, unit_pieces
from .thresholds import RecallTracker, recall_targets
from .training import batch_loss

FORMAT_VERSION = serialization.FORMAT_VERSION
# `predict` works through a batch in pieces of about this many words: the batch's arrays then stay in the
# CPU's caches (on EWT, batches of 1,000 docs ran ~15% slower than batches of 250-400 docs, ~4,000 words)
PREDICT_WORDS = 4000

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "vineparse.VineCascadeModel.v2"
arc_width = 128
part_width = 64
label_width = 128
context_depth = 0
lstm_width = 0
label_children = true

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true
"""


def _check_decoder(decoder) -> None:
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {list(DECODERS)}, got {decoder!r}")


def _check_number(name: str, value, low: float, high: float = float("inf"), low_open: bool = False,
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


class VineCascadeParser(TrainablePipe):
    """Dependency parsing by a vine pruning cascade over neural part scores.

    vocab (Vocab): the shared vocabulary.
    model (Model[List[Doc], List[Floats2d]]): encoder and scorers (`build_vine_cascade_model`).
    name (str): the component's name in the pipeline.
    orders (Sequence[int]): the cascade's levels: 0 = vine, 1-3 = Eisner orders; the last one decodes.
    band (int): the vine's longest short arc.
    alphas (Sequence[float] or None): the pruning parameter a of each pruning level (len(orders) - 1); None =
        0.0 each until training (`threshold_interval`) or `calibrate` sets them.
    recall (float or Sequence[float]): the gold-arc recall a pruning level keeps of the gold arcs that reach
        it, which training (and `calibrate`) set the thresholds for: one for every level or one per level.
        (On EWT, a lower target for the last pruning level pays at `calibrate` after training -- the gold arcs
        it then drops are mostly ones the last level would not choose -- but not while training, where the
        last level learns less from the tighter masks: see the README.)
    threshold_interval (int): every this many batches, training sets each pruning level's a from the recall
        of the held-out sentences seen since, on the masks the cascade predicts with; 0 = keep `alphas` as
        given.
    held_out (float): the share of training sentences (chosen by a hash of their words, the same in every
        epoch) whose recall sets the thresholds.
    learn_held_out (bool): also learn from the `held_out` sentences (their recall is then measured on
        sentences the model learns from; `calibrate` resets the thresholds on unseen data). False keeps
        them out of this component's losses.
    arc_loss (str): "crf" (first-order tree CRF) or "local" (head-selection cross-entropy).
    train_alpha (float): the a inside the structured cascade loss.
    witnesses (int): sampled parts per cascade-loss step (see `vineparse.cascade.training`).
    structured_weight (float): weight of the structured losses (cascade, hinges) against the arc loss.
    label_weight (float): weight of the label cross-entropy.
    dropout (float or None): dropout rate on the encoder output while training; None = the rate `spacy
        train` passes.
    max_heads (int or None): each Eisner-order pruning level keeps at most this many heads per word.
    max_order (int or None): stop the cascade at this order when predicting (None = the last level).
    seed (int): seed of the witness sampling.
    direct_max_length (int): when predicting, sentences of at most this many words skip the pruning levels
        and are decoded by the last level over every arc (exact; on EWT as fast as the cascade up to about 5
        words, slower beyond); 0 = always run the whole cascade.
    decoder (str): how the last level decodes: "map" (default), its best-scoring tree, or "mbr", the tree with
        the most expected correct heads under its distribution p(tree) ∝ exp(score) on its mask (its arc
        marginals, then first-order Eisner over them; more work at the last level).
    learn_rate_scale (float): multiplies the optimizer's learning rate for this component's own parameters.
    split_margin (float): in a doc without sentence boundaries, a ROOT word of the vine starts a sentence
        only if the arc scorer prefers the root for it by more than this over every head within
        `splitting.ROOT_WINDOW` words (`calibrate` sets it on held-out docs for their sentence-boundary F1).
    scorer (Callable or None): scores predictions (default: spaCy's parser scorer).

    Work bounds: the cascade parses at most MAX_SEGMENT words at once and a vine pass reads at most
    `splitting.WINDOW` words at once, for preset sentences and docs without boundaries alike, so time and
    memory grow linearly with a doc's length (see `splitting.py`).
    """

    def __init__(self, vocab, model: Model, name: str = "vine_cascade", *, orders: Sequence[int] = (0, 1, 2, 3),
                 band: int = 5, alphas: Optional[Sequence[float]] = None,
                 recall: Union[float, Sequence[float]] = 0.995,
                 threshold_interval: int = 50, held_out: float = 0.05, learn_held_out: bool = True,
                 arc_loss: str = "crf", train_alpha: float = 0.5,
                 witnesses: int = 2, structured_weight: float = 1.0, max_heads: Optional[int] = 8,
                 max_order: Optional[int] = None, seed: int = 0, learn_rate_scale: float = 1.0,
                 direct_max_length: int = 5, decoder: str = "map", label_weight: float = 1.0,
                 dropout: Optional[float] = None, split_margin: float = 0.0,
                 scorer: Optional[Callable] = parser_score):
        orders = check_orders(orders)
        _check_number("band", band, 1, integer=True)
        alphas = [0.0] * (len(orders) - 1) if alphas is None else [float(a) for a in alphas]
        if len(alphas) != len(orders) - 1:
            raise ValueError(f"alphas needs one value per pruning level: {len(orders) - 1} for orders "
                             f"{list(orders)}, got {len(alphas)}")
        targets = recall_targets(recall, len(orders) - 1)
        recall = float(recall) if isinstance(recall, (int, float)) else targets
        _check_number("threshold_interval", threshold_interval, 0, integer=True)
        _check_number("held_out", held_out, 0.0, 0.5)
        if not isinstance(learn_held_out, bool):
            raise ValueError(f"learn_held_out must be true or false, got {learn_held_out!r}")
        if arc_loss not in ARC_LOSSES:
            raise ValueError(f"arc_loss must be one of {list(ARC_LOSSES)}, got {arc_loss!r}")
        _check_number("structured_weight", structured_weight, 0.0)
        _check_number("label_weight", label_weight, 0.0, low_open=True)
        _check_number("dropout", dropout, 0.0, 0.999999, allow_none=True)
        _check_number("learn_rate_scale", learn_rate_scale, 0.0, low_open=True)
        _check_number("split_margin", split_margin, 0.0)
        _check_number("direct_max_length", direct_max_length, 0, integer=True)
        _check_decoder(decoder)
        _check_number("witnesses", witnesses, 1, integer=True)
        _check_number("max_heads", max_heads, 1, integer=True, allow_none=True)
        if max_order is not None and max_order not in orders[1:]:
            raise ValueError(f"max_order must be one of the Eisner orders {list(orders[1:])} or None, "
                             f"got {max_order!r}")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg = {"labels": [], "orders": list(orders), "band": band, "alphas": alphas, "recall": recall,
                    "threshold_interval": threshold_interval, "held_out": float(held_out),
                    "learn_held_out": learn_held_out, "arc_loss": arc_loss,
                    "train_alpha": train_alpha,
                    "witnesses": witnesses, "structured_weight": float(structured_weight),
                    "max_heads": max_heads, "max_order": max_order, "seed": seed,
                    "learn_rate_scale": float(learn_rate_scale), "direct_max_length": direct_max_length,
                    "decoder": decoder,
                    "label_weight": float(label_weight), "dropout": None if dropout is None else float(dropout),
                    "split_margin": float(split_margin),
                    "format_version": FORMAT_VERSION}
        self.skipped = {"sentences": 0, "unseen_labels": 0}
        self.rng = np.random.default_rng(seed)
        self.tracker = RecallTracker(len(orders) - 1)
        self.threshold_rows: List[dict] = []      # the tracker's rows at the last refresh
        self.split_calibration: Optional[dict] = None
        self._batches = 0
        self.vine_trained = 0 in orders       # the orders of the config: those it trains (`set_orders` cuts later)
        self._build_cascade()

    # -- settings

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        """Add a label before `initialize`. RETURNS (int): 1 if it was new, else 0."""
        if not isinstance(label, str):
            raise ValueError(Errors.E187)
        if label in self.cfg["labels"]:
            return 0
        self._allow_extra_label()
        self.cfg["labels"] = sorted(self.cfg["labels"] + [label])
        self._build_cascade()
        return 1

    def set_label_count(self, count: int) -> None:
        scorer = self.model.get_ref("labels")
        scorer.set_dim("nL", count, force=True)
        scorer.layers[1].set_dim("nO", count, force=True)

    def set_max_heads(self, max_heads: Optional[int]) -> None:
        """Let each Eisner-order pruning level keep at most `max_heads` heads per word (None = no cap); set
        it before `calibrate`, whose thresholds depend on it."""
        _check_number("max_heads", max_heads, 1, integer=True, allow_none=True)
        self.cfg["max_heads"] = max_heads
        self._build_cascade()

    def set_max_order(self, max_order: Optional[int]) -> None:
        """Stop the cascade at `max_order` when predicting (None = run every level)."""
        orders = self.cfg["orders"]
        if max_order is not None and max_order not in orders[1:]:
            raise ValueError(f"max_order must be one of the Eisner orders {orders[1:]} or None, got {max_order!r}")
        self.cfg["max_order"] = max_order
        self._build_cascade()

    def set_orders(self, orders: Sequence[int]) -> None:
        """Keep only the cascade levels `orders`, a subsequence of the trained ones that ends with the same last
        level: e.g. [0, 1, 3] parses without the second-order pruning level (on EWT dev, with the first level
        calibrated for recall 0.95, faster and no less accurate; README). The kept pruning levels keep their
        thresholds a (and per-level recall targets); `calibrate` can reset them for the new masks."""
        orders = list(check_orders(orders))
        current = self.cfg["orders"]
        if not set(orders) <= set(current) or orders[-1] != current[-1]:
            raise ValueError(f"orders must be a subsequence of the trained orders {current} that ends with "
                             f"{current[-1]}, got {orders}")
        kept = [current.index(order) for order in orders[:-1]]       # the pruning levels that stay
        self.cfg["alphas"] = [self.cfg["alphas"][k] for k in kept]
        if isinstance(self.cfg["recall"], list):
            self.cfg["recall"] = [self.cfg["recall"][k] for k in kept]
        if self.cfg["max_order"] not in orders[1:]:
            self.cfg["max_order"] = None
        self.load_cfg({"orders": orders})

    def set_decoder(self, decoder: str) -> None:
        """Decode the last level by "mbr" (the most expected correct heads) or "map" (its best tree)."""
        _check_decoder(decoder)
        self.cfg["decoder"] = decoder

    def set_alphas(self, alphas: Sequence[float]) -> None:
        """Set the pruning parameter a of each pruning level."""
        if len(alphas) != len(self.cfg["orders"]) - 1:
            raise ValueError(f"alphas needs one value per pruning level, got {len(alphas)}")
        self.cfg["alphas"] = [float(a) for a in alphas]
        self._build_cascade()

    def load_cfg(self, cfg: Dict) -> None:
        """Take saved settings (their `orders` may be fewer than the config's, see `set_orders`)."""
        self.cfg.update(cfg)
        self.tracker = RecallTracker(len(self.cfg["orders"]) - 1)
        self._build_cascade()

    def _build_cascade(self) -> None:
        cfg = self.cfg
        self.cascade = neural_cascade(cfg["orders"], cfg["band"], cfg["alphas"], cfg["max_heads"])
        stop = len(cfg["orders"]) if cfg["max_order"] is None else cfg["orders"].index(cfg["max_order"]) + 1
        self.predict_cascade = neural_cascade(cfg["orders"][:stop], cfg["band"], cfg["alphas"][:stop - 1],
                                              cfg["max_heads"])
        self.splitter = NeuralVineLevel(cfg["band"]) if self.vine_trained else None
        self.label_ids = {label: i for i, label in enumerate(cfg["labels"])}
        self.settings = TrainingSettings(train_alpha=cfg["train_alpha"], witnesses=cfg["witnesses"])

    # -- training

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        """Collect the (projectivized, decorated) labels of the examples and initialize the model.

        get_examples (Callable[[], Iterable[Example]]): the training examples.
        nlp (Language): the pipeline. labels (List[str]): labels to use instead of the examples'.
        """
        validate_get_examples(get_examples, "VineCascadeParser.initialize")
        labels = collect_labels(get_examples) if labels is None else sorted(set(labels))
        if not labels:
            raise ValueError("vine_cascade found no dependency labels in the initialization examples: "
                             "the training data needs gold heads and labels")
        self.cfg["labels"] = labels
        self._build_cascade()
        self.set_label_count(len(labels))
        self.model.initialize(X=[example.reference for example in islice(get_examples(), 10)])

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Learn from a batch of examples (see `training.py` for the losses); every `threshold_interval`
        batches, set the pruning thresholds from the recall seen since.

        RETURNS (Dict[str, float]): `losses` with this component's loss added.
        """
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "VineCascadeParser.update")
        if not any(len(eg.predicted) for eg in examples):
            return losses
        set_dropout_rate(self.model, drop if self.cfg.get("dropout") is None else self.cfg["dropout"])
        vectors, backprop = self.model.begin_update([eg.predicted for eg in examples])
        loss, d_vectors, _ = batch_loss(self, examples, vectors)
        backprop(d_vectors)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        self._batches += 1
        interval = self.cfg.get("threshold_interval", 0)
        if interval and self._batches % interval == 0:
            self.refresh_thresholds()
        return losses

    def refresh_thresholds(self, min_sentences: float = 10.0) -> List[dict]:
        """Set each pruning level's a from the recall tracker (levels that saw fewer than `min_sentences`
        sentences keep theirs), then let the tracker forget half of what it saw."""
        rows = self.tracker.rows(self.cfg["recall"])
        alphas = list(self.cfg["alphas"])
        for k, row in enumerate(rows):
            if row["alpha"] is not None and self.tracker.sentences[k] >= min_sentences:
                alphas[k] = row["alpha"]
        self.set_alphas(alphas)
        self.tracker.decay()
        self.threshold_rows = rows
        return rows

    def get_loss(self, examples: Iterable[Example], scores: List) -> Tuple[float, List]:
        """The loss of a batch and d loss / d encoder output (one array per example); adds the scorers'
        parameter gradients to their layers. scores: the model's output for the examples' predicted docs."""
        loss, d_vectors, _ = batch_loss(self, list(examples), scores)
        return loss, d_vectors

    def finish_update(self, sgd) -> None:
        """Update this component's own parameters, at `learn_rate_scale` times the optimizer's rate."""
        scale = self.cfg.get("learn_rate_scale", 1.0)
        if scale == 1.0:
            self.model.finish_update(sgd)
            return

        def scaled(key, weights, gradient, *, lr_scale: float = 1.0):
            return sgd(key, weights, gradient, lr_scale=lr_scale * scale)

        self.model.finish_update(scaled)

    def skip(self, what: str, detail: str) -> None:
        """Count a skipped item (warned about once)."""
        self.skipped[what] += 1
        if self.skipped[what] == 1:
            warnings.warn(f"vine_cascade skipped {detail} (counted in `component.skipped`)")

    # -- prediction

    def sentence_vine(self):
        """The vine that cuts docs without boundaries: the cascade's vine level, or where the cascade parses
        without one (`set_orders`) the vine it was trained with, which then only cuts; None if untrained."""
        level = self.cascade.levels[0]
        return level if isinstance(level, NeuralVineLevel) else self.splitter

    def predict(self, docs: Iterable[Doc]):
        """Parse a batch, in pieces of about PREDICT_WORDS words. RETURNS (List[Tuple[array, array]]): per doc,
        the absolute head index and the label id of every token."""
        docs = list(docs)
        out, start, words = [], 0, 0
        for end, doc in enumerate(docs, 1):
            words += len(doc)
            if words >= PREDICT_WORDS or end == len(docs):
                out += self._predict(docs[start:end])
                start, words = end, 0
        return out

    def _predict(self, docs: List[Doc]):
        if not any(len(doc) for doc in docs):
            return [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) for _ in docs]
        parts = max(self.predict_cascade_orders()) > 1
        batch = Batch(self.model, self.model.predict(docs), parts=parts).predict(labels=True)
        units = self.pieces(batch, docs)
        trees = parse_pieces(self.predict_cascade, [sent for doc_units in units for *_, pieces in doc_units
                                                    for _, _, sent in pieces],
                             self.cfg.get("direct_max_length", 0), decoder=self.cfg["decoder"])
        heads = self._assemble(batch, [len(doc) for doc in docs], units, trees)
        return list(zip(heads, predict_labels(batch, heads, self.cfg["labels"])))

    def predict_cascade_orders(self) -> List[int]:
        return [level.order for level in self.predict_cascade.levels]

    def units(self, doc: Doc) -> List[Tuple[int, int, bool]]:
        """(start, end, preset) of what is parsed on its own: the doc's sentences if it has boundaries (or a
        parse), else the whole doc."""
        if not len(doc):
            return []
        if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
            return [(s.start, s.end, True) for s in doc.sents]
        return [(0, len(doc), False)]

    def pieces(self, batch: Batch, docs: Sequence[Doc], split_margin: Optional[float] = None):
        """Per doc of the batch, (unit start, unit end, preset, [(piece start, piece end, SentenceScores)]) per
        unit of the doc, piece offsets relative to the unit (see `splitting.py`; split_margin: None = the
        component's). The units of at most MAX_SEGMENT words of every doc are scored in one call."""
        units = [self.units(doc) for doc in docs]
        flat = [(i, start, end, preset, batch.rows_of(i, start, end)) for i, doc_units in enumerate(units)
                for start, end, preset in doc_units]
        short = [k for k, (_, start, end, _, _) in enumerate(flat) if end - start <= MAX_SEGMENT]
        scored = [None] * len(flat)
        for k, sent in zip(short, batch.score([flat[k][4] for k in short])):
            scored[k] = sent
        vine = self.sentence_vine()
        margin = self.cfg["split_margin"] if split_margin is None else split_margin
        # a unit without boundaries may be cut unless fewer than two of its words could be confirmed as roots
        cut = [vine is not None and not preset for _, _, _, preset, _ in flat]
        checked = [k for k in short if cut[k]]
        for k, may_cut in zip(checked, may_split([scored[k] for k in checked], ROOT_WINDOW, margin)):
            cut[k] = bool(may_cut)
        if vine is not None:            # the vine's sentence check of those units, in one call
            vine.memoize([scored[k] for k in short if cut[k]])
        out = [[] for _ in docs]
        for (i, start, end, preset, rows), whole, may_cut in zip(flat, scored, cut):
            out[i].append((start, end, preset, unit_pieces(whole, rows, batch.score, vine, may_cut, margin)))
        return out

    def _assemble(self, batch: Batch, sizes: Sequence[int], units, trees: Sequence[np.ndarray]) -> List[np.ndarray]:
        """Per doc (of `sizes` tokens), the absolute head index of every token (a root points at itself) from
        its pieces' trees (`trees`: one per piece, in the order of `units`), in a few array operations for
        the whole batch; the pieces of a preset sentence joined into one tree."""
        doc_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        starts, joins = [], []                  # each piece's first token in the batch; preset units to join
        for i, doc_units in enumerate(units):
            for start, end, preset, pieces in doc_units:
                if preset and len(pieces) > 1:
                    joins.append((i, start, end, len(starts), len(pieces)))
                starts += [doc_start[i] + start + a for a, _, _ in pieces]
        heads = np.arange(sum(sizes), dtype=np.int64)
        if trees:
            lengths = np.array([len(tree) - 1 for tree in trees], dtype=np.int64)
            base = np.repeat(np.asarray(starts, dtype=np.int64), lengths)
            position = base + np.arange(len(base)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            flat = np.concatenate([tree[1:] for tree in trees])
            heads[position] = np.where(flat == 0, position, flat - 1 + base)
        for i, start, end, first, count in joins:       # one tree per preset sentence
            roots = np.array([starts[first + k] - doc_start[i] - start + int(np.argmax(trees[first + k][1:] == 0))
                              for k in range(count)])
            joined = join_roots(roots, batch.doc_rows[i], batch.rows_of(i, start, end), batch.score)
            heads[doc_start[i] + start + roots] = np.where(joined < 0, roots, joined) + start + doc_start[i]
        return split_sizes(heads - np.repeat(doc_start, sizes), sizes)

    def sentence_spans(self, doc: Doc) -> List[Tuple[int, int]]:
        """The token spans that become sentences: a doc's preset sentences, or the pieces of a doc without
        boundaries (`splitting.py`)."""
        batch = Batch(self.model, self.model.predict([doc]), parts=False).predict()
        spans = []
        for start, end, preset, pieces in self.pieces(batch, [doc])[0]:
            spans += [(start, end)] if preset else [(start + a, start + b) for a, b, _ in pieces]
        return spans

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Write heads, labels and sentence starts (from the trees) to the docs; deprojectivize."""
        write_parses(self.vocab, self.cfg["labels"], docs, predictions)

    # -- pruning thresholds after training

    def calibrate(self, nlp: Language, examples: Sequence[Example],
                  recall: Union[None, float, Sequence[float]] = None) -> List[dict]:
        """Set each pruning level's a on held-out `examples` for a gold-arc recall, one for every level or
        one per level (`calibration.calibrate`), then the split margin (`calibrate_splitting`)."""
        rows = calibration.calibrate(self, nlp, examples, recall)
        self.calibrate_splitting(nlp, examples)
        return rows

    def calibrate_splitting(self, nlp: Language, examples: Sequence[Example]) -> Optional[dict]:
        """Set `split_margin` for the best sentence-boundary F1 on the docs of held-out `examples` that have no
        boundaries (`calibration.calibrate_splitting`); RETURNS its table (None when nothing to set it on),
        also kept as `split_calibration`."""
        self.split_calibration = calibration.calibrate_splitting(self, nlp, examples)
        return self.split_calibration

    def cascade_examples(self, nlp: Language, examples: Sequence[Example]):
        """One cascade example per gold sentence of `examples` (`calibration.cascade_examples`)."""
        return calibration.cascade_examples(self, nlp, examples)

    # -- scoring and serialization

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        """dep_uas, dep_las, dep_las_per_type (punctuation excluded) and sents_p/r/f, by spaCy's Scorer."""
        validate_examples(examples, "VineCascadeParser.score")
        return self.scorer(examples, **kwargs)

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return serialization.to_bytes(self, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "VineCascadeParser":
        return serialization.from_bytes(self, bytes_data, exclude)

    def to_disk(self, path, *, exclude=tuple()) -> None:
        serialization.to_disk(self, path, exclude)

    def from_disk(self, path, *, exclude=tuple()) -> "VineCascadeParser":
        return serialization.from_disk(self, path, exclude)
