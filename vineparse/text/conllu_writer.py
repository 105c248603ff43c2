"""CoNLL-U from spaCy docs parsed from raw text: what the CoNLL 2018 evaluation and UD's validator read.

Conventions (each one counted in ``WriteStats`` when it changes what the pipeline produced):

- Documents: every doc starts with ``# newdoc`` (``# newdoc id = ID`` when an id is given) and ``# newpar``,
  unless it is written as the next part of the document before (``ConlluWriter.write(continues=True)``, how
  ``parse_text`` writes a long text cut into pieces).
- Words: every token that is not whitespace (``token.is_space``) is a word, numbered 1..n in its sentence.
  Whitespace tokens are never written: the text between two words (their whitespace and any whitespace tokens)
  decides the word's MISC ``SpaceAfter=No`` (no character at all between them; written at sentence ends too)
  and the paragraphs: text between two words that holds an empty line (``\\n``, optional non-line-break
  whitespace, ``\\n``; so ``"\\n\\n"`` and ``"\\r\\n\\r\\n"``) starts a paragraph at the second word: ``# newpar``
  when it starts a sentence, ``NewPar=Yes`` in its MISC (UD's mark of a paragraph inside a sentence) otherwise.
- Sentences: ``doc.sents`` when the doc has sentence boundaries, else the whole doc as one sentence. A sentence
  with no word (only whitespace) is not written (``empty_sentences``). ``# sent_id = DOC-sK`` (K from 1 in the
  document; DOC is the document id, or ``dN`` for the N-th document written; ``PREFIX-sK`` with K from 1 in the
  doc when ``write`` is given ``sent_prefix``) and ``# text`` (the words' forms
  with one space where the MISC has no ``SpaceAfter=No``: the line breaks of the raw text become spaces).
- Columns: FORM ``token.text``, LEMMA ``lemma_``, UPOS ``pos_``, XPOS ``tag_``, FEATS ``token.morph`` (sorted by
  name as UD sorts features, case aside), DEPREL ``dep_``; an empty value is ``_``, except UPOS: UD's validator
  (level 2) takes only the 17 tags, so a word without one gets ``missing_upos`` (``X``, UD's "other";
  ``missing_upos`` counts them); tabs and line breaks inside a value become spaces. DEPS is ``_``.
- Heads: a word whose head is a whitespace token takes that token's head instead, up the chain of whitespace
  tokens (``reattached``). A word whose head lies outside its sentence is a root candidate
  (``outside_heads``). Exactly one root per sentence, HEAD 0, DEPREL ``root``: the first root candidate in word
  order; other candidates are attached to it with ``extra_root_deprel`` (``extra_roots``; a pipeline without a
  parser has every word as its own head, so all but the first are extra roots); a cycle (possible only in
  hand-set heads) is broken by attaching the word where it is entered to the root (``broken_cycles``). A
  non-root word labelled ``ROOT`` / ``root`` / empty gets ``dep``.
- Multiword tokens: ``multiword(doc)`` gives token index ranges [start, end) that UD writes as one token
  (e.g. ``do`` + ``n't`` of ``don't``; ``vineparse.text.multiword.multiword_ranges``). Each becomes a range line
  ``a-b FORM`` (FORM the doc's text of the range) before its words, with the range's ``SpaceAfter=No`` /
  ``NewPar=Yes`` on that line and ``_`` in the words' MISC. A range is written only if it spans at least two
  words of one sentence with no whitespace among them and overlaps no earlier range; others are counted in
  ``skipped_ranges``. A range may give its words' FORMs (a hyphenated clitic: ``trata`` + ``-se`` are the
  words "trata" and "se").
- Contractions (``contractions``, ``vineparse.text.contractions``): a token whose text is one is written as a
  range line over its words (``expanded_contractions``): the kept word with the token's parse, each other word
  with the head and relation learned for it (attached to the kept word where the kept word is the root). The
  words' FORMs take the token's case ("Do" -> "De" "o"); heads to the token point to its kept word.
"""
import re
from dataclasses import dataclass, fields
from typing import IO, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .contractions import KEPT_HEAD

__all__ = ["WriteStats", "ConlluWriter", "docs_to_conllu", "MultiwordRanges"]

MultiwordRanges = Callable[[object], Sequence[Tuple]]
_EMPTY_LINE = re.compile(r"\n[^\S\n]*\n")
_BAD_IN_VALUE = re.compile(r"[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass
class WriteStats:
    """Counts of what was written and of every change made to the pipeline's output (see the module docstring)."""

    documents: int = 0
    paragraphs: int = 0
    sentences: int = 0
    words: int = 0
    multiword_tokens: int = 0
    expanded_contractions: int = 0
    whitespace_tokens: int = 0
    empty_sentences: int = 0
    reattached: int = 0
    outside_heads: int = 0
    extra_roots: int = 0
    broken_cycles: int = 0
    skipped_ranges: int = 0
    missing_upos: int = 0

    def to_dict(self) -> Dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def format(self) -> str:
        """One line: the counts that are not zero."""
        return ", ".join(f"{name} {value:,}" for name, value in self.to_dict().items() if value)


def _value(text: str) -> str:
    text = _BAD_IN_VALUE.sub(" ", text)
    return text if text else "_"


def _feats(token) -> str:
    """FEATS: spaCy's morphology sorted as UD sorts features (by name, case aside: "Number" before "NumType")."""
    return _value("|".join(sorted(str(token.morph).split("|"), key=str.lower)))


def _squeeze(whitespace: str) -> str:
    """Whitespace reduced to what decides a paragraph break after it: ``"\\n\\n"``, ``"\\n"`` or ``""``."""
    if _EMPTY_LINE.search(whitespace):
        return "\n\n"
    return "\n" if "\n" in whitespace else ""


def _sentences(doc) -> List:
    try:
        return list(doc.sents)
    except ValueError:  # no sentence boundaries
        return [doc[:]]


class ConlluWriter:
    """Writes docs one at a time to an open text file, keeping the counts across them.

    file (IO[str]): where the CoNLL-U goes.
    multiword (Optional[Callable[[Doc], Sequence[Tuple]]]): the multiword token ranges of a doc: (start, end)
        token indices, end exclusive, or (start, end, forms) with the FORM of each of its words; None: none.
    contractions (Optional[Contractions]): tokens to write as several words (``vineparse.text.contractions``).
    extra_root_deprel (str): the relation of a sentence's extra roots to its first (default ``parataxis``).
    missing_upos (str): the UPOS of a word the pipeline gave none (default ``X``).
    """

    def __init__(self, file: IO[str], *, multiword: Optional[MultiwordRanges] = None, contractions=None,
                 extra_root_deprel: str = "parataxis", missing_upos: str = "X") -> None:
        self.file = file
        self.contractions = contractions
        self.missing_upos = missing_upos
        self.multiword = multiword
        self.extra_root_deprel = extra_root_deprel
        self.stats = WriteStats()
        self._doc_name: Optional[str] = None  # the document being written
        self._newdoc = ""  # its # newdoc line, until its first sentence is written
        self._k = 0  # its sentences so far
        self._gap: Optional[str] = None  # the text after its last word so far (None: nothing written)
        self._pending_id: Optional[str] = None  # the id of the document to open at its first word

    def write(self, doc, doc_id: Optional[str] = None, continues: bool = False, new_paragraph: bool = False,
              sent_prefix: Optional[str] = None) -> None:
        """Write one doc as a document, or with ``continues`` as the next part of the document written last.

        A continuing doc gets no ``# newdoc``, its sentences are numbered on from the previous part's, and its
        first word starts a paragraph only if the whitespace since the previous part's last word holds an
        empty line, or ``new_paragraph`` (a doc cut out of a longer text at a line or a space continues its
        paragraph; the previous part's last word cannot get ``SpaceAfter=No`` afterwards). ``sent_prefix``
        names this doc's sentences ``PREFIX-sK`` (K from 1) instead of ``DOC-sK``. A doc with no word writes
        nothing.
        """
        self.file.write(self.format(doc, doc_id, continues, new_paragraph, sent_prefix))

    def resume(self, doc_id: Optional[str]) -> None:
        """Go on with a document begun elsewhere (e.g. in an earlier shard): the next doc written with
        ``continues`` gets no ``# newdoc``."""
        self._doc_name = ("_".join(str(doc_id).split()) or "_") if doc_id is not None else "d"
        self._newdoc, self._k, self._gap = "", 0, ""

    def format(self, doc, doc_id: Optional[str] = None, continues: bool = False, new_paragraph: bool = False,
               sent_prefix: Optional[str] = None) -> str:
        """What ``write`` writes, as a string (counted as written)."""
        stats = self.stats
        words = [t for t in doc if not t.is_space]
        stats.whitespace_tokens += len(doc) - len(words)
        text = doc.text
        if not continues:
            self._doc_name, self._pending_id, self._gap = None, doc_id, None
        if not words:
            if self._gap is not None:
                self._gap = _squeeze(self._gap + text)
            return ""
        if self._doc_name is None:  # the document's first word: open it
            name = self._pending_id if self._pending_id is not None else doc_id
            stats.documents += 1
            self._doc_name = "d%d" % stats.documents if name is None else "_".join(str(name).split()) or "_"
            self._newdoc = "# newdoc" if name is None else f"# newdoc id = {self._doc_name}"
            self._k = 0
        # paragraph starts and SpaceAfter=No, from the text between consecutive words
        new_par = set()
        if new_paragraph or self._gap is None or _EMPTY_LINE.search(self._gap + text[:words[0].idx]):
            new_par.add(words[0].i)
        no_space = set()
        for left, right in zip(words, words[1:]):
            gap = text[left.idx + len(left.text):right.idx]
            if not gap:
                no_space.add(left.i)
            elif _EMPTY_LINE.search(gap):
                new_par.add(right.i)
        self._gap = _squeeze(text[words[-1].idx + len(words[-1].text):])
        ranges = self._ranges(doc)
        out: List[str] = []
        k = 0
        for span in _sentences(doc):
            sentence = [t for t in span if not t.is_space]
            if not sentence:
                stats.empty_sentences += 1
                continue
            self._k += 1
            k += 1
            sent_id = f"{self._doc_name}-s{self._k}" if sent_prefix is None else f"{sent_prefix}-s{k}"
            out.append(self._sentence(doc, sentence, ranges, new_par, no_space, sent_id))
        return "".join(out)

    def _ranges(self, doc) -> Dict[int, Tuple[int, Optional[Sequence[str]]]]:
        """start -> (end, the words' forms or None) of the multiword ranges to write (checked for whitespace,
        overlap and the number of forms)."""
        if self.multiword is None:
            return {}
        found: Dict[int, Tuple[int, Optional[Sequence[str]]]] = {}
        last_end = 0
        for item in sorted(self.multiword(doc), key=lambda r: (int(r[0]), int(r[1]))):
            start, end = int(item[0]), int(item[1])
            forms = item[2] if len(item) > 2 else None
            ok = (0 <= start and end <= len(doc) and end - start >= 2 and start >= last_end
                  and (forms is None or len(forms) == end - start)
                  and not any(doc[i].is_space for i in range(start, end))
                  and not any(doc[i].whitespace_ for i in range(start, end - 1)))
            if ok:
                found[start] = (end, forms)
                last_end = end
            else:
                self.stats.skipped_ranges += 1
        return found

    def _heads(self, sentence) -> Tuple[List[int], List[str]]:
        """HEAD (0 for the root) and DEPREL of each word, with the rules of the module docstring."""
        stats = self.stats
        index = {t.i: n for n, t in enumerate(sentence, 1)}
        heads: List[int] = []
        labels: List[str] = []
        for token in sentence:
            head = token.head
            seen = {token.i}
            if head.is_space and head.i != token.i:
                stats.reattached += 1
                while head.is_space and head.head.i not in seen:
                    seen.add(head.i)
                    head = head.head
                if head.is_space:
                    head = token
            if head.i == token.i:
                heads.append(0)
            elif head.i in index:
                heads.append(index[head.i])
            else:
                stats.outside_heads += 1
                heads.append(0)
            labels.append(token.dep_)
        roots = [n for n, h in enumerate(heads, 1) if h == 0]
        if roots:
            root = roots[0]
            for n in roots[1:]:
                heads[n - 1] = root
                labels[n - 1] = self.extra_root_deprel
                stats.extra_roots += 1
        else:
            root = 1
            heads[0] = 0
            stats.broken_cycles += 1
        # break cycles (linear): walk up from each word; meeting the current walk again closes a cycle
        n = len(heads)
        state = [0] * (n + 1)  # 0 unseen, 1 on the current walk, 2 reaches the root
        state[0] = 2
        for start in range(1, n + 1):
            walk, node = [], start
            while state[node] == 0:
                state[node] = 1
                walk.append(node)
                node = heads[node - 1]
            if state[node] == 1:
                heads[node - 1] = root
                stats.broken_cycles += 1
            for m in walk:
                state[m] = 2
        labels[root - 1] = "root"
        for m in range(n):
            if m + 1 != root and labels[m] in ("ROOT", "root", ""):
                labels[m] = "dep"
        return heads, labels

    def _expansions(self, sentence, ranges) -> Dict[int, object]:
        """Position in the sentence (1-based) -> `Expansion` of each contraction token outside the ranges."""
        if self.contractions is None:
            return {}
        inside = {i for start, (end, _) in ranges.items() for i in range(start, end)}
        found = {}
        for n, token in enumerate(sentence, 1):
            expansion = self.contractions.expansion(token.text)
            if expansion is not None and len(expansion.words) > 1 and token.i not in inside:
                found[n] = expansion
        return found

    def _sentence(self, doc, sentence, ranges, new_par, no_space, sent_id) -> str:
        stats = self.stats
        heads, labels = self._heads(sentence)
        expansions = self._expansions(sentence, ranges)
        first_word, kept_word = [0], [0]     # per token (1-based): its first word's number, its parse's word's
        for n in range(1, len(sentence) + 1):
            first_word.append(1 if n == 1 else first_word[-1] + _width(expansions.get(n - 1)))
            kept_word.append(first_word[-1] + (expansions[n].kept if n in expansions else 0))
        lines = []
        if self._newdoc:
            lines.append(self._newdoc)
            self._newdoc = ""
        if sentence[0].i in new_par:
            lines.append("# newpar")
            stats.paragraphs += 1
        lines.append(f"# sent_id = {'_'.join(sent_id.split())}")
        text_at = len(lines)
        lines.append("")  # the # text line, filled below
        pieces: List[str] = []
        index = {t.i: n for n, t in enumerate(sentence, 1)}
        last_word = sentence[-1].i
        range_end = -1  # doc index where the open multiword range ends
        forms: Dict[int, str] = {}  # doc index -> the FORM of a word of a range that gives its words' forms

        def surface_token(n: int, first: int, last: int, form: str, token, last_token) -> None:
            """The range line of the n-th token of the sentence, over words first..last, and its text in # text."""
            misc = self._token_misc(token, last_token, n, new_par, no_space) or "_"
            lines.append(f"{first}-{last}\t{_value(form)}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
            pieces.append(form + ("" if last_token.i in no_space else " "))
            stats.multiword_tokens += 1

        for n, token in enumerate(sentence, 1):
            misc = ""
            end, range_forms = ranges.get(token.i, (None, None))
            expansion = expansions.get(n)
            if end is not None and (end - 1) in index and end - 1 <= last_word:
                range_end = end
                last = doc[end - 1]
                if range_forms is not None:
                    forms.update(zip(range(token.i, end), range_forms))
                surface_token(n, first_word[n], first_word[index[last.i]],
                              doc.text[token.idx:last.idx + len(last.text)], token, last)
            elif end is not None:
                stats.skipped_ranges += 1
            elif expansion is not None:
                surface_token(n, first_word[n], first_word[n] + len(expansion.words) - 1, token.text, token, token)
                stats.expanded_contractions += 1
            inside = token.i < range_end or expansion is not None
            if not inside:
                misc = self._token_misc(token, token, n, new_par, no_space)
                pieces.append(token.text + ("" if token.i in no_space else " "))
            upos = token.pos_
            if not upos:
                upos = self.missing_upos
                stats.missing_upos += 1
            head = 0 if heads[n - 1] == 0 else kept_word[heads[n - 1]]
            row = [_value(forms.get(token.i, token.text)), _value(token.lemma_), _value(upos), _value(token.tag_),
                   _feats(token), str(head), _value(labels[n - 1]), "_", misc or "_"]
            if expansion is None:
                lines.append("\t".join([str(first_word[n])] + row))
                continue
            for j, word in enumerate(expansion.words):
                form = _cased(word, token.text, j)
                if j == expansion.kept:
                    lines.append("\t".join([str(first_word[n] + j), _value(form)] + row[1:8] + ["_"]))
                    continue
                where, label, word_upos = expansion.arcs[j]
                word_head = head if where == KEPT_HEAD and head else first_word[n] + expansion.kept
                lines.append("\t".join((str(first_word[n] + j), _value(form), _value(form.lower()), word_upos, "_",
                                        "_", str(word_head), _value(label), "_", "_")))
        lines[text_at] = "# text = " + _BAD_IN_VALUE.sub(" ", "".join(pieces)).strip(" ")
        stats.sentences += 1
        stats.words += first_word[-1] + _width(expansions.get(len(sentence))) - 1
        return "\n".join(lines) + "\n\n"

    def _token_misc(self, token, last, n, new_par, no_space) -> str:
        """The MISC of a surface token from `token` to `last` (its n-th word), counting a paragraph start."""
        misc = []
        if token.i in new_par and n > 1:
            misc.append("NewPar=Yes")
            self.stats.paragraphs += 1
        if last.i in no_space:
            misc.append("SpaceAfter=No")
        return "|".join(misc)


def _width(expansion) -> int:
    return len(expansion.words) if expansion is not None else 1


def _cased(word: str, surface: str, j: int) -> str:
    """A contraction's j-th word in the case of its surface ("Do" -> "De", "o"; "DO" -> "DE", "O")."""
    if surface.isupper() and len(surface) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if j == 0 and surface[:1].isupper() else word


def docs_to_conllu(docs: Iterable, *, doc_ids: Optional[Iterable[Optional[str]]] = None,
                   multiword: Optional[MultiwordRanges] = None, contractions=None, extra_root_deprel: str = "parataxis",
                   missing_upos: str = "X", stats: Optional[WriteStats] = None) -> str:
    """CoNLL-U text of docs, one document each (see the module docstring); ``stats``, if given, receives the
    counts."""
    import io

    buffer = io.StringIO()
    writer = ConlluWriter(buffer, multiword=multiword, contractions=contractions, extra_root_deprel=extra_root_deprel,
                          missing_upos=missing_upos)
    ids = iter(doc_ids) if doc_ids is not None else None
    for doc in docs:
        writer.write(doc, None if ids is None else next(ids, None))
    if stats is not None:
        for name, value in writer.stats.to_dict().items():
            setattr(stats, name, getattr(stats, name) + value)
    return buffer.getvalue()
