"""Where vine_cascade's time goes: µs per word of each stage of its prediction, in the pipeline from text.

The docs are --docs' texts run through every component before vine_cascade (so, as in the whole pipeline,
docs have no sentence boundaries and the sentence-start scorer cuts them); then `vine_cascade.pipe`
(batches of 256) is timed --repeats times, each from a collected heap, with a timer around each stage:

    encoder          the model's forward pass: the tok2vec listener, the component's BiLSTM, the root rows
      bilstm           of which the compiled BiLSTM and the joining of its output (`_compiled_lstm`)
    projection       `Batch.predict`: every scorer's projection of the batch's rows and the biaffine row terms
      product          of which the one matrix product (`project_all`)
    sentences        `pieces`: each sentence's dense arc scores, sentence starts, splitting checks
    cascade          `parse_pieces`: the compiled cascade runtime (pruning levels, the last level's decode)
    labels           `predict_labels`: the labeller's projection where it is read, its hidden layer, argmax
    assemble         `_assemble`: the pieces' trees into each doc's heads
    write            `set_annotations`: heads, labels and sentence starts into the docs
    other            the rest of `pipe` (the total less the stages above)

The median over repeats of each, its share of the median total, the rate of the one product (GFLOP/s: its
multiply-adds, counted from the shapes, over its time) and the model settings that set the cost. The timers
cost a few calls per batch, nothing per sentence.

    python bench/component_profile.py --docs corpora/spacy/en_ewt-ud-test.spacy \\
        --model bench/out/compare_es/cnn-vine-s0/model-best --out bench/results/component_profile.json
"""
import argparse
import gc
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import run_record, use_blas, write_json  # noqa: E402

# (stage, its parent or None): the order of the table
STAGES = (("encoder", None), ("bilstm", "encoder"), ("projection", None), ("product", "projection"),
          ("sentences", None), ("cascade", None), ("labels", None), ("assemble", None), ("write", None))


def timed(clock, stage, function):
    """`function` with its wall time added to clock[stage]."""
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            clock[stage] += time.perf_counter() - start
    return wrapper


def counted(clock, function):
    """`project_all` with the floating-point operations of its one product (2 R w c for X (R, w) and c output
    columns of its affine layers) added to clock["product_flops"]."""
    from vineparse.pipeline.batch import _is_affine

    def wrapper(layers, X):
        distinct = {id(layer): layer for layer in layers if _is_affine(layer)}.values()     # computed once each
        columns = sum(layer.get_param("W").shape[0] for layer in distinct)
        clock["product_flops"] += 2.0 * X.shape[0] * X.shape[1] * columns
        return function(layers, X)
    return wrapper


def instrument(component, clock):
    """Put a timer around each stage (module-level names where the component calls them)."""
    from vineparse.pipeline import architectures, batch, component as component_module
    cls = type(component)
    component.model._func = timed(clock, "encoder", component.model._func)       # its forward pass
    architectures._compiled_lstm = timed(clock, "bilstm", architectures._compiled_lstm)
    batch.Batch.predict = timed(clock, "projection", batch.Batch.predict)
    batch.project_all = timed(clock, "product", counted(clock, batch.project_all))
    cls.pieces = timed(clock, "sentences", cls.pieces)
    component_module.parse_pieces = timed(clock, "cascade", component_module.parse_pieces)
    component_module.predict_labels = timed(clock, "labels", component_module.predict_labels)
    cls._assemble = timed(clock, "assemble", cls._assemble)
    cls.set_annotations = timed(clock, "write", cls.set_annotations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file whose texts are parsed")
    parser.add_argument("--model", type=Path, required=True, help="a saved pipeline with vine_cascade")
    parser.add_argument("--blas", choices=["thinc", "scipy"], default="scipy")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--out", default="bench/results/component_profile.json")
    args = parser.parse_args()
    if args.repeats < 1:
        sys.exit("error: --repeats must be at least 1")
    if not (args.model / "config.cfg").exists():
        sys.exit(f"error: {args.model} is not a saved spaCy pipeline (no config.cfg)")
    use_blas(args.blas)
    import spacy
    from spacy.tokens import DocBin

    import vineparse.pipeline  # noqa: F401
    nlp = spacy.load(args.model)
    if "vine_cascade" not in nlp.pipe_names:
        sys.exit(f"error: {args.model} has no vine_cascade component")
    texts = [doc.text for doc in DocBin().from_disk(args.docs).get_docs(nlp.vocab)]
    docs = list(nlp.pipe(texts, disable=["vine_cascade"]))
    words = sum(len(doc) for doc in docs)
    component = nlp.get_pipe("vine_cascade")
    list(component.pipe(docs[:50]))                                  # warm up
    clock = defaultdict(float)
    instrument(component, clock)
    runs = defaultdict(list)
    for repeat in range(args.repeats):
        clock.clear()
        gc.collect()
        start = time.perf_counter()
        for _ in component.pipe(docs, batch_size=256):
            pass
        total = time.perf_counter() - start
        runs["total"].append(1e6 * total / words)
        for stage, _ in STAGES:
            runs[stage].append(1e6 * clock[stage] / words)
        runs["other"].append(1e6 * (total - sum(clock[s] for s, parent in STAGES if parent is None)) / words)
        runs["product_gflops"].append(clock["product_flops"] / clock["product"] / 1e9)
        print(f"round {repeat + 1}/{args.repeats}: {runs['total'][-1]:.1f} µs/word", file=sys.stderr, flush=True)
    total = statistics.median(runs["total"])
    model_cfg = nlp.config["components"]["vine_cascade"]["model"]
    result = run_record(docs=args.docs, model=str(args.model), blas=args.blas, words=words, repeats=args.repeats,
                        settings={k: model_cfg.get(k) for k in ("arc_width", "part_width", "label_width",
                                                                 "lstm_width", "span_width", "start_width",
                                                                 "shared_part_roles")},
                        total_us_per_word=total, total_runs=runs["total"],
                        product_gflops=statistics.median(runs["product_gflops"]), stages=[])
    for stage, parent in STAGES + (("other", None),):
        median = statistics.median(runs[stage])
        result["stages"].append({"stage": stage, "parent": parent, "us_per_word": median, "share": median / total,
                                 "runs": runs[stage]})
        print(f"{'  ' if parent else ''}{stage}: {median:.2f} µs/word ({100 * median / total:.0f}%)")
    print(f"total: {total:.2f} µs/word; the product at {result['product_gflops']:.0f} GFLOP/s")
    write_json(result, args.out)


if __name__ == "__main__":
    main()
