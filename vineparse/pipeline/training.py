"""Training `vine_cascade`: the losses of a batch and their gradients through the thinc scorers.

For a batch of examples: the gold sentences of each predicted doc (projectivized, decorated labels), the
scorers run once over the batch's stacked encoder output with their backward passes, each sentence's losses
(`objective.sentence_loss`: arc loss, vine hinge, cascade losses on the masks the cascade predicts with, the
last level's hinge) computed on the CPU from its `SentenceScores`, the label cross-entropy of every gold arc
of the batch at once and, where the model has a sentence-start scorer, the logistic loss of every token's
"a sentence starts here" (`start_cross_entropy`); then the gradients of arc, outer and part scores, of the
label logits and of the start logits go back through the scorers into d encoder output. For a stable share
of the sentences (`held_out`), which the losses also learn from unless `learn_held_out` is false, the pruning
levels' max-marginals go to the component's `thresholds.RecallTracker`, from which the component refreshes
the thresholds.
"""
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np
from scipy.special import expit

from .. import kernels
from .architectures import PART_REFS
from .batch import Batch, as_cpu
from .labels import gold_parse, label_logits
from .levels import parse_pieces
from .objective import sentence_loss
from .parts import SentenceScores
from .scorers import (HEAD_COLUMN, biaffine_scores, dense_buckets, distance_buckets, label_hidden, outer_children,
                      part_mlp)
from .spaces import space_tokens
from .thresholds import is_held_out, observe_sentence


@dataclass
class GoldSentence:
    doc: int                 # index of the example in the batch
    start: int
    end: int
    heads: np.ndarray        # projective gold tree, int64 (n + 1,), heads[0] = -1, 0 = the root
    labels: np.ndarray       # label ids (n + 1,), -1 where unseen (and at 0)
    held_out: bool = False   # its recall sets the pruning thresholds (kept out of the losses unless learn_held_out)
    words: Optional[np.ndarray] = None       # its words' token offsets from `start` (None: every token is one)

    def rows(self, batch: Batch) -> np.ndarray:
        """Its words' rows of `batch`, its doc's root row first: whitespace tokens are no words (`spaces.py`)."""
        rows = batch.rows_of(self.doc, self.start, self.end)
        return rows if self.words is None else rows[np.concatenate([[0], self.words + 1])]


def one_to_one(example) -> bool:
    """Whether the example's predicted tokens are its gold tokens, one to one."""
    return len(example.reference) == len(example.predicted) and example.alignment.x2y.lengths.max(initial=1) == 1


def sentence_spans(example) -> List[Tuple[int, int]]:
    """The gold sentences of an example as spans [start, end) of its predicted tokens: the reference's
    sentences where the tokens are the gold ones, else cut where spaCy's alignment puts a gold sentence's first
    token (a whitespace token before it stays with the sentence before). One span for the whole doc where the
    reference has no sentences."""
    doc = example.predicted
    if not len(doc):
        return []
    if one_to_one(example):
        return [(s.start, s.end) for s in example.reference.sents]
    starts = example.get_aligned_sent_starts()
    bounds = [0] + [i for i, start in enumerate(starts) if start and i > 0] + [len(doc)]
    return list(zip(bounds[:-1], bounds[1:]))


def _gold_tree(heads, space: np.ndarray, start: int, end: int, keep: Optional[np.ndarray] = None) -> np.ndarray:
    """The sentence start..end - 1 as a tree (int64, 0 = the root) from absolute doc heads (spaCy marks a root
    by its own index), over the tokens `keep` (offsets from `start`; None: all), which no kept token may have
    left out as its head; a whitespace token's own head is not read."""
    own = np.arange(start, end)
    absolute = np.array([i if space[i] else h for i, h in zip(own, heads[start:end])], dtype=np.int64)
    tree = np.concatenate([[-1], np.where(absolute == own, 0, absolute - start + 1)])
    if keep is None:
        return tree
    index = np.concatenate([[0], keep + 1])
    renumber = np.zeros(len(tree), dtype=np.int64)
    renumber[index] = np.arange(len(index))
    out = renumber[tree[index]]
    out[0] = -1
    return out


def gold_sentences(examples, label_ids: Dict[str, int], skip, held_out: float = 0.0,
                   decorate: bool = True) -> Iterator[GoldSentence]:
    """The gold sentences of each example's predicted doc (`sentence_spans`), projectivized (`labels.gold_parse`;
    decorate: the lifted arcs' labels), over their words: whitespace tokens are no words of the parse
    (`spaces.py`). A sentence some word of which has no one-to-one gold head on a word inside it, or that has no
    word, or not exactly one root, is reported to `skip(what, detail)` and left out. held_out: the share of
    sentences marked held out (`thresholds.is_held_out`)."""
    for i, example in enumerate(examples):
        heads, deps = gold_parse(example, decorate)
        doc = example.predicted
        space = space_tokens(doc)
        for start, end in sentence_spans(example):
            words = ~space[start:end]
            local = [h for h, word in zip(heads[start:end], words) if word]
            if (not words.any() or any(h is None or not start <= h < end or space[h] for h in local)
                    or any(not d for d, word in zip(deps[start:end], words) if word)):
                skip("sentences", f"a sentence of {end - start} tokens without one-to-one gold heads")
                continue
            keep = None if words.all() else np.flatnonzero(words)
            tree = _gold_tree(heads, space, start, end, keep)
            if int((tree[1:] == 0).sum()) != 1:
                skip("sentences", f"a sentence of {end - start} tokens whose gold heads make no single tree")
                continue
            labels = np.array([-1] + [label_ids.get(d, -1) for d, word in zip(deps[start:end], words) if word],
                              dtype=np.int64)
            hold = is_held_out([t.text for t in doc[start:end]], held_out)
            yield GoldSentence(i, start, end, tree, labels, hold, keep)


def batch_loss(component, examples, vectors: List) -> Tuple[float, List, dict]:
    """The batch's loss and d loss / d encoder output (one array per doc, like `vectors`); the scorers'
    parameter gradients are added to their layers. RETURNS (loss, d vectors, details)."""
    model, settings = component.model, component.settings
    ops = model.ops
    batch = Batch(model, vectors)
    every = list(gold_sentences(examples, component.label_ids, component.skip, settings.held_out,
                                settings.pseudo_projective))
    held = [s for s in every if s.held_out]
    sentences = every if settings.learn_held_out else [s for s in every if not s.held_out]
    details = {"sentences": len(sentences), "held_out": len(held), "arcs": 0.0, "hinge": 0.0, "labels": 0.0,
               "cascade": 0}
    zeros = [ops.alloc2f(*v.shape, dtype=v.dtype) for v in vectors]
    X = batch.X
    if held and settings.threshold_interval:
        observe_held_out(component, batch, held)
    if not sentences:
        return 0.0, zeros, details
    rows = [s.rows(batch) for s in sentences]
    arc_scorer = model.get_ref("arcs")
    HD, backprop_arc_projection = arc_scorer.layers[0](X, is_train=True)
    arcs, backprop_biaffine = biaffine_scores(arc_scorer, HD, rows, None, is_train=True)
    outer, backprop_outer = model.get_ref("outer")(X, is_train=True)
    # one forward and one backward pass per projection layer (the part kinds may share one)
    projection = {kind: model.get_ref(name).layers[0] for kind, name in PART_REFS.items()}
    passes = {}
    for layer in projection.values():
        if id(layer) not in passes:
            passes[id(layer)] = layer(X, is_train=True)
    projections = {kind: passes[id(layer)][0] for kind, layer in projection.items()}
    d_projections = {}
    batch.outer = as_cpu(ops, outer).astype(np.float64)
    batch.tables = batch.part_tables(projections)
    cascade = component.cascade
    total = 0.0
    scored = []
    for s, r, S in zip(sentences, rows, arcs):
        sent = SentenceScores(as_cpu(ops, S), batch.outer[r], batch.tables, r, cache=True)
        try:
            result = sentence_loss(cascade, sent, s.heads, settings.train_alpha, settings.witnesses,
                                   component.rng, settings.structured_weight)
        except kernels.NoStructureError:        # no gradient from it: a fresh copy of its scores stands in
            component.skip("no_structure", f"a sentence of {s.end - s.start} tokens whose gold tree a level's "
                                           "mask does not admit")
            scored.append(SentenceScores(as_cpu(ops, S), batch.outer[r], batch.tables, r, cache=True))
            continue
        details["arcs"] += result.arcs
        details["hinge"] += result.hinge
        details["cascade"] += result.cascade
        total += result.total
        scored.append(sent)

    d_X = backprop_arc_projection(backprop_biaffine([
        ops.asarray(s.d_arcs if s.d_arcs is not None else np.zeros((s.n + 1, s.n + 1)), dtype=X.dtype)
        for s in scored]))
    d_outer = np.zeros((X.shape[0], 2))
    for s in scored:
        if s.d_outer is not None:
            np.add.at(d_outer, s.rows, s.d_outer)
    d_X = d_X + backprop_outer(ops.asarray(d_outer, dtype=X.dtype))
    for kind, name in PART_REFS.items():
        scorer = model.get_ref(name)
        found = [(s, s.part_gradients(kind)) for s in scored]
        found = [(s, g) for s, g in found if g is not None]
        if not found:
            continue
        part_rows = np.concatenate([s.rows[local] for s, (local, _) in found])
        buckets = np.concatenate([dense_buckets(s.n)[local[:, HEAD_COLUMN[kind]], local[:, -1]]
                                  for s, (local, _) in found])
        gradient = np.concatenate([g for _, (_, g) in found])
        _, backprop_mlp = part_mlp(scorer, projections[kind], part_rows, buckets, is_train=True)
        dP = backprop_mlp(ops.asarray(gradient, dtype=X.dtype))
        key = id(projection[kind])
        d_projections[key] = dP if key not in d_projections else d_projections[key] + dP
    for key, dP in d_projections.items():
        d_X = d_X + passes[key][1](dP)

    label_loss, d_label = label_cross_entropy(component, X, batch, sentences)
    if d_label is not None:
        d_X = d_X + d_label
    details["labels"] = label_loss
    total += label_loss
    if model.has_ref("starts"):
        start_loss, d_start = start_cross_entropy(model, X, batch, examples)
        if d_start is not None:
            d_X = d_X + d_start
        details["starts"] = start_loss
        total += start_loss
    d_vectors = [d_X[start:start + len(v)] for start, v in zip(batch.doc_rows, vectors)]
    return total, d_vectors, details


def observe_held_out(component, batch: Batch, held: List[GoldSentence], thresholds: bool = True) -> None:
    """Report the held-out sentences to the component's trackers (no gradients: the scorers run in
    prediction mode): each pruning level's max-marginals to the recall tracker (with `thresholds`), and to
    the temperature tracker the head probabilities of the trees the cascade predicts and the label logits
    of the gold arcs."""
    if batch.tables is None:
        batch.predict()
    rows = [s.rows(batch) for s in held]
    scored = batch.score(rows)
    if thresholds:
        parsing = component.predict_cascade if component.settings.predict_orders is not None else None
        for s, sent in zip(held, scored):
            observe_sentence(component.cascade, sent, s.heads, component.tracker)
            if parsing is not None:
                observe_sentence(parsing, sent, s.heads, component.predict_tracker)
    predicted = parse_pieces(component.predict_cascade, scored)
    component.temperatures.observe_heads([sent.dense_arcs() for sent in scored], predicted, [s.heads for s in held])
    arcs = [(r[s.heads[known]], r[known], distance_buckets(s.heads[known], known),
             outer_children(s.heads, r)[known], s.labels[known])
            for s, r in zip(held, rows) for known in [np.flatnonzero(s.labels[1:] >= 0) + 1]]
    if arcs:
        heads, mods, buckets, children, gold = (np.concatenate(part) for part in zip(*arcs))
        with_children = component.model.get_ref("labels").attrs["children"]
        component.temperatures.observe_labels(label_logits(batch, heads, mods, buckets,
                                                           children if with_children else None), gold)


def label_cross_entropy(component, X, batch: Batch, sentences: List[GoldSentence]):
    """Cross-entropy of the known gold labels of every gold arc of the batch, times `label_weight`, and
    d loss / d X (None without a known label); labels never seen in `initialize` are counted. A label
    scorer that reads the dependents' children (`scorers.label_scorer`) reads them from the gold tree, and
    the loss is the mean of two: with the children and with every child "none", so that head and dependent
    keep carrying label information into the shared encoder (with the children alone, dev UAS fell by 0.6
    at equal LAS). The projection of X is computed once for both."""
    scorer = component.model.get_ref("labels")
    with_children = scorer.attrs["children"]
    heads, mods, buckets, labels, children = [], [], [], [], []
    for s in sentences:
        known = np.flatnonzero(s.labels[1:] >= 0) + 1
        component.skipped["unseen_labels"] += int((s.labels[1:] == -1).sum())
        rows = s.rows(batch)
        heads.append(rows[s.heads[known]])
        mods.append(rows[known])
        buckets.append(distance_buckets(s.heads[known], known))
        labels.append(s.labels[known])
        if with_children:
            children.append(outer_children(s.heads, rows)[known])
    labels = np.concatenate(labels)
    if not len(labels):
        return 0.0, None
    ops = component.model.ops
    arcs = (np.concatenate(heads), np.concatenate(mods), np.concatenate(buckets))
    passes = [None]
    if with_children:
        children = np.concatenate(children)
        passes = [children, np.full_like(children, -1)]
    index = ops.asarray(np.arange(len(labels)), dtype="i"), ops.asarray(labels, dtype="i")
    weight = component.settings.label_weight / len(passes)
    P, backprop_projection = scorer.layers[0](X, is_train=True)
    loss, dP = 0.0, None
    for given in passes:
        hidden, backprop_hidden = label_hidden(scorer, P, *arcs, given, is_train=True)
        logits, backprop_output = scorer.layers[1](hidden, is_train=True)
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = ops.xp.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        loss -= weight * float(ops.xp.log(ops.xp.maximum(probs[index], 1e-30)).sum())
        probs[index] -= 1.0
        d = backprop_hidden(backprop_output(probs * weight))
        dP = d if dP is None else dP + d
    return loss, backprop_projection(dP)


def start_cross_entropy(model, X, batch: Batch, examples):
    """Logistic loss of the sentence-start scorer (`scorers.start_scorer`) on every token but the first of each
    example whose gold doc has sentences (target: a gold sentence starts there, on the predicted tokens by
    spaCy's alignment: `Example.get_aligned_sent_starts`; a whitespace token never starts one), summed, and
    d loss / d X (None where no token qualifies). Docs of one sentence teach it where sentences do not start;
    only documents of several teach it where they do."""
    rows, targets = [], []
    for i, example in enumerate(examples):
        gold, doc = example.reference, example.predicted
        if len(doc) < 2 or not (gold.has_annotation("SENT_START") or gold.has_annotation("DEP")):
            continue
        if one_to_one(example):
            starts = [bool(token.is_sent_start) for token in gold]
        else:
            starts = [bool(start) for start in example.get_aligned_sent_starts()]
        rows.append(batch.doc_rows[i] + 2 + np.arange(len(doc) - 1))
        targets.append(np.array(starts[1:], dtype=np.float64) * ~space_tokens(doc)[1:])
    if not rows:
        return 0.0, None
    rows, targets = np.concatenate(rows), np.concatenate(targets)
    logits, backprop = model.get_ref("starts")(X, is_train=True)
    z = as_cpu(model.ops, logits)[rows].astype(np.float64)
    loss = float(np.sum(np.logaddexp(0.0, z) - targets * z))      # -log sigmoid(z) or -log(1 - sigmoid(z))
    d_logits = np.zeros(X.shape[0])
    d_logits[rows] = expit(z) - targets
    return loss, backprop(model.ops.asarray(d_logits, dtype=X.dtype))
