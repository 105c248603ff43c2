"""Where a benchmark figure comes from: what every committed result records about its run. The one provenance
helper of bench/: command line, git commit (with +dirty), start time, load average and machine (the machine is
shared; numbers are only comparable within one run); and what the scripts share besides: writing the JSON,
JSON and progress lines, a pyplot without a display, EWT's splits, `NAME=PATH` arguments, the one-thread
settings and a quietly trained cascade."""
import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}   # OpenMP / BLAS


def git_commit() -> str:
    """The checked-out commit, with ``+dirty`` if the work tree has uncommitted changes ("unknown" outside
    git)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def load_now() -> list:
    """The 1, 5 and 15 minute load averages now (to record beside a measurement)."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else []


def run_info(**machine) -> dict:
    """Command line, commit, time, load average and machine (with the versions or settings `machine` adds), as a
    JSON-ready dict."""
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"command": " ".join([Path(sys.executable).name] + sys.argv), "git_commit": git_commit(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "load_average": load_now(),
            "machine": {"platform": platform.platform(), "processor": cpu, "cpus": os.cpu_count(),
                        "python": platform.python_version(), **machine}}


def write_json(path, result, indent=1, **options) -> None:
    """`result` as JSON at `path` (its folder made first)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=indent, **options) + "\n", encoding="utf-8")


def emit(row: dict) -> dict:
    """Print `row` as a JSON line (a result as it comes) and return it."""
    print(json.dumps(row), flush=True)
    return row


def log(message) -> None:
    """A progress line on stderr, with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path) -> str:
    """Lay `fig` out, write it as a PNG at `path` and close it; RETURNS the path."""
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return str(path)


def ewt(split: str):
    """The sentences of EWT's `split` (train, dev or test)."""
    from vineparse.corpus import corpus_path, read_conllu
    return read_conllu(corpus_path("ud-english-ewt", f"en_ewt-ud-{split}.conllu"))


def labelled_path(text: str):
    """A NAME=PATH argument as (NAME, PATH)."""
    name, _, path = text.partition("=")
    if not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, path


def train_cascade(path, train_sentences, dev_sentences, settings, **options):
    """A vine -> 1 -> 2 -> 3 `CascadeParser` (`options`: its bits, ...) trained quietly on `train_sentences`
    (`dev_sentences` for its thresholds), saved at `path` unless it is None."""
    from vineparse.cascade import CascadeParser, Example, train
    parser = CascadeParser(orders=(0, 1, 2, 3), **options)
    train(parser, [Example.from_sentence(s) for s in train_sentences],
          [Example.from_sentence(s) for s in dev_sentences], settings, report=lambda message: None)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        parser.save(path)
    return parser
