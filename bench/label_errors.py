"""Where parsers go wrong on a treebank: head errors, and label errors where the head is right.

For each pipeline (NAME=PATH), parsed on the gold tokens of a .spacy file (one sentence per doc): the share of
words (punctuation excluded, as spaCy's scorer does) with a wrong head, and of words with the right head but a
wrong label, over all words, by arc length (1, 2, 3-6, 7 or more words, root) and by gold label; and the most
frequent (gold, predicted) label confusions on arcs of 7 words or more. Writes JSON.

    python bench/label_errors.py --data corpora/spacy/en_ewt-ud-dev.spacy --out bench/results/label_errors.json \\
        spacy=bench/out/compare/cnn-spacy-s0/model-best vine=bench/out/compare/cnn-vine-s0/model-best
"""
import argparse
import collections
import json
from pathlib import Path

LONG = 7


def arc_class(head: int, word: int) -> str:
    if head == word:
        return "root"
    distance = abs(head - word)
    return "1" if distance == 1 else "2" if distance == 2 else "3-6" if distance < LONG else f"{LONG}+"


def errors(nlp, gold):
    from spacy.tokens import Doc
    docs = nlp.pipe([Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g])
                     for g in gold])
    total, head, label = collections.Counter(), collections.Counter(), collections.Counter()
    confusions = collections.Counter()
    for doc, ref in zip(docs, gold):
        for predicted, word in zip(doc, ref):
            if word.dep_.lower() == "punct":
                continue
            for key in ("all", "length " + arc_class(word.head.i, word.i), "label " + word.dep_):
                total[key] += 1
                if predicted.head.i != word.head.i:
                    head[key] += 1
                elif predicted.dep_ != word.dep_:
                    label[key] += 1
            if (predicted.head.i == word.head.i and predicted.dep_ != word.dep_
                    and arc_class(word.head.i, word.i) == f"{LONG}+"):
                confusions[f"{word.dep_} -> {predicted.dep_}"] += 1
    rows = {key: {"words": n, "head_error": round(100 * head[key] / n, 2),
                  "label_error_right_head": round(100 * label[key] / n, 2)} for key, n in total.most_common()}
    return {"by": rows, "long_arc_confusions": dict(confusions.most_common(15)),
            "long_arc_label_errors": sum(confusions.values())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PATH")
    parser.add_argument("--data", required=True, help=".spacy file with gold heads and labels")
    parser.add_argument("--out", default="bench/results/label_errors.json")
    args = parser.parse_args()
    import spacy
    from spacy.tokens import DocBin
    result = {"data": args.data, "pipelines": {}}
    for spec in args.pipelines:
        name, _, path = spec.partition("=")
        nlp = spacy.load(path)
        gold = list(DocBin().from_disk(args.data).get_docs(nlp.vocab))
        result["pipelines"][name] = {"path": path, **errors(nlp, gold)}
        row = result["pipelines"][name]["by"]["all"]
        print(f"{name}: head error {row['head_error']}%, label error (right head) {row['label_error_right_head']}%")
    Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
