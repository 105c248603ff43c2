"""vineparse.text.contractions: multiword tokens whose words do not spell them (Portuguese), learned from train,
in the training docs, the tokenizer and the CoNLL-U written from a pipeline's docs."""
import collections

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from vineparse.cli import main
from vineparse.corpus import corpus_path, parse_conllu, read_conllu
from vineparse.text.conll18 import evaluate, validate
from vineparse.text.conllu_writer import WriteStats, docs_to_conllu
from vineparse.text.contractions import (KEPT_HEAD, META_KEY, Contractions, Expansion, kept_word,
                                         learn_contractions, multiword_callback,
                                         pipeline_multiword)
from vineparse.text.gold_docs import treebank_documents


def bosque(part):
    return str(corpus_path("ud-multi", "pt_bosque", f"pt_bosque-ud-{part}.conllu"))


@pytest.fixture(scope="module")
def nlp():
    """A blank Portuguese pipeline with what Bosque's train file teaches (`vineparse.ud_multiword.v1`)."""
    return multiword_callback(bosque("train"))(spacy.blank("pt"))


@pytest.fixture(scope="module")
def dev(nlp):
    return treebank_documents(nlp.vocab, bosque("dev"), "pt", nlp.tokenizer)


def conllu(*sentences):
    return parse_conllu("\n".join("\n".join(rows) + "\n" for rows in sentences))


# "Além disso, o livro do autor." with "disso" = de + isso and "do" = de + o: "Além" hangs on "isso" and "de"
# on "Além", so keeping "de" (its head is outside "disso") would close a cycle
SENTENCE = ["# sent_id = s-1", "# text = Além disso, o livro do autor.",
            "1\tAlém\talém\tADV\t_\t_\t3\tadvmod\t_\t_",
            "2-3\tdisso\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
            "2\tde\tde\tADP\t_\t_\t1\tfixed\t_\t_",
            "3\tisso\tisso\tPRON\t_\t_\t9\tobl\t_\t_",
            "4\t,\t,\tPUNCT\t_\t_\t1\tpunct\t_\t_",
            "5\to\to\tDET\t_\t_\t6\tdet\t_\t_",
            "6\tlivro\tlivro\tNOUN\t_\t_\t0\troot\t_\t_",
            "7-8\tdo\t_\t_\t_\t_\t_\t_\t_\t_",
            "7\tde\tde\tADP\t_\t_\t9\tcase\t_\t_",
            "8\to\to\tDET\t_\t_\t9\tdet\t_\t_",
            "9\tautor\tautor\tNOUN\t_\t_\t6\tnmod\t_\tSpaceAfter=No",
            "10\t.\t.\tPUNCT\t_\t_\t6\tpunct\t_\t_"]


def test_bosque_train_teaches_its_contractions_and_clitics(nlp):
    contractions = Contractions.from_meta(nlp.meta[META_KEY])
    assert contractions.table["do"] == Expansion(("de", "o"), 0, (None, (KEPT_HEAD, "det", "DET")))
    assert contractions.table["dele"] == Expansion(("de", "ele"), 1, ((1, "case", "ADP"), None))
    assert contractions.table["à"].words == ("a", "a")     # one letter for two words
    assert "pra" not in contractions.table      # written more often as a word (4) than as a token (1)
    assert {"se", "lo", "lhe"} <= set(contractions.clitics) and "de" not in contractions.clitics
    assert Contractions.from_meta(contractions.to_meta()) == contractions


def test_a_form_is_a_contraction_only_where_train_writes_it_so_more_often():
    as_token = ["1-2\tnos\t_\t_\t_\t_\t_\t_\t_\t_", "1\tem\tem\tADP\t_\t_\t3\tcase\t_\t_",
                "2\tos\to\tDET\t_\t_\t3\tdet\t_\t_", "3\tanos\tano\tNOUN\t_\t_\t0\troot\t_\t_"]
    as_word = ["1\tnos\tnos\tPRON\t_\t_\t2\tobj\t_\t_", "2\tviu\tver\tVERB\t_\t_\t0\troot\t_\t_"]
    assert "nos" in learn_contractions(conllu(as_token, as_token, as_word)).table
    assert "nos" not in learn_contractions(conllu(as_token, as_word, as_word)).table


def test_the_kept_word_is_nearest_the_root_so_no_cycle_forms():
    sentence = conllu(SENTENCE)[0]
    assert sentence.multiword_tokens() == {2: (3, "disso", "SpaceAfter=No"), 7: (8, "do", "_")}
    assert kept_word(sentence, 2, 3) == 3 and kept_word(sentence, 7, 8) == 7
    doc, = treebank_documents(spacy.blank("pt").vocab, [sentence], "pt")[0]
    assert not any("newdoc" in comment for comment in sentence.comments)     # a document from its sent_id, on a copy
    assert [t.text for t in doc][:3] == ["Além", "disso", ","]
    assert [(t.text, t.dep_, t.head.text) for t in doc if t.text in ("disso", "do", "Além")] == [
        ("Além", "advmod", "disso"), ("disso", "obl", "autor"), ("do", "case", "autor")]


def test_training_docs_are_the_raw_text_with_acyclic_trees_spacy_aligns(nlp, dev):
    docs, skipped = dev
    assert not skipped and len(docs) == 244          # documents from the sent_ids (CF876-1: CF876)
    assert sum(len(list(doc.sents)) for doc in docs) == 1172
    for doc in docs:
        for token in doc:                   # every token reaches a root
            seen, node = set(), token
            while node.head.i != node.i:
                assert node.i not in seen
                seen.add(node.i)
                node = node.head
        example = Example(nlp.make_doc(doc.text), doc)
        assert sum(example.get_aligned_sent_starts()) == len(list(doc.sents))
    texts = collections.Counter(t.text for doc in docs for t in doc)
    assert texts["-se"] > 0 and texts["do"] > 0 and texts["de"] > 0


def test_written_gold_docs_score_as_the_treebank_and_validate(nlp, dev):
    multiword, contractions = pipeline_multiword(nlp)
    stats = WriteStats()
    written = docs_to_conllu(dev[0], multiword=multiword, contractions=contractions, stats=stats)
    gold = read_conllu(bosque("dev"))
    in_gold = sum(len(s.multiword_tokens()) for s in gold)
    # the ambiguous forms ("nos": "em" + "os" or the pronoun) are written as train writes them most often
    assert abs(stats.multiword_tokens - in_gold) < 0.01 * in_gold and stats.expanded_contractions > 1900
    scores = evaluate(bosque("dev"), written)
    assert scores["Words"]["f1"] > 0.998 and scores["Sentences"]["f1"] == 1.0
    assert scores["UAS"]["f1"] > 0.995 and scores["LAS"]["f1"] > 0.99     # the learned arcs of the other words
    assert validate(written, level=2, lang="pt") == []


def test_the_tokenizer_splits_clitics_and_keeps_contractions(nlp, tmp_path):
    doc = nlp("Trata-se do livro, disse-lhe o guarda-chuva.")
    assert [t.text for t in doc] == ["Trata", "-se", "do", "livro", ",", "disse", "-lhe", "o", "guarda-chuva",
                                     "."]
    multiword, contractions = pipeline_multiword(nlp)
    assert multiword(doc) == [(0, 2, ("Trata", "se")), (5, 7, ("disse", "lhe"))]
    nlp.to_disk(tmp_path / "pt")
    loaded = spacy.load(tmp_path / "pt")        # the rules travel with the pipeline
    assert [t.text for t in loaded("disse-lhe")] == ["disse", "-lhe"]
    assert pipeline_multiword(loaded)[1] == contractions
    (tmp_path / "in.txt").write_text("Trata-se do livro.\n", encoding="utf-8")
    assert main(["parse-text", str(tmp_path / "pt"), str(tmp_path / "in.txt"), "--out", str(tmp_path / "out.conllu"),
                 "--quiet"]) == 0
    rows = [line.split("\t")[:2] for line in (tmp_path / "out.conllu").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    assert rows == [["1-2", "Trata-se"], ["1", "Trata"], ["2", "se"], ["3-4", "do"], ["3", "de"], ["4", "o"],
                    ["5", "livro"], ["6", "."]]


def test_a_contraction_is_written_as_its_words_in_its_case(nlp):
    multiword, contractions = pipeline_multiword(nlp)
    doc = Doc(nlp.vocab, words=["Do", "livro", "trata", "-se", "."], spaces=[True, True, False, False, False],
              heads=[1, 1, 1, 2, 1], deps=["case", "ROOT", "acl", "expl", "punct"])
    lines = [line.split("\t") for line in docs_to_conllu([doc], multiword=multiword, contractions=contractions)
             .splitlines() if line and not line.startswith("#")]
    assert [row[:2] for row in lines] == [["1-2", "Do"], ["1", "De"], ["2", "o"], ["3", "livro"],
                                          ["4-5", "trata-se"], ["4", "trata"], ["5", "se"], ["6", "."]]
    heads = {row[1]: (row[6], row[7]) for row in lines if "-" not in row[0]}
    assert heads == {"De": ("3", "case"), "o": ("3", "det"), "livro": ("0", "root"), "trata": ("3", "acl"),
                     "se": ("4", "expl"), ".": ("3", "punct")}
    # a contraction that is the root: its other words hang on its kept word, never a second root
    root = Doc(nlp.vocab, words=["do"], heads=[0], deps=["ROOT"])
    rows = [line.split("\t") for line in docs_to_conllu([root], contractions=contractions).splitlines()
            if line and not line.startswith("#")]
    assert [(r[0], r[6]) for r in rows] == [("1-2", "_"), ("1", "0"), ("2", "1")]


def test_convert_docs_splits_a_portuguese_treebank_by_document(tmp_path, capsys):
    out = tmp_path / "dev.spacy"
    assert main(["convert-docs", bosque("dev"), str(out), "--lang", "pt", "--limit", "3"]) == 0
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("pt").vocab))
    assert len(docs) == 3 and "0 documents skipped" in capsys.readouterr().err
    assert docs[0].text.startswith("Pequenos são agentes das transformações")
