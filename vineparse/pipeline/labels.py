"""Dependency labels of `vine_cascade`: the label set, batch prediction and writing parses to docs.

Labels are the projectivized gold labels of the training examples (spaCy's decoration `label||head_label`
marks a lifted arc: pseudo-projective parsing, Nivre & Nilsson 2005); predicted trees are deprojectivized when
written (`vineparse.trees.deprojectivize`), so no decorated label reaches the output and lifted arcs are
lowered again.
"""
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from spacy.attrs import DEP, HEAD
from spacy.tokens import Doc

from ..trees import DELIMITER, deprojectivize, is_decorated
from .batch import Batch, affine_product, as_cpu, project
from .confidence import set_doc_confidence, top_probability
from .scorers import distance_buckets, label_hidden, outer_children, split_sizes
from .spaces import SPACE_LABEL, space_tokens


def gold_parse(example, decorate: bool = True) -> Tuple[list, list]:
    """The gold parse of an example aligned to its predicted tokens and projectivized (lifted): heads (absolute,
    None where unaligned) and labels, lifted arcs' labels decorated "label||head_label" if `decorate`."""
    heads, deps = example.get_aligned_parse(projectivize=True)
    if not decorate:
        deps = [dep.split(DELIMITER)[0] if dep else dep for dep in deps]
    return heads, deps


def collect_labels(get_examples: Callable, decorate: bool = True) -> List[str]:
    """The sorted labels of the examples' projectivized trees (`gold_parse`)."""
    found = set()
    for example in get_examples():
        found.update(d for d in gold_parse(example, decorate)[1] if d)
    return sorted(found)


def predict_labels(batch: Batch, heads: Sequence[np.ndarray], labels: Sequence[str],
                   temperature: Optional[float] = None):
    """The most probable label id of each token's arc, for a whole batch at once. heads: per doc the
    absolute head index of every token (a root points at itself); labels: the label set. A root never gets
    a decorated label (deprojectivization would move the root under one of its own children).
    RETURNS (List[np.ndarray]): label ids per doc; with `temperature`, (label ids, their probabilities under
    the softmax of the logits / temperature, float32) per doc."""
    sizes = [len(h) for h in heads]
    if not sum(sizes):
        empty = [np.zeros(0, dtype=np.int64) for _ in heads]
        return empty if temperature is None else list(zip(empty, [np.zeros(0) for _ in heads]))
    first_row = np.repeat(batch.doc_rows, sizes)
    token = np.concatenate([np.arange(size) for size in sizes])
    absolute = np.concatenate(heads)
    head, mod = np.where(absolute == token, 0, absolute + 1), token + 1       # positions in the doc; 0 = root
    children = None
    if batch.model.get_ref("labels").attrs["children"]:      # the outermost children in the predicted trees
        doc_start = np.repeat(np.cumsum([0] + sizes[:-1]), sizes)
        children = outer_children(np.where(absolute == token, -1, absolute + doc_start), first_row + mod)
    logits = label_logits(batch, first_row + head, first_row + mod, distance_buckets(head, mod), children)
    decorated = np.array([is_decorated(label) for label in labels], dtype=bool)
    if decorated.any() and not decorated.all():
        roots = head == 0
        logits[np.ix_(roots, decorated)] = -np.inf
    best = logits.argmax(axis=1).astype(np.int64)
    if temperature is None:
        return split_sizes(best, sizes)
    probs = top_probability(logits, best, temperature).astype(np.float32, copy=False)
    return list(zip(split_sizes(best, sizes), split_sizes(probs, sizes)))


def label_logits(batch: Batch, head_rows: np.ndarray, mod_rows: np.ndarray, buckets: np.ndarray,
                 children: Optional[np.ndarray]) -> np.ndarray:
    """The label scorer's logits (A, L) of arcs given by their head and dependent rows in the batch, distance
    buckets and (for a scorer that reads them) the dependents' outermost children rows (A, 2), in prediction
    mode, on the CPU."""
    scorer = batch.model.get_ref("labels")
    projection = batch.label_projection
    if projection is None:
        projection = label_projection_where_read(batch, scorer, head_rows, mod_rows, children)
    hidden, _ = label_hidden(scorer, projection, head_rows, mod_rows, buckets, children)
    return as_cpu(batch.ops, project(scorer.layers[1], hidden))


def label_projection_where_read(batch: Batch, scorer, head_rows: np.ndarray, mod_rows: np.ndarray,
                                children: Optional[np.ndarray]):
    """The label scorer's projection P (R, blocks x width) of the batch's X where `label_hidden` reads it
    for these arcs: the head block on the heads' rows, the dependent block on the dependents', the children
    blocks on the outermost children's; entries no arc reads are left unset. One product per block over the
    rows it is read on: in EWT test's gold trees the heads are 43% of the words and the outermost left and
    right children 30% and 22%, so about half the multiply-adds of projecting every row (the projection is
    most of the labeller's time). Arrays off the CPU get the whole projection."""
    layer = scorer.layers[0]
    if batch.ops.xp is not np:
        return project(layer, batch.X)
    width = scorer.get_dim("width")
    W, b = layer.get_param("W"), layer.get_param("b")
    read = [head_rows, mod_rows] + ([children[:, 0], children[:, 1]] if children is not None else [])
    P = np.empty((len(batch.X), W.shape[0]), dtype=np.float32)
    for k, rows in enumerate(read):
        used = np.zeros(len(batch.X), dtype=bool)
        used[rows[rows >= 0]] = True
        rows = np.flatnonzero(used)
        block = slice(k * width, (k + 1) * width)
        P[rows, block] = affine_product(np, np.take(batch.X, rows, axis=0), W[block], b[block])
    return P


def write_parses(vocab, labels: Sequence[str], docs: Iterable[Doc], predictions: Iterable[Tuple]) -> None:
    """Write heads and labels (ids into `labels`) to the docs, lifted arcs lowered (`trees.deprojectivize`),
    whitespace tokens labelled `spaces.SPACE_LABEL`; a prediction (heads, label ids, confidences) also sets
    `Doc._.vine_confidence` (see `confidence.py`)."""
    labels = np.asarray(labels, dtype=object)
    label_hashes = np.array([vocab.strings.add(label) for label in labels], dtype=np.uint64)
    decorated = np.array([is_decorated(label) for label in labels], dtype=bool)
    docs, predictions = list(docs), list(predictions)
    if not docs:
        return
    sizes = [len(doc) for doc in docs]
    heads = np.concatenate([prediction[0] for prediction in predictions]).astype(np.int64, copy=False)
    label_ids = np.concatenate([prediction[1] for prediction in predictions]).astype(np.int64, copy=False)
    token = np.concatenate([np.arange(size, dtype=np.int64) for size in sizes])
    array = np.empty((len(heads), 2), dtype=np.uint64)       # relative heads as uint64, as spaCy stores them
    array[:, 0] = (heads - token).view(np.uint64)
    array[:, 1] = label_hashes[label_ids]
    space = np.concatenate([space_tokens(doc) for doc in docs])
    array[space, 1] = vocab.strings.add(SPACE_LABEL)
    lifted = np.zeros(len(docs), dtype=bool)                   # docs with a lifted arc to lower
    lifted[np.repeat(np.arange(len(docs)), sizes)[decorated[label_ids] & ~space]] = True
    start = 0
    for doc, size, has_lifted in zip(docs, sizes, lifted):
        rows = array[start:start + size]
        if has_lifted:              # one tree over the doc (its sentence roots under position 0), lowered
            doc_heads = heads[start:start + size]
            positions = np.arange(1, size + 1)
            tree = np.concatenate([[-1], np.where(doc_heads == token[start:start + size], 0, doc_heads + 1)])
            words = labels[label_ids[start:start + size]]
            words[space[start:start + size]] = SPACE_LABEL
            tree, words = deprojectivize(tree, words)
            rows = rows.copy()
            rows[:, 0] = (np.where(tree[1:] == 0, positions, tree[1:]) - positions).view(np.uint64)
            rows[:, 1] = [vocab.strings.add(word) for word in words]
        if size:
            doc.from_array([HEAD, DEP], rows)
        start += size
    for doc, prediction in zip(docs, predictions):
        if len(prediction) > 2:
            set_doc_confidence(doc, prediction[2])
