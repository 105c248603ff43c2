"""Is a paragraph break a hard sentence boundary? vine_cascade on EWT dev's raw text, with the sentence-start
scorer's starts as they are and with a start forced after every paragraph break; CoNLL 2018 scores.

    python bench/paragraph_starts_dev.py --pipeline PATH [--out bench/results/paragraph_starts_dev.json]
"""
import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--out", default="bench/results/paragraph_starts_dev.json")
    args = parser.parse_args(argv)
    import spacy
    from vineparse.corpus import corpus_path
    from vineparse.pipeline import component
    from vineparse.pipeline.spaces import paragraph_starts, space_tokens
    from vineparse.text.conll18 import evaluate
    from vineparse.text.multiword import multiword_ranges
    from vineparse.text.parse_text import parse_text
    from vineparse.text.rawtext import conllu_to_text

    gold = str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    raw = conllu_to_text(gold)
    nlp = spacy.load(args.pipeline)
    learned = component.VineCascadeParser.sentence_starts

    def forced(self, batch, docs, threshold=None):
        found = learned(self, batch, docs, threshold)
        return [None if starts is None else np.union1d(starts, paragraph_starts(doc, space_tokens(doc)))
                for starts, doc in zip(found, docs)]

    result = {"run": run_info(), "pipeline": args.pipeline, "rows": {}}
    for name, method in (("learned", learned), ("forced after paragraph breaks", forced)):
        component.VineCascadeParser.sentence_starts = method
        out = io.StringIO()
        parse_text(nlp, raw.text, out, multiword=multiword_ranges)
        scores = evaluate(gold, out.getvalue())
        result["rows"][name] = {m: round(100 * scores[m]["f1"], 2) for m in ("Sentences", "UAS", "LAS")}
        print(name, result["rows"][name], flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
