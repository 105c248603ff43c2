"""`python -m vineparse train | evaluate | parse`: the cascade parser from the command line.

Treebank arguments are files or folders (see `vineparse.cli.resolve_treebank`) or one of the named
splits: ewt-train, ewt-dev, ewt-test, ptb-train (wsj_0001-0179), ptb-test (wsj_0180-0199).
"""
import argparse
import time
from typing import List

from ..cli import CLIError, command, read_treebank, resolve_treebank
from ..corpus import read_ptb_dependencies

NAMED = {
    "ewt-train": "ud-english-ewt/en_ewt-ud-train.conllu",
    "ewt-dev": "ud-english-ewt/en_ewt-ud-dev.conllu",
    "ewt-test": "ud-english-ewt/en_ewt-ud-test.conllu",
}


def load_sentences(spec: str, limit: int = 0) -> List:
    """The sentences of a treebank argument (a named split, a file or a folder), the first `limit` if > 0."""
    if spec in ("ptb-train", "ptb-test"):
        print(f"Reading the PTB sample, {spec[4:]} section ...", flush=True)
        sentences = list(read_ptb_dependencies(spec[4:]))
    else:
        sentences = read_treebank(NAMED.get(spec, spec)).sentences
    return sentences[:limit] if limit > 0 else sentences


def same_treebank(first: str, second: str) -> bool:
    """Whether two treebank arguments name the same files."""
    if {first, second} <= {"ptb-train", "ptb-test"}:
        return first == second
    if "ptb-train" in (first, second) or "ptb-test" in (first, second):
        return False
    return ([p.resolve() for p in resolve_treebank(NAMED.get(first, first))]
            == [p.resolve() for p in resolve_treebank(NAMED.get(second, second))])


def hold_out(sentences: List, every: int = 10) -> tuple:
    """(the sentences but every `every`-th, every `every`-th sentence): a held-out share spread over the file."""
    return ([s for i, s in enumerate(sentences) if i % every != every - 1],
            [s for i, s in enumerate(sentences) if i % every == every - 1])


def _orders(text: str):
    try:
        return tuple("local" if part == "local" else int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"orders are comma-separated levels (0 = vine, local, 1, 2, 3): {text!r}")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def _train_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--train", default="ewt-train", help="training treebank (default: ewt-train)")
    parser.add_argument("--dev", default=None,
                        help="treebank for choosing the thresholds (default: ewt-dev for ewt-train, else every "
                             "tenth training sentence, held out); never the training file")
    parser.add_argument("--out", required=True, help="where to save the model (msgpack)")
    parser.add_argument("--orders", type=_orders, default=(0, 1, 2, 3),
                        help="the cascade's levels, e.g. 0,1,2,3 (default), 3 (NoPrune), 1,3 (FirstOnly)")
    parser.add_argument("--band", type=int, default=None,
                        help="the vine's longest short arc (default: CascadeParser's, 5)")
    parser.add_argument("--bits", type=int, default=20, help="log2 feature weights per level (default: 20)")
    parser.add_argument("--epochs", type=int, default=5, help="training passes per level (default: 5)")
    parser.add_argument("--recall", type=float, default=0.995,
                        help="gold-arc recall each pruning level keeps on dev (default: 0.995)")
    parser.add_argument("--vine-recall", type=float, default=None,
                        help="the vine's gold-arc recall on dev (default: --recall)")
    parser.add_argument("--first-order-recall", type=float, default=None,
                        help="the first-order level's gold-arc recall on dev (default: --recall)")
    parser.add_argument("--jackknife", type=int, default=5,
                        help="folds: each level trains on masks of pruning levels trained without the sentence "
                             "(default: 5; 0 = the cascade's own masks, about 4 times faster to train)")
    parser.add_argument("--final", choices=("mira", "perceptron"), default="mira",
                        help="the last level's update: 1-best MIRA with the Hamming loss (default) or averaged perceptron")
    parser.add_argument("--tag", choices=("xpos", "upos"), default="xpos", help="tag column (default: xpos)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N training sentences")
    parser.add_argument("--seed", type=int, default=0)


@command("train", "Train a vine pruning cascade on CoNLL-U (or PTB .dp) trees.", _train_arguments)
def train_command(args: argparse.Namespace) -> int:
    from .parser import DEFAULT_BAND, CascadeParser
    from .training import Example, TrainingSettings, train

    for name, value in (("--recall", args.recall), ("--vine-recall", args.vine_recall),
                        ("--first-order-recall", args.first_order_recall)):
        if value is not None and not 0.0 < value <= 1.0:
            raise CLIError(f"{name} must be in (0, 1], got {value}")
    try:
        settings = TrainingSettings(args.epochs, args.recall, vine_recall=args.vine_recall,
                                    first_order_recall=args.first_order_recall, jackknife=args.jackknife,
                                    seed=args.seed, final=args.final)
    except ValueError as err:
        raise CLIError(f"--{str(err)}") from err
    try:
        band = DEFAULT_BAND if args.band is None else args.band
        parser = CascadeParser(orders=args.orders, band=band, bits=args.bits, tag=args.tag)
    except ValueError as err:
        raise CLIError(str(err)) from err
    train_sentences = load_sentences(args.train, args.limit)
    dev_spec = args.dev if args.dev is not None else ("ewt-dev" if args.train == "ewt-train" else None)
    if dev_spec is not None and same_treebank(args.train, dev_spec):
        raise CLIError(f"--dev {dev_spec} is the training treebank: thresholds chosen on the sentences a model was "
                       "trained on prune too eagerly on new text; give a held-out file, or leave --dev out to hold "
                       "out every tenth training sentence")
    if dev_spec is None:
        train_sentences, dev_sentences = hold_out(train_sentences)
        print(f"No --dev: holding out every tenth training sentence ({len(dev_sentences):,}) to choose the "
              "thresholds", flush=True)
    else:
        dev_sentences = load_sentences(dev_spec)
    if not train_sentences or not dev_sentences:
        raise CLIError(f"{len(train_sentences)} training and {len(dev_sentences)} held-out sentences: need both")
    train_set = [Example.from_sentence(s, args.tag) for s in train_sentences]
    dev_set = [Example.from_sentence(s, args.tag) for s in dev_sentences]
    print(f"Training levels {', '.join(level.name for level in parser.levels)} on {len(train_set):,} sentences",
          flush=True)
    start = time.perf_counter()
    summary = train(parser, train_set, dev_set, settings)
    parser.save(args.out)
    print(f"Trained in {time.perf_counter() - start:.0f}s; saved to {args.out}")
    for row in summary:
        if "alpha" in row:
            print(f"  {row['level']:>6}: a = {row['alpha']:+.2f}, dev gold recall {row['dev_recall']:.2%}, "
                  f"arcs kept {row['dev_kept_share']:.1%}")
    return 0


def _model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="a model saved by `train`")


def _load(path: str):
    from .parser import CascadeParser

    try:
        return CascadeParser.load(path)
    except ValueError as err:           # ModelFileError: the message names the file
        raise CLIError(str(err)) from err


def _evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    _model_arguments(parser)
    parser.add_argument("--treebank", default="ewt-test", help="gold treebank (default: ewt-test)")
    parser.add_argument("--json", default=None, help="also write the scores to this file")


@command("evaluate", "Parse a gold treebank with a cascade and report UAS, LAS, speed and pruning.",
         _evaluate_arguments)
def evaluate_command(args: argparse.Namespace) -> int:
    from .evaluation import evaluate, format_evaluation

    parser = _load(args.model)
    sentences = load_sentences(args.treebank)
    result = evaluate(parser, sentences, report=lambda m: print(m, flush=True))
    print(format_evaluation(result))
    if args.json:
        import srsly

        srsly.write_json(args.json, result)
    return 0


def _parse_arguments(parser: argparse.ArgumentParser) -> None:
    _model_arguments(parser)
    parser.add_argument("input", help="CoNLL-U to parse (HEAD may be _); '-' for standard input")
    parser.add_argument("--out", default="-", help="CoNLL-U output (default: standard output); written only "
                                                   "when the whole input parsed")
    parser.add_argument("--threads", type=_positive, default=1, help="threads parsing each batch (default: 1)")
    parser.add_argument("--batch-size", type=_positive, default=512,
                        help="sentences read and parsed at a time (default: 512)")


def _chunks(items, size: int):
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@command("parse", "Parse CoNLL-U with a cascade; write CoNLL-U with predicted heads and labels (the input's "
                  "enhanced graph, DEPS and empty nodes, is cleared: it no longer matches).", _parse_arguments)
def parse_command(args: argparse.Namespace) -> int:
    """Stream the input: --batch-size sentences in memory at a time (parsed in one call of the compiled
    cascade, on --threads threads), so memory stays flat on any input size. An --out file is written beside
    its target and renamed at the end, so an input error leaves no partial output."""
    import os
    import sys
    from pathlib import Path

    from ..corpus import format_sentence, iter_conllu

    parser = _load(args.model)
    if parser.labeler is None:
        raise CLIError(f"{args.model}: this cascade has no labeller (trained without labels); retrain it")
    if args.input == "-":
        sentences = iter_conllu(sys.stdin.buffer, source="<stdin>", require_heads=False)
    else:
        if not Path(args.input).is_file():
            raise CLIError(f"input file not found: {args.input}")
        sentences = iter_conllu(args.input, require_heads=False)
    partial = None if args.out == "-" else Path(args.out).with_name(Path(args.out).name + ".partial")
    start = time.perf_counter()
    count = words = 0
    out = sys.stdout if partial is None else open(partial, "w", encoding="utf-8", newline="\n")
    try:
        for chunk in _chunks(sentences, args.batch_size):
            trees = parser.parse_labelled_batch([(s.words, list(getattr(s, parser.tag)), list(s.upos)) for s in chunk],
                                                n_threads=args.threads)
            for sentence, (heads, labels) in zip(chunk, trees):
                sentence.set_tree(heads, labels)
                out.write(format_sentence(sentence))
                count += 1
                words += sentence.n
    except BaseException:
        if partial is not None:
            out.close()
            partial.unlink()
        raise
    if partial is not None:
        out.close()
        os.replace(partial, args.out)
    print(f"Parsed {count:,} sentences ({words:,} words) in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return 0
