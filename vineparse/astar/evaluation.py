"""Evaluating heuristics: search effort, search errors, admissibility violations and accuracy.

For every test tree, the model optimum is the exhaustive CKY cost for sentences up to
``exhaustive_max_length`` words and otherwise the cost found by an admissible heuristic (``reference``:
factored for a factored model, else split); where both exist they must agree, and disagreements are
counted (``reference_mismatches``, expected 0). Every heuristic then parses the sentence, and a parse is a
*search error* when its cost exceeds the optimum by more than 1e-9 relative. Sentences the treebank grammar
cannot parse (unknown tags, no derivation) are parsed with the back-off grammar (``backoff.py``; their
optimum is the back-off grammar's) and counted by reason in ``backoff``. A sentence without a parse
(ParseError: a search limit) is counted by reason, scored with a flat tree and all heads on the root, and
left out of the search-error and effort statistics, never dropped silently.

Accuracy: labelled bracket F1 (EVALB, COLLINS.prm, sentences of at most ``max_length`` words) against the
gold tree, and head-dependency accuracy: the share of words whose head word (Collins' head rules applied to
both trees) is right, punctuation included.
"""
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from ..corpus import Tree
from ..metrics import BracketScore
from .heads import dependencies
from .parser import AStarParser, ParseError
from .treebank import flat_tree

__all__ = ["evaluate", "HeuristicReport", "Evaluation", "SentenceRecord"]

RELATIVE_TOLERANCE = 1e-9


@dataclass
class SentenceRecord:
    """One sentence under one heuristic (JSON-friendly through ``vars``)."""

    sentence: int
    length: int
    heuristic: str
    status: str                   # "ok", "no parse" or "limit"
    cost: float
    optimum: float
    popped: int
    pushed: int
    scored: int
    violations: int
    heuristic_seconds: float
    search_seconds: float
    scoring_seconds: float
    backoff: Optional[str] = None  # why the back-off grammar was needed, if it was


@dataclass
class HeuristicReport:
    """Totals for one heuristic over the evaluated sentences."""

    heuristic: str
    sentences: int = 0
    skipped: int = 0
    failures: Dict[str, int] = field(default_factory=dict)
    popped: int = 0
    pushed: int = 0
    scored: int = 0
    violations: int = 0
    seconds: float = 0.0
    scoring_seconds: float = 0.0
    search_errors: int = 0
    error_sizes: List[float] = field(default_factory=list)       # relative excess of each search error
    brackets: BracketScore = field(default_factory=lambda: BracketScore(max_length=40))
    heads_right: int = 0
    heads_total: int = 0
    backoff: Dict[str, int] = field(default_factory=dict)        # sentences parsed by the back-off, by reason

    @property
    def parsed(self) -> int:
        return self.sentences - sum(self.failures.values())

    @property
    def violation_share(self) -> float:
        """Share of scored rule applications whose projected cost exceeds their true cost."""
        return self.violations / self.scored if self.scored else 0.0

    @property
    def dependency_accuracy(self) -> float:
        return 100.0 * self.heads_right / self.heads_total if self.heads_total else 0.0

    def to_dict(self) -> dict:
        return {
            "heuristic": self.heuristic, "sentences": self.sentences, "skipped": self.skipped, "parsed": self.parsed,
            "failures": dict(self.failures), "popped": self.popped, "pushed": self.pushed, "scored": self.scored,
            "violations": self.violations, "violation_share": self.violation_share,
            "seconds_per_sentence": self.seconds / self.parsed if self.parsed else None,
            "scoring_seconds_per_sentence": self.scoring_seconds / self.sentences if self.sentences else None,
            "search_errors": self.search_errors,
            "search_error_share": self.search_errors / self.parsed if self.parsed else 0.0,
            "largest_search_error": max(self.error_sizes, default=0.0),
            "mean_search_error": float(np.mean(self.error_sizes)) if self.error_sizes else 0.0,
            "bracket_f1": self.brackets.f1, "bracket_sentences": self.brackets.sentences,
            "dependency_accuracy": self.dependency_accuracy,
            "backoff": dict(self.backoff), "backoff_share": sum(self.backoff.values()) / self.parsed if self.parsed else 0.0,
        }


@dataclass
class Evaluation:
    """Per-heuristic reports, the per-sentence records, and the optimum's provenance."""

    model: str
    reports: Dict[str, HeuristicReport]
    records: List[SentenceRecord]
    reference: str
    exhaustive_sentences: int = 0
    reference_mismatches: int = 0
    no_optimum: int = 0

    def records_json(self) -> List[dict]:
        """The per-sentence records as JSON-ready dicts (a cost without a parse, or an unknown optimum,
        becomes None)."""
        return [{key: (None if isinstance(value, float) and not np.isfinite(value) else value)
                 for key, value in vars(record).items()} for record in self.records]

    def to_dict(self) -> dict:
        return {"model": self.model, "reference": self.reference, "exhaustive_sentences": self.exhaustive_sentences,
                "reference_mismatches": self.reference_mismatches, "no_optimum": self.no_optimum,
                "heuristics": {name: report.to_dict() for name, report in self.reports.items()}}


def evaluate(parser: AStarParser, trees: Sequence[Tree], heuristics: Optional[Sequence[str]] = None, *,
             exhaustive_max_length: int = 15, max_length: int = 40,
             heuristic_max_length: Optional[Dict[str, int]] = None,
             progress: Optional[Callable[[str], None]] = None) -> Evaluation:
    """Parse every tree's sentence with every heuristic and compare (see the module docstring).

    parser (AStarParser): a trained parser.
    trees (Sequence[Tree]): gold test trees.
    heuristics (Optional[Sequence[str]]): which to run (default: all the parser offers).
    exhaustive_max_length (int): run exhaustive CKY for the optimum up to this length (0: never).
    max_length (int): EVALB's length cut-off for bracket F1.
    heuristic_max_length (Optional[Dict[str, int]]): skip a heuristic on longer sentences (e.g. null);
        skipped sentences are counted in its report's ``skipped``.
    progress (Optional[Callable[[str], None]]): receives a progress line every 25 sentences.
    RETURNS (Evaluation): the reports and records.
    """
    heuristics = list(heuristics or parser.heuristics)
    for name in heuristics:
        if name not in parser.heuristics:
            raise ValueError(f"heuristic {name!r} is not available (available: {', '.join(parser.heuristics)})")
    limits = dict(heuristic_max_length or {})
    reference = parser.default_heuristic
    say = progress or (lambda message: None)
    reports = {name: HeuristicReport(name, brackets=BracketScore(max_length=max_length)) for name in heuristics}
    evaluation = Evaluation(parser.model.kind, reports, [], reference)
    start = time.perf_counter()
    for k, tree in enumerate(trees):
        pos = tree.pos()
        words, tags = [w for w, _ in pos], [t for _, t in pos]
        gold_heads = np.asarray(dependencies(tree))
        optimum, results = _optimum(parser, words, tags, reference, exhaustive_max_length, evaluation)
        for name in heuristics:
            report = reports[name]
            if len(words) > limits.get(name, len(words)):
                report.skipped += 1
                continue
            report.sentences += 1
            result = results.get(name)
            if result is None:
                try:
                    result = parser.parse(words, tags, heuristic=name)
                except ParseError as error:
                    result = error
            _account(report, evaluation.records, k, words, tags, tree, gold_heads, result, optimum, name)
        if (k + 1) % 25 == 0 or k + 1 == len(trees):
            say(f"  {k + 1}/{len(trees)} sentences ({time.perf_counter() - start:.0f}s)")
    return evaluation


def _optimum(parser, words, tags, reference, exhaustive_max_length, evaluation):
    """The model optimum (inf if unknown) and the reference parse (reused as that heuristic's result)."""
    results = {}
    try:
        results[reference] = parser.parse(words, tags, heuristic=reference)
        optimum = results[reference].cost
    except ParseError as error:
        results[reference] = error
        optimum = np.inf
    if len(words) <= exhaustive_max_length:
        evaluation.exhaustive_sentences += 1
        try:
            exact = parser.parse_exhaustive(words, tags).cost
        except ParseError:
            exact = np.inf
        if not _same(exact, optimum):
            evaluation.reference_mismatches += 1
        optimum = exact
    if not np.isfinite(optimum):
        evaluation.no_optimum += 1
    return optimum, results


def _same(a: float, b: float) -> bool:
    if not (np.isfinite(a) and np.isfinite(b)):
        return a == b
    return abs(a - b) <= RELATIVE_TOLERANCE * max(1.0, abs(a)) + 1e-9


def _account(report: HeuristicReport, records, k, words, tags, gold: Tree, gold_heads, result, optimum, name):
    n = len(words)
    if isinstance(result, ParseError):
        report.failures[result.reason] = report.failures.get(result.reason, 0) + 1
        stats = result.stats
        report.brackets.add(gold, flat_tree(words, tags))
        report.heads_total += n
        cost, status = np.inf, result.reason
    else:
        stats = result.stats
        report.popped += stats.popped
        report.pushed += stats.pushed
        report.scored += stats.scored
        report.violations += stats.violations
        report.seconds += stats.seconds
        report.brackets.add(gold, result.tree)
        report.heads_right += int((result.heads[1:] == gold_heads[1:]).sum())
        report.heads_total += n
        cost, status = result.cost, "ok"
        if result.backoff is not None:
            report.backoff[result.backoff] = report.backoff.get(result.backoff, 0) + 1
        if np.isfinite(optimum) and cost > optimum + RELATIVE_TOLERANCE * max(1.0, abs(optimum)) + 1e-9:
            report.search_errors += 1
            report.error_sizes.append((cost - optimum) / optimum)
    if stats is not None:
        report.scoring_seconds += stats.scoring_seconds
    records.append(SentenceRecord(
        k, n, name, status, float(cost), float(optimum),
        *(int(getattr(stats, key, 0)) if stats else 0 for key in ("popped", "pushed", "scored", "violations")),
        *(float(getattr(stats, key, 0.0)) if stats else 0.0
          for key in ("heuristic_seconds", "search_seconds", "scoring_seconds")),
        stats.backoff if stats else None))
