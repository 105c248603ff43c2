"""`python -m vineparse parse-corpus MODEL INPUT... --out DIR`: `parse_corpus` from the command line.

Exit status 0 when every shard is done, 1 when some failed (listed in the summary and the manifest), 2 for bad
input or settings, 130 when interrupted (a re-run resumes).
"""
import argparse

from ..cli import CLIError, command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="a spaCy pipeline folder (text input) or a cascade .msgpack model (CoNLL-U)")
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="input files or folders")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder (shards/, manifest.json)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a Dask scheduler to run on, e.g. tcp://host:8786 (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="local worker processes (default: one per core; 0: in this process, without Dask)")
    parser.add_argument("--memory-limit", default="auto", metavar="SIZE",
                        help="memory limit of each local worker, e.g. 2GiB (default: auto)")
    parser.add_argument("--docs", choices=("lines", "files", "paragraphs"), default="lines",
                        help="spaCy models: one document a line (default), a file, or a paragraph (raw text with "
                             "paragraphs as empty lines, e.g. UD's .txt: CoNLL-U with # newpar, whitespace "
                             "tokens not written, as parse-text writes it)")
    parser.add_argument("--format", dest="formats", default=None, metavar="FORMATS",
                        help="comma-separated outputs: spacy (DocBin) and/or conllu (default: spacy for a spaCy "
                             "model, conllu for a cascade)")
    parser.add_argument("--shard-size", type=int, default=None, metavar="N",
                        help="documents (text) or sentences (CoNLL-U) per shard (default: 2000)")
    parser.add_argument("--batch-size", type=int, default=64, metavar="N", help="documents per nlp.pipe batch")
    parser.add_argument("--max-words", type=int, default=1000, metavar="N",
                        help="cascade: skip (and report) longer sentences (default: 1000)")
    parser.add_argument("--retries", type=int, default=1, metavar="N", help="Dask retries of a failed shard task")
    parser.add_argument("--merge", action="store_true",
                        help="also write parsed.conllu, the CoNLL-U shards in order")
    parser.add_argument("--overwrite", action="store_true",
                        help="redo every shard, even if DIR holds the output of another job")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


@command("parse-corpus", "Parse a corpus in resumable shards on a Dask cluster (local by default).", _arguments)
def parse_corpus_command(args: argparse.Namespace) -> int:
    try:
        from . import DEFAULT_SHARD_SIZE, parse_corpus

        if args.scheduler is not None and args.workers is not None:
            raise CLIError("--workers sizes a local cluster: give it or --scheduler, not both")
        formats = None if args.formats is None else tuple(f.strip() for f in args.formats.split(",") if f.strip())
        summary = parse_corpus(
            args.model, args.inputs, args.out, client=args.scheduler, workers=args.workers, docs=args.docs,
            formats=formats, shard_size=DEFAULT_SHARD_SIZE if args.shard_size is None else args.shard_size,
            batch_size=args.batch_size,
            max_words=args.max_words, merge=args.merge, overwrite=args.overwrite, retries=args.retries,
            memory_limit=args.memory_limit, progress=not args.quiet)
    except (ValueError, ImportError) as err:
        raise CLIError(str(err)) from err
    print(summary.format())
    return 0 if summary.complete else 1
