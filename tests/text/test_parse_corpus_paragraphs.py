"""parse-corpus on raw text with paragraphs (--docs paragraphs): UD's .txt in, valid CoNLL-U out, in shards."""
import spacy

from vineparse.corpus import corpus_path
from vineparse.scale import parse_corpus
from vineparse.text.conll18 import evaluate, validate
from vineparse.text.rawtext import conllu_to_text


def test_ewt_test_txt_in_shards(tmp_path):
    gold = corpus_path("ud-english-ewt", "en_ewt-ud-test.conllu")
    raw = conllu_to_text(gold)
    txt = tmp_path / "en_ewt-ud-test.txt"
    txt.write_text(raw.text, encoding="utf-8")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(tmp_path / "model")
    summary = parse_corpus(tmp_path / "model", [txt], tmp_path / "out", workers=0, docs="paragraphs",
                           formats=("conllu",), shard_size=100, merge=True, progress=False)
    assert summary.complete and summary.shards == 9 and summary.documents == raw.n_paragraphs == 854
    merged = summary.merged.read_text(encoding="utf-8")
    assert merged.count("# newdoc") == 1 and merged.count("# newpar") == 854 and "NewPar=Yes" not in merged
    assert validate(summary.merged, level=2) == []  # sentence ids unique across shards, one root each
    scores = evaluate(gold, summary.merged)
    # spaCy's English rules with UD English's multiword tokens grouped, as parse-text writes them: 97.62
    # (tokenization.json; without the grouping 95.64)
    assert 0.975 < scores["Tokens"]["f1"] < 0.978 and "\tdon't\t" in merged
