"""Word classes: frequent words stand for themselves, rare and unknown ones for a shape signature.

A word seen at least ``min_count`` times in training is its own class; any other word (in training or at
parse time) becomes one of a few signatures, so the models learn statistics for "an unknown capitalised
word" rather than for each singleton. Signatures, first match wins: ``<unk-num>`` (has a digit),
``<unk-cap>`` (starts with an upper-case letter), ``<unk-hyph>`` (has a hyphen), ``<unk-s>`` (ends in s),
``<unk>``.
"""
from collections import Counter
from typing import Iterable, List

__all__ = ["WordClasses", "signature"]


def signature(word: str) -> str:
    """The class of a rare or unknown word (see the module docstring)."""
    if any(ch.isdigit() for ch in word):
        return "<unk-num>"
    if word[:1].isupper():
        return "<unk-cap>"
    if "-" in word:
        return "<unk-hyph>"
    if word.endswith("s"):
        return "<unk-s>"
    return "<unk>"


class WordClasses:
    """Maps words to classes.

    known (Iterable[str]): the words that are their own class.
    """

    def __init__(self, known: Iterable[str]) -> None:
        self.known = frozenset(known)

    @classmethod
    def from_words(cls, words: Iterable[str], min_count: int = 2) -> "WordClasses":
        """Keep the words seen at least `min_count` times (min_count >= 1)."""
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {min_count}")
        counts = Counter(words)
        return cls(word for word, count in counts.items() if count >= min_count)

    def __call__(self, word: str) -> str:
        return word if word in self.known else signature(word)

    def classes(self, words: Iterable[str]) -> List[str]:
        return [self(word) for word in words]

    def __len__(self) -> int:
        """The number of classes (known words plus signatures)."""
        return len(self.known) + 5

    def to_list(self) -> List[str]:
        return sorted(self.known)

    @classmethod
    def from_list(cls, words: List[str]) -> "WordClasses":
        return cls(words)

    def __eq__(self, other) -> bool:
        return isinstance(other, WordClasses) and self.known == other.known
