"""A* with the back-off grammar (issue 15): does every sentence get a parse, how many need the back-off,
and what does a sentence cost?

    python bench/astar_backoff.py [--out bench/results/astar_backoff.json] [--models factored nonfactored]

Trains each model on the PTB sample's wsj_0001-0179 (as ``bench/astar.py``) and parses, with its default
heuristic (factored / split):

- EWT test sentences of 8-26 words with their XPOS tags (another English treebank: PTB-style tags plus
  HYPH, NFP, ADD, GW, AFX, ...);
- the PTB sample's test range (wsj_0180-0199, sentences of at most 40 words).

For each: the share of sentences parsed (target 100%), the share that needed the back-off grammar and
why (an unknown tag, or no derivation under the treebank grammar), time per sentence (model scoring +
projection charts + search, including the failed first attempt of a back-off sentence) as median / mean /
90th percentile, for all sentences, those the treebank grammar covers, and those that needed the back-off.
Back-off sentences of at most ``--exhaustive-max-length`` words are also parsed by exhaustive CKY on the
back-off grammar: A* must find the same cost (``oracle_mismatches``, expected 0). One thread; the JSON
records the command line, commit, load average and machine.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info  # noqa: E402

from vineparse.astar import AStarParser, ParseError  # noqa: E402
from vineparse.corpus import corpus_path, read_conllu, read_ptb_sample  # noqa: E402


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def sentences(args):
    ewt = read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"))
    ewt = [(list(s.words), list(s.xpos)) for s in ewt if args.ewt_min <= len(s.words) <= args.ewt_max]
    ptb = []
    for tree in read_ptb_sample("test"):
        pos = tree.pos()
        if len(pos) <= args.ptb_max_length:
            ptb.append(([w for w, _ in pos], [t for _, t in pos]))
    return {f"ewt_test_{args.ewt_min}_{args.ewt_max}": ewt, f"ptb_test_le_{args.ptb_max_length}": ptb}


def timing(values):
    if not values:
        return None
    ms = 1e3 * np.asarray(values)
    return {"sentences": len(values), "median_ms": float(np.median(ms)), "mean_ms": float(ms.mean()),
            "p90_ms": float(np.percentile(ms, 90)), "max_ms": float(ms.max())}


def run_corpus(parser, data, args):
    records, failures = [], {}
    oracle_checked = oracle_mismatches = 0
    for words, tags in data:
        try:
            result = parser.parse(words, tags)
        except ParseError as error:             # only a search limit can get here
            failures[error.reason] = failures.get(error.reason, 0) + 1
            continue
        s = result.stats
        records.append({"length": len(words), "backoff": result.backoff, "popped": s.popped,
                        "seconds": s.scoring_seconds + s.seconds})
        if result.backoff is not None and len(words) <= args.exhaustive_max_length:
            oracle_checked += 1
            exact = parser.parse_exhaustive(words, tags).cost
            oracle_mismatches += abs(exact - result.cost) > 1e-9 * max(1.0, abs(exact))
    reasons = {}
    for r in records:
        if r["backoff"] is not None:
            reasons[r["backoff"]] = reasons.get(r["backoff"], 0) + 1
    n = len(data)
    return {
        "sentences": n, "parsed": len(records), "parsed_share": len(records) / n if n else 1.0,
        "failures": failures, "backoff": reasons,
        "backoff_share": sum(reasons.values()) / n if n else 0.0,
        "time_all": timing([r["seconds"] for r in records]),
        "time_covered": timing([r["seconds"] for r in records if r["backoff"] is None]),
        "time_backoff": timing([r["seconds"] for r in records if r["backoff"] is not None]),
        "oracle_checked": oracle_checked, "oracle_mismatches": int(oracle_mismatches),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/astar_backoff.json")
    ap.add_argument("--models", nargs="+", default=["factored", "nonfactored"], choices=["factored", "nonfactored"])
    ap.add_argument("--ewt-min", type=int, default=8)
    ap.add_argument("--ewt-max", type=int, default=26)
    ap.add_argument("--ptb-max-length", type=int, default=40)
    ap.add_argument("--exhaustive-max-length", type=int, default=15)
    ap.add_argument("--lp-sentences", type=int, default=None, help="training trees for the LP (default: all)")
    args = ap.parse_args()
    info = run_info()
    start = time.perf_counter()
    train = read_ptb_sample("train")
    corpora = sentences(args)
    log(", ".join(f"{name}: {len(data)} sentences" for name, data in corpora.items()))
    models = {}
    for kind in args.models:
        t0 = time.perf_counter()
        parser = AStarParser().train(train, model=kind, lp_sentences=args.lp_sentences, progress=log)
        models[kind] = {"heuristic": parser.default_heuristic, "train_seconds": time.perf_counter() - t0,
                        "backoff_grammar": parser.backoff_grammar.describe(), "corpora": {}}
        for name, data in corpora.items():
            t0 = time.perf_counter()
            summary = run_corpus(parser, data, args)
            models[kind]["corpora"][name] = summary
            log(f"{kind} / {name}: parsed {100 * summary['parsed_share']:.2f}%, back-off "
                f"{100 * summary['backoff_share']:.2f}% {summary['backoff']}, median "
                f"{summary['time_all']['median_ms']:.1f} ms, oracle {summary['oracle_mismatches']} mismatches of "
                f"{summary['oracle_checked']} ({time.perf_counter() - t0:.0f}s)")
    targets = [{"target": f"{kind}: A* parses 100% of {name}",
                "measured": f"{100 * c['parsed_share']:.2f}% ({c['parsed']} of {c['sentences']}); back-off "
                            f"{100 * c['backoff_share']:.2f}%",
                "met": c["parsed"] == c["sentences"] and c["oracle_mismatches"] == 0}
               for kind, m in models.items() for name, c in m["corpora"].items()]
    report = {**info, "settings": vars(args), "models": models, "targets": targets,
              "load_average_end": list(os.getloadavg()), "seconds": time.perf_counter() - start}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")
    log(f"wrote {args.out} in {report['seconds']:.0f}s")


if __name__ == "__main__":
    main()
