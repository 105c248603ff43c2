import pytest

from vineparse.corpus import CorpusError, Tree, parse_brackets, read_mrg, read_ptb_sample
from vineparse.corpus.ptb import strip_function_tag

PIERRE = """
( (S
    (NP-SBJ
      (NP (NNP Pierre) (NNP Vinken) )
      (, ,) )
    (VP (MD will)
      (VP (VB join)
        (NP (DT the) (NN board) )
        (PP-CLR (IN as)
          (NP (DT a) (NN director) ))))
    (. .) ))
"""

TRACES = """( (S (NP-SBJ-1 (-NONE- *) ) (VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-2) ))
   (NP=2 (-LRB- -LRB-) (NNS things) (-RRB- -RRB-) )) (. .) ))"""


@pytest.fixture(scope="module")
def sample():
    return read_ptb_sample("all")


def test_parse_unwraps_and_normalises():
    (tree,) = parse_brackets(PIERRE)
    assert str(tree) == (
        "(S (NP (NP (NNP Pierre) (NNP Vinken)) (, ,)) (VP (MD will) (VP (VB join) (NP (DT the) (NN board))"
        " (PP (IN as) (NP (DT a) (NN director))))) (. .))"
    )
    assert tree.leaves() == ["Pierre", "Vinken", ",", "will", "join", "the", "board", "as", "a", "director", "."]
    assert tree.pos()[:3] == [("Pierre", "NNP"), ("Vinken", "NNP"), (",", ",")]


def test_raw_trees_keep_function_tags():
    (tree,) = parse_brackets(PIERRE, strip_traces=False, strip_function_tags=False)
    assert tree.children[0].label == "NP-SBJ"
    assert "(PP-CLR (IN as)" in str(tree)


def test_traces_and_emptied_constituents_are_removed_recursively():
    (tree,) = parse_brackets(TRACES)
    # NP-SBJ-1 and SBAR (whose S held only a trace) disappear entirely; -LRB-/-RRB- stay intact.
    assert str(tree) == "(S (VP (VBD said) (NP (-LRB- -LRB-) (NNS things) (-RRB- -RRB-))) (. .))"


def test_traces_kept_on_request():
    (tree,) = parse_brackets(TRACES, strip_traces=False)
    assert str(tree).startswith("(S (NP (-NONE- *)) (VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-2)))")
    assert ("*T*-2", "-NONE-") in tree.pos()


@pytest.mark.parametrize(
    "label,stripped",
    [
        ("NP-SBJ-1", "NP"),
        ("PP-CLR", "PP"),
        ("NP=2", "NP"),
        ("NP-SBJ=1-3", "NP"),
        ("ADVP-PRD-LOC=3", "ADVP"),
        ("-NONE-", "-NONE-"),
        ("-LRB-", "-LRB-"),
        ("-RRB-", "-RRB-"),
        ("PRP$", "PRP$"),
        ("S", "S"),
    ],
)
def test_strip_function_tag(label, stripped):
    assert strip_function_tag(label) == stripped


def test_top_level_labels_and_wrappers():
    labelled, unlabelled_pair, top = parse_brackets("(S (NN a))\n( (NN b) (NN c) )\n(TOP (S (NN d)))")
    assert str(labelled) == "(S (NN a))"
    assert str(unlabelled_pair) == "(ROOT (NN b) (NN c))"
    assert str(top) == "(TOP (S (NN d)))"
    (preterminal,) = parse_brackets("( (NN word) )")
    assert preterminal.is_preterminal() and preterminal.leaves() == ["word"]


def test_tree_methods():
    (tree,) = parse_brackets("(S (NP (DT the) (NN dog)) (VP (VBD ran)))")
    leaf = tree.children[0].children[0].children[0]
    assert leaf == Tree("the") and leaf.is_leaf() and not leaf.is_preterminal()
    assert tree.children[0].children[0].is_preterminal() and not tree.is_preterminal()
    assert str(leaf) == "the"
    copy = tree.copy()
    assert copy == tree
    copy.children[0].label = "X"
    copy.children[1].children[0].children[0].label = "walked"
    assert str(tree) == "(S (NP (DT the) (NN dog)) (VP (VBD ran)))"
    assert parse_brackets(str(tree)) == [tree]
    assert Tree("S", [Tree("a"), Tree("NN", [Tree("b")])]).leaves() == ["a", "b"]


MALFORMED = [
    ("(S (NP (NN a))\n", 1, "unbalanced brackets: 1 bracket(s) opened here never closed"),
    ("(S (NN a))\n\n( (S (NN a)\n", 3, "unbalanced brackets: 2 bracket(s) opened here never closed"),
    ("(S (NN a)))\n", 1, "unbalanced brackets: ')' closes nothing"),
    ("(S (NN a))\nfoo (S (NN b))", 2, "text outside brackets: 'foo'"),
    ("(S\n  ()\n)", 2, "empty bracket '()': a constituent needs children"),
    ("(S (NN a)\n (VP))", 2, "empty bracket '(VP)': a constituent needs children"),
    ("(S (NP a (NN b)))", 1, "word 'a' must be the only child of its tag 'NP'"),
    ("(S (NP (NN b) a))", 1, "word 'a' must be the only child of its tag 'NP'"),
    ("(S (NN a b))", 1, "word 'b' must be the only child of its tag 'NN'"),
    ("( (NN b)\n a)", 2, "word 'a' has no tag"),
    ("((a))", 1, "empty bracket '(a)': a constituent needs children"),
    ("(S (NN a))\n( (S (NP-SBJ (-NONE- *)) ))", 2, "tree has no words left after removing -NONE- traces"),
]


@pytest.mark.parametrize("text,line,reason", MALFORMED)
def test_malformed_brackets(tmp_path, text, line, reason):
    path = tmp_path / "wsj_9999.mrg"
    path.write_text(text)
    with pytest.raises(CorpusError) as info:
        read_mrg(path)
    assert str(info.value) == f"{path}:{line}: {reason}"
    assert (info.value.line, info.value.reason) == (line, reason)


def test_parse_brackets_names_its_source():
    with pytest.raises(CorpusError, match=r"^pred.txt:1: unbalanced brackets: '\)' closes nothing$"):
        parse_brackets(")", source="pred.txt")


def test_sample_counts_and_split(sample):
    assert len(sample) == 3914
    train, test = read_ptb_sample("train"), read_ptb_sample("test")
    assert (len(train), len(test)) == (3669, 245)
    assert [str(t) for t in train + test] == [str(t) for t in sample]
    assert sample[0].leaves()[:2] == ["Pierre", "Vinken"]


def test_sample_is_normalised_by_default(sample):
    tags = {tag for tree in sample for _, tag in tree.pos()}
    assert "-NONE-" not in tags and {"-LRB-", "-RRB-", "``", "''"} <= tags

    def labels(tree):
        stack, found = [tree], set()
        while stack:
            node = stack.pop()
            if node.children and not node.is_preterminal():
                found.add(node.label)
                stack.extend(node.children)
        return found

    categories = set().union(*(labels(tree) for tree in sample))
    assert not any("-" in label or "=" in label for label in categories)
    raw = read_ptb_sample("test", strip_traces=False, strip_function_tags=False)
    assert any(tag == "-NONE-" for tree in raw for _, tag in tree.pos())
    assert any("NP-SBJ" in str(tree) for tree in raw)


def test_unknown_section():
    with pytest.raises(ValueError, match="unknown PTB sample section 'dev'"):
        read_ptb_sample("dev")
