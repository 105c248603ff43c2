"""From treebank trees to the lexicalized binary derivations the A* parser searches over, and back.

A gold tree (traces and function tags already stripped by the corpus reader) becomes a *derivation*: a
binary, lexicalized tree in two layers, so that unary rules never stack and every derivation is finite.

- A **bottom** node (layer 0) is either a tag over one word (a leaf) or a binary rule
  ``X[h] -> Y[h'] Z[h]`` / ``X[h] -> Y[h] Z[h']`` over two top nodes, the head child sharing the head word.
- A **top** node (layer 1) sits over exactly one bottom node with the same span and head: either the
  identity, or one collapsed unary chain ``X1 -> X2 -> ... -> Xk`` (``X1`` on top, the bottom node
  labelled ``Xk``; the interior labels ``X2 .. Xk-1`` are kept so the chain can be restored).
- The derivation's root is a top node labelled ``ROOT`` over the whole sentence.

Transforms, in this order (Klein & Manning 2003 style):

1. **heads**: Collins' head table (``heads.py``) picks each constituent's head child;
2. **parent annotation** (vertical order 2): a phrasal label X whose parent is P becomes ``X^P``; tags
   are not annotated (they are given to the parser);
3. **head-outward binarization**: a constituent with children ``L_k .. L_1 H R_1 .. R_m`` is built from
   its head child H by attaching ``R_1 .. R_m`` and then ``L_1 .. L_k``, one binary node per sibling.
   The last node carries the constituent's label; the others are intermediate symbols ``@X^P|ctx`` where
   ``ctx`` lists the last ``horizontal`` siblings attached (horizontal Markovization), e.g. ``@NP^S|<DT``;
4. **unary chains** are collapsed into one unary rule (above).

``debinarize`` inverts all of it: intermediate nodes are spliced into their parents, chains expanded,
annotations removed, and the ROOT wrapper dropped; ``debinarize(binarize(t)) == t`` for every tree of the
sample (tested). Glue symbols (kind ``GLUE``, used only by the back-off grammar of ``backoff.py``) are
spliced the same way, so a glued parse reads back as one flat constituent over its chunks. Symbols are tuples, never parsed back from strings, so labels may contain any character.
Time O(size of the tree) both ways.
"""
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

from ..corpus import Tree
from .heads import head_child

__all__ = ["Symbol", "TAG", "PHRASE", "BAR", "GLUE", "ROOT", "ROOT_SYMBOL", "symbol_name", "Node", "binarize",
           "debinarize", "derivation_dependencies", "flat_tree"]

# Symbol kinds.
TAG = "tag"          # a part-of-speech tag: (TAG, tag, "", ())
PHRASE = "phrase"    # a constituent label, parent-annotated: (PHRASE, base, parent base, ())
BAR = "bar"          # an intermediate binarization symbol: (BAR, base, parent base, context)
ROOT = "root"        # the wrapper over the whole sentence: (ROOT, "ROOT", "", ())
GLUE = "glue"        # a back-off glue constituent (backoff.py): (GLUE, label, "", (direction,))

Symbol = Tuple[str, str, str, Tuple[str, ...]]
ROOT_SYMBOL: Symbol = (ROOT, "ROOT", "", ())
_WRAPPER_LABELS = frozenset({"ROOT", "TOP", ""})

HEAD_LEFT = 0        # a binary rule whose left child is the head child
HEAD_RIGHT = 1       # ... whose right child is the head child


def symbol_name(symbol: Symbol) -> str:
    """A readable name: ``NN``, ``NP^S``, ``@NP^S|<DT``, ``ROOT``."""
    kind, base, parent, context = symbol
    if kind == PHRASE:
        return f"{base}^{parent}" if parent else base
    if kind == BAR:
        annotated = f"{base}^{parent}" if parent else base
        return f"@{annotated}|{','.join(context)}"
    if kind == GLUE:
        return f"@{base}|glue{''.join(context)}"
    return base


@dataclass
class Node:
    """One node of a derivation.

    symbol (Symbol): the node's label.
    head (int): the head word, a 0-based position.
    start, end (int): the span of words, end exclusive.
    children (tuple): a bottom node has () (a tag over word ``start``) or (left, right) top nodes; a top
        node has (bottom,) - the single bottom node below it.
    head_side (int): HEAD_LEFT or HEAD_RIGHT for a binary bottom node, -1 otherwise.
    chain (Optional[Tuple[Symbol, ...]]): for a top node, None for the identity, else the interior symbols
        of its collapsed unary chain, top to bottom (possibly empty); None for bottom nodes.
    """

    symbol: Symbol
    head: int
    start: int
    end: int
    children: tuple = ()
    head_side: int = -1
    chain: Optional[Tuple[Symbol, ...]] = None

    @property
    def is_top(self) -> bool:
        """Whether this is a top (layer 1) node."""
        return len(self.children) == 1

    def nodes(self) -> Iterator["Node"]:
        """Every node of the derivation below and including this one, parents before children."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def _phrase(label: str, parent: str, vertical: bool) -> Symbol:
    return (PHRASE, label, parent if vertical else "", ())


def binarize(tree: Tree, *, horizontal: int = 1, vertical: bool = True) -> Node:
    """The derivation of a treebank tree (see the module docstring).

    tree (Tree): a tree with preterminals over its words, traces and function tags stripped. A top-level
        wrapper labelled ROOT, TOP or "" becomes the ROOT node; any other label gets a ROOT above it.
    horizontal (int): siblings remembered in intermediate symbols (0, 1, 2, ...).
    vertical (bool): parent-annotate phrasal labels.
    RETURNS (Node): the top node labelled ROOT over the whole sentence.
    RAISES (ValueError): for a word without a tag, or a negative horizontal order.
    """
    if horizontal < 0:
        raise ValueError(f"horizontal Markovization order must be >= 0, got {horizontal}")
    if tree.is_leaf():
        raise ValueError(f"word {tree.label!r} has no tag: every word must sit under a preterminal")
    root = tree if tree.label in _WRAPPER_LABELS and not tree.is_preterminal() else Tree("ROOT", [tree])
    positions = iter(range(len(tree.leaves())))
    return _Binarizer(horizontal, vertical, positions).top(root, "", is_root=True)


class _Binarizer:
    """The recursive transform behind ``binarize`` (the settings and the word counter travel with it)."""

    def __init__(self, horizontal: int, vertical: bool, positions: Iterator[int]) -> None:
        self.horizontal = horizontal
        self.vertical = vertical
        self.positions = positions

    def symbol(self, node: Tree, parent: str, is_root: bool = False) -> Symbol:
        return ROOT_SYMBOL if is_root else _phrase(node.label, parent, self.vertical)

    def top(self, node: Tree, parent: str, is_root: bool = False) -> Node:
        """The top node for a constituent (or preterminal) `node` whose parent's label is `parent`."""
        if node.is_preterminal():
            leaf = self.leaf(node)
            return Node(leaf.symbol, leaf.head, leaf.start, leaf.end, (leaf,))
        if not node.children:
            raise ValueError(f"word {node.label!r} has no tag: every word must sit under a preterminal")
        chain = [node]
        parents = [parent]
        while len(chain[-1].children) == 1 and not chain[-1].children[0].is_preterminal():
            parents.append(chain[-1].label)
            chain.append(chain[-1].children[0])
            if not chain[-1].children:
                raise ValueError(f"word {chain[-1].label!r} has no tag")
        symbols = [self.symbol(chain[0], parents[0], is_root)]
        symbols += [self.symbol(n, p) for n, p in zip(chain[1:], parents[1:])]
        last = chain[-1]
        if len(last.children) == 1:                       # the chain ends on a preterminal
            bottom = self.leaf(last.children[0])
            interior = tuple(symbols[1:])
        else:
            bottom = self.bottom(last, symbols[-1])
            if len(chain) == 1:
                return Node(bottom.symbol, bottom.head, bottom.start, bottom.end, (bottom,))
            interior = tuple(symbols[1:-1])
        return Node(symbols[0], bottom.head, bottom.start, bottom.end, (bottom,), chain=interior)

    def leaf(self, preterminal: Tree) -> Node:
        position = next(self.positions)
        return Node((TAG, preterminal.label, "", ()), position, position, position + 1)

    def bottom(self, node: Tree, symbol: Symbol) -> Node:
        """The binary bottom node for a constituent with two or more children, labelled `symbol`."""
        label = node.label if symbol[0] != ROOT else "ROOT"
        kids = [self.top(child, label) for child in node.children]
        k = head_child(label, [child.label for child in node.children])
        order = [(HEAD_LEFT, i) for i in range(k + 1, len(kids))] + [(HEAD_RIGHT, i) for i in range(k - 1, -1, -1)]
        current = kids[k]
        attached: List[str] = []
        for step, (side, i) in enumerate(order):
            sibling = kids[i]
            attached.append((">" if side == HEAD_LEFT else "<") + node.children[i].label)
            if step == len(order) - 1:
                label_symbol = symbol
            else:
                context = tuple(attached[len(attached) - self.horizontal:]) if self.horizontal else ()
                label_symbol = (BAR, symbol[1], symbol[2], context)
            left, right = (current, sibling) if side == HEAD_LEFT else (sibling, current)
            made = Node(label_symbol, current.head, left.start, right.end, (left, right), head_side=side)
            if step == len(order) - 1:
                return made
            current = Node(made.symbol, made.head, made.start, made.end, (made,))
        raise AssertionError("a constituent with two or more children always gets a binary node")


def debinarize(derivation: Node, words: Sequence[str]) -> Tree:
    """The treebank tree of a derivation: the inverse of ``binarize``.

    derivation (Node): a top node (usually labelled ROOT) over words 0..n-1.
    words (Sequence[str]): the words, for the leaves.
    RETURNS (Tree): labels without annotation; the ROOT wrapper removed when it has a single child.
    """
    tree = _tree_of_top(derivation, words)
    if derivation.symbol == ROOT_SYMBOL and tree.label == "ROOT" and len(tree.children) == 1:
        return tree.children[0]
    return tree


def _tree_of_top(node: Node, words: Sequence[str]) -> Tree:
    tree = _tree_of_bottom(node.children[0], words)
    if node.chain is None:
        return tree
    for symbol in reversed((node.symbol,) + node.chain):
        tree = Tree(symbol[1], [tree])
    return tree


def _tree_of_bottom(node: Node, words: Sequence[str]) -> Tree:
    if not node.children:
        return Tree(node.symbol[1], [Tree(words[node.start])])
    return Tree(node.symbol[1], _spliced_children(node, words))


def _spliced_children(node: Node, words: Sequence[str]) -> List[Tree]:
    """The children of a binary bottom node, with intermediate (BAR) children replaced by theirs, and glue
    children by their chunks (a glue top over a chunk's bottom node stands for that chunk)."""
    out: List[Tree] = []
    stack = list(reversed(node.children))
    while stack:
        top = stack.pop()
        bottom = top.children[0]
        if top.chain is None and bottom.symbol[0] in (BAR, GLUE):
            stack.extend(reversed(bottom.children))
        elif top.symbol[0] == GLUE:
            out.append(_tree_of_bottom(bottom, words))
        else:
            out.append(_tree_of_top(top, words))
    return out


def derivation_dependencies(derivation: Node) -> List[int]:
    """The head-word dependencies of a derivation, in the project's convention.

    RETURNS (List[int]): length n + 1, ``heads[0] == -1``, ``heads[m]`` the head of word m (1-based), 0 for
        the head of the sentence.
    """
    n = derivation.end
    heads = [-1] + [0] * n
    for node in derivation.nodes():
        if len(node.children) == 2:
            for child in node.children:
                if child.head != node.head:
                    heads[child.head + 1] = node.head + 1
    return heads


def flat_tree(words: Sequence[str], tags: Sequence[str]) -> Tree:
    """The fallback tree for a sentence that could not be parsed: ``(X (t1 w1) (t2 w2) ...)``.

    Evaluation scores it (all of its brackets are wrong) so that a failed sentence counts, never vanishes.
    """
    return Tree("X", [Tree(tag, [Tree(word)]) for word, tag in zip(words, tags)])
