"""Setting `vine_cascade`'s pruning thresholds on held-out data after training (optional: training sets
them as it goes, see `thresholds.py`).

`calibrate` sets each pruning level's a for a gold-arc recall (of the gold arcs that reached the level) with
`vineparse.cascade.objective.choose_alpha`, level by level on the masks the levels before leave.
`calibrate_splitting` sets how docs without sentence boundaries are cut (the sentence-start scorer's
threshold, or the vine's split margin, `splitting.py`) for the best sentence-boundary F1 on held-out docs as
they come: a model trained on one sentence per doc learns nothing about boundaries, and there the best
setting is the one that never splits.
`calibrate_before_saving` is the `spacy train` callback (`[training.before_to_disk]`) that calibrates on the
dev corpus every pipeline training writes, so that `model-best` parses with thresholds set on held-out text.
"""
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Union

import numpy as np

from spacy.language import Language
from spacy.training import Example

from ..cascade.objective import choose_alpha
from .batch import Batch
from .objective import GoldTree
from .thresholds import recall_targets
from .training import gold_sentences


def held_out_examples(nlp: Language, path: Union[str, Path]) -> List[Example]:
    """The docs of the .spacy file `path` as Examples whose predicted docs have the gold tokens and nothing
    else (no sentence boundaries): what `calibrate` takes."""
    from spacy.tokens import Doc, DocBin

    gold = DocBin().from_disk(path).get_docs(nlp.vocab)
    return [Example(Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc]), doc)
            for doc in gold]


def same_file(first, second) -> bool:
    """Whether two corpus paths (None or empty: no path) name the same existing file or folder."""
    return bool(first) and bool(second) and Path(str(first)).exists() and \
        Path(str(first)).resolve() == Path(str(second)).resolve()


def refuse_training_corpus(nlp: Language, path: Union[str, Path]) -> None:
    """Raise ValueError when `path` is the corpus `nlp` was trained on (its config's `paths.train`):
    thresholds set on the sentences a model learnt from prune too eagerly on new text."""
    if same_file(nlp.config.get("paths", {}).get("train"), path):
        raise ValueError(f"{path} is the pipeline's training corpus: thresholds set on the sentences a model was "
                         "trained on prune too eagerly on new text; calibrate on held-out data")


def calibrate_before_saving(path: str, component: str = "vine_cascade",
                            recall: Union[None, float, List[float]] = None) -> Callable[[Language], Language]:
    """The `spacy train` callback `vineparse.calibrate_on_dev.v1` (`[training.before_to_disk]`): before each
    save, `calibrate` the pipeline's `component` on the .spacy file `path` (the dev corpus: the data spaCy
    already picks `model-best` by), for `recall` (None: the component's setting). Training goes on with the
    thresholds it sets itself; only what is written is calibrated. Time: one pass of the pipeline over `path`
    per save."""
    if path is None or not Path(str(path)).is_file():
        raise ValueError(f"vineparse.calibrate_on_dev.v1: the dev corpus {path!r} is not a file")
    examples: List[Example] = []

    def before_to_disk(nlp: Language) -> Language:
        if not examples:
            refuse_training_corpus(nlp, path)
            examples.extend(held_out_examples(nlp, path))
        rows = nlp.get_pipe(component).calibrate(nlp, examples, recall)
        found = ", ".join(f"{row['level']} a {row['alpha']:+.2f} recall {row['gold_recall']:.1%}" for row in rows)
        print(f"{component} calibrated on {path}: {found or 'no pruning level'}", file=sys.stderr, flush=True)
        return nlp

    return before_to_disk


def cascade_examples(component, nlp: Language, examples: Sequence[Example]) -> List[GoldTree]:
    """One cascade example (scores, projective gold tree) per gold sentence of `examples`, with the docs run
    through the components before this one."""
    docs = upstream_docs(component, nlp, [eg.predicted.copy() for eg in examples])
    out = []
    for start in range(0, len(docs), 256):
        chunk = examples[start:start + 256]
        batch = Batch(component.model, component.model.predict(docs[start:start + 256])).predict()
        sentences = list(gold_sentences(chunk, component.label_ids, component.skip,
                                        decorate=component.settings.pseudo_projective))
        scored = batch.score([s.rows(batch) for s in sentences], cache=True)
        out += [GoldTree(sent, s.heads) for s, sent in zip(sentences, scored)]
    return out


def upstream_docs(component, nlp: Language, docs: list) -> list:
    """`docs` run through the components of `nlp` before `component`."""
    for name, other in nlp.pipeline:
        if name == component.name:
            break
        docs = list(other.pipe(docs)) if hasattr(other, "pipe") else [other(d) for d in docs]
    return docs


def calibrate(component, nlp: Language, examples: Sequence[Example],
              recall: Union[None, float, Sequence[float]] = None) -> List[dict]:
    """Set each pruning level's a on `examples` (held out) for a gold-arc recall (see the module docstring):
    `recall` is one target for every level or one per level (None: the component's setting, `predict_recall`
    or `recall`). The levels are those that parse (`predict_orders`, up to `max_order`).

    Where a level cannot reach its target at any a of the grid (its head cap drops gold arcs that no threshold
    brings back), the target becomes `recall` times the recall it reaches at the loosest a (its ceiling).
    RETURNS (List[dict]): per pruning level: level, a, gold recall and kept share at that a, and the recall
    ceiling when the target was lowered to it (else None).
    """
    cascade = component.predict_cascade
    settings = component.settings
    targets = recall_targets(settings.prediction_recall if recall is None else recall, len(cascade.levels) - 1)
    found = cascade_examples(component, nlp, examples)
    masks = [None] * len(found)
    rows = []
    for k, (level, recall) in enumerate(zip(cascade.levels[:-1], targets)):
        alpha, kept_recall, kept = choose_alpha(level, found, masks, recall)
        ceiling = None
        if kept_recall < recall:          # unreachable: what came back is the loosest a's row
            ceiling = kept_recall
            alpha, kept_recall, kept = choose_alpha(level, found, masks, recall * ceiling)
        cascade.alphas[k] = alpha
        rows.append({"level": level.name, "alpha": alpha, "gold_recall": kept_recall, "kept_share": kept,
                     "recall_ceiling": ceiling})
        masks = [cascade.input_mask(ex.sent, k + 1) for ex in found]
    alphas = list(cascade.alphas)
    if settings.predict_orders is None:
        component.configure(alphas=alphas + settings.alphas[len(alphas):])
    else:
        component.configure(predict_alphas=alphas + settings.predict_alphas[len(alphas):])
    calibrate_temperatures(component, nlp, examples)
    return rows


def calibrate_temperatures(component, nlp: Language, examples: Sequence[Example]) -> dict:
    """Set the head and label temperatures of the component's confidences (`confidence.py`) on held-out
    `examples`, as training does on its held-out share (the trees the cascade predicts with its current
    thresholds, and the gold arcs' labels), then the head probabilities' logistic map on the same arcs.
    RETURNS {"head_temperature", "label_temperature", "head_scaling"} as set."""
    from .confidence import TemperatureTracker
    from .training import observe_held_out

    saved, component.temperatures = component.temperatures, TemperatureTracker(decay=1.0, keep=True)
    try:
        for start in range(0, len(examples), 256):
            chunk = examples[start:start + 256]
            docs = upstream_docs(component, nlp, [eg.predicted.copy() for eg in chunk])
            batch = Batch(component.model, component.model.predict(docs)).predict(labels=True)
            sentences = list(gold_sentences(chunk, component.label_ids, component.skip,
                                            decorate=component.settings.pseudo_projective))
            observe_held_out(component, batch, sentences, thresholds=False)
        head, label = component.temperatures.temperatures(min_arcs=1.0)
        scaling = component.temperatures.head_scaling() if head else None
    finally:
        component.temperatures = saved
    component.configure(head_temperature=head or component.settings.head_temperature,
                        label_temperature=label or component.settings.label_temperature,
                        head_scaling=list(scaling or component.settings.head_scaling))
    return {"head_temperature": component.settings.head_temperature,
            "label_temperature": component.settings.label_temperature,
            "head_scaling": component.settings.head_scaling}


SPLIT_MARGINS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)
START_THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


def calibrate_splitting(component, nlp: Language, examples: Sequence[Example],
                        values: Optional[Sequence[float]] = None) -> Optional[dict]:
    """Set how the component cuts docs without sentence boundaries for the best sentence-boundary F1 over
    the docs of `examples` that have none (docs whose tokens differ from the gold ones are counted in
    "skipped_docs"): with a sentence-start scorer its `start_threshold` (of `values`, default
    START_THRESHOLDS), else the vine's `split_margin` (default SPLIT_MARGINS); of the values tied for the best
    F1, the largest, which splits least. A boundary is a sentence start after a doc's first token;
    F1 = 2 correct / (gold + predicted), 1 where both are 0.
    RETURNS None (nothing set) when the component cannot cut (no sentence-start scorer and no vine), when no
    doc qualifies, or, for the start threshold, when no qualifying doc has more than one sentence (held-out
    single sentences say nothing of where a scorer trained on documents should cut), else {"setting",
    "value", "docs", "skipped_docs", "gold_boundaries", "rows": [{"value", "predicted", "correct", "f1"}]}.
    Time: one encoder pass over the docs, then per value a comparison of each token's start probability
    (start threshold) or a vine pass (split margin)."""
    starts = component.model.has_ref("starts")
    if not starts and component.sentence_band() is None:
        return None
    setting = "start_threshold" if starts else "split_margin"
    values = tuple(values if values is not None else START_THRESHOLDS if starts else SPLIT_MARGINS)
    unbounded = [eg for eg in examples if len(eg.predicted) and not component.units(eg.predicted)[0][2]]
    used = [eg for eg in unbounded if [t.text for t in eg.reference] == [t.text for t in eg.predicted]]
    if not used or (starts and not any(token.is_sent_start for eg in used for token in eg.reference[1:])):
        return None
    predicted = np.zeros(len(values), dtype=np.int64)
    correct = np.zeros(len(values), dtype=np.int64)
    gold_total = 0
    for start in range(0, len(used), 256):
        chunk = used[start:start + 256]
        docs = upstream_docs(component, nlp, [eg.predicted.copy() for eg in chunk])
        batch = Batch(component.model, component.model.predict(docs), parts=False)
        if not starts:
            batch.predict()
        # the gold sentences' first tokens among the predicted tokens (spaCy's alignment: raw text has its own)
        gold = [{i for i, first in enumerate(eg.get_aligned_sent_starts()) if first} - {0} for eg in chunk]
        gold_total += sum(len(g) for g in gold)
        for k, value in enumerate(values):
            if starts:      # the sentences begin where the scorer says (`units`); pieces of long ones are joined
                found = [set(first.tolist()) for first in component.sentence_starts(batch, docs, value)]
            else:           # the vine's pieces of a doc without boundaries are its sentences
                found = [{int(unit.tokens[a]) for unit in doc_units for a, _, _, _ in unit.pieces}
                         for doc_units in component.pieces(batch, docs, split_margin=value)]
            for cuts, truth in zip(found, gold):
                cuts = cuts - {0}
                predicted[k] += len(cuts)
                correct[k] += len(cuts & truth)
    f1 = np.where(predicted + gold_total > 0, 2 * correct / np.maximum(predicted + gold_total, 1), 1.0)
    best = max(range(len(values)), key=lambda k: (f1[k], values[k]))
    component.configure(**{setting: float(values[best])})
    return {"setting": setting, "value": float(values[best]), "docs": len(used),
            "skipped_docs": len(unbounded) - len(used), "gold_boundaries": gold_total,
            "rows": [{"value": float(v), "predicted": int(p), "correct": int(c), "f1": float(f)}
                     for v, p, c, f in zip(values, predicted, correct, f1)]}
