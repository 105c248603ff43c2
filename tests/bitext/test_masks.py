"""CreateMask: positive links prune exactly the bispans that separate their words; negative links forbid
their emission; conditioning by a mask is conditioning the derivations on the links."""
import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse.bitext.grammar import Chart, PairScores
from vineparse.bitext.masks import check_links, create_mask, user_keep
from vineparse.bitext.tictactoe import span_bounds
from itg_oracle import enumerate_derivations, expectations, score, valid


def bispans(p, q):
    for i, j in itertools.combinations_with_replacement(range(p + 1), 2):
        for k, l in itertools.combinations_with_replacement(range(q + 1), 2):
            if valid(j - i, l - k):
                yield i, j, k, l


def kept_set(keep, p, q):
    si, sj = span_bounds(p)
    ti, tj = span_bounds(q)
    return {(si[a], sj[a], ti[c], tj[c]) for a, c in zip(*np.nonzero(keep))}


@pytest.mark.parametrize("p,q", [(1, 1), (3, 4), (5, 3), (6, 6)])
def test_a_positive_link_removes_exactly_the_bispans_that_separate_it(p, q):
    every = set(bispans(p, q))
    assert kept_set(create_mask(p, q).keep, p, q) == every
    for i, k in itertools.product(range(p), range(q)):
        kept = kept_set(create_mask(p, q, positive=[(i, k)]).keep, p, q)
        separating = {b for b in every if (b[0] <= i < b[1]) != (b[2] <= k < b[3])}
        assert kept == every - separating


def test_several_positive_links_intersect():
    p, q = 5, 5
    links = [(0, 3), (2, 1), (4, 4)]
    kept = kept_set(create_mask(p, q, positive=links).keep, p, q)
    one = [kept_set(create_mask(p, q, positive=[link]).keep, p, q) for link in links]
    assert kept == set.intersection(*one)


@pytest.mark.parametrize("grammar", ["binary", "ternary"])
def test_masks_condition_the_distribution_on_the_links(grammar):
    rng = np.random.default_rng(4)
    p, q = 3, 3
    scores = PairScores(rng.normal(size=(p, q)), rng.normal(size=p), rng.normal(size=q), rng.normal(size=9),
                        rng.normal(size=9))
    everything = enumerate_derivations(p, q, ternary=grammar == "ternary")
    positive, negative = [(0, 1)], [(2, 2), (1, 0)]
    mask = create_mask(p, q, positive, negative)
    result = Chart(scores.forbid(mask.negative), mask.keep, grammar).run()
    allowed = [d for d in everything
               if all(l in d.links for l in positive) and not any(l in d.links for l in negative)]
    values = [score(d, scores.emit, scores.null_src, scores.null_tgt, scores.rule, scores.mismatch)
              for d in allowed]
    log_z, totals, _ = expectations(allowed, values, p, q)
    assert result.log_z == pytest.approx(log_z)
    np.testing.assert_allclose(result.statistics.emit, totals[0], atol=1e-10)
    np.testing.assert_allclose(result.statistics.count, totals[3], atol=1e-10)
    assert result.statistics.emit[0, 1] == pytest.approx(1.0)
    assert result.statistics.emit[2, 2] == 0.0 and result.statistics.emit[1, 0] == 0.0


def test_a_negative_link_prunes_no_bispan():
    mask = create_mask(4, 4, negative=[(1, 2)])
    assert mask.kept == create_mask(4, 4).kept


def test_link_and_mask_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"positive links has \(3, 0\), outside the 3 x 2 sentence pair"):
        create_mask(3, 2, positive=[(3, 0)])
    with pytest.raises(ValueError, match="both positive and negative"):
        create_mask(3, 2, positive=[(1, 1)], negative=[(1, 1)])
    with pytest.raises(ValueError, match="must be pairs"):
        check_links([1, 2, 3], 3, 3)
    with pytest.raises(ValueError, match="boolean array"):
        user_keep(np.ones((3, 3, 3, 3)), 2, 2)
    with pytest.raises(ValueError, match=r"shape \(p\+1, p\+1, q\+1, q\+1\) = \(3, 3, 4, 4\)"):
        user_keep(np.ones((3, 3, 3, 3), dtype=bool), 2, 3)


@given(p=st.integers(1, 8), q=st.integers(1, 8), data=st.data())
def test_property_bispans_from_links_lists_what_the_keep_table_keeps(p, q, data):
    from vineparse.bitext.grammar import bispans_from_links, keep_from_links

    links = data.draw(st.lists(st.tuples(st.integers(0, p - 1), st.integers(0, q - 1)), max_size=6))
    links = np.array(links, dtype=np.int64).reshape(-1, 2)
    boxes = bispans_from_links(p, q, links)
    listed = [tuple(b) for b in boxes.tolist()]
    assert len(set(listed)) == len(listed)
    assert set(listed) == kept_set(keep_from_links(p, q, links), p, q)
    sizes = boxes[:, 1] - boxes[:, 0] + boxes[:, 3] - boxes[:, 2]
    assert (np.diff(sizes) >= 0).all()
    # The chart built from the list equals the chart built from the keep table.
    rng = np.random.default_rng(p * 10 + q)
    scores = PairScores(rng.normal(size=(p, q)), rng.normal(size=p), rng.normal(size=q), rng.normal(size=9),
                        rng.normal(size=9))
    a = Chart(scores, keep_from_links(p, q, links), "ternary").run()
    b = Chart(scores, None, "ternary", boxes).run()
    assert a.log_z == b.log_z or a.log_z == pytest.approx(b.log_z, rel=1e-12)
    if a.statistics is not None:
        np.testing.assert_allclose(a.statistics.emit, b.statistics.emit, atol=1e-12)
        np.testing.assert_allclose(a.statistics.count, b.statistics.count, atol=1e-12)
