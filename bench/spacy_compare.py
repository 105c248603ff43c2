"""vine_cascade against spaCy's own parser, same tok2vec, tagger, data and training budget.

For each pipeline: dep_uas / dep_las on the test set (spaCy's scorer, punctuation excluded, gold tokens as
`spacy evaluate --gold-preproc` and the training configs use) and words per second of the whole pipeline (tokenizer, tok2vec,
tagger, parser; `nlp.pipe` over the test texts, median of --repeats runs; run it with
OPENBLAS_NUM_THREADS=1 for one core). For the cascade
also: each level's kept-arc share and gold-arc recall on dev, and accuracy and speed when the cascade stops at
first or second order. Also the time to parse one doc of about 2,000 tokens without sentence boundaries
against its length. Writes JSON (--out) and a markdown table (--markdown); prints progress lines.

    python bench/spacy_compare.py --vine bench/out/ewt_vine/model-calibrated \\
        --spacy bench/out/ewt_spacy_parser/model-best --dev corpora/spacy/en_ewt-ud-dev.spacy \\
        --test corpora/spacy/en_ewt-ud-test.spacy --out bench/out/spacy_compare.json \\
        --markdown bench/out/spacy_compare.md
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def log(message):
    print(message, file=sys.stderr, flush=True)


def gold_tokens(nlp, gold):
    """An Example whose predicted doc has the gold tokens (no annotation)."""
    from spacy.tokens import Doc
    from spacy.training import Example
    return Example(Doc(nlp.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold]), gold)


def words_per_second(nlp, texts, repeats, batch_size=256):
    list(nlp.pipe(texts[:50]))                       # warm up
    words = sum(len(nlp.make_doc(t)) for t in texts)
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in nlp.pipe(texts, batch_size=batch_size):
            pass
        rates.append(words / (time.perf_counter() - start))
    return statistics.median(rates), rates


def accuracy(nlp, examples):
    scores = nlp.evaluate(examples)
    return {"dep_uas": scores["dep_uas"], "dep_las": scores["dep_las"], "sents_f": scores["sents_f"],
            "tag_acc": scores.get("tag_acc")}


def level_table(nlp, examples):
    """Kept-arc share and gold-arc recall of each pruning level on `examples` (projectivized gold)."""
    component = nlp.get_pipe("vine_cascade")
    cascade = component.cascade
    stats = cascade.new_stats()
    for ex in component.cascade_examples(nlp, examples):
        cascade.run(ex.sent, gold=ex.heads, stats=stats)
    return [{k: (float(v) if k != "level" else v) for k, v in row.items()} for row in stats.rows()]


def long_doc_times(nlp, texts, repeats):
    """Seconds to parse docs of growing length without sentence boundaries (concatenated test texts)."""
    from spacy.tokens import Doc
    words = [t.text for text in texts for t in nlp.make_doc(text)]
    out = []
    for length in (250, 500, 1000, 2000):
        doc_words = words[:length]
        times = []
        for _ in range(repeats):
            doc = Doc(nlp.vocab, words=doc_words)
            start = time.perf_counter()
            for _, component in nlp.pipeline:
                doc = component(doc)
            times.append(time.perf_counter() - start)
        out.append({"tokens": len(doc_words), "seconds": statistics.median(times),
                    "sentences": len(list(doc.sents))})
    return out


def markdown(result):
    v, s = result["vine_cascade"], result["spacy_parser"]
    lines = ["| pipeline | UAS (test) | LAS (test) | words/s (whole pipeline) |", "| --- | --- | --- | --- |",
             f"| tok2vec + tagger + spaCy `parser` | {100 * s['test']['dep_uas']:.2f} | "
             f"{100 * s['test']['dep_las']:.2f} | {s['words_per_second']:,.0f} |"]
    for order in ("1", "2", "3"):
        row = v["by_order"].get(order)
        if row:
            lines.append(f"| tok2vec + tagger + `vine_cascade` up to order {order} | {100 * row['dep_uas']:.2f} | "
                         f"{100 * row['dep_las']:.2f} | {row['words_per_second']:,.0f} |")
    lines += ["", "| cascade level | a | kept-arc share (dev) | gold-arc recall (dev) |", "| --- | --- | --- | --- |"]
    for row, alpha in zip(v["levels_dev"], v["alphas"]):
        lines.append(f"| {row['level']} | {alpha:+.2f} | {100 * row['kept_share']:.1f}% | "
                     f"{100 * row['gold_recall']:.2f}% |")
    lines += ["", "| doc length (tokens, no sentence boundaries) | seconds | µs per token | sentences found |",
              "| --- | --- | --- | --- |"]
    for row in v["long_docs"]:
        lines.append(f"| {row['tokens']:,} | {row['seconds']:.3f} | {1e6 * row['seconds'] / row['tokens']:.0f} | "
                     f"{row['sentences']} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vine", required=True)
    parser.add_argument("--spacy", required=True)
    parser.add_argument("--dev", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="bench/out/spacy_compare.json")
    parser.add_argument("--markdown", default="bench/out/spacy_compare.md")
    args = parser.parse_args()

    import spacy
    from spacy.tokens import DocBin
    result = {}
    for key, path in (("spacy_parser", args.spacy), ("vine_cascade", args.vine)):
        nlp = spacy.load(path)
        test = [gold_tokens(nlp, d) for d in DocBin().from_disk(args.test).get_docs(nlp.vocab)]
        texts = [eg.reference.text for eg in test]
        log(f"{key}: evaluating on {len(test):,} test docs")
        row = {"path": path, "test": accuracy(nlp, test)}
        row["words_per_second"], row["runs"] = words_per_second(nlp, texts, args.repeats)
        log(f"{key}: UAS {100 * row['test']['dep_uas']:.2f} LAS {100 * row['test']['dep_las']:.2f} "
            f"{row['words_per_second']:,.0f} words/s")
        if key == "vine_cascade":
            component = nlp.get_pipe("vine_cascade")
            dev = [gold_tokens(nlp, d) for d in DocBin().from_disk(args.dev).get_docs(nlp.vocab)]
            log("vine_cascade: per-level kept share and gold recall on dev")
            row["alphas"] = list(component.cfg["alphas"])
            row["levels_dev"] = level_table(nlp, dev)
            row["by_order"] = {}
            for order in component.cfg["orders"][1:]:
                component.set_max_order(order)
                speed, runs = words_per_second(nlp, texts, args.repeats)
                row["by_order"][str(order)] = {**accuracy(nlp, test), "words_per_second": speed, "runs": runs}
                log(f"vine_cascade up to order {order}: UAS {100 * row['by_order'][str(order)]['dep_uas']:.2f} "
                    f"{speed:,.0f} words/s")
            component.set_max_order(None)
            log("vine_cascade: long docs without sentence boundaries")
            row["long_docs"] = long_doc_times(nlp, texts, args.repeats)
        result[key] = row
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    Path(args.markdown).write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
