"""Whether the vine should also cut inside the sentence-start scorer's sentences (issue 69 probe).

    python bench/vine_cuts_dev.py --pipeline PATH [--margins 0,0.5,1,2,4] [--out bench/results/vine_cuts_dev.json]

EWT dev's raw text through a vine_cascade pipeline as parse-text reads it: the scorer's sentences kept whole (as
the component does), and the same sentences open to the vine's cuts (a ROOT word confirmed by `split_margin`
starts a sentence, `splitting.py`) at each margin; CoNLL 2018 Sentences, UAS, LAS F1.
"""
import argparse
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info, write_json  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--margins", default="0,0.5,1,2,4")
    parser.add_argument("--out", default="bench/results/vine_cuts_dev.json")
    args = parser.parse_args(argv)

    import spacy
    from vineparse.corpus import corpus_path
    from vineparse.pipeline.component import VineCascadeParser
    from vineparse.text.conll18 import evaluate
    from vineparse.text.multiword import multiword_ranges
    from vineparse.text.parse_text import parse_text
    from vineparse.text.rawtext import conllu_to_text

    path = str(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    gold, raw = Path(path).read_text(encoding="utf-8"), conllu_to_text(path)
    whole = VineCascadeParser.units

    def open_units(self, doc, starts=None):
        return [(a, b, preset and starts is None) for a, b, preset in whole(self, doc, starts)]

    nlp = spacy.load(args.pipeline)
    result = {"run": run_info(), "pipeline": args.pipeline, "rows": {}}
    for margin in [None] + [float(m) for m in args.margins.split(",")]:
        VineCascadeParser.units = whole if margin is None else open_units
        nlp.get_pipe("vine_cascade").configure(split_margin=margin or 0.0)
        out = io.StringIO()
        parse_text(nlp, raw.text, out, multiword=multiword_ranges)
        scores = evaluate(gold, out.getvalue())
        label = "the scorer's sentences whole" if margin is None else f"vine cuts, split margin {margin:g}"
        result["rows"][label] = {metric: round(100 * scores[metric]["f1"], 2) for metric in ("Sentences", "UAS", "LAS")}
        print(label, result["rows"][label], flush=True)
        write_json(args.out, result)


if __name__ == "__main__":
    main()
