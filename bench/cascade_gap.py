"""What VineCascade-3 loses against NoPrune-3, split into pruning and training (issue 33's "within 0.3 UAS").

    python bench/cascade_gap.py --test corpora/ud/de_gsd/test.conllu --models bench/out/multilingual/sparse/de_gsd \
        --label de_gsd [--out bench/results/cascade_gap.json]

Reads the two systems bench/cascade.py trained and kept under --models (VineCascade-3.msgpack,
NoPrune-3.msgpack) and parses the test set (CoNLL-U) four ways, each scored as bench/cascade.py scores
(UAS without punctuation, lifted arcs lowered by the system's labeller):

* VineCascade-3 as it parses, and NoPrune-3 as it parses (exhaustively);
* NoPrune-3's model decoding on the arc masks VineCascade-3's pruning levels leave: NoPrune-3 minus this is
  what the pruning costs a model that was not trained on the masks;
* VineCascade-3's last level decoding every arc (no masks).

So NoPrune-3 - VineCascade-3 = pruning (NoPrune-3 - NoPrune-3 on the masks) + training (NoPrune-3 on the
masks - VineCascade-3: two third-order models on the same arcs). Also counted: the test arcs NoPrune-3 gets
right that each pruning level removes. The JSON holds one record per treebank; --out is updated in place
(other treebanks' records are kept), with the provenance of each run inside its record.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

from runinfo import run_info
from vineparse.cascade import CascadeParser
from vineparse.cascade.encoding import encode_sentence
from vineparse.cascade.evaluation import PUNCT_TAGS
from vineparse.corpus import read_conllu
from vineparse.metrics import AttachmentScore, punctuation_mask


def scored(parser, sentences, encoded, heads_list):
    """UAS (punctuation excluded) of `heads_list`, lifted arcs lowered by `parser`'s labeller as
    bench/cascade.py's evaluation does."""
    score = AttachmentScore()
    for sentence, sent, heads in zip(sentences, encoded, heads_list):
        if parser.labeler is not None:
            heads, _ = parser.label(sent, heads)
        score.add(sentence.heads, heads, exclude=punctuation_mask(sentence, PUNCT_TAGS))
    return round(score.uas, 2)


def pruned_correct(masks, reference, sentences):
    """How many words (punctuation excluded) have their `reference` head right and that arc pruned from
    their mask; masks are bool (n + 1, n + 1) [head, dependent], None = every arc."""
    count = 0
    for mask, heads, sentence in zip(masks, reference, sentences):
        if mask is None:
            continue
        words = np.nonzero(~punctuation_mask(sentence, PUNCT_TAGS))[0] + 1
        right = words[np.asarray(heads)[words] == np.asarray(sentence.heads)[words]]
        count += int((~mask[np.asarray(heads)[right], right]).sum())
    return count


def decompose(cascade, exhaustive, sentences, tag):
    """The record of one treebank (see the module docstring)."""
    encoded = [encode_sentence(sentence, tag) for sentence in sentences]
    last = len(cascade.levels) - 1
    # the masks level k runs on (levels < k have pruned), k = 1 .. last
    masks_by_level = {k: cascade.run_batch(encoded, upto=k) for k in range(1, last + 1)}
    masks = masks_by_level[last]
    exhaustive_heads = exhaustive.run_batch(encoded)
    uas = {
        "VineCascade-3": scored(cascade, sentences, encoded, cascade.run_batch(encoded)),
        "NoPrune-3": scored(exhaustive, sentences, encoded, exhaustive_heads),
        "NoPrune-3 on the cascade's masks": scored(exhaustive, sentences, encoded, [
            exhaustive.levels[-1].decode(sent, mask) for sent, mask in zip(encoded, masks)]),
        "VineCascade-3's last level, no masks": scored(cascade, sentences, encoded, [
            cascade.levels[-1].decode(sent, None) for sent in encoded]),
    }
    words = sum(int((~punctuation_mask(s, PUNCT_TAGS)).sum()) for s in sentences)
    lost, before = [], 0
    for k, level_masks in masks_by_level.items():
        total = pruned_correct(level_masks, exhaustive_heads, sentences)
        lost.append({"level": cascade.levels[k - 1].name, "arcs": total - before})
        before = total
    return {
        "uas": uas,
        "gap": round(uas["NoPrune-3"] - uas["VineCascade-3"], 2),
        "pruning": round(uas["NoPrune-3"] - uas["NoPrune-3 on the cascade's masks"], 2),
        "training": round(uas["NoPrune-3 on the cascade's masks"] - uas["VineCascade-3"], 2),
        "words": words,
        "noprune3_right_pruned_by_level": lost,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--test", type=Path, required=True,
                    help="the test set, CoNLL-U (e.g. corpora/ud/NAME/test.conllu)")
    ap.add_argument("--models", type=Path, required=True, help="bench/cascade.py's --models folder")
    ap.add_argument("--tag", choices=("xpos", "upos"), default="upos")
    ap.add_argument("--label", required=True, help="the record's name, e.g. the treebank's (de_gsd)")
    ap.add_argument("--out", type=Path, default=Path("bench/results/cascade_gap.json"))
    args = ap.parse_args(argv)
    paths = [args.models / f"{name}.msgpack" for name in ("VineCascade-3", "NoPrune-3")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        ap.error(f"not found: {', '.join(missing)} (train them with bench/cascade.py --models {args.models})")
    cascade, exhaustive = (CascadeParser.load(p) for p in paths)
    if tuple(cascade.orders) != (0, 1, 2, 3) or tuple(exhaustive.orders) != (3,):
        ap.error("expected a vine -> 1 -> 2 -> 3 cascade and a third-order NoPrune-3")
    test = read_conllu(args.test)
    record = {"provenance": run_info(), "models": str(args.models), "test_sentences": len(test),
              **decompose(cascade, exhaustive, test, args.tag)}
    out = json.loads(args.out.read_text()) if args.out.exists() else {"treebanks": {}}
    out["treebanks"][args.label] = record
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in record.items() if k != "provenance"}, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
