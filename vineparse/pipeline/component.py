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
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
from spacy.errors import Errors
from spacy.language import Language
from spacy.pipeline.dep_parser import parser_score
from spacy.pipeline.trainable_pipe import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from thinc.api import Model, set_dropout_rate

from .. import kernels
from .._kernels.head_columns import head_columns
from . import calibration, serialization
from .batch import Batch
from .confidence import (DISTRIBUTION_FLOOR, TemperatureTracker, doc_confidence, logistic_map,
                         register_extensions)
from .labels import collect_labels, predict_labels, write_parses
from .levels import check_orders, neural_cascade, parse_pieces, vine_level
from .parts import may_split
from .scorers import split_sizes
from .settings import CascadeSettings
from .spaces import attach_whitespace, space_tokens, word_starts
from .splitting import MAX_SEGMENT, ROOT_WINDOW, join_roots, unit_pieces
from .thresholds import RecallTracker
from .training import batch_loss
from .vine import max_marginals_batch as vine_max_marginals_batch

FORMAT_VERSION = serialization.FORMAT_VERSION
# `predict` works through a batch in pieces of about this many words: the batch's arrays then stay in the
# CPU's caches (on EWT, batches of 1,000 docs ran ~15% slower than batches of 250-400 docs, ~4,000 words)
PREDICT_WORDS = 4000
MAX_SAMPLES = 1000      # parses `sample` draws per doc at most (each a copy of the doc)


class Unit(NamedTuple):
    """What is parsed on its own (`VineCascadeParser.units`): tokens start..end - 1 of its doc, whether its
    boundaries are preset (a sentence), its words cut into pieces (start, end, SentenceScores, vine
    max-marginals or None; offsets into `tokens`) and `tokens`, the doc token of each of its words (int64)."""

    start: int
    end: int
    preset: bool
    pieces: list
    tokens: np.ndarray


def word_rows(batch: Batch, doc: int, tokens: np.ndarray) -> np.ndarray:
    """The batch rows of a doc's tokens `tokens` (int64), its root row first."""
    first = int(batch.doc_rows[doc])
    return np.concatenate([[first], first + 1 + np.asarray(tokens, dtype=np.int64)])


def has_boundaries(doc: Doc) -> bool:
    """Whether the doc's sentences are set (sentence starts or a parse)."""
    return doc.has_annotation("SENT_START") or doc.has_annotation("DEP")


def _refreshed(alphas: Sequence[float], rows: List[dict], tracker: RecallTracker, min_sentences: float) -> List[float]:
    """Each pruning level's a from its tracker row, where the level saw at least `min_sentences` sentences."""
    return [row["alpha"] if row["alpha"] is not None and tracker.sentences[k] >= min_sentences else alphas[k]
            for k, row in enumerate(rows)]


class VineCascadeParser(TrainablePipe):
    """Dependency parsing by a vine pruning cascade over neural part scores.

    vocab (Vocab): the shared vocabulary.
    model (Model[List[Doc], List[Floats2d]]): encoder and scorers (`build_vine_cascade_model`).
    name (str): the component's name in the pipeline.
    settings (CascadeSettings or None): every other setting (`settings.CascadeSettings`, where each is
        documented); None = the defaults. Keyword arguments named as settings change those of `settings`.
    scorer (Callable or None): scores predictions (default: spaCy's parser scorer).

    Work bounds: the cascade parses at most MAX_SEGMENT words at once and a vine pass reads at most
    `splitting.WINDOW` words at once, for preset sentences and docs without boundaries alike, so time and
    memory grow linearly with a doc's length (see `splitting.py`). Threads: parsing (`__call__`, `pipe`,
    `predict`, `set_annotations`) is safe from any number of threads at once, each call holding its own
    workspaces; training and changing settings (`update`, `calibrate`, `configure`, `set_*`,
    `from_bytes`/`from_disk`) are not, and must not run while other threads parse with the component.
    """

    def __init__(self, vocab, model: Model, name: str = "vine_cascade", *,
                 settings: Optional[CascadeSettings] = None, scorer: Optional[Callable] = parser_score,
                 **changes):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.settings = CascadeSettings().replace(**changes) if settings is None else settings.replace(**changes)
        self._labels: List[str] = []
        self.skipped = {"sentences": 0, "unseen_labels": 0, "no_structure": 0}
        self.rng = np.random.default_rng(self.settings.seed)
        self.tracker = RecallTracker(self.settings.pruning_levels)
        self.temperatures = TemperatureTracker()
        self.threshold_rows: List[dict] = []      # the tracker's rows at the last refresh
        self.split_calibration: Optional[dict] = None
        self._batches = 0
        self.vine_trained = 0 in self.settings.orders    # the orders it trains (`set_orders` cuts later)
        self._build_cascade()
        register_extensions()

    # -- settings

    @property
    def cfg(self) -> Dict:
        """The labels, the settings and the format version, as saved (read-only: change settings through
        `configure`)."""
        return {"labels": list(self._labels), **self.settings.to_dict(), "format_version": FORMAT_VERSION}

    def configure(self, **changes) -> None:
        """Change settings (checked as `CascadeSettings` checks them) and rebuild the cascade."""
        self.settings = self.settings.replace(**changes)
        if self.tracker.gold.shape[0] != self.settings.pruning_levels:
            self.tracker = RecallTracker(self.settings.pruning_levels)
        self._build_cascade()

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self._labels)

    @property
    def label_data(self) -> List[str]:
        return list(self._labels)

    def add_label(self, label: str) -> int:
        """Add a label before `initialize`. RETURNS (int): 1 if it was new, else 0."""
        if not isinstance(label, str):
            raise ValueError(Errors.E187)
        if label in self._labels:
            return 0
        self._allow_extra_label()
        self._labels = sorted(self._labels + [label])
        self._build_cascade()
        return 1

    def set_label_count(self, count: int) -> None:
        scorer = self.model.get_ref("labels")
        scorer.set_dim("nL", count, force=True)
        scorer.layers[1].set_dim("nO", count, force=True)

    def set_max_heads(self, max_heads: Optional[int]) -> None:
        """Let each Eisner-order pruning level keep at most `max_heads` heads per word (None = no cap); set
        it before `calibrate`, whose thresholds depend on it."""
        self.configure(max_heads=max_heads)

    def set_max_order(self, max_order: Optional[int]) -> None:
        """Stop the cascade at `max_order` when predicting (None = run every level)."""
        self.configure(max_order=max_order)

    def set_alphas(self, alphas: Sequence[float]) -> None:
        """Set the pruning parameter a of each pruning level."""
        self.configure(alphas=list(alphas))

    def set_orders(self, orders: Sequence[int]) -> None:
        """Parse with only the cascade levels `orders` (`predict_orders`), a subsequence of the trained ones that
        ends with the same last level: e.g. [0, 1, 3] parses without the second-order pruning level. Kept
        pruning levels start from their trained thresholds a; `calibrate` resets them for the new masks."""
        settings = self.settings
        kept = [settings.orders.index(order) for order in list(orders)[:-1] if order in settings.orders]
        self.configure(predict_orders=list(orders), predict_alphas=[settings.alphas[k] for k in kept],
                       predict_recall=None,
                       max_order=settings.max_order if settings.max_order in list(orders)[1:] else None)

    def load_cfg(self, cfg: Dict) -> None:
        """Take saved labels and settings."""
        self._labels = list(cfg.get("labels", self._labels))
        self.settings = CascadeSettings.from_dict({**self.settings.to_dict(), **cfg})
        self.tracker = RecallTracker(self.settings.pruning_levels)
        self._build_cascade()

    def _build_cascade(self) -> None:
        settings = self.settings
        self.cascade = neural_cascade(settings.orders, settings.band, settings.alphas, settings.max_heads)
        orders, alphas = settings.prediction
        self.predict_cascade = neural_cascade(orders, settings.band, alphas, settings.max_heads)
        levels = len(self.predict_cascade.levels) - 1
        if getattr(self, "predict_tracker", None) is None or self.predict_tracker.gold.shape[0] != levels:
            self.predict_tracker = RecallTracker(levels)
        self.label_ids = {label: i for i, label in enumerate(self._labels)}

    # -- training

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        """Collect the (projectivized, decorated) labels of the examples and initialize the model.

        get_examples (Callable[[], Iterable[Example]]): the training examples.
        nlp (Language): the pipeline. labels (List[str]): labels to use instead of the examples'.
        """
        validate_get_examples(get_examples, "VineCascadeParser.initialize")
        paths = nlp.config.get("paths", {}) if nlp is not None else {}
        if calibration.same_file(paths.get("train"), paths.get("dev")):
            warnings.warn("vine_cascade: the dev corpus is the training corpus, so the best model is the one that "
                          "fits its training data best; hold out part of the training data as dev (the "
                          "component's own thresholds are set on its `held_out` share either way)")
        labels = collect_labels(get_examples, self.settings.pseudo_projective) if labels is None else sorted(set(labels))
        if not labels:
            raise ValueError("vine_cascade found no dependency labels in the initialization examples: "
                             "the training data needs gold heads and labels")
        self._labels = labels
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
        set_dropout_rate(self.model, drop if self.settings.dropout is None else self.settings.dropout)
        vectors, backprop = self.model.begin_update([eg.predicted for eg in examples])
        loss, d_vectors, _ = batch_loss(self, examples, vectors)
        backprop(d_vectors)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        self._batches += 1
        interval = self.settings.threshold_interval
        if interval and self._batches % interval == 0:
            self.refresh_thresholds()
        return losses

    def refresh_thresholds(self, min_sentences: float = 10.0) -> List[dict]:
        """Set each pruning level's a from the recall tracker (levels that saw fewer than `min_sentences`
        sentences keep theirs) and the confidence temperatures from the temperature tracker, then let the
        trackers forget half of what they saw."""
        settings = self.settings
        changes = {}
        rows = self.tracker.rows(settings.recall)
        changes["alphas"] = _refreshed(settings.alphas, rows, self.tracker, min_sentences)
        if settings.predict_orders is not None:     # the parsing cascade's own thresholds
            predict_rows = self.predict_tracker.rows(settings.prediction_recall)
            changes["predict_alphas"] = _refreshed(settings.predict_alphas, predict_rows, self.predict_tracker,
                                                   min_sentences) + settings.predict_alphas[len(predict_rows):]
            self.predict_tracker.decay()
        head, label = self.temperatures.temperatures()
        self.configure(**changes, head_temperature=head or settings.head_temperature,
                       label_temperature=label or settings.label_temperature)
        self.tracker.decay()
        self.temperatures.decay()
        self.threshold_rows = rows
        return rows

    def get_loss(self, examples: Iterable[Example], scores: List) -> Tuple[float, List]:
        """The loss of a batch and d loss / d encoder output (one array per example); adds the scorers'
        parameter gradients to their layers. scores: the model's output for the examples' predicted docs."""
        loss, d_vectors, _ = batch_loss(self, list(examples), scores)
        return loss, d_vectors

    def skip(self, what: str, detail: str) -> None:
        """Count a skipped item (warned about once)."""
        self.skipped[what] += 1
        if self.skipped[what] == 1:
            warnings.warn(f"vine_cascade skipped {detail} (counted in `component.skipped`)")

    # -- prediction

    def sentence_band(self) -> Optional[int]:
        """The band of the vine that cuts docs without boundaries: the cascade's vine, or where the cascade
        parses without one (`set_orders`) the vine it was trained with, which then only cuts; None without a
        vine."""
        return self.settings.band if self.vine_trained or vine_level(self.cascade) is not None else None

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
        open_doc = any(len(doc) and not has_boundaries(doc) for doc in docs)      # read by `sentence_starts`
        batch = Batch(self.model, self.model.predict(docs), parts=parts).predict(starts=open_doc)
        spaces = [space_tokens(doc) for doc in docs]
        units = self.pieces(batch, docs, spaces=spaces)
        pieces = [piece for doc_units in units for unit in doc_units for piece in unit.pieces]
        known = [found for *_, found in pieces] if vine_level(self.predict_cascade) is not None else None
        trees = parse_pieces(self.predict_cascade, [sent for _, _, sent, _ in pieces], known,
                             self.settings.direct_max_length) if pieces else []
        heads, position = self._assemble(batch, docs, units, trees, spaces)
        if not self.settings.confidences:
            return list(zip(heads, predict_labels(batch, heads, self._labels)))
        labelled = predict_labels(batch, heads, self._labels, self.settings.label_temperature)
        found = self._head_confidences([sent for _, _, sent, _ in pieces], trees, position,
                                       [len(doc) for doc in docs])
        return [(doc_heads, label_ids, doc_confidence(head, dep, *distribution))
                for doc_heads, (label_ids, dep), (head, distribution) in zip(heads, labelled, found)]

    def _head_confidences(self, sentences, trees, position: np.ndarray, sizes: Sequence[int]):
        """Per doc, its tokens' head probabilities (n,) and distributions over heads (offsets, heads, probs as
        `confidence.doc_confidence` takes them), from the first-order marginals of each piece (`confidence.py`:
        the head probability is the predicted head's marginal through `head_scaling`).
        The root of a piece of a preset sentence longer than MAX_SEGMENT words gets its probability of
        heading its piece. position: each piece word's token in the batch (`_assemble`)."""
        total = int(sum(sizes))
        head_prob = np.zeros(total, dtype=np.float32)
        found, offsets, local, prob = head_columns([sent.dense_arcs() for sent in sentences], list(trees),
                                                   self.settings.head_temperature, DISTRIBUTION_FLOOR)
        head_prob[position] = logistic_map(found, self.settings.head_scaling)
        n = np.array([len(tree) - 1 for tree in trees], dtype=np.int64)
        word_start = np.concatenate([[0], np.cumsum(n)]).astype(np.int64)
        word = np.repeat(np.arange(len(found)), np.diff(offsets))            # the piece word of each kept head
        start = np.repeat(word_start[:-1], n)[word]                          # where its piece's words start
        # pieces come in doc order and their words in order (`_assemble`), so `position` increases and the
        # kept heads are already grouped by token, the most probable first
        token = position[word]
        head = np.where(local == 0, token, position[start + local - 1])    # token indices in the batch
        # per doc, views of batch-wide arrays in the dtypes `doc_confidence` stores
        counts = np.bincount(token, minlength=total)
        doc_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        row_start = np.concatenate([[0], np.cumsum(counts)])
        doc = np.repeat(np.arange(len(sizes)), sizes)
        # doc i's offsets are offsets[doc_start[i] + i : doc_start[i + 1] + i + 1]: a 0, then its tokens' ends
        ends = row_start[1:] - row_start[doc_start[:-1]][doc]
        offsets = np.insert(ends, doc_start[:-1], 0).astype(np.int32)
        head = (head - doc_start[doc[token]]).astype(np.int32)
        prob = prob.astype(np.float32)
        starts, rows = doc_start.tolist(), row_start[doc_start].tolist()
        return [(head_prob[a:b], (offsets[a + i:b + i + 1], head[r:q], prob[r:q]))
                for i, (a, b, r, q) in enumerate(zip(starts, starts[1:], rows, rows[1:]))]

    def sample(self, docs: Iterable[Doc], k: int = 10, seed: int = 0) -> List[List[Doc]]:
        """`k` parses of each doc drawn from the arc scorer's tree CRF, p(tree) ∝ exp(s(tree) / T) with T the
        head temperature (`confidence.py`), sentence by sentence as `predict` cuts the doc (a parsed doc keeps
        its sentences), each labelled by the label classifier: RETURNS per doc k copies with those heads and
        labels. How often the samples agree on a token's head is a measure of uncertainty that needs no
        calibration. Docs must have been through the components before this one (e.g. `nlp(text)`). Work: k
        samples per sentence after one inside pass, O(n^3 + k n^2). RAISES (ValueError): k outside
        1..MAX_SAMPLES."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_SAMPLES:
            raise ValueError(f"k must be an integer in 1..{MAX_SAMPLES}, got {k!r}")
        docs = list(docs)
        if not any(len(doc) for doc in docs):
            return [[doc.copy() for _ in range(k)] for doc in docs]
        batch = Batch(self.model, self.model.predict(docs), parts=False).predict(labels=True)
        spaces = [space_tokens(doc) for doc in docs]
        units = self.pieces(batch, docs, spaces=spaces)
        sentences = [sent for doc_units in units for unit in doc_units for _, _, sent, _ in unit.pieces]
        drawn = kernels.eisner_sample_batch([sent.dense_arcs() / self.settings.head_temperature
                                             for sent in sentences], count=k, seed=seed)
        out = [[] for _ in docs]
        for j in range(k):
            heads, _ = self._assemble(batch, docs, units, [trees[j] for trees in drawn], spaces)
            copies = [doc.copy() for doc in docs]
            write_parses(self.vocab, self._labels, copies, zip(heads, predict_labels(batch, heads, self._labels)))
            for found, copy in zip(out, copies):
                found.append(copy)
        return out

    def predict_cascade_orders(self) -> List[int]:
        return [level.order for level in self.predict_cascade.levels]

    def units(self, doc: Doc, starts: Optional[np.ndarray] = None) -> List[Tuple[int, int, bool]]:
        """(start, end, preset) of what is parsed on its own: the doc's sentences if it has boundaries (or a
        parse); else the sentences that begin at `starts` (the sentence-start scorer's, `sentence_starts`),
        parsed as preset sentences; else the whole doc, which the vine may cut (`splitting.py`)."""
        if not len(doc):
            return []
        if has_boundaries(doc):
            return [(s.start, s.end, True) for s in doc.sents]
        if starts is not None:
            bounds = [int(a) for a in starts] + [len(doc)]
            return [(a, b, True) for a, b in zip(bounds, bounds[1:])]
        return [(0, len(doc), False)]

    def sentence_starts(self, batch: Batch, docs: Sequence[Doc], threshold: Optional[float] = None,
                        spaces: Optional[Sequence[np.ndarray]] = None) -> list:
        """Per doc of the batch without sentence boundaries, the tokens whose sentence-start probability is
        above `threshold` (None = the `start_threshold` setting), the first token always, a start on whitespace
        moved to the next word (`spaces.word_starts`) (int64 array); None for other docs, and for every doc
        where the model has no sentence-start scorer. spaces: each doc's `spaces.space_tokens`, where known."""
        open_docs = [i for i, doc in enumerate(docs) if len(doc) and not has_boundaries(doc)]
        if not open_docs or not self.model.has_ref("starts"):
            return [None] * len(docs)
        threshold = self.settings.start_threshold if threshold is None else threshold
        above = np.flatnonzero(batch.start_probabilities() > threshold)      # rows of the whole batch
        out = [None] * len(docs)
        for i in open_docs:
            first = int(batch.doc_rows[i]) + 1          # the doc's first token, a start whatever its value
            inside = above[np.searchsorted(above, first + 1):np.searchsorted(above, first + len(docs[i]))]
            space = space_tokens(docs[i]) if spaces is None else spaces[i]
            out[i] = word_starts(np.concatenate([[0], inside - first]).astype(np.int64), space)
        return out

    def pieces(self, batch: Batch, docs: Sequence[Doc], split_margin: Optional[float] = None,
               start_threshold: Optional[float] = None,
               spaces: Optional[Sequence[np.ndarray]] = None) -> List[List[Unit]]:
        """Per doc of the batch, its units (`units`, with the sentence-start scorer's starts where the model has
        one) as `Unit`s: their words (whitespace tokens are no words: `spaces.py`) cut into pieces
        (`splitting.unit_pieces`; split_margin, start_threshold: None = the component's); a unit of whitespace
        only has none and is left out (spaces: each doc's `spaces.space_tokens`, where known). The units of at
        most MAX_SEGMENT words of every doc are scored in one call, and the vine max-marginals of those that may
        be cut in another."""
        scores = batch.scores
        spaces = [space_tokens(doc) for doc in docs] if spaces is None else spaces
        starts = self.sentence_starts(batch, docs, start_threshold, spaces)
        flat = []
        for i, (doc, doc_starts, space) in enumerate(zip(docs, starts, spaces)):
            for start, end, preset in self.units(doc, doc_starts):
                tokens = start + np.flatnonzero(~space[start:end])
                if len(tokens):
                    flat.append((i, start, end, preset, word_rows(batch, i, tokens), tokens))
        short = [k for k, row in enumerate(flat) if len(row[5]) <= MAX_SEGMENT]
        scored = [None] * len(flat)
        for k, sent in zip(short, scores.sentences([flat[k][4] for k in short])):
            scored[k] = sent
        band = self.sentence_band()
        margin = self.settings.split_margin if split_margin is None else split_margin
        # a unit without boundaries may be cut unless fewer than two of its words could be confirmed as roots
        cut = [band is not None and not row[3] for row in flat]
        checked = [k for k in short if cut[k]]
        for k, may_cut in zip(checked, may_split([scored[k] for k in checked], ROOT_WINDOW, margin)):
            cut[k] = bool(may_cut)
        found = [None] * len(flat)
        if band is not None:            # the vine's sentence check of those units, in one call
            todo = [k for k in short if cut[k]]
            for k, value in zip(todo, vine_max_marginals_batch([scored[k] for k in todo], band)):
                found[k] = value
        out = [[] for _ in docs]
        for (i, start, end, preset, rows, tokens), whole, may_cut, value in zip(flat, scored, cut, found):
            pieces = unit_pieces(whole, rows, scores, band, may_cut, margin, value)
            out[i].append(Unit(start, end, preset, pieces, tokens))
        return out

    def _assemble(self, batch: Batch, docs: Sequence[Doc], units: List[List[Unit]], trees: Sequence[np.ndarray],
                  spaces: Sequence[np.ndarray]):
        """Per doc, the absolute head index of every token (a root points at itself) from its pieces' trees
        (`trees`: one per piece, in the order of `units`), in a few array operations for the whole batch; the
        pieces of a preset sentence joined into one tree; whitespace tokens attached by
        `spaces.attach_whitespace` (spaces: each doc's `spaces.space_tokens`). RETURNS (heads per doc, the batch
        token of each piece word in the order of `trees`)."""
        sizes = [len(doc) for doc in docs]
        doc_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        tokens, joins = [], []                  # each piece's words as batch tokens; preset units to join
        for i, doc_units in enumerate(units):
            for unit in doc_units:
                if unit.preset and len(unit.pieces) > 1:
                    joins.append((i, unit, len(tokens)))
                tokens += [doc_start[i] + unit.tokens[a:b] for a, b, _, _ in unit.pieces]
        heads = np.arange(sum(sizes), dtype=np.int64)
        position = np.zeros(0, dtype=np.int64)
        if trees:
            lengths = np.array([len(tree) - 1 for tree in trees], dtype=np.int64)
            position = np.concatenate(tokens).astype(np.int64)
            first = np.repeat(np.cumsum(lengths) - lengths, lengths)        # each word's piece's first word
            flat = np.concatenate([tree[1:] for tree in trees])
            heads[position] = np.where(flat == 0, position, position[first + np.maximum(flat, 1) - 1])
        for i, unit, first in joins:            # one tree per preset sentence
            roots = np.array([a + int(np.argmax(trees[first + k][1:] == 0))
                              for k, (a, _, _, _) in enumerate(unit.pieces)])
            joined = join_roots(roots, batch.doc_rows[i], word_rows(batch, i, unit.tokens), batch.scores)
            at = doc_start[i] + unit.tokens
            heads[at[roots]] = np.where(joined < 0, at[roots], at[np.maximum(joined, 0)])
        out = split_sizes(heads - np.repeat(doc_start, sizes), sizes)
        return [attach_whitespace(doc_heads, space) for doc_heads, space in zip(out, spaces)], position

    def sentence_spans(self, doc: Doc) -> List[Tuple[int, int]]:
        """The token spans that become sentences: a doc's preset sentences, or the pieces of a doc without
        boundaries (`splitting.py`); a doc of whitespace only has none."""
        batch = Batch(self.model, self.model.predict([doc]), parts=False).predict()
        spans = []
        for unit in self.pieces(batch, [doc])[0]:
            if unit.preset:
                spans.append((unit.start, unit.end))
                continue
            # a piece's span runs to the next piece's first word: the whitespace between stays with it
            firsts = [unit.start] + [int(unit.tokens[a]) for a, _, _, _ in unit.pieces[1:]]
            spans += list(zip(firsts, firsts[1:] + [unit.end]))
        return spans

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        """Write heads, labels and sentence starts (from the trees) to the docs; deprojectivize."""
        write_parses(self.vocab, self._labels, docs, predictions)

    # -- pruning thresholds after training

    def calibrate(self, nlp: Language, examples: Sequence[Example],
                  recall: Union[None, float, Sequence[float]] = None) -> List[dict]:
        """Set each pruning level's a on held-out `examples` for a gold-arc recall, one for every level or
        one per level (`calibration.calibrate`), then the split margin (`calibrate_splitting`)."""
        rows = calibration.calibrate(self, nlp, examples, recall)
        self.calibrate_splitting(nlp, examples)
        return rows

    def calibrate_splitting(self, nlp: Language, examples: Sequence[Example]) -> Optional[dict]:
        """Set `start_threshold` (a model with a sentence-start scorer) or `split_margin` (the vine's cuts) for
        the best sentence-boundary F1 on the docs of held-out `examples` that have no boundaries
        (`calibration.calibrate_splitting`); RETURNS its table (None when nothing to set it on), also kept as
        `split_calibration`."""
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
