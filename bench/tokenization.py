"""Tokenization of raw text against UD's tokens and words, scored by the CoNLL 2018 evaluation (issue 69).

    python bench/tokenization.py [--sets ewt-dev,ewt-test,pud] [--out bench/results/tokenization.json]

Each paragraph of a treebank's raw text (UD's `.txt`, `vineparse.text.rawtext`) is tokenized by `spacy.blank("en")`
with spaCy's rules and with UD English's (`vineparse.text.tokenizer`), multiword ranges (`vineparse.text.multiword`)
written as range lines, one sentence per paragraph (Tokens and Words F1 do not depend on sentences), and scored
by `udtools.udeval`; with the gold tokens missed and the system tokens wrong, by kind, and the most frequent
examples. Develop on EWT dev; EWT test is for the final figure only.
"""
import argparse
import io
import re
import sys
from collections import Counter
from itertools import accumulate
from pathlib import Path

import spacy
from udtools.udeval import evaluate, load_conllu, load_conllu_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import run_info, write_json  # noqa: E402

from vineparse.corpus import corpus_path, read_conllu  # noqa: E402
from vineparse.text.multiword import multiword_ranges  # noqa: E402
from vineparse.text.rawtext import conllu_to_text  # noqa: E402
from vineparse.text.tokenizer import customize_tokenizer  # noqa: E402

SETS = {"ewt-dev": ("ud-english-ewt", "en_ewt-ud-dev.conllu"), "ewt-test": ("ud-english-ewt", "en_ewt-ud-test.conllu"),
        "pud": ("ud-pud", "en_pud-ud-test.conllu")}


def paragraphs(path: Path):
    """[(raw text, [(surface token, is multiword)])] per paragraph of UD's raw text of a CoNLL-U file (each
    sentence in the paragraph where it starts)."""
    sentences, result = read_conllu(path), []
    for document in conllu_to_text(sentences).documents:
        for k, (i, (start, end)) in enumerate(zip(document.sentences, document.spans)):
            if k == 0 or "\n\n" in document.text[result[-1][1]:start]:
                result.append([start, end, document.text, []])
            result[-1][1] = end
            result[-1][3] += [(form, words > 1) for form, _, words in sentences[i].surface_tokens()]
    return [(text[start:end], tokens) for start, end, text, tokens in result]


def system_tokens(doc, multiword: bool):
    """[(surface token, [words])] of a doc: whitespace tokens dropped, multiword ranges grouped."""
    ranges = dict(multiword_ranges(doc)) if multiword else {}
    out, i = [], 0
    while i < len(doc):
        end = ranges.get(i, i + 1)
        words = [t.text for t in doc[i:end] if not t.is_space]
        if words:
            out.append(("".join(t.text_with_ws for t in doc[i:end]).strip(), words))
        i = end
    return out


def conllu(paragraph_tokens) -> str:
    """A minimal CoNLL-U: one sentence per paragraph, the first word its root, every other word under it."""
    lines = []
    for tokens in paragraph_tokens:
        n = 0
        for form, words in tokens:
            if len(words) > 1:
                lines.append(f"{n + 1}-{n + len(words)}\t{form}" + "\t_" * 8)
            for word in words:
                n += 1
                lines.append(f"{n}\t{word}\t_\t_\t_\t_\t{0 if n == 1 else 1}\t{'root' if n == 1 else 'dep'}\t_\t_")
        lines.append("")
    return "\n".join(lines) + "\n"


def kind(form: str, multiword: bool) -> str:
    if multiword:
        return "multiword"
    if re.search(r"https?:|www\.|@|\.(com|org|net)\b", form):
        return "url or e-mail"
    if re.fullmatch(r"[^\w\s]+|_+", form):
        return "punctuation run"
    return "hyphenated" if "-" in form else "other"


def spans(forms):
    """Character spans of the forms over the text without whitespace."""
    ends = list(accumulate(len(re.sub(r"\s", "", form)) for form in forms))
    return list(zip([0] + ends[:-1], ends))


def errors(gold_paragraphs, system_paragraphs, examples=8):
    """Gold tokens missed and system tokens wrong, by kind, with the most frequent examples of each."""
    missed, wrong, shown = Counter(), Counter(), {}
    for gold, system in zip(gold_paragraphs, system_paragraphs, strict=True):
        g, s = spans([f for f, _ in gold]), spans([f for f, _ in system])
        gs, ss = set(g), set(s)
        for (form, mwt), span in zip(gold, g):
            if span not in ss:
                k = kind(form, mwt)
                missed[k] += 1
                over = " ".join(f for (f, _), t in zip(system, s) if t[0] < span[1] and t[1] > span[0])
                shown.setdefault(k, Counter())[f"{form} -> {over}"] += 1
        wrong.update(kind(form, len(words) > 1) for (form, words), span in zip(system, s) if span not in gs)
    return {"gold tokens missed": dict(missed.most_common()), "system tokens wrong": dict(wrong.most_common()),
            "examples of missed (gold -> system)": {k: dict(c.most_common(examples)) for k, c in shown.items()}}


def score(name: str, path: Path, nlp, multiword: bool):
    gold = paragraphs(path)
    system = [system_tokens(doc, multiword) for doc in nlp.pipe(text for text, _ in gold)]
    system_ud = load_conllu(io.StringIO(conllu(system)), name, {})
    result = evaluate(load_conllu_file(str(path)), system_ud)
    scores = {metric: {key: round(100 * getattr(result[metric], key), 2) for key in ("precision", "recall", "f1")}
              for metric in ("Tokens", "Words")}
    return {**scores, "errors": errors([tokens for _, tokens in gold], system)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="ewt-dev,ewt-test,pud")
    parser.add_argument("--out", default="bench/results/tokenization.json")
    args = parser.parse_args(argv)
    default, ud = spacy.blank("en"), customize_tokenizer(spacy.blank("en"))
    results = {"run": run_info(), "scorer": "udtools 0.2.9 udeval (the CoNLL 2018 shared task's)", "sets": {}}
    for name in args.sets.split(","):
        path = Path(corpus_path(*SETS[name]))
        results["sets"][name] = {
            "spacy, no multiword ranges": score(name, path, default, multiword=False),
            "spacy": score(name, path, default, multiword=True),
            "ud": score(name, path, ud, multiword=True)}
        print(name, {system: r["Tokens"]["f1"] for system, r in results["sets"][name].items()}, flush=True)
    write_json(args.out, results, ensure_ascii=False)


if __name__ == "__main__":
    main()
