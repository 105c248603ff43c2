"""Whole documents: sentence boundaries and attachment without gold sentences, against spaCy's parsers.

    python bench/documents.py --pipeline vine=PATH [--pipeline vine_sentencizer=PATH] --pipeline spacy=PATH \\
        --pipeline senter=PATH [--out bench/results/documents.json]

Each pipeline was trained on EWT's documents (bench/ud_data.py groups the sentences by `# newdoc id`):
vine_cascade (configs/ewt.cfg, its split margin calibrated on EWT dev documents), spaCy's parser, which finds
sentence boundaries as it parses (configs/ewt_spacy_parser.cfg), and spaCy's senter followed by the parser
(configs/ewt_spacy_senter.cfg); optionally the same vine_cascade after spaCy's rule-based sentencizer. Each
parses EWT test and English PUD (news and Wikipedia: another domain) as documents:
* gold tokens, no sentence boundaries (row "gold tokens"): sentence-boundary precision, recall and F1 and
  UAS / LAS over the document (spaCy's scorer: a head in another sentence is wrong);
* raw text (row "raw text"): spaCy's tokenizer and the pipeline's own tags, the same scores on the tokens
  aligned to the gold ones (spaCy's `Example` alignment).
For vine_cascade, the boundaries it gets wrong by kind: a missed boundary after sentence-final punctuation
(. ! ?) or after none; a wrong cut after such punctuation, after other punctuation, or after a word.
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info  # noqa: E402

FINAL = {".", "!", "?", "...", "…"}


def labelled_path(text):
    label, _, path = text.partition("=")
    if not label or not path:
        raise argparse.ArgumentTypeError(f"expected LABEL=PATH, got {text!r}")
    return label, path


def documents(conllu):
    """(words, spaces, gold Doc kwargs) of each document of a CoNLL-U file (`bench/ud_data.documents`)."""
    from ud_data import documents as grouped

    out = []
    for sentences in grouped(Path(conllu)):
        words, spaces, heads, deps, starts, offset = [], [], [], [], [], 0
        for s in sentences:
            words += s.words
            spaces += ["SpaceAfter=No" not in misc for misc in s.misc]
            heads += [offset + (int(h) - 1 if h > 0 else i) for i, h in enumerate(s.heads[1:])]
            deps += list(s.labels)
            starts += [i == 0 for i in range(s.n)]
            offset += s.n
        out.append((words, spaces, heads, deps, starts))
    return out


def examples(nlp, found, raw):
    from spacy.tokens import Doc
    from spacy.training import Example

    out = []
    for words, spaces, heads, deps, starts in found:
        gold = Doc(nlp.vocab, words=words, spaces=spaces, heads=heads, deps=deps, sent_starts=starts)
        predicted = nlp.make_doc(gold.text) if raw else Doc(nlp.vocab, words=words, spaces=spaces)
        out.append(Example(predicted, gold))
    return out


def boundary_errors(examples, parsed):
    """Sentence-boundary errors by kind (gold tokens only)."""
    kinds = {"missed after final punctuation": 0, "missed after none": 0, "wrong cut after final punctuation": 0,
             "wrong cut after other punctuation": 0, "wrong cut after a word": 0}
    for example, doc in zip(examples, parsed):
        gold = {s.start for s in example.reference.sents} - {0}
        found = {s.start for s in doc.sents} - {0}
        for i in gold - found:
            kinds["missed after final punctuation" if doc[i - 1].text in FINAL else "missed after none"] += 1
        for i in found - gold:
            before = doc[i - 1]
            kind = ("final punctuation" if before.text in FINAL else
                    "other punctuation" if before.is_punct else "a word")
            kinds[f"wrong cut after {kind}"] += 1
    return kinds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", type=labelled_path, action="append", required=True)
    parser.add_argument("--out", default="bench/out/documents.json")
    args = parser.parse_args(argv)

    import spacy

    from vineparse.corpus import corpus_path

    sets = {"ewt_test": corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu"),
            "pud": corpus_path("ud-pud", "en_pud-ud-test.conllu")}
    found = {name: documents(path) for name, path in sets.items()}
    out = {"run": run_info(), "documents": {name: len(docs) for name, docs in found.items()},
           "sentences": {name: sum(sum(starts) for *_, starts in docs) for name, docs in found.items()},
           "pipelines": {}}
    for label, path in args.pipeline:
        nlp = spacy.load(path)
        rows = {}
        for name, docs in found.items():
            for raw in (False, True):
                egs = examples(nlp, docs, raw)
                scores = nlp.evaluate(egs)
                row = {k: 100 * scores[k] for k in ("dep_uas", "dep_las", "sents_p", "sents_r", "sents_f")}
                if not raw:
                    row["boundary_errors"] = boundary_errors(egs, nlp.pipe([eg.predicted.copy() for eg in egs]))
                rows[f"{name}{', raw text' if raw else ''}"] = row
                print(f"{label} {name}{' raw' if raw else ''}: sentence F1 {row['sents_f']:.2f}, "
                      f"UAS {row['dep_uas']:.2f}, LAS {row['dep_las']:.2f}", flush=True)
        out["pipelines"][label] = {"model": path, "rows": rows}
    out["run"]["load_average_at_end"] = list(os.getloadavg())
    if "vine" in out["pipelines"] and "spacy" in out["pipelines"]:
        vine, spacy_rows = out["pipelines"]["vine"]["rows"], out["pipelines"]["spacy"]["rows"]
        out["targets"] = {}
        for name in ("ewt_test", "pud"):
            for key, label in (("sents_f", "sentence F1"), ("dep_uas", "UAS"), ("dep_las", "LAS")):
                gain = round(vine[name][key] - spacy_rows[name][key], 2)
                out["targets"][f"{name}: {label} - spaCy's parser >= 0"] = [gain, 0.0, gain >= 0.0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
