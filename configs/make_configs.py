"""Write every config of configs/ from configs/ewt.cfg, the one that declares the recommended model.

    python configs/make_configs.py            # rewrite the derived configs
    python configs/make_configs.py --check    # exit 1 if a committed config differs from what this writes
    python configs/make_configs.py --gold-overrides   # the gold route's settings, as `spacy train` overrides

configs/ewt.cfg is written by hand: the shipped English pipeline (tok2vec + tagger + vine_cascade), each chosen
setting with its reason (docs/experiments.md). Every other config is ewt.cfg, or a config derived from it, with
the few changes listed in `DERIVED` below, so that a setting adopted in ewt.cfg reaches every config that runs
vine_cascade, and the baselines keep ewt.cfg's data, tok2vec, tagger and training. A change sets a key (with
the comments that explain it; the comments above the key it replaces go), deletes a key, drops or renames a
section with its subsections, or puts a new section after another. Text only: no spaCy needed.
"""
import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
Section = list        # [name, lines]; the preamble (the header comment) is the section named ""


def parse(text):
    sections = [["", []]]
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("[") and line.endswith("]"):
            sections.append([line[1:-1], []])
        else:
            sections[-1][1].append(line)
    return sections


def render(sections):
    return "\n".join(line for name, lines in sections
                     for line in ([f"[{name}]"] if name else []) + lines).rstrip("\n") + "\n"


def find(sections, name):
    for section in sections:
        if section[0] == name:
            return section
    raise KeyError(f"no section [{name}]")


def key_span(lines, key):
    """(first, last + 1) of the line `key = ...` and the comments right above it; None when absent."""
    for i, line in enumerate(lines):
        if line.split("=")[0].strip() == key and "=" in line and not line.startswith("#"):
            first = i
            while first > 0 and lines[first - 1].startswith("#"):
                first -= 1
            return first, i + 1
    return None


def apply(sections, change):
    """One change: ("set", section, key, value[, comment]), ("delete", section, key), ("drop", prefix),
    ("rename", old, new), ("after", section, new_name, body) or ("header", text)."""
    kind, *args = change
    if kind == "header":
        sections[0][1] = [f"# {line}".rstrip() for line in args[0].strip().split("\n")]
    elif kind in ("set", "delete"):
        lines = find(sections, args[0])[1]
        span = key_span(lines, args[1])
        new = [] if kind == "delete" else [f"# {c}" for c in (args[3].split("\n") if len(args) > 3 else [])]
        new += [] if kind == "delete" else [f"{args[1]} = {args[2]}"]
        if span:
            lines[span[0]:span[1]] = new
        else:
            end = len(lines)
            while end > 0 and not lines[end - 1].strip():
                end -= 1
            lines[end:end] = new
    elif kind == "drop":
        sections[:] = [s for s in sections if s[0] != args[0] and not s[0].startswith(args[0] + ".")]
    elif kind == "rename":
        for section in sections:
            if section[0] == args[0] or section[0].startswith(args[0] + "."):
                section[0] = args[1] + section[0][len(args[0]):]
    elif kind == "after":
        index = sections.index(find(sections, args[0]))
        sections.insert(index + 1, [args[1], args[2].strip("\n").split("\n") + [""]])
    else:
        raise ValueError(f"unknown change {kind!r}")


def spacy_parser(name="parser", extra=()):
    """The changes that put spaCy's transition-based parser (factory `name`) where vine_cascade is."""
    return [
        ("set", "nlp", "pipeline", f'["tok2vec", "tagger", "{name}"]'), ("drop", "training.before_to_disk"),
        ("set", "training", "before_to_disk", "null"), ("drop", "components.vine_cascade"),
        ("after", "components.tagger", f"components.{name}", "\n".join(
            [f'factory = "{name}"', "moves = null", "update_with_oracle_cut_size = 100", "learn_tokens = false",
             "min_action_freq = 30", *extra])),
        ("after", "components.tagger.scorer", f"components.{name}.model",
         '@architectures = "spacy.TransitionBasedParser.v2"\nstate_type = "parser"\nextra_state_tokens = false\n'
         "hidden_width = 128\nmaxout_pieces = 3\nuse_upper = true\nnO = null"),
        ("after", f"components.{name}.model", f"components.{name}.scorer", '@scorers = "spacy.parser_scorer.v1"'),
        ("after", "components.tagger.model.tok2vec", f"components.{name}.model.tok2vec",
         '@architectures = "spacy.Tok2VecListener.v1"\nwidth = ${components.tok2vec.model.encode.width}\n'
         'upstream = "*"'),
    ]


def bilstm(parser):
    """A one-layer BiLSTM of width 64 after the shared CNN encoder: listeners read 96 + 64 values per token."""
    return [("set", "components.tok2vec.model.embed", "width", "96"),
            ("set", "components.tok2vec.model.encode", "@architectures", '"vineparse.MaxoutWindowBiLSTMEncoder.v1"'),
            ("set", "components.tok2vec.model.encode", "lstm_width", "64"),
            ("set", "components.tagger.model.tok2vec", "width", "160"),
            ("set", f"components.{parser}.model.tok2vec", "width", "160")]


# the gold route: gold tokens and sentences, and no space-after flag (configs/ewt.cfg reads it to segment raw text);
# configs/ud*.cfg, and the Makefile's gold-segmented EWT comparisons as overrides (`--gold-overrides`)
GOLD = [("set", "corpora.train", "gold_preproc", "true", "gold tokens, one sentence per doc"),
        ("set", "corpora.dev", "gold_preproc", "true"),
        ("set", "components.tok2vec.model.embed", "attrs", '["NORM", "PREFIX", "SUFFIX", "SHAPE"]',
         "gold sentences: no space-after flag, which configs/ewt.cfg reads to segment raw text"),
        ("set", "components.tok2vec.model.embed", "rows", "[5000, 1000, 2500, 2500]")]
# any UD treebank, on the gold route (UD English's tokenizer rules are for English): no tagger (XPOS is blank in
# some treebanks), at most 6,000 steps with spaCy's early stopping
UD = [("drop", "initialize.before_init"), ("set", "initialize", "before_init", "null"), *GOLD,
      ("set", "paths", "train", '"corpora/ud/en_ewt/train.spacy"'),
      ("set", "paths", "dev", '"corpora/ud/en_ewt/dev.spacy"'),
      ("set", "training", "max_steps", "6000"), ("drop", "components.tagger"),
      *[("delete", "training.score_weights", key) for key in ("tag_acc", "pos_acc", "tag_micro_p", "tag_micro_r",
                                                               "tag_micro_f")],
      ("set", "training.score_weights", "dep_uas", "0.5"), ("set", "training.score_weights", "dep_las", "0.5")]
SPACY_HEADER = """EWT: tok2vec (spaCy's --optimize efficiency size) + tagger + spaCy's own transition-based parser.
The baseline of the vine_cascade comparison: same tok2vec, tagger, data and training as configs/ewt.cfg.
Written by configs/make_configs.py from configs/ewt.cfg: change that file and run the script."""
AVERAGES = ("use_averages", "true", "tuned on dev for spaCy's parser: averaged weights gave dev UAS / LAS 85.32 / "
            "80.87 against 84.89 / 80.04\n(setting cnn, seed 0, 2,000 steps); vine_cascade uses them too")

# name: (base, changes)
DERIVED = {
    "ewt_spacy_parser.cfg": ("ewt.cfg", [("header", SPACY_HEADER), *spacy_parser(),
                                         ("set", "training.optimizer", *AVERAGES)]),
    "ewt_spacy_beam.cfg": ("ewt_spacy_parser.cfg", [
        ("header", SPACY_HEADER.replace("parser.\n", "parser with beam\nsearch (beam_parser, its default "
                                        "beam of 8): the accuracy end of spaCy's own parsers.\n")),
        ("set", "nlp", "pipeline", '["tok2vec", "tagger", "beam_parser"]'),
        ("rename", "components.parser", "components.beam_parser"),
        *[("set", "components.beam_parser", key, value) for key, value in (
            ("factory", '"beam_parser"'), ("beam_width", "8"), ("beam_density", "0.0001"),
            ("beam_update_prob", "0.5"))]]),
    "ewt_spacy_senter.cfg": ("ewt_spacy_parser.cfg", [
        ("header", SPACY_HEADER.replace("tagger + spaCy's", "tagger + senter + spaCy's") + "\nspaCy's sentence "
         "segmenter sets the boundaries the parser keeps: a baseline of bench/documents.py."),
        ("set", "nlp", "pipeline", '["tok2vec", "tagger", "senter", "parser"]'),
        ("after", "components.tagger", "components.senter", 'factory = "senter"\noverwrite = false'),
        ("after", "components.senter", "components.senter.model",
         '@architectures = "spacy.Tagger.v2"\nnO = null\nnormalize = false'),
        ("after", "components.senter.model", "components.senter.model.tok2vec",
         '@architectures = "spacy.Tok2VecListener.v1"\nwidth = ${components.tok2vec.model.encode.width}\n'
         'upstream = "*"'),
        ("after", "components.senter.model.tok2vec", "components.senter.scorer", '@scorers = "spacy.senter_scorer.v1"'),
    ]),
    "ewt_bilstm.cfg": ("ewt.cfg", [
        ("header", "EWT, the equal-encoder setting of the comparison: configs/ewt.cfg with a BiLSTM in the shared "
                   "tok2vec\n(vineparse.MaxoutWindowBiLSTMEncoder.v1), so that vine_cascade and spaCy's parser "
                   "get the same\nwhole-sentence encoder. Written by configs/make_configs.py from configs/ewt.cfg."),
        *bilstm("vine_cascade"),
        ("set", "components.vine_cascade.model", "lstm_width", "0", "no BiLSTM of the component's own: the shared "
                                                                    "tok2vec has one")]),
    "ewt_spacy_parser_bilstm.cfg": ("ewt_spacy_parser.cfg", [
        ("header", SPACY_HEADER + "\nThe equal-encoder setting: a BiLSTM in the shared tok2vec, as configs/"
                                  "ewt_bilstm.cfg."), *bilstm("parser")]),
    "ud.cfg": ("ewt.cfg", [
        ("header", "Any UD treebank: tok2vec + vine_cascade as in configs/ewt.cfg, no tagger (XPOS is blank in "
                   "some treebanks),\nat most 6,000 steps with early stopping (patience 1,600). Non-projective "
                   "trees are lifted with decorated\nlabels and lowered after parsing (pseudo_projective). Set the "
                   "language with --nlp.lang; for a treebank of\nhundreds of sentences see docs/ud.md (dropout). "
                   "Written by configs/make_configs.py from configs/ewt.cfg."),
        ("set", "nlp", "pipeline", '["tok2vec", "vine_cascade"]'), *UD]),
    "ud_spacy_parser.cfg": ("ewt_spacy_parser.cfg", [
        ("header", "Any UD treebank: tok2vec + spaCy's own transition-based parser, the baseline of configs/ud.cfg "
                   "(same\ntok2vec, data and training). Written by configs/make_configs.py from configs/ewt.cfg."),
        ("set", "nlp", "pipeline", '["tok2vec", "parser"]'), *UD]),
    "ud_spacy_senter.cfg": ("ewt_spacy_senter.cfg", [
        ("header", "Any UD treebank: tok2vec + spaCy's senter + spaCy's parser, the segmenting baseline of "
                   "configs/ud.cfg\n(same tok2vec, data and training). Written by configs/make_configs.py from "
                   "configs/ewt.cfg."),
        ("set", "nlp", "pipeline", '["tok2vec", "senter", "parser"]'), *UD]),
}


def build(name, cache=None):
    cache = {} if cache is None else cache
    if name not in cache:
        if name not in DERIVED:
            cache[name] = (HERE / name).read_text(encoding="utf-8")
        else:
            base, changes = DERIVED[name]
            sections = parse(build(base, cache))
            for change in changes:
                apply(sections, change)
            cache[name] = render(sections)
    return cache[name]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if a config is out of date")
    parser.add_argument("--gold-overrides", action="store_true",
                        help="only print the gold route's settings as `spacy train` overrides")
    args = parser.parse_args(argv)
    if args.gold_overrides:
        print(" ".join(f"--{section}.{key} '{value}'" for _, section, key, value, *_ in GOLD))
        return 0
    stale = []
    for name in DERIVED:
        text = build(name)
        current = (HERE / name).read_text(encoding="utf-8") if (HERE / name).exists() else None
        if current != text:
            stale.append(name)
            if not args.check:
                (HERE / name).write_text(text, encoding="utf-8")
    print(("out of date: " if args.check else "written: ") + (", ".join(stale) or "none"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
