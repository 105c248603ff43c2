"""The spaCy component `vine_cascade` and its thinc architectures.

Importing this package registers them (`registrations.py`); an installed vineparse also declares them as
spaCy entry points, so `nlp.add_pipe("vine_cascade")` works without importing vineparse.
"""
from .component import VineCascadeParser
from .registrations import make_vine_cascade

__all__ = ["VineCascadeParser", "make_vine_cascade"]
