"""Dev scores of vine_cascade model variants trained by `spacy train` (the ablations behind configs/ewt.cfg).

Reads RUNS/VARIANT-sSEED/model-last/meta.json (the dev scores `spacy train` wrote at its last step) and the
vine_cascade model block of the run's config.cfg; writes per variant the seeds' dev UAS / LAS, their mean,
and the settings that differ from the variant named by --base (and, with --note, what a variant changed
in the code). The runs are trainings of
configs/ewt.cfg (or configs/ewt_spacy_parser.cfg for a spaCy parser reference) with overrides, e.g.

    python -m spacy train configs/ewt.cfg --output bench/out/exp/part64-s0 --system.seed 0 \\
        --training.max_steps 2000 --training.eval_frequency 1000 --components.vine_cascade.model.part_width 64 ...
    python bench/dev_ablation.py --runs bench/out/exp --base base --out bench/results/dev_ablation.json
"""
import argparse
import configparser
import json
import re
import statistics
from pathlib import Path

RUN_NAME = re.compile(r"^(.+)-s(\d+)$")


def model_settings(run: Path) -> dict:
    config = configparser.ConfigParser(interpolation=None)
    config.read(run / "model-last" / "config.cfg")
    out = {}
    for section in ("components.vine_cascade", "components.vine_cascade.model"):
        if config.has_section(section):
            out.update({f"{section.split('.')[-1]}.{k}": v for k, v in config[section].items()})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--base", required=True, help="the variant the others are compared with")
    parser.add_argument("--note", action="append", default=[], metavar="VARIANT=TEXT",
                        help="what a variant changed outside its config (code), recorded with it")
    parser.add_argument("--out", default="bench/results/dev_ablation.json")
    args = parser.parse_args()
    variants = {}
    for run in sorted(Path(args.runs).iterdir()):
        match = RUN_NAME.match(run.name)
        meta = run / "model-last" / "meta.json"
        if not (run.is_dir() and match and meta.exists()):
            continue
        performance = json.loads(meta.read_text())["performance"]
        entry = variants.setdefault(match.group(1), {"seeds": {}, "settings": model_settings(run)})
        entry["seeds"][int(match.group(2))] = {"dep_uas": round(100 * performance["dep_uas"], 2),
                                               "dep_las": round(100 * performance["dep_las"], 2)}
    if args.base not in variants:
        raise SystemExit(f"no runs of the base variant {args.base!r} under {args.runs}")
    for note in args.note:
        name, _, text = note.partition("=")
        if name not in variants:
            raise SystemExit(f"--note names {name!r}, which has no runs under {args.runs}")
        variants[name]["note"] = text
    base = variants[args.base]["settings"]
    for entry in variants.values():
        seeds = entry["seeds"].values()
        entry["mean"] = {key: round(statistics.mean(s[key] for s in seeds), 2) for key in ("dep_uas", "dep_las")}
        entry["differs_from_base"] = {k: v for k, v in entry["settings"].items() if base.get(k) != v}
        del entry["settings"]
    Path(args.out).write_text(json.dumps({"runs": args.runs, "base": args.base, "variants": variants}, indent=1))
    print(json.dumps({name: e["mean"] for name, e in variants.items()}, indent=1))


if __name__ == "__main__":
    main()
