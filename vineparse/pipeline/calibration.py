"""Setting `vine_cascade`'s pruning thresholds on held-out data after training (optional: training sets
them as it goes, see `thresholds.py`).

`calibrate` sets each pruning level's a for a gold-arc recall (of the gold arcs that reached the level) with
`vineparse.cascade.training.choose_alpha`, level by level on the masks the levels before leave.
"""
from typing import List, Sequence, Union

from spacy.language import Language
from spacy.training import Example

from ..cascade.training import Example as CascadeExample
from ..cascade.training import choose_alpha
from .batch import Batch
from .thresholds import recall_targets
from .training import gold_sentences


def cascade_examples(component, nlp: Language, examples: Sequence[Example]) -> List[CascadeExample]:
    """One cascade example (scores, projective gold, gold) per gold sentence of `examples`, with the docs
    run through the components before this one."""
    docs = [eg.predicted.copy() for eg in examples]
    for name, other in nlp.pipeline:
        if name == component.name:
            break
        docs = list(other.pipe(docs)) if hasattr(other, "pipe") else [other(d) for d in docs]
    out = []
    for start in range(0, len(docs), 256):
        chunk = examples[start:start + 256]
        batch = Batch(component.model, component.model.predict(docs[start:start + 256])).predict()
        sentences = list(gold_sentences(chunk, component.label_ids, component.skip))
        scored = batch.score([batch.rows_of(s.doc, s.start, s.end) for s in sentences], cache=True)
        out += [CascadeExample(sent, s.heads, s.heads) for s, sent in zip(sentences, scored)]
    return out


def calibrate(component, nlp: Language, examples: Sequence[Example],
              recall: Union[None, float, Sequence[float]] = None) -> List[dict]:
    """Set each pruning level's a on `examples` (held out) for a gold-arc recall (see the module docstring):
    `recall` is one target for every level or one per level (None: the component's `recall` setting).

    Where a level cannot reach its target at any a of the grid (its head cap drops gold arcs that no threshold
    brings back), the target becomes `recall` times the recall it reaches at the loosest a (its ceiling).
    RETURNS (List[dict]): per pruning level: level, a, gold recall and kept share at that a, and the recall
    ceiling when the target was lowered to it (else None).
    """
    cascade = component.cascade
    targets = recall_targets(component.cfg["recall"] if recall is None else recall, len(cascade.levels) - 1)
    found = cascade_examples(component, nlp, examples)
    masks = [None] * len(found)
    rows = []
    for k, (level, recall) in enumerate(zip(cascade.levels[:-1], targets)):
        alpha, kept_recall, kept = choose_alpha(cascade, k, found, masks, recall)
        ceiling = None
        if kept_recall < recall:          # unreachable: what came back is the loosest a's row
            ceiling = kept_recall
            alpha, kept_recall, kept = choose_alpha(cascade, k, found, masks, recall * ceiling)
        cascade.alphas[k] = alpha
        rows.append({"level": level.name, "alpha": alpha, "gold_recall": kept_recall, "kept_share": kept,
                     "recall_ceiling": ceiling})
        masks = [cascade.input_mask(ex.sent, k + 1) for ex in found]
    component.set_alphas(list(cascade.alphas))
    return rows
