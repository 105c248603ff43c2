"""A* with the back-off grammar (issue 15): does every sentence get a parse, how many need the back-off,
and what does a sentence cost?

    python bench/astar_backoff.py [--out bench/results/astar_backoff.json]

Trains each model on the PTB sample's wsj_0001-0179 (as ``bench/astar.py``) and parses, with its default
heuristic, EWT test sentences of 8-26 words with their XPOS tags and the PTB sample's test sentences of at most
40 words. For each: the share parsed (target 100%), the share that needed the back-off grammar and why, and the
time per sentence (median / mean / 90th percentile; all, covered, back-off). Back-off sentences of at most 15
words are also parsed by exhaustive CKY: A* must find the same cost (``oracle_mismatches``, expected 0).
"""
import argparse
import os
from collections import Counter
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ewt, log, run_info, write_json  # noqa: E402

from vineparse.astar import AStarParser, ParseError  # noqa: E402
from vineparse.corpus import read_ptb_sample  # noqa: E402

SETTINGS = {"models": ["factored", "nonfactored"], "ewt_min": 8, "ewt_max": 26, "ptb_max_length": 40,
            "exhaustive_max_length": 15, "lp_sentences": None}


def sentences():
    low, high, longest = SETTINGS["ewt_min"], SETTINGS["ewt_max"], SETTINGS["ptb_max_length"]
    ewt_test = [(list(s.words), list(s.xpos)) for s in ewt("test") if low <= len(s.words) <= high]
    ptb = [([w for w, _ in pos], [t for _, t in pos]) for pos in (tree.pos() for tree in read_ptb_sample("test"))
           if len(pos) <= longest]
    return {f"ewt_test_{low}_{high}": ewt_test, f"ptb_test_le_{longest}": ptb}


def timing(values):
    if not values:
        return None
    ms = 1e3 * np.asarray(values)
    return {"sentences": len(values), "median_ms": float(np.median(ms)), "mean_ms": float(ms.mean()),
            "p90_ms": float(np.percentile(ms, 90)), "max_ms": float(ms.max())}


def run_corpus(parser, data):
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
        if result.backoff is not None and len(words) <= SETTINGS["exhaustive_max_length"]:
            oracle_checked += 1
            exact = parser.parse_exhaustive(words, tags).cost
            oracle_mismatches += abs(exact - result.cost) > 1e-9 * max(1.0, abs(exact))
    reasons = dict(Counter(r["backoff"] for r in records if r["backoff"] is not None))
    n = len(data)
    return {"sentences": n, "parsed": len(records), "parsed_share": len(records) / n if n else 1.0,
            "failures": failures, "backoff": reasons, "backoff_share": sum(reasons.values()) / n if n else 0.0,
            "time_all": timing([r["seconds"] for r in records]),
            "time_covered": timing([r["seconds"] for r in records if r["backoff"] is None]),
            "time_backoff": timing([r["seconds"] for r in records if r["backoff"] is not None]),
            "oracle_checked": oracle_checked, "oracle_mismatches": int(oracle_mismatches)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/astar_backoff.json")
    args = ap.parse_args()
    info = run_info()
    start = time.perf_counter()
    train = read_ptb_sample("train")
    corpora = sentences()
    log(", ".join(f"{name}: {len(data)} sentences" for name, data in corpora.items()))
    models = {}
    for kind in SETTINGS["models"]:
        t0 = time.perf_counter()
        parser = AStarParser().train(train, model=kind, progress=log)
        models[kind] = {"heuristic": parser.default_heuristic, "train_seconds": time.perf_counter() - t0,
                        "backoff_grammar": parser.backoff_grammar.describe(), "corpora": {}}
        for name, data in corpora.items():
            log(f"{kind} / {name} ...")
            models[kind]["corpora"][name] = run_corpus(parser, data)
    targets = [{"target": f"{kind}: A* parses 100% of {name}",
                "measured": f"{100 * c['parsed_share']:.2f}% ({c['parsed']} of {c['sentences']}); back-off "
                            f"{100 * c['backoff_share']:.2f}%",
                "met": c["parsed"] == c["sentences"] and c["oracle_mismatches"] == 0}
               for kind, m in models.items() for name, c in m["corpora"].items()]
    report = {**info, "settings": {**vars(args), **SETTINGS}, "models": models, "targets": targets,
              "load_average_end": list(os.getloadavg()), "seconds": time.perf_counter() - start}
    write_json(args.out, report)


if __name__ == "__main__":
    main()
