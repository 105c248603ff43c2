"""The word lists of vineparse.text's UD English rules, derived again from EWT train (+ dev), equal the lists the
modules ship (issue 69):
- `tokenizer.HYPHEN_PREFIXES`: lower-case letters before a hyphen and a word that UD keeps in one token at least
  twice, more often than it splits them, with at least two different words after (train + dev);
- `tokenizer.ABBREVIATIONS`: letters-and-periods tokens ending in a period, and letters "/" letters tokens, that
  UD keeps at least twice and more often than it writes them as the word and a "." token (the letters, "/" and
  the letters), and that spaCy's rules split (train + dev);
- `tokenizer.RUN_TOGETHER`: two words of letters that UD writes as two tokens with no space between, in at
  least two documents and more often than as one token (train + dev);
- the spaCy special cases that split a string UD keeps as one single-word token more often than as a multiword
  token (`tokenizer.REMOVED_SPECIAL_CASES` has these, and "and/or", which UD splits 28 of 28 times);
- `multiword.CLITICS` (second words of train's multiword tokens seen at least twice, apostrophes normalised,
  that begin with an apostrophe, or are such a word without it, or follow three different first words) and
  `multiword.FUSED` (train's multiword tokens of letters seen at least twice whose last word is no clitic).
"""
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import spacy

from vineparse.corpus import corpus_path, read_conllu
from vineparse.text import multiword, tokenizer


def sentences(path: Path):
    """(text, [(surface token, [words])], document) per sentence; the document is its sent_id less the last part."""
    for sentence in read_conllu(path):
        tokens, i = [], 0
        for form, _, n in sentence.surface_tokens():
            tokens.append((form, sentence.words[i:i + n]))
            i += n
        yield sentence.text, tokens, (sentence.sent_id or "").rsplit("-", 1)[0]


@pytest.fixture(scope="module")
def derived():
    train = list(sentences(Path(corpus_path("ud-english-ewt", "en_ewt-ud-train.conllu"))))
    both = train + list(sentences(Path(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))))
    nlp = spacy.blank("en")
    hyphen, rights = defaultdict(Counter), defaultdict(set)
    kept, split, single, multi = Counter(), Counter(), Counter(), Counter()
    alone, run_together, run_documents = Counter(), Counter(), defaultdict(set)
    for text, tokens, document in both:
        offsets, position, before, single_last = {}, 0, [("", -1), ("", -1)], False
        for form, words in tokens:
            start = text.find(form, position)
            if start < 0:
                break
            offsets[start] = form
            position = start + len(form)
            (single if len(words) == 1 else multi)[form] += 1
            alone[form.lower()] += len(words) == 1
            if re.fullmatch(r"[A-Za-z][A-Za-z.]*\.|[A-Za-z]+/[A-Za-z]+", form):
                kept[form] += 1
            (previous, previous_end), (last, last_end) = before
            if form == "." and re.fullmatch(r"[A-Za-z][A-Za-z.]*", last) and last_end == start:
                split[last + "."] += 1
            if last == "/" and last_end == start and previous_end == last_end - 1 and (previous + form).isalpha():
                split[previous + "/" + form] += 1
            if last.isalpha() and form.isalpha() and last_end == start and len(words) == 1 and single_last:
                run_together[(last.lower(), form.lower())] += 1
                run_documents[(last.lower(), form.lower())].add(document)
            before, single_last = [before[1], (form, start + len(form))], len(words) == 1
        else:
            for match in re.finditer(r"(?<=[^\W_])-(?=[^\W_])", text):
                left = re.search(r"[^\W_]+$", text[:match.start()]).group().lower()
                right = re.match(r"[^\W_]+", text[match.end():]).group().lower()
                if left.isalpha() and right.isalpha():
                    whole = match.start() not in offsets or offsets[match.start()] != "-"
                    hyphen[left][whole] += 1
                    if whole:
                        rights[left].add(right)
    derived = {
        "HYPHEN_PREFIXES": tuple(sorted(p for p, c in hyphen.items()
                                        if c[True] >= 2 and c[True] > c[False] and len(rights[p]) >= 2)),
        "ABBREVIATIONS": tuple(sorted(f for f in kept if kept[f] >= 2 and kept[f] > split[f] and len(nlp(f)) > 1)),
        "REMOVED_SPECIAL_CASES": tuple(sorted(k for k, v in nlp.tokenizer.rules.items()
                                              if len(v) > 1 and single[k] > multi[k] and "'" not in k) + ["and/or"]),
        "RUN_TOGETHER": tuple(sorted(w for w, n in run_together.items()
                                     if len(run_documents[w]) >= 2 and n > alone["".join(w)])),
    }
    seconds, hosts, fused = Counter(), defaultdict(set), Counter()
    for _, tokens, _ in train:
        for form, words in tokens:
            lower = [w.lower().replace("\u2019", "'").replace("`", "'") for w in words]
            seconds.update(lower[1:])
            for word in lower[1:]:
                hosts[word].add(lower[0])
    apostrophe = {w for w in seconds if w.startswith(("'", "n'")) and len(w) > 1}
    # the bare apostrophe ("parents'") has a rule of its own (multiword_ranges: after a word ending in "s")
    derived["CLITICS"] = tuple(sorted(w for w, n in seconds.items() if n >= 2 and w != "'" and (
        w in apostrophe or any(w == a.replace("'", "") for a in apostrophe) or len(hosts[w]) >= 3)))
    for _, tokens, _ in train:
        for form, words in tokens:
            lower = tuple(w.lower() for w in words)
            if len(words) > 1 and lower[-1] not in derived["CLITICS"] and all(map(str.isalpha, lower)):
                fused[lower] += 1
    derived["FUSED"] = tuple(sorted(words for words, n in fused.items() if n >= 2))
    return derived


@pytest.mark.parametrize("name, shipped", [
    ("HYPHEN_PREFIXES", tokenizer.HYPHEN_PREFIXES), ("ABBREVIATIONS", tokenizer.ABBREVIATIONS),
    ("REMOVED_SPECIAL_CASES", tokenizer.REMOVED_SPECIAL_CASES), ("RUN_TOGETHER", tokenizer.RUN_TOGETHER),
    ("CLITICS", multiword.CLITICS),
    ("FUSED", multiword.FUSED)])
def test_the_shipped_word_lists_are_those_ewt_train_gives(derived, name, shipped):
    assert sorted(derived[name]) == sorted(shipped)
