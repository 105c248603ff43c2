"""The tokens of a spaCy doc that UD English writes as one multiword token.

UD separates a surface token ("don't", what the text has between spaces and punctuation) from its syntactic
words ("do" + "n't"); a CoNLL-U file writes the surface token as a range line (`3-4	don't`) before the words.
spaCy's English tokenizer already splits such tokens into UD's words, and nothing groups them back:
`multiword_ranges` does, by the conventions of UD English EWT, learned from EWT train's 2,614 multiword tokens
(all but one have two words):

- a word (a token with a letter: "3M" is not "3" + "'m") followed, with no whitespace between, by a clitic
  UD writes as a word of its own (`CLITICS`: "n't", "'s", "'m", "'re", "'ve", "'ll", "'d", their forms
  without apostrophe "nt", "s", "m", "re", "ve", "ll", and "r", as in "dont", "im", "youre") is one token
  with it: "I'm", "don't", "Bush's", "couldn't've";
- the possessive apostrophe after a plural ("parents'") likewise, where the word before ends in "s", the
  apostrophe ends the whitespace-separated chunk (31 times in train) and it does not close a single quote
  opened before in the doc ("'yes'");
- the fused words of `FUSED` ("can" + "not", "gon" + "na", "wan" + "na", "got" + "ta", "a" + "while") are
  one token.

Apostrophes are compared after mapping "’" and "`" to "'", and forms in lower case. Ranges are token index
ranges [start, end) over the doc, sorted, disjoint, each at least two tokens long and with no whitespace
between its tokens (`token.whitespace_ == ""` for every token but the last).
"""
from typing import List, Tuple

from spacy.tokens import Doc

# The second words of EWT train's multiword tokens seen at least twice (apostrophes normalised) that begin
# with an apostrophe, or are such a word without it, or follow at least three different first words
CLITICS = frozenset({"n't", "'s", "'m", "'re", "'ve", "'ll", "'d", "nt", "s", "m", "re", "ve", "ll", "r"})
# EWT train's multiword tokens of letters seen at least twice whose last word is not a clitic
FUSED = frozenset({("can", "not"), ("gon", "na"), ("wan", "na"), ("got", "ta"), ("out", "ta"), ("a", "while")})
_LONGEST_FUSED = max(len(words) for words in FUSED)


def _norm(text: str) -> str:
    return text.lower().replace("\u2019", "'").replace("`", "'")


def _has_letter(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def multiword_ranges(doc: Doc) -> List[Tuple[int, int]]:
    """The [start, end) token ranges of `doc` that UD English writes as one multiword token (see the module)."""
    ranges: List[Tuple[int, int]] = []
    n = len(doc)
    i = 0
    quote_open = False      # a single quote opened ("'yes'"): the next one after a word closes it
    while i < n:
        if doc[i].text == "'" and (i == 0 or doc[i - 1].whitespace_) and not doc[i].whitespace_:
            quote_open = True
        end = i + 1
        # the longest run of fused words starting here, glued together
        for length in range(min(_LONGEST_FUSED, n - i), 1, -1):
            if all(doc[k].whitespace_ == "" for k in range(i, i + length - 1)) and \
                    tuple(_norm(doc[k].text) for k in range(i, i + length)) in FUSED:
                end = i + length
                break
        if _has_letter(doc[i].text):
            while end < n and doc[end - 1].whitespace_ == "" and _norm(doc[end].text) in CLITICS:
                end += 1
            if end == i + 1 and end < n and doc[i].whitespace_ == "" and _norm(doc[end].text) == "'" \
                    and (doc[end].whitespace_ or end + 1 == n or not _has_letter(doc[end + 1].text)):
                if quote_open:
                    quote_open = False
                elif doc[i].text[-1:] in ("s", "S") and doc[i].is_alpha:
                    end += 1
        if end > i + 1:
            ranges.append((i, end))
        i = end
    return ranges
