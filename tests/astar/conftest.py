import os
import sys

import pytest

# The tests import their brute-force oracle (lexoracle.py) as a sibling module.
sys.path.insert(0, os.path.dirname(__file__))
# Hypothesis profiles are global and other packages' conftests register theirs; these tests set their own
# example counts instead (oracle.EXAMPLES: fewer under HYPOTHESIS_PROFILE=ci).

TRAIN_SLICE = 400          # training trees for the parsers the tests share (a few seconds to train)
LP_SLICE = 150             # trees for the approximate projection's LP


@pytest.fixture(scope="session")
def ptb_train():
    from vineparse.corpus import read_ptb_sample
    return read_ptb_sample("train")


@pytest.fixture(scope="session")
def ptb_test():
    from vineparse.corpus import read_ptb_sample
    return read_ptb_sample("test")


@pytest.fixture(scope="session")
def factored_parser(ptb_train):
    from vineparse.astar import AStarParser
    return AStarParser().train(ptb_train[:TRAIN_SLICE], model="factored")


@pytest.fixture(scope="session")
def nonfactored_parser(ptb_train):
    from vineparse.astar import AStarParser
    return AStarParser().train(ptb_train[:TRAIN_SLICE], model="nonfactored", lp_sentences=LP_SLICE)


@pytest.fixture(scope="session")
def short_test_sentences(ptb_test, factored_parser):
    """Test sentences of at most 8 words (words, tags) the training slice's grammar covers."""
    from vineparse.astar.projections import null_projection
    from vineparse._kernels.astar_projections import CFGProjection
    out = []
    for tree in ptb_test:
        pos = tree.pos()
        if len(pos) <= 8:
            words, tags = [w for w, _ in pos], [t for _, t in pos]
            if all(t in factored_parser.grammar.tags for t in tags):
                chart = CFGProjection(factored_parser.rules,
                                      null_projection(factored_parser.grammar, len(tags)).tables(),
                                      factored_parser.grammar.tag_ids(tags))
                if chart.parsable:
                    out.append((words, tags))
    assert len(out) >= 4
    return out


@pytest.fixture(scope="session")
def ewt_backoff_sentences(factored_parser):
    """EWT test sentences of 3-7 words (XPOS tags) that the training slice's grammar cannot parse: some with
    tags outside its training set, some without a derivation."""
    from vineparse.astar import ParseError
    from vineparse.corpus import corpus_path, read_conllu
    unknown, underivable = [], []
    for s in read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu")):
        if not 3 <= len(s.words) <= 7:
            continue
        words, tags = list(s.words), list(s.xpos)
        if any(t not in factored_parser.grammar.tags for t in tags):
            unknown.append((words, tags))
        elif len(underivable) < 4:
            try:
                factored_parser.parse(words, tags, heuristic="cfg", backoff=False)
            except ParseError:
                underivable.append((words, tags))
        if len(unknown) >= 4 and len(underivable) >= 4:
            break
    assert len(unknown) >= 2 and len(underivable) >= 2
    return unknown[:4] + underivable
