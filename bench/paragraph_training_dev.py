"""Training docs a paragraph each against a document each (issue 69 probe).

    python bench/paragraph_training_dev.py split TRAIN_DOCS.spacy OUT.spacy
    python bench/paragraph_training_dev.py score LABEL=PIPELINE ... [--out bench/results/paragraph_training_dev.json]

`split` cuts each training doc of `convert-docs` after every whitespace token that holds an empty line (no gold
arc crosses a paragraph of EWT); configs/ewt.cfg then trains on either file (same dev docs, steps and seed).
`score`: EWT dev's raw text through each pipeline as parse-text reads it (CoNLL 2018 Sentences, UAS, LAS F1), and
EWT dev's gold tokens and sentences (spaCy's scorer, UAS / LAS).
"""
import argparse
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import labelled_path, run_info, write_json  # noqa: E402


def split(source: str, target: str) -> None:
    import spacy
    from spacy.tokens import DocBin

    vocab, out = spacy.blank("en").vocab, DocBin(store_user_data=False)
    for doc in DocBin().from_disk(source).get_docs(vocab):
        cuts = [t.i + 1 for t in doc if t.is_space and re.search(r"\n[^\S\n]*\n", t.text) and t.i + 1 < len(doc)]
        for a, b in zip([0] + cuts, cuts + [len(doc)]):
            if any(not a <= t.head.i < b for t in doc[a:b]):
                raise ValueError(f"a gold arc crosses the paragraph at tokens {a}..{b}")
            out.add(doc[a:b].as_doc())
    out.to_disk(target)
    print(f"{len(out)} paragraph docs written to {target}")


def score(pipelines, path_out: str) -> None:
    import spacy
    from spacy.training import Corpus
    from vineparse.corpus import corpus_path
    from vineparse.text.conll18 import evaluate
    from vineparse.text.multiword import multiword_ranges
    from vineparse.text.parse_text import parse_text
    from vineparse.text.rawtext import conllu_to_text

    path = str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    gold, raw = Path(path).read_text(encoding="utf-8"), conllu_to_text(path)
    result = {"run": run_info(), "pipelines": dict(pipelines), "rows": {}}
    for label, model in pipelines:
        nlp = spacy.load(model)
        out = io.StringIO()
        parse_text(nlp, raw.text, out, multiword=multiword_ranges)
        scores = evaluate(gold, out.getvalue())
        tokens = nlp.evaluate(list(Corpus("corpora/spacy/en_ewt-ud-dev.spacy", gold_preproc=True)(nlp)))
        result["rows"][label] = {**{metric: round(100 * scores[metric]["f1"], 2) for metric in ("Sentences", "UAS", "LAS")},
                                 "gold tokens UAS": round(100 * tokens["dep_uas"], 2),
                                 "gold tokens LAS": round(100 * tokens["dep_las"], 2)}
        print(label, result["rows"][label], flush=True)
        write_json(path_out, result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("split", "score"))
    parser.add_argument("args", nargs="+")
    parser.add_argument("--out", default="bench/results/paragraph_training_dev.json")
    options = parser.parse_args()
    if options.what == "split":
        split(*options.args)
    else:
        score([labelled_path(arg) for arg in options.args], options.out)
