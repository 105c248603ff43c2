"""µs per word of the vine_cascade component alone, for several trained pipelines side by side.

    python bench/component_speed.py --docs corpora/spacy/en_ewt-ud-dev.spacy \\
        --models p64=bench/out/exp/p64lc3-s0/model-best p32=bench/out/exp/p32lc3-s0/model-best \\
        --out bench/results/component_speed.json

For each pipeline (--models NAME=PATH ...), on the gold tokens of --docs with the components before it run
once: `vine_cascade.pipe` timed over --repeats interleaved rounds (median, with the model settings that set its
cost), thinc's ops `vineparse.blas.ScipyBlasOps`. Then each whole pipeline's words/s
(`nlp.pipe`, as bench/spacy_compare.py times it; pipelines without vine_cascade allowed), interleaved, its ratio
to the first pipeline's and the µs per word of each of its components.
"""
import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import labelled_path, log  # noqa: E402
from spacy_compare import component_times, gold_tokens, run_record, use_blas, words_per_second, write_json  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file whose gold tokens are parsed")
    parser.add_argument("--models", nargs="+", type=labelled_path, required=True, help="NAME=PATH of a pipeline")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--note", default=None, help="how the pipelines were made, where their configs do not say it")
    parser.add_argument("--out", default="bench/results/component_speed.json")
    args = parser.parse_args()
    use_blas("scipy")
    import spacy
    from spacy.tokens import DocBin

    import vineparse.pipeline  # noqa: F401
    pipelines = {}
    for name, path in args.models:
        if not (Path(path) / "config.cfg").exists():
            sys.exit(f"error: {path} is not a saved spaCy pipeline (no config.cfg)")
        nlp = spacy.load(path)
        gold = list(DocBin().from_disk(args.docs).get_docs(nlp.vocab))
        pipelines[name] = {"path": str(path), "nlp": nlp, "texts": [doc.text for doc in gold],
                           "words": sum(len(d) for d in gold), "settings": {}}
        if "vine_cascade" in nlp.pipe_names:
            docs = [gold_tokens(nlp, d).predicted for d in gold]        # through the components before it
            for _, upstream in nlp.pipeline[:nlp.pipe_names.index("vine_cascade")]:
                docs = list(upstream.pipe(docs, batch_size=256))
            component = nlp.get_pipe("vine_cascade")
            list(component.pipe(docs[:50]))                         # warm up
            model_cfg = nlp.config["components"]["vine_cascade"]["model"]
            settings = {k: model_cfg.get(k) for k in ("arc_width", "part_width", "label_width", "label_children",
                                                      "span_width", "shared_part_roles")}
            pipelines[name].update(component=component, docs=docs, settings=settings)
    times = {name: [] for name, p in pipelines.items() if "component" in p}
    for repeat in range(args.repeats):
        for name in times:
            p = pipelines[name]
            gc.collect()
            start = time.perf_counter()
            for _ in p["component"].pipe(p["docs"], batch_size=256):
                pass
            times[name].append(1e6 * (time.perf_counter() - start) / p["words"])
        log(f"round {repeat + 1}/{args.repeats}: " + ", ".join(f"{n} {t[-1]:.1f}" for n, t in times.items())
            + " µs/word")
    result = run_record(blas="scipy", docs=args.docs, note=args.note,
                        pipelines={name: {"path": p["path"], "settings": p["settings"], "words": p["words"]}
                                   for name, p in pipelines.items()})
    for name, runs in times.items():
        result["pipelines"][name].update(us_per_word=statistics.median(runs), runs=runs)
    whole_pipeline_speed(pipelines, result["pipelines"], args.repeats)
    write_json(result, args.out)


def whole_pipeline_speed(pipelines, records, repeats):
    """Add to each pipeline's record the words/s of the whole pipeline over its texts (median of `repeats`
    interleaved rounds, each from a collected heap), its ratio to the first pipeline's and per round, and the
    µs per word of each of its components (`spacy_compare.component_times`)."""
    runs = {name: [] for name in pipelines}
    for p in pipelines.values():
        list(p["nlp"].pipe(p["texts"][:50]))                  # warm up
    for repeat in range(repeats):
        for name, p in pipelines.items():
            runs[name].append(words_per_second(p["nlp"], p["texts"], p["words"]))
        log(f"pipelines, round {repeat + 1}/{repeats}: " + ", ".join(f"{n} {r[-1]:,.0f}" for n, r in runs.items())
            + " words/s")
    first = next(iter(runs))
    texts, words = pipelines[first]["texts"], pipelines[first]["words"]       # the same docs for every pipeline
    by_component = component_times({name: p["nlp"] for name, p in pipelines.items()}, texts, words, repeats)
    for name in pipelines:
        records[name].update(words_per_second=statistics.median(runs[name]), words_per_second_runs=runs[name],
                             ratio_to_first=statistics.median(runs[name]) / statistics.median(runs[first]),
                             per_round_ratios=[r / f for r, f in zip(runs[name], runs[first])],
                             us_per_word_by_component=by_component[name])


if __name__ == "__main__":
    main()
