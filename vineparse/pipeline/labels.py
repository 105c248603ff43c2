"""Dependency labels of `vine_cascade`: the label set, batch prediction and writing parses to docs.

Labels are the projectivized gold labels of the training examples (spaCy's decoration `label||head_label`
marks a lifted arc); predictions are deprojectivized when written, so no decorated label reaches the output.
"""
from typing import Callable, Iterable, List, Sequence, Tuple

import numpy as np
from spacy.attrs import DEP, HEAD
from spacy.pipeline._parser_internals import nonproj
from spacy.tokens import Doc

from .batch import Batch, as_cpu, project, split_sizes
from .scorers import distance_buckets, label_hidden, outer_children


def collect_labels(get_examples: Callable) -> List[str]:
    """The sorted projectivized (decorated) labels of the examples."""
    found = set()
    for example in get_examples():
        _, deps = example.get_aligned_parse(projectivize=True)
        found.update(d for d in deps if d)
    return sorted(found)


def predict_labels(batch: Batch, heads: Sequence[np.ndarray], labels: Sequence[str]) -> List[np.ndarray]:
    """The most probable label id of each token's arc, for a whole batch at once. heads: per doc the
    absolute head index of every token (a root points at itself); labels: the label set. A root never gets
    a decorated label (deprojectivization would move the root under one of its own children)."""
    sizes = [len(h) for h in heads]
    if not sum(sizes):
        return [np.zeros(0, dtype=np.int64) for _ in heads]
    first_row = np.repeat(batch.doc_rows, sizes)
    token = np.concatenate([np.arange(size) for size in sizes])
    absolute = np.concatenate(heads)
    head, mod = np.where(absolute == token, 0, absolute + 1), token + 1       # positions in the doc; 0 = root
    scorer = batch.model.get_ref("labels")
    projection = project(scorer.layers[0], batch.X) if batch.label_projection is None else batch.label_projection
    children = None
    if scorer.attrs["children"]:      # the outermost children in the predicted trees
        doc_start = np.repeat(np.cumsum([0] + sizes[:-1]), sizes)
        children = outer_children(np.where(absolute == token, -1, absolute + doc_start), first_row + mod)
    hidden, _ = label_hidden(scorer, projection, first_row + head, first_row + mod, distance_buckets(head, mod),
                             children)
    logits = as_cpu(batch.ops, project(scorer.layers[1], hidden))
    decorated = np.array(["||" in label for label in labels], dtype=bool)
    if decorated.any() and not decorated.all():
        roots = head == 0
        logits[np.ix_(roots, decorated)] = -np.inf
    best = logits.argmax(axis=1).astype(np.int64)
    return split_sizes(best, sizes)


def write_parses(vocab, labels: Sequence[str], docs: Iterable[Doc],
                 predictions: Iterable[Tuple[np.ndarray, np.ndarray]]) -> None:
    """Write heads and labels (ids into `labels`) to the docs, then deprojectivize them."""
    label_hashes = np.array([vocab.strings.add(label) for label in labels], dtype=np.uint64)
    decorated = np.array(["||" in label for label in labels], dtype=bool)
    docs, predictions = list(docs), list(predictions)
    if not docs:
        return
    sizes = [len(doc) for doc in docs]
    heads = np.concatenate([heads for heads, _ in predictions]).astype(np.int64, copy=False)
    label_ids = np.concatenate([label_ids for _, label_ids in predictions]).astype(np.int64, copy=False)
    token = np.concatenate([np.arange(size, dtype=np.int64) for size in sizes])
    array = np.empty((len(heads), 2), dtype=np.uint64)       # relative heads as uint64, as spaCy stores them
    array[:, 0] = (heads - token).view(np.uint64)
    array[:, 1] = label_hashes[label_ids]
    lifted = np.zeros(len(docs), dtype=bool)                   # docs with a lifted arc to put back
    lifted[np.repeat(np.arange(len(docs)), sizes)[decorated[label_ids]]] = True
    start = 0
    for doc, size, has_lifted in zip(docs, sizes, lifted):
        if size:
            doc.from_array([HEAD, DEP], array[start:start + size])
            if has_lifted:
                nonproj.deprojectivize(doc)
        start += size
