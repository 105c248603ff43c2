"""Parser evaluation: attachment scores (UAS / LAS) and labelled bracket scores (EVALB).

Scores are percentages (0-100); the counts behind them are kept, so scores over several parts can be
combined by adding counts. A score over nothing is 0.0 (as EVALB and spaCy report it).

Attachment scores (``evaluate_dependencies`` over Sentences, ``AttachmentScore`` over head arrays), two
conventions:

- every syntactic word counts (the CoNLL 2018 shared task): ``exclude_punct=False``, the default;
- punctuation excluded by its GOLD tag: ``exclude_punct=True`` with ``punct_tags=PTB_PUNCT_TAGS`` (the PTB
  way, the default set, matched against the gold XPOS) or ``punct_tags=UD_PUNCT_TAGS`` (gold UPOS ``PUNCT``).

The CoNLL 2018 evaluation compares labels without their language-specific subtype (``nmod:poss`` counts as
``nmod``): ``universal_labels=True``. By default labels must match exactly.

Bracket scores follow EVALB with COLLINS.prm; see ``BracketScore``.
"""
from collections import Counter
from functools import lru_cache
from itertools import accumulate
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .corpus.conllu import Sentence
from .corpus.ptb import Tree, strip_function_tag
from .trees import nonprojective_arc_mask

__all__ = [
    "PTB_PUNCT_TAGS",
    "UD_PUNCT_TAGS",
    "EVALB_DELETED_TAGS",
    "EVALB_LENGTH_DELETED_TAGS",
    "EVALB_EQUIVALENT_LABELS",
    "AttachmentScore",
    "punctuation_mask",
    "evaluate_dependencies",
    "BracketScore",
    "bracket_scores",
    "NonProjectiveArcs",
]

# Penn Treebank punctuation tags, excluded from PTB dependency evaluation (by the gold tag).
PTB_PUNCT_TAGS = frozenset({"``", "''", ",", ".", ":", "-LRB-", "-RRB-", "#", "$"})
# Universal Dependencies punctuation (UPOS).
UD_PUNCT_TAGS = frozenset({"PUNCT"})

# COLLINS.prm DELETE_LABEL for preterminals: these words are removed before spans are computed.
EVALB_DELETED_TAGS = frozenset({"-NONE-", ",", ":", "``", "''", "."})
# COLLINS.prm DELETE_LABEL_FOR_LENGTH: words not counted in the sentence length for the cut-off.
EVALB_LENGTH_DELETED_TAGS = frozenset({"-NONE-"})
# COLLINS.prm EQ_LABEL ADVP PRT: each label mapped to its class representative.
EVALB_EQUIVALENT_LABELS: Dict[str, str] = {"PRT": "ADVP"}
# Labels of a top-level wrapper, which is not a bracket (COLLINS.prm DELETE_LABEL TOP; "" and ROOT are
# what other readers call it).
_ROOT_LABELS = frozenset({"TOP", "ROOT", ""})


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


# ---------------------------------------------------------------------------------------------------------
# Attachment scores


class NonProjectiveArcs:
    """Precision and recall of non-projective arcs, accumulated over sentences (what a projective parser
    cannot get right without pseudo-projective lifting). An arc is non-projective as `trees.nonprojective_arc_mask`
    defines it, in the tree it belongs to: recall is the share of the gold trees' non-projective arcs whose
    head is predicted; precision the share of the predicted trees' non-projective arcs that are gold arcs.
    """

    def __init__(self) -> None:
        self.gold = self.gold_found = self.predicted = self.predicted_correct = 0

    def add(self, gold_heads: np.ndarray, pred_heads: np.ndarray) -> None:
        """Score one sentence: heads int (n + 1,), heads[0] == -1."""
        gold_heads, pred_heads = np.asarray(gold_heads), np.asarray(pred_heads)
        correct = gold_heads[1:] == pred_heads[1:]
        gold_mask, pred_mask = nonprojective_arc_mask(gold_heads)[1:], nonprojective_arc_mask(pred_heads)[1:]
        self.gold += int(gold_mask.sum())
        self.gold_found += int((gold_mask & correct).sum())
        self.predicted += int(pred_mask.sum())
        self.predicted_correct += int((pred_mask & correct).sum())

    def scores(self) -> Dict:
        """{"gold", "predicted": counts, "recall", "precision": percentages (None without arcs to count)}."""
        return {"gold": self.gold, "predicted": self.predicted,
                "recall": 100.0 * self.gold_found / self.gold if self.gold else None,
                "precision": 100.0 * self.predicted_correct / self.predicted if self.predicted else None}


class AttachmentScore:
    """Unlabelled and labelled attachment scores, accumulated over sentences.

    universal_labels (bool): compare labels without their subtype after ``:`` (CoNLL 2018 convention).

    Counts: ``sentences``; ``words`` scored; ``excluded`` (words left out, e.g. punctuation);
    ``correct_heads``; ``correct_labelled`` (head and label both right). ``las`` is None when some
    sentence was added without labels.
    """

    def __init__(self, *, universal_labels: bool = False) -> None:
        self.universal_labels = universal_labels
        self.sentences = 0
        self.words = 0
        self.excluded = 0
        self.correct_heads = 0
        self.correct_labelled = 0
        self.unlabelled_sentences = 0

    def add(
        self,
        gold_heads: np.ndarray,
        pred_heads: np.ndarray,
        *,
        gold_labels: Optional[Sequence[str]] = None,
        pred_labels: Optional[Sequence[str]] = None,
        exclude: Optional[np.ndarray] = None,
    ) -> None:
        """Score one sentence of n words.

        gold_heads (np.ndarray): int, shape (n + 1,), heads[0] == -1 (position 0 is the root).
        pred_heads (np.ndarray): int, shape (n + 1,).
        gold_labels (Optional[Sequence[str]]): length n, or None (together with pred_labels) for UAS only.
        pred_labels (Optional[Sequence[str]]): length n.
        exclude (Optional[np.ndarray]): bool, shape (n,); True for words not to score (see
            ``punctuation_mask``).
        """
        gold_heads = np.asarray(gold_heads)
        pred_heads = np.asarray(pred_heads)
        if gold_heads.ndim != 1 or gold_heads.size < 1:
            raise ValueError(f"gold_heads must be a 1-D array of length n + 1, got shape {gold_heads.shape}")
        n = gold_heads.size - 1
        if pred_heads.shape != gold_heads.shape:
            raise ValueError(f"pred_heads must have shape ({n + 1},) like gold_heads, got {pred_heads.shape}")
        keep = np.ones(n, dtype=bool)
        if exclude is not None:
            exclude = np.asarray(exclude, dtype=bool)
            if exclude.shape != (n,):
                raise ValueError(f"exclude must have shape ({n},), one flag per word, got {exclude.shape}")
            keep = ~exclude
        head_right = gold_heads[1:] == pred_heads[1:]
        self.sentences += 1
        self.words += int(keep.sum())
        self.excluded += n - int(keep.sum())
        self.correct_heads += int((head_right & keep).sum())
        if (gold_labels is None) != (pred_labels is None):
            raise ValueError("give both gold_labels and pred_labels, or neither")
        if gold_labels is None:
            self.unlabelled_sentences += 1
            return
        if len(gold_labels) != n or len(pred_labels) != n:
            raise ValueError(
                f"labels must have one entry per word ({n}), got {len(gold_labels)} gold and {len(pred_labels)} pred"
            )
        if self.universal_labels:
            gold_labels = [label.split(":", 1)[0] for label in gold_labels]
            pred_labels = [label.split(":", 1)[0] for label in pred_labels]
        label_right = np.fromiter(
            (gold == pred for gold, pred in zip(gold_labels, pred_labels)), dtype=bool, count=n
        )
        self.correct_labelled += int((head_right & label_right & keep).sum())

    @property
    def uas(self) -> float:
        """Unlabelled attachment score: % of scored words with the right head."""
        return _percent(self.correct_heads, self.words)

    @property
    def las(self) -> Optional[float]:
        """Labelled attachment score: % of scored words with the right head and label (None if unlabelled)."""
        if self.unlabelled_sentences:
            return None
        return _percent(self.correct_labelled, self.words)

    def to_dict(self) -> Dict[str, object]:
        """Scores and counts, JSON-serialisable."""
        return {
            "uas": self.uas,
            "las": self.las,
            "sentences": self.sentences,
            "words": self.words,
            "excluded": self.excluded,
            "correct_heads": self.correct_heads,
            "correct_labelled": self.correct_labelled,
        }

    def __repr__(self) -> str:
        las = "n/a" if self.las is None else f"{self.las:.2f}"
        return f"AttachmentScore(uas={self.uas:.2f}, las={las}, words={self.words}, sentences={self.sentences})"


def punctuation_mask(sentence: Sentence, punct_tags: Iterable[str] = PTB_PUNCT_TAGS) -> np.ndarray:
    """Which words of a gold sentence are punctuation: UPOS or XPOS in ``punct_tags``.

    Checking both columns serves both conventions: PTB tags only occur as XPOS (or as both, in sentences
    read from ``.dp`` files), and ``PUNCT`` only as UPOS.

    sentence (Sentence): the gold sentence.
    punct_tags (Iterable[str]): PTB_PUNCT_TAGS (default) or UD_PUNCT_TAGS, or any set of tags.
    RETURNS (np.ndarray): bool, shape (n,).
    """
    tags = frozenset(punct_tags)
    return np.fromiter(
        (upos in tags or xpos in tags for upos, xpos in zip(sentence.upos, sentence.xpos)),
        dtype=bool,
        count=sentence.n,
    )


def evaluate_dependencies(
    gold: Sequence[Sentence],
    pred: Sequence[Sentence],
    *,
    exclude_punct: bool = False,
    punct_tags: Iterable[str] = PTB_PUNCT_TAGS,
    universal_labels: bool = False,
) -> AttachmentScore:
    """UAS and LAS of predicted sentences against gold ones, word by word.

    gold (Sequence[Sentence]): gold trees.
    pred (Sequence[Sentence]): the same sentences, same words, with predicted heads and labels.
    exclude_punct (bool): leave out words whose GOLD tag is in ``punct_tags`` (see ``punctuation_mask``);
        False scores every syntactic word (CoNLL 2018).
    punct_tags (Iterable[str]): PTB_PUNCT_TAGS (the PTB way) or UD_PUNCT_TAGS (UPOS ``PUNCT``).
    universal_labels (bool): compare labels without subtypes (CoNLL 2018).
    RETURNS (AttachmentScore): scores and counts.
    RAISES (ValueError): if the lists differ in length, or sentence i differs in its words (naming i).
    """
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} sentences but pred has {len(pred)}")
    tags = frozenset(punct_tags)
    score = AttachmentScore(universal_labels=universal_labels)
    for i, (g, p) in enumerate(zip(gold, pred)):
        if g.words != p.words:
            raise ValueError(f"sentence {i}: gold and pred words differ ({g.n} vs {p.n} words)")
        score.add(
            g.heads,
            p.heads,
            gold_labels=g.labels,
            pred_labels=p.labels,
            exclude=punctuation_mask(g, tags) if exclude_punct else None,
        )
    return score


# ---------------------------------------------------------------------------------------------------------
# Labelled bracket scores


Bracket = Tuple[str, int, int]


@lru_cache(maxsize=4096)
def _evalb_label(label: str) -> str:
    label = strip_function_tag(label)
    return EVALB_EQUIVALENT_LABELS.get(label, label)


def _words_and_spans(tree: Tree) -> Tuple[List[Tuple[str, str]], List[Bracket]]:
    """(word, tag) of every word except ``-NONE-`` ones, and (label, start, end) of every constituent
    above the preterminals, spans in those words, end exclusive, labels as in the tree. The root is left
    out if its label is a wrapper label (TOP, ROOT or empty)."""
    words: List[Tuple[str, str]] = []
    spans: List[Bracket] = []

    def visit(node: Tree, start: int) -> int:
        children = node.children
        if not children:
            raise ValueError(f"word '{node.label}' has no tag: every word must sit under a preterminal")
        if len(children) == 1 and not children[0].children:  # a preterminal
            if node.label in EVALB_LENGTH_DELETED_TAGS:
                return start
            words.append((children[0].label, node.label))
            return start + 1
        end = start
        for child in children:
            end = visit(child, end)
        spans.append((node.label, start, end))
        return end

    visit(tree, 0)
    if spans and tree.label in _ROOT_LABELS and not tree.is_preterminal():
        spans.pop()  # the root is visited last
    return words, spans


class BracketScore:
    """Labelled bracket precision, recall and F1, as EVALB computes them with COLLINS.prm.

    max_length (Optional[int]): evaluate only sentences of at most this many words (EVALB's CUTOFF_LEN,
        usually 40); longer ones are counted in ``skipped``. The length is EVALB's: the gold words
        except ``-NONE-`` elements, punctuation included.

    Rules, per sentence:

    1. Words whose GOLD tag is in EVALB_DELETED_TAGS (``-NONE- , : `` '' .``) are removed from both
       trees. (EVALB removes each tree's own tagged punctuation and fails the sentence when that leaves
       different lengths; using the gold tags gives the same spans whenever the tags agree.)
    2. Brackets are (label, start, end) over the remaining words for every constituent that is not a
       preterminal or a leaf, and not a root wrapper (TOP, ROOT or an empty label). Brackets left empty by
       rule 1 are dropped. Unary chains give one bracket per node.
    3. Labels lose function tags (``NP-SBJ`` -> ``NP``) and ADVP = PRT.
    4. Matching is on multisets: a bracket occurring twice in gold matches at most twice.

    Counts: ``sentences`` scored, ``skipped``, ``gold`` and ``pred`` brackets, ``matched``, ``exact``
    (sentences with gold == pred == matched).
    """

    def __init__(self, *, max_length: Optional[int] = None) -> None:
        self.max_length = max_length
        self.sentences = 0
        self.skipped = 0
        self.gold = 0
        self.pred = 0
        self.matched = 0
        self.exact = 0

    def add(self, gold: Tree, pred: Tree) -> None:
        """Score one sentence.

        gold (Tree): the gold tree (traces and function tags may be present).
        pred (Tree): the predicted tree over the same words.
        RAISES (ValueError): if the two trees do not have the same words.
        """
        gold_words, gold_spans = _words_and_spans(gold)
        pred_words, pred_spans = _words_and_spans(pred)
        if [word for word, _ in gold_words] != [word for word, _ in pred_words]:
            raise ValueError(
                f"gold and pred trees have different words ({len(gold_words)} vs {len(pred_words)} words): "
                f"{' '.join(word for word, _ in gold_words)!r} vs {' '.join(word for word, _ in pred_words)!r}"
            )
        if self.max_length is not None and len(gold_words) > self.max_length:
            self.skipped += 1
            return
        # kept[i] = number of words before position i that survive deletion (positions 0..len).
        kept = list(accumulate((tag not in EVALB_DELETED_TAGS for _, tag in gold_words), initial=0))
        gold_brackets = self._brackets(gold_spans, kept)
        pred_brackets = self._brackets(pred_spans, kept)
        matched = sum((gold_brackets & pred_brackets).values())
        n_gold, n_pred = sum(gold_brackets.values()), sum(pred_brackets.values())
        self.sentences += 1
        self.gold += n_gold
        self.pred += n_pred
        self.matched += matched
        self.exact += int(n_gold == n_pred == matched)

    @staticmethod
    def _brackets(spans: List[Bracket], kept: List[int]) -> Counter:
        brackets: Counter = Counter()
        for label, start, end in spans:
            start, end = kept[start], kept[end]
            if start < end:
                brackets[_evalb_label(label), start, end] += 1
        return brackets

    @property
    def precision(self) -> float:
        """% of predicted brackets that match."""
        return _percent(self.matched, self.pred)

    @property
    def recall(self) -> float:
        """% of gold brackets that are matched."""
        return _percent(self.matched, self.gold)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 if both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def exact_match(self) -> float:
        """% of scored sentences whose brackets all match."""
        return _percent(self.exact, self.sentences)

    def to_dict(self) -> Dict[str, object]:
        """Scores and counts, JSON-serialisable."""
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "exact_match": self.exact_match,
            "sentences": self.sentences,
            "skipped": self.skipped,
            "gold": self.gold,
            "pred": self.pred,
            "matched": self.matched,
            "exact": self.exact,
        }

    def __repr__(self) -> str:
        return (
            f"BracketScore(p={self.precision:.2f}, r={self.recall:.2f}, f1={self.f1:.2f}, "
            f"sentences={self.sentences})"
        )


def bracket_scores(
    gold_trees: Sequence[Tree], pred_trees: Sequence[Tree], max_length: Optional[int] = None
) -> BracketScore:
    """Labelled bracket scores of predicted trees against gold ones (EVALB, COLLINS.prm; see BracketScore).

    gold_trees (Sequence[Tree]): gold trees.
    pred_trees (Sequence[Tree]): predicted trees, same words, same order.
    max_length (Optional[int]): skip sentences longer than this (EVALB length: words except -NONE-).
    RETURNS (BracketScore): precision, recall, f1, exact_match and counts.
    RAISES (ValueError): if the lists differ in length, or sentence i has different words (naming i).
    """
    if len(gold_trees) != len(pred_trees):
        raise ValueError(f"gold has {len(gold_trees)} trees but pred has {len(pred_trees)}")
    score = BracketScore(max_length=max_length)
    for i, (gold, pred) in enumerate(zip(gold_trees, pred_trees)):
        try:
            score.add(gold, pred)
        except ValueError as error:
            raise ValueError(f"sentence {i}: {error}") from None
    return score
