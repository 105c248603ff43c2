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
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spacy_compare import (SCORE_KEYS, add_cut_arguments, gold_examples, load, percent_scores,  # noqa: E402
                          run_record, write_json)

RUN_NAME = re.compile(r"^(?P<setting>[a-z0-9]+)-(?P<pipe>vine|spacy)-s(?P<seed>\d+)(-\d+)?$")


def main():
    from spacy.util import load_config
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help=".spacy file scored (dev)")
    parser.add_argument("--runs", nargs="+", type=Path, required=True, help="run folders (see above)")
    add_cut_arguments(parser)
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
        row = percent_scores(nlp, gold_examples(nlp, args.docs))
        scores.setdefault(f"{match['setting']}-s{match['seed']}-{steps}", {})[pipe] = {"run": str(run), **row}
        print(f"{run.name} ({steps} steps): {row['dep_uas']:.2f} / {row['dep_las']:.2f}", flush=True)
    result = run_record(docs=args.docs, orders=args.orders, recall=args.recall, runs={})
    for key, row in sorted(scores.items()):
        if set(row) == {"vine", "spacy"}:
            row["vine_minus_spacy"] = {k: row["vine"][k] - row["spacy"][k] for k in SCORE_KEYS}
            result["runs"][key] = row
    if not result["runs"]:
        sys.exit("error: no setting, seed and budget has both a vine and a spacy run")
    budgets = {}
    for key, row in result["runs"].items():
        setting, _, steps = key.split("-")
        budgets.setdefault(f"{setting}-{steps}", []).append(row["vine_minus_spacy"])
    result["by_budget"] = {name: {k: statistics.mean(d[k] for d in rows) for k in SCORE_KEYS} | {"pairs": len(rows)}
                           for name, rows in sorted(budgets.items())}
    for name, row in result["by_budget"].items():
        print(f"{name} ({row['pairs']} seeds): vine − spacy UAS {row['dep_uas']:+.2f}, LAS {row['dep_las']:+.2f}")
    write_json(result, args.out)


if __name__ == "__main__":
    main()
