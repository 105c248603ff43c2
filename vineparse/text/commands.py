"""`python -m vineparse parse-text MODEL IN.txt [--out OUT.conllu]`: raw text through a spaCy pipeline to CoNLL-U.

IN ``-`` reads stdin; without ``--out`` the CoNLL-U goes to stdout. Multiword tokens are written as UD writes
them: for an English pipeline by UD English's conventions, for a pipeline trained with the
``vineparse.ud_multiword.v1`` callback by what it learned (``contractions.pipeline_multiword``). Progress and
the summary go to stderr. Exit status 0, or 2 for bad input or settings (a missing file, invalid UTF-8 naming
its line, limits).

`python -m vineparse convert-docs IN.conllu OUT.spacy [--lang en] [--sentences]`: a treebank's documents as spaCy
training data on their raw text (``gold_docs``), for ``spacy train`` with ``gold_preproc = false``; with
``--sentences`` each of their sentences is also a doc of its own.
"""
import argparse
import sys

from ..cli import CLIError, command
from .parse_text import DEFAULT_BATCH_SIZE, DEFAULT_MAX_CHARS, MAX_BATCH_SIZE


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="a spaCy pipeline (folder or installed package name)")
    parser.add_argument("input", metavar="IN", help="a UTF-8 text file, or - for stdin")
    parser.add_argument("--out", default=None, metavar="PATH", help="the CoNLL-U file to write (default: stdout)")
    parser.add_argument("--max-chars", type=int, default=None, metavar="N",
                        help=f"most characters per doc given to the pipeline (a doc per paragraph where it fits) "
                             f"(default: {DEFAULT_MAX_CHARS:,}, at most the pipeline's nlp.max_length)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, metavar="N",
                        help=f"docs per nlp.pipe batch, 1..{MAX_BATCH_SIZE:,} (default: {DEFAULT_BATCH_SIZE})")
    parser.add_argument("--doc-id", default=None, metavar="ID", help="the # newdoc id of the output")
    parser.add_argument("--progress-every", type=int, default=1_000_000, metavar="N",
                        help="a progress line on stderr every N characters (default: 1,000,000)")
    parser.add_argument("--quiet", action="store_true", help="no progress or summary lines")


@command("parse-text", "Parse raw text (paragraphs as empty lines) with a spaCy pipeline into CoNLL-U.", _arguments)
def parse_text_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .contractions import pipeline_multiword
    from .parse_text import check_limits, parse_text

    if args.progress_every < 1:
        raise CLIError(f"--progress-every must be at least 1, got {args.progress_every}")
    if args.input != "-" and not Path(args.input).is_file():
        raise CLIError(f"input not found: {args.input}")
    import spacy

    try:
        nlp = spacy.load(args.model)
    except OSError as err:
        raise CLIError(f"cannot load the pipeline {args.model!r}: {err}") from err
    try:
        check_limits(nlp, args.max_chars, args.batch_size)
    except ValueError as err:
        raise CLIError(str(err)) from err
    multiword, contractions = pipeline_multiword(nlp)
    source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")
    name = "<stdin>" if args.input == "-" else args.input
    out = sys.stdout if args.out is None else open(args.out, "w", encoding="utf-8", newline="\n")
    try:
        summary = parse_text(nlp, source, out, max_chars=args.max_chars, batch_size=args.batch_size,
                             doc_id=args.doc_id, name=name, multiword=multiword, contractions=contractions,
                             progress=not args.quiet,
                             progress_every=args.progress_every)
    finally:
        if source is not sys.stdin.buffer:
            source.close()
        if out is not sys.stdout:
            out.close()
        else:
            out.flush()
    if not args.quiet:
        print(f"parse-text: {name}: {summary.format()}", file=sys.stderr)
    return 0


def _convert_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="a CoNLL-U treebank file (documents and paragraphs as # newdoc / # newpar)")
    parser.add_argument("output", help="the .spacy file to write (one doc per document)")
    parser.add_argument("--lang", default="en", help="the treebank's language, a spaCy code (default: en)")
    parser.add_argument("--limit", type=int, default=0, metavar="N", help="the first N documents only (default: all)")
    parser.add_argument("--sentences", action="store_true",
                        help="also every sentence of those documents as a doc of its own (the training data of "
                             "configs/ewt*.cfg: a parser then learns from sentences alone as well as in context)")


@command("convert-docs", "A treebank's documents as spaCy training data on their raw text (paragraph breaks and "
         "line wraps kept).", _convert_arguments)
def convert_docs_command(args: argparse.Namespace) -> int:
    import spacy
    from spacy.tokens import DocBin

    from .gold_docs import treebank_documents

    try:
        nlp = spacy.blank(args.lang)
    except ImportError as err:
        raise CLIError(f"spaCy has no language {args.lang!r}: {err}") from err
    if args.limit < 0:
        raise CLIError(f"--limit must be 0 (all) or more, got {args.limit}")
    # English's tokenizer rules split every multiword token its words spell; another language's may not
    tokenizer = None if args.lang == "en" else nlp.tokenizer
    docs, skipped = treebank_documents(nlp.vocab, args.input, args.lang, tokenizer, args.limit, args.sentences)
    for line in skipped[:5]:
        print(f"convert-docs: skipped {line}", file=sys.stderr)
    if not docs:
        raise CLIError(f"{args.input}: no document could be converted ({len(skipped)} skipped)")
    DocBin(docs=docs, store_user_data=False).to_disk(args.output)
    # with --sentences the documents come first, then each of their sentences as a doc of one sentence
    alone = sum(len(list(doc.sents)) for doc in docs) // 2 if args.sentences else 0
    documents = docs[:len(docs) - alone]
    sentences = sum(len(list(doc.sents)) for doc in documents)
    spaces = sum(token.is_space for doc in documents for token in doc)
    also = " (each also a doc of its own)" if alone else ""
    print(f"convert-docs: {args.output}: {len(documents):,} documents, {sentences:,} sentences{also}, "
          f"{sum(len(doc) for doc in documents) - spaces:,} words, {spaces:,} whitespace tokens; "
          f"{len(skipped):,} documents skipped", file=sys.stderr)
    return 0
