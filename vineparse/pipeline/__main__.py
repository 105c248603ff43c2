"""`python -m vineparse.pipeline calibrate PIPELINE DEV.spacy --output OUT [--recall R[,R...]] [--max-heads K]
[--orders O,O...]` and `python -m vineparse.pipeline upgrade PIPELINE`.

Sets the pruning thresholds a of a trained pipeline's vine_cascade on held-out data, for a gold-arc recall per
level (`VineCascadeParser.calibrate`), prints the kept share and recall of each level and saves the pipeline.
With --orders the cascade first keeps only those of its levels (`VineCascadeParser.set_orders`, e.g. 1,3).
Docs keep their gold tokens (as `gold_preproc = true` in training and `spacy evaluate --gold-preproc`).

`upgrade` rewrites a saved pipeline's config.cfg without the settings vineparse retired, where each has the
value whose behaviour was kept (`serialization.upgrade_config`), so that spaCy loads it again.
"""
import argparse
import sys
import time

from .thresholds import recall_argument


def orders_argument(text: str) -> list:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"orders are comma-separated integers, got {text!r}") from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vineparse.pipeline")
    commands = parser.add_subparsers(dest="command", required=True)
    calibrate = commands.add_parser("calibrate", help="set the vine_cascade pruning thresholds on dev data")
    calibrate.add_argument("pipeline", help="a saved spaCy pipeline with a vine_cascade component")
    calibrate.add_argument("data", help="held-out .spacy file (gold heads)")
    calibrate.add_argument("--output", required=True, help="where to save the calibrated pipeline")
    calibrate.add_argument("--recall", type=recall_argument, default=None,
                           help="gold-arc recall each pruning level keeps of the gold arcs that reach it: one "
                                "number, or one per level separated by commas (default: the component's "
                                "`recall` setting)")
    calibrate.add_argument("--max-heads", type=int, default=None,
                           help="heads per word each Eisner-order pruning level keeps at most, set before "
                                "calibrating (default: the component's `max_heads` setting)")
    calibrate.add_argument("--orders", type=orders_argument, default=None,
                           help="keep only these cascade levels before calibrating, comma-separated, a "
                                "subsequence of the trained ones with the same last level (e.g. 0,1,3)")
    calibrate.add_argument("--component", default="vine_cascade")
    upgrade = commands.add_parser("upgrade", help="take the settings vineparse retired out of a saved pipeline")
    upgrade.add_argument("pipeline", help="a saved spaCy pipeline with a vine_cascade component")
    args = parser.parse_args(argv)
    if args.command == "upgrade":
        return upgrade_pipeline(args.pipeline)

    import spacy

    from .calibration import held_out_examples, refuse_training_corpus

    try:
        nlp = spacy.load(args.pipeline)
        component = nlp.get_pipe(args.component)
        refuse_training_corpus(nlp, args.data)
        examples = held_out_examples(nlp, args.data)
    except (OSError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        if args.max_heads is not None:
            component.set_max_heads(args.max_heads)
        if args.orders is not None:
            component.set_orders(args.orders)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    print(f"calibrating on {len(examples):,} docs ...", file=sys.stderr, flush=True)
    try:
        rows = component.calibrate(nlp, examples, args.recall)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for row in rows:
        ceiling = row.get("recall_ceiling")
        ceiling = "" if ceiling is None else f" (ceiling {ceiling:.2%} at this head cap)"
        print(f"{row['level']:>7}: a = {row['alpha']:+.2f}  kept {row['kept_share']:.1%} of arcs, "
              f"gold-arc recall {row['gold_recall']:.2%}{ceiling}")
    split = component.split_calibration
    if split is not None:
        row = next(r for r in split["rows"] if r["value"] == split["value"])
        print(f"  split: {split['setting']} {split['value']:g}  sentence-boundary F1 {row['f1']:.2%} "
              f"on {split['docs']:,} docs "
              f"without boundaries ({split['gold_boundaries']:,} gold boundaries, {row['predicted']:,} predicted)")
    skipped = component.skipped["sentences"]
    if skipped:
        print(f"{skipped:,} sentences without one-to-one gold heads were left out", file=sys.stderr)
    nlp.to_disk(args.output)
    print(f"saved to {args.output} ({time.perf_counter() - start:.0f}s)", file=sys.stderr)
    return 0


def upgrade_pipeline(path: str) -> int:
    from pathlib import Path

    from thinc.api import Config

    from .serialization import upgrade_config

    config_path = Path(path) / "config.cfg"
    try:
        upgraded = upgrade_config(Config().from_disk(config_path, interpolate=False))
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    upgraded.to_disk(config_path)
    print(f"upgraded {config_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
