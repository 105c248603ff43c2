"""The non-projective reparse of vine_cascade (`reparse_bonus`) on a treebank, bonus by bonus.

    python bench/reparse.py --treebank de_gsd --run mst=bench/out/multilingual/de_gsd-vine-mst-s0 \
        [--run flat=...] [--bonuses none,0,0.25,0.5,0.75,0.9] [--out bench/results/reparse.json]

Each run's model-best (trained with pseudo_projective false) is parsed with each bonus ("none": the cascade's
projective tree) on the treebank's dev file (for the small-data treebanks the held-out tenth, bench/ud_data.py)
and test file, gold tokens and sentences: UAS, LAS, non-projective arc precision and recall, words/s of the
parse pass. The bonus of each run is chosen on dev (best LAS, then UAS); its test row is the run's result.
The output holds one entry per treebank (an existing file keeps the other treebanks').
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multilingual import evaluate, log, split_record  # noqa: E402
from runinfo import run_info  # noqa: E402


def bonus_value(text):
    return None if text == "none" else float(text)


def chosen(rows):
    """The row of the best dev LAS (to two decimals), then dev UAS; of equals, the first (the projective tree
    comes first in the default --bonuses)."""
    return max(rows, key=lambda r: (round(r["dev"]["las"], 2), round(r["dev"]["uas"], 2)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", required=True)
    parser.add_argument("--run", action="append", required=True, help="NAME=FOLDER (with model-best)")
    parser.add_argument("--bonuses", default="none,0,0.25,0.5,0.75,0.9")
    parser.add_argument("--out", default="bench/results/reparse.json")
    args = parser.parse_args(argv)
    import spacy

    data = Path("corpora/ud") / args.treebank
    record = split_record(args.treebank)
    bonuses = [bonus_value(b) for b in args.bonuses.split(",")]
    out = Path(args.out)
    document = json.loads(out.read_text()) if out.exists() else {"treebanks": {}}
    result = {"run": run_info(), "lang": record["lang"], "small_data": record["small_data"],
              "sentences": record["sentences"], "runs": {}}
    document["treebanks"][args.treebank] = result
    if any("=" not in spec for spec in args.run):
        parser.error(f"--run takes NAME=FOLDER, got {[spec for spec in args.run if '=' not in spec]}")
    for spec in args.run:
        name, folder = spec.split("=", 1)
        nlp = spacy.load(Path(folder) / "model-best")
        parser_pipe = nlp.get_pipe("vine_cascade")
        trained = parser_pipe.settings.reparse_bonus
        rows = []
        for bonus in bonuses:
            parser_pipe.configure(reparse_bonus=bonus)
            row = {"bonus": bonus}
            for split in ("dev", "test"):
                log(f"{name}: bonus {bonus}, {split}")
                row[split] = evaluate(nlp, data / f"{split}.spacy")
            rows.append(row)
        parser_pipe.configure(reparse_bonus=trained)
        best = chosen(rows)
        result["runs"][name] = {"folder": folder, "arc_loss": parser_pipe.settings.arc_loss,
                                "trained_bonus": trained, "rows": rows, "chosen_bonus": best["bonus"],
                                "test": best["test"]}
        out.write_text(json.dumps(document, indent=1))
    for name, run in result["runs"].items():
        for row in run["rows"]:
            t = row["test"]
            log(f"{name:8s} bonus {str(row['bonus']):5s} dev {row['dev']['uas']:.2f}/{row['dev']['las']:.2f} "
                f"test {t['uas']:.2f}/{t['las']:.2f} non-proj recall {t['nonprojective_arcs']['recall']} "
                f"precision {t['nonprojective_arcs']['precision']} {t['words_per_second']:.0f} w/s")


if __name__ == "__main__":
    main()
