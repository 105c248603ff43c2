"""vineparse.text.tokenizer: UD English's tokenization rules in spaCy's tokenizer.

The cases are EWT train's (the gold tokens of sentences of en_ewt-ud-train.conllu); each differs from what
spaCy's own English rules give, so a rule that is not applied fails its case.
"""
import json
import subprocess
import sys
import textwrap

import pytest
import spacy
from spacy.lang.en import English
from thinc.api import Config

from vineparse.text.tokenizer import customize_tokenizer

# (text, UD EWT's tokens)
TRAIN_CASES = [
    ("Great service!!! Would recommend", ["Great", "service", "!!!", "Would", "recommend"]),
    ("Did you get it.? No", ["Did", "you", "get", "it", ".?", "No"]),
    ("Really?! wow", ["Really", "?!", "wow"]),
    ("**Note** read this", ["**", "Note", "**", "read", "this"]),
    ("<< back ====", ["<<", "back", "===="]),
    ("send me an e-mail", ["send", "me", "an", "e-mail"]),
    ("non-human co-workers", ["non-human", "co-workers"]),
    ("call 713-853-3989 today", ["call", "713-853-3989", "today"]),
    ("on 11-20-2000 at", ["on", "11-20-2000", "at"]),
    ("the F-102 and AK-47", ["the", "F", "-", "102", "and", "AK", "-", "47"]),
    ("starts at 7:30PM", ["starts", "at", "7:30", "PM"]),
    ("you and/or me", ["you", "and", "/", "or", "me"]),
    ("Ft. Worth and Lt. Dan", ["Ft.", "Worth", "and", "Lt.", "Dan"]),
    ("id say no", ["id", "say", "no"]),
    ("update the account(s) now", ["update", "the", "account", "(", "s", ")", "now"]),
    ("hearing----it", ["hearing", "----", "it"]),
    ("Thanks -Mary", ["Thanks", "-", "Mary"]),
    ("a 65k salary", ["a", "65", "k", "salary"]),
    ("an A+ for them", ["an", "A", "+", "for", "them"]),
    ("I wanna go", ["I", "wan", "na", "go"]),
    ("it would help alot", ["it", "would", "help", "a", "lot"]),
    ("b/c it works", ["b/c", "it", "works"]),
    ("from $10,000-$20,000 per", ["from", "$", "10,000", "-", "$", "20,000", "per"]),
    ('Email: "Julie"<julie...@bellsouth.net>', ["Email", ":", '"', "Julie", '"', "<", "julie...@bellsouth.net", ">"]),
]


@pytest.fixture(scope="module")
def nlp():
    return customize_tokenizer(spacy.blank("en"))


@pytest.mark.parametrize("text,tokens", TRAIN_CASES)
def test_train_cases(nlp, text, tokens):
    assert [t.text for t in nlp(text)] == tokens
    # the case tests a rule of ours: spaCy's own rules tokenize it otherwise
    assert [t.text for t in spacy.blank("en")(text)] != tokens


@pytest.mark.parametrize("text", ["Al-Zaman : American forces", "from 3-4 and 1969-1970", "The cat sat on the mat.",
                                  "I don't think it's Bush's fault, is it?", "U.S. troops :)", "Wait...? what",
                                  "Mr. Smith paid $5.00 (see http://www.example.com/a-b).",
                                  "well-known self-esteem", "It costs 10%. Call (713) 853-3989",
                                  "write to <joe@example.com> or <b>here</b>", "c/o Mary"])
def test_agrees_with_spacy_where_ud_does(nlp, text):
    expected = [t.text for t in spacy.blank("en")(text)]
    if text.startswith("It costs"):     # the only difference here: UD keeps the phone number
        expected = ["It", "costs", "10", "%", ".", "Call", "(", "713", ")", "853-3989"]
    assert [t.text for t in nlp(text)] == expected


TRICKY = ["", " ", "\n\n", "\t \n", "a\x00b\x01 \x07c\x0b\x0c",
          "日本語 text русский العربية עברית 🙂!!",
          "e\u0301-mail\u200b non\u00a0-human", "a" * 100_000, "!" * 100_000, "?!" * 50_000 + "a",
          "a-" * 50_000, "(a" * 50_000, "1-2" * 30_000, "a.b,c!d?e-f_g" * 8_000, "http://x.com/" + "a" * 100_000]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_every_character_in_exactly_one_token(nlp, text):
    doc = nlp(text)
    assert "".join(t.text_with_ws for t in doc) == text
    position = 0
    for token in doc:
        assert token.idx == position and token.text
        position += len(token.text_with_ws)


def test_saved_pipeline_loads_without_vineparse(nlp, tmp_path):
    """The rules travel in the tokenizer's own files: a fresh interpreter where vineparse cannot be imported
    (its entry points hidden from spaCy, its modules refused) loads the saved pipeline and tokenizes as we do."""
    nlp.to_disk(tmp_path / "model")
    texts = [text for text, _ in TRAIN_CASES]
    script = textwrap.dedent(f"""
        import importlib.metadata, json, sys

        class NoVineparse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "vineparse":
                    raise ImportError("vineparse is not installed here")

        sys.meta_path.insert(0, NoVineparse())
        import catalogue
        groups = {{}}  # catalogue reads a plain dict of entry points by group
        for dist in importlib.metadata.distributions():
            for ep in dist.entry_points:
                if not ep.value.startswith("vineparse"):
                    groups.setdefault(ep.group, []).append(ep)
        catalogue.AVAILABLE_ENTRY_POINTS = groups
        import spacy
        nlp = spacy.load({str(tmp_path / "model")!r})
        assert not any(name.split(".")[0] == "vineparse" for name in sys.modules)
        print(json.dumps([[t.text for t in nlp(text)] for text in {texts!r}]))
    """)
    # -I: the working directory (a source tree) stays off sys.path
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [tokens for _, tokens in TRAIN_CASES]
    assert nlp.tokenizer.to_bytes() == spacy.load(tmp_path / "model").tokenizer.to_bytes()


def _config(section: str) -> Config:
    config = English.default_config.copy()
    if section == "tokenizer":
        config["nlp"]["tokenizer"] = {"@tokenizers": "vineparse.UDEnglishTokenizer.v1"}
    else:
        config["initialize"]["before_init"] = {"@callbacks": "vineparse.ud_english_tokenizer.v1"}
    return config


@pytest.mark.parametrize("section", ["tokenizer", "before_init"])
def test_config_routes(section, tmp_path):
    """Both registered names work from a training config, and the saved pipeline reloads the same rules."""
    nlp = English.from_config(_config(section))
    nlp.initialize()
    expected = [tokens for _, tokens in TRAIN_CASES]
    assert [[t.text for t in nlp(text)] for text, _ in TRAIN_CASES] == expected
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert [[t.text for t in loaded(text)] for text, _ in TRAIN_CASES] == expected


GOLD = """\
# newdoc id = d1
# newpar id = p1
# text = I don't know!!! Send an e-mail.
1	I	I	PRON	PRP	_	3	nsubj	_	_
2-3	don't	_	_	_	_	_	_	_	_
2	do	do	AUX	VBP	_	4	aux	_	_
3	n't	not	PART	RB	_	4	advmod	_	_
4	know	know	VERB	VB	_	0	root	_	SpaceAfter=No
5	!!!	!!!	PUNCT	.	_	4	punct	_	_

1	Send	send	VERB	VB	_	0	root	_	_
2	an	a	DET	DT	_	3	det	_	_
3	e-mail	e-mail	NOUN	NN	_	1	obj	_	SpaceAfter=No
4	.	.	PUNCT	.	_	1	punct	_	_

"""


def test_bench_scores_tokens_and_words_with_the_conll_2018_script(nlp, tmp_path):
    """bench/tokenization.py's minimal system CoNLL-U (one sentence per paragraph, multiword range lines) is
    read by the official script and scores our tokenization of this gold 100, spaCy's rules less."""
    pytest.importorskip("udtools")
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(
        "bench_tokenization", Path(__file__).resolve().parents[2] / "bench" / "tokenization.py")
    bench = importlib.util.module_from_spec(spec)
    path = sys.path[:]
    try:
        spec.loader.exec_module(bench)     # it puts bench/ on sys.path: restored, not to shadow test helpers
    finally:
        sys.path[:] = path
    (tmp_path / "gold.conllu").write_text(GOLD, encoding="utf-8")
    ours = bench.score("gold", tmp_path / "gold.conllu", nlp, multiword=True)
    assert ours["Tokens"]["f1"] == 100 and ours["Words"]["f1"] == 100
    theirs = bench.score("gold", tmp_path / "gold.conllu", spacy.blank("en"), multiword=False)
    assert theirs["Tokens"]["f1"] < 100 and theirs["errors"]["gold tokens missed"] == {
        "multiword": 1, "punctuation run": 1, "hyphenated": 1}
