"""The sparse cascade's lowering model applied to vine_cascade's parses: would it serve the component?

    python bench/vine_lowering.py --treebank de_gsd --run flat=bench/out/multilingual/de_gsd-vine-flat-s0 \
        [--run lifted=bench/out/multilingual/de_gsd-vine-s0] [--out bench/results/vine_lowering.json]

A `vineparse.cascade.lowering.LoweringModel` is trained on the treebank's training trees (corpora/ud/NAME, as
bench/ud_data.py splits it) reading word forms and labels only, as the UD pipelines have no tagger. Each run's
`model-best` parses the test file (gold tokens and sentences); every sentence is scored as parsed and with the
lowering model's moves, by spaCy's scorer (UAS, LAS) and `vineparse.metrics.NonProjectiveArcs`. A run trained
with `pseudo_projective = false` and lowered is what the component would be with the lowering model in place of
its decorated labels. The JSON (each run with the command and commit that measured it) goes to --out, one entry
per treebank and run; runs measured before are kept.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multilingual import _tree, gold_docs, log  # noqa: E402
from runinfo import run_info  # noqa: E402


def word_tokens(words):
    """The lowering model's token rows for a sentence without tags."""
    from vineparse.cascade.encoding import encode

    return encode(list(words), ["_"] * len(words)).tokens


def train_lowering(folder: Path):
    from vineparse.cascade.lowering import LoweringModel
    from vineparse.corpus import read_conllu
    from vineparse.trees import projectivize

    model = LoweringModel()
    counts = model.fit([(word_tokens(s.words), projectivize(s.heads), np.asarray(s.heads), list(s.labels))
                        for s in read_conllu(folder / "train.conllu")], report=log)
    return model, counts


def lowered_docs(model, docs):
    """The docs with each sentence's tree lowered by `model` (labels kept)."""
    from spacy.attrs import HEAD

    for doc in docs:
        heads = np.array([t.head.i for t in doc], dtype=np.int64)
        for sentence in doc.sents:
            tree = _tree(sentence)
            labels = ["root" if t.head.i == t.i else t.dep_ for t in sentence]
            tree = model.lower(word_tokens([t.text for t in sentence]), tree, labels)
            heads[sentence.start:sentence.end] = np.where(tree[1:] == 0, np.arange(sentence.start, sentence.end),
                                                          tree[1:] - 1 + sentence.start)
        relative = (heads - np.arange(len(doc))).astype(np.int64).view(np.uint64)
        deps = doc.to_array(["DEP"])
        doc.from_array([HEAD, "DEP"], np.stack([relative, deps], axis=1))
    return docs


def score(nlp, docs, gold):
    from spacy.scorer import Scorer
    from spacy.training import Example

    from vineparse.metrics import NonProjectiveArcs

    examples = [Example(parsed, reference) for parsed, reference in zip(docs, gold)]
    scores = Scorer(nlp).score(examples)
    arcs = NonProjectiveArcs()
    for example in examples:
        for sentence in example.reference.sents:
            arcs.add(_tree(sentence), _tree(example.predicted[sentence.start:sentence.end]))
    return {"uas": 100 * scores["dep_uas"], "las": 100 * scores["dep_las"], "nonprojective_arcs": arcs.scores()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", required=True, help="a folder of corpora/ud (bench/ud_data.py)")
    parser.add_argument("--run", action="append", required=True, help="NAME=FOLDER of a spacy train output")
    parser.add_argument("--out", type=Path, default=Path("bench/results/vine_lowering.json"))
    args = parser.parse_args(argv)
    import spacy

    folder = Path("corpora/ud") / args.treebank
    model, counts = train_lowering(folder)
    result = json.loads(args.out.read_text()) if args.out.exists() else {"treebanks": {}}
    row = result["treebanks"].setdefault(args.treebank, {})
    split = json.loads((folder / "split.json").read_text())
    row.update(small_data=split["small_data"], sentences=split["sentences"], lowering_training=counts)
    for spec in args.run:
        name, _, path = spec.partition("=")
        nlp = spacy.load(Path(path) / "model-best")
        gold, inputs = gold_docs(nlp, folder / "test.spacy")
        parsed = list(nlp.pipe(inputs))
        as_parsed = score(nlp, parsed, gold)
        lowered = score(nlp, lowered_docs(model, parsed), gold)
        row[name] = {"run": path, "as_parsed": as_parsed, "lowered": lowered, "measured": run_info()}
        log(f"{args.treebank} {name}: LAS {as_parsed['las']:.2f} as parsed, {lowered['las']:.2f} lowered")
    args.out.write_text(json.dumps(result, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
