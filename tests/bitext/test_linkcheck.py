"""The subtree-correspondence check of alignment links against both sides' dependency trees."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from vineparse.bitext.linkcheck import subtree_agreement, subtree_masks


def descendants(heads, w):
    """Words (1-based) whose chain of heads reaches w, w included: by definition."""
    out = set()
    for v in range(1, len(heads)):
        x = v
        while x > 0:
            if x == w:
                out.add(v)
                break
            x = heads[x]
    return out


@st.composite
def trees(draw, max_n=7):
    n = draw(st.integers(1, max_n))
    order = draw(st.permutations(list(range(1, n + 1))))
    heads = [-1] + [0] * n
    for x, w in enumerate(order[1:], start=1):           # each word attaches to an earlier word of the order
        heads[w] = order[draw(st.integers(0, x - 1))]
    return heads


@given(heads=trees())
def test_subtree_masks_are_the_descendants(heads):
    mask = subtree_masks(heads)
    n = len(heads) - 1
    for w in range(1, n + 1):
        assert {v + 1 for v in np.flatnonzero(mask[w - 1])} == descendants(heads, w)


@given(src=trees(), tgt=trees(), data=st.data())
def test_agreement_equals_its_definition(src, tgt, data):
    p, q = len(src) - 1, len(tgt) - 1
    pairs = data.draw(st.lists(st.tuples(st.integers(0, p - 1), st.integers(0, q - 1)), unique=True, max_size=5))
    got = subtree_agreement(np.array(pairs, dtype=np.int64).reshape(-1, 2), src, tgt)
    want = {"links": len(pairs), "checkable": 0, "correspond": 0}
    if len(pairs) >= 2:
        for x, (i, k) in enumerate(pairs):
            s, t = descendants(src, i + 1), descendants(tgt, k + 1)
            others = pairs[:x] + pairs[x + 1:]
            touched = [(i2 + 1 in s, k2 + 1 in t) for i2, k2 in others]
            if any(a or b for a, b in touched):
                want["checkable"] += 1
                want["correspond"] += all(a == b for a, b in touched)
    assert got == want


def test_a_parallel_pair_corresponds_and_a_crossed_link_does_not():
    # "the big house" / "das grosse haus": house heads both others on both sides.
    heads = [-1, 3, 3, 0]
    # Leaf links touch no other link's words: only the head's link can be checked, and it corresponds.
    straight = np.array([(0, 0), (1, 1), (2, 2)])
    assert subtree_agreement(straight, heads, heads) == {"links": 3, "checkable": 1, "correspond": 1}
    crossed = np.array([(0, 0), (1, 2), (2, 1)])      # the head linked to a modifier and back: both fail
    assert subtree_agreement(crossed, heads, heads) == {"links": 3, "checkable": 2, "correspond": 0}


def test_cyclic_heads_are_an_error():
    with pytest.raises(ValueError, match="cycle"):
        subtree_masks([-1, 2, 1])
