"""Soak benchmark (issue 15): is memory flat when parsing 200,000 sentences?

    python bench/soak.py [--sentences 200000] [--every 2000] [--out bench/results/soak.json]
                         [--plot bench/results/soak.png]

Three runs, each in its own process on one thread, over EWT train sentences cycled until the count is reached
(the vocabulary is bounded, so what keeps growing after the first pass is held memory): ``pipe``, ``nlp.pipe``
with a small vine_cascade pipeline; ``api``, ``CascadeParser.parse_labelled`` with a small cascade; ``cli``,
``python -m vineparse parse MODEL -`` fed CoNLL-U on its standard input (both models trained briefly here).
RSS is sampled every ``--every`` sentences (the CLI's from outside, every half second). Target: RSS growth < 5%
from 20,000 to 200,000 sentences.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ONE_THREAD, ewt, log, pyplot, run_info, save_figure, train_cascade, write_json  # noqa: E402

WARM_UP = 20_000
TARGET_GROWTH = 0.05
SCRATCH = Path("bench/out/soak")
PHASES = ("pipe", "api", "cli")


def rss(pid=None) -> int:
    """Resident set size of a process (default: this one), in bytes."""
    try:
        import psutil
        return psutil.Process(pid).memory_info().rss
    except ImportError:
        with open(f"/proc/{pid or 'self'}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    raise RuntimeError("cannot read the resident set size (no psutil, no /proc)")


def cycled(items, total):
    for k in range(total):
        yield items[k % len(items)]


def train_pipeline(path: Path, sentences, steps: int = 60) -> None:
    """A small blank-English + vine_cascade pipeline, trained for `steps` batches of 32 EWT sentences."""
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    import vineparse.pipeline  # noqa: F401
    spacy.util.fix_random_seed(0)
    tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 64, "depth": 2,
               "embed_size": 2000, "window_size": 1, "maxout_pieces": 2, "subword_features": True}
    # a small model, each width named (VineCascadeModel.v2's settings of soak.json's run: no sentence starts,
    # no BiLSTM, span term, shared part roles or label children)
    model = {"@architectures": "vineparse.VineCascadeModel.v3", "arc_width": 64, "part_width": 16,
             "label_width": 32, "lstm_width": 0, "label_children": False, "start_width": 0, "span_width": 0,
             "shared_part_roles": False, "tok2vec": tok2vec}
    nlp = spacy.blank("en")
    nlp.add_pipe("vine_cascade", config={"model": model})
    examples = []
    for s in sentences[:2000]:
        heads = [int(h) - 1 if h > 0 else i for i, h in enumerate(s.heads[1:])]
        gold = Doc(nlp.vocab, words=list(s.words), heads=heads, deps=list(s.labels))
        examples.append(Example(Doc(nlp.vocab, words=list(s.words)), gold))
    optimizer = nlp.initialize(lambda: examples)
    for step in range(steps):
        nlp.update([examples[(step * 32 + i) % len(examples)] for i in range(32)], sgd=optimizer)
    nlp.to_disk(path)


def run_in_process(phase: str, model: str, total: int, every: int) -> dict:
    """The pipe or api run, in this process: samples [(sentences, rss, seconds)]."""
    sentences = ewt("train")
    start = time.perf_counter()
    if phase == "pipe":
        import spacy
        import vineparse.pipeline  # noqa: F401
        nlp = spacy.load(model)
        texts = [s.text for s in sentences]
        stream = enumerate(nlp.pipe(cycled(texts, total), batch_size=64), 1)
        words = sum(len(nlp.make_doc(t)) for t in texts[:1000]) / 1000
    else:
        from vineparse.cascade import CascadeParser
        parser = CascadeParser.load(model)
        rows = [(s.words, list(s.xpos), list(s.upos)) for s in sentences]
        stream = ((k, parser.parse_labelled(*row)) for k, row in enumerate(cycled(rows, total), 1))
        words = sum(len(r[0]) for r in rows[:1000]) / 1000
    del sentences
    samples = [(0, rss(), 0.0)]
    for k, _ in stream:
        if k % every == 0:
            samples.append((k, rss(), time.perf_counter() - start))
    return {"samples": samples, "mean_words": words}


def run_cli(model: str, total: int, sample_seconds: float = 0.5) -> dict:
    """`python -m vineparse parse MODEL -` fed `total` sentences; its RSS sampled from outside."""
    from vineparse.corpus import format_sentence
    sentences = ewt("train")
    blocks = []
    for raw in (s.copy() for s in sentences):
        raw.heads[1:], raw.labels[:] = -1, "_"
        blocks.append(format_sentence(raw).encode("utf-8"))
    del sentences
    env = {**os.environ, **ONE_THREAD}
    child = subprocess.Popen([sys.executable, "-m", "vineparse", "parse", model, "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    written = [0]

    def feed():
        try:
            for block in cycled(blocks, total):
                child.stdin.write(block)
                written[0] += 1
        finally:
            child.stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    start = time.perf_counter()
    feeder.start()
    samples = []
    while child.poll() is None:
        try:
            samples.append((written[0], rss(child.pid), time.perf_counter() - start))
        except (OSError, RuntimeError, ValueError):
            pass                                    # the child exited between poll and read
        time.sleep(sample_seconds)
    feeder.join()
    error = child.stderr.read().decode("utf-8", "replace")
    if child.returncode != 0:
        raise RuntimeError(f"vineparse parse failed ({child.returncode}): {error[-2000:]}")
    return {"samples": samples, "stderr": error.strip().splitlines()[-1:]}


def growth(samples, total):
    """RSS at the first sample at or after WARM_UP sentences and at the last sample, and the relative
    growth between them."""
    after = [s for s in samples if s[0] >= min(WARM_UP, total)]
    if len(after) < 2:
        return None
    first, last = after[0], after[-1]
    return {"sentences_from": first[0], "sentences_to": last[0], "rss_from_mb": first[1] / 2**20,
            "rss_to_mb": last[1] / 2**20, "growth": (last[1] - first[1]) / first[1],
            "peak_mb": max(s[1] for s in samples) / 2**20}


def plot(runs, path):
    fig, ax = pyplot().subplots(figsize=(8, 4.5))
    for name, run in runs.items():
        g = run.get("growth")
        ax.plot([s[0] for s in run["samples"]], [s[1] / 2**20 for s in run["samples"]],
                label=name + (f" ({100 * g['growth']:+.1f}% from {WARM_UP:,})" if g else ""))
    ax.axvline(WARM_UP, color="grey", linestyle=":", linewidth=1)
    ax.set(xlabel="sentences parsed", ylabel="RSS (MiB)", title="vineparse soak: resident memory while parsing")
    ax.grid(True, alpha=0.3)
    ax.legend()
    save_figure(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=200_000)
    ap.add_argument("--every", type=int, default=2_000)
    ap.add_argument("--out", default="bench/results/soak.json")
    ap.add_argument("--plot", default="bench/results/soak.png")
    ap.add_argument("--phase", default=None, help=argparse.SUPPRESS)       # a child run: pipe or api
    ap.add_argument("--model", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--result", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        result = run_in_process(args.phase, args.model, args.sentences, args.every)
        Path(args.result).write_text(json.dumps(result), encoding="utf-8")
        return
    info = run_info()
    SCRATCH.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    models = {"pipe": str(SCRATCH / "pipeline"), "api": str(SCRATCH / "cascade.msgpack")}
    models["cli"] = models["api"]
    log("training a small vine_cascade pipeline and a small cascade (2,000 sentences, 2 epochs) ...")
    from vineparse.cascade import TrainingSettings
    sentences = ewt("train")
    train_pipeline(Path(models["pipe"]), sentences)
    train_cascade(models["api"], sentences[:2000], sentences[-500:], TrainingSettings(epochs=2), bits=18)
    runs = {}
    for phase in PHASES:
        log(f"{phase}: parsing {args.sentences:,} sentences ...")
        t0 = time.perf_counter()
        if phase == "cli":
            run = run_cli(models["cli"], args.sentences)
        else:
            result = SCRATCH / f"{phase}.json"
            subprocess.run([sys.executable, __file__, "--phase", phase, "--model", models[phase], "--sentences",
                            str(args.sentences), "--every", str(args.every), "--result", str(result)],
                           check=True, env={**os.environ, **ONE_THREAD})
            run = json.loads(result.read_text(encoding="utf-8"))
        run["seconds"] = time.perf_counter() - t0
        run["sentences_per_second"] = args.sentences / run["seconds"]
        run["growth"] = growth(run["samples"], args.sentences)
        run["model"] = models[phase]
        runs[phase] = run
    targets = [{"target": f"{phase}: RSS growth < {100 * TARGET_GROWTH:.0f}% from {WARM_UP:,} to "
                          f"{args.sentences:,} sentences",
                "measured": None if not run["growth"] else f"{100 * run['growth']['growth']:+.2f}%",
                "met": bool(run["growth"]) and run["growth"]["growth"] < TARGET_GROWTH}
               for phase, run in runs.items()]
    report = {**info, "settings": {"sentences": args.sentences, "every": args.every, "pipeline": None,
                                     "cascade": None, "phases": list(PHASES), **vars(args)},
              "warm_up": WARM_UP, "runs": runs, "targets": targets,
              "load_average_end": list(os.getloadavg()), "seconds": time.perf_counter() - start}
    write_json(args.out, report)
    if args.plot.lower() != "none":
        plot(runs, args.plot)


if __name__ == "__main__":
    main()
