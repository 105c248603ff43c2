"""Sentences as the feature kernels see them: one row of uint64 hashes per token
(word form, tag, coarse tag, word prefix), row 0 the root token.

Hashes are stable across processes and platforms (BLAKE2b, 8 bytes), so a saved
model's feature indices mean the same thing when it is loaded elsewhere. Word
forms are lowercased; prefixes are their first five characters. Each distinct
string is hashed once per process.
"""
from dataclasses import dataclass
from functools import lru_cache
from hashlib import blake2b
from typing import Optional, Sequence

import numpy as np

ROOT = "<root>"
PREFIX_LENGTH = 5


@lru_cache(maxsize=1 << 20)
def string_hash(text: str) -> int:
    """A stable 64-bit hash of `text`."""
    return int.from_bytes(blake2b(text.encode("utf8"), digest_size=8).digest(), "little")


@dataclass(frozen=True, eq=False)
class Encoded:
    """tokens: uint64 (n + 1, 4), columns word, tag, coarse tag, prefix; row 0 is the root token.
    cost: None, or (n + 1, n + 1) added to every arc score h -> m (cost-augmented decoding in training)."""

    tokens: np.ndarray
    cost: Optional[np.ndarray] = None

    @property
    def n(self) -> int:
        return len(self.tokens) - 1


def encode(words: Sequence[str], tags: Sequence[str], coarse_tags: Optional[Sequence[str]] = None) -> Encoded:
    """Hash a sentence: word forms (lowercased), tags, coarse tags (default: the tags) and prefixes.

    words, tags, coarse_tags (Sequence[str]): n strings each.
    RETURNS (Encoded): with the root token prepended.
    """
    coarse_tags = tags if coarse_tags is None else coarse_tags
    if not len(words) == len(tags) == len(coarse_tags):
        raise ValueError(f"{len(words)} words, {len(tags)} tags and {len(coarse_tags)} coarse tags")
    lowered = [ROOT] + [w.lower() for w in words]
    columns = (lowered, [ROOT] + list(tags), [ROOT] + list(coarse_tags), [w[:PREFIX_LENGTH] for w in lowered])
    tokens = np.empty((len(words) + 1, len(columns)), dtype=np.uint64)
    for j, (column, salt) in enumerate(zip(columns, ("w", "t", "c", "p"))):
        tokens[:, j] = [string_hash(salt + value) for value in column]
    return Encoded(tokens)


def encode_sentence(sentence, tag: str = "xpos") -> Encoded:
    """Encode a corpus Sentence with `tag` ("xpos" or "upos") as its tags and UPOS as coarse tags."""
    return encode(sentence.words, list(getattr(sentence, tag)), list(sentence.upos))
