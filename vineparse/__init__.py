"""vineparse: fast graph-based dependency parsing for spaCy.

Vine pruning cascades (Rush & Petrov 2012), lexicalized A* with approximately
factored heuristics (Haghighi, DeNero & Klein 2007) and bitext expectations
with randomized pruning (Bouchard-Côté, Petrov & Klein 2009), on Cython
dynamic programs. Importing the package loads nothing heavy; the subpackages
(`vineparse.kernels`, `vineparse.corpus`, `vineparse.metrics`) load on use.
"""
import logging

__version__ = "0.1.0"

logging.getLogger("vineparse").addHandler(logging.NullHandler())
