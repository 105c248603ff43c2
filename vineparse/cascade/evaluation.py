"""Evaluating a cascade on gold trees: accuracy, speed and what each level kept."""
import time
from typing import Callable, Dict, Optional, Sequence

import numpy as np

from ..metrics import PTB_PUNCT_TAGS, UD_PUNCT_TAGS, AttachmentScore, NonProjectiveArcs, punctuation_mask
from ..trees import projectivize
from .encoding import encode_sentence

# Punctuation is a word whose gold UPOS is PUNCT or whose gold XPOS is a PTB punctuation tag.
PUNCT_TAGS = frozenset(PTB_PUNCT_TAGS) | frozenset(UD_PUNCT_TAGS)


def evaluate(parser, sentences: Sequence, report: Optional[Callable[[str], None]] = None,
             every: int = 500, tag: Optional[str] = None) -> Dict:
    """Parse `sentences` (with gold heads) and score the predictions.

    parser (CascadeParser): the cascade (any object with `run_batch`, `new_stats` and, with a labeller,
        `label`; then give `tag`).
    Timing covers encoding and the whole cascade (features included), in batches of `every`
    sentences on one thread; filling the pruning statistics is included (a few array passes). When the
    parser has a labeller, its labels of the predicted trees are scored too (LAS), and their time is
    `label_seconds` (not in `seconds`).
    RETURNS (dict): uas and las (punctuation excluded; las None without a labeller), uas_all and las_all
        (every word), sentences, words, seconds, label_seconds, words_per_second, sentences_per_second,
        per pruning level its kept share, gold-arc recall (against the projectivized gold tree) and
        seconds, `times`: [n, seconds] per sentence, and `nonprojective_arcs` (`NonProjectiveArcs.scores`).
    """
    tag = tag or parser.tag
    labeler = getattr(parser, "labeler", None)
    stats = parser.new_stats()
    without_punct, every_word = AttachmentScore(), AttachmentScore()
    golds = [projectivize(sentence.heads) for sentence in sentences]
    encode_seconds = np.zeros(len(sentences))
    encoded = []
    for i, sentence in enumerate(sentences):
        start = time.perf_counter()
        encoded.append(encode_sentence(sentence, tag))
        encode_seconds[i] = time.perf_counter() - start
    parse_seconds = np.zeros(len(sentences))
    predictions = []
    for start in range(0, len(sentences), every):          # batches, so progress can be reported
        stop = min(start + every, len(sentences))
        predictions += parser.run_batch(encoded[start:stop], golds[start:stop], stats,
                                        seconds=parse_seconds[start:stop])
        if report:
            report(f"  {stop:,}/{len(sentences):,} sentences")
    label_seconds = 0.0
    nonprojective = NonProjectiveArcs()
    for sentence, sent, heads in zip(sentences, encoded, predictions):
        labels = {}
        if labeler is not None:
            start = time.perf_counter()
            heads, predicted = parser.label(sent, heads)          # lifted arcs lowered where pseudo-projective
            labels = {"gold_labels": list(sentence.labels), "pred_labels": list(predicted)}
            label_seconds += time.perf_counter() - start
        every_word.add(sentence.heads, heads, **labels)
        without_punct.add(sentence.heads, heads, exclude=punctuation_mask(sentence, PUNCT_TAGS), **labels)
        nonprojective.add(sentence.heads, heads)
    per_sentence = encode_seconds + parse_seconds
    seconds = float(per_sentence.sum())
    times = [[len(sentence.words), float(t)] for sentence, t in zip(sentences, per_sentence)]
    words = sum(len(s.words) for s in sentences)
    return {"uas": without_punct.uas, "uas_all": every_word.uas, "las": without_punct.las, "las_all": every_word.las,
            "sentences": len(sentences), "words": words, "seconds": seconds, "label_seconds": label_seconds,
            "words_per_second": words / max(seconds, 1e-9),
            "sentences_per_second": len(sentences) / max(seconds, 1e-9), "levels": stats.rows(), "times": times,
            "nonprojective_arcs": nonprojective.scores()}


def format_evaluation(result: Dict) -> str:
    labelled = "" if result.get("las") is None else (
        f"LAS {result['las']:.2f} (punctuation excluded), {result['las_all']:.2f} (all words; labels took "
        f"{result['label_seconds']:.1f}s); ")
    lines = [f"UAS {result['uas']:.2f} (punctuation excluded), {result['uas_all']:.2f} (all words); {labelled}"
             f"{result['sentences']:,} sentences, {result['words']:,} words in {result['seconds']:.1f}s "
             f"= {result['words_per_second']:,.0f} words/s"]
    for row in result["levels"]:
        lines.append(f"  after {row['level']:>6}: {row['kept_share']:.1%} of arcs kept, "
                     f"gold recall {row['gold_recall']:.2%}, {row['seconds']:.1f}s, {row['fallbacks']} fallbacks")
    return "\n".join(lines)
