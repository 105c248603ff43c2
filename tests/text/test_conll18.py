"""The CoNLL 2018 evaluation and UD's validator through udtools (vineparse.text.conll18)."""
import pytest

from vineparse.corpus import CorpusError, corpus_path
from vineparse.text.conll18 import METRICS, evaluate, f1_table, validate


@pytest.fixture(scope="module")
def gold_path():
    return corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu")


@pytest.fixture(scope="module")
def gold_text(gold_path):
    return gold_path.read_text(encoding="utf-8")


def test_self_is_100(gold_path):
    scores = evaluate(gold_path, gold_path)
    assert set(scores) == set(METRICS)
    for metric in METRICS:
        assert scores[metric]["f1"] == scores[metric]["precision"] == scores[metric]["recall"] == 1.0, metric
    assert scores["Words"]["gold_total"] == 25094 and scores["Sentences"]["gold_total"] == 2077
    assert "100.00" in f1_table(scores)


def _perturb(text):
    """EWT test with known errors: 50 nsubj -> obj, 30 NOUN -> VERB, sentences 1 and 2 merged into one."""
    blocks = text.rstrip("\n").split("\n\n")
    relabelled = retagged = 0
    out = []
    for k, block in enumerate(blocks):
        lines = []
        for line in block.split("\n"):
            cols = line.split("\t")
            if len(cols) == 10 and cols[0].isdigit():
                if cols[7] == "nsubj" and relabelled < 50:
                    cols[7] = "obj"
                    relabelled += 1
                elif cols[3] == "NOUN" and retagged < 30:
                    cols[3] = "VERB"
                    retagged += 1
            lines.append("\t".join(cols))
        out.append(lines)
    first, second = out[0], out[1]
    assert not any("." in l.split("\t")[0] for l in first + second if not l.startswith("#"))
    words = [l.split("\t") for l in first if not l.startswith("#") and l.split("\t")[0].isdigit()]
    n0 = len(words)
    root0 = next(c[0] for c in words if c[6] == "0")
    merged = list(first)
    for line in second:
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if "-" in cols[0]:
            a, b = cols[0].split("-")
            cols[0] = f"{int(a) + n0}-{int(b) + n0}"
        else:
            cols[0] = str(int(cols[0]) + n0)
            if cols[6] == "0":
                cols[6], cols[7] = root0, "parataxis"
            else:
                cols[6] = str(int(cols[6]) + n0)
            cols[8] = "_"
        merged.append("\t".join(cols))
    out = [merged] + out[2:]
    return "\n\n".join("\n".join(lines) for lines in out) + "\n\n", relabelled, retagged


def test_perturbed_copy(gold_path, gold_text):
    system, relabelled, retagged = _perturb(gold_text)
    assert (relabelled, retagged) == (50, 30)
    scores = evaluate(gold_path, system)
    n = 25094
    for metric in ("Tokens", "Words"):
        assert scores[metric]["f1"] == 1.0
    sentences = scores["Sentences"]
    assert (sentences["correct"], sentences["gold_total"], sentences["system_total"]) == (2075, 2077, 2076)
    assert scores["UPOS"]["correct"] == n - 30
    assert scores["XPOS"]["correct"] == n
    assert scores["UAS"]["correct"] == n - 1  # the second sentence's root now hangs from the first's
    assert scores["LAS"]["correct"] == n - 1 - 50
    assert scores["LAS"]["f1"] == pytest.approx((n - 51) / n)
    clas = scores["CLAS"]
    assert clas["correct"] == clas["gold_total"] - 51 and clas["system_total"] == clas["gold_total"]


def test_different_text_is_an_error_naming_the_files(gold_path):
    system = "# text = Hello\n1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"
    with pytest.raises(CorpusError, match="en_ewt-ud-test.conllu vs <string>"):
        evaluate(gold_path, system)
    with pytest.raises(CorpusError, match="<string>.*multiple roots"):
        evaluate(system.replace("Hello", "Hi") + "1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2\tb\tb\tX\t_\t_\t0\troot\t_\t_\n\n",
                 gold_path)


def test_validator_level_2(gold_path, gold_text):
    assert validate(gold_path) == []
    broken = gold_text.replace("\tnsubj\t", "\tsubject\t", 2)
    found = validate(broken, level=2)
    assert [i.testid for i in found] == ["unknown-udeprel", "unknown-udeprel"]
    assert found[0].line == 7 and found[0].kind == "error" and "subject" in found[0].message
    # two roots in one sentence: caught at level 2, not at level 1
    two_roots = "# sent_id = a\n# text = Hi there\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n" \
                "2\tthere\tthere\tADV\tRB\t_\t0\troot\t_\t_\n\n"
    assert validate(two_roots, level=1) == []
    assert "multiple-roots" in [i.testid for i in validate(two_roots, level=2)]
