"""Command-line interface: ``python -m vineparse <command> [options]``.

Every command is one function registered with the :func:`command` decorator, together with a function that
adds its options to its subparser; :func:`main` builds the parser from that registry and dispatches. Adding a
command is therefore two functions and nothing else:

    def _train_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("config", help="spaCy training config")

    @command("train", "Train a vine pruning cascade.", _train_arguments)
    def train_command(args: argparse.Namespace) -> int:
        ...
        return 0

Commands import what they need inside their function, so that ``--help`` and every other command stay fast.
Errors caused by bad input (a missing corpus, a malformed file, an unwritable output path: CLIError,
CorpusError and OSError) print one line ``error: ...`` on stderr and exit with status 2; with ``--debug``
they are re-raised with their traceback. Any other exception is a bug and keeps its traceback.
"""
import argparse
import importlib
import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

from .corpus import CorpusError, CorpusNotFoundError, corpus_path, read_conllu, read_dependency_file

PROG = "python -m vineparse"
DEFAULT_TREEBANK = "ud-english-ewt/en_ewt-ud-train.conllu"
TREEBANK_SUFFIXES = (".conllu", ".dp")


class CLIError(Exception):
    """Bad input detected by a command: reported as a one-line error with exit status 2."""


class Command(NamedTuple):
    """A registered subcommand: its name, one-line help, option builder and implementation."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


_COMMANDS: Dict[str, Command] = {}


def command(
    name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None]
) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Register the decorated function as the subcommand `name`.

    name (str): The subcommand, as typed after ``python -m vineparse``.
    help (str): One line for ``--help``; also the subcommand's description.
    add_arguments (Callable[[ArgumentParser], None]): Adds the subcommand's options to its parser.
    RETURNS (Callable): A decorator that registers a function `run(args) -> exit status` and returns it.
    """

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        if name in _COMMANDS:
            raise ValueError(f"Command {name!r} is registered twice")
        _COMMANDS[name] = Command(name, help, add_arguments, run)
        return run

    return register


# Subpackages that register their own commands (in a module `commands.py` using `command`).
COMMAND_PACKAGES = ("cascade", "astar", "bitext", "scale", "text")


def _load_command_modules() -> None:
    """Import `vineparse.<package>.commands` for every package of COMMAND_PACKAGES that has one."""
    for package in COMMAND_PACKAGES:
        name = f"{__package__}.{package}"
        if importlib.util.find_spec(name) and importlib.util.find_spec(f"{name}.commands"):
            importlib.import_module(f"{name}.commands")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every registered command.

    RETURNS (argparse.ArgumentParser): The parser; parsed arguments carry `run`, the command's function.
    """
    parser = argparse.ArgumentParser(
        prog=PROG, description="vineparse: vine pruning cascades, A* parsing and randomized pruning."
    )
    debug_help = "show the full traceback of errors instead of a one-line message"
    parser.add_argument("--debug", action="store_true", help=debug_help)
    # --debug is accepted after the command too; SUPPRESS keeps the subparser from resetting the flag.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=debug_help)
    subparsers = parser.add_subparsers(dest="command", metavar="<command>", required=True)
    _load_command_modules()
    for cmd in _COMMANDS.values():
        sub = subparsers.add_parser(cmd.name, help=cmd.help, description=cmd.help, parents=[common])
        cmd.add_arguments(sub)
        sub.set_defaults(run=cmd.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parse `argv` (default: sys.argv[1:]), run the command, and return its exit status.

    argv (Optional[Sequence[str]]): The arguments after the program name.
    RETURNS (int): 0 on success, 2 for bad usage or bad input, 130 when interrupted, 1 when the reader of
        stdout went away.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse exits on --help (0) and on usage errors (2)
        return 0 if stop.code is None else int(stop.code)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away, e.g. `python -m vineparse stats | head`
        _silence_stdout()
        return 1
    except (CLIError, CorpusError, OSError) as err:
        if args.debug:
            raise
        sys.stdout.flush()
        print(f"error: {error_message(err)}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not raise a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (e.g. captured in tests)
        pass


def error_message(err: BaseException) -> str:
    """One line describing `err`: an OSError as "reason: file", others by their text; whitespace collapsed."""
    if isinstance(err, OSError) and not isinstance(err, CorpusError) and err.strerror and err.filename:
        text = f"{err.strerror}: {err.filename}"
    else:
        text = str(err) or type(err).__name__
    return " ".join(text.split())


# Treebanks: shared by every command that reads one.


def resolve_treebank(spec: str) -> List[Path]:
    """The files a treebank argument names.

    `spec` is a file or directory path; if nothing exists there and the path is relative, it is looked up in
    the corpus folders (VINEPARSE_CORPORA, then ../shared/corpora, then corpora/), so that
    "ud-english-ewt/en_ewt-ud-dev.conllu" works from anywhere. A directory stands for its .conllu and .dp
    files, in name order.

    spec (str): A path, or a path relative to a corpus folder.
    RETURNS (List[Path]): The treebank files, at least one.
    """
    path = Path(spec).expanduser()
    if not path.exists():
        if path.is_absolute():
            raise CLIError(f"treebank not found: {spec}")
        try:
            path = corpus_path(*path.parts)
        except CorpusNotFoundError as err:
            raise CLIError(f"no treebank at {spec!r}: {err}") from err
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in TREEBANK_SUFFIXES and p.is_file())
        if not files:
            raise CLIError(f"no {' or '.join(TREEBANK_SUFFIXES)} files in {path}")
        return files
    return [path]


class Treebank(NamedTuple):
    """The files a treebank argument named, and their sentences in order."""

    files: List[Path]
    sentences: list


def read_treebank(spec: str, lenient: bool = False) -> Treebank:
    """Read every file of a treebank argument (see resolve_treebank), printing one progress line.

    .dp files are read with read_dependency_file, everything else as CoNLL-U.

    spec (str): A path, or a path relative to a corpus folder.
    lenient (bool): Skip malformed sentences (and say how many) instead of failing.
    RETURNS (Treebank): The files read and their sentences.
    """
    files = resolve_treebank(spec)
    shown = _display_path(files[0])
    if len(files) > 1:
        shown = f"{_display_path(files[0].parent)} ({len(files)} files)"
    print(f"Reading {shown} ...", end=" ", flush=True)
    start = time.perf_counter()
    sentences: list = []
    skipped = 0
    try:
        # Lenient reading warns about skipped sentences; the progress line reports them instead.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for path in files:
                if path.suffix == ".dp":
                    corpus = read_dependency_file(path, lenient=lenient)
                else:
                    corpus = read_conllu(path, lenient=lenient)
                sentences.extend(corpus)
                skipped += len(getattr(corpus, "skipped", ()) or ())
    except BaseException:
        print(flush=True)  # end the progress line before the error is reported
        raise
    words = sum(len(s.heads) - 1 for s in sentences)
    note = f" (skipped {skipped:,} malformed sentences)" if skipped else ""
    print(f"{len(sentences):,} sentences, {words:,} words in {time.perf_counter() - start:.1f}s{note}")
    return Treebank(files, sentences)


def _display_path(path: Path) -> str:
    """`path` relative to the working directory if inside it, else its last two parts after ".../"."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(Path("...", *path.parts[-2:])) if len(path.parts) > 2 else str(path)


# stats


def add_stats_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `stats`: --treebank, --tag, --json, --lenient (bench/treebank_stats.py has them too).

    parser (argparse.ArgumentParser): The parser to extend.
    """
    parser.add_argument(
        "--treebank",
        nargs="+",
        default=[DEFAULT_TREEBANK],
        metavar="PATH",
        help="treebank files or folders (.conllu, .dp), or paths inside the corpus folder "
        f"(default: {DEFAULT_TREEBANK})",
    )
    parser.add_argument(
        "--tag", choices=("upos", "xpos"), default="upos", help="tags for arc lengths (default: upos)"
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="also write every number to this file")
    parser.add_argument(
        "--lenient", action="store_true", help="skip malformed sentences instead of failing"
    )


def _stats_arguments(parser: argparse.ArgumentParser) -> None:
    add_stats_arguments(parser)
    parser.epilog = (
        "Plotting these statistics and benchmarking the kernels are left to bench/treebank_stats.py in the "
        "source tree (the same options, plus --plot and --no-bench)."
    )


class TreebankReport(NamedTuple):
    """The treebanks `stats` read, their sentences, the tag set used and vineparse.stats.treebank_stats' result."""

    files: List[Path]
    sentences: list
    tag: str
    stats: Dict[str, Any]

    def to_json(self) -> Dict[str, Any]:
        """What `stats --json` writes: "treebanks" (the paths), "tag", "lengths", "projectivity", "arc_length"."""
        return {"treebanks": [str(p) for p in self.files], "tag": self.tag, **self.stats}


def treebank_report(specs: Sequence[str], tag: str = "upos", lenient: bool = False) -> TreebankReport:
    """Read treebanks and print their statistics, as `stats` does (bench/treebank_stats.py starts with it too).

    When no word has a `tag` tag but some have one of the other kind, the other kind is used, and said so.

    specs (Sequence[str]): Treebank arguments, each read with read_treebank (one progress line each).
    tag (str): "upos" or "xpos", the tags of the arc-length table.
    lenient (bool): Skip malformed sentences instead of failing.
    RETURNS (TreebankReport): The files, sentences, tag set and statistics.
    """
    from .stats import format_report, has_tags, treebank_stats

    files: List[Path] = []
    sentences: list = []
    for spec in specs:
        treebank = read_treebank(spec, lenient=lenient)
        files.extend(treebank.files)
        sentences.extend(treebank.sentences)
    if not sentences:
        raise CLIError(f"no sentences in {', '.join(specs)}")
    other = "xpos" if tag == "upos" else "upos"
    if not has_tags(sentences, tag) and has_tags(sentences, other):
        print(f"No {tag.upper()} tags in this treebank; using {other.upper()}.")
        tag = other
    start = time.perf_counter()
    stats = treebank_stats(sentences, tag=tag)
    print(f"Computed statistics in {time.perf_counter() - start:.1f}s")
    print()
    print(format_report(stats))
    return TreebankReport(files, sentences, tag, stats)


@command("stats", "Treebank statistics a vine pruning cascade exploits.", _stats_arguments)
def stats_command(args: argparse.Namespace) -> int:
    """Print sentence-length, projectivity and arc-length statistics, and write them to --json."""
    import srsly

    report = treebank_report(args.treebank, tag=args.tag, lenient=args.lenient)
    if args.json is not None:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.json, report.to_json())
        print(f"Wrote statistics to {args.json}")
    return 0
