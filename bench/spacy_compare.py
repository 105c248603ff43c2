"""vine_cascade against spaCy's own parser, same tok2vec, tagger, data and training budget.

For each pipeline: dep_uas / dep_las on the test set (spaCy's scorer, punctuation excluded, gold tokens as
`spacy evaluate --gold-preproc` and the training configs use) and words per second of the whole pipeline (tokenizer, tok2vec,
tagger, parser; `nlp.pipe` over the test texts, median of --repeats runs, the runs of spaCy's pipeline and of
the cascade stopping at each order interleaved so that the shared machine's load hits them alike; run it with
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


def words_per_second(nlp, texts, batch_size=256):
    """Words per second of one `nlp.pipe` pass over `texts` (the whole pipeline, tokenizer included)."""
    words = sum(len(nlp.make_doc(t)) for t in texts)
    start = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=batch_size):
        pass
    return words / (time.perf_counter() - start)


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
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench/out/spacy_compare.json")
    parser.add_argument("--markdown", default="bench/out/spacy_compare.md")
    args = parser.parse_args()

    import spacy
    from spacy.tokens import DocBin

    import vineparse.pipeline  # noqa: F401  registers vine_cascade (an installed vineparse has entry points too)
    pipelines = {key: spacy.load(path) for key, path in (("spacy_parser", args.spacy), ("vine_cascade", args.vine))}
    result = {key: {"path": path} for key, path in (("spacy_parser", args.spacy), ("vine_cascade", args.vine))}
    nlp_spacy, nlp_vine = pipelines["spacy_parser"], pipelines["vine_cascade"]
    component = nlp_vine.get_pipe("vine_cascade")
    orders = [str(order) for order in component.cfg["orders"][1:]]
    test = {key: [gold_tokens(nlp, d) for d in DocBin().from_disk(args.test).get_docs(nlp.vocab)]
            for key, nlp in pipelines.items()}
    texts = [eg.reference.text for eg in test["spacy_parser"]]

    # accuracy
    log(f"spacy_parser: evaluating on {len(texts):,} test docs")
    result["spacy_parser"]["test"] = accuracy(nlp_spacy, test["spacy_parser"])
    result["vine_cascade"]["by_order"] = {}
    for order in orders:
        component.set_max_order(int(order))
        result["vine_cascade"]["by_order"][order] = accuracy(nlp_vine, test["vine_cascade"])
        log(f"vine_cascade up to order {order}: UAS {100 * result['vine_cascade']['by_order'][order]['dep_uas']:.2f}")
    component.set_max_order(None)
    result["vine_cascade"]["test"] = result["vine_cascade"]["by_order"][orders[-1]]

    # speed: the runs of every configuration interleaved, so that a change in the machine's load (it is
    # shared) hits all of them alike; median per configuration
    configs = [("spacy_parser", nlp_spacy, None)] + [(f"vine_{order}", nlp_vine, int(order)) for order in orders]
    for _, nlp, _ in configs:
        list(nlp.pipe(texts[:50]))                       # warm up
    words = sum(len(nlp_spacy.make_doc(t)) for t in texts)
    runs = {name: [] for name, _, _ in configs}
    for repeat in range(args.repeats):
        for name, nlp, order in configs:
            if order is not None:
                component.set_max_order(order)
            runs[name].append(words_per_second(nlp, texts))
        log(f"speed round {repeat + 1}/{args.repeats}: " +
            ", ".join(f"{name} {rates[-1]:,.0f}" for name, rates in runs.items()) + " words/s")
    component.set_max_order(None)
    result["spacy_parser"]["words_per_second"] = statistics.median(runs["spacy_parser"])
    result["spacy_parser"]["runs"] = runs["spacy_parser"]
    for order in orders:
        row = result["vine_cascade"]["by_order"][order]
        row["runs"] = runs[f"vine_{order}"]
        row["words_per_second"] = statistics.median(row["runs"])
    result["vine_cascade"]["words_per_second"] = result["vine_cascade"]["by_order"][orders[-1]]["words_per_second"]

    log("vine_cascade: per-level kept share and gold recall on dev")
    dev = [gold_tokens(nlp_vine, d) for d in DocBin().from_disk(args.dev).get_docs(nlp_vine.vocab)]
    result["vine_cascade"]["alphas"] = list(component.cfg["alphas"])
    result["vine_cascade"]["max_heads"] = component.cfg["max_heads"]
    result["vine_cascade"]["levels_dev"] = level_table(nlp_vine, dev)
    log("vine_cascade: long docs without sentence boundaries")
    result["vine_cascade"]["long_docs"] = long_doc_times(nlp_vine, texts, 3)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    Path(args.markdown).write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
