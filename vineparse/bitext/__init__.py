"""Bitext feature expectations with randomized pruning (Bouchard-Côté, Petrov & Klein, NIPS 2009).

A weighted inversion transduction grammar over sentence pairs (binary, or with rules of branching factor 3)
with log-linear features over IBM Model 1 scores, HMM agreement posteriors, orientation, nulls and tag pairs;
exact expectations by bitext inside-outside, tic-tac-toe pruning, and randomized pruning: an average of
pruned charts over a Markov chain of masks made from high-confidence alignment links (M', from HMM alignment
models trained by agreement). See `api` for the entry points.
"""
from .api import METHODS, CorpusExpectations, Expectations, corpus_expectations, expectations
from .data import BitextPair, pud_pairs, read_parallel_conllu, word_pairs
from .grammar import GRAMMARS, EmptySentenceError, ExactLimitError, NoDerivationError, SkippablePairError
from .hmm import AgreementHMM, HMMConfig
from .model import MODEL_VERSION, BitextConfig, BitextModel, ModelVersionError
from .model1 import BidirectionalModel1, Model1, train_model1
from .training import FitResult, fit

__all__ = [
    "expectations", "corpus_expectations", "fit", "Expectations", "CorpusExpectations", "FitResult",
    "BitextModel", "BitextConfig", "BitextPair", "pud_pairs", "read_parallel_conllu", "word_pairs",
    "Model1", "BidirectionalModel1", "train_model1", "METHODS", "GRAMMARS", "MODEL_VERSION",
    "ExactLimitError", "NoDerivationError", "ModelVersionError", "EmptySentenceError", "SkippablePairError",
    "AgreementHMM", "HMMConfig",
]
