"""Multiword tokens whose words do not spell them, learned from a treebank's train file.

In Portuguese (and many other UD languages) a surface token can stand for words that are not its letters:
"do" is "de" + "o", "à" is "a" + "a", "dele" is "de" + "ele"; and a verb with a clitic pronoun after a
hyphen is two words whose letters lose the hyphen: "trata-se" is "trata" + "se". spaCy's tokens must spell the
text, so such tokens cannot be split into their words by the tokenizer. This module handles the two kinds the
spaCy way, from counts over the train file (never dev or test):

- **Contractions** (`Contractions.table`): a surface form (lower case) that the train file writes more often
  as a multiword token than as a word, and whose words do not spell it. spaCy keeps it as one token. In the
  training docs (`gold_docs`) that token carries the annotation of its *kept* word: the word nearest the root
  (for "do", "de", attached to the noun after it like "o"); the other words are left out, and
  words attached to them attach to the token. When CoNLL-U is written (`conllu_writer`), the token becomes
  its range line and its words again: the kept word with the parse of the token, each other word with the head
  (the kept word, or the kept word's head) and relation it has most often in train (`Expansion`).
- **Hyphenated clitics** (`Contractions.clitics`): pronouns the train file writes as the second word of
  ``word-clitic`` tokens more often than inside a word. The tokenizer splits them off as a suffix
  (``trata`` + ``-se``, `add_clitic_suffix`); the two tokens are one multiword token whose words are
  ``trata`` and ``se`` (`ranges`).

A pipeline keeps what it learned in its meta (``nlp.meta["vineparse_multiword"]``, `to_meta` / `from_meta`), so
`python -m vineparse parse-text` writes the same multiword tokens from the saved pipeline alone, and the
clitic suffix is in its tokenizer's own files. English needs neither (its multiword tokens spell their words:
`vineparse.text.multiword`).

Use (training config): ``[initialize.before_init] @callbacks = "vineparse.ud_multiword.v1"`` with
``path`` the train CoNLL-U file.
"""
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..corpus.conllu import Sentence

__all__ = ["Expansion", "Contractions", "learn_contractions", "kept_word", "META_KEY",
           "add_clitic_suffix", "multiword_callback", "is_clitic", "spells", "tokenizer_splits",
           "pipeline_multiword"]

META_KEY = "vineparse_multiword"
MIN_CLITIC = 3      # a hyphenated clitic is seen at least this often in train
KEPT_HEAD = -1      # an other word's head: the kept word's head (else the kept word itself)


@dataclass(frozen=True)
class Expansion:
    """The words of one contraction and how its words other than the kept one attach.

    words: the words in lower case; kept: the index of the word the token's parse is; arcs: one per word
    (None for the kept word): (head, relation, UPOS), head `KEPT_HEAD` for the kept word's head, else the kept
    word's index (a word attached inside the token hangs on the kept word).
    """
    words: Tuple[str, ...]
    kept: int
    arcs: Tuple[Optional[Tuple[int, str, str]], ...]


@dataclass
class Contractions:
    """What `learn_contractions` learned: `table` (surface form in lower case -> `Expansion`) and `clitics`
    (the hyphenated clitics, lower case)."""
    table: Dict[str, Expansion] = field(default_factory=dict)
    clitics: Tuple[str, ...] = ()

    def to_meta(self) -> dict:
        return {"table": {s: {"words": list(e.words), "kept": e.kept, "arcs": [list(a) if a else None
                                                                                for a in e.arcs]}
                          for s, e in sorted(self.table.items())},
                "clitics": list(self.clitics)}

    @classmethod
    def from_meta(cls, meta: dict) -> "Contractions":
        table = {s: Expansion(tuple(e["words"]), int(e["kept"]),
                              tuple((int(a[0]), str(a[1]), str(a[2])) if a else None for a in e["arcs"]))
                 for s, e in meta.get("table", {}).items()}
        return cls(table, tuple(meta.get("clitics", ())))

    def expansion(self, text: str) -> Optional[Expansion]:
        """The expansion of a token's text, or None."""
        return self.table.get(text.lower())

    def ranges(self, doc) -> List[Tuple[int, int, Tuple[str, ...]]]:
        """The [start, end) token ranges of hyphenated clitics in `doc` with their words' forms: a token with a
        letter followed, with no whitespace between, by ``-clitic`` (``trata`` ``-se`` -> "trata", "se")."""
        clitics = set(self.clitics)
        found = []
        for i in range(len(doc) - 1):
            left, right = doc[i], doc[i + 1]
            if not left.whitespace_ and right.text[:1] in _HYPHENS and right.text[1:].lower() in clitics \
                    and any(ch.isalpha() for ch in left.text) and not (found and found[-1][1] > i):
                found.append((i, i + 2, (left.text, right.text[1:])))
        return found


_HYPHENS = ("-", "\u2010", "\u2011")


def kept_word(sentence: Sentence, first: int, last: int) -> int:
    """The word (1-based) a contraction's token stands for: of words first..last, the one nearest the root (the
    first of those at the same depth), so that no word of the tree is both above and below the token."""
    def depth(word: int) -> int:
        steps = 0
        while word and steps <= sentence.n:
            word = int(sentence.heads[word])
            steps += 1
        return steps
    return min(range(first, last + 1), key=lambda k: (depth(k), k))


def is_clitic(surface: str, words: Sequence[str]) -> bool:
    """Whether a multiword token is a word, a hyphen and a clitic (\"trata-se\" = \"trata\" + \"se\")."""
    return len(words) == 2 and surface[len(words[0]):len(words[0]) + 1] in _HYPHENS and \
        surface.lower() == (words[0] + surface[len(words[0])] + words[1]).lower()


def spells(surface: str, words: Sequence[str]) -> bool:
    """Whether the words are the surface's letters, case aside (English "don't" = "do" + "n't")."""
    return "".join(words).lower() == surface.lower()


def tokenizer_splits(surface: str, words: Sequence[str], tokenizer: Optional[Callable] = None) -> bool:
    """Whether a multiword token is its words as tokens: the words spell it and `tokenizer` (a spaCy tokenizer)
    splits it at their boundaries; without a tokenizer, whether they spell it (UD English's tokenizer splits
    all such tokens, `vineparse.text.tokenizer`)."""
    if not spells(surface, words):
        return False
    if tokenizer is None:
        return True
    return [t.text.lower() for t in tokenizer(surface)] == [w.lower() for w in words]


def learn_contractions(sentences: Iterable[Sentence], tokenizer: Optional[Callable] = None) -> Contractions:
    """Contractions and hyphenated clitics of a treebank (see the module). Time O(words + contraction words x
    tree depth).

    A surface form is a contraction when the train file writes it more often as a multiword token that
    `tokenizer` does not split into its words (`tokenizer_splits`; by its most frequent words) than as a word;
    a clitic, when it follows a hyphen as a multiword token's second word at least `MIN_CLITIC` times and more
    often than it ends a word after a hyphen.
    """
    analyses: Dict[str, Counter] = defaultdict(Counter)         # surface -> its words -> count
    kept_at: Dict[Tuple[str, Tuple[str, ...]], Counter] = defaultdict(Counter)     # -> kept index -> count
    # (surface, words, kept index) -> word index -> (head, relation, UPOS) -> count
    arcs: Dict[Tuple, Dict[int, Counter]] = defaultdict(lambda: defaultdict(Counter))
    as_word: Counter = Counter()
    clitic_tokens: Counter = Counter()
    clitic_words: Counter = Counter()
    for sentence in sentences:
        inside = set()
        for first, (last, surface, _) in sentence.multiword_tokens().items():
            inside.update(range(first, last + 1))
            words = tuple(sentence.words[k - 1] for k in range(first, last + 1))
            if is_clitic(surface, words):
                clitic_tokens[words[1].lower()] += 1
            elif last > first and not tokenizer_splits(surface, words, tokenizer):
                key = (surface.lower(), tuple(w.lower() for w in words))
                analyses[key[0]][key[1]] += 1
                kept = kept_word(sentence, first, last)
                kept_at[key][kept - first] += 1
                for k in range(first, last + 1):
                    if k != kept:
                        head = int(sentence.heads[k])
                        where = kept - first if first <= head <= last else KEPT_HEAD
                        arcs[key + (kept - first,)][k - first][
                            (where, str(sentence.labels[k - 1]), str(sentence.upos[k - 1]))] += 1
        for k, word in enumerate(sentence.words, 1):
            if k not in inside:
                as_word[word.lower()] += 1
                stem, hyphen, end = word.lower().rpartition("-")
                if hyphen and stem:
                    clitic_words[end] += 1
    table = {}
    for surface, counts in analyses.items():
        (words, _), = counts.most_common(1)
        if sum(counts.values()) > as_word[surface]:
            (kept, _), = kept_at[surface, words].most_common(1)
            per_word = arcs[surface, words, kept]
            table[surface] = Expansion(words, kept, tuple(
                None if j == kept else per_word[j].most_common(1)[0][0] for j in range(len(words))))
    clitics = tuple(sorted(c for c, n in clitic_tokens.items()
                           if n >= MIN_CLITIC and n > clitic_words[c] and c.isalpha()))
    return Contractions(table, clitics)


def add_clitic_suffix(nlp, clitics: Sequence[str]) -> None:
    """Put a suffix pattern splitting ``-clitic`` off a word (after a letter) first in `nlp`'s tokenizer."""
    if not clitics:
        return
    from spacy.util import compile_suffix_regex

    pattern = r"(?<=[^\W\d_])[-\u2010\u2011](?i:%s)" % "|".join(re.escape(c) for c in sorted(clitics, key=len,
                                                                                                reverse=True))
    suffixes = [pattern] + list(nlp.Defaults.suffixes or [])
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search


def multiword_callback(path: str) -> Callable:
    """The callback `vineparse.ud_multiword.v1` (``[initialize.before_init]``): learn the contractions and
    clitics of the train CoNLL-U file at `path`, split the clitics off in the tokenizer and keep both in
    ``nlp.meta``."""
    def learn(nlp):
        from ..corpus.conllu import read_conllu

        contractions = learn_contractions(read_conllu(path), nlp.tokenizer)
        add_clitic_suffix(nlp, contractions.clitics)
        nlp.meta[META_KEY] = contractions.to_meta()
        return nlp
    return learn


def pipeline_multiword(nlp) -> Tuple[Optional[Callable], Optional[Contractions]]:
    """How the CoNLL-U of `nlp`'s docs writes multiword tokens: (the ranges callable, the contractions) for
    ``conllu_writer``. UD English's ranges for an English pipeline (`vineparse.text.multiword`); the clitic
    ranges and contractions a pipeline trained with `multiword_callback` keeps in its meta; else none."""
    meta = nlp.meta.get(META_KEY)
    if meta:
        contractions = Contractions.from_meta(meta)
        return contractions.ranges, contractions
    if nlp.lang == "en":
        from .multiword import multiword_ranges
        return multiword_ranges, None
    return None, None
