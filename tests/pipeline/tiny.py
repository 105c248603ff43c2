"""Helpers of the vine_cascade tests: a tiny model config, gold docs from EWT, a tiny trained pipeline."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import vineparse.pipeline  # noqa: F401  (registers vine_cascade when the package is not installed)

TINY_TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 32, "depth": 2,
                "embed_size": 500, "window_size": 1, "maxout_pieces": 2, "subword_features": True}
TINY_MODEL = {"@architectures": "vineparse.VineCascadeModel.v2", "arc_width": 32, "part_width": 8,
              "label_width": 16, "label_children": True, "tok2vec": TINY_TOK2VEC}


def sentence_doc(vocab, sentence) -> Doc:
    """A gold Doc (heads and labels) of one corpus sentence."""
    n = len(sentence.words)
    heads = [int(h) - 1 if h > 0 else i for i, h in enumerate(sentence.heads[1:])]
    return Doc(vocab, words=list(sentence.words), heads=heads, deps=list(sentence.labels)[:n],
               tags=list(sentence.xpos))


def make_examples(nlp, sentences):
    out = []
    for s in sentences:
        gold = sentence_doc(nlp.vocab, s)
        out.append(Example(Doc(nlp.vocab, words=list(s.words)), gold))
    return out


def train_tiny(sentences, steps=8, seed=0, **settings):
    """A blank English pipeline with its vine_cascade trained for `steps` batches of 10 sentences."""
    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL, **settings})
    examples = make_examples(nlp, sentences)
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        batch = [examples[(step * 10 + i) % len(examples)] for i in range(10)]
        nlp.update(batch, sgd=optimizer)
    return nlp, examples


def parses(docs):
    return [([t.head.i for t in doc], [t.dep_ for t in doc], [bool(t.is_sent_start) for t in doc]) for doc in docs]
