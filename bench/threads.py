"""Stress benchmark (issue 36): words/s with 1, 2 and 4 Python threads calling one loaded model.

    python bench/threads.py --pipeline PATH [--out bench/results/threads.json]

Two models, each shared by every calling thread: a sparse `CascadeParser` (trained on EWT train once, kept under
bench/out/threads) through `parse_batch` on chunks of 64 sentences, and the pipeline --pipeline through
`nlp.pipe` on chunks of 32 docs. Each round parses EWT test once per thread count; every parse is compared with
the sequential one. One OpenMP / BLAS thread per call, so the calling threads are the only parallelism. Target:
2 threads >= 1.6x one thread for `parse_batch` (it releases the GIL).
"""
import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ONE_THREAD, ewt, log, run_info, train_cascade, write_json  # noqa: E402

os.environ.update(ONE_THREAD)       # before numpy loads
import numpy as np  # noqa: E402

SCRATCH = Path("bench/out/threads")
TARGET_SPEEDUP = 1.6
THREADS = [1, 2, 4]        # calling thread counts, the first the baseline
ROUNDS = 5


def parse_in_threads(work, chunks, n_threads):
    """[work(chunk) for chunk in chunks] by a pool of `n_threads` threads (started before the clock);
    RETURNS (results, seconds)."""
    with ThreadPoolExecutor(n_threads) as pool:
        list(pool.map(time.sleep, [0.0] * n_threads))        # the pool's threads exist before timing
        start = time.perf_counter()
        results = list(pool.map(work, chunks))
        return results, time.perf_counter() - start


def measure(name, work, chunks, words, thread_counts, rounds, same):
    """Rounds of every thread count over all chunks; differences from the sequential parse counted."""
    reference, _ = parse_in_threads(work, chunks, 1)
    per_round = {n: [] for n in thread_counts}
    differences = {n: 0 for n in thread_counts}
    for r in range(rounds):
        for n in thread_counts:
            results, seconds = parse_in_threads(work, chunks, n)
            per_round[n].append(words / seconds)
            differences[n] += sum(not same(a, b) for chunk, ref in zip(results, reference) for a, b in zip(chunk, ref))
        log(f"{name} round {r + 1}/{rounds}: " + ", ".join(f"{n} threads {per_round[n][-1]:,.0f} words/s"
                                                         for n in thread_counts))
    medians = {n: statistics.median(v) for n, v in per_round.items()}
    row = {"words": words, "chunks": len(chunks), "rounds": rounds,
           "words_per_second": {str(n): v for n, v in per_round.items()},
           "median_words_per_second": {str(n): medians[n] for n in thread_counts},
           "differences_from_sequential": {str(n): differences[n] for n in thread_counts}}
    one = thread_counts[0]
    row["speedup"] = {str(n): medians[n] / medians[one] for n in thread_counts[1:]}
    row["speedup_per_round_median"] = {
        str(n): statistics.median(a / b for a, b in zip(per_round[n], per_round[one])) for n in thread_counts[1:]}
    return row


def sparse_cascade():
    """The cascade measured (trained on EWT train the first time, a few minutes): its path and the parser."""
    from vineparse.cascade import CascadeParser, TrainingSettings

    path = SCRATCH / "cascade.msgpack"
    if not path.exists():
        log("training a vine -> 1 -> 2 -> 3 cascade on EWT train (a few minutes)")
        train_cascade(path, ewt("train"), ewt("dev"), TrainingSettings(epochs=5, recall=0.99, vine_recall=0.998))
    return str(path), CascadeParser.load(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", required=True, help="a trained spaCy pipeline with vine_cascade")
    parser.add_argument("--out", default="bench/out/threads.json")
    args = parser.parse_args(argv)
    thread_counts = THREADS

    import spacy
    from spacy.tokens import Doc

    test = ewt("test")
    words = sum(s.n for s in test)
    out = {"run": run_info(), "corpus": "ewt-test", "sentences": len(test), "threads": thread_counts,
           "target": f"parse_batch: {thread_counts[1]} threads >= {TARGET_SPEEDUP}x one thread"}
    SCRATCH.mkdir(parents=True, exist_ok=True)

    cascade_path, cascade = sparse_cascade()
    sentences = [(list(s.words), list(s.xpos), list(s.upos)) for s in test]
    chunks = [sentences[i:i + 64] for i in range(0, len(sentences), 64)]
    out["cascade"] = {"model": cascade_path, **measure("parse_batch", cascade.parse_batch, chunks, words,
                                                        thread_counts, ROUNDS, np.array_equal)}

    nlp = spacy.load(args.pipeline)
    docs = [[list(s.words)] for s in test]

    def pipe(chunk):
        parsed = nlp.pipe([Doc(nlp.vocab, words=w) for (w,) in chunk])
        return [([t.head.i for t in doc], [t.dep_ for t in doc], [t.is_sent_start for t in doc]) for doc in parsed]

    doc_chunks = [docs[i:i + 32] for i in range(0, len(docs), 32)]
    out["pipeline"] = {"model": args.pipeline, "components": nlp.pipe_names,
                       **measure("nlp.pipe", pipe, doc_chunks, words, thread_counts, ROUNDS, lambda a, b: a == b)}
    out["run"]["load_average_at_end"] = list(os.getloadavg())
    speedup = out["cascade"]["speedup"][str(thread_counts[1])]
    out["met"] = {"parse_batch_speedup": speedup >= TARGET_SPEEDUP,
                  "no_differences": not any(out[m]["differences_from_sequential"][str(n)]
                                            for m in ("cascade", "pipeline") for n in thread_counts)}
    write_json(args.out, out)


if __name__ == "__main__":
    main()
