"""Training the sparse cascade of `CascadeParser` level by level (Rush & Petrov 2012, section 4).

Each level is trained on the masks its (already trained) predecessors leave on the training sentences; with
`TrainingSettings.jackknife` F >= 2, on the masks that F copies of the pruning levels, each trained without one
fold of the sentences, leave on that fold (as on new text: levels that saw a sentence prune it too well):

* a pruning level by structured cascade training (`objective.cascade_step`: the loss
  [1 - score(gold) + t_a]_+ of Weiss & Taskar 2010, with `train_alpha` and `witnesses`);
* the last level by 1-best MIRA with the Hamming loss (Crammer & Singer 2003; McDonald et al. 2005):
  y' = argmax score(y) + errors(y) (cost-augmented decoding), then the step tau = min(C, (score(y') -
  score(gold) + errors(y')) / ||phi(gold) - phi(y')||^2) towards gold and away from y'; or, with
  final="perceptron", as an averaged perceptron (Collins 2002).

All levels average their weights over the updates (`hashed.HashedScorer`). After a pruning level is trained,
its a (and, for an Eisner order, its head cap) is set on dev for a gold-arc recall target
(`objective.choose_alpha`, `objective.choose_head_cap_and_alpha`); the vine is not capped (an outer arc stands
for many heads at once). Gold trees are projectivized for training (the parser only produces projective
trees). Last, when the examples carry labels, the labeller (`labeler.py`) is trained on the gold trees as
annotated.
"""
import sys
import time
from dataclasses import dataclass, replace
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from .._kernels.features import all_feature_indices
from ..trees import projectivize
from .encoding import Encoded, encode_sentence
from .labeler import LABELER_BITS, Labeler
from .lowering import LoweringModel
from .levels import Level
from .objective import CAP_GRID, cascade_step, choose_alpha, choose_head_cap_and_alpha
from .parser import CascadeParser


@dataclass
class Example:
    """A training or evaluation sentence: encoded, its projectivized tree, its original tree and labels."""

    sent: Encoded
    heads: np.ndarray        # projective, what the parser can produce
    gold: np.ndarray         # as annotated
    labels: Optional[np.ndarray] = None     # DEPREL of each word (n,), for the labeller

    @classmethod
    def from_sentence(cls, sentence, tag: str = "xpos") -> "Example":
        return cls(encode_sentence(sentence, tag), projectivize(sentence.heads), sentence.heads, sentence.labels)


def progress_printer(stream=sys.stderr) -> Callable[[str], None]:
    def report(message: str) -> None:
        print(message, file=stream, flush=True)
    return report


@dataclass
class TrainingSettings:
    """epochs: passes per level; recall: the gold-arc recall each pruning level keeps on dev (of the gold
    arcs the levels before it kept); vine_recall: the vine's own (default: recall) -- the vine is cheap and
    its losses are never recovered, so it can pay to let it keep more; first_order_recall: the first-order
    level's own (default: recall) -- the weakest Eisner model, whose losses no later level recovers either;
    the second-order level after it prunes to about the same arcs whichever it keeps;
    jackknife: folds for the training masks (0 = none: the cascade's own pruning levels make them; F >= 2
    trains the pruning levels F more times, each on (F - 1) / F of the sentences);
    train_alpha: the a used inside the cascade loss; witnesses: sampled parts per update; seed."""

    epochs: int = 5
    recall: float = 0.995
    vine_recall: Optional[float] = None
    first_order_recall: Optional[float] = None
    jackknife: int = 0
    train_alpha: float = 0.5
    witnesses: int = 2
    seed: int = 0
    head_caps: Tuple[int, ...] = CAP_GRID    # caps tried for Eisner-order pruning levels; () = never cap
    final: str = "mira"                      # the last level's update: "mira" or "perceptron"
    mira_c: float = 1.0                      # MIRA's largest step
    labels: bool = True                      # train the labeller (when the examples carry labels)
    label_bits: int = LABELER_BITS           # log2 of the labeller's weights

    def __post_init__(self):
        if self.final not in ("perceptron", "mira"):
            raise ValueError(f"final must be 'perceptron' or 'mira', got {self.final!r}")
        if self.jackknife == 1 or self.jackknife < 0:
            raise ValueError(f"jackknife must be 0 (off) or at least 2 folds, got {self.jackknife}")


def train(parser: CascadeParser, train_examples: Sequence[Example], dev_examples: Sequence[Example],
          settings: TrainingSettings = TrainingSettings(),
          report: Optional[Callable[[str], None]] = None, first_level: int = 0,
          pruning_only: bool = False) -> List[dict]:
    """Train the levels of `parser` in turn; set each pruning level's a on dev.

    first_level (int): levels before it are taken as trained (weights and a kept), e.g. copied
        from a longer cascade that shares them.
    pruning_only (bool): train the pruning levels only (not the last level, not the labeller).
    RETURNS (List[dict]): per trained level, the chosen a, dev kept share and gold recall, and
        training time.
    """
    report = report or progress_printer()
    rng = np.random.default_rng(settings.seed)
    training_masks = _training_masks(parser, train_examples, dev_examples, settings, report)
    train_masks = training_masks(first_level)
    dev_masks = parser.run_batch([ex.sent for ex in dev_examples], upto=first_level)
    summary = []
    for k, level in enumerate(parser.levels):
        if k < first_level:
            continue
        is_last = k == len(parser.levels) - 1
        if is_last and pruning_only:
            break
        start = time.perf_counter()
        for epoch in range(settings.epochs):
            errors = 0
            order = rng.permutation(len(train_examples))
            for count, i in enumerate(order, 1):
                ex = train_examples[i]
                if is_last and settings.final == "mira":
                    errors += _mira_step(level, ex, train_masks[i], settings.mira_c)
                elif is_last:
                    errors += _perceptron_step(level, ex, train_masks[i])
                else:
                    errors += cascade_step(level, ex, train_masks[i], settings.train_alpha, settings.witnesses, rng)
                level.tick()
                if count % 2000 == 0:
                    report(f"  {level.name}: epoch {epoch + 1}/{settings.epochs}, {count:,}/{len(order):,} "
                           f"sentences, {errors:,} updates, {time.perf_counter() - start:.0f}s")
            report(f"{level.name}: epoch {epoch + 1}/{settings.epochs} done: {errors:,} updates in "
                   f"{len(order):,} sentences ({time.perf_counter() - start:.0f}s)")
        level.average()
        row = {"level": level.name, "train_seconds": time.perf_counter() - start}
        if not is_last:
            target = settings.recall
            if level.is_vine and settings.vine_recall is not None:
                target = settings.vine_recall
            elif level.order == 1 and settings.first_order_recall is not None:
                target = settings.first_order_recall
            if not level.is_vine and settings.head_caps:
                _, alpha, recall, kept = choose_head_cap_and_alpha(level, dev_examples, dev_masks, target,
                                                                   settings.head_caps)
            else:
                alpha, recall, kept = choose_alpha(level, dev_examples, dev_masks, target)
            parser.alphas[k] = alpha
            row.update(alpha=alpha, head_cap=level.head_cap, dev_recall=recall, dev_kept_share=kept)
            cap = "" if level.head_cap is None else f", at most {level.head_cap} heads per word,"
            report(f"{level.name}: a = {alpha:.2f}{cap} keeps {kept:.1%} of arcs with gold recall {recall:.2%} on dev")
            train_masks = training_masks(k + 1)
            dev_masks = parser.run_batch([ex.sent for ex in dev_examples], upto=k + 1)
        summary.append(row)
    parser.weight_table()          # the runtime's table; integer precision snaps the levels to its grid
    if settings.labels and not pruning_only and train_examples and all(ex.labels is not None for ex in train_examples):
        train_labeler(parser, train_examples, settings, report)
    return summary


def _training_masks(parser: CascadeParser, examples: Sequence[Example], dev_examples: Sequence[Example],
                    settings: TrainingSettings, report: Callable[[str], None]) -> Callable[[int], list]:
    """masks(k): the input masks of level k on the training sentences (k = 0: None each). Without jackknife,
    those `parser`'s own pruning levels leave (they must be trained up to k). With F folds (sentence i in fold
    i mod F), those of F fresh copies of `parser`'s pruning levels, copy f trained (`train`, pruning_only, a
    set on dev) on the sentences outside fold f and run on fold f's."""
    sents = [ex.sent for ex in examples]
    if not settings.jackknife or len(parser.levels) < 2:
        return lambda k: parser.run_batch(sents, upto=k)
    fold = np.arange(len(examples)) % settings.jackknife
    copies = []
    for f in range(settings.jackknife):
        start = time.perf_counter()
        copy = CascadeParser(orders=parser.orders, band=parser.band, bits=parser.bits, tag=parser.tag,
                             precision=parser.precision)
        train(copy, [ex for ex, g in zip(examples, fold) if g != f], dev_examples,
              replace(settings, jackknife=0), lambda message: None, pruning_only=True)
        copies.append((np.flatnonzero(fold == f), copy))
        report(f"jackknife: pruning levels of fold {f + 1}/{settings.jackknife} trained without its "
               f"{len(copies[-1][0]):,} sentences ({time.perf_counter() - start:.0f}s)")

    def masks(k: int) -> list:
        out = [None] * len(examples)
        for rows, copy in copies:
            for i, mask in zip(rows, copy.run_batch([sents[i] for i in rows], upto=k)):
                out[i] = mask
        return out
    return masks


def train_labeler(parser: CascadeParser, examples: Sequence[Example], settings: TrainingSettings,
                  report: Callable[[str], None]) -> Labeler:
    """Train `parser.labeler` (``settings.epochs`` passes). Pseudo-projective (`parser.pseudo_projective`; None
    becomes True when a training tree is non-projective): on the projective trees the parser produces, and
    `parser.lowering` (`lowering.LoweringModel`, as many passes) on where their lifted arcs belong;
    otherwise on the gold trees as annotated. RETURNS (Labeler): the labeller."""
    start = time.perf_counter()
    lifted = sum(not np.array_equal(ex.heads, ex.gold) for ex in examples)
    if parser.pseudo_projective is None:
        parser.pseudo_projective = lifted > 0
    trees = [ex.heads if parser.pseudo_projective else ex.gold for ex in examples]
    labels = [ex.labels for ex in examples]
    names = sorted({str(label) for sentence_labels in labels for label in sentence_labels})
    parser.labeler = Labeler(names, settings.label_bits).fit([ex.sent for ex in examples], trees, labels,
                                                             epochs=settings.epochs, seed=settings.seed, report=report)
    report(f"labels: {len(names)} labels trained in {time.perf_counter() - start:.0f}s")
    parser.lowering = None
    if parser.pseudo_projective:
        parser.lowering = LoweringModel()
        counts = parser.lowering.fit([(ex.sent.tokens, ex.heads, ex.gold, ex.labels) for ex in examples],
                                     epochs=settings.epochs, seed=settings.seed, report=report)
        report(f"lowering: {lifted:,} sentences with lifted arcs, {counts['lifted']:,} lifted words, "
               f"{counts['covered']:,} of them with their annotated head among the candidates")
    return parser.labeler


def _perceptron_step(level: Level, ex: Example, mask) -> int:
    predicted = level.decode(ex.sent, mask)
    if np.array_equal(predicted, ex.heads):
        return 0
    level.update(ex.sent, ex.heads, 1.0)
    level.update(ex.sent, predicted, -1.0)
    return 1


def _mira_step(level: Level, ex: Example, mask, c: float) -> int:
    """One 1-best MIRA step with the Hamming loss (see the module docstring); returns 1 on an update."""
    n = len(ex.heads) - 1
    cost = np.ones((n + 1, n + 1))
    cost[ex.heads[1:], np.arange(1, n + 1)] = 0.0
    predicted = level.decode(replace(ex.sent, cost=cost), mask)
    errors = int(np.count_nonzero(predicted[1:] != ex.heads[1:]))
    if errors == 0:
        return 0
    features, difference = _feature_difference(level, ex.sent, ex.heads, predicted)
    margin = errors - float(np.dot(level.scorer.weights[features], difference))  # score(y') - score(gold) + errors
    norm = float(np.dot(difference, difference))
    if margin <= 0.0 or norm == 0.0:
        return 0
    step = min(c, margin / norm)
    level.update(ex.sent, ex.heads, step)
    level.update(ex.sent, predicted, -step)
    return 1


def _feature_difference(level: Level, sent: Encoded, gold: np.ndarray, predicted: np.ndarray):
    """phi(gold) - phi(predicted) over the level's hashed features: the feature indices (uint64 (F,)) and the
    difference of their counts (int64 (F,)), so that score(gold) - score(predicted) = weights[indices] .
    difference and ||phi(gold) - phi(predicted)||^2 = difference . difference."""
    size = len(level.scorer.weights)
    ids = []
    for heads in (gold, predicted):
        ids.append(np.concatenate([np.zeros(0, dtype=np.uint64)] + [
            all_feature_indices(kind, sent.tokens, np.ascontiguousarray(rows, dtype=np.int64), size)[0]
            for kind, rows in level.tree_parts(heads)]))
    keys, index = np.unique(np.concatenate(ids), return_inverse=True)
    difference = (np.bincount(index[:len(ids[0])], minlength=len(keys))
                  - np.bincount(index[len(ids[0]):], minlength=len(keys)))
    return keys, difference
