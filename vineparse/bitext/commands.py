"""`python -m vineparse bitext ...`: feature expectations and training on a parallel corpus (default: UD PUD en-zh).

    python -m vineparse bitext expectations --method randomized --samples 10 --max-product 1000
    python -m vineparse bitext fit --max-product 130 --iterations 5 --out bitext.msgpack
"""
import argparse
import time
from collections import Counter

from ..cli import CLIError, command


def _input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--src", default="ud-pud/en_pud-ud-test.conllu", metavar="PATH",
                        help="source CoNLL-U file or a path inside the corpus folder (default: PUD English)")
    parser.add_argument("--tgt", default="ud-pud/zh_pud-ud-test.conllu", metavar="PATH",
                        help="target CoNLL-U file, paired with --src by sent_id (default: PUD Chinese)")
    parser.add_argument("--max-product", type=int, default=None, metavar="N",
                        help="only pairs with p x q <= N")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N pairs")
    parser.add_argument("--model", default=None, metavar="PATH",
                        help="a saved bitext model (default: Model 1 and the HMM aligner trained on the pairs "
                             "read, default weights)")
    parser.add_argument("--grammar", choices=("binary", "ternary"), default=None,
                        help="grammar (default: the model's, binary for a new model)")
    parser.add_argument("--method", choices=("exact", "tictactoe", "randomized"), default="randomized",
                        help="how expectations are computed (default: randomized)")
    parser.add_argument("--samples", type=int, default=10, help="masks per pair for randomized pruning")
    parser.add_argument("--beam", type=float, default=10.0, help="tic-tac-toe beam in nats")
    parser.add_argument("--screen", type=float, default=None, metavar="TAU",
                        help="randomized pruning: select only the M' links whose doubt (1 - posterior, from three "
                             "pilot charts) is at most TAU (lower bias per sample, slower samples; default: all)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (>= 0)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes (sentence-level)")


def _expectations_arguments(parser: argparse.ArgumentParser) -> None:
    _input_arguments(parser)
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="write per-pair diagnostics and the summed expectations to this file")
    parser.add_argument("--top", type=int, default=10, help="print the N largest expected features")


def _fit_arguments(parser: argparse.ArgumentParser) -> None:
    _input_arguments(parser)
    parser.set_defaults(method="exact")
    parser.add_argument("--iterations", type=int, default=5, help="EM iterations")
    parser.add_argument("--learning-rate", type=float, default=0.1, help="initial step size")
    parser.add_argument("--l2", type=float, default=0.01, help="L2 penalty")
    parser.add_argument("--out", required=True, metavar="PATH", help="where to save the trained model (msgpack)")


def _bitext_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="<action>", required=True)
    _expectations_arguments(sub.add_parser("expectations", help="expected feature counts of every pair",
                                           description="Expected feature counts of every pair."))
    _fit_arguments(sub.add_parser("fit", help="train the grammar weights EM-style",
                                  description="Train the grammar weights EM-style and save the model."))


def _read(args: argparse.Namespace):
    """The pairs and the model the arguments name, with one progress line each."""
    from ..cli import resolve_treebank
    from .data import read_parallel_conllu
    from .model import BitextConfig, BitextModel

    for name in ("max_product", "limit", "samples", "processes"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise CLIError(f"--{name.replace('_', '-')} must be >= 1, got {value}")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    if args.screen is not None and not 0.0 <= args.screen <= 1.0:
        raise CLIError(f"--screen must be in [0, 1], got {args.screen}")
    src, tgt = resolve_treebank(args.src)[0], resolve_treebank(args.tgt)[0]
    print(f"Reading {src.name} and {tgt.name} ...", end=" ", flush=True)
    start = time.perf_counter()
    pairs = read_parallel_conllu(src, tgt)
    total = len(pairs)
    if args.max_product is not None:
        pairs = [p for p in pairs if p.product <= args.max_product]
    if args.limit is not None:
        pairs = pairs[:args.limit]
    print(f"{total:,} pairs, {len(pairs):,} selected in {time.perf_counter() - start:.1f}s")
    if not pairs:
        raise CLIError("no sentence pairs selected")
    if args.model is not None:
        try:
            model = BitextModel.from_disk(args.model)
        except ValueError as err:
            raise CLIError(f"cannot load {args.model}: {err}") from err
    else:
        print("Training IBM Model 1 both ways and the HMM aligner ...", end=" ", flush=True)
        start = time.perf_counter()
        model = BitextModel.train([(p.src, p.tgt) for p in pairs], BitextConfig(grammar=args.grammar or "binary"))
        print(f"done in {time.perf_counter() - start:.1f}s")
    return pairs, model


@command("bitext", "Bitext feature expectations with randomized pruning (exact, tic-tac-toe, randomized).",
         _bitext_arguments)
def bitext_command(args: argparse.Namespace) -> int:
    if args.action == "fit":
        return _fit(args)
    return _expectations(args)


def _expectations(args: argparse.Namespace) -> int:
    import numpy as np
    import srsly

    from .api import corpus_expectations

    pairs, model = _read(args)
    try:
        out = corpus_expectations(pairs, args.method, args.samples, args.seed, model=model, grammar=args.grammar,
                                  beam=args.beam, screen=args.screen, processes=args.processes)
    except ValueError as err:
        raise CLIError(str(err)) from err
    done = [r for r in out.results if r is not None]
    print(f"{len(done):,} pairs in {out.seconds:.1f}s ({out.seconds / max(len(done), 1) * 1e3:.1f} ms a pair)")
    if out.skipped:
        reasons = Counter(reason.split(":")[0] for _, reason in out.skipped)
        print(f"Skipped {len(out.skipped)} pairs: " + "; ".join(f"{n} x {r}" for r, n in reasons.most_common()))
    if done:
        kept = np.mean([r.diagnostics["kept"] / r.diagnostics["bispans"] for r in done])
        print(f"Bispans kept: {kept:.1%} on average")
        order = np.argsort(-np.abs(out.totals))[:args.top]
        for i in order:
            print(f"  {out.names[i]:<24} {out.totals[i]:>14.4f}")
    if args.json is not None:
        records = [{"id": p.id, "p": len(p.src), "q": len(p.tgt),
                    **({} if r is None else {k: v for k, v in r.diagnostics.items() if k != "masks"})}
                   for p, r in zip(pairs, out.results)]
        srsly.write_json(args.json, {"method": args.method, "seconds": out.seconds, "pairs": records,
                                     "skipped": [list(s) for s in out.skipped],
                                     "totals": dict(zip(out.names, out.totals.tolist()))})
        print(f"Wrote {args.json}")
    return 0


def _fit(args: argparse.Namespace) -> int:
    from .training import fit

    pairs, model = _read(args)
    try:
        result = fit(pairs, model, args.iterations, args.method, args.samples, args.seed,
                     learning_rate=args.learning_rate, l2=args.l2, grammar=args.grammar, beam=args.beam,
                     screen=args.screen, processes=args.processes)
    except ValueError as err:
        raise CLIError(str(err)) from err
    result.model.to_disk(args.out)
    print(f"Wrote {args.out}")
    return 0
