"""A doc per paragraph or pieces of up to 20,000 characters: how `parse-text` should cut raw text (issue 69).

    python bench/paragraph_docs_dev.py --pipeline LABEL=PATH ... [--out bench/results/paragraph_docs_dev.json]

EWT dev's raw text (UD's .txt) through each pipeline both ways, written as CoNLL-U as parse-text writes it and
scored by the CoNLL 2018 evaluation (Sentences, UAS, LAS), and the seconds of one pass (one core; on a loaded
machine: raw_text.json has the words/s). Decided on EWT dev; the test sets are for the final figures only.
"""
import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_text import packed  # noqa: E402
from runinfo import labelled_path, run_info, write_json  # noqa: E402


def parse(nlp, texts) -> str:
    from vineparse.text.conllu_writer import ConlluWriter
    from vineparse.text.multiword import multiword_ranges

    out = io.StringIO()
    writer = ConlluWriter(out, multiword=multiword_ranges)
    for k, doc in enumerate(nlp.pipe(texts, batch_size=64)):
        writer.write(doc, None, continues=k > 0)
    return out.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", type=labelled_path, action="append", required=True, metavar="LABEL=PATH")
    parser.add_argument("--out", default="bench/results/paragraph_docs_dev.json")
    args = parser.parse_args(argv)

    import spacy
    from vineparse.corpus import corpus_path
    from vineparse.text.conll18 import evaluate
    from vineparse.text.parse_text import iter_pieces
    from vineparse.text.rawtext import conllu_to_text

    path = str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    gold, raw = Path(path).read_text(encoding="utf-8"), conllu_to_text(path)
    paragraphs = [piece.text for piece in iter_pieces(io.BytesIO(raw.text.encode("utf-8")), 20_000)]
    splits = {"a doc per paragraph": paragraphs, "pieces of 20,000 characters": packed(paragraphs)}
    result = {"run": run_info(), "pipelines": dict(args.pipeline), "rows": {}}
    for label, model in args.pipeline:
        nlp = spacy.load(model)
        for split, texts in splits.items():
            start = time.perf_counter()
            system = parse(nlp, texts)
            seconds = time.perf_counter() - start
            scores = evaluate(gold, system)
            row = {metric: round(100 * scores[metric]["f1"], 2) for metric in ("Sentences", "UAS", "LAS")}
            result["rows"].setdefault(label, {})[split] = {**row, "docs": len(texts),
                                                           "seconds": round(seconds, 1)}
            print(label, split, result["rows"][label][split], flush=True)
            write_json(args.out, result)


if __name__ == "__main__":
    main()
