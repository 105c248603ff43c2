"""Fingerprints of what the parsers produce, to show that a refactoring changed nothing (issue 34).

    python bench/parse_hashes.py --pipeline PATH [--out bench/results/parse_hashes.json] [--check OLD.json]

SHA-256 of (a) the sparse cascade of `make demo` (trained 2 epochs on 2,000 EWT train sentences): its weights
and thresholds and its heads and labels on EWT test; (b) the pipeline's heads, labels and sentence starts on EWT
test, one preset sentence per doc and docs of 10 sentences without boundaries. --check compares with an earlier
run's file and exits 1 on a difference.
"""
import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import ewt, run_info, train_cascade, write_json  # noqa: E402


def digest(arrays) -> str:
    hasher = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        hasher.update(str(array.dtype).encode() + str(array.shape).encode() + array.tobytes())
    return hasher.hexdigest()


def sparse_hashes(test):
    from vineparse.cascade import TrainingSettings

    parser = train_cascade(None, ewt("train")[:2000], ewt("dev"), TrainingSettings(epochs=2))
    table, scales = parser.weight_table()
    parsed = parser.parse_labelled_batch([(s.words, list(s.xpos), list(s.upos)) for s in test])
    return {"weights": digest([table, scales, np.asarray(parser.alphas),
                               np.asarray([level.head_cap or 0 for level in parser.levels])]),
            "heads": digest([heads for heads, _ in parsed]),
            "labels": digest([np.asarray(labels, dtype=str) for _, labels in parsed])}


def pipeline_hashes(path, test):
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.load(path)
    out = {}
    preset = [Doc(nlp.vocab, words=list(s.words), sent_starts=[i == 0 for i in range(s.n)]) for s in test]
    joined = [Doc(nlp.vocab, words=[w for s in test[i:i + 10] for w in s.words]) for i in range(0, len(test), 10)]
    for name, docs in (("preset", preset), ("joined", joined)):
        parsed = list(nlp.pipe(docs))
        out[f"{name}_heads"] = digest([np.array([t.head.i for t in doc]) for doc in parsed])
        out[f"{name}_labels"] = digest([np.array([t.dep_ for t in doc], dtype=str) for doc in parsed])
        out[f"{name}_sentence_starts"] = digest([np.array([bool(t.is_sent_start) for t in doc]) for doc in parsed])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--out", default="bench/out/parse_hashes.json")
    parser.add_argument("--check", default=None)
    args = parser.parse_args(argv)
    test = ewt("test")
    result = {"run": run_info(), "pipeline": args.pipeline, "sparse": sparse_hashes(test),
              "vine_cascade": pipeline_hashes(args.pipeline, test)}
    write_json(args.out, result)
    print(json.dumps({k: result[k] for k in ("sparse", "vine_cascade")}, indent=1))
    if args.check:
        old = json.loads(Path(args.check).read_text())
        differing = [f"{part}.{key}" for part in ("sparse", "vine_cascade") for key in result[part]
                     if old[part].get(key) != result[part][key]]
        print("identical to " + args.check if not differing else "DIFFERENT: " + ", ".join(differing))
        return 1 if differing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
