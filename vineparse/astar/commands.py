"""``python -m vineparse astar train | evaluate | parse``: the A* parser from the command line.

    python -m vineparse astar train --model factored --out astar-factored.msgpack
    python -m vineparse astar evaluate astar-factored.msgpack --json eval.json
    echo "The/DT dog/NN barks/VBZ ./." | python -m vineparse astar parse astar-factored.msgpack

Trees come from the PTB sample by section (``--section train|test|all``) or from ``--treebank`` files or
folders of ``.mrg`` trees. Bad input (missing files, an untrained or foreign model file, malformed tagged
input) is reported as one ``error:`` line with exit status 2.
"""
import argparse
import sys
import time
from pathlib import Path
from typing import List

from ..cli import CLIError, command

MODELS = ("factored", "nonfactored")


def _add_trees(parser: argparse.ArgumentParser, default_section: str) -> None:
    parser.add_argument("--section", choices=("train", "test", "all"), default=default_section,
                        help=f"PTB sample section (default: {default_section}; wsj_0001-0179 train, 0180-0199 test)")
    parser.add_argument("--treebank", nargs="+", metavar="PATH", default=None,
                        help=".mrg files or folders of them, instead of the PTB sample")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="use only the first N trees")


def _read_trees(args: argparse.Namespace) -> list:
    from ..corpus import read_mrg, read_ptb_sample

    start = time.perf_counter()
    if args.treebank:
        files: List[Path] = []
        for spec in args.treebank:
            path = Path(spec)
            if path.is_dir():
                files.extend(sorted(path.glob("*.mrg")))
            elif path.exists():
                files.append(path)
            else:
                raise CLIError(f"treebank not found: {spec}")
        if not files:
            raise CLIError(f"no .mrg files in {', '.join(args.treebank)}")
        trees = [tree for path in files for tree in read_mrg(path)]
        where = f"{len(files)} file(s)"
    else:
        trees = read_ptb_sample(args.section)
        where = f"the PTB sample ({args.section})"
    if args.limit is not None:
        if args.limit < 1:
            raise CLIError(f"--limit must be positive, got {args.limit}")
        trees = trees[: args.limit]
    if not trees:
        raise CLIError("no trees to read")
    print(f"Read {len(trees):,} trees from {where} in {time.perf_counter() - start:.1f}s", flush=True)
    return trees


def _load(path: str):
    from .model import ModelError
    from .parser import AStarParser

    if not Path(path).is_file():
        raise CLIError(f"model file not found: {path}")
    try:
        return AStarParser.load(path)
    except ModelError as error:
        raise CLIError(str(error)) from None


def _arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="astar_command", metavar="<step>", required=True)
    train = sub.add_parser("train", help="train a lexicalized model (and its approximate projection)")
    train.add_argument("--model", choices=MODELS, default="factored", help="model kind (default: factored)")
    train.add_argument("--out", required=True, metavar="PATH", help="where to write the model (msgpack)")
    train.add_argument("--horizontal", type=int, default=1, help="horizontal Markovization order (default: 1)")
    train.add_argument("--min-count", type=int, default=2, help="rarer words become signatures (default: 2)")
    approx = train.add_mutually_exclusive_group()
    approx.add_argument("--approximate", dest="approximate", action="store_true", default=None,
                        help="learn the approximate projection (default for the non-factored model)")
    approx.add_argument("--no-approximate", dest="approximate", action="store_false")
    train.add_argument("--C", type=float, default=10.0, help="LP overestimate penalty (default: 10)")
    train.add_argument("--lp-sentences", type=int, default=None, metavar="N",
                       help="fit the projection on the first N training trees (default: all)")
    _add_trees(train, "train")

    evaluate = sub.add_parser("evaluate", help="search effort, search errors and accuracy per heuristic")
    evaluate.add_argument("model_file", help="a model written by `astar train`")
    evaluate.add_argument("--heuristics", nargs="+", default=None, help="which heuristics (default: all available)")
    evaluate.add_argument("--max-length", type=int, default=40, help="bracket F1 length cut-off (default: 40)")
    evaluate.add_argument("--exhaustive-max-length", type=int, default=15,
                          help="exhaustive CKY optimum up to this length (default: 15; 0 disables)")
    evaluate.add_argument("--null-max-length", type=int, default=None, metavar="N",
                          help="run the null heuristic only on sentences of at most N words")
    evaluate.add_argument("--json", default=None, metavar="PATH", help="also write the report as JSON")
    _add_trees(evaluate, "test")

    parse = sub.add_parser("parse", help="parse tagged sentences (word/TAG tokens, one sentence per line)")
    parse.add_argument("model_file", help="a model written by `astar train`")
    parse.add_argument("input", nargs="?", default="-", help="input file, '-' for stdin (default)")
    parse.add_argument("--heuristic", default=None, help="default: factored, else split")
    parse.add_argument("--stats", action="store_true", help="print search statistics after each tree")
    parse.add_argument("--no-backoff", dest="backoff", action="store_false",
                       help="report sentences the treebank grammar cannot parse (unknown tags, no derivation) "
                            "as errors instead of parsing them with the back-off grammar")


@command("astar", "Lexicalized A* parsing: train, evaluate and parse.", _arguments)
def astar_command(args: argparse.Namespace) -> int:
    """Dispatch to the step."""
    return {"train": _train, "evaluate": _evaluate, "parse": _parse}[args.astar_command](args)


def _train(args: argparse.Namespace) -> int:
    from .parser import AStarParser

    trees = _read_trees(args)
    try:
        parser = AStarParser(horizontal=args.horizontal, min_count=args.min_count)
        parser.train(trees, model=args.model, approximate=args.approximate, C=args.C,
                     lp_sentences=args.lp_sentences, progress=lambda line: print(line, flush=True))
    except ValueError as error:
        raise CLIError(str(error)) from None
    parser.save(args.out)
    print(f"Wrote {args.model} model to {args.out} (heuristics: {', '.join(parser.heuristics)})")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    import srsly

    from .evaluation import evaluate

    parser = _load(args.model_file)
    trees = _read_trees(args)
    limits = {} if args.null_max_length is None else {"null": args.null_max_length}
    try:
        result = evaluate(parser, trees, args.heuristics, exhaustive_max_length=args.exhaustive_max_length,
                          max_length=args.max_length, heuristic_max_length=limits,
                          progress=lambda line: print(line, flush=True))
    except ValueError as error:
        raise CLIError(str(error)) from None
    report = result.to_dict()
    print(f"\n{parser.model.kind} model; optimum from exhaustive CKY on {result.exhaustive_sentences} sentences "
          f"(<= {args.exhaustive_max_length} words), from the {result.reference} heuristic otherwise; "
          f"{result.reference_mismatches} mismatches")
    print(format_table(report["heuristics"]))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.json, {**report, "records": result.records_json()})
        print(f"Wrote {args.json}")
    return 0


def format_table(heuristics: dict) -> str:
    """A markdown table of per-heuristic summaries (``HeuristicReport.to_dict`` values)."""
    lines = ["| heuristic | sentences | popped | pushed | ms / sentence | search errors (largest) | "
             "violating configs | F1 <= 40 | dep. acc. | failures | back-off |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, h in heuristics.items():
        ms = "" if h["seconds_per_sentence"] is None else f"{1e3 * h['seconds_per_sentence']:.1f}"
        failures = ", ".join(f"{k}: {v}" for k, v in h["failures"].items()) or "0"
        backoff = ", ".join(f"{k}: {v}" for k, v in h.get("backoff", {}).items()) or "0"
        lines.append(f"| {name} | {h['parsed']} | {h['popped']:,} | {h['pushed']:,} | {ms} | "
                     f"{h['search_errors']} ({100 * h['largest_search_error']:.3f}%) | "
                     f"{100 * h['violation_share']:.3f}% | {h['bracket_f1']:.2f} | {h['dependency_accuracy']:.2f} | "
                     f"{failures} | {backoff} |")
    return "\n".join(lines)


def _parse(args: argparse.Namespace) -> int:
    from .parser import ParseError

    parser = _load(args.model_file)
    if args.heuristic is not None and args.heuristic not in parser.heuristics:
        raise CLIError(f"heuristic {args.heuristic!r} is not available for this model "
                       f"(available: {', '.join(parser.heuristics)})")
    stream = sys.stdin if args.input == "-" else _open(args.input)
    failures = backed_off = 0
    with stream:
        for number, line in enumerate(stream, 1):
            tokens = line.split()
            if not tokens:
                continue
            words, tags = [], []
            for token in tokens:
                word, slash, tag = token.rpartition("/")
                if not slash or not word or not tag:
                    raise CLIError(f"line {number}: token {token!r} is not word/TAG")
                words.append(word)
                tags.append(tag)
            try:
                result = parser.parse(words, tags, heuristic=args.heuristic, backoff=args.backoff)
            except ParseError as error:
                failures += 1
                print(f"# line {number}: no parse ({error})", flush=True)
                continue
            except ValueError as error:
                raise CLIError(f"line {number}: {error}") from None
            print(result.tree, flush=True)
            backed_off += result.backoff is not None
            if args.stats:
                s = result.stats
                print(f"# cost {result.cost:.4f}, {s.heuristic}: popped {s.popped:,}, pushed {s.pushed:,}, "
                      f"{1e3 * s.seconds:.1f} ms" + (f", back-off ({s.backoff})" if s.backoff else ""), flush=True)
    if backed_off:
        print(f"# {backed_off} sentence(s) parsed with the back-off grammar", file=sys.stderr)
    if failures:
        print(f"# {failures} sentence(s) without a parse", file=sys.stderr)
    return 0


def _open(path: str):
    if not Path(path).is_file():
        raise CLIError(f"input file not found: {path}")
    return open(path, encoding="utf-8")
