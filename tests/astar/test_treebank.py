"""Head finding, binarization, annotation and their inverse, on the whole PTB sample."""
import pytest

from vineparse.astar.grammar import Grammar, GrammarError
from vineparse.astar.heads import dependencies, head_child
from vineparse.astar.treebank import (BAR, HEAD_LEFT, PHRASE, ROOT_SYMBOL, binarize, debinarize,
                                      derivation_dependencies, flat_tree, symbol_name)
from vineparse.corpus import Tree, parse_brackets, read_ptb_sample
from vineparse.trees import is_projective, validate_heads


@pytest.fixture(scope="module")
def sample():
    return read_ptb_sample("all")


@pytest.mark.parametrize("label,children,expected", [
    ("NP", ["NNP", "NNP", "POS"], 2),               # possessive marker last
    ("NP", ["DT", "JJ", "NN", "PP"], 2),            # rightmost noun
    ("NP", ["NP", ",", "NP"], 0),                   # no noun tag: leftmost NP
    ("NP", ["DT", "CD"], 1),                        # rightmost CD
    ("VP", ["MD", "VP"], 0),                        # MD before VP in the priority list
    ("VP", ["VB", "NP", "PP"], 0),
    ("VP", ["ADVP", "VBD", "NP"], 1),
    ("PP", ["IN", "NP"], 0),
    ("S", ["NP", "VP", "."], 1),
    ("SBAR", ["IN", "S"], 0),
    ("ADVP", ["RB", "RB"], 1),                      # right to left
    ("FRAG", ["NP", "PP"], 1),                      # no priority list: first in the search direction
    ("XYZ", ["NP", "PP"], 0),                       # unknown label: leftmost
    ("NP", ["NN"], 0),
])
def test_head_child(label, children, expected):
    assert head_child(label, children) == expected


def test_head_child_needs_children():
    with pytest.raises(ValueError, match="has no children"):
        head_child("NP", [])


def test_dependencies_of_every_sample_tree_are_projective_trees(sample):
    for tree in sample:
        heads = dependencies(tree)
        validate_heads(heads)
        assert is_projective(heads)
        assert sum(h == 0 for h in heads[1:]) == 1


@pytest.mark.parametrize("horizontal,vertical", [(1, True), (0, True), (2, False)])
def test_binarize_round_trips_on_the_whole_sample(sample, horizontal, vertical):
    """De-binarized, de-annotated derivation of each gold tree == the stripped gold tree."""
    for tree in sample[:: 1 if horizontal == 1 else 5]:
        derivation = binarize(tree, horizontal=horizontal, vertical=vertical)
        assert str(debinarize(derivation, tree.leaves())) == str(tree)
        assert derivation_dependencies(derivation) == dependencies(tree)


def test_derivation_shape(sample):
    """Bottom nodes have 0 or 2 children, top nodes one; heads flow from the head child; spans tile."""
    for tree in sample[:300]:
        derivation = binarize(tree)
        assert derivation.symbol == ROOT_SYMBOL and (derivation.start, derivation.end) == (0, len(tree.leaves()))
        for node in derivation.nodes():
            if len(node.children) == 1:
                bottom = node.children[0]
                assert (bottom.start, bottom.end, bottom.head) == (node.start, node.end, node.head)
                assert len(bottom.children) != 1
            elif len(node.children) == 2:
                left, right = node.children
                assert left.end == right.start and (left.start, right.end) == (node.start, node.end)
                assert node.head == (left.head if node.head_side == HEAD_LEFT else right.head)
            else:
                assert node.end == node.start + 1 and node.head == node.start


def test_annotation_and_intermediate_symbols():
    (tree,) = parse_brackets("((S (NP (DT The) (JJ big) (NN dog)) (VP (VBZ barks)) (. .)))")
    derivation = binarize(tree)
    names = {symbol_name(node.symbol) for node in derivation.nodes()}
    assert {"ROOT", "S^ROOT", "NP^S", "@NP^S|<JJ", "@S^ROOT|>.", "DT", "NN"} <= names
    # VP over a single tag is a unary chain VP^S <- VBZ.
    chains = [n for n in derivation.nodes() if n.chain is not None]
    assert any(symbol_name(n.symbol) == "VP^S" and n.children[0].symbol[1] == "VBZ" for n in chains)
    assert str(debinarize(binarize(tree, vertical=False), tree.leaves())) == str(tree)


def test_unary_chains_and_wrappers():
    (tree,) = parse_brackets("((S (VP (VB Go))))")
    derivation = binarize(tree)
    assert derivation.chain == ((PHRASE, "S", "ROOT", ()), (PHRASE, "VP", "S", ()))
    assert str(debinarize(derivation, ["Go"])) == "(S (VP (VB Go)))"
    wrapped = Tree("ROOT", [Tree("NP", [Tree("NN", [Tree("a")])]), Tree(".", [Tree(".")])])
    assert str(debinarize(binarize(wrapped), ["a", "."])) == str(wrapped)


def test_binarize_errors():
    with pytest.raises(ValueError, match="has no tag"):
        binarize(Tree("word"))
    with pytest.raises(ValueError, match="has no tag"):
        binarize(Tree("S", [Tree("NP", [Tree("NN", [Tree("a")]), Tree("b")])]))
    with pytest.raises(ValueError, match=">= 0"):
        binarize(Tree("NN", [Tree("a")]), horizontal=-1)


def test_flat_tree():
    assert str(flat_tree(["a", "b"], ["DT", "NN"])) == "(X (DT a) (NN b))"


def test_grammar_inventory_and_serialisation(sample):
    derivations = [binarize(t) for t in sample[:200]]
    g = Grammar.from_derivations(derivations)
    assert g.symbols[g.root] == ROOT_SYMBOL
    assert all(g.symbols[i][0] == "tag" for i in g.tags.values())
    assert any(s[0] == BAR for s in g.symbols)
    assert (g.binary_ptr[1:] >= g.binary_ptr[:-1]).all() and g.binary_ptr[-1] == g.n_binary
    for d in derivations[:20]:
        binary, unary = g.events(d)
        assert len(binary) + 1 == d.end
        for e in binary:
            assert g.binary_parent[e.rule] >= 0 and e.head != e.arg
    again = Grammar.from_dict(g.to_dict())
    assert again.symbols == g.symbols and again.binary_rules == g.binary_rules and again.unary_rules == g.unary_rules
    with pytest.raises(GrammarError, match="format"):
        Grammar.from_dict({**g.to_dict(), "format": 0})
    with pytest.raises(GrammarError, match="tag 'ZZ' of word 2"):
        g.tag_ids(["DT", "ZZ"])
    (odd,) = parse_brackets("((QQ (NN a) (NN b)))")
    with pytest.raises(GrammarError, match="lacks"):
        g.events(binarize(odd))
