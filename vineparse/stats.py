"""Treebank statistics: what a vine pruning cascade can exploit.

A vine pruning cascade (Rush & Petrov, NAACL 2012) starts with a linear-time *vine* pass that scores only arcs
no longer than a band b, and hands the surviving arcs to projective first-, second- and third-order parsers.
That is a good bet when most arcs are short (how short depends on the modifier's part of speech), when most
sentences are short but the tail is long enough for cubic time to hurt, and when few trees are non-projective.
This module measures those three facts on a treebank:

* :func:`sentence_length_stats`: the length distribution, its percentiles and a histogram by length bucket;
* :func:`projectivity_stats`: the share of non-projective sentences and of non-projective arcs;
* :func:`arc_length_by_tag`: arc length |h - m| by the modifier's tag, with root arcs counted apart;

and renders them as aligned text tables (:func:`format_report`).

Every function takes a sequence of sentence-like objects: anything with ``heads`` (integers, length n + 1,
``heads[0] == -1``, ``heads[m]`` the head of word m, 0 for the root), ``upos`` and ``xpos`` (length n).
:class:`vineparse.corpus.Sentence` is one; a ``types.SimpleNamespace`` is another.
"""
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence

import numpy

from .trees import is_projective, nonprojective_arc_mask

TAG_ATTRS = ("upos", "xpos")
ALL_TAGS = "(all)"
MISSING_TAG = "_"


class ArcArrays(NamedTuple):
    """Every arc of a treebank as flat parallel arrays, one entry per word (each word has one head).

    tags (numpy.ndarray): The modifier's tag, a unicode array (missing tags become "_").
    lengths (numpy.ndarray): |h - m| as int64; for root arcs this is just the modifier's position.
    is_root (numpy.ndarray): True where the head is the artificial root (h == 0).
    """

    tags: numpy.ndarray
    lengths: numpy.ndarray
    is_root: numpy.ndarray


def sentence_lengths(sentences: Iterable[Any]) -> numpy.ndarray:
    """Number of words of each sentence.

    sentences (Iterable[Sentence]): Objects with a `heads` array of length n + 1.
    RETURNS (numpy.ndarray): int64 array with one length per sentence.
    """
    return numpy.fromiter((len(s.heads) - 1 for s in sentences), dtype=numpy.int64)


def collect_arcs(sentences: Sequence[Any], tag: str = "upos") -> ArcArrays:
    """Flatten the arcs of all sentences into parallel arrays (see ArcArrays).

    sentences (Sequence[Sentence]): Objects with `heads` and the tag attribute `tag`.
    tag (str): Which tag of the modifier to use, "upos" or "xpos".
    RETURNS (ArcArrays): Tags, lengths and root flags of every arc.
    """
    _check_tag_attr(tag)
    if not sentences:
        empty = numpy.zeros((0,), dtype=numpy.int64)
        return ArcArrays(numpy.zeros((0,), dtype="U1"), empty, empty.astype(bool))
    heads = numpy.concatenate([numpy.asarray(s.heads, dtype=numpy.int64)[1:] for s in sentences])
    mods = numpy.concatenate([numpy.arange(1, len(s.heads), dtype=numpy.int64) for s in sentences])
    tags = numpy.concatenate([numpy.asarray(getattr(s, tag), dtype=object) for s in sentences])
    if tags.shape != heads.shape:
        raise ValueError(f"Need one {tag} tag per word: got {tags.size} tags for {heads.size} words")
    tags = numpy.array([t if t else MISSING_TAG for t in tags.tolist()], dtype=str)
    return ArcArrays(tags=tags, lengths=numpy.abs(heads - mods), is_root=heads == 0)


def has_tags(sentences: Sequence[Any], tag: str) -> bool:
    """Whether any word of `sentences` carries a real value (not None, "" or "_") for the tag `tag`.

    sentences (Sequence[Sentence]): The sentences to look at.
    tag (str): "upos" or "xpos".
    RETURNS (bool): False when the column is empty, e.g. UPOS in a treebank that only has PTB tags.
    """
    _check_tag_attr(tag)
    return any(t and t != MISSING_TAG for s in sentences for t in getattr(s, tag, ()))


def sentence_length_stats(
    sentences: Sequence[Any], bucket_width: int = 10, n_buckets: int = 8
) -> Dict[str, Any]:
    """Summarise the distribution of sentence lengths.

    sentences (Sequence[Sentence]): The sentences; at least one.
    bucket_width (int): Width of each histogram bucket (lengths 1..w, w+1..2w, ...).
    n_buckets (int): Number of buckets; the last one is open ((n_buckets - 1) * w + 1 and above).
    RETURNS (Dict[str, Any]): "sentences", "words", "mean", "median", "p90", "p99", "max" and "histogram",
        a list of {"bucket", "low", "high", "count", "share"} ("high" is None for the open bucket).
    """
    if bucket_width < 1 or n_buckets < 1:
        raise ValueError(f"bucket_width and n_buckets must be positive, got {bucket_width} and {n_buckets}")
    lengths = sentence_lengths(sentences)
    if lengths.size == 0:
        raise ValueError("Cannot compute statistics of an empty treebank")
    # Bucket b holds lengths b*w + 1 .. (b+1)*w; everything past the last boundary goes to the last bucket.
    buckets = numpy.clip((lengths - 1) // bucket_width, 0, n_buckets - 1)
    counts = numpy.bincount(buckets, minlength=n_buckets)
    histogram = []
    for b in range(n_buckets):
        low = b * bucket_width + 1
        high = None if b == n_buckets - 1 else (b + 1) * bucket_width
        histogram.append(
            {
                "bucket": f"{low}+" if high is None else f"{low}-{high}",
                "low": low,
                "high": high,
                "count": int(counts[b]),
                "share": float(counts[b] / lengths.size),
            }
        )
    p90, p99 = numpy.percentile(lengths, [90, 99])
    return {
        "sentences": int(lengths.size),
        "words": int(lengths.sum()),
        "mean": float(lengths.mean()),
        "median": float(numpy.median(lengths)),
        "p90": float(p90),
        "p99": float(p99),
        "max": int(lengths.max()),
        "histogram": histogram,
    }


def projectivity_stats(sentences: Sequence[Any]) -> Dict[str, Any]:
    """Count non-projective sentences (vineparse.trees.is_projective) and arcs (nonprojective_arc_mask).

    sentences (Sequence[Sentence]): The sentences.
    RETURNS (Dict[str, Any]): "sentences", "nonprojective_sentences", "nonprojective_sentence_share",
        "arcs" (one per word, root arcs included), "nonprojective_arcs", "nonprojective_arc_share".
    """
    n_sentences = 0
    n_arcs = 0
    nonproj_sentences = 0
    nonproj_arcs = 0
    for sentence in sentences:
        n_sentences += 1
        n_arcs += len(sentence.heads) - 1
        # The arc mask costs O(n^2); projective trees (nearly all of them) have no non-projective arcs.
        if not is_projective(sentence.heads):
            nonproj_sentences += 1
            nonproj_arcs += int(nonprojective_arc_mask(sentence.heads).sum())
    return {
        "sentences": n_sentences,
        "nonprojective_sentences": nonproj_sentences,
        "nonprojective_sentence_share": _share(nonproj_sentences, n_sentences),
        "arcs": n_arcs,
        "nonprojective_arcs": nonproj_arcs,
        "nonprojective_arc_share": _share(nonproj_arcs, n_arcs),
    }


def arc_length_by_tag(
    sentences: Sequence[Any], tag: str = "upos", thresholds: Sequence[int] = (1, 3, 5, 10)
) -> Dict[str, Any]:
    """Arc length |h - m| by the part of speech of the modifier m.

    Root arcs are counted apart: their "length" is only the position of the root word, so they are left out
    of the length columns and reported as "root_share" (share of the tag's arcs attached to the root).

    sentences (Sequence[Sentence]): The sentences.
    tag (str): "upos" or "xpos".
    thresholds (Sequence[int]): For each t, the row gets "le{t}", the share of non-root arcs with length <= t.
    RETURNS (Dict[str, Any]): "tag", "thresholds", "rows" (one per tag, by decreasing number of arcs) and
        "overall" (tag "(all)"). A row has "tag", "arcs", "root_arcs", "root_share", "mean_length" and the
        "le{t}" shares; length figures are None for a tag without non-root arcs.
    """
    arcs = collect_arcs(sentences, tag)
    names, index = numpy.unique(arcs.tags, return_inverse=True)
    index = index.reshape(-1)
    k = names.size
    rows = _length_rows(names.tolist(), index, k, arcs, thresholds)
    rows.sort(key=lambda row: (-row["arcs"], row["tag"]))
    overall = _length_rows([ALL_TAGS], numpy.zeros_like(index), 1, arcs, thresholds)[0]
    return {"tag": tag, "thresholds": [int(t) for t in thresholds], "rows": rows, "overall": overall}


def treebank_stats(sentences: Sequence[Any], tag: str = "upos") -> Dict[str, Any]:
    """All statistics of this module for one treebank, as plain JSON-serialisable values.

    sentences (Sequence[Sentence]): The sentences; at least one.
    tag (str): "upos" or "xpos", the tag set for the arc-length table.
    RETURNS (Dict[str, Any]): {"lengths": ..., "projectivity": ..., "arc_length": ...}, the results of
        sentence_length_stats, projectivity_stats and arc_length_by_tag.
    """
    sentences = list(sentences)
    return {
        "lengths": sentence_length_stats(sentences),
        "projectivity": projectivity_stats(sentences),
        "arc_length": arc_length_by_tag(sentences, tag=tag),
    }


def format_table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], aligns: Optional[str] = None, indent: int = 2
) -> str:
    """Render rows as a plain aligned text table, with a rule under the header.

    header (Sequence[str]): Column titles.
    rows (Iterable[Sequence[Any]]): Cells, converted with str().
    aligns (Optional[str]): One "l" or "r" per column; by default the first column is left-aligned and the
        others right-aligned.
    indent (int): Spaces before every line.
    RETURNS (str): The table, without a trailing newline.
    """
    cells = [[str(c) for c in row] for row in rows]
    aligns = aligns or "l" + "r" * (len(header) - 1)
    if len(aligns) != len(header) or any(len(row) != len(header) for row in cells):
        raise ValueError("Every row and the aligns string need one entry per header column")
    widths = [max(len(str(h)), *(len(row[i]) for row in cells)) for i, h in enumerate(header)]

    def line(row: Sequence[str]) -> str:
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, aligns)]
        return " " * indent + "  ".join(parts).rstrip()

    lines = [line([str(h) for h in header]), " " * indent + "  ".join("-" * w for w in widths)]
    lines.extend(line(row) for row in cells)
    return "\n".join(lines)


def format_report(stats: Dict[str, Any], bar_width: int = 30) -> str:
    """Render the result of treebank_stats as text: length summary and histogram, projectivity, arc lengths.

    stats (Dict[str, Any]): The result of treebank_stats.
    bar_width (int): Characters of the longest histogram bar.
    RETURNS (str): The report, without a trailing newline.
    """
    lengths = stats["lengths"]
    proj = stats["projectivity"]
    arcs = stats["arc_length"]
    out = [f"Sentence length ({lengths['sentences']:,} sentences, {lengths['words']:,} words)"]
    out.append(
        f"  mean {lengths['mean']:.1f}   median {lengths['median']:g}   p90 {lengths['p90']:g}"
        f"   p99 {lengths['p99']:g}   max {lengths['max']:,}"
    )
    out.append("")
    top = max(b["share"] for b in lengths["histogram"]) or 1.0
    cumulative = 0.0
    hist_rows = []
    for b in lengths["histogram"]:
        cumulative += b["share"]
        bar = "#" * int(round(bar_width * b["share"] / top))
        hist_rows.append([b["bucket"], f"{b['count']:,}", _pct(b["share"]), _pct(cumulative), bar])
    out.append(format_table(["length", "sentences", "share", "cum.", ""], hist_rows, aligns="lrrrl"))
    out.append("")
    out.append("Projectivity")
    proj_rows = [
        ["non-projective sentences", f"{proj['nonprojective_sentences']:,}", f"{proj['sentences']:,}",
         _pct(proj["nonprojective_sentence_share"], digits=2)],
        ["non-projective arcs", f"{proj['nonprojective_arcs']:,}", f"{proj['arcs']:,}",
         _pct(proj["nonprojective_arc_share"], digits=2)],
    ]
    out.append(format_table(["", "count", "total", "share"], proj_rows))
    out.append("")
    thresholds = arcs["thresholds"]
    out.append(
        f"Arc length |h - m| by modifier {arcs['tag'].upper()} (shares in % of non-root arcs; "
        "root arcs only in root%)"
    )
    header = ["tag", "arcs", "mean"] + [f"<={t}" for t in thresholds] + ["root%"]
    table_rows = [_length_cells(row, thresholds) for row in arcs["rows"]]
    table_rows.append(_length_cells(arcs["overall"], thresholds))
    out.append(format_table(header, table_rows))
    return "\n".join(out)


def _length_rows(
    names: List[str], index: numpy.ndarray, k: int, arcs: ArcArrays, thresholds: Sequence[int]
) -> List[Dict[str, Any]]:
    """One row of arc_length_by_tag per group; `index` maps each arc to its group 0..k-1."""
    total = numpy.bincount(index, minlength=k)
    root = numpy.bincount(index[arcs.is_root], minlength=k)
    nonroot = ~arcs.is_root
    inner_index = index[nonroot]
    inner_lengths = arcs.lengths[nonroot]
    inner = numpy.bincount(inner_index, minlength=k)
    length_sum = numpy.bincount(inner_index, weights=inner_lengths, minlength=k)
    within = {t: numpy.bincount(inner_index[inner_lengths <= t], minlength=k) for t in thresholds}
    rows = []
    for i, name in enumerate(names):
        row: Dict[str, Any] = {
            "tag": name,
            "arcs": int(total[i]),
            "root_arcs": int(root[i]),
            "root_share": _share(root[i], total[i]),
            "mean_length": _share(length_sum[i], inner[i]),
        }
        for t in thresholds:
            row[f"le{t}"] = _share(within[t][i], inner[i])
        rows.append(row)
    return rows


def _length_cells(row: Dict[str, Any], thresholds: Sequence[int]) -> List[str]:
    mean = "-" if row["mean_length"] is None else f"{row['mean_length']:.2f}"
    shares = ["-" if row[f"le{t}"] is None else f"{100 * row[f'le{t}']:.1f}" for t in thresholds]
    return [row["tag"], f"{row['arcs']:,}", mean] + shares + [f"{100 * (row['root_share'] or 0.0):.1f}"]


def _share(part: float, whole: float) -> Optional[float]:
    return float(part / whole) if whole else None


def _pct(share: Optional[float], digits: int = 1) -> str:
    return "-" if share is None else f"{100 * share:.{digits}f}%"


def _check_tag_attr(tag: str) -> None:
    if tag not in TAG_ATTRS:
        raise ValueError(f"Unknown tag attribute {tag!r}: expected one of {', '.join(TAG_ATTRS)}")
