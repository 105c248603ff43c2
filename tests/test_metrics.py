import numpy as np
import pytest

from vineparse.corpus import CorpusNotFoundError, Sentence, corpus_path, parse_brackets, read_conllu, read_ptb_sample
from vineparse.metrics import (
    PTB_PUNCT_TAGS,
    UD_PUNCT_TAGS,
    AttachmentScore,
    BracketScore,
    bracket_scores,
    evaluate_dependencies,
    punctuation_mask,
)


def tree(text, **options):
    (parsed,) = parse_brackets(text, **options)
    return parsed


def scores(gold, pred, **options):
    score = bracket_scores([tree(gold)], [tree(pred)], **options)
    return score.matched, score.gold, score.pred


# --- attachment scores -------------------------------------------------------------------------------------


def test_attachment_score_counts():
    score = AttachmentScore()
    # 4 words: heads right for 1, 2, 4; labels right for 1, 3, 4 -> LAS counts 1 and 4.
    score.add(
        [-1, 2, 0, 2, 2],
        [-1, 2, 0, 4, 2],
        gold_labels=["nsubj", "root", "obj", "punct"],
        pred_labels=["nsubj", "dep", "obj", "punct"],
    )
    assert (score.words, score.correct_heads, score.correct_labelled) == (4, 3, 2)
    assert score.uas == 75.0 and score.las == 50.0
    score.add([-1, 0], [-1, 1], gold_labels=["root"], pred_labels=["root"])
    assert (score.sentences, score.words, score.correct_heads, score.correct_labelled) == (2, 5, 3, 2)
    assert score.uas == pytest.approx(60.0) and score.las == pytest.approx(40.0)
    assert score.to_dict() == {
        "uas": pytest.approx(60.0),
        "las": pytest.approx(40.0),
        "sentences": 2,
        "words": 5,
        "excluded": 0,
        "correct_heads": 3,
        "correct_labelled": 2,
    }


def test_attachment_score_exclusion_mask():
    score = AttachmentScore()
    score.add([-1, 2, 0, 2], [-1, 3, 0, 1], exclude=[False, False, True])
    # Word 3 (wrong head) is excluded; word 1 is wrong, word 2 right.
    assert (score.words, score.excluded, score.correct_heads) == (2, 1, 1)
    assert score.uas == 50.0
    assert score.las is None  # no labels given


def test_universal_labels_ignore_subtypes():
    gold, pred = ["nmod:poss", "root"], ["nmod", "root"]
    exact, universal = AttachmentScore(), AttachmentScore(universal_labels=True)
    for score in (exact, universal):
        score.add([-1, 2, 0], [-1, 2, 0], gold_labels=gold, pred_labels=pred)
    assert (exact.las, universal.las) == (50.0, 100.0)


def test_empty_score_is_zero():
    score = AttachmentScore()
    assert (score.uas, score.las) == (0.0, 0.0)


@pytest.mark.parametrize(
    "args,kwargs,message",
    [
        (([-1, 0], [-1, 0, 1]), {}, r"pred_heads must have shape \(2,\) like gold_heads, got \(3,\)"),
        (([[-1, 0]], [[-1, 0]]), {}, r"gold_heads must be a 1-D array of length n \+ 1, got shape \(1, 2\)"),
        (([-1, 0], [-1, 0]), {"exclude": [True, False]}, r"exclude must have shape \(1,\), one flag per word"),
        (([-1, 0], [-1, 0]), {"gold_labels": ["root"]}, "give both gold_labels and pred_labels, or neither"),
        (
            ([-1, 0], [-1, 0]),
            {"gold_labels": ["root"], "pred_labels": []},
            r"labels must have one entry per word \(1\), got 1 gold and 0 pred",
        ),
    ],
)
def test_attachment_score_errors(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        AttachmentScore().add(*args, **kwargs)


def ptb_sentence(tags, heads, labels=None):
    words = [f"w{i}" for i in range(len(tags))]
    return Sentence(words, upos=tags, xpos=tags, heads=[-1] + heads, labels=labels)


def test_punctuation_mask_ptb_and_ud():
    ptb = ptb_sentence(["NN", ",", "``", "$", "-LRB-", "#", ".", ":", "''", "-RRB-", "SYM"], [0] * 11)
    assert punctuation_mask(ptb).tolist() == [False] + [True] * 9 + [False]
    ud = Sentence(["$", "5", "."], upos=["SYM", "NUM", "PUNCT"], xpos=["$", "CD", "."])
    assert punctuation_mask(ud, UD_PUNCT_TAGS).tolist() == [False, False, True]
    assert punctuation_mask(ud, PTB_PUNCT_TAGS).tolist() == [True, False, True]


def test_evaluate_dependencies_excludes_punctuation_by_gold_tag():
    gold = ptb_sentence(["NN", "VBZ", "."], [2, 0, 2], ["nsubj", "root", "punct"])
    # The prediction attaches "." wrongly and tags it NN: the gold tag decides that it is excluded.
    pred = ptb_sentence(["NN", "VBZ", "NN"], [2, 0, 1], ["nsubj", "root", "dep"])
    every = evaluate_dependencies([gold], [pred])
    assert (every.words, every.correct_heads, every.correct_labelled) == (3, 2, 2)
    no_punct = evaluate_dependencies([gold], [pred], exclude_punct=True)
    assert (no_punct.words, no_punct.excluded, no_punct.uas, no_punct.las) == (2, 1, 100.0, 100.0)
    # By the gold tag, not the predicted one: tag the gold word NN and the pred word "." instead.
    gold_nn = ptb_sentence(["NN", "VBZ", "NN"], [2, 0, 2])
    pred_dot = ptb_sentence(["NN", "VBZ", "."], [2, 0, 1])
    assert evaluate_dependencies([gold_nn], [pred_dot], exclude_punct=True).words == 3


def test_evaluate_dependencies_errors():
    a = ptb_sentence(["NN"], [0])
    with pytest.raises(ValueError, match="gold has 1 sentences but pred has 2"):
        evaluate_dependencies([a], [a, a])
    other = Sentence(["x"], heads=[-1, 0])
    with pytest.raises(ValueError, match=r"^sentence 1: gold and pred words differ \(1 vs 1 words\)$"):
        evaluate_dependencies([a, a], [a, other])


@pytest.fixture(scope="module")
def ewt_dev():
    try:
        return read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
    except CorpusNotFoundError as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"corpus not available: {error}")


def test_real_ewt_gold_against_a_perturbed_prediction(ewt_dev):
    """Move the head of word 1 in every sentence of two or more words (to the word after the one it had,
    modulo n + 1, skipping itself) and relabel the last word: the expected counts follow by hand."""
    pred = []
    moved = relabelled_only = 0
    moved_non_punct = relabelled_only_non_punct = 0
    for gold in ewt_dev:
        p = gold.copy()
        if gold.n >= 2:
            new = (gold.heads[1] + 1) % (gold.n + 1)
            p.heads[1] = new if new != 1 else 2
            moved += 1
            moved_non_punct += gold.upos[0] != "PUNCT"
        p.labels[-1] = "WRONG"
        if gold.n >= 2:  # the last word is not word 1: its head is still right, only its label is wrong
            relabelled_only += 1
            relabelled_only_non_punct += gold.upos[-1] != "PUNCT"
        pred.append(p)
    total = sum(s.n for s in ewt_dev)
    punct = sum(int((s.upos == "PUNCT").sum()) for s in ewt_dev)
    single = sum(s.n == 1 for s in ewt_dev)  # word 1 keeps its head, only the label is wrong

    every = evaluate_dependencies(ewt_dev, pred)
    assert (every.sentences, every.words) == (2001, total)
    assert every.correct_heads == total - moved
    assert every.correct_labelled == total - moved - relabelled_only - single
    assert every.uas == pytest.approx(100.0 * (total - moved) / total)

    no_punct = evaluate_dependencies(ewt_dev, pred, exclude_punct=True, punct_tags=UD_PUNCT_TAGS)
    single_non_punct = sum(s.n == 1 and s.upos[0] != "PUNCT" for s in ewt_dev)
    assert (no_punct.words, no_punct.excluded) == (total - punct, punct)
    assert no_punct.correct_heads == total - punct - moved_non_punct
    assert no_punct.correct_labelled == (
        total - punct - moved_non_punct - relabelled_only_non_punct - single_non_punct
    )


# --- bracket scores ----------------------------------------------------------------------------------------

DOG = "(S (NP (DT the) (NN dog)) (VP (VBD barked)) (. .))"


def test_identical_trees():
    score = bracket_scores([tree(DOG)], [tree(DOG)])
    assert (score.matched, score.gold, score.pred, score.exact) == (3, 3, 3, 1)
    assert (score.precision, score.recall, score.f1, score.exact_match) == (100.0, 100.0, 100.0, 100.0)


def test_punctuation_is_deleted_before_spans():
    # "." attached inside VP: after deleting it, VP still spans word 2 only, so every bracket matches.
    assert scores(DOG, "(S (NP (DT the) (NN dog)) (VP (VBD barked) (. .)))") == (3, 3, 3)
    # Deletion goes by the GOLD tag: the prediction tagging "." as NN changes nothing.
    assert scores(DOG, "(S (NP (DT the) (NN dog)) (VP (VBD barked) (NN .)))") == (3, 3, 3)
    # -LRB- is not deleted (COLLINS.prm deletes only -NONE- , : `` '' .).
    gold = "(S (NP (NN a)) (PRN (-LRB- -LRB-) (NN b)))"
    assert scores(gold, "(S (NP (NN a) (-LRB- -LRB-)) (PRN (NN b)))") == (1, 3, 3)


def test_brackets_over_only_punctuation_are_dropped():
    gold = "(S (NP (NN it)) (VP (VBZ is)) (X (, ,) (: :)))"
    pred = "(S (NP (NN it)) (VP (VBZ is) (, ,) (: :)))"
    assert scores(gold, pred) == (3, 3, 3)


def test_function_tags_and_root_wrappers_do_not_count():
    gold = "( (S (NP-SBJ (NN it)) (VP (VBZ is))) )"
    pred = "(TOP (S (NP (NN it)) (VP (VBZ is))))"
    assert scores(gold, pred) == (3, 3, 3)
    score = bracket_scores([tree(gold, strip_function_tags=False)], [tree("(ROOT (S (NP (NN it)) (VP (VBZ is))))")])
    assert (score.matched, score.gold, score.pred) == (3, 3, 3)


def test_advp_equals_prt():
    gold = "(S (NP (PRP I)) (VP (VBD gave) (PRT (RP up))))"
    assert scores(gold, "(S (NP (PRP I)) (VP (VBD gave) (ADVP (RP up))))") == (4, 4, 4)
    assert scores(gold, "(S (NP (PRP I)) (VP (VBD gave) (PP (RP up))))") == (3, 4, 4)


def test_duplicated_brackets_match_as_a_multiset():
    double = "(S (NP (NP (DT a) (NN b))) (VP (VBZ c)))"
    single = "(S (NP (DT a) (NN b)) (VP (VBZ c)))"
    score = bracket_scores([tree(double)], [tree(single)])
    assert (score.matched, score.gold, score.pred, score.exact) == (3, 4, 3, 0)
    assert (score.precision, score.recall) == (100.0, 75.0)
    assert score.f1 == pytest.approx(2 * 100 * 75 / 175)
    assert scores(single, double) == (3, 3, 4)


def test_unary_chains_give_one_bracket_per_node():
    assert scores("(S (VP (VB go)))", "(S (NP (VB go)))") == (1, 2, 2)
    assert scores("(S (VP (VB go)))", "(S (VB go))") == (1, 2, 1)


def test_length_cut_off_counts_punctuation_but_not_traces():
    text = "(S (NP (-NONE- *)) (NP (DT the) (NN dog)) (VP (VBD barked)) (. .))"
    gold = tree(text, strip_traces=False)
    pred = tree(text)
    # EVALB length: 4 words (the, dog, barked, .); the trace is not counted.
    assert bracket_scores([gold], [pred], max_length=3).to_dict()["skipped"] == 1
    kept = bracket_scores([gold], [pred], max_length=4)
    assert (kept.sentences, kept.skipped, kept.matched, kept.gold, kept.pred) == (1, 0, 3, 3, 3)


def test_scores_over_several_sentences_and_no_predicted_brackets():
    score = bracket_scores([tree(DOG), tree("(S (NP (NN a)) (VP (VB b)))")], [tree(DOG), tree("(X (NN a) (VB b))")])
    assert (score.sentences, score.matched, score.gold, score.pred, score.exact) == (2, 3, 6, 4, 1)
    assert (score.precision, score.recall, score.exact_match) == (75.0, 50.0, 50.0)
    flat = bracket_scores([tree("(NN a)")], [tree("(NN a)")])
    assert (flat.precision, flat.recall, flat.f1) == (0.0, 0.0, 0.0)


def test_bracket_score_errors():
    with pytest.raises(ValueError, match="gold has 2 trees but pred has 1"):
        bracket_scores([tree(DOG), tree(DOG)], [tree(DOG)])
    other = "(S (NP (DT the) (NN cat)) (VP (VBD barked)) (. .))"
    with pytest.raises(ValueError, match=r"^sentence 1: gold and pred trees have different words \(4 vs 4 words\)"):
        bracket_scores([tree(DOG), tree(DOG)], [tree(DOG), tree(other)])
    from vineparse.corpus import Tree

    with pytest.raises(ValueError, match="word 'a' has no tag: every word must sit under a preterminal"):
        BracketScore().add(Tree("S", [Tree("a"), Tree("NN", [Tree("b")])]), tree("(S (NN a) (NN b))"))


def test_real_ptb_sample_gold_against_gold():
    try:
        gold, pred = read_ptb_sample("all"), read_ptb_sample("all")
    except CorpusNotFoundError as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"corpus not available: {error}")
    score = bracket_scores(gold, pred)
    assert (score.precision, score.recall, score.f1, score.exact_match) == (100.0, 100.0, 100.0, 100.0)
    assert score.sentences == 3914 and score.gold == score.pred == score.matched > 3914
    cut = bracket_scores(gold, pred, max_length=40)
    assert cut.skipped == sum(len(t.leaves()) > 40 for t in gold) > 0
    assert cut.sentences + cut.skipped == 3914 and cut.f1 == 100.0
    # Relabel every root: recall drops by exactly one bracket per sentence whose root spans a word.
    for t in pred:
        t.label = "XX"
    wrong = bracket_scores(gold, pred)
    assert wrong.matched == score.matched - 3914
    assert np.isclose(wrong.recall, 100.0 * (score.gold - 3914) / score.gold)
