"""spaCy's English tokenizer with UD English's (EWT's) tokenization conventions.

spaCy's English rules already split what UD English splits in most places (clitics as UD's syntactic words:
"do" + "n't", "I" + "'m"; punctuation off words). Where they disagree systematically, this module changes the
rules the spaCy way, as prefix / suffix / infix patterns and special cases of the ordinary `Tokenizer`, so a
pipeline saves them in its tokenizer's own files and loads them back without vineparse. Every rule below was
derived from EWT train and dev (never test); the counts in the comments are train + dev occurrences.

- Runs of one punctuation character are one token: "!!!", "**", "<<", "====", "____" (1,037 runs, all but 8
  one token in UD; spaCy splits them into single characters), and so are rules mixing "-" and "="
  ("----=="). Runs of sentence-final marks are one token too: ".?", "?!", "!!!?" (78 runs, 64 one token),
  except that an ellipsis stays apart: "...?" is "..." + "?". Runs of "+" count only on their own.
- Hyphens between letters split as in spaCy ("Al-Zaman" is "Al" "-" "Zaman": 456 of 728 such hyphens), except
  after a prefix UD keeps attached (`HYPHEN_PREFIXES`: "e-mail", "non-human", "re-read", "co-workers").
  Hyphens between digits no longer split (phone numbers, dates, ids: 280 of 350 kept), except in a short
  range of one or two digits each ("3-4", "10-12") and in a range of years ("1969-1970"). A hyphen between a
  capital letter and a digit splits ("F-102", "AK-47": 19 of 22).
- Clock times glued to am / pm split: "7:30PM" is "7:30" "PM" (spaCy does this only for "7pm").
- Inside a chunk, UD splits off what spaCy keeps: brackets ("account(s)" is "account" "(" "s" ")",
  "doc)(See"), a leading hyphen or tilde before a word ("-Mary", "~Kay"), a trailing hyphen or "+" run after
  letters ("book-", "A+"), "k" after digits ("65k"), a comma between letters and digits ("citizen,21"), a name,
  '"' and "<" before an address ('Julie"<julie@...', 9 of 9), and a hyphen before "$" ("$10,000-$20,000", 2 of
  2).
- Special cases: abbreviations UD keeps whole (`ABBREVIATIONS`, "Ft.", "Lt.", "No.", "b/c") are added, and
  "alot" is "a" + "lot" (`RUN_TOGETHER`: two tokens, as UD writes the typo);
  spaCy's "and/or" (UD: "and" "/" "or", 28 of 28) and its splits of "id", "Wed", "wed" (UD: one word) are
  removed. The fused words of `vineparse.text.multiword.FUSED` split into UD's words ("wanna" is "wan" + "na",
  "awhile" "a" + "while") where spaCy has no rule for them.

Multiword tokens ("don't" as one surface token over "do" + "n't") are not the tokenizer's business: spaCy's
tokens are UD's syntactic words, and `vineparse.text.multiword.multiword_ranges` finds the token ranges UD
writes as one surface token.

Use (training config): `[initialize.before_init] @callbacks = "vineparse.ud_english_tokenizer.v1"` (the rules
are written into the tokenizer before training; the saved pipeline loads with plain `spacy.load`), or
`[nlp.tokenizer] @tokenizers = "vineparse.UDEnglishTokenizer.v1"` (loading then needs vineparse installed).
In code: `customize_tokenizer(nlp)`.
"""
from typing import Callable, Dict, List

from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

from .multiword import FUSED

# Prefixes UD EWT keeps attached before a hyphen and a word (lower case; kept at least twice, more often kept
# than split, with at least two different words after it, in EWT train + dev): "e-mail" 45 kept / 2 split,
# "non-" 30 / 0, "mid-" 18 / 0, "anti-" 15 / 0, "pre-" 15 / 0, "re-" 14 / 0.
HYPHEN_PREFIXES = ("anti", "cage", "co", "counter", "cross", "dslr", "e", "ex", "ferret", "fluorescent", "free",
                   "gimp", "hamster", "mid", "multi", "neo", "non", "nook", "over", "post", "pre", "pro", "re",
                   "savic", "semi", "sub", "tablet")

# Abbreviations UD EWT keeps whole (letters and periods ending in a period, or letters, "/" and letters: kept at
# least twice and more often than split, in EWT train + dev) that spaCy's rules split. "etc." is not one: UD
# splits it more often (31) than it keeps it (20); nor is "c/o" (split 2 of 2).
ABBREVIATIONS = ("Arrv.", "Attn.", "Capt.", "Fri.", "Ft.", "I/C", "Lt.", "Mon.", "No.", "Reps.", "Sat.", "Thur.",
                 "Wed.", "arrv.", "b/c", "ext.", "l/c")

# Words run together that UD EWT writes as separate tokens (lower case; split in at least two documents and more
# often than kept whole, in EWT train + dev): "alot" 7 split / 2 kept.
RUN_TOGETHER = (("a", "lot"),)

# spaCy special cases UD EWT disagrees with: it splits "and/or", and keeps "id", "Wed", "wed" as one word.
REMOVED_SPECIAL_CASES = ("and/or", "id", "Wed", "wed")

# A rule of "-" and "=" ("----=="), or one punctuation character repeated ("!!!", "**", "____"; a named
# group, since spaCy joins the patterns into one alternation, where numbered back references would shift).
_RUN = r"(?:[-=_~*]*(?:-=|=-)[-=_~*]*|(?P<run>[^\w\s+]|_)(?P=run)+)"
_PLUS_RUN = r"\+{2,}"
# Sentence-final marks mixed (".?", "?!"), not starting with an ellipsis and not inside one.
_FINAL_RUN_PREFIX = r"(?!\.\.\.)(?=[.!?]{2})[.!?]*[!?][.!?]*"
_FINAL_RUN = r"(?<!\.)" + _FINAL_RUN_PREFIX
_AM_PM = r"(?<=[0-9]:[0-9][0-9])(?i:[ap]\.?m\.?)"


def _hyphen_infix() -> str:
    """spaCy's letter hyphen letter infix, not after a prefix in `HYPHEN_PREFIXES` (at the start of the text
    the infix pattern sees: what is left of a whitespace-separated chunk once prefixes and suffixes are off)."""
    by_length: Dict[int, List[str]] = {}
    for prefix in HYPHEN_PREFIXES:
        by_length.setdefault(len(prefix), []).append(prefix)
    # Python's look-behinds need a fixed width: one per prefix length
    guards = "".join(rf"(?<!^(?i:{'|'.join(sorted(group))}))" for _, group in sorted(by_length.items()))
    return rf"(?<=[{ALPHA}0-9]){guards}(?:{HYPHENS})(?=[{ALPHA}])"


def ud_english_rules(nlp: Language) -> Dict[str, object]:
    """The prefix, suffix and infix pattern lists and the special cases of UD English, from `nlp`'s defaults.

    Returns a dict with `prefixes`, `suffixes`, `infixes` (lists of regular-expression strings, in the order
    spaCy tries them: the first alternative that matches wins) and `rules` (spaCy's special-case table).
    """
    defaults = nlp.Defaults
    # a name run into '"<' and an address ('Julie"<julie@x.com>') goes as prefixes, before spaCy's URL pattern
    # would read the whole chunk as an e-mail address
    prefixes = [_RUN, _PLUS_RUN, _FINAL_RUN_PREFIX, r"[-~](?=[^\W_]|\.[0-9]|\$)", rf'[{ALPHA}]+(?="<)', r'"(?=<)',
                r"<(?=[^\s<>]*@)"] + list(defaults.prefixes)
    suffixes = [_RUN, _FINAL_RUN, _AM_PM, rf"(?<=[{ALPHA}])(?:-|\++)", r"(?<=[0-9])k"] + list(defaults.suffixes)
    infixes = []
    for pattern in defaults.infixes:
        if pattern == r"(?<=[0-9])[+\-\*^](?=[0-9-])":
            # digits: "+", "*", "^" still split; a hyphen only in short ranges and year ranges
            infixes += [r"(?<=[0-9])[+\*^](?=[0-9-])",
                        r"(?:(?<=^[0-9])|(?<=^[0-9]{2}))-(?=[0-9]{1,2}$)",
                        r"(?<=^(?:19|20)[0-9]{2})-(?=(?:19|20)[0-9]{2}$)"]
        elif pattern == rf"(?<=[{ALPHA}0-9])(?:{HYPHENS})(?=[{ALPHA}])":
            infixes += [_hyphen_infix(), r"(?<=[A-Z])-(?=[0-9])"]
        else:
            infixes.append(pattern)
    if len(infixes) != len(defaults.infixes) + 3:
        raise RuntimeError("spaCy's English infixes changed: vineparse's UD rules need updating")
    infixes[:0] = [_RUN, r"[()\[\]]", rf"(?<=[{ALPHA}]),(?=[0-9])",
                   rf"(?<=[0-9]),(?=[{ALPHA}])", r"(?<=[0-9])-(?=\$)", r"(?<=[0-9]-)\$"]
    rules = {key: value for key, value in (defaults.tokenizer_exceptions or {}).items()
             if key not in REMOVED_SPECIAL_CASES}
    for abbreviation in ABBREVIATIONS:
        rules[abbreviation] = [{"ORTH": abbreviation}]
    # UD's fused words ("wanna" is "wan" + "na") and run-together words ("alot"), in lower, title and upper case,
    # where spaCy has no rule
    for first, *rest in sorted(FUSED) + list(RUN_TOGETHER):
        for cased in ([first, *rest], [first.capitalize(), *rest], [first.upper(), *map(str.upper, rest)]):
            rules.setdefault("".join(cased), [{"ORTH": word} for word in cased])
    return {"prefixes": prefixes, "suffixes": suffixes, "infixes": infixes, "rules": rules}


def customize_tokenizer(nlp: Language) -> Language:
    """Give `nlp`'s tokenizer (spaCy's `Tokenizer`) UD English's rules in place; returns `nlp`.

    Only the patterns and special cases change: `token_match` and `url_match` stay spaCy's. The tokenizer's
    `to_disk` / `to_bytes` save the patterns, so a saved pipeline keeps the rules without vineparse.
    """
    rules = ud_english_rules(nlp)
    tokenizer = nlp.tokenizer
    tokenizer.prefix_search = compile_prefix_regex(rules["prefixes"]).search
    tokenizer.suffix_search = compile_suffix_regex(rules["suffixes"]).search
    tokenizer.infix_finditer = compile_infix_regex(rules["infixes"]).finditer
    tokenizer.rules = rules["rules"]
    return nlp


def ud_english_tokenizer_callback() -> Callable[[Language], Language]:
    """The callback `vineparse.ud_english_tokenizer.v1`, for `[initialize.before_init]` (or
    `[nlp.after_creation]`, which then needs vineparse when the pipeline is loaded)."""
    return customize_tokenizer


def create_ud_english_tokenizer() -> Callable[[Language], Tokenizer]:
    """The tokenizer factory `vineparse.UDEnglishTokenizer.v1`, for `[nlp.tokenizer]`: spaCy's tokenizer of the
    pipeline's language with UD English's rules."""
    def make(nlp: Language) -> Tokenizer:
        rules = ud_english_rules(nlp)
        return Tokenizer(nlp.vocab, rules=rules["rules"],
                         prefix_search=compile_prefix_regex(rules["prefixes"]).search,
                         suffix_search=compile_suffix_regex(rules["suffixes"]).search,
                         infix_finditer=compile_infix_regex(rules["infixes"]).finditer,
                         token_match=nlp.Defaults.token_match, url_match=nlp.Defaults.url_match)
    return make
