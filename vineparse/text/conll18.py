"""The CoNLL 2018 shared task's evaluation and UD's validator, through the maintained ``udtools`` package.

``udtools`` (PyPI, maintained by UD: ``udtools/udeval.py`` is the shared task's ``conll18_ud_eval.py`` with the
IWPT additions, ``udtools.Validator`` is ``validate.py``) is used as it is; this module only adapts its inputs
and outputs. It needs Python 3.10 or later (``udtools``' own requirement).

Conventions of the official evaluation (kept, not changed here):

- Gold and system must have the same characters once whitespace is removed (tokens are aligned on the
  character offsets of that text); otherwise it fails (``CorpusError``). Both files must end with a blank line.
- Every word counts, punctuation included. FEATS are restricted to the universal features, DEPREL to its
  universal part (``obl:tmod`` -> ``obl``); a sentence with no root or several roots is an error.
- Tokens, Sentences and Words are span matches (precision over system, recall over gold); UPOS, XPOS, UFeats,
  AllTags, Lemmas, UAS, LAS, CLAS, MLAS, BLEX are computed on aligned words, so their F1 combines tokenization
  and tagging / parsing; CLAS, MLAS and BLEX count only content relations.
- Scores are fractions in [0, 1] (the official table prints them times 100).
"""
import io
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

from ..corpus.errors import CorpusError

__all__ = ["METRICS", "evaluate", "validate", "Incident", "f1_table"]

# The official script's metrics, in its order (without the IWPT enhanced-graph ones).
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS",
           "MLAS", "BLEX")
Source = Union[str, os.PathLike]


def _udtools():
    try:
        import udtools  # noqa: F401
        from udtools import udeval
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("vineparse.text.conll18 needs the udtools package (pip install 'udtools>=0.2.9,<0.3'; "
                          f"Python 3.10 or later): {error}") from None
    return udtools, udeval


def _read(source: Source) -> Tuple[str, str]:
    """(name for messages, CoNLL-U text) of a path or of CoNLL-U text.

    A ``str`` holding a line break is CoNLL-U text; any other ``str`` or PathLike is a path.
    """
    if isinstance(source, str) and "\n" in source:
        return "<string>", source
    with open(source, encoding="utf-8") as file:
        return str(source), file.read()


def evaluate(gold: Source, system: Source) -> Dict[str, Dict[str, float]]:
    """Score system CoNLL-U against gold with the CoNLL 2018 shared task's evaluation (``udtools.udeval``).

    gold, system (str | PathLike): a CoNLL-U path, or CoNLL-U text (a ``str`` with a line break).
    RETURNS (Dict[str, Dict[str, float]]): for each of ``METRICS``: ``precision``, ``recall``, ``f1``,
        ``aligned_accuracy`` (None for the span metrics), and the counts ``correct``, ``gold_total``,
        ``system_total``.
    RAISES (CorpusError): when either file cannot be read by the evaluation (its message names the file
        and, as the evaluation reports it, the line), or the texts of gold and system differ.
    """
    _, udeval = _udtools()
    loaded = []
    for source in (gold, system):
        name, text = _read(source)
        try:
            loaded.append(udeval.load_conllu(io.StringIO(text), name, {}))
        except udeval.UDError as error:
            raise CorpusError(name, None, str(error)) from None
    try:
        scores = udeval.evaluate(*loaded)
    except udeval.UDError as error:
        raise CorpusError(f"{_name(gold)} vs {_name(system)}", None, str(error)) from None
    result = {}
    for metric in METRICS:
        score = scores[metric]
        result[metric] = {
            "precision": score.precision,
            "recall": score.recall,
            "f1": score.f1,
            "aligned_accuracy": score.aligned_accuracy,
            "correct": score.correct,
            "gold_total": score.gold_total,
            "system_total": score.system_total,
        }
    return result


def _name(source: Source) -> str:
    return "<string>" if isinstance(source, str) and "\n" in source else str(source)


def f1_table(scores: Dict[str, Dict[str, float]]) -> str:
    """The scores as the official script's verbose table (percentages, two decimals)."""
    lines = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc",
             "-----------+-----------+-----------+-----------+-----------"]
    for metric in METRICS:
        s = scores[metric]
        aligned = "" if s["aligned_accuracy"] is None else f"{100 * s['aligned_accuracy']:10.2f}"
        lines.append(f"{metric:<11}|{100 * s['precision']:10.2f} |{100 * s['recall']:10.2f} |"
                     f"{100 * s['f1']:10.2f} |{aligned}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Incident:
    """One finding of UD's validator.

    level (int): the validation level of the test (1..5).
    kind (str): ``"error"`` or ``"warning"``.
    testclass (str): e.g. ``Format``, ``Syntax``, ``Morpho``.
    testid (str): the validator's test id, e.g. ``invalid-deprel``.
    line (Optional[int]): the line of the file.
    sent_id (Optional[str]): the sentence's ``# sent_id``.
    message (str): what is wrong.
    """

    level: int
    kind: str
    testclass: str
    testid: str
    line: Optional[int]
    sent_id: Optional[str]
    message: str

    def __str__(self) -> str:
        return f"line {self.line} (sent {self.sent_id}): L{self.level} {self.testclass} {self.testid}: {self.message}"


def validate(source: Source, level: int = 2, lang: str = "ud", warnings: bool = False) -> List[Incident]:
    """Validate CoNLL-U with UD's validator (``udtools.Validator``) at ``level``.

    source (str | PathLike): a path, or CoNLL-U text (a ``str`` with a line break).
    level (int): 1 (format), 2 (UD format: universal tags, relations and features, one root, text
        consistency), up to 5 (language-specific).
    lang (str): the language code for the language-specific tests (``"ud"``: none).
    warnings (bool): return warnings too (by default only errors).
    RETURNS (List[Incident]): what the validator found, in file order; empty when it passes.
    """
    udtools, _ = _udtools()
    from udtools.state import State

    if not 1 <= level <= 5:
        raise ValueError(f"level must be 1..5, got {level}")
    validator = udtools.Validator(lang=lang, level=level, output=None)
    state = State()
    name, text = _read(source)
    state.current_file_name = name
    validator.validate_file_handle(io.StringIO(text), state)
    validator.validate_end(state)
    found = []
    for incident in state.error_tracker:
        if incident.is_warning() and not warnings:
            continue
        found.append(Incident(
            level=int(incident.level),
            kind="error" if incident.is_error() else "warning",
            testclass=str(incident.testclass),
            testid=str(incident.testid),
            line=None if incident.lineno is None else int(incident.lineno),
            sent_id=incident.sentid,
            message=str(incident.message),
        ))
    return found
