"""The A* parser object: train a lexicalized model on treebank trees, parse tagged sentences with a chosen
heuristic, save and load.

    from vineparse.astar import AStarParser
    parser = AStarParser().train(read_ptb_sample("train"), model="factored")
    result = parser.parse(words, tags, heuristic="factored")
    result.tree, result.heads, result.cost, result.stats.popped

``parse`` runs A* (``_kernels/astar_agenda.pyx``) with the heuristic's outside estimates
(``heuristics.py``); ``parse_exhaustive`` runs the exhaustive lexicalized CKY (``_kernels/lexcky.pyx``),
the model optimum for short sentences. Both first try the treebank grammar; a sentence it cannot derive,
or one with a tag outside the training set, is parsed with the back-off grammar (``backoff.py``: an
unknown-tag class and glue rules), so every sentence gets a parse and ``result.backoff`` says why one
needed it ("unknown tag" or "no parse"; None otherwise). Sentences the treebank grammar covers get exactly
the parse they got without the back-off. With ``backoff=False`` such sentences raise ``ParseError``
(reason ``"no parse"``) or ``GrammarError`` (an unknown tag) instead. A search that pops ``max_pops``
edges or creates ``max_edges`` without reaching the goal raises ``ParseError`` (reason ``"limit"``): a
search never hangs. Models are saved with srsly (msgpack) with a format version checked on load; never
pickled.
"""
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly

from .._kernels.astar_agenda import SearchStatus, astar_search
from .._kernels.astar_projections import CFGProjection, viterbi_inside_outside
from .._kernels.lexcky import LexicalizedChart
from .._kernels.lexgrammar import CostTables, RuleIndex
from ..corpus import Tree
from .approximate import ApproximateProjection
from .backoff import DEFAULT_COST, BackoffGrammar
from .factored import FactoredModel  # noqa: F401  (registers the model kind)
from .grammar import Grammar
from .heuristics import HEURISTICS, NoParseError, outside_estimates
from .lexicon import WordClasses
from .model import LexicalizedModel, ModelError, SentenceCosts, model_from_dict
from .nonfactored import NonFactoredModel  # noqa: F401
from .projections import Projection, cfg_projection, factored_projection, null_projection, split_projection
from .treebank import Node, binarize, debinarize, derivation_dependencies

__all__ = ["AStarParser", "ParseResult", "SearchStats", "ParseError", "PARSER_FORMAT", "cost_tables",
           "derivation_from_arrays", "rule_index"]

PARSER_FORMAT = 1
MODELS = ("factored", "nonfactored")


class ParseError(ValueError):
    """A sentence that got no parse. reason: "no parse" or "limit"; stats: the search's statistics."""

    def __init__(self, message: str, reason: str, stats: Optional["SearchStats"] = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.stats = stats


@dataclass
class SearchStats:
    """What one search did.

    heuristic (str): the heuristic (or "cky" for the exhaustive chart).
    popped (int): edges taken off the agenda (for "cky": chart items).
    pushed (int): agenda insertions, counting decrease-keys (created + improved).
    created, improved (int): edges put on the agenda / whose cost was lowered there.
    blocked (int): edges never created because their heuristic was infinite.
    scored (int): rule applications scored.
    violations (int): scored applications whose projected cost exceeded their true cost.
    reopened (int): closed edges put back on the agenda because a cheaper path turned up (only with an
        inconsistent heuristic).
    scoring_seconds, heuristic_seconds, search_seconds (float): model costs, projection charts, agenda.
    projection_cost (float): the projections' best parse cost (a lower bound when admissible).
    backoff (Optional[str]): None when the treebank grammar parsed the sentence, else why the back-off
        grammar was needed: "unknown tag" or "no parse" (then the counts and times include the failed
        attempt with the treebank grammar).
    """

    heuristic: str
    popped: int = 0
    pushed: int = 0
    created: int = 0
    improved: int = 0
    blocked: int = 0
    scored: int = 0
    violations: int = 0
    reopened: int = 0
    scoring_seconds: float = 0.0
    heuristic_seconds: float = 0.0
    search_seconds: float = 0.0
    projection_cost: float = 0.0
    backoff: Optional[str] = None

    def add(self, other: "SearchStats") -> None:
        """Add another search's counts and times to these (a failed first attempt)."""
        for key in ("popped", "pushed", "created", "improved", "blocked", "scored", "violations", "reopened",
                    "scoring_seconds", "heuristic_seconds", "search_seconds"):
            setattr(self, key, getattr(self, key) + getattr(other, key))

    @property
    def seconds(self) -> float:
        """Heuristic plus search time (the scoring time is the same for every heuristic)."""
        return self.heuristic_seconds + self.search_seconds

    def to_dict(self) -> dict:
        return {**asdict(self), "seconds": self.seconds}


@dataclass
class ParseResult:
    """A parse: the treebank-style tree (annotation and binarization undone), the head-word dependencies
    (length n + 1, heads[0] == -1), the model cost, the binarized derivation and the search statistics."""

    tree: Tree
    heads: np.ndarray
    cost: float
    derivation: Node
    stats: SearchStats = field(repr=False)

    @property
    def backoff(self) -> Optional[str]:
        """None, or why the back-off grammar was needed ("unknown tag", "no parse")."""
        return self.stats.backoff


class AStarParser:
    """A lexicalized parser searched with A*.

    horizontal (int): siblings remembered by intermediate symbols (horizontal Markovization).
    vertical (bool): parent-annotate the CFG backbone.
    min_count (int): words seen fewer times in training are replaced by shape signatures.
    max_pops, max_edges (int): search limits per sentence (ParseError with reason "limit" when hit).
    exhaustive_max_length (int): the longest sentence ``parse_exhaustive`` accepts.
    backoff_cost (float): the cost of one glue rule application in the back-off grammar (``backoff.py``).
    """

    def __init__(self, *, horizontal: int = 1, vertical: bool = True, min_count: int = 2,
                 max_pops: int = 3_000_000, max_edges: int = 30_000_000, exhaustive_max_length: int = 15,
                 backoff_cost: float = DEFAULT_COST) -> None:
        if horizontal < 0:
            raise ValueError(f"horizontal must be >= 0, got {horizontal}")
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {min_count}")
        if max_pops < 1 or max_edges < 1:
            raise ValueError("max_pops and max_edges must be positive")
        if not (np.isfinite(backoff_cost) and backoff_cost > 0):
            raise ValueError(f"backoff_cost must be positive and finite, got {backoff_cost}")
        self.horizontal = horizontal
        self.vertical = vertical
        self.min_count = min_count
        self.max_pops = max_pops
        self.max_edges = max_edges
        self.exhaustive_max_length = exhaustive_max_length
        self.backoff_cost = float(backoff_cost)
        self.model: Optional[LexicalizedModel] = None
        self.approximation: Optional[ApproximateProjection] = None
        self._rules: Optional[RuleIndex] = None
        self._backoff: Optional[BackoffGrammar] = None
        self._backoff_rules: Optional[RuleIndex] = None

    # -- training ------------------------------------------------------------------------------------
    def train(self, trees: Sequence[Tree], model: str = "factored", *, approximate: Optional[bool] = None,
              C: float = 10.0, novel_ratio: float = 1.0, lp_sentences: Optional[int] = None, seed: int = 0,
              progress: Optional[Callable[[str], None]] = None) -> "AStarParser":
        """Train a model on treebank trees.

        trees (Sequence[Tree]): training trees (traces and function tags stripped, as the reader returns).
        model (str): "factored" or "nonfactored".
        approximate (Optional[bool]): also learn the approximate projection; default: only for the
            non-factored model.
        C (float): the LP's overestimate penalty.
        novel_ratio (float): sampled novel configurations per training rule application.
        lp_sentences (Optional[int]): fit the projection on the first this many training trees (all if None).
        seed (int): for the sampling.
        progress (Optional[Callable[[str], None]]): receives progress lines (e.g. print).
        RETURNS (AStarParser): self.
        RAISES (ValueError): for an unknown model, no trees, or a malformed tree.
        """
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")
        if not trees:
            raise ValueError("no training trees")
        say = progress or (lambda message: None)
        start = time.perf_counter()
        derivations, sentences = [], []
        for k, tree in enumerate(trees):
            try:
                derivations.append(binarize(tree, horizontal=self.horizontal, vertical=self.vertical))
            except ValueError as error:
                raise ValueError(f"training tree {k}: {error}") from None
            pos = tree.pos()
            sentences.append(([w for w, _ in pos], [t for _, t in pos]))
        grammar = Grammar.from_derivations(derivations)
        words = WordClasses.from_words((w for ws, _ in sentences for w in ws), self.min_count)
        say(f"grammar: {grammar.n_symbols:,} symbols, {grammar.n_binary:,} binary and {grammar.n_unary:,} unary "
            f"rules from {len(trees):,} trees ({time.perf_counter() - start:.1f}s)")
        cls = FactoredModel if model == "factored" else NonFactoredModel
        self.model = cls(grammar, words).fit(derivations, sentences)
        self._rules = self._backoff = self._backoff_rules = None
        say(f"{model} model trained ({time.perf_counter() - start:.1f}s)")
        self.approximation = None
        if approximate if approximate is not None else model == "nonfactored":
            keep = len(derivations) if lp_sentences is None else max(1, int(lp_sentences))
            self.approximation = ApproximateProjection(grammar, C=C, novel_ratio=novel_ratio, seed=seed).fit(
                self.model, derivations[:keep], sentences[:keep], progress=say)
        return self

    # -- parsing -------------------------------------------------------------------------------------
    @property
    def heuristics(self) -> Tuple[str, ...]:
        """The heuristics usable with this parser's model."""
        self._check_trained()
        names = ["null", "cfg", "split"]
        if isinstance(self.model, FactoredModel):
            names.append("factored")
        if self.approximation is not None:
            names.append("approximate")
        return tuple(names)

    @property
    def default_heuristic(self) -> str:
        """The tightest admissible heuristic: factored for a factored model, else split."""
        return "factored" if "factored" in self.heuristics else "split"

    def _check_trained(self) -> None:
        if self.model is None:
            raise ModelError("the parser is not trained; call train(trees) or AStarParser.load(path)")

    @property
    def grammar(self) -> Grammar:
        self._check_trained()
        return self.model.grammar

    @property
    def rules(self) -> RuleIndex:
        """The grammar's kernel index (built once)."""
        if self._rules is None:
            self._rules = rule_index(self.grammar)
        return self._rules

    @property
    def backoff_grammar(self) -> BackoffGrammar:
        """The back-off grammar (built once, on first use)."""
        self._check_trained()
        if self._backoff is None:
            self._backoff = BackoffGrammar(self.model, self.backoff_cost)
        return self._backoff

    @property
    def backoff_rules(self) -> RuleIndex:
        """The back-off grammar's kernel index (built once)."""
        if self._backoff_rules is None:
            self._backoff_rules = rule_index(self.backoff_grammar.grammar)
        return self._backoff_rules

    def _check_sentence(self, words: Sequence[str], tags: Sequence[str]) -> Tuple[List[str], List[str]]:
        self._check_trained()
        words, tags = list(words), list(tags)
        if not words:
            raise ValueError("cannot parse an empty sentence")
        if len(words) != len(tags):
            raise ValueError(f"got {len(words)} words but {len(tags)} tags")
        for k, (w, t) in enumerate(zip(words, tags)):
            if not isinstance(w, str) or not w:
                raise ValueError(f"word {k + 1} must be a non-empty string, got {w!r}")
            if not isinstance(t, str):
                raise ValueError(f"tag {k + 1} must be a string, got {t!r}")
        return words, tags

    def costs(self, words: Sequence[str], tags: Sequence[str]) -> SentenceCosts:
        """The model's cost arrays for a sentence (checked) under the treebank grammar."""
        words, tags = self._check_sentence(words, tags)
        return self.model.costs(words, tags).check(self.grammar)

    def backoff_costs(self, words: Sequence[str], tags: Sequence[str]) -> SentenceCosts:
        """The cost arrays of a sentence under the back-off grammar (``backoff_grammar.grammar``), with tags
        outside the training set read as the unknown tag."""
        words, tags = self._check_sentence(words, tags)
        backoff = self.backoff_grammar
        return backoff.costs(self.model.costs(words, backoff.tags(tags)[0])).check(backoff.grammar)

    def _check_heuristic(self, heuristic: str) -> None:
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {heuristic!r}; choose one of {', '.join(HEURISTICS)}")
        if heuristic not in self.heuristics:
            raise ValueError(f"heuristic {heuristic!r} is not available for this parser (available: "
                             f"{', '.join(self.heuristics)})")

    def projection(self, heuristic: str, costs: SentenceCosts, words: Sequence[str], tags: Sequence[str],
                   backoff: bool = False) -> Projection:
        """The projected costs a heuristic uses for one sentence, under the treebank grammar (or the back-off
        grammar: then `costs` are ``backoff_costs`` and `tags` may lie outside the training set).

        RAISES (ValueError): for an unknown heuristic or one this model cannot use.
        """
        self._check_heuristic(heuristic)
        grammar = self.backoff_grammar.grammar if backoff else self.grammar
        if heuristic == "null":
            return null_projection(grammar, len(words))
        if heuristic == "cfg":
            return cfg_projection(costs, grammar)
        if heuristic == "split":
            return split_projection(costs, grammar)
        if heuristic == "factored":
            return factored_projection(costs)
        if backoff:
            model_tags = self.backoff_grammar.tags(tags)[0]
            return self.backoff_grammar.projection(self.approximation.projection(self.model, words, model_tags))
        return self.approximation.projection(self.model, words, tags)

    def parse(self, words: Sequence[str], tags: Sequence[str], heuristic: Optional[str] = None, *,
              backoff: bool = True) -> ParseResult:
        """Parse a tagged sentence with A*.

        words, tags (Sequence[str]): the sentence and its part-of-speech tags (the tags are given).
        heuristic (Optional[str]): "null", "cfg", "split", "factored" or "approximate"; default: factored for
            a factored model, else split.
        backoff (bool): parse a sentence the treebank grammar cannot (an unknown tag, no derivation) with
            the back-off grammar (the module docstring); False: raise for it.
        RETURNS (ParseResult): the best parse found (optimal under the grammar used for every heuristic but
            approximate), statistics, and ``backoff``.
        RAISES (ParseError): a search limit was hit, or (backoff=False) no parse exists.
        RAISES (ValueError): bad input (mismatched lengths, unknown heuristic; backoff=False: unknown tag).
        """
        heuristic = heuristic or self.default_heuristic
        words, tags = self._check_sentence(words, tags)
        self._check_heuristic(heuristic)
        return self._with_backoff(self._search, words, tags, heuristic, backoff)

    def parse_exhaustive(self, words: Sequence[str], tags: Sequence[str], *, backoff: bool = True) -> ParseResult:
        """The model-optimal parse by exhaustive lexicalized CKY (for checking searches), with the same
        back-off as ``parse``.

        RAISES (ValueError): for sentences longer than ``exhaustive_max_length``.
        RAISES (ParseError): (backoff=False) if no parse exists.
        """
        words, tags = self._check_sentence(words, tags)
        if len(words) > self.exhaustive_max_length:
            raise ValueError(f"exhaustive parsing is limited to {self.exhaustive_max_length} words (got "
                             f"{len(words)}); raise exhaustive_max_length if you can afford O(n^5)")
        return self._with_backoff(self._exhaustive, words, tags, "cky", backoff)

    def _with_backoff(self, run, words: List[str], tags: List[str], heuristic: str, backoff: bool) -> ParseResult:
        """Run `run` on the treebank grammar, then on the back-off grammar if the sentence needs it."""
        unknown = [t for t in tags if t not in self.grammar.tags]
        if unknown:
            if not backoff:
                self.grammar.tag_ids(tags)                     # raises, naming the first unknown tag
            return run(words, tags, heuristic, "unknown tag", None)
        try:
            return run(words, tags, heuristic, None, None)
        except ParseError as error:
            if error.reason != "no parse" or not backoff:
                raise
            return run(words, tags, heuristic, "no parse", error.stats)

    def _grammar_for(self, words: List[str], tags: List[str], backoff: Optional[str]):
        """(grammar, rule index, checked costs, tag ids) of the treebank or the back-off grammar."""
        if backoff is None:
            return self.grammar, self.rules, self.costs(words, tags), self.grammar.tag_ids(tags)
        b = self.backoff_grammar
        return b.grammar, self.backoff_rules, self.backoff_costs(words, tags), b.grammar.tag_ids(b.tags(tags)[0])

    def _search(self, words: List[str], tags: List[str], heuristic: str, backoff: Optional[str],
                before: Optional[SearchStats]) -> ParseResult:
        start = time.perf_counter()
        grammar, rules, costs, tag_ids = self._grammar_for(words, tags, backoff)
        stats = SearchStats(heuristic, scoring_seconds=time.perf_counter() - start, backoff=backoff)
        if before is not None:
            stats.add(before)
        projection = self.projection(heuristic, costs, words, tags, backoff=backoff is not None).check(grammar)
        try:
            h = outside_estimates(heuristic, projection, rules, tag_ids)
        except NoParseError as error:
            raise ParseError(str(error), "no parse", stats) from None
        stats.heuristic_seconds += h.seconds
        stats.projection_cost = h.projection_cost
        start = time.perf_counter()
        result = astar_search(rules, cost_tables(costs), h.projection, tag_ids, h.cfg_index, h.cfg_outside,
                              h.dep_outside, self.max_pops, self.max_edges)
        stats.search_seconds += time.perf_counter() - start
        for key in ("popped", "created", "improved", "blocked", "scored", "violations", "reopened"):
            setattr(stats, key, getattr(stats, key) + int(result[key]))
        stats.pushed = stats.created + stats.improved
        status = SearchStatus(result["status"])
        if status == SearchStatus.EXHAUSTED:
            raise ParseError("the grammar has no parse of this sentence (the agenda ran empty)", "no parse", stats)
        if status in (SearchStatus.POP_LIMIT, SearchStatus.EDGE_LIMIT):
            what = (f"popped {int(result['popped']):,} edges" if status == SearchStatus.POP_LIMIT
                    else f"created {int(result['created']):,} edges")
            raise ParseError(f"search limit hit: {what} without reaching the goal (max_pops={self.max_pops:,}, "
                             f"max_edges={self.max_edges:,}); raise the limits or use a tighter heuristic",
                             "limit", stats)
        if status == SearchStatus.NO_MEMORY:
            raise MemoryError("out of memory during the A* search")
        assert status == SearchStatus.FOUND
        return self._result(result["derivation"], grammar, words, tags, float(result["cost"]), stats)

    def _exhaustive(self, words: List[str], tags: List[str], heuristic: str, backoff: Optional[str],
                    before: Optional[SearchStats]) -> ParseResult:
        start = time.perf_counter()
        grammar, rules, costs, tag_ids = self._grammar_for(words, tags, backoff)
        stats = SearchStats("cky", scoring_seconds=time.perf_counter() - start, backoff=backoff)
        if before is not None:
            stats.add(before)
        start = time.perf_counter()
        # Only lexicalized items whose CFG projection can be part of a complete parse are built
        # (zero projected costs: this is reachability, independent of any heuristic).
        chart = CFGProjection(rules, null_projection(grammar, len(words)).tables(), tag_ids)
        if not chart.parsable:
            raise ParseError("the grammar has no parse of this sentence", "no parse", stats)
        _, _, outside = viterbi_inside_outside(chart)
        keep = np.isfinite(chart.to_dense(outside)).astype(np.uint8)
        lexical = LexicalizedChart(rules, cost_tables(costs), keep)
        best, inside, _ = viterbi_inside_outside(lexical)
        if not np.isfinite(best):
            raise ParseError("the grammar has no parse of this sentence", "no parse", stats)
        stats.search_seconds += time.perf_counter() - start
        stats.popped += lexical.n_items
        stats.created += lexical.n_items
        return self._result(lexical.derivation(inside), grammar, words, tags, float(best), stats)

    def _result(self, nodes: Dict[str, np.ndarray], grammar: Grammar, words: List[str], tags: List[str],
                cost: float, stats: SearchStats) -> ParseResult:
        derivation = derivation_from_arrays(nodes, grammar)
        tree = debinarize(derivation, words)
        if stats.backoff is not None:                 # the unknown tag's leaves get their own tags back
            preterminals = [node for node in _preterminals(tree)]
            for node, tag in zip(preterminals, tags):
                node.label = tag
        return ParseResult(tree, np.asarray(derivation_dependencies(derivation)), cost, derivation, stats)

    # -- persistence ---------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        self._check_trained()
        return {"format": PARSER_FORMAT, "settings": {"horizontal": self.horizontal, "vertical": self.vertical,
                                                      "min_count": self.min_count, "max_pops": self.max_pops,
                                                      "max_edges": self.max_edges,
                                                      "exhaustive_max_length": self.exhaustive_max_length,
                                                      "backoff_cost": self.backoff_cost},
                "model": self.model.to_dict(),
                "approximation": None if self.approximation is None else self.approximation.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> "AStarParser":
        """RAISES (ModelError): for another format version or malformed data."""
        if not isinstance(data, dict) or data.get("format") != PARSER_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ModelError(f"not a saved A* parser of format {PARSER_FORMAT} (found {found!r}); retrain it")
        if set(data) != {"format", "settings", "model", "approximation"}:
            raise ModelError(f"malformed saved A* parser: its entries are {sorted(data, key=str)}")
        try:
            parser = cls(**data["settings"])
            parser.model = model_from_dict(data["model"])
            if data.get("approximation") is not None:
                parser.approximation = ApproximateProjection.from_dict(data["approximation"], parser.model.grammar)
        except ModelError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError, OverflowError) as error:
            raise ModelError(f"malformed saved A* parser: {error!r}") from None
        return parser

    def save(self, path: Union[str, Path]) -> None:
        """Write the parser to a msgpack file (creating its folder)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_msgpack(path, self.to_dict())

    @classmethod
    def load(cls, path: Union[str, Path]) -> "AStarParser":
        """Read a parser written by ``save``.

        RAISES (ModelError): "FILE: reason" for a missing, truncated or foreign file, another format or
            version, or malformed data.
        """
        try:
            data = srsly.read_msgpack(path)
        except OSError as error:
            raise ModelError(f"{path}: cannot read the A* parser ({error.strerror or error})") from None
        except (ValueError, TypeError, KeyError, IndexError) as error:    # corrupt msgpack
            raise ModelError(f"{path}: not a saved A* parser ({error})") from None
        try:
            return cls.from_dict(data)
        except ModelError as error:
            raise ModelError(f"{path}: {error}") from None


def rule_index(grammar: Grammar) -> RuleIndex:
    """The kernels' index of a grammar's rules."""
    g = grammar
    return RuleIndex(g.n_symbols, g.root, g.binary_parent, g.binary_left, g.binary_right, g.binary_side,
                     g.binary_ptr, g.unary_parent, g.unary_child, g.unary_ptr)


def _preterminals(tree: Tree):
    """The preterminals of a tree, left to right."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.is_preterminal():
            yield node
        else:
            stack.extend(reversed(node.children))


def cost_tables(costs: SentenceCosts) -> CostTables:
    """The kernels' view of a sentence's cost arrays (no copies)."""
    return CostTables(costs.rule_cost, costs.unary_cost, costs.arc_cost, costs.stop_cost, costs.root_cost,
                      costs.rule_key)


def derivation_from_arrays(nodes: Dict[str, np.ndarray], grammar: Grammar) -> Node:
    """Rebuild a derivation from the kernels' node arrays (parents before children)."""
    count = len(nodes["symbol"])
    built: List[Optional[Node]] = [None] * count
    for k in range(count - 1, -1, -1):
        symbol = grammar.symbols[int(nodes["symbol"][k])]
        head, start, end = int(nodes["head"][k]), int(nodes["start"][k]), int(nodes["end"][k])
        rule, left, right = int(nodes["rule"][k]), int(nodes["left"][k]), int(nodes["right"][k])
        if nodes["layer"][k] == 1:
            chain = grammar.unary_chain[rule]
            chain = None if chain is None else tuple(grammar.symbols[s] for s in chain)
            built[k] = Node(symbol, head, start, end, (built[left],), chain=chain)
        elif rule < 0:
            built[k] = Node(symbol, head, start, end)
        else:
            built[k] = Node(symbol, head, start, end, (built[left], built[right]),
                            head_side=int(grammar.binary_side[rule]))
    return built[0]
