"""The TrainablePipe API of vine_cascade on a tiny pipeline trained on a slice of EWT."""
import numpy as np
import pytest
import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam

from vineparse.pipeline import VineCascadeParser, calibration
from vineparse.pipeline.component import FORMAT_VERSION
from vineparse.pipeline.scorers import distance_buckets

from .tiny import TINY_MODEL, check_split_calibration, parses, train_tiny


def test_initialize_takes_the_labels_from_the_examples(trained, ewt_sentences):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    gold = set()
    for eg in examples[:60]:
        gold.update(eg.get_aligned_parse(projectivize=True)[1])
    assert set(parser.labels) == gold
    assert any("||" in label for label in parser.labels) == any("||" in label for label in gold)


def test_update_lowers_the_loss_on_the_training_batch(ewt_sentences):
    nlp, examples = train_tiny(ewt_sentences[:10], steps=0)
    optimizer = Adam(0.01)
    first = nlp.update(examples, sgd=optimizer)["vine_cascade"]
    for _ in range(8):
        last = nlp.update(examples, sgd=optimizer)["vine_cascade"]
    assert last < 0.8 * first


def test_get_loss_gives_gradients_of_the_encoder_output_and_the_scorers(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [eg.predicted for eg in examples[:3]]
    vectors = parser.model.predict(docs)
    for node in parser.model.walk():
        for name in node.param_names:
            if node.has_grad(name):
                node.set_grad(name, np.zeros_like(node.get_param(name)))
    loss, d_vectors = parser.get_loss(examples[:3], vectors)
    assert loss > 0
    assert [d.shape for d in d_vectors] == [v.shape for v in vectors]
    assert all(np.isfinite(d).all() for d in d_vectors) and any(np.abs(d).sum() > 0 for d in d_vectors)
    for name in ("arcs", "outer", "sibling", "grandparent", "grand_sibling", "labels"):
        scorer = parser.model.get_ref(name)
        assert any(node.has_grad(p) and np.abs(node.get_grad(p)).sum() > 0
                   for node in scorer.walk() for p in node.param_names), name


def test_a_projection_the_part_kinds_share_learns_what_their_own_would(ewt_sentences):
    """With `shared_part_roles` the three part kinds read one projection: given the same weights, the loss,
    the encoder's gradient and the parses are those of three projections of their own holding the kinds'
    role columns, and the shared projection's gradient is the sum of theirs, column for column."""
    SHARED = {**TINY_MODEL, "start_width": 64, "shared_part_roles": True}
    OWN = {**SHARED, "shared_part_roles": False}
    (nlp, examples), (other, _) = (train_tiny(ewt_sentences[:20], steps=0, model=m) for m in (SHARED, OWN))
    shared, own = (n.get_pipe("vine_cascade") for n in (nlp, other))
    width = TINY_MODEL["part_width"]
    projection = shared.model.get_ref("sibling").layers[0]
    assert all(shared.model.get_ref(name).layers[0] is projection for name in ("grandparent", "grand_sibling"))
    assert projection.get_dim("nO") == 4 * width
    for name in ("tok2vec", "encoder", "arcs", "outer", "labels", "starts"):
        own.model.get_ref(name).from_bytes(shared.model.get_ref(name).to_bytes())
    columns, rng = {}, np.random.default_rng(0)
    for name in ("sibling", "grandparent", "grand_sibling"):
        a, b = shared.model.get_ref(name), own.model.get_ref(name)
        a.set_param("v", rng.normal(size=width).astype("f"))          # initialized to 0: no gradient yet
        columns[name] = np.concatenate([np.arange(start, start + width) for start in a.attrs["starts"]])
        for param in ("v", "none", "Q"):
            b.set_param(param, a.get_param(param).copy())
        for param in ("W", "b"):
            b.layers[0].set_param(param, projection.get_param(param)[columns[name]].copy())
    docs = [eg.predicted for eg in examples[:6]]
    results = []
    for parser in (shared, own):
        vectors = parser.model.predict(docs)
        for node in parser.model.walk():
            for name in node.param_names:
                if node.has_grad(name):
                    node.set_grad(name, np.zeros_like(node.get_param(name)))
        results.append(parser.get_loss(examples[:6], vectors))
    (loss, d_shared), (loss_own, d_own) = results
    assert loss == pytest.approx(loss_own, rel=1e-5) and loss > 0
    for a, b in zip(d_shared, d_own):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    summed = np.zeros_like(projection.get_grad("W"))
    for name, cols in columns.items():
        summed[cols] += own.model.get_ref(name).layers[0].get_grad("W")
    assert np.abs(summed).sum() > 0
    np.testing.assert_allclose(projection.get_grad("W"), summed, rtol=1e-4, atol=1e-6)
    assert parses(shared.pipe([d.copy() for d in docs])) == parses(own.pipe([d.copy() for d in docs]))


def test_the_label_loss_reads_gold_children_and_averages_two_passes(trained):
    """With a label scorer that reads the dependents' children, the label loss is the mean of the
    cross-entropies with the gold trees' outermost children and with none, and both passes train "none"."""
    from vineparse.pipeline.batch import Batch
    from vineparse.pipeline.scorers import outer_children
    from vineparse.pipeline.training import gold_sentences, label_cross_entropy
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    scorer = parser.model.get_ref("labels")
    assert scorer.attrs["children"]
    batch = Batch(parser.model, parser.model.predict([eg.predicted for eg in examples[:4]]))
    sentences = list(gold_sentences(examples[:4], parser.label_ids, parser.skip))
    scorer.set_grad("none", np.zeros_like(scorer.get_param("none")))
    loss, d_X = label_cross_entropy(parser, batch.X, batch, sentences)
    assert d_X.shape == batch.X.shape and np.abs(scorer.get_grad("none")).sum() > 0
    expected = 0.0
    for s in sentences:
        rows = batch.rows_of(s.doc, s.start, s.end)
        m = np.arange(1, s.end - s.start + 1)
        children = outer_children(s.heads, rows)[m]
        for given in (children, np.full_like(children, -1)):
            logits = scorer.predict((batch.X, rows[s.heads[m]], rows[m], distance_buckets(s.heads[m], m), given))
            logits = logits - logits.max(axis=1, keepdims=True)
            log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
            expected -= parser.cfg["label_weight"] / 2 * log_probs[np.arange(len(m)), s.labels[m]].sum()
    assert loss == pytest.approx(expected, rel=1e-4)


def test_predictions_are_trees_with_one_root_per_sentence(trained):
    nlp, examples = trained
    for doc in nlp.pipe([eg.predicted.copy() for eg in examples[:20]]):
        for sent in doc.sents:
            roots = [t for t in sent if t.head.i == t.i]
            assert len(roots) == 1
            assert all(sent.start <= t.head.i < sent.end for t in sent)
            for token in sent:                      # following heads reaches the root
                seen = 0
                while token.head.i != token.i:
                    token, seen = token.head, seen + 1
                    assert seen <= len(sent)


def test_a_batch_is_parsed_in_pieces_of_about_predict_words_words(trained, monkeypatch):
    from vineparse.pipeline import component as component_module
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    docs = [eg.predicted.copy() for eg in examples[:30]]
    whole = parser.predict(docs)
    batches = []
    predict_piece = parser._predict
    monkeypatch.setattr(parser, "_predict", lambda piece: batches.append(len(piece)) or predict_piece(piece))
    monkeypatch.setattr(component_module, "PREDICT_WORDS", 25)
    pieces = parser.predict(docs)
    assert len(batches) > 3 and sum(batches) == len(docs)
    for (heads, labels), (heads_whole, labels_whole) in zip(pieces, whole):
        np.testing.assert_array_equal(heads, heads_whole)
        np.testing.assert_array_equal(labels, labels_whole)


def test_score_reports_the_parser_metrics(trained):
    nlp, examples = trained
    scores = nlp.evaluate(examples[60:])
    for key in ("dep_uas", "dep_las", "dep_las_per_type", "sents_f"):
        assert key in scores
    assert 0.0 <= scores["dep_las"] <= scores["dep_uas"] <= 1.0


def test_score_is_the_share_of_correct_heads(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    predicted = [Example(parser(eg.predicted.copy()), eg.reference) for eg in examples[60:]]
    gold, pred = set(), set()           # spaCy's UAS: F1 of (token, head) over non-punctuation tokens
    for k, eg in enumerate(predicted):
        gold.update((k, g.i, g.head.i) for g in eg.reference if g.dep_.lower() not in ("p", "punct"))
        pred.update((k, p.i, p.head.i) for p in eg.predicted if p.dep_.lower() not in ("p", "punct"))
    correct = len(gold & pred)
    f1 = 2 * correct / (len(gold) + len(pred))
    assert parser.score(predicted)["dep_uas"] == pytest.approx(f1)


def test_no_decorated_label_reaches_the_output(trained, ewt_sentences):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    decorated = [i for i, label in enumerate(parser.labels) if "||" in label]
    if not decorated:                                 # make sure the output path sees one
        parser.load_cfg({**parser.cfg, "labels": [*parser.labels, "obj||nsubj"]})
        decorated = [len(parser.labels) - 1]
    doc = Doc(nlp.vocab, words=["a", "b", "c", "d"])
    heads = np.array([1, 1, 1, 2])
    labels = np.array([0, 0, 0, decorated[0]])
    parser.set_annotations([doc], [(heads, labels)])
    assert all("||" not in t.dep_ for t in doc)
    # in a batch: each doc gets its own heads and labels, and only the doc with a lifted arc is deprojectivized
    empty, plain, lifted = (Doc(nlp.vocab, words=w) for w in ([], ["x", "y"], ["a", "b", "c", "d"]))
    plain_label = next(i for i, label in enumerate(parser.labels) if "||" not in label)
    parser.set_annotations([empty, plain, lifted], [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)),
                                                    (np.array([1, 1]), np.array([plain_label] * 2)),
                                                    (heads, labels)])
    assert [t.head.i for t in plain] == [1, 1] and {t.dep_ for t in plain} == {parser.labels[plain_label]}
    assert all("||" not in t.dep_ for t in lifted) and [t.dep_ for t in lifted] == [t.dep_ for t in doc]
    for doc in nlp.pipe([eg.predicted.copy() for eg in examples]):
        assert all("||" not in t.dep_ for t in doc)


def test_edge_cases_parse_without_errors(trained):
    nlp, _ = trained
    docs = [Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=["Hello"]), Doc(nlp.vocab, words=[" ", "\n", "  "]),
            Doc(nlp.vocab, words=["Zyxxq", " ", "unseen", "tokens", "\t"])]
    out = list(nlp.pipe(docs))
    assert len(out[0]) == 0
    assert out[1][0].head.i == 0 and out[1][0].dep_
    for doc in out[2:]:
        assert sum(t.head.i == t.i for t in doc) == len(list(doc.sents))


def test_unseen_labels_in_training_are_counted_not_fatal(trained, ewt_sentences):
    nlp, examples = train_tiny(ewt_sentences[:10], steps=1)
    parser = nlp.get_pipe("vine_cascade")
    words = ["I", "saw", "it"]
    gold = Doc(nlp.vocab, words=words, heads=[1, 1, 1], deps=["nsubj", "root", "never_seen_label"])
    before = parser.skipped["unseen_labels"]
    nlp.update([Example(Doc(nlp.vocab, words=words), gold)], sgd=nlp.resume_training())
    assert parser.skipped["unseen_labels"] == before + 1
    scores = nlp.evaluate([Example(Doc(nlp.vocab, words=words), gold)])
    assert "dep_uas" in scores


def test_preset_sentence_boundaries_are_kept(trained):
    nlp, examples = trained
    words, starts = [], []
    for eg in examples[:4]:
        starts.append(len(words))
        words += [t.text for t in eg.predicted]
    doc = Doc(nlp.vocab, words=words, sent_starts=[i in starts for i in range(len(words))])
    doc = nlp.get_pipe("vine_cascade")(doc)
    assert [s.start for s in doc.sents] == starts
    for sent in doc.sents:
        assert sum(t.head.i == t.i for t in sent) == 1


def test_doc_without_boundaries_is_split_by_the_vine(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    words = [t.text for eg in examples[:6] for t in eg.predicted]
    doc = Doc(nlp.vocab, words=words)
    spans = parser.sentence_spans(doc)
    doc = parser(doc)
    assert [(s.start, s.end) for s in doc.sents] == spans
    assert spans[0][0] == 0 and spans[-1][1] == len(doc)
    for sent in doc.sents:
        assert sum(t.head.i == t.i for t in sent) == 1


def test_cuts_without_the_vine_level_and_without_the_shortcut_are_the_same(trained, monkeypatch):
    """Docs without boundaries are cut alike by the cascade's vine level and, with the cascade cut to Eisner
    orders, by the vine it was trained with; and `parts.may_split`, which skips the vine pass of a
    unit that cannot be cut, never changes a cut (at two margins). The tiny model's root scores are raised
    so that it cuts some docs."""
    from vineparse.pipeline.parts import BatchScores
    from vineparse.pipeline import component
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    score = BatchScores.sentences

    def rooted(self, *args, **kwargs):
        found = score(self, *args, **kwargs)
        for sent in found:
            sent.dense_arcs()[0, 1:] += 4.0
        return found

    monkeypatch.setattr(BatchScores, "sentences", rooted)
    docs = [Doc(nlp.vocab, words=[t.text for eg in examples[i:i + 3] for t in eg.predicted]) for i in range(0, 60, 3)]
    saved = dict(parser.cfg)
    try:
        for margin in (0.0, 0.5):
            parser.configure(split_margin=margin)
            spans = [parser.sentence_spans(doc) for doc in docs]
            if margin == 0.0:
                assert any(len(s) > 1 for s in spans)
            parser.set_orders([1, 3])
            assert parser.sentence_band() == parser.cfg["band"]
            assert [parser.sentence_spans(doc) for doc in docs] == spans
            parsed = list(parser.pipe([doc.copy() for doc in docs]))
            assert [[(s.start, s.end) for s in doc.sents] for doc in parsed] == spans
            parser.load_cfg(dict(saved, split_margin=margin))
            with monkeypatch.context() as patch:
                patch.setattr(component, "may_split", lambda sentences, window, margin=0.0: [True] * len(sentences))
                assert [parser.sentence_spans(doc) for doc in docs] == spans
    finally:
        parser.load_cfg(saved)
    untrained = VineCascadeParser(parser.vocab, parser.model, orders=[1, 2], predict_orders=None)
    assert untrained.sentence_band() is None


def test_long_doc_without_boundaries_is_parsed_in_bounded_pieces(trained):
    from vineparse.pipeline.splitting import MAX_SEGMENT
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    words = [t.text for eg in examples for t in eg.predicted]
    words = (words * (1 + 3 * MAX_SEGMENT // len(words)))[:3 * MAX_SEGMENT + 7]
    doc = Doc(nlp.vocab, words=words)
    spans = parser.sentence_spans(doc)
    assert spans[0][0] == 0 and spans[-1][1] == len(doc)
    assert all(a < b == c for (a, b), (c, _) in zip(spans, spans[1:] + [(len(doc), None)]))
    assert max(b - a for a, b in spans) <= MAX_SEGMENT
    doc = parser(doc)
    assert [(s.start, s.end) for s in doc.sents] == spans


def test_max_order_stops_the_cascade_early(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    try:
        parser.set_max_order(1)
        assert len(parser.predict_cascade.levels) == 2
        docs = list(nlp.pipe([eg.predicted.copy() for eg in examples[:5]]))
        assert all(len(list(d.sents)) >= 1 for d in docs)
    finally:
        parser.set_max_order(None)
    assert len(parser.predict_cascade.levels) == 4
    with pytest.raises(ValueError, match="max_order"):
        parser.set_max_order(0)


def test_set_orders_keeps_a_subsequence_of_the_trained_levels(trained):
    """set_orders([0, 1, 3]) drops the second-order pruning level: the first level's mask goes to the third
    level, whose trees are then those of the Python cascade of the same levels and thresholds."""
    from vineparse.pipeline.batch import Batch
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = dict(parser.cfg)
    docs = preset_docs(examples[:20])
    try:
        alphas = list(parser.cfg["alphas"])
        parser.set_orders([0, 1, 3])
        assert parser.cfg["predict_orders"] == [0, 1, 3] and parser.cfg["predict_alphas"] == alphas[:2]
        assert parser.cfg["orders"] == [0, 1, 2, 3] and parser.cfg["alphas"] == alphas       # what trains
        assert [level.order for level in parser.predict_cascade.levels] == [0, 1, 3]
        assert parser.predict_tracker.gold.shape[0] == 2 and parser.tracker.gold.shape[0] == 3
        reloaded = type(parser)(parser.vocab, parser.model, "copy").from_bytes(parser.to_bytes())
        assert reloaded.cfg["predict_orders"] == [0, 1, 3] and reloaded.predict_tracker.gold.shape[0] == 2
        parser.configure(direct_max_length=0)
        batch = Batch(parser.model, parser.model.predict(docs)).predict()
        scored = batch.score([batch.rows_of(i, 0, len(doc)) for i, doc in enumerate(docs)])
        for doc, sent, (heads, _) in zip(docs, scored, parser.predict(docs)):
            tree = parser.predict_cascade.run(sent)
            assert list(heads) == list(np.where(tree[1:] == 0, np.arange(len(doc)), tree[1:] - 1))
        for bad in ([0, 1, 2], [0, 1, 4], [1, 0, 3]):
            with pytest.raises(ValueError):
                parser.set_orders(bad)
    finally:
        parser.load_cfg(saved)
    assert [level.order for level in parser.predict_cascade.levels] == [0, 1, 2, 3]
    assert parser.tracker.gold.shape[0] == 3


def test_calibrate_sets_alphas_for_the_recall(trained):
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = dict(parser.cfg)
    try:
        rows = parser.calibrate(nlp, examples[60:], recall=0.9)
        assert [r["level"] for r in rows] == ["vine", "first", "second"]
        assert parser.cfg["alphas"] == [r["alpha"] for r in rows]
        for r in rows:     # the target, or when it is out of reach (head cap) that share of the ceiling
            if r["recall_ceiling"] is None:
                assert r["gold_recall"] >= 0.9
            else:
                assert r["recall_ceiling"] < 0.9
                assert r["gold_recall"] >= 0.9 * r["recall_ceiling"] or r["alpha"] == -1.0
        assert parser.split_calibration["setting"] == "split_margin"          # a model without a start scorer
        assert parser.split_calibration["value"] == parser.cfg["split_margin"]
    finally:
        parser.load_cfg(saved)


def test_calibrate_splitting_takes_the_margin_of_best_boundary_f1(trained):
    """Held-out docs of one and of two gold sentences, parsed without boundaries: each margin's predicted and
    correct boundaries are those of `sentence_spans` at that margin, the F1 follows from them, and the
    margin set is the largest of those with the best F1. Docs whose tokens differ from the gold are counted,
    not used."""
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    held = examples[60:]
    docs = [eg.reference for eg in held[:6]] + [Doc.from_docs([a.reference, b.reference])
                                                  for a, b in zip(held[6::2], held[7::2])]
    chosen = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    retokenized = Example(Doc(nlp.vocab, words=["x"] + [t.text for t in docs[0]]), docs[0])
    margins = (0.0, 0.5, 2.0, 1000.0)
    saved = dict(parser.cfg)
    try:
        result = calibration.calibrate_splitting(parser, nlp, chosen + [retokenized], margins)
        assert result["docs"] == len(docs) and result["skipped_docs"] == 1
        check_split_calibration(parser, result, chosen, "split_margin")
        assert result["rows"][-1]["predicted"] == 0          # a margin beyond any score gap never splits
    finally:
        parser.load_cfg(saved)
    assert parser.cfg["split_margin"] == saved["split_margin"]


def test_calibrate_takes_one_recall_per_level(trained):
    """Per-level targets: each level is calibrated for its own recall, so a lower target on the last pruning
    level alone leaves the levels before it where the uniform target puts them and prunes that level at
    least as hard."""
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = dict(parser.cfg)
    try:
        uniform = parser.calibrate(nlp, examples[60:], recall=0.99)
        mixed = parser.calibrate(nlp, examples[60:], recall=[0.99, 0.99, 0.6])
        assert [r["alpha"] for r in mixed[:2]] == [r["alpha"] for r in uniform[:2]]
        assert mixed[2]["alpha"] >= uniform[2]["alpha"] and mixed[2]["kept_share"] <= uniform[2]["kept_share"]
        assert mixed[2]["gold_recall"] >= 0.6 or mixed[2]["recall_ceiling"] is not None
        with pytest.raises(ValueError, match="one value per pruning level"):
            parser.calibrate(nlp, examples[60:], recall=[0.9, 0.9])
    finally:
        parser.load_cfg(saved)


@pytest.mark.parametrize("settings, message", [
    ({"orders": [1, 0]}, "increasing"), ({"orders": [0]}, "last level"), ({"orders": [0, 4]}, "unknown"),
    ({"alphas": [0.1]}, "one value per pruning level"), ({"band": 0}, "band"), ({"recall": 1.5}, "recall"),
    ({"recall": [0.9, 0.9]}, "one value per pruning level"), ({"recall": [0.9, 0.9, 0.0]}, "recall"),
    ({"max_order": 0}, "max_order"), ({"max_heads": 0}, "max_heads"),
    ({"direct_max_length": -1}, "direct_max_length"), ({"label_weight": 0}, "label_weight"),
    ({"dropout": 1.0}, "dropout"), ({"held_out": 0.9}, "held_out"),
    ({"learn_held_out": "maybe"}, "learn_held_out"),
    ({"head_scaling": [0.0, 1.0]}, "head_scaling"), ({"head_scaling": [1.0]}, "head_scaling"),
    ({"model": {**TINY_MODEL, "lstm_width": 7}}, "lstm_width")])
def test_bad_settings_name_the_problem(settings, message):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=message):
        nlp.add_pipe("vine_cascade", config={"model": TINY_MODEL, **settings})


def preset_docs(examples):
    docs = [eg.predicted.copy() for eg in examples]
    for doc in docs:
        for token in doc:
            token.is_sent_start = token.i == 0
    return docs


def test_short_sentences_are_decoded_exactly_by_the_last_level(trained):
    """direct_max_length: a sentence that short skips the pruning levels; its tree is the last level's best
    tree over every arc. With 0, every sentence runs through the whole cascade."""
    from vineparse.pipeline.batch import Batch
    from vineparse.pipeline.labels import predict_labels
    nlp, examples = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = parser.cfg["direct_max_length"]
    docs = preset_docs(examples[:30])
    try:
        parser.configure(direct_max_length=1000)
        direct = parser.predict(docs)
        batch = Batch(parser.model, parser.model.predict(docs)).predict()
        scored = batch.score([batch.rows_of(i, 0, len(doc)) for i, doc in enumerate(docs)])
        for doc, sent, (heads, _) in zip(docs, scored, direct):
            tree = parser.predict_cascade.levels[-1].decode(sent, None)
            assert list(heads) == list(np.where(tree[1:] == 0, np.arange(len(doc)), tree[1:] - 1))
        parser.configure(direct_max_length=0)
        trees = []
        for doc, sent, (heads, labels) in zip(docs, scored, parser.predict(docs)):
            tree = parser.predict_cascade.run(sent)
            trees.append(np.where(tree[1:] == 0, np.arange(len(doc)), tree[1:] - 1))
            assert list(heads) == list(trees[-1])
        # the labels, predicted for the whole batch at once, are each arc's most probable one
        labels = [labels for _, labels in parser.predict(docs)]
        for i, (doc, tree) in enumerate(zip(docs, trees)):
            alone = predict_labels(Batch(parser.model, parser.model.predict([doc])).predict(), [tree], parser.labels)[0]
            assert list(alone) == list(labels[i])
    finally:
        parser.configure(direct_max_length=saved)


def test_an_incompatible_saved_component_is_refused(trained, tmp_path):
    nlp, _ = trained
    parser = nlp.get_pipe("vine_cascade")
    saved = srsly.msgpack_loads(parser.to_bytes())
    cfg = srsly.json_loads(saved["cfg"])
    cfg["format_version"] = FORMAT_VERSION + 1
    data = srsly.msgpack_dumps({**saved, "cfg": srsly.json_dumps(cfg)})
    fresh = spacy.blank("en").add_pipe("vine_cascade", config={"model": TINY_MODEL})
    with pytest.raises(ValueError, match="format version"):
        fresh.from_bytes(data)


def test_isinstance_of_the_component(trained):
    nlp, _ = trained
    assert isinstance(nlp.get_pipe("vine_cascade"), VineCascadeParser)


def _parameters(model):
    """{(position of the node in `model.walk()`, name): a copy} of every parameter a model holds."""
    return {(position, name): node.get_param(name).copy() for position, node in enumerate(model.walk())
            for name in node.param_names if node.has_param(name)}


def test_training_sets_the_thresholds_from_the_recall_it_sees(ewt_sentences):
    """threshold_interval: every few batches each pruning level's a is set from the tracker (fed by the
    held-out sentences), whose rows reach the recall target on what it saw (or sit at the grid's floor); the
    training cascade prunes with the new values."""
    nlp, _ = train_tiny(ewt_sentences[:40], steps=6, threshold_interval=2, recall=0.9, held_out=0.5)
    parser = nlp.get_pipe("vine_cascade")
    rows = parser.threshold_rows
    assert len(rows) == 3 and all(row["alpha"] is not None for row in rows)
    assert parser.cfg["alphas"] == [row["alpha"] for row in rows]
    assert parser.cascade.alphas == parser.cfg["alphas"] == parser.predict_cascade.alphas
    for row in rows:
        assert row["gold_recall"] >= 0.9 or row["alpha"] == -1.0
    assert parser.tracker.sentences.max() > 0
    per_level, _ = train_tiny(ewt_sentences[:40], steps=6, threshold_interval=2, recall=[0.9, 0.9, 0.5],
                              held_out=0.5)
    rows = per_level.get_pipe("vine_cascade").threshold_rows
    for row, target in zip(rows, [0.9, 0.9, 0.5]):
        assert row["gold_recall"] >= target or row["alpha"] == -1.0
    frozen, _ = train_tiny(ewt_sentences[:40], steps=6, threshold_interval=0)
    assert frozen.get_pipe("vine_cascade").cfg["alphas"] == [0.0, 0.0, 0.0]


def test_calibrate_command_saves_a_recalibrated_pipeline(trained, tmp_path):
    import json
    import subprocess
    import sys
    from spacy.tokens import DocBin
    nlp, examples = trained
    nlp.to_disk(tmp_path / "pipeline")
    DocBin(docs=[eg.reference for eg in examples[60:]]).to_disk(tmp_path / "dev.spacy")
    result = subprocess.run([sys.executable, "-m", "vineparse.pipeline", "calibrate", str(tmp_path / "pipeline"),
                             str(tmp_path / "dev.spacy"), "--recall", "0.9,0.9,0.8", "--max-heads", "4",
                             "--output", str(tmp_path / "out")], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "vine: a =" in result.stdout and "first: a =" in result.stdout
    cfg = json.loads((tmp_path / "out" / "vine_cascade" / "cfg").read_text())
    assert cfg["max_heads"] == 4 and len(cfg["alphas"]) == 3
    bad = subprocess.run([sys.executable, "-m", "vineparse.pipeline", "calibrate", str(tmp_path / "missing"),
                          str(tmp_path / "dev.spacy"), "--output", str(tmp_path / "x")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "error" in bad.stderr
    wrong = subprocess.run([sys.executable, "-m", "vineparse.pipeline", "calibrate", str(tmp_path / "pipeline"),
                            str(tmp_path / "dev.spacy"), "--recall", "0.9,0.9", "--output", str(tmp_path / "x")],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 2 and "one value per pruning level" in wrong.stderr
    cut = subprocess.run([sys.executable, "-m", "vineparse.pipeline", "calibrate", str(tmp_path / "pipeline"),
                          str(tmp_path / "dev.spacy"), "--orders", "0,1,3", "--recall", "0.99,0.9",
                          "--output", str(tmp_path / "cut")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert cut.returncode == 0, cut.stderr[-3000:]
    assert "second: a =" not in cut.stdout and "first: a =" in cut.stdout
    cfg = json.loads((tmp_path / "cut" / "vine_cascade" / "cfg").read_text())
    assert cfg["predict_orders"] == [0, 1, 3] and len(cfg["predict_alphas"]) == 2 and len(cfg["alphas"]) == 3


def test_the_calibrate_on_dev_callback_calibrates_what_is_saved(trained, tmp_path):
    """`vineparse.calibrate_on_dev.v1` sets what `calibrate` sets on the same held-out file, and refuses a
    missing file or the training corpus."""
    from spacy.tokens import DocBin
    from spacy.util import registry
    nlp, examples = trained
    DocBin(docs=[eg.reference for eg in examples[60:]]).to_disk(tmp_path / "dev.spacy")
    callback = registry.callbacks.get("vineparse.calibrate_on_dev.v1")(str(tmp_path / "dev.spacy"))
    parser = nlp.get_pipe("vine_cascade")
    saved = dict(parser.cfg)
    try:
        assert callback(nlp) is nlp
        by_callback = dict(parser.cfg)
        parser.load_cfg(saved)
        parser.calibrate(nlp, calibration.held_out_examples(nlp, tmp_path / "dev.spacy"))
        assert by_callback == dict(parser.cfg)
        assert by_callback["alphas"] != saved["alphas"] or by_callback["head_temperature"] != saved["head_temperature"]
    finally:
        parser.load_cfg(saved)
    with pytest.raises(ValueError, match="not a file"):
        registry.callbacks.get("vineparse.calibrate_on_dev.v1")(str(tmp_path / "missing.spacy"))
    trained_on = nlp.config["paths"]["train"]
    nlp.config["paths"]["train"] = str(tmp_path / "dev.spacy")
    try:
        with pytest.raises(ValueError, match="training corpus"):
            calibration.calibrate_before_saving(str(tmp_path / "dev.spacy"))(nlp)
    finally:
        nlp.config["paths"]["train"] = trained_on


@pytest.mark.parametrize("learn", [False, True])
def test_held_out_sentences_are_a_stable_share_learnt_from_or_not(ewt_sentences, learn):
    from vineparse.pipeline.thresholds import is_held_out
    sentences = [list(s.words) for s in ewt_sentences]
    picked = [is_held_out(words, 0.3) for words in sentences]
    assert picked == [is_held_out(words, 0.3) for words in sentences]
    assert 0.1 < np.mean(picked) < 0.5 and not any(is_held_out(words, 0.0) for words in sentences)
    nlp, examples = train_tiny(ewt_sentences[:20], steps=0, held_out=0.3, learn_held_out=learn)
    parser = nlp.get_pipe("vine_cascade")
    from vineparse.pipeline.training import batch_loss
    vectors = parser.model.predict([eg.predicted for eg in examples])
    observed = []
    parser.tracker.observe = lambda *args: observed.append(args)
    _, _, details = batch_loss(parser, examples, vectors)
    held = sum(is_held_out(list(s.words), 0.3) for s in ewt_sentences[:20])
    assert 0 < held < 20 and details["held_out"] == held and observed
    assert details["sentences"] == (20 if learn else 20 - held)


def test_the_parsing_levels_get_their_own_thresholds_while_training(ewt_sentences):
    """predict_orders: the levels that parse; training keeps every level of `orders` (with their thresholds)
    and sets the parsing levels' thresholds for predict_recall from the held-out sentences."""
    nlp, examples = train_tiny(ewt_sentences[:60], steps=6, threshold_interval=2, held_out=0.3,
                               predict_orders=[1, 3], predict_recall=0.5)
    parser = nlp.get_pipe("vine_cascade")
    assert [level.order for level in parser.cascade.levels] == [0, 1, 2, 3]
    assert [level.order for level in parser.predict_cascade.levels] == [1, 3]
    assert parser.predict_tracker.sentences[0] > 0
    assert parser.settings.predict_alphas != [0.0] and len(parser.settings.predict_alphas) == 1
    rows = parser.predict_tracker.rows(0.5)
    assert rows[0]["gold_recall"] is None or rows[0]["gold_recall"] >= 0.5
    for doc in nlp.pipe([eg.predicted.copy() for eg in examples[:5]]):
        assert sum(t.head.i == t.i for t in doc) == len(list(doc.sents))
    with pytest.raises(ValueError, match="subsequence"):
        parser.configure(predict_orders=[1, 2])


def test_the_training_corpus_is_not_taken_for_held_out_data(trained, ewt_sentences, tmp_path):
    """A dev corpus that is the training corpus draws a warning at initialize; calibrate refuses it."""
    import subprocess
    import sys

    from spacy.tokens import DocBin
    nlp, examples = trained
    corpus = tmp_path / "train.spacy"
    DocBin(docs=[eg.reference for eg in examples[:30]]).to_disk(corpus)
    fresh = spacy.blank("en")
    fresh.add_pipe("vine_cascade", config={"model": TINY_MODEL})
    fresh.config["paths"]["train"] = fresh.config["paths"]["dev"] = str(corpus)
    with pytest.warns(UserWarning, match="dev corpus is the training corpus"):
        fresh.initialize(lambda: examples[:30])
    nlp.config["paths"]["train"] = str(corpus)
    try:
        nlp.to_disk(tmp_path / "pipeline")
    finally:
        nlp.config["paths"]["train"] = None
    result = subprocess.run([sys.executable, "-m", "vineparse.pipeline", "calibrate", str(tmp_path / "pipeline"),
                             str(corpus), "--output", str(tmp_path / "out")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 2 and "training corpus" in result.stderr
