"""vine_cascade against spaCy's parser on dev, at each training budget the given runs were trained for.

--runs are run folders named <setting>-<pipe>-s<seed>, with an optional -<steps> suffix (`make ewt-compare`
writes bench/out/compare/cnn-vine-s0; a longer budget goes elsewhere, e.g. bench/out/long/cnn-vine-s0-4000),
each holding model-best; a run's budget is its saved config's training.max_steps. vine_cascade runs are cut
to --orders and calibrated on --docs for --recall as bench/spacy_compare.py does; both pipelines are scored
by spaCy's scorer on --docs (UAS / LAS, also on sentences of more than 30 words). For every setting, seed and
budget with both pipelines: vine − spacy; then the mean per setting and budget.

    python bench/budget_dev.py --docs corpora/spacy/en_ewt-ud-dev.spacy --orders 0,1,3 --recall 0.995,0.95 \\
        --runs bench/out/compare/cnn-*-s[01] bench/out/long/cnn-*-s[01]-4000 --out bench/results/budget_dev.json
"""
import argparse
import json
import os
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import accuracy, git_commit, gold_tokens, load, machine  # noqa: E402

KEYS = ("dep_uas", "dep_las", "long_dep_uas", "long_dep_las")
RUN_NAME = re.compile(r"^(?P<setting>[a-z0-9]+)-(?P<pipe>vine|spacy)-s(?P<seed>\d+)(-\d+)?$")


def main():
    from spacy.util import load_config
    from spacy.tokens import DocBin
    from vineparse.pipeline.__main__ import orders_argument
    from vineparse.pipeline.thresholds import recall_argument
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file scored (dev)")
    parser.add_argument("--runs", nargs="+", type=Path, required=True, help="run folders (see above)")
    parser.add_argument("--orders", type=orders_argument, default=None, help="cascade levels kept, e.g. 0,1,3")
    parser.add_argument("--recall", type=recall_argument, default=None, help="per-level recall to calibrate for")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    scores = {}
    for run in args.runs:
        match = RUN_NAME.match(run.name)
        path = run / "model-best"
        if match is None or not (path / "config.cfg").exists():
            sys.exit(f"error: {run} is not a run folder <setting>-<vine|spacy>-s<seed>[-<steps>] with model-best")
        steps = int(load_config(path / "config.cfg")["training"]["max_steps"])
        pipe = match["pipe"]
        nlp = load(path, pipe, args.docs, args.recall if pipe == "vine" else None,
                   args.orders if pipe == "vine" else None)
        score = accuracy(nlp, [gold_tokens(nlp, d) for d in DocBin().from_disk(args.docs).get_docs(nlp.vocab)])
        key = f"{match['setting']}-s{match['seed']}-{steps}"
        scores.setdefault(key, {})[pipe] = {"run": str(run), **{k: 100 * score[k] for k in KEYS}}
        print(f"{run.name} ({steps} steps): {100 * score['dep_uas']:.2f} / {100 * score['dep_las']:.2f}",
              flush=True)
    result = {"command": " ".join([sys.executable] + sys.argv), "commit": git_commit(), "machine": machine(),
              "load_average_start": os.getloadavg(), "docs": args.docs, "orders": args.orders,
              "recall": args.recall, "runs": {}}
    for key, row in sorted(scores.items()):
        if set(row) == {"vine", "spacy"}:
            row["vine_minus_spacy"] = {k: row["vine"][k] - row["spacy"][k] for k in KEYS}
            result["runs"][key] = row
    if not result["runs"]:
        sys.exit("error: no setting, seed and budget has both a vine and a spacy run")
    budgets = {}
    for key, row in result["runs"].items():
        setting, _, steps = key.split("-")
        budgets.setdefault(f"{setting}-{steps}", []).append(row["vine_minus_spacy"])
    result["by_budget"] = {name: {k: statistics.mean(d[k] for d in rows) for k in KEYS} | {"pairs": len(rows)}
                           for name, rows in sorted(budgets.items())}
    for name, row in result["by_budget"].items():
        print(f"{name} ({row['pairs']} seeds): vine − spacy UAS {row['dep_uas']:+.2f}, LAS {row['dep_las']:+.2f}")
    result["load_average_end"] = os.getloadavg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
