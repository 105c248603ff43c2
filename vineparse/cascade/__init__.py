"""The vine pruning cascade (Rush & Petrov 2012): levels, thresholds, training and the parser object."""
from .cascade import Cascade, CascadeStats
from .parser import CascadeParser
from .training import Example, TrainingSettings, train

__all__ = ["Cascade", "CascadeParser", "CascadeStats", "Example", "TrainingSettings", "train"]
