"""Errors raised by the corpus readers and the corpus locator."""
from pathlib import Path
from typing import Optional, Union

__all__ = ["CorpusError", "CorpusNotFoundError"]


class CorpusError(ValueError):
    """Malformed corpus input, located by file and line: ``"en.conllu:37: expected 10 columns, found 9"``.

    path (str): the file as given to the reader (or a source name such as ``"<string>"``).
    line (Optional[int]): 1-based line number, or None when the problem is not tied to a line.
    reason (str): what is wrong, without the location.
    """

    def __init__(self, path: Union[str, Path], line: Optional[int], reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        location = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{location}: {reason}")

    def __reduce__(self):
        return type(self), (self.path, self.line, self.reason)


class CorpusNotFoundError(FileNotFoundError):
    """A corpus file or directory that is in none of the places the locator searches."""
