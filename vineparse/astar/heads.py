"""Head percolation: which child of a constituent carries its head word.

The table is the one of Collins (1999, *Head-Driven Statistical Models for Natural Language Parsing*,
appendix A), with the special rule for noun phrases. For a constituent labelled X with children
c_1 .. c_m, the rule for X gives a search direction and a priority list of labels: for each label in the
list, in order, scan the children in that direction and return the first child with that label; if no label
matches, return the first child in the search direction. Labels are compared without function tags
(the corpus reader strips them already).

Noun phrases (NP, and NX, NML which behave alike) use Collins' procedure instead:

1. the last child, if it is a possessive marker (POS);
2. else the rightmost child among NN, NNP, NNPS, NNS, NX, POS, JJR;
3. else the leftmost NP;
4. else the rightmost $, ADJP, PRN;
5. else the rightmost CD;
6. else the rightmost JJ, JJS, RB, QP;
7. else the last child.

Coordination (Collins' rule that an X CC Y head moves left over the CC) is not applied: it changes the
dependency structure and the `.dp` files of the sample follow the plain table (see `tests/astar`).
A unary constituent's head is its only child. Time O(m * |priority list|) per constituent.
"""
from typing import Dict, List, Sequence, Tuple

from ..corpus import Tree

__all__ = ["HEAD_RULES", "head_child", "head_words", "dependencies"]

LEFT_TO_RIGHT = "left"
RIGHT_TO_LEFT = "right"

# label -> (search direction, priority list); Collins (1999), table A.1.
HEAD_RULES: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "ADJP": (LEFT_TO_RIGHT, ("NNS", "QP", "NN", "$", "ADVP", "JJ", "VBN", "VBG", "ADJP", "JJR", "NP", "JJS",
                             "DT", "FW", "RBR", "RBS", "SBAR", "RB")),
    "ADVP": (RIGHT_TO_LEFT, ("RB", "RBR", "RBS", "FW", "ADVP", "TO", "CD", "JJR", "JJ", "IN", "NP", "JJS", "NN")),
    "CONJP": (RIGHT_TO_LEFT, ("CC", "RB", "IN")),
    "FRAG": (RIGHT_TO_LEFT, ()),
    "INTJ": (LEFT_TO_RIGHT, ()),
    "LST": (RIGHT_TO_LEFT, ("LS", ":")),
    "NAC": (LEFT_TO_RIGHT, ("NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP", "VBG", "JJ",
                            "JJS", "JJR", "ADJP", "FW")),
    "PP": (RIGHT_TO_LEFT, ("IN", "TO", "VBG", "VBN", "RP", "FW")),
    "PRN": (LEFT_TO_RIGHT, ()),
    "PRT": (RIGHT_TO_LEFT, ("RP",)),
    "QP": (LEFT_TO_RIGHT, ("$", "IN", "NNS", "NN", "JJ", "RB", "DT", "CD", "NCD", "QP", "JJR", "JJS")),
    "RRC": (RIGHT_TO_LEFT, ("VP", "NP", "ADVP", "ADJP", "PP")),
    "S": (LEFT_TO_RIGHT, ("TO", "IN", "VP", "S", "SBAR", "ADJP", "UCP", "NP")),
    "SBAR": (LEFT_TO_RIGHT, ("WHNP", "WHPP", "WHADVP", "WHADJP", "IN", "DT", "S", "SQ", "SINV", "SBAR", "FRAG")),
    "SBARQ": (LEFT_TO_RIGHT, ("SQ", "S", "SINV", "SBARQ", "FRAG")),
    "SINV": (LEFT_TO_RIGHT, ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "S", "SINV", "ADJP", "NP")),
    "SQ": (LEFT_TO_RIGHT, ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "SQ")),
    "UCP": (RIGHT_TO_LEFT, ()),
    "VP": (LEFT_TO_RIGHT, ("TO", "VBD", "VBN", "MD", "VBZ", "VB", "VBG", "VBP", "VP", "ADJP", "NN", "NNS", "NP")),
    "WHADJP": (LEFT_TO_RIGHT, ("CC", "WRB", "JJ", "ADJP")),
    "WHADVP": (RIGHT_TO_LEFT, ("CC", "WRB")),
    "WHNP": (LEFT_TO_RIGHT, ("WDT", "WP", "WP$", "WHADJP", "WHPP", "WHNP")),
    "WHPP": (RIGHT_TO_LEFT, ("IN", "TO", "FW")),
    "X": (RIGHT_TO_LEFT, ()),
}

NOUN_PHRASES = frozenset({"NP", "NX", "NML"})
_NP_STEPS: Tuple[Tuple[str, frozenset], ...] = (
    (RIGHT_TO_LEFT, frozenset({"NN", "NNP", "NNPS", "NNS", "NX", "POS", "JJR"})),
    (LEFT_TO_RIGHT, frozenset({"NP"})),
    (RIGHT_TO_LEFT, frozenset({"$", "ADJP", "PRN"})),
    (RIGHT_TO_LEFT, frozenset({"CD"})),
    (RIGHT_TO_LEFT, frozenset({"JJ", "JJS", "RB", "QP"})),
)


def _scan(labels: Sequence[str], direction: str) -> range:
    return range(len(labels)) if direction == LEFT_TO_RIGHT else range(len(labels) - 1, -1, -1)


def head_child(label: str, child_labels: Sequence[str]) -> int:
    """The index of the head child of a constituent.

    label (str): the constituent's category, without function tags (``"NP"``, ``"VP"``, ...). Unknown
        categories (and ``ROOT``/``TOP`` wrappers) take their leftmost child.
    child_labels (Sequence[str]): the categories or tags of its children, left to right (at least one).
    RETURNS (int): an index into child_labels.
    RAISES (ValueError): if there are no children.
    """
    if not child_labels:
        raise ValueError(f"constituent {label!r} has no children, so it has no head")
    if len(child_labels) == 1:
        return 0
    if label in NOUN_PHRASES:
        if child_labels[-1] == "POS":
            return len(child_labels) - 1
        for direction, wanted in _NP_STEPS:
            for i in _scan(child_labels, direction):
                if child_labels[i] in wanted:
                    return i
        return len(child_labels) - 1
    direction, priorities = HEAD_RULES.get(label, (LEFT_TO_RIGHT, ()))
    for wanted in priorities:
        for i in _scan(child_labels, direction):
            if child_labels[i] == wanted:
                return i
    return _scan(child_labels, direction)[0]


def head_words(tree: Tree) -> Dict[int, int]:
    """The head word of every constituent, keyed by ``id(node)``.

    tree (Tree): a tree whose leaves sit under preterminals (as the corpus reader returns them).
    RETURNS (Dict[int, int]): ``id(node) -> word position`` (0-based) for every node except the leaves.
    """
    heads: Dict[int, int] = {}
    position = 0
    # Iterative post-order: children are finished before their parent.
    stack: List[Tuple[Tree, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if node.is_preterminal():
            heads[id(node)] = position
            position += 1
        elif done:
            k = head_child(node.label, [child.label for child in node.children])
            heads[id(node)] = heads[id(node.children[k])]
        else:
            if not node.children:
                raise ValueError(f"word {node.label!r} has no tag: every word must sit under a preterminal")
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))
    return heads


def dependencies(tree: Tree) -> List[int]:
    """The head-word dependency tree of a constituency tree.

    tree (Tree): a tree with preterminals over its words.
    RETURNS (List[int]): heads in the project's convention, length n + 1: ``heads[0] == -1`` and
        ``heads[m]`` is the head of word m (1-based), 0 for the word heading the whole tree.
    """
    heads = head_words(tree)
    n = len(tree.leaves())
    result = [-1] + [0] * n
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.is_preterminal():
            continue
        h = heads[id(node)]
        for child in node.children:
            ch = heads[id(child)]
            if ch != h:
                result[ch + 1] = h + 1
            stack.append(child)
    return result
