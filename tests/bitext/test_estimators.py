"""Exact, tic-tac-toe and randomized expectations through the public API."""
import numpy as np
import pytest

from vineparse.bitext import (BitextConfig, BitextModel, ExactLimitError, expectations, pud_pairs)
from vineparse.bitext.features import EMIT_DENSE, TAGS, UPOS
from vineparse.bitext.grammar import KIND_NAMES
from vineparse.bitext.tictactoe import figure_of_merit, span_bounds
from itg_oracle import enumerate_derivations

PAIRS = pud_pairs()


@pytest.fixture(scope="module")
def model():
    return BitextModel.train([(p.src, p.tgt) for p in PAIRS[:300]], BitextConfig(model1_iterations=5))


def short_pairs(max_product, min_links, model, count):
    found = []
    for pair in PAIRS:
        if pair.product <= max_product and len(model.links(pair.src, pair.tgt)) >= min_links:
            found.append(pair)
    return found[:count]


def derivation_features(d, feats, space, p, q):
    """The feature vector of one derivation, summed part by part by feature name."""
    f = np.zeros(len(space))
    ix = space.index
    for i, k in d.links:
        f[:len(EMIT_DENSE)] += feats.emit[i, k]
        if feats.emit_tag is not None:
            a, b = divmod(int(feats.emit_tag[i, k]), len(TAGS))
            f[ix[f"tags:{TAGS[a]}|{TAGS[b]}"]] += 1
    for i, _ in d.null_src:
        f[ix["null_src:bias"]] += 1
        f[ix["null_src:lex"]] += feats.null_src[i, 1]
        f[ix[f"null_src:tag:{TAGS[feats.null_src_tag[i]]}"]] += 1
    for k, _ in d.null_tgt:
        f[ix["null_tgt:bias"]] += 1
        f[ix["null_tgt:lex"]] += feats.null_tgt[k, 1]
        f[ix[f"null_tgt:tag:{TAGS[feats.null_tgt_tag[k]]}"]] += 1
    for kind, mismatch in d.rules:
        f[ix["rule:" + KIND_NAMES[kind]]] += 1
        if kind in (0, 1):
            f[ix["mismatch:binary"]] += mismatch
        elif kind >= 3:
            f[ix["mismatch:ternary"]] += mismatch
    return f


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
@pytest.mark.parametrize("masked", [False, True])
def test_exact_feature_expectations_equal_brute_force(model, grammar, masked):
    rng = np.random.default_rng(3)
    weights = rng.normal(size=len(model.space)) * 0.5
    trained = model.with_weights(weights)
    src, tgt = ["The", "cat", "sleeps"], ["猫", "在", "睡"]
    src_tags, tgt_tags = ["DET", "NOUN", "VERB"], ["NOUN", "ADP", "VERB"]
    p, q = 3, 3
    mask = None
    if masked:
        mask = rng.random((p + 1, p + 1, q + 1, q + 1)) < 0.8
        mask[0, p, 0, q] = True
    got = expectations(src, tgt, "exact", model=trained, src_tags=src_tags, tgt_tags=tgt_tags, grammar=grammar,
                       mask=mask)
    feats = trained.featurizer.pair(src, tgt, src_tags, tgt_tags)
    derivations = enumerate_derivations(p, q, None if mask is None else (lambda *b: mask[b]),
                                        ternary=grammar == "ternary")
    vectors = np.array([derivation_features(d, feats, trained.space, p, q) for d in derivations])
    scores = vectors @ weights
    log_z = np.logaddexp.reduce(scores)
    want = np.exp(scores - log_z) @ vectors
    assert got.log_partition == pytest.approx(log_z, rel=1e-10)
    np.testing.assert_allclose(got.counts, want, atol=1e-9)
    assert got.diagnostics["kept"] <= got.diagnostics["bispans"]


def test_randomized_without_pruning_equals_exact():
    untrained = BitextModel()                       # no Model 1 tables: M' is empty, every mask is the full chart
    src, tgt = "a b c d".split(), "w x y z".split()
    exact = expectations(src, tgt, "exact", model=untrained, grammar="ternary")
    randomized = expectations(src, tgt, "randomized", samples=5, seed=1, model=untrained, grammar="ternary")
    assert randomized.diagnostics["links"] == 0
    np.testing.assert_allclose(randomized.counts, exact.counts, rtol=1e-12, atol=1e-12)


def test_randomized_is_reproducible_and_its_prefixes_are_shorter_runs(model):
    pair = short_pairs(200, 3, model, 1)[0]
    run = lambda samples, seed, **kw: expectations(pair.src, pair.tgt, "randomized", samples, seed,  # noqa: E731
                                                   model=model, **kw)
    first, again, other = run(8, 7, checkpoints=[4]), run(8, 7), run(8, 8)
    np.testing.assert_array_equal(first.counts, again.counts)
    assert not np.allclose(first.counts, other.counts)
    np.testing.assert_array_equal(run(4, 7).counts, first.checkpoints[0]["counts"])


def test_selection_chain_sizes(model):
    pair = short_pairs(300, 4, model, 1)[0]
    result = expectations(pair.src, pair.tgt, "randomized", samples=6, seed=0, model=model)
    m = result.diagnostics["links"]
    sizes = [r["positive"] + r["negative"] for r in result.diagnostics["masks"]]
    want = [round(2 * m / 3)]
    for _ in range(5):
        want.append(m - want[-1] + want[-1] // 2)
    assert sizes == want


def test_randomized_converges_to_exact(model):
    # Flattened weights leave the M' links uncertain, so single masks are biased and the chain must mix.
    flat = model.with_weights(model.weights * 0.3)
    pair = short_pairs(40, 4, model, 1)[0]
    exact = expectations(pair.src, pair.tgt, "exact", model=flat)
    run = expectations(pair.src, pair.tgt, "randomized", 4000, 5, model=flat, checkpoints=[1, 4000])
    first, last = (np.sum((c["counts"] - exact.counts) ** 2) for c in run.checkpoints)
    scale = np.sum(exact.counts ** 2)
    assert run.diagnostics["kept"] < exact.diagnostics["kept"]          # the masks do prune
    assert first > 1e-3 * scale                                         # one mask is visibly biased
    assert last < 1e-5 * scale and last < first / 1000


def test_figure_of_merit_against_its_definition(model):
    src, tgt = PAIRS[1].src[:4], PAIRS[1].tgt[:3]
    tables = model.model1.tables(src, tgt)
    floor = 1e-6
    fom = figure_of_merit(tables, floor)
    fwd, bwd = np.maximum(tables["fwd"], floor), np.maximum(tables["bwd"], floor)
    fnull, bnull = np.maximum(tables["fwd_null"], floor), np.maximum(tables["bwd_null"], floor)
    p, q = fwd.shape
    si, sj = span_bounds(p)
    ti, tj = span_bounds(q)
    for a in range(len(si)):
        for c in range(len(ti)):
            i, j, k, l = si[a], sj[a], ti[c], tj[c]
            if not ((j > i and l > k) or (j - i, l - k) in ((1, 0), (0, 1))):
                assert fom[a, c] == -np.inf
                continue
            inside_src, inside_tgt = set(range(i, j)), set(range(k, l))
            total = 0.0
            for kk in range(q):           # target words from source words (forward tables)
                pool = inside_src if kk in inside_tgt else set(range(p)) - inside_src
                total += np.log((fnull[kk] + sum(fwd[ii, kk] for ii in pool)) / (len(pool) + 1))
            for ii in range(p):           # source words from target words (backward tables)
                pool = inside_tgt if ii in inside_src else set(range(q)) - inside_tgt
                total += np.log((bnull[ii] + sum(bwd[ii, kk] for kk in pool)) / (len(pool) + 1))
            assert fom[a, c] == pytest.approx(total)


def test_tictactoe_with_a_wide_beam_is_exact_and_a_narrow_one_prunes(model):
    pair = short_pairs(120, 1, model, 1)[0]
    exact = expectations(pair.src, pair.tgt, "exact", model=model, grammar="ternary")
    wide = expectations(pair.src, pair.tgt, "tictactoe", model=model, grammar="ternary", beam=1e9)
    np.testing.assert_allclose(wide.counts, exact.counts, atol=1e-9)
    narrow = expectations(pair.src, pair.tgt, "tictactoe", model=model, grammar="ternary", beam=0.0)
    assert narrow.diagnostics["kept"] < exact.diagnostics["kept"]
    assert narrow.diagnostics["beam"] > 0 and narrow.diagnostics["attempts"] > 1     # widened to a derivation
    assert np.isfinite(narrow.log_partition) and narrow.log_partition <= exact.log_partition


def test_too_long_for_exact_is_a_clear_error_and_randomized_still_works(model):
    small = BitextModel(model.model1, model.weights, BitextConfig(max_exact_product={"binary": 50}))
    pair = next(p for p in PAIRS if 60 <= p.product <= 120)
    p, q = len(pair.src), len(pair.tgt)
    with pytest.raises(ExactLimitError, match=rf"a {p} x {q} sentence pair \(product {p * q}\) is too long .*"
                                              r"max_exact_product\['binary'\] is 50"):
        expectations(pair.src, pair.tgt, "exact", model=small)
    assert np.isfinite(expectations(pair.src, pair.tgt, "randomized", samples=2, model=small).counts).all()
    assert np.isfinite(expectations(pair.src, pair.tgt, "tictactoe", model=small).counts).all()


def test_unknown_words_and_tags_are_handled(model):
    src, tgt = ["zyzzyva", "qwerty"], ["未知词"]
    got = expectations(src, tgt, "exact", model=model, src_tags=["NOUN", "WEIRD"], tgt_tags=["NOUN"])
    assert got.diagnostics["unknown_words"] == 3 and got.diagnostics["unknown_tags"] == 1
    assert got["emit:unseen"] == pytest.approx(got.link_posteriors.sum())
    assert got["emit:lex_fwd"] == pytest.approx(np.log(1e-6) * got.link_posteriors.sum())
    assert "null_src:tag:OTHER" in got.names and TAGS[-1] == "OTHER" and "OTHER" not in UPOS


def test_bad_input_is_a_clear_error(model):
    with pytest.raises(ValueError, match="source sentence is empty"):
        expectations([], ["x"], model=model)
    with pytest.raises(ValueError, match="target sentence is empty"):
        expectations(["x"], [], model=model)
    with pytest.raises(ValueError, match="sequence of tokens, not a string"):
        expectations("a b", ["x"], model=model)
    with pytest.raises(ValueError, match="method must be one of"):
        expectations(["a"], ["x"], "beam", model=model)
    with pytest.raises(ValueError, match="grammar must be one of"):
        expectations(["a"], ["x"], model=model, grammar="quaternary")
    with pytest.raises(ValueError, match="has 2 words but 1 tags"):
        expectations(["a", "b"], ["x"], model=model, src_tags=["NOUN"])
    with pytest.raises(ValueError, match="samples must be >= 1"):
        expectations(["a"], ["x"], "randomized", samples=0, model=model)
    with pytest.raises(KeyError, match="no feature"):
        expectations(["a"], ["x"], model=model)["nope"]
