"""Sentence pairs: any two token sequences, and parallel CoNLL-U treebanks matched by sent_id (UD PUD)."""
import warnings
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..corpus import corpus_path, read_conllu


class BitextPair(NamedTuple):
    """A source and a target sentence; tags (UPOS) are optional, `id` names the pair in reports."""

    src: Sequence[str]
    tgt: Sequence[str]
    src_tags: Optional[Sequence[str]] = None
    tgt_tags: Optional[Sequence[str]] = None
    id: str = ""

    @property
    def product(self) -> int:
        return len(self.src) * len(self.tgt)


PairLike = Union[BitextPair, Tuple]


def as_pair(item: PairLike, index: int = 0) -> BitextPair:
    """A BitextPair from a BitextPair or a tuple (src, tgt[, src_tags, tgt_tags[, id]])."""
    if isinstance(item, BitextPair):
        pair = item
    elif isinstance(item, (tuple, list)) and 2 <= len(item) <= 5:
        pair = BitextPair(*item)
    else:
        raise ValueError(f"pair {index} must be a BitextPair or a tuple (src, tgt[, src_tags, tgt_tags[, id]]), "
                         f"got {type(item).__name__}")
    for side, words in (("source", pair.src), ("target", pair.tgt)):
        if isinstance(words, str):
            raise ValueError(f"pair {index}: the {side} sentence must be a sequence of tokens, not a string")
    return pair._replace(src=list(pair.src), tgt=list(pair.tgt), id=pair.id or str(index))


class ParallelCorpus(List[BitextPair]):
    """Pairs matched by sent_id, with the ids found on one side only (`unmatched`)."""

    unmatched: List[str]


def read_parallel_conllu(src_path, tgt_path) -> ParallelCorpus:
    """Pair the sentences of two CoNLL-U files by `sent_id` (in the source file's order).

    Sentences without a partner are not paired; their ids are kept in `unmatched` and a warning gives
    their number.
    RETURNS (ParallelCorpus): BitextPair(words, words, upos, upos, sent_id) per matched sentence.
    """
    src = read_conllu(src_path)
    tgt = {s.sent_id: s for s in read_conllu(tgt_path)}
    pairs = ParallelCorpus()
    seen = set()
    for s in src:
        t = tgt.get(s.sent_id)
        if t is not None:
            pairs.append(BitextPair(list(s.words), list(t.words), list(s.upos), list(t.upos), s.sent_id))
            seen.add(s.sent_id)
    pairs.unmatched = [s.sent_id for s in src if s.sent_id not in seen] + [i for i in tgt if i not in seen]
    if pairs.unmatched:
        warnings.warn(f"{len(pairs.unmatched)} sentences have no partner in the other file and are not paired")
    return pairs


def pud_pairs(src_lang: str = "en", tgt_lang: str = "zh", max_product: Optional[int] = None) -> ParallelCorpus:
    """The UD PUD test sets of two languages, paired by sent_id (1,000 pairs for en-zh).

    max_product (int or None): keep only pairs with p x q <= max_product.
    """
    pairs = read_parallel_conllu(corpus_path("ud-pud", f"{src_lang}_pud-ud-test.conllu"),
                                 corpus_path("ud-pud", f"{tgt_lang}_pud-ud-test.conllu"))
    if max_product is not None:
        kept = ParallelCorpus(p for p in pairs if p.product <= max_product)
        kept.unmatched = pairs.unmatched
        return kept
    return pairs


def word_pairs(pairs: Iterable[PairLike]) -> List[Tuple[List[str], List[str]]]:
    """(source words, target words) of every pair, e.g. to train Model 1."""
    return [(list(p.src), list(p.tgt)) for p in (as_pair(x, i) for i, x in enumerate(pairs))]
