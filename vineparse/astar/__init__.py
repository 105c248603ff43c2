"""Lexicalized A* parsing with factored and approximately factored heuristics.

Klein & Manning (2003) factored models and A* heuristics from projection outside costs; Haghighi, DeNero &
Klein (2007) approximate factoring for models that do not factor. Modules:

- ``heads``: Collins' head table; ``treebank``: binarization, annotation, unary chains and their inverse;
- ``grammar``: the rule inventory; ``lexicon``: word classes; ``smoothing``: Witten-Bell back-off;
- ``model``, ``factored``, ``nonfactored``: the two lexicalized models and their per-sentence costs;
- ``projections``, ``heuristics``, ``approximate``: projected costs, outside estimates, the learned LP;
- ``parser``: ``AStarParser`` (train, parse, parse_exhaustive, save, load);
- ``evaluation``: search errors, bracket F1 and dependency accuracy per heuristic;
- ``commands``: ``python -m vineparse astar train | evaluate | parse``.
"""
from .heuristics import HEURISTICS, NoParseError
from .model import ModelError
from .parser import AStarParser, ParseError, ParseResult, SearchStats

__all__ = ["AStarParser", "ParseResult", "SearchStats", "ParseError", "NoParseError", "ModelError", "HEURISTICS"]
