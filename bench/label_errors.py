"""Where parsers go wrong on a treebank: head errors, and label errors where the head is right.

For each pipeline (NAME=PATH, or NAME=PATH,PATH,... for several training seeds, whose counts are pooled),
parsed on the gold tokens of a .spacy file (one sentence per doc): the share of words (punctuation excluded,
as spaCy's scorer does) with a wrong head, and of words with the right head but a wrong label, over all words,
by arc length (1, 2, 3-6, 7 or more words, root), by sentence length (words) and by gold label; and the most
frequent (gold, predicted) label confusions on arcs of 7 words or more; and how many docs the pipeline
cut into several sentences (more than one root). With two pipelines, also where their
head errors differ: per row, the second's head error minus the first's and the words that makes per seed
(negative: the second gets more heads right), largest first. vine_cascade pipelines are cut to --orders and
calibrated on --dev for --recall as `bench/spacy_compare.py` treats them. Writes JSON.

    python bench/label_errors.py --data corpora/spacy/en_ewt-ud-dev.spacy --out bench/results/label_errors.json \\
        spacy=bench/out/compare/cnn-spacy-s0/model-best vine=bench/out/compare/cnn-vine-s0/model-best
"""
import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import add_cut_arguments, load, run_record, write_json  # noqa: E402

LONG = 7
SENTENCE_CLASSES = ((5, "1-5"), (15, "6-15"), (30, "16-30"), (None, "31+"))


def arc_class(head: int, word: int) -> str:
    if head == word:
        return "root"
    distance = abs(head - word)
    return "1" if distance == 1 else "2" if distance == 2 else "3-6" if distance < LONG else f"{LONG}+"


def sentence_class(words: int) -> str:
    return next(name for limit, name in SENTENCE_CLASSES if limit is None or words <= limit)


def counts(nlp, gold):
    """Per row key: words, head errors, label errors with the right head; the long-arc label confusions; and
    the number of docs cut into several sentences."""
    from spacy.tokens import Doc
    docs = nlp.pipe([Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g])
                     for g in gold])
    total, head, label = collections.Counter(), collections.Counter(), collections.Counter()
    confusions = collections.Counter()
    several = 0
    for doc, ref in zip(docs, gold):
        sentence = "sentence " + sentence_class(len(ref))
        several += sum(token.head.i == token.i for token in doc) > 1
        for predicted, word in zip(doc, ref):
            if word.dep_.lower() == "punct":
                continue
            for key in ("all", "length " + arc_class(word.head.i, word.i), sentence, "label " + word.dep_):
                total[key] += 1
                if predicted.head.i != word.head.i:
                    head[key] += 1
                elif predicted.dep_ != word.dep_:
                    label[key] += 1
            if (predicted.head.i == word.head.i and predicted.dep_ != word.dep_
                    and arc_class(word.head.i, word.i) == f"{LONG}+"):
                confusions[f"{word.dep_} -> {predicted.dep_}"] += 1
    return total, head, label, confusions, several


def rates(total, head, label):
    return {key: {"words": n, "head_error": round(100 * head[key] / n, 2),
                  "label_error_right_head": round(100 * label[key] / n, 2)} for key, n in total.most_common()}


def errors(paths, data, dev=None, recall=None, orders=None):
    """The rows of one pipeline, its counts pooled over `paths` (one per seed); also each path's "all" row."""
    import spacy
    from spacy.tokens import DocBin
    total, head, label, confusions = (collections.Counter() for _ in range(4))
    per_seed, several = {}, 0
    for path in paths:
        pipeline = spacy.util.load_config(Path(path) / "config.cfg")["nlp"]["pipeline"]
        nlp = load(path, "vine" if "vine_cascade" in pipeline else "spacy", dev, recall, orders)
        gold = list(DocBin().from_disk(data).get_docs(nlp.vocab))
        found = counts(nlp, gold)
        for pooled, more in zip((total, head, label, confusions), found):
            pooled.update(more)
        several += found[4]
        per_seed[path] = rates(*found[:3])["all"]
    return {"paths": list(paths), "per_seed_all": per_seed, "docs_with_several_roots": several,
            "by": rates(total, head, label), "long_arc_confusions": dict(confusions.most_common(15)),
            "long_arc_label_errors": sum(confusions.values())}


def differences(first, second):
    """Rows of both pipelines: second's head error minus first's, and the words per seed that makes (+ = more
    errors in `second`), largest magnitude first."""
    seeds = len(first["paths"])
    rows = []
    for key, row in first["by"].items():
        other = second["by"].get(key)
        if other is None or other["words"] != row["words"]:
            continue
        change = other["head_error"] - row["head_error"]
        rows.append({"row": key, "words_per_seed": row["words"] / seeds, "head_error_difference": round(change, 2),
                     "head_errors_per_seed": round(change * row["words"] / 100 / seeds, 1)})
    return sorted(rows, key=lambda r: -abs(r["head_errors_per_seed"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PATH[,PATH...]")
    parser.add_argument("--data", required=True, help=".spacy file with gold heads and labels")
    parser.add_argument("--dev", help=".spacy file vine_cascade pipelines are calibrated on (with --recall)")
    add_cut_arguments(parser)
    parser.add_argument("--out", default="bench/results/label_errors.json")
    args = parser.parse_args()
    if args.recall is not None and not args.dev:
        parser.error("--recall needs --dev (the docs the thresholds are calibrated on)")
    result = run_record(data=args.data, dev=args.dev, orders=args.orders, recall=args.recall, pipelines={})
    for spec in args.pipelines:
        name, _, paths = spec.partition("=")
        if not name or not paths:
            parser.error(f"a pipeline is NAME=PATH[,PATH...], got {spec!r}")
        result["pipelines"][name] = errors(paths.split(","), args.data, args.dev, args.recall, args.orders)
        row = result["pipelines"][name]["by"]["all"]
        print(f"{name}: head error {row['head_error']}%, label error (right head) {row['label_error_right_head']}%")
    if len(result["pipelines"]) == 2:
        first, second = result["pipelines"].values()
        if len(first["paths"]) == len(second["paths"]):
            result["head_error_differences"] = differences(first, second)
    write_json(result, args.out)


if __name__ == "__main__":
    main()
