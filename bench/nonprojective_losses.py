"""Where each parser loses the crossing arcs of a test set, and how much LAS lifting can add at most.

    python bench/nonprojective_losses.py --treebank de_gsd [--sparse bench/out/multilingual/sparse/de_gsd] \
        [--vine bench/out/multilingual/de_gsd-vine-s0] [--out bench/results/nonprojective_losses.json]

Both parsers decode projective trees and lower arcs afterwards: the sparse `CascadeParser` (its VineCascade-3,
bench/multilingual.py's sparse systems, gold UPOS) with its lowering model, vine_cascade (`model-best` of a
`spacy train` run, gold tokens and sentences) by its decorated labels. Every gold non-projective arc h -> m
of the test file (`vineparse.trees.nonprojective_arc_mask`) goes to the first of

    right                the parser's final head of m is h
    lifted head wrong    the projective tree does not attach m where the projectivized gold tree does
    not lowered          it does, and the arc stays there
    lowered elsewhere    it does, and the arc is lowered to another word

and counts the words the parser lowered (final head not the projective one) and how many of them it lowered to
their gold head. Beside the counts: the lifted words of the training trees, the words LAS counts (punctuation
excluded), the LAS that lowering every crossing arc rightly would add at most (100 * arcs / words), what a
non-projective recall of 30% adds at most, and the recall that a LAS gain of 0.3 needs (with no arc lowered
wrongly). The JSON goes to --out, one entry per treebank; treebanks measured before are kept.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multilingual import _tree, gold_docs, log  # noqa: E402
from runinfo import run_info  # noqa: E402

CATEGORIES = ("right", "lifted head wrong", "not lowered", "lowered elsewhere")
COUNTS = CATEGORIES + ("lowered", "lowered right")


def categorize(gold, projective, final) -> dict:
    """Counts of `CATEGORIES` over the non-projective arcs of one gold tree, and of the words lowered
    ("lowered": final head not the projective one) and lowered to their gold head ("lowered right").

    gold, projective, final: head arrays (n + 1,), heads[0] = -1: the annotated tree, the parser's projective
    tree before lowering, and its tree after.
    """
    from vineparse.trees import nonprojective_arc_mask, projectivize

    gold = np.asarray(gold, dtype=np.int64)
    lifted = projectivize(gold)
    final, projective = np.asarray(final), np.asarray(projective)
    lowered = final[1:] != projective[1:]
    counts = dict.fromkeys(COUNTS, 0)
    counts["lowered"] = int(lowered.sum())
    counts["lowered right"] = int((lowered & (final[1:] == gold[1:])).sum())
    for m in np.flatnonzero(nonprojective_arc_mask(gold)[1:]) + 1:
        if final[m] == gold[m]:
            counts["right"] += 1
        elif projective[m] != lifted[m]:
            counts["lifted head wrong"] += 1
        elif final[m] == projective[m]:
            counts["not lowered"] += 1
        else:
            counts["lowered elsewhere"] += 1
    return counts


def add(total: dict, counts: dict) -> None:
    for key, value in counts.items():
        total[key] += value


def sparse_losses(path: Path, sentences) -> dict:
    """`categorize` summed over `sentences` (gold `Sentence`s) for a saved CascadeParser."""
    from vineparse.cascade import CascadeParser
    from vineparse.cascade.encoding import encode_sentence

    parser = CascadeParser.load(path)
    encoded = [encode_sentence(sentence, parser.tag) for sentence in sentences]
    total = dict.fromkeys(COUNTS, 0)
    for sentence, sent, projective in zip(sentences, encoded, parser.run_batch(encoded)):
        final, _ = parser.label(sent, projective)
        add(total, categorize(sentence.heads, projective, final))
    return total


def vine_losses(folder: Path, test: Path) -> dict:
    """`categorize` summed over the sentences of `test` (.spacy) for a vine_cascade pipeline: its trees as
    `predict` returns them (decorated labels not yet lowered) and as `set_annotations` writes them."""
    import spacy

    nlp = spacy.load(folder)
    component = nlp.get_pipe("vine_cascade")
    gold, docs = gold_docs(nlp, test)
    for name, process in nlp.pipeline:
        if name == "vine_cascade":
            break
        docs = list(process.pipe(docs))
    predictions = component.predict(docs)
    component.set_annotations(docs, predictions)
    total = dict.fromkeys(COUNTS, 0)
    for reference, doc, (heads, _) in zip(gold, docs, predictions):
        for sentence in reference.sents:
            start, end = sentence.start, sentence.end
            projective = np.array([-1] + [0 if h == i or not start <= h < end else h - start + 1
                                          for i, h in enumerate(heads[start:end], start)], dtype=np.int64)
            add(total, categorize(_tree(sentence), projective, _tree(doc[start:end])))
    return total


def lifted_words(sentences) -> int:
    """Words whose head projectivizing moves, over `sentences`."""
    from vineparse.trees import projectivize

    return sum(int((projectivize(s.heads) != np.asarray(s.heads)).sum()) for s in sentences)


def ceilings(sentences) -> dict:
    """The words LAS counts, the crossing arcs, and the LAS gains and recall of the module docstring."""
    from vineparse.trees import nonprojective_arc_mask

    words = sum(sum(label != "punct" for label in sentence.labels) for sentence in sentences)
    arcs = sum(int(nonprojective_arc_mask(sentence.heads)[1:].sum()) for sentence in sentences)
    return {"words": words, "nonprojective_arcs": arcs, "las_gain_ceiling": 100.0 * arcs / words,
            "las_gain_at_recall_30": 30.0 * arcs / words, "recall_for_las_gain_0.3": 0.3 * words / arcs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", required=True, help="a folder of corpora/ud (bench/ud_data.py)")
    parser.add_argument("--sparse", type=Path, default=None,
                        help="a folder with VineCascade-3.msgpack (default bench/out/multilingual/sparse/TREEBANK)")
    parser.add_argument("--vine", type=Path, default=None,
                        help="a spacy train output (default bench/out/multilingual/TREEBANK-vine-s0)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/nonprojective_losses.json"))
    args = parser.parse_args(argv)
    from vineparse.corpus import read_conllu

    folder = Path("corpora/ud") / args.treebank
    sparse = args.sparse or Path("bench/out/multilingual/sparse") / args.treebank
    vine = args.vine or Path("bench/out/multilingual") / f"{args.treebank}-vine-s0"
    for path in (folder / "test.conllu", sparse / "VineCascade-3.msgpack", vine / "model-best"):
        if not path.exists():
            parser.error(f"{path} does not exist (make multilingual trains the models)")
    test = read_conllu(folder / "test.conllu")
    split = json.loads((folder / "split.json").read_text())
    row = {"small_data": split["small_data"], "sentences": split["sentences"],
           "training_lifted_words": lifted_words(read_conllu(folder / "train.conllu")), **ceilings(test),
           "parsers": {}, "measured": run_info()}
    log(f"{args.treebank}: CascadeParser")
    row["parsers"]["CascadeParser"] = {"model": str(sparse / "VineCascade-3.msgpack"),
                                       "arcs": sparse_losses(sparse / "VineCascade-3.msgpack", test)}
    log(f"{args.treebank}: vine_cascade")
    row["parsers"]["vine_cascade"] = {"model": str(vine / "model-best"),
                                      "arcs": vine_losses(vine / "model-best", folder / "test.spacy")}
    result = json.loads(args.out.read_text()) if args.out.exists() else {"treebanks": {}}
    result["treebanks"][args.treebank] = row
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, default=float) + "\n")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
