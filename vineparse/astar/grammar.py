"""The rule inventory of the lexicalized grammar: symbols, binary rules and unary rules, as integer arrays.

Read off the training derivations (``treebank.binarize``). Every model scores exactly these rules, and the
search kernels see them through the arrays below:

- symbols ``0 .. S-1`` (``symbols[i]`` is a ``treebank.Symbol`` tuple); tags, phrases, intermediate symbols
  and ROOT alike. ``category[i]`` is the index of the symbol's base label in ``categories`` (``NP^S`` and
  ``NP^VP`` share ``NP``), the key under which the non-factored model generates argument heads.
- binary rules ``0 .. R-1``, sorted by parent: ``parent -> left right`` with ``head_side`` (0: the left child
  is the head child, 1: the right one). The rules of parent X are ``binary_ptr[X] .. binary_ptr[X + 1]``.
- unary rules ``0 .. U-1``, sorted by parent: a top symbol over a bottom symbol, either the identity
  (``unary_chain[u] is None``) or a collapsed chain with its interior symbols. The rules whose top is X are
  ``unary_ptr[X] .. unary_ptr[X + 1]``.

A training derivation maps onto rule ids with ``rule_ids``; ``events`` lists what the models count.
"""
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .treebank import HEAD_LEFT, ROOT_SYMBOL, TAG, Node, Symbol, symbol_name

__all__ = ["Grammar", "BinaryEvent", "UnaryEvent", "GrammarError"]

FORMAT_VERSION = 1


class GrammarError(ValueError):
    """Input the grammar cannot handle (an unknown tag, a malformed saved grammar)."""


class BinaryEvent(NamedTuple):
    """One binary rule application in a training derivation (positions are 0-based word indices)."""

    rule: int
    head: int            # head word of the parent (= head of the head child)
    arg: int             # head word of the non-head child
    head_start: int      # span of the head child
    head_end: int
    arg_start: int       # span of the non-head child
    arg_end: int


class UnaryEvent(NamedTuple):
    """One top node (identity or unary chain) in a training derivation."""

    rule: int
    head: int
    start: int
    end: int


class Grammar:
    """Symbols and rules (see the module docstring). Build with ``Grammar.from_derivations``."""

    def __init__(self, symbols: Sequence[Symbol], binary: Sequence[Tuple[int, int, int, int]],
                 unary: Sequence[Tuple[int, int, Optional[Tuple[int, ...]]]]) -> None:
        """symbols: the symbol tuples; binary: (parent, left, right, head_side); unary: (top, bottom, chain
        or None). Rules are sorted by parent here; ids follow that order."""
        self.symbols: List[Symbol] = [tuple(s[:3]) + (tuple(s[3]),) for s in symbols]
        self.index: Dict[Symbol, int] = {s: i for i, s in enumerate(self.symbols)}
        if len(self.index) != len(self.symbols):
            raise GrammarError("duplicate symbols in the grammar")
        if ROOT_SYMBOL not in self.index:
            raise GrammarError("the grammar has no ROOT symbol")
        self.root = self.index[ROOT_SYMBOL]
        S = len(self.symbols)
        self.categories: List[str] = sorted({s[1] for s in self.symbols})
        cat_index = {c: i for i, c in enumerate(self.categories)}
        self.category = np.array([cat_index[s[1]] for s in self.symbols], dtype=np.int32)
        self.tags: Dict[str, int] = {s[1]: i for i, s in enumerate(self.symbols) if s[0] == TAG}

        binary = sorted(tuple(int(x) for x in rule) for rule in binary)
        self.binary_rules: List[Tuple[int, int, int, int]] = binary
        arr = np.array(binary, dtype=np.int32).reshape(-1, 4)
        self.binary_parent, self.binary_left, self.binary_right, self.binary_side = (
            np.ascontiguousarray(arr[:, k]) for k in range(4))
        if arr.size and (arr[:, :3].min() < 0 or arr[:, :3].max() >= S):
            raise GrammarError("a binary rule names a symbol outside the grammar")
        self.binary_ptr = np.searchsorted(self.binary_parent, np.arange(S + 1)).astype(np.int32)
        # The non-head child of each binary rule, and its base category.
        self.binary_arg = np.where(self.binary_side == HEAD_LEFT, self.binary_right, self.binary_left).astype(np.int32)
        self.binary_index = {rule: r for r, rule in enumerate(binary)}

        unary = sorted(((int(t), int(b), None if c is None else tuple(int(x) for x in c)) for t, b, c in unary),
                       key=lambda u: (u[0], u[1], u[2] is not None, u[2] or ()))
        self.unary_rules = unary
        self.unary_parent = np.array([u[0] for u in unary], dtype=np.int32)
        self.unary_child = np.array([u[1] for u in unary], dtype=np.int32)
        self.unary_chain: List[Optional[Tuple[int, ...]]] = [u[2] for u in unary]
        if unary and (min(min(u[0], u[1]) for u in unary) < 0 or max(max(u[0], u[1]) for u in unary) >= S):
            raise GrammarError("a unary rule names a symbol outside the grammar")
        self.unary_ptr = np.searchsorted(self.unary_parent, np.arange(S + 1)).astype(np.int32)
        self.unary_index = {rule: u for u, rule in enumerate(unary)}

    # ----------------------------------------------------------------------------------------------
    @classmethod
    def from_derivations(cls, derivations: Iterable[Node]) -> "Grammar":
        """Every symbol and rule used by the derivations (tags and ROOT always included).

        RETURNS (Grammar): symbols sorted (tags first, then by name) so that ids do not depend on the order
            of the training data.
        """
        symbols = {ROOT_SYMBOL}
        binary, unary = set(), set()
        for derivation in derivations:
            for node in derivation.nodes():
                symbols.add(node.symbol)
                if node.chain:
                    symbols.update(node.chain)
                if len(node.children) == 2:
                    left, right = node.children
                    binary.add((node.symbol, left.symbol, right.symbol, node.head_side))
                elif len(node.children) == 1:
                    unary.add((node.symbol, node.children[0].symbol, node.chain))
        ordered = sorted(symbols, key=lambda s: (s[0] != TAG, symbol_name(s), s))
        index = {s: i for i, s in enumerate(ordered)}
        return cls(
            ordered,
            [(index[p], index[l], index[r], side) for p, l, r, side in binary],
            [(index[t], index[b], None if c is None else tuple(index[x] for x in c)) for t, b, c in unary],
        )

    @property
    def n_symbols(self) -> int:
        return len(self.symbols)

    @property
    def n_binary(self) -> int:
        return len(self.binary_rules)

    @property
    def n_unary(self) -> int:
        return len(self.unary_rules)

    def name(self, symbol: int) -> str:
        """The readable name of a symbol id."""
        return symbol_name(self.symbols[symbol])

    def tag_ids(self, tags: Sequence[str]) -> np.ndarray:
        """Symbol ids of the given tags, int32.

        RAISES (GrammarError): for a tag the grammar never saw, naming it and its position.
        """
        out = np.empty(len(tags), dtype=np.int32)
        for i, tag in enumerate(tags):
            try:
                out[i] = self.tags[tag]
            except KeyError:
                raise GrammarError(
                    f"tag {tag!r} of word {i + 1} is not in the grammar (known tags: "
                    f"{', '.join(sorted(self.tags))})") from None
        return out

    # ----------------------------------------------------------------------------------------------
    def rule_ids(self, node: Node) -> Optional[int]:
        """The rule id of a binary bottom node or a top node (None for a tag leaf).

        RAISES (GrammarError): if the derivation uses a symbol or rule the grammar lacks.
        """
        try:
            if len(node.children) == 2:
                left, right = node.children
                key = (self.index[node.symbol], self.index[left.symbol], self.index[right.symbol], node.head_side)
                return self.binary_index[key]
            if len(node.children) == 1:
                chain = None if node.chain is None else tuple(self.index[s] for s in node.chain)
                return self.unary_index[(self.index[node.symbol], self.index[node.children[0].symbol], chain)]
        except KeyError as missing:
            raise GrammarError(f"the derivation uses a rule or symbol the grammar lacks ({missing})") from None
        return None

    def events(self, derivation: Node) -> Tuple[List[BinaryEvent], List[UnaryEvent]]:
        """The binary and unary rule applications of a derivation, as the models count them."""
        binary: List[BinaryEvent] = []
        unary: List[UnaryEvent] = []
        for node in derivation.nodes():
            if len(node.children) == 2:
                head, arg = node.children if node.head_side == HEAD_LEFT else node.children[::-1]
                binary.append(BinaryEvent(self.rule_ids(node), node.head, arg.head, head.start, head.end,
                                          arg.start, arg.end))
            elif len(node.children) == 1:
                unary.append(UnaryEvent(self.rule_ids(node), node.head, node.start, node.end))
        return binary, unary

    # ----------------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON/msgpack-serialisable description (symbols as lists, rules as int lists)."""
        return {
            "format": FORMAT_VERSION,
            "symbols": [[s[0], s[1], s[2], list(s[3])] for s in self.symbols],
            "binary": [list(rule) for rule in self.binary_rules],
            "unary": [[t, b, None if c is None else list(c)] for t, b, c in self.unary_rules],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Grammar":
        """Inverse of ``to_dict``.

        RAISES (GrammarError): for another format version or a malformed description.
        """
        if data.get("format") != FORMAT_VERSION:
            raise GrammarError(f"grammar format {data.get('format')!r} is not supported (expected {FORMAT_VERSION})")
        try:
            symbols = [(s[0], s[1], s[2], tuple(s[3])) for s in data["symbols"]]
            return cls(symbols, [tuple(r) for r in data["binary"]],
                       [(t, b, None if c is None else tuple(c)) for t, b, c in data["unary"]])
        except (KeyError, TypeError, IndexError, ValueError, OverflowError) as error:
            raise GrammarError(f"malformed grammar description: {error}") from None
