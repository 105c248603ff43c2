"""Corpus-scale benchmark (issue 16): `parse_corpus` on 1 and 2 local Dask workers against the plain loop.

    python bench/scale.py [--fraction 0.05] [--out bench/results/scale.json]

Input: EWT train repeated to at least 200,000 sentences (the first `--fraction` of it for smoke runs). Model: a
vine -> 1 -> 2 -> 3 cascade (bench/out/scale/ewt.msgpack, trained first if missing: 2 epochs, 2^20 weights a
level). Runs: plain, the single-process loop of `vineparse parse`; dask1, dask2, `parse_corpus` on a new
LocalCluster of 1 / 2 worker processes; then, on the first 10% of the input, a 2-worker run interrupted after
half its shards and resumed (files written twice counted), and one whose worker is killed mid-shard (shards run
twice counted). Words/s once the model is loaded, wall time beside it; per-shard overhead (everything a shard
costs beyond parsing) as a share of its time on one worker; every output compared byte for byte with the plain
loop's.
"""
import argparse
import hashlib
import itertools
import json
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from runinfo import emit, ewt, run_info, train_cascade, write_json  # noqa: E402

SENTENCES = 200_000          # EWT train repeated to at least this many
CHECK_FRACTION = 0.1         # the share of the input for the resume and killed-worker runs
WORK = Path("bench/out/scale")
MODEL = WORK / "ewt.msgpack"


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make_input(path: Path, sentences: int, fraction: float):
    """EWT train repeated to >= `sentences` sentences (then the first `fraction` of them): (sentences, words)."""
    from vineparse.corpus import format_sentence

    train = ewt("train")
    copies = -(-sentences // len(train))
    wanted = max(1, int(round(len(train) * copies * fraction)))
    blocks = [format_sentence(s) for s in train]
    words = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for k in range(wanted):
            out.write(blocks[k % len(blocks)])
            words += train[k % len(train)].n
    return wanted, words


def plain_loop(model: str, source: Path, target: Path, batch_size: int = 512):
    """The single-process loop of `vineparse parse` (its default --batch-size), streaming: words/s after the
    model is loaded."""
    from vineparse.cascade import CascadeParser
    from vineparse.corpus import format_sentence, iter_conllu

    load = time.perf_counter()
    parser = CascadeParser.load(model)
    start = time.perf_counter()
    words = sentences = 0
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        chunk = []
        for sentence in itertools.chain(iter_conllu(source, require_heads=False), [None]):
            if sentence is not None:
                chunk.append(sentence)
                if len(chunk) < batch_size:
                    continue
            trees = parser.parse_labelled_batch([(s.words, list(getattr(s, parser.tag)), list(s.upos))
                                                 for s in chunk])
            for s, (heads, labels) in zip(chunk, trees):
                s.set_tree(heads, labels)
                out.write(format_sentence(s))
                words += s.n
                sentences += 1
            chunk = []
    seconds = time.perf_counter() - start
    return {"sentences": sentences, "words": words, "model_load_seconds": start - load, "parse_seconds": seconds,
            "wall_seconds": time.perf_counter() - load, "words_per_second": words / seconds}


def shard_costs(output: Path, run_info: dict) -> dict:
    """Per-shard time split from the records of the shards this run parsed, and the share that is overhead."""
    manifest = json.loads((output / "manifest.json").read_text())
    records = [s for s in manifest["shards"] if "seconds" in s and not s.get("resumed")]
    parts = {key: sum(r["seconds"][key] for r in records) for key in ("read", "parse", "serialise", "write")}
    shards = len(records)
    busy = sum(parts.values())
    wall = run_info["parse_seconds"] * max(1, run_info["workers"])       # worker-seconds after the model loaded
    return {"shards": shards, "seconds_per_shard": wall / shards,
            "split_per_shard": {k: v / shards for k, v in parts.items()},
            "dispatch_per_shard": max(0.0, wall - busy) / shards, "overhead_share": 1.0 - parts["parse"] / wall}


def corpus_run(name: str, model: str, source: Path, folder: Path, reference: str, **kwargs):
    from vineparse.scale import parse_corpus

    load = os.getloadavg()
    start = time.perf_counter()
    summary = parse_corpus(model, source, folder, merge=True, progress=False, **kwargs)
    wall = time.perf_counter() - start
    run_info = json.loads((folder / "manifest.json").read_text())["run"]
    row = {"run": name, "shards": summary.shards, "parsed": summary.parsed, "resumed": summary.resumed,
           "sentences": summary.sentences, "words": summary.words, "words_per_second": summary.words_per_second,
           "wall_seconds": wall, "parse_seconds": run_info["parse_seconds"],
           "planning_seconds": run_info["planning_seconds"],
           "model_load_seconds": run_info["model_load_seconds"], "workers": run_info["workers"],
           "identical_to_plain": sha256(summary.merged) == reference, "load_before": load,
           "load_after": os.getloadavg()}
    if summary.parsed:
        row["costs"] = shard_costs(folder, run_info)
    return row


def interrupted_and_resumed(model, source, folder, reference, shard_size):
    """A 2-worker run stopped (as by Ctrl-C) after half its shards, then resumed: files written twice."""
    from vineparse.scale import open_client, parse_corpus
    from vineparse.scale.plan import plan_file

    total = len(plan_file(str(source), "conllu", shard_size).shards)
    done = []

    def stop_half_way(record):
        done.append(record)
        if len(done) * 2 >= total:
            raise KeyboardInterrupt

    start = time.perf_counter()
    with open_client(workers=2) as client:      # closed on the interrupt: no task of it lingers
        try:
            parse_corpus(model, source, folder, client=client, shard_size=shard_size, progress=False,
                         on_shard=stop_half_way)
        except KeyboardInterrupt:
            pass
    first = time.perf_counter() - start
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (folder / "shards").iterdir()}
    row = corpus_run("resumed", model, source, folder, reference, workers=2, shard_size=shard_size)
    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (folder / "shards").iterdir()}
    row.update(interrupted_after_shards=len(done), interrupted_run_seconds=first, files_before_resume=len(before),
               files_written_twice=sum(1 for name, stamp in before.items() if after.get(name) != stamp))
    return row


def killed_worker(model, source, folder, reference, shard_size):
    """A 2-worker run in which one worker is killed while it parses a shard; how often each shard ran."""
    from vineparse.scale import open_client, parse_corpus

    killed = {}
    with open_client(workers=2) as client:
        pids = client.run(os.getpid)

        def kill(record):
            if killed or record["shard"]["index"] < 2:
                return
            busy = {a: k for a, k in client.processing().items() if k}
            address = sorted(busy)[0]
            killed.update(key=str(busy[address][0]), time=time.perf_counter())
            os.kill(pids[address], signal.SIGKILL)

        load = os.getloadavg()
        start = time.perf_counter()
        summary = parse_corpus(model, source, folder, client=client, shard_size=shard_size, merge=True,
                               overwrite=True, progress=False, on_shard=kill)
        wall = time.perf_counter() - start
        log = client.run_on_scheduler(lambda dask_scheduler: [(str(e[0]), e[2], e[-1])
                                                              for e in dask_scheduler.transition_log])
    prefix = killed["key"].rsplit("-", 1)[0] + "-"
    runs = {}
    for key, state, _ in log:
        if key.startswith(prefix) and state == "processing":
            runs[key] = runs.get(key, 0) + 1
    run_info = json.loads((folder / "manifest.json").read_text())["run"]
    return {"run": "killed", "shards": summary.shards, "complete": summary.complete, "wall_seconds": wall,
            "parse_seconds": run_info["parse_seconds"], "words_per_second": summary.words_per_second,
            "identical_to_plain": sha256(summary.merged) == reference,
            "shards_run_twice": sum(1 for n in runs.values() if n == 2),
            "shards_run_more": sum(1 for n in runs.values() if n > 2), "shards_run": len(runs),
            "killed_shard": killed["key"], "model_load_seconds": run_info["model_load_seconds"],
            "load_before": load, "load_after": os.getloadavg(), "costs": shard_costs(folder, run_info)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fraction", type=float, default=1.0, help="use only this share of the input (smoke runs)")
    ap.add_argument("--out", default="bench/results/scale.json")
    args = ap.parse_args(argv)
    from vineparse.cascade import TrainingSettings
    from vineparse.scale import DEFAULT_SHARD_SIZE as shard_size

    work, model = WORK, str(MODEL)
    work.mkdir(parents=True, exist_ok=True)
    import dask
    import distributed
    result = run_info(dask=dask.__version__, distributed=distributed.__version__)
    if not MODEL.exists():
        start = time.perf_counter()
        train_cascade(MODEL, ewt("train"), ewt("dev"), TrainingSettings(2, 0.99, vine_recall=0.998), bits=20)
        emit({"section": "model", "trained": model, "seconds": time.perf_counter() - start})
    source = work / "input.conllu"
    sentences, words = make_input(source, SENTENCES, args.fraction)
    result["input"] = emit({"section": "input", "sentences": sentences, "words": words,
                            "bytes": source.stat().st_size, "shard_size": shard_size})
    names = ("dask1", "dask2")
    rows = {"plain": emit({"run": "plain", "round": 0, "load_before": os.getloadavg(),
                           **plain_loop(model, source, work / "plain.conllu"), "load_after": os.getloadavg()})}
    reference = sha256(work / "plain.conllu")
    for workers, name in enumerate(names, 1):
        rows[name] = emit({"round": 0, **corpus_run(name, model, source, work / name, reference, workers=workers,
                                                     shard_size=shard_size, overwrite=True)})
    ratios = {f"{name}_vs_plain": rows[name]["words_per_second"] / rows["plain"]["words_per_second"] for name in names}
    ratios["dask2_vs_dask1"] = rows["dask2"]["words_per_second"] / rows["dask1"]["words_per_second"]
    rows["ratios"] = emit({"round": 0, **ratios})
    result["rounds"] = [rows]

    # Resume and a killed worker, on the first share of the input, against the plain loop and 2 workers there.
    check = work / "check.conllu"
    check_sentences, _ = make_input(check, SENTENCES, args.fraction * CHECK_FRACTION)
    plain = plain_loop(model, check, work / "check_plain.conllu")
    check_reference = sha256(work / "check_plain.conllu")
    baseline = corpus_run("check_dask2", model, check, work / "check_dask2", check_reference, workers=2,
                          shard_size=shard_size, overwrite=True)
    result["check"] = emit({"section": "check", "sentences": check_sentences, "plain": plain, "dask2": baseline})
    for path in sorted((work / "resume").glob("**/*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    result["resume"] = emit(interrupted_and_resumed(model, check, work / "resume", check_reference, shard_size))
    result["killed"] = killed = killed_worker(model, check, work / "killed", check_reference, shard_size)
    # What the kill cost: the run's extra time over the 2-worker run, against one shard's time on 2 workers.
    killed["extra_seconds_vs_dask2"] = killed["parse_seconds"] - baseline["parse_seconds"]
    killed["shard_seconds_dask2"] = baseline["costs"]["seconds_per_shard"]
    emit(killed)
    targets = {"two_workers_vs_single_process": {"measured": ratios["dask2_vs_plain"], "target": ">= 1.8"},
               "per_shard_overhead_share": {"measured": rows["dask1"]["costs"]["overhead_share"],
                                            "target": "< 0.05", "shard_size": shard_size}}
    compared = [rows[n] for n in names] + [baseline, result["resume"], killed]
    targets["identical_output"] = {"measured": all(r["identical_to_plain"] for r in compared),
                                   "runs": [r["run"] for r in compared],
                                   "target": "byte for byte as the plain loop: 1 and 2 workers, resumed, killed"}
    targets["resume_writes_nothing_twice"] = {"measured": result["resume"]["files_written_twice"], "target": 0}
    targets["killed_worker_reruns"] = {"measured": killed["shards_run_twice"],
                                       "others_more_than_twice": killed["shards_run_more"],
                                       "extra_seconds": killed["extra_seconds_vs_dask2"],
                                       "shard_seconds": killed["shard_seconds_dask2"],
                                       "target": "only the killed shard (1)"}
    result["targets"] = emit(targets)
    result["load_at_end"] = os.getloadavg()
    write_json(args.out, result)


if __name__ == "__main__":
    main()
