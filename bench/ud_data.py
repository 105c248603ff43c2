"""The treebanks of the multilingual comparison (issue 33), split and converted once.

    python bench/ud_data.py [--out corpora/ud]

For each treebank: OUT/NAME/{train,dev,test}.conllu (the sentence blocks as released), the same as .spacy (one
sentence per doc, by spaCy's CoNLL-U converter) and OUT/NAME/split.json (sources and sentence counts). en_ewt and
pt_bosque: the released splits; bg_btb, de_gsd, sv_talbanken, zh_gsd and pt_bosque_small (small data): train =
the dev file less every tenth sentence, dev = that tenth, test = the released test file. For EWT also
OUT/en_ewt/{train,dev,test}_docs.spacy: the sentences grouped into the treebank's documents (`# newdoc id`),
gold tokens with unknown spacing, heads, labels, XPOS and UPOS.
"""
import argparse
import json
from pathlib import Path

LANGUAGES = {"en_ewt": "en", "pt_bosque": "pt", "pt_bosque_small": "pt", "bg_btb": "bg", "de_gsd": "de",
             "sv_talbanken": "sv", "zh_gsd": "zh"}
SMALL = ("bg_btb", "de_gsd", "sv_talbanken", "zh_gsd", "pt_bosque_small")


def blocks(path: Path):
    """The sentence blocks of a CoNLL-U file (comment and token lines, no blank line)."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    return [block.strip("\n") + "\n" for block in text.split("\n\n") if block.strip()]


def source(name: str, split: str) -> Path:
    from vineparse.corpus import corpus_path

    folder = "ud-english-ewt" if name == "en_ewt" else f"ud-multi/{name.replace('_small', '')}"
    stem = name.replace("_small", "")
    return Path(corpus_path(*folder.split("/"), f"{stem}-ud-{split}.conllu"))


def splits(name: str):
    """{split: sentence blocks} of one treebank (see the module docstring)."""
    if name in SMALL:
        dev = blocks(source(name, "dev"))
        return {"train": [b for i, b in enumerate(dev) if i % 10 != 9],
                "dev": [b for i, b in enumerate(dev) if i % 10 == 9], "test": blocks(source(name, "test"))}
    return {split: blocks(source(name, split)) for split in ("train", "dev", "test")}


def write_spacy(conllu: Path, out: Path) -> int:
    from spacy.tokens import DocBin
    from spacy.training.converters import conllu_to_docs

    docs = list(conllu_to_docs(conllu.read_text(encoding="utf-8"), n_sents=1, merge_subtokens=False, no_print=True))
    DocBin(docs=docs, store_user_data=True).to_disk(out)
    return len(docs)


def documents(conllu: Path):
    """The sentences of a CoNLL-U file grouped by its `# newdoc` comments: lists of `Sentence`."""
    from vineparse.corpus import read_conllu

    docs = []
    for sentence in read_conllu(conllu):
        if not docs or any(c.startswith("# newdoc") for c in sentence.comments):
            docs.append([])
        docs[-1].append(sentence)
    return docs


def write_documents(conllu: Path, out: Path, lang: str) -> int:
    """`documents` of a CoNLL-U file as a DocBin (see the module docstring); RETURNS the number of docs."""
    import spacy
    from spacy.tokens import Doc, DocBin

    vocab = spacy.blank(lang).vocab
    bin_ = DocBin(store_user_data=True)
    for sentences in documents(conllu):
        words, heads, deps, tags, pos, offset = [], [], [], [], [], 0
        for s in sentences:
            words += s.words
            heads += [offset + (int(h) - 1 if h > 0 else i) for i, h in enumerate(s.heads[1:])]
            deps += list(s.labels)
            tags += list(s.xpos)
            pos += list(s.upos)
            offset += s.n
        bin_.add(Doc(vocab, words=words, heads=heads, deps=deps, tags=tags, pos=pos))
    bin_.to_disk(out)
    return len(bin_)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="corpora/ud")
    parser.add_argument("--treebanks", default=",".join(LANGUAGES))
    args = parser.parse_args(argv)
    for name in args.treebanks.split(","):
        folder = Path(args.out) / name
        folder.mkdir(parents=True, exist_ok=True)
        record = {"name": name, "lang": LANGUAGES[name], "small_data": name in SMALL,
                  "sources": {s: str(source(name, "dev" if name in SMALL and s != "test" else s))
                              for s in ("train", "dev", "test")}, "sentences": {}}
        for split, found in splits(name).items():
            conllu = folder / f"{split}.conllu"
            conllu.write_text("\n".join(found) + "\n", encoding="utf-8")
            docs = write_spacy(conllu, folder / f"{split}.spacy")
            if docs != len(found):
                raise SystemExit(f"{conllu}: {len(found)} sentences but spaCy converted {docs}")
            record["sentences"][split] = len(found)
        if name == "en_ewt":
            record["documents"] = {split: write_documents(folder / f"{split}.conllu", folder / f"{split}_docs.spacy",
                                                          LANGUAGES[name]) for split in ("train", "dev", "test")}
        (folder / "split.json").write_text(json.dumps(record, indent=1) + "\n")
        print(name, record["sentences"], flush=True)


if __name__ == "__main__":
    main()
