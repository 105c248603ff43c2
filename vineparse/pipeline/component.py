"""`VineCascadeParser`: the spaCy component `vine_cascade`.

A graph-based dependency parser that runs the vine pruning cascade of Rush & Petrov (2012) (vine -> first
-> second -> third order, each level pruned by the max-marginals of the one before) on neural part scores
from a thinc model (`architectures.py`), through the cascade's own runner and levels (`levels.py`).

* Sentences: preset boundaries (or an existing parse) are kept and each sentence is parsed on its own; a doc
  without them is split by a vine pass over the whole doc (`sentences.py`), so time grows about linearly with
  its length. The pass's vine max-marginals are reused as the cascade's first level when the doc is one
  sentence; sentences of at most `direct_max_length` words skip the pruning levels (decoded exactly by the
  last level). The arc scorer's per-row products are computed once per batch (`parts.arc_rows`).
* Non-projective gold trees are projectivized with spaCy's label decoration (`label||head_label`) for
  training; predictions are deprojectivized, and no decorated label reaches the output.
* Training (`update`): per sentence, head-selection cross-entropy, the structured cascade loss of each
  pruning level, a cost-augmented hinge at the last level and label cross-entropy (`objective.py`).
* `calibrate` sets each pruning level's a on held-out examples for a gold-arc recall target
  (`vineparse.cascade.training.choose_alpha`).
"""
import warnings
from itertools import islice
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import srsly
from spacy import util
from spacy.attrs import DEP, HEAD
from spacy.errors import Errors
from spacy.language import Language
from spacy.pipeline._parser_internals import nonproj
from spacy.pipeline.dep_parser import parser_score
from spacy.pipeline.trainable_pipe import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Model, set_dropout_rate

from .. import kernels
from ..cascade.training import Example as CascadeExample
from ..cascade.training import TrainingSettings, choose_alpha
from .architectures import SCORER_PARAMS, layout_of
from .levels import NeuralVineLevel, check_orders, neural_cascade
from .objective import sentence_loss
from .parts import SentenceScores, arc_rows, distance_buckets, label_logits
from .sentences import bound_lengths, vine_sentences

FORMAT_VERSION = 2      # 2: distance rows of the scorers (E_dist, F_dist, c_dist, Q_sib, Q_gp, Q_gs, M_dist)
ROOT_WINDOW = 64        # heads a vine ROOT word is checked against when splitting a doc into sentences
MAX_SEGMENT = 128       # no span without sentence boundaries parsed as one is longer (see `sentence_spans`)

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "vineparse.VineCascadeModel.v1"
arc_width = 128
part_width = 32
label_width = 128
context_depth = 0

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


class VineCascadeParser(TrainablePipe):
    """Dependency parsing by a vine pruning cascade over neural part scores.

    vocab (Vocab): the shared vocabulary.
    model (Model[List[Doc], List[Floats2d]]): role features per token (`build_vine_cascade_model`).
    name (str): the component's name in the pipeline.
    orders (Sequence[int]): the cascade's levels: 0 = vine, 1-3 = Eisner orders; the last one decodes.
    band (int): the vine's longest short arc.
    alphas (Sequence[float] or None): the pruning parameter a of each pruning level (len(orders) - 1); None =
        0.0 each (keep what beats the mean max-marginal) until `calibrate` sets them.
    recall (float): the cumulative gold-arc recall `calibrate` aims for on held-out data.
    train_alpha (float): the a inside the structured cascade loss.
    witnesses (int): sampled parts per cascade-loss step (see `vineparse.cascade.training`).
    structured_weight (float): weight of the structured losses (cascade, hinges) against the cross-entropies.
    label_weight (float): weight of the label cross-entropy against the head-selection one.
    dropout (float or None): dropout rate of this component's own layers while training (the token vectors
        entering the role features, and the context encoder's); None = the rate `spacy train` passes.
    max_heads (int or None): each Eisner-order pruning level keeps at most this many heads per word.
    max_order (int or None): stop the cascade at this order when predicting (None = the last level).
    seed (int): seed of the witness sampling.
    direct_max_length (int): when predicting, sentences of at most this many words skip the pruning levels
        and are decoded by the last level over every arc (exact, and faster: on short sentences the pruning
        passes cost more than the work they save); 0 = always run the whole cascade.
    learn_rate_scale (float): multiplies the optimizer's learning rate for this component's own parameters
        (not for a shared tok2vec, which its own component updates): the scorers start from zero or random
        weights while the tok2vec is shared with components that train at the base rate.
    scorer (Callable or None): scores predictions (default: spaCy's parser scorer).
    """

    def __init__(self, vocab, model: Model, name: str = "vine_cascade", *, orders: Sequence[int] = (0, 1, 2, 3),
                 band: int = 5, alphas: Optional[Sequence[float]] = None, recall: float = 0.995,
                 train_alpha: float = 0.5, witnesses: int = 2, structured_weight: float = 1.0,
                 max_heads: Optional[int] = 8,
                 max_order: Optional[int] = None, seed: int = 0, learn_rate_scale: float = 1.0,
                 direct_max_length: int = 10, label_weight: float = 1.0, dropout: Optional[float] = None,
                 scorer: Optional[Callable] = parser_score):
        orders = check_orders(orders)
        if isinstance(band, bool) or not isinstance(band, int) or band < 1:
            raise ValueError(f"band must be an integer >= 1, got {band!r}")
        alphas = [0.0] * (len(orders) - 1) if alphas is None else [float(a) for a in alphas]
        if len(alphas) != len(orders) - 1:
            raise ValueError(f"alphas needs one value per pruning level: {len(orders) - 1} for orders "
                             f"{list(orders)}, got {len(alphas)}")
        if not 0.0 < recall <= 1.0:
            raise ValueError(f"recall must be in (0, 1], got {recall}")
        if not structured_weight >= 0.0:
            raise ValueError(f"structured_weight must be >= 0, got {structured_weight!r}")
        if isinstance(label_weight, bool) or not isinstance(label_weight, (int, float)) or not label_weight > 0.0:
            raise ValueError(f"label_weight must be a number > 0, got {label_weight!r}")
        if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                    or not 0.0 <= dropout < 1.0):
            raise ValueError(f"dropout must be None or a number in [0, 1), got {dropout!r}")
        if isinstance(learn_rate_scale, bool) or not isinstance(learn_rate_scale, (int, float)) \
                or not learn_rate_scale > 0.0:
            raise ValueError(f"learn_rate_scale must be a number > 0, got {learn_rate_scale!r}")
        if isinstance(direct_max_length, bool) or not isinstance(direct_max_length, int) or direct_max_length < 0:
            raise ValueError(f"direct_max_length must be an integer >= 0, got {direct_max_length!r}")
        if not isinstance(witnesses, int) or witnesses < 1:
            raise ValueError(f"witnesses must be an integer >= 1, got {witnesses!r}")
        if max_order is not None and max_order not in orders[1:]:
            raise ValueError(f"max_order must be one of the Eisner orders {list(orders[1:])} or None, "
                             f"got {max_order!r}")
        if max_heads is not None and (isinstance(max_heads, bool) or not isinstance(max_heads, int)
                                      or max_heads < 1):
            raise ValueError(f"max_heads must be an integer >= 1 or None, got {max_heads!r}")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg = {"labels": [], "orders": list(orders), "band": band, "alphas": alphas, "recall": recall,
                    "train_alpha": train_alpha, "witnesses": witnesses,
                    "structured_weight": float(structured_weight), "max_heads": max_heads,
                    "max_order": max_order, "seed": seed, "learn_rate_scale": float(learn_rate_scale),
                    "direct_max_length": direct_max_length, "label_weight": float(label_weight),
                    "dropout": None if dropout is None else float(dropout),
                    "format_version": FORMAT_VERSION}
        self.skipped = {"sentences": 0, "unseen_labels": 0}
        self._rng = np.random.default_rng(seed)
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
        self._label_ids = {label: i for i, label in enumerate(self.cfg["labels"])}
        return 1

    def set_max_heads(self, max_heads: Optional[int]) -> None:
        """Let each Eisner-order pruning level keep at most `max_heads` heads per word (None = no cap); set
        it before `calibrate`, whose thresholds depend on it."""
        if max_heads is not None and (isinstance(max_heads, bool) or not isinstance(max_heads, int)
                                      or max_heads < 1):
            raise ValueError(f"max_heads must be an integer >= 1 or None, got {max_heads!r}")
        self.cfg["max_heads"] = max_heads
        self._build_cascade()

    def set_max_order(self, max_order: Optional[int]) -> None:
        """Stop the cascade at `max_order` when predicting (None = run every level)."""
        orders = self.cfg["orders"]
        if max_order is not None and max_order not in orders[1:]:
            raise ValueError(f"max_order must be one of the Eisner orders {orders[1:]} or None, got {max_order!r}")
        self.cfg["max_order"] = max_order
        self._build_cascade()

    def _build_cascade(self) -> None:
        cfg = self.cfg
        self.cascade = neural_cascade(cfg["orders"], cfg["band"], cfg["alphas"], cfg["max_heads"])
        stop = len(cfg["orders"]) if cfg["max_order"] is None else cfg["orders"].index(cfg["max_order"]) + 1
        self.predict_cascade = neural_cascade(cfg["orders"][:stop], cfg["band"], cfg["alphas"][:stop - 1],
                                              cfg["max_heads"])
        self._label_ids = {label: i for i, label in enumerate(cfg["labels"])}
        self.settings = TrainingSettings(train_alpha=cfg["train_alpha"], witnesses=cfg["witnesses"])

    # -- training

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        """Collect the (projectivized, decorated) labels of the examples and initialize the model.

        get_examples (Callable[[], Iterable[Example]]): the training examples.
        nlp (Language): the pipeline. labels (List[str]): labels to use instead of the examples'.
        """
        validate_get_examples(get_examples, "VineCascadeParser.initialize")
        if labels is None:
            found = set()
            for example in get_examples():
                _, deps = example.get_aligned_parse(projectivize=True)
                found.update(d for d in deps if d)
            labels = sorted(found)
        if not labels:
            raise ValueError("vine_cascade found no dependency labels in the initialization examples: "
                             "the training data needs gold heads and labels")
        self.cfg["labels"] = sorted(set(labels))
        self._build_cascade()
        features = self.model.get_ref("features")
        features.set_dim("nL", len(self.cfg["labels"]))
        docs = [example.reference for example in islice(get_examples(), 10)]
        self.model.initialize(X=docs)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Learn from a batch of examples (see the module docstring for the losses).

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
        Z, backprop = self.model.begin_update([eg.predicted for eg in examples])
        loss, (dZ, d_params) = self.get_loss(examples, Z)
        features = self.model.get_ref("features")
        for name, gradient in d_params.items():
            features.inc_grad(name, gradient)
        backprop(dZ)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores: List[np.ndarray]):
        """The loss of a batch and its gradients.

        scores (List[Floats2d]): the model's role features, one (n + 1, K) array per example.
        RETURNS (Tuple[float, Tuple[List[Floats2d], Dict[str, array]]]): the loss, d loss / d features per
            example and d loss / d scorer parameters.
        """
        params = self._params()
        d_params = {name: np.zeros_like(value) for name, value in params.items()}
        layout = layout_of(self.model)
        total = 0.0
        dZ = []
        for example, z in zip(examples, scores):
            d = np.zeros_like(z)
            for start, end, heads, labels in self._gold_sentences(example):
                sent = SentenceScores(_sentence_rows(z, start, end), params, layout)
                result, label_grad = sentence_loss(self.cascade, sent, heads, labels, self.settings, self._rng,
                                                   self.cfg.get("structured_weight", 1.0),
                                                   self.cfg.get("label_weight", 1.0))
                self.skipped["unseen_labels"] += result.unseen_labels
                total += result.total
                d_sent = sent.backward(d_params, label_grad)
                d[0] += d_sent[0]
                d[1 + start:1 + end] += d_sent[1:]
            dZ.append(d)
        return total, (dZ, d_params)

    def _gold_sentences(self, example: Example):
        """(start, end, projective heads (n + 1), label ids (n + 1)) of each gold sentence of the predicted
        doc; sentences whose tokens do not all align one-to-one with gold heads are counted and skipped."""
        heads, deps = example.get_aligned_parse(projectivize=True)
        doc = example.predicted
        if len(example.reference) == len(doc) and example.alignment.x2y.lengths.max(initial=1) == 1:
            spans = [(s.start, s.end) for s in example.reference.sents] if len(doc) else []
        else:
            spans = [(0, len(doc))] if len(doc) else []
        for start, end in spans:
            local = heads[start:end]
            if any(h is None or not start <= h < end for h in local) or any(not d for d in deps[start:end]):
                self._skip("sentences", f"a sentence of {end - start} tokens without one-to-one gold heads")
                continue
            tree = np.array([-1] + [h - start + 1 for h in local], dtype=np.int64)
            positions = np.arange(1, end - start + 1)
            tree[1:][tree[1:] == positions] = 0          # spaCy marks a root by its own index
            labels = np.array([-1] + [self._label_ids.get(d, -1) for d in deps[start:end]], dtype=np.int64)
            yield start, end, tree, labels

    def finish_update(self, sgd) -> None:
        """Update this component's own parameters, at `learn_rate_scale` times the optimizer's rate."""
        scale = self.cfg.get("learn_rate_scale", 1.0)
        if scale == 1.0:
            self.model.finish_update(sgd)
            return

        def scaled(key, weights, gradient, *, lr_scale: float = 1.0):
            return sgd(key, weights, gradient, lr_scale=lr_scale * scale)

        self.model.finish_update(scaled)

    def _skip(self, what: str, detail: str) -> None:
        self.skipped[what] += 1
        if self.skipped[what] == 1:
            warnings.warn(f"vine_cascade skipped {detail} (counted in `component.skipped`)")

    def _params(self) -> Dict[str, np.ndarray]:
        features = self.model.get_ref("features")
        return {name: features.get_param(name) for name in SCORER_PARAMS}

    # -- prediction

    def predict(self, docs: Iterable[Doc]):
        """Parse a batch. RETURNS (List[Tuple[array, array]]): per doc, the absolute head index and the label
        id of every token."""
        docs = list(docs)
        if not any(len(doc) for doc in docs):
            return [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) for _ in docs]
        Z = self.model.predict(docs)
        params, layout = self._params(), layout_of(self.model)
        stacked_z = np.vstack(Z)
        # the arc scorer's per-row products for the whole batch at once, then a view per doc
        stacked = arc_rows(stacked_z, params, layout.blocks())
        starts = np.cumsum([0] + [len(z) for z in Z[:-1]])
        heads = []
        for doc, z, start in zip(docs, Z, starts):
            rows = {name: value[start:start + len(z)] for name, value in stacked.items()}
            heads.append(self._parse_doc(doc, z, params, layout, rows))
        # the labels of the whole batch at once: a doc's rows of Z are its root, then its tokens
        sizes = [len(doc) for doc in docs]
        first_row = np.repeat(starts, sizes)
        token = np.concatenate([np.arange(size) for size in sizes])
        absolute = np.concatenate(heads)
        head, mod = np.where(absolute == token, 0, absolute + 1), token + 1      # rows within the doc; 0 = root
        logits = label_logits(stacked_z, params, layout.blocks(), first_row + head, first_row + mod,
                              distance_buckets(head, mod))
        return list(zip(heads, np.split(logits.argmax(axis=1), np.cumsum(sizes)[:-1])))

    def _parse_doc(self, doc: Doc, z: np.ndarray, params, layout, rows=None) -> np.ndarray:
        """The absolute head index of every token (a root points at itself). rows: `parts.arc_rows` of z (or
        None)."""
        n = len(doc)
        heads = np.arange(n, dtype=np.int64)
        if n == 0:
            return heads
        spans, whole = self._split(doc, z, params, layout, rows)
        for start, end in spans:
            if whole is not None and (start, end) == (0, n):
                sent = whole          # the vine pass that split the doc is the cascade's first level
            else:
                sent_rows = None if rows is None else {k: _sentence_rows(v, start, end) for k, v in rows.items()}
                sent = SentenceScores(_sentence_rows(z, start, end), params, layout, cache=False, rows=sent_rows)
            if sent.n <= self.cfg.get("direct_max_length", 0):
                tree = self.predict_cascade.levels[-1].decode(sent, None)
            else:
                tree = self.predict_cascade.run(sent)
            mods = np.arange(1, end - start + 1)
            heads[start:end] = np.where(tree[1:] == 0, mods - 1, tree[1:] - 1) + start
        return heads

    def sentence_spans(self, doc: Doc, z: np.ndarray, params=None, layout=None) -> List[Tuple[int, int]]:
        """The token spans parsed one by one: the doc's sentences if it has boundaries (or a parse), else
        the sentences of a vine pass over the whole doc (`sentences.vine_sentences`), where a ROOT vine word
        starts a sentence only if the arc scorer agrees that the root outscores every head within
        ROOT_WINDOW words; a span longer than MAX_SEGMENT tokens keeps every cut of the vine, and what is
        still longer is cut at vine-span starts (`sentences.bound_lengths`), so that the work stays linear in
        n. Time O(n b^2 + n a) for the vine pass."""
        return self._split(doc, z, params, layout)[0]

    def _split(self, doc: Doc, z: np.ndarray, params=None, layout=None, rows=None):
        """`sentence_spans`, and the whole doc's `SentenceScores` when a vine pass made them (else None).
        rows: `parts.arc_rows` of z (or None)."""
        if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
            return [(s.start, s.end) for s in doc.sents], None
        params = self._params() if params is None else params
        layout = layout_of(self.model) if layout is None else layout
        vine = self.cascade.levels[0]
        if not isinstance(vine, NeuralVineLevel):
            return [(0, len(doc))], None
        sent = SentenceScores(z, params, layout, cache=False, rows=rows)
        if len(doc) <= MAX_SEGMENT and vine.at_most_one_root(sent):   # the common case; leaves the max-
            return [(0, len(doc))], sent                  # marginals on `sent` for the cascade's own vine level
        heads, attach = vine.best_structure(sent)
        roots = np.flatnonzero(attach == kernels.ATTACH_ROOT)
        rejected = roots[~sent.prefers_root(roots, ROOT_WINDOW)]
        every = vine_sentences(heads, attach)
        attach = attach.copy()
        attach[rejected] = kernels.ATTACH_OUTER_LEFT      # no sentence of its own: it joins the one before
        spans = []
        for start, end in vine_sentences(heads, attach):  # its cuts are a subset of those of `every`
            if end - start <= MAX_SEGMENT:
                spans.append((start, end))
            else:                                         # keep the work linear: the vine's own cuts
                spans += [(a, b) for a, b in every if start <= a and b <= end]
        return bound_lengths(spans, heads, attach, MAX_SEGMENT), sent

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Write heads, labels and sentence starts (from the trees) to the docs; deprojectivize."""
        label_hashes = np.array([self.vocab.strings.add(label) for label in self.cfg["labels"]], dtype=np.uint64)
        for doc, (heads, label_ids) in zip(docs, predictions):
            if not len(doc):
                continue
            array = np.zeros((len(doc), 2), dtype=np.uint64)
            array[:, 0] = (heads - np.arange(len(doc))).astype(np.int64).view(np.uint64)
            array[:, 1] = label_hashes[label_ids]
            doc.from_array([HEAD, DEP], array)
            nonproj.deprojectivize(doc)

    # -- pruning thresholds

    def calibrate(self, nlp: Language, examples: Sequence[Example], recall: Optional[float] = None) -> List[dict]:
        """Set each pruning level's a on `examples` (held out) for a cumulative gold-arc recall.

        Where a level cannot reach `recall` at any a of the grid (its `max_heads` cap drops gold arcs that
        no threshold brings back), the target becomes `recall` times the recall it reaches at the loosest a
        (its ceiling): the threshold then still prunes, instead of keeping every arc the cap allows.
        RETURNS (List[dict]): per pruning level: level, a, gold recall and kept share at that a, and the
        recall ceiling when the target was lowered to it (else None).
        """
        recall = self.cfg["recall"] if recall is None else recall
        cascade_examples = self.cascade_examples(nlp, examples)
        masks = [None] * len(cascade_examples)
        rows = []
        for k, level in enumerate(self.cascade.levels[:-1]):
            alpha, kept_recall, kept = choose_alpha(self.cascade, k, cascade_examples, masks, recall)
            ceiling = None
            if kept_recall < recall:          # unreachable: what came back is the loosest a's row
                ceiling = kept_recall
                alpha, kept_recall, kept = choose_alpha(self.cascade, k, cascade_examples, masks,
                                                        recall * ceiling)
            self.cascade.alphas[k] = alpha
            rows.append({"level": level.name, "alpha": alpha, "gold_recall": kept_recall, "kept_share": kept,
                         "recall_ceiling": ceiling})
            masks = [self.cascade.input_mask(ex.sent, k + 1) for ex in cascade_examples]
        self.cfg["alphas"] = list(self.cascade.alphas)
        self._build_cascade()
        return rows

    def cascade_examples(self, nlp: Language, examples: Sequence[Example]) -> List[CascadeExample]:
        """One cascade example (neural scores, projective gold, gold) per gold sentence of `examples`, with
        the docs run through the components before this one."""
        docs = [eg.predicted.copy() for eg in examples]
        for name, component in nlp.pipeline:
            if name == self.name:
                break
            docs = list(component.pipe(docs)) if hasattr(component, "pipe") else [component(d) for d in docs]
        Z = self.model.predict(docs)
        params, layout = self._params(), layout_of(self.model)
        out = []
        for example, z in zip(examples, Z):
            for start, end, heads, _ in self._gold_sentences(example):
                sent = SentenceScores(_sentence_rows(z, start, end), params, layout)
                out.append(CascadeExample(sent, heads, heads))
        return out

    # -- scoring and serialization

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        """dep_uas, dep_las, dep_las_per_type (punctuation excluded) and sents_p/r/f, by spaCy's Scorer."""
        validate_examples(examples, "VineCascadeParser.score")
        return self.scorer(examples, **kwargs)

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        serialize = {"cfg": lambda: srsly.json_dumps(self.cfg), "vocab": lambda: self.vocab.to_bytes(exclude=exclude),
                     "model": lambda: self.model.to_bytes()}
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "VineCascadeParser":
        deserialize = {"cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
                       "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
                       "model": lambda b: self._load_model(b)}
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        serialize = {"cfg": lambda p: srsly.write_json(p, self.cfg),
                     "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude),
                     "model": lambda p: p.open("wb").write(self.model.to_bytes())}
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path, *, exclude=tuple()) -> "VineCascadeParser":
        path = util.ensure_path(path)
        deserialize = {"cfg": lambda p: self._load_cfg(srsly.read_json(p)),
                       "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
                       "model": lambda p: self._load_model(Path(p).read_bytes())}
        util.from_disk(path, deserialize, exclude)
        return self

    def _load_cfg(self, cfg: Dict) -> None:
        version = cfg.get("format_version") if isinstance(cfg, dict) else None
        if version != FORMAT_VERSION:
            raise ValueError(f"this vine_cascade component was saved with format version {version}, but this "
                             f"vineparse reads version {FORMAT_VERSION}: retrain it or use a matching vineparse")
        self.cfg.update(cfg)
        self._build_cascade()

    def _load_model(self, data: bytes) -> None:
        features = self.model.get_ref("features")
        if not features.has_dim("nL"):
            features.set_dim("nL", len(self.cfg["labels"]))
        try:
            self.model.from_bytes(data)
        except AttributeError:
            raise ValueError(Errors.E149) from None


def _sentence_rows(z: np.ndarray, start: int, end: int) -> np.ndarray:
    """The rows of one sentence of a per-doc array (role features or `arc_rows`): the root row, then tokens
    start..end - 1."""
    if start == 0 and end == len(z) - 1:
        return z
    return np.concatenate([z[:1], z[1 + start:1 + end]])
