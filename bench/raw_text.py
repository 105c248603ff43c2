"""Raw text in, CoNLL-U out, scored as the CoNLL 2018 shared task scored it.

    python bench/raw_text.py --pipeline LABEL=PATH ... [--treebank NAME=GOLD.conllu ...] [--repeats 5]
        [--gold-tokens DOCS.spacy] [--out bench/results/raw_text.json]

Each treebank's raw text is UD's `.txt` (`vineparse.text.rawtext`); each pipeline parses it as the `parse-text`
command does, and the official evaluation (`vineparse.text.conll18`) scores Tokens, Sentences, Words, UAS, LAS
and CLAS F1 (not UPOS: the pipelines tag XPOS only). Words/s: `nlp.pipe` alone, the median of `--repeats`
passes, the pipelines taking turns, one core, on parse-text's docs (a paragraph each) and on pieces of 20,000
characters; each pipeline's figure is its faster split, with thinc's default ops (blis) and on OpenBLAS
(`vineparse.blas`). Boundaries missed or added, by the word before (`kind`); the published systems beside. Where each
run stopped and its model-best's step, from its log where it is RUN.log beside RUN/model-best (as the Makefile trains).
"""
import argparse
import io
import re
import statistics
import sys
import time
from collections import Counter
from itertools import accumulate, product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import labelled_path, run_info, write_json  # noqa: E402
from spacy_compare import stopping_steps  # noqa: E402

METRICS = ("Tokens", "Sentences", "Words", "UAS", "LAS", "CLAS")
# EWT test from raw text, the CoNLL 2018 script (the systems' own papers and model pages)
PUBLISHED = {"ewt_test": [{"system": "Stanza 1.5.1", "ud": "2.12", "Sentences": 89.16, "UAS": 88.90, "LAS": 86.77},
                          {"system": "UDPipe 1.2", "ud": "2.5", "Sentences": 77.4, "UAS": 80.2, "LAS": 77.0},
                          {"system": "Trankit large (XLM-R)", "ud": "2.5", "Sentences": 90.49, "LAS": 89.40},
                          {"system": "UDPipe 2 (mBERT)", "ud": "2.12", "UAS": 90.71, "LAS": 88.81}]}
GOALS = (("ewt_test", "Sentences", 89.2), ("ewt_test", "Words", 99.0), ("ewt_test", "Tokens", 98.5),
         ("ewt_test", "LAS", 86.8), ("pud", "Sentences", 96.0))
# words/s with thinc's NumpyOps (blis, spaCy's default) and with `vineparse.blas.ScipyBlasOps` (OpenBLAS)
OPS = {"words_per_second": "blis", "words_per_second_openblas": "OpenBLAS"}
FINAL = set(".!?") | {"...", "…"}
CLOSING = set("\"')]}”’»")
EMOTICON = re.compile(r"^(?:[:;=8][-'^]?[()\[\]DPpOo/\\|*3]+|<3|\^_*\^|[xX]D)$")
URL = re.compile(r"(?:://|^www\.|@\w+\.\w)")
BULLET = re.compile(r"^(?:[-*•·>]|\d{1,2}[.)]|[a-zA-Z][.)])$")


def boundaries(conllu: str):
    """The sentence ends of a CoNLL-U text as offsets into its surface tokens' characters (the text's, whitespace
    aside), and per offset the token before it and the token after it."""
    from vineparse.corpus.conllu import iter_conllu

    words, ends = [], set()
    for sentence in iter_conllu(io.BytesIO(conllu.encode("utf-8")), require_heads=False):
        words += [form for form, _, _ in sentence.surface_tokens()]
        ends.add(len(words))
    cumulative = list(accumulate(len(re.sub(r"\s", "", word)) for word in words))
    return {cumulative[i - 1]: (words[i - 1], words[i] if i < len(words) else "") for i in sorted(ends)}


def kind(before: str, after: str) -> str:
    """What a sentence boundary between the words `before` and `after` follows (or precedes: a list item)."""
    if BULLET.match(after):
        return "before a list item"
    if before in FINAL or (len(before) > 1 and set(before) <= set(".!?")):
        return "after final punctuation"
    if EMOTICON.match(before):
        return "after an emoticon"
    if before and before[-1] in CLOSING and not before[:-1].isalnum():
        return "after a closing quote or bracket"
    if URL.search(before):
        return "after a URL or e-mail"
    return "after a word (no final punctuation)" if any(c.isalnum() for c in before) else "after other punctuation"


def boundary_errors(gold: str, system: str) -> dict:
    """Gold sentence ends the system misses and ends it adds that gold has not, counted by `kind`."""
    expected, found = boundaries(gold), boundaries(system)
    total = max(expected) if expected else 0
    return {name: dict(Counter(kind(*words) for offset, words in ends.items()
                               if offset not in other and offset != total))
            for name, ends, other in (("missed", expected, found), ("added", found, expected))}


def targets(treebanks: dict, ours: str = "vine_cascade", theirs: str = "spaCy parser") -> dict:
    """Issue 69's targets: {name: [measured, target, met]} for what was measured."""
    systems = {name: row.get("systems", {}) for name, row in treebanks.items()}
    out = {f"{name}: {metric} F1 >= {goal}": [value, goal, value >= goal] for name, metric, goal in GOALS
           if (value := systems.get(name, {}).get(ours, {}).get("scores", {}).get(metric)) is not None}
    ewt = systems.get("ewt_test", {})
    if ours in ewt and theirs in ewt:
        gain = round(ewt[ours]["scores"]["LAS"] - ewt[theirs]["scores"]["LAS"], 2)
        out["ewt_test: LAS - spaCy's parser pipeline >= 1.5"] = [gain, 1.5, gain >= 1.5]
        for key, ops in OPS.items():
            ratio = round(ewt[ours][key] / ewt[theirs][key], 2)
            out[f"ewt_test: words/s / spaCy's parser pipeline's >= 1.3 ({ops})"] = [ratio, 1.3, ratio >= 1.3]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", type=labelled_path, action="append", required=True, metavar="LABEL=PATH")
    parser.add_argument("--treebank", type=labelled_path, action="append", metavar="NAME=GOLD.conllu")
    parser.add_argument("--repeats", type=int, default=5, help="passes per pipeline for words/s")
    parser.add_argument("--note", default="", help="how the pipelines were trained")
    parser.add_argument("--gold-tokens", metavar="DOCS.spacy",
                        help="also score each pipeline on these docs' gold tokens and sentences (spaCy's scorer)")
    parser.add_argument("--out", default="bench/results/raw_text.json")
    args = parser.parse_args(argv)

    import spacy
    from vineparse.blas import use_scipy_blas
    from vineparse.corpus import corpus_path
    from vineparse.text.conll18 import evaluate
    from vineparse.text.contractions import pipeline_multiword
    from vineparse.text.parse_text import DEFAULT_MAX_CHARS, iter_pieces, parse_text
    from vineparse.text.rawtext import conllu_to_text

    treebanks = args.treebank or [("ewt_test", str(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"))),
                                  ("pud", str(corpus_path("ud-pud", "en_pud-ud-test.conllu")))]
    pipelines = [(label, spacy.load(path)) for label, path in args.pipeline]
    use_scipy_blas()            # thinc gives a model the ops current when it is built: these are on OpenBLAS
    openblas = [(label, spacy.load(path)) for label, path in args.pipeline]
    result = {"run": run_info(), "note": args.note, "pipelines": dict(args.pipeline), "treebanks": {},
              "published": PUBLISHED, "stopping": {label: stopping_steps(log, path) for label, path in args.pipeline
                                                   if (log := Path(path).parent.with_suffix(".log")).exists()}}
    for name, gold_path in treebanks:
        gold, raw = Path(gold_path).read_text(encoding="utf-8"), conllu_to_text(gold_path)
        row = {"gold": gold_path, "characters": len(raw.text), "documents": len(raw.documents),
               "paragraphs": raw.n_paragraphs, "systems": {}}
        for label, nlp in pipelines:
            out = io.StringIO()
            multiword, contractions = pipeline_multiword(nlp)
            summary = parse_text(nlp, raw.text, out, multiword=multiword, contractions=contractions)
            scores = evaluate(gold, system := out.getvalue())
            row["systems"][label] = {
                "scores": {metric: round(100 * scores[metric]["f1"], 2) for metric in METRICS},
                "written": summary.written.to_dict(), "boundary_errors": boundary_errors(gold, system)}
            print(name, label, row["systems"][label]["scores"], flush=True)
        paragraphs = [piece.text for piece in iter_pieces(io.BytesIO(raw.text.encode("utf-8")), DEFAULT_MAX_CHARS)]
        splits = {"a doc per paragraph (parse-text's)": paragraphs, "pieces of 20,000 characters": packed(paragraphs)}
        seconds, words = {(key, label, split): [] for key in OPS for label, _ in pipelines for split in splits}, {}
        for _ in range(max(1, args.repeats)):       # the pipelines alone (no CoNLL-U), taking turns
            for split, docs in splits.items():
                for key, loaded in zip(OPS, (pipelines, openblas)):
                    for label, nlp in loaded:
                        start = time.perf_counter()
                        words[label] = sum(not token.is_space for doc in nlp.pipe(docs) for token in doc)
                        seconds[key, label, split].append(time.perf_counter() - start)
        for key, (label, _) in product(OPS, pipelines):         # each pipeline at the split it is fastest on
            by_split = {split: round(words[label] / statistics.median(seconds[key, label, split])) for split in splits}
            row["systems"][label].update({f"{key}_by_split": by_split, key: max(by_split.values())})
        result["treebanks"][name] = row
        result["targets"] = targets(result["treebanks"])
        write_json(args.out, result)
    if args.gold_tokens:
        scored = {label: gold_token_scores(nlp, args.gold_tokens) for label, nlp in pipelines
                  if nlp.has_pipe("vine_cascade")}
        result["gold_tokens"] = {"docs": args.gold_tokens, "systems": scored}
        write_json(args.out, result)
    print(f"wrote {args.out}")


def packed(paragraphs, limit: int = 20_000):
    """The paragraphs joined into pieces of at most `limit` characters (a longer paragraph alone)."""
    pieces = []
    for paragraph in paragraphs:
        if pieces and len(pieces[-1]) + len(paragraph) <= limit:
            pieces[-1] += paragraph
        else:
            pieces.append(paragraph)
    return pieces


def gold_token_scores(nlp, path: str) -> dict:
    """UAS / LAS of `nlp` on the gold tokens and sentences at `path`, as `spacy evaluate --gold-preproc` gives."""
    from spacy.training import Corpus

    scores = nlp.evaluate(list(Corpus(path, gold_preproc=True)(nlp)))
    return {"UAS": round(100 * scores["dep_uas"], 2), "LAS": round(100 * scores["dep_las"], 2)}


if __name__ == "__main__":
    main()
