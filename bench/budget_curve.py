"""Dev scores against training steps, read from `spacy train` logs: which budget is converged.

    python bench/budget_curve.py --run spacy=LOG [--run vine=LOG ...] [--budgets 2000,4000,8000,16000]
                                 [--out bench/results/budget_curve.json]

spaCy's trainer prints a row per evaluation (epoch, step, losses, the dev scores, the score); this reads the
dev UAS and LAS of each row of each log. The learning rate is constant in these configs, so one long run gives
what shorter runs of the same seed would: at each budget B, the best dev UAS over the evaluations up to B
(what early stopping on dev keeps, as `model-best` does), and the gain of doubling B. The converged budget is
the smallest B on the list whose doubling gains less than 0.2 dev UAS (issue 37's rule). Each run's best dev
UAS over all its evaluations (also of runs that stopped early) is recorded too.
"""
import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info  # noqa: E402

ROW = re.compile(r"^\s*\d+\s+(\d+)\s+(.*)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
THRESHOLD = 0.2


def read_log(path, columns=("DEP_UAS", "DEP_LAS")):
    """[(step, {column: value})] of a `spacy train` console log, for the score `columns` it has."""
    header, rows = None, []
    for line in ANSI.sub("", Path(path).read_text(encoding="utf-8", errors="replace")).splitlines():
        if line.lstrip().startswith("E ") and "#" in line:
            header = []
            for word in line.split():            # "LOSS TOK2VEC" is one column
                if header and header[-1] == "LOSS":
                    header[-1] = f"LOSS {word}"
                else:
                    header.append(word)
            continue
        match = ROW.match(line)
        if header and match:
            values = line.split()
            if len(values) == len(header):
                row = dict(zip(header, values))
                rows.append((int(row["#"]), {k: float(row[k]) for k in columns if k in row}))
    if not rows:
        raise SystemExit(f"{path}: no evaluation rows found")
    return rows


def curve(rows, budgets):
    """Per budget: the best dev UAS (and its LAS) over the evaluations up to it, and the gain of doubling."""
    out = []
    for budget in budgets:
        seen = [(scores["DEP_UAS"], scores.get("DEP_LAS"), step) for step, scores in rows if step <= budget]
        if not seen or max(step for step, _ in rows) < budget:
            out.append({"budget": budget, "best_dev_uas": None})
            continue
        uas, las, step = max(seen)
        out.append({"budget": budget, "best_dev_uas": uas, "dev_las_there": las, "at_step": step})
    for row, following in zip(out, out[1:]):
        if row["best_dev_uas"] is not None and following["best_dev_uas"] is not None \
                and following["budget"] == 2 * row["budget"]:
            row["gain_of_doubling"] = following["best_dev_uas"] - row["best_dev_uas"]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="NAME=LOG of a spacy train run")
    parser.add_argument("--budgets", default="2000,4000,8000,16000")
    parser.add_argument("--out", default="bench/out/budget_curve.json")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    result = {"run": run_info(), "threshold": THRESHOLD, "runs": {}}
    for spec in args.run:
        name, _, log = spec.partition("=")
        rows = read_log(log)
        points = curve(rows, budgets)
        converged = next((p["budget"] for p in points if p.get("gain_of_doubling") is not None
                          and p["gain_of_doubling"] < THRESHOLD), None)
        uas, step = max((scores["DEP_UAS"], step) for step, scores in rows)
        result["runs"][name] = {"log": log, "evaluations": [{"step": s, **v} for s, v in rows],
                                "budgets": points, "converged_budget": converged,
                                "best": {"dev_uas": uas, "step": step}}
        print(f"{name}: " + ", ".join(f"{p['budget']}: {p['best_dev_uas']}" for p in points)
              + f"; converged at {converged}; best dev UAS {uas} at step {step}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
