"""Where M' comes from (issue 17): candidate high-confidence link sets on UD PUD en-zh, compared.

    python bench/bitext_aligners.py [--out bench/results/bitext_aligners.json]

For every candidate, on all 1,000 pairs: links per pair, the share that are checkable and whose subtrees
correspond in both gold UD trees (`vineparse.bitext.linkcheck`, a precision proxy), and the training time.
Candidates: the intersected Model 1 Viterbi links, the HMM aligner trained by agreement (posteriors >= 0.5 /
0.7 / 0.9, and its intersected Viterbi links), the same HMM trained independently each way, random one-to-one
links (chance), and eflomal's intersected links if the `eflomal` package is importable.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runinfo import emit, run_info, write_json  # noqa: E402
from vineparse.bitext import pud_pairs
from vineparse.bitext.hmm import AgreementHMM, HMMConfig
from vineparse.bitext.linkcheck import subtree_agreement
from vineparse.bitext.model1 import BidirectionalModel1
from vineparse.corpus import corpus_path, read_conllu


def evaluate(name, link_sets, pairs, en, zh, seconds):
    total = {"links": 0, "checkable": 0, "correspond": 0}
    for pair, links in zip(pairs, link_sets):
        counts = subtree_agreement(links, en[pair.id], zh[pair.id])
        for key in total:
            total[key] += counts[key]
    row = {"aligner": name, "pairs": len(pairs), "links_per_pair": total["links"] / len(pairs),
           "checkable_share": total["checkable"] / max(total["links"], 1),
           "correspond_share": total["correspond"] / max(total["checkable"], 1),
           "correspond_per_pair": total["correspond"] / len(pairs), "train_seconds": seconds}
    return emit(row)


def eflomal_links(pairs):
    """eflomal's intersected links (None if eflomal is not installed)."""
    try:
        import eflomal
    except ImportError:
        return None, None
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        src, tgt = Path(folder, "src.txt"), Path(folder, "tgt.txt")
        src.write_text("".join(" ".join(p.src) + "\n" for p in pairs), encoding="utf-8")
        tgt.write_text("".join(" ".join(p.tgt) + "\n" for p in pairs), encoding="utf-8")
        fwd, rev = Path(folder, "fwd"), Path(folder, "rev")
        with open(src, encoding="utf-8") as s, open(tgt, encoding="utf-8") as t:
            eflomal.Aligner().align(s, t, links_filename_fwd=str(fwd), links_filename_rev=str(rev))
        read = lambda path: [{tuple(map(int, x.split("-"))) for x in line.split()}  # noqa: E731
                             for line in path.read_text().splitlines()]
        both = [np.array(sorted(a & b), dtype=np.int64).reshape(-1, 2) for a, b in zip(read(fwd), read(rev))]
    return both, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/bitext_aligners.json")
    args = parser.parse_args()
    env = run_info()
    pairs = pud_pairs()
    if any(" " in w for p in pairs for w in p.src + p.tgt):
        raise SystemExit("tokens with spaces cannot be written for eflomal")
    en, zh = ({s.sent_id: s.heads for s in read_conllu(corpus_path("ud-pud", f"{lang}_pud-ud-test.conllu"))}
              for lang in ("en", "zh"))
    words = [(p.src, p.tgt) for p in pairs]
    rows = []
    start = time.perf_counter()
    model1 = BidirectionalModel1.train(words)
    rows.append(evaluate("model1 intersected Viterbi", [model1.intersection(s, t) for s, t in words], pairs, en,
                         zh, time.perf_counter() - start))
    for agreement in (True, False):
        start = time.perf_counter()
        hmm = AgreementHMM.train(words, model1, HMMConfig(agreement=agreement))
        seconds = time.perf_counter() - start
        kind = "agreement" if agreement else "independent"
        for threshold in (0.5, 0.7, 0.9):
            rows.append(evaluate(f"hmm {kind}, posterior >= {threshold}",
                                 [hmm.links(s, t, threshold) for s, t in words], pairs, en, zh, seconds))
        rows.append(evaluate(f"hmm {kind}, intersected Viterbi", [hmm.viterbi_intersection(s, t) for s, t in words],
                             pairs, en, zh, seconds))
    links, seconds = eflomal_links(pairs)
    if links is not None:
        rows.append(evaluate("eflomal intersected", links, pairs, en, zh, seconds))
    rng = np.random.default_rng(0)
    chance = []
    for s, t in words:
        n = min(len(s), len(t), 13)
        chance.append(np.stack([rng.permutation(len(s))[:n], rng.permutation(len(t))[:n]], axis=1))
    rows.append(evaluate("random one-to-one (13 a pair at most)", chance, pairs, en, zh, 0.0))
    write_json(args.out, {"environment": env, "rows": rows})


if __name__ == "__main__":
    main()
