"""Helpers of the vine_cascade tests: a tiny model config, gold docs from EWT, a tiny trained pipeline."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import vineparse.pipeline  # noqa: F401  (registers vine_cascade when the package is not installed)

TINY_TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 32, "depth": 2,
                "embed_size": 500, "window_size": 1, "maxout_pieces": 2, "subword_features": True}
# small, and without the BiLSTM, span term, shared part roles and sentence-start scorer of the default model
# (tests that need one of them add it)
TINY_MODEL = {"@architectures": "vineparse.VineCascadeModel.v3", "arc_width": 32, "part_width": 8,
              "label_width": 16, "lstm_width": 0, "label_children": True, "start_width": 0, "span_width": 0,
              "shared_part_roles": False, "tok2vec": TINY_TOK2VEC}
# the settings the tiny pipelines' tests were written against: every trained level parses, the losses weighed
# as before the defaults became the shipped model's, dropout as `update` passes it (test_defaults.py trains the
# default settings; a test's own keyword arguments override these)
TINY_SETTINGS = {"predict_orders": None, "predict_recall": None, "structured_weight": 1.0, "label_weight": 1.0,
                 "dropout": None}


def sentence_doc(vocab, sentence) -> Doc:
    """A gold Doc (heads and labels) of one corpus sentence."""
    n = len(sentence.words)
    heads = [int(h) - 1 if h > 0 else i for i, h in enumerate(sentence.heads[1:])]
    return Doc(vocab, words=list(sentence.words), heads=heads, deps=list(sentence.labels)[:n],
               tags=list(sentence.xpos))


def make_examples(nlp, sentences, per_doc=1):
    """Examples of gold docs of `per_doc` consecutive sentences each, whose predicted docs have the gold
    tokens and nothing else."""
    out = []
    for k in range(0, len(sentences), per_doc):
        gold = Doc.from_docs([sentence_doc(nlp.vocab, s) for s in sentences[k:k + per_doc]])
        out.append(Example(Doc(nlp.vocab, words=[t.text for t in gold]), gold))
    return out


def train_tiny(sentences, steps=8, seed=0, model=None, per_doc=1, **settings):
    """A blank English pipeline with its vine_cascade (`model`: TINY_MODEL; TINY_SETTINGS changed by `settings`)
    trained for `steps` batches of 10 docs of `per_doc` sentences each."""
    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL if model is None else model, **TINY_SETTINGS,
                                         **settings})
    examples = make_examples(nlp, sentences, per_doc)
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        batch = [examples[(step * 10 + i) % len(examples)] for i in range(10)]
        nlp.update(batch, sgd=optimizer)
    return nlp, examples


def parses(docs):
    return [([t.head.i for t in doc], [t.dep_ for t in doc], [bool(t.is_sent_start) for t in doc]) for doc in docs]


def check_split_calibration(parser, result, chosen, setting):
    """`calibration.calibrate_splitting`'s `result` on the examples `chosen` (docs without boundaries): each
    row's predicted and correct boundaries are those of `sentence_spans` with `setting` at its value, its F1
    follows from them, and the value set is the largest of those with the best F1."""
    gold = [{s.start for s in eg.reference.sents} - {0} for eg in chosen]
    assert result["setting"] == setting
    assert result["gold_boundaries"] == sum(len(g) for g in gold) > 0
    for row in result["rows"]:
        parser.configure(**{setting: row["value"]})
        found = [{a for a, _ in parser.sentence_spans(eg.predicted)} - {0} for eg in chosen]
        assert row["predicted"] == sum(len(f) for f in found)
        assert row["correct"] == sum(len(f & g) for f, g in zip(found, gold))
        assert abs(row["f1"] - 2 * row["correct"] / (row["predicted"] + result["gold_boundaries"])) < 1e-9
    best = max(row["f1"] for row in result["rows"])
    assert result["value"] == max(row["value"] for row in result["rows"] if row["f1"] == best)
