"""Each structure's parts agree with its dynamic program (levels scored by hashed weights): the decoded tree
scores the kernel's best score, and no projective tree scores more (brute force)."""
import itertools

import numpy as np
import pytest

from vineparse import kernels
from vineparse.cascade.encoding import encode
from vineparse.cascade.parser import make_level
from vineparse.cascade.structures import Vine, full_mask, sibling_rows
from oracle import projective_trees

WORDS = ["She", "gave", "the", "old", "dog", "a", "bone"]
TAGS = ["PRP", "VBD", "DT", "JJ", "NN", "DT", "NN"]


def random_level(order, seed, band=5):
    level = make_level(order, 12, band)
    level.scorer.weights[:] = np.random.default_rng(seed).normal(size=level.scorer.weights.shape)
    return level


def test_sibling_rows_follow_the_definition():
    heads = np.array([-1, 2, 0, 5, 5, 2, 7, 2])
    rows = {tuple(r) for r in sibling_rows(heads)}
    # 2's right children 5, 7 (closest first); left child 1; 5's left children 4, 3; 7's left child 6; root: 2.
    assert rows == {(2, 2, 5), (2, 5, 7), (2, 2, 1), (5, 5, 4), (5, 4, 3), (7, 7, 6), (0, 0, 2)}


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_eisner_levels_agree_with_brute_force(order, n, seed):
    sent = encode(WORDS[:n], TAGS[:n])
    level = random_level(order, seed)
    best, mm, _ = level.max_marginals(sent, None)
    scores = {tuple(t): level.score(sent, t) for t in projective_trees(n)}
    assert max(scores.values()) == pytest.approx(best)
    heads = level.decode(sent, None)
    assert level.score(sent, heads) == pytest.approx(best)
    for (h, m) in itertools.product(range(n + 1), range(1, n + 1)):
        using = [s for t, s in scores.items() if t[m] == h]
        assert mm[h, m] == pytest.approx(max(using) if using else -np.inf)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_forced_decode_uses_the_arc_and_scores_its_max_marginal(order):
    sent = encode(WORDS, TAGS)
    level = random_level(order, 7)
    _, mm, _ = level.max_marginals(sent, None)
    for arc in [(3, 5), (0, 6), (7, 1)]:
        heads = level.decode(sent, None, force=arc)
        assert heads[arc[1]] == arc[0]
        assert level.score(sent, heads) == pytest.approx(mm[arc])


@pytest.mark.parametrize("band", [1, 2, 3])
def test_vine_level_parts_agree_with_the_kernel(band):
    n = 6
    sent = encode(WORDS[:n], TAGS[:n])
    level = random_level(0, band, band=band)
    best, arc_mm, outer_mm = level.max_marginals(sent)
    heads, attach = level.decode(sent)
    assert level.score(sent, heads, attach) == pytest.approx(best)
    for tree in projective_trees(n):
        assert level.score(sent, tree) <= best + 1e-9       # every tree maps to a vine structure
    forced = level.decode(sent, force=("outer", (n, 0)))
    assert forced[1][n] == kernels.ATTACH_OUTER_LEFT
    assert level.score(sent, *forced) == pytest.approx(outer_mm[n, 0])


def test_vine_structure_of_a_tree():
    heads = np.array([-1, 2, 0, 2, 7, 7, 7, 2])   # 2 -> 7 is long (5 > 2); 7's children are short
    vine_heads, attach = Vine(band=2).vine_structure(heads)
    assert vine_heads.tolist() == [-1, 2, 0, 2, 0, 7, 7, 0]
    assert attach.tolist() == [0, 0, 1, 0, 3, 0, 0, 2]   # 4 -> 7 is long too: OUTER-RIGHT


def test_local_level_max_marginals_by_brute_force():
    n = 4
    sent = encode(WORDS[:n], TAGS[:n])
    level = random_level("local", 3)
    best, mm, _ = level.max_marginals(sent, None)
    mask = full_mask(n)
    assignments = [np.array((-1,) + a) for a in itertools.product(range(n + 1), repeat=n)
                   if all(mask[h, m] for m, h in enumerate(a, 1))]
    scores = [level.score(sent, a) for a in assignments]
    assert max(scores) == pytest.approx(best)
    for h, m in np.argwhere(mask):
        assert mm[h, m] == pytest.approx(max(s for a, s in zip(assignments, scores) if a[m] == h))
