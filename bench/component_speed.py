"""µs per word of the vine_cascade component alone, for several trained pipelines side by side.

For each pipeline (--models NAME=PATH ...): the tokenizer, tok2vec and tagger run once over the gold tokens
of --docs (one sentence per doc, as in bench/spacy_compare.py); then `vine_cascade.pipe` (batches of 256) is
timed over those docs, --repeats rounds with the pipelines interleaved, each run from a collected heap; the
median per pipeline, with the model settings that set its cost (part_width, label_children, arc, label and
span widths). With --blas scipy (the default) thinc's ops are `vineparse.blas.ScipyBlasOps`, as in the
equal-BLAS half of bench/spacy_compare.py. The thresholds are those the pipelines were saved with.

    python bench/component_speed.py --docs corpora/spacy/en_ewt-ud-dev.spacy \\
        --models p64=bench/out/exp/p64lc3-s0/model-best p32=bench/out/exp/p32lc3-s0/model-best \\
        --out bench/results/component_speed.json
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import git_commit, gold_tokens, machine, use_blas  # noqa: E402


def named_path(text):
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--models takes NAME=PATH, got {text!r}")
    return name, Path(path)


def prepared_docs(nlp, gold):
    """The gold tokens of each doc, run through every component before vine_cascade."""
    docs = [gold_tokens(nlp, d).predicted for d in gold]
    for name, component in nlp.pipeline:
        if name == "vine_cascade":
            break
        docs = list(component.pipe(docs, batch_size=256))
    return docs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file whose gold tokens are parsed")
    parser.add_argument("--models", nargs="+", type=named_path, required=True, help="NAME=PATH of a pipeline")
    parser.add_argument("--blas", choices=["thinc", "scipy"], default="scipy")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--out", default="bench/results/component_speed.json")
    args = parser.parse_args()
    use_blas(args.blas)
    import spacy
    from spacy.tokens import DocBin

    import vineparse.pipeline  # noqa: F401
    pipelines = {}
    for name, path in args.models:
        if not (path / "config.cfg").exists():
            sys.exit(f"error: {path} is not a saved spaCy pipeline (no config.cfg)")
        nlp = spacy.load(path)
        if "vine_cascade" not in nlp.pipe_names:
            sys.exit(f"error: {path} has no vine_cascade component")
        gold = list(DocBin().from_disk(args.docs).get_docs(nlp.vocab))
        docs = prepared_docs(nlp, gold)
        component = nlp.get_pipe("vine_cascade")
        list(component.pipe(docs[:50]))                         # warm up
        model_cfg = nlp.config["components"]["vine_cascade"]["model"]
        pipelines[name] = {"path": str(path), "component": component, "docs": docs,
                           "words": sum(len(d) for d in docs),
                           "settings": {k: model_cfg.get(k) for k in ("arc_width", "part_width", "label_width",
                                                                     "label_children", "span_width")}}
    times = {name: [] for name in pipelines}
    for repeat in range(args.repeats):
        for name, p in pipelines.items():
            gc.collect()
            start = time.perf_counter()
            for _ in p["component"].pipe(p["docs"], batch_size=256):
                pass
            times[name].append(1e6 * (time.perf_counter() - start) / p["words"])
        print(f"round {repeat + 1}/{args.repeats}: " + ", ".join(f"{n} {t[-1]:.1f}" for n, t in times.items())
              + " µs/word", file=sys.stderr, flush=True)
    result = {"command": " ".join([sys.executable] + sys.argv), "commit": git_commit(), "machine": machine(),
              "load_average": os.getloadavg(), "blas": args.blas, "docs": args.docs,
              "pipelines": {name: {"path": p["path"], "settings": p["settings"], "words": p["words"],
                                   "us_per_word": statistics.median(times[name]), "runs": times[name]}
                            for name, p in pipelines.items()}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    for name, row in result["pipelines"].items():
        print(f"{name}: {row['us_per_word']:.1f} µs/word {row['settings']}")


if __name__ == "__main__":
    main()
