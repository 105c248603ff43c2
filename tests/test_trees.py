import itertools

import numpy as np
import pytest

from vineparse.corpus import corpus_path, read_conllu
from vineparse.trees import TreeError, find_cycle, is_projective, projectivize, root_children, validate_heads


def all_head_arrays(n):
    """Every array [-1, h1, ..., hn] with each h in 0..n (trees or not)."""
    for heads in itertools.product(range(n + 1), repeat=n):
        yield np.array((-1,) + heads, dtype=np.int64)


def is_tree(heads):
    try:
        validate_heads(heads)
    except TreeError:
        return False
    return True


def descendants_cover_span(heads):
    """Projectivity by the other textbook definition: every word between a head and its dependent is a
    descendant of that head (the root at 0 dominates everything)."""
    n = len(heads) - 1

    def dominated_by(word, ancestor):
        while word != -1:
            if word == ancestor:
                return True
            word = heads[word]
        return False

    for m in range(1, n + 1):
        h = heads[m]
        for k in range(min(h, m) + 1, max(h, m)):
            if not dominated_by(k, h):
                return False
    return True


@pytest.mark.parametrize("heads", [[-1, 0], [-1, 2, 0, 2], [-1, 0, 0, 2], [-1, 3, 3, 0, 3]])
def test_validate_heads_accepts_trees_including_several_roots(heads):
    validate_heads(heads)
    validate_heads(np.array(heads, dtype=np.int32))


@pytest.mark.parametrize(
    "heads,word,message",
    [
        ([0, 0, 1], None, "heads[0] must be -1 (the artificial root), got 0"),
        ([-1, 0, 3], 2, "head 3 of word 2 is out of range 0..2"),
        ([-1, -2, 0], 1, "head -2 of word 1 is out of range 0..2"),
        ([-1, 0, 2], 2, "word 2 is its own head (self-loop)"),
        ([-1, 2, 1], 1, "no word is attached to the root (heads contain no 0)"),
        ([-1, 0, 4, 2, 3], 2, "cycle through word 2: 2 -> 4 -> 3 -> 2"),
        ([-1], None, "a tree needs at least one word, got an empty head array"),
    ],
)
def test_validate_heads_names_the_problem(heads, word, message):
    with pytest.raises(ValueError) as info:
        validate_heads(heads)
    assert str(info.value) == message
    assert info.value.word == word


@pytest.mark.parametrize("bad", [[[-1, 0]], [-1.0, 0.0], ["-1", "0"]])
def test_validate_heads_rejects_non_integer_or_nested_arrays(bad):
    with pytest.raises(TreeError, match="heads must be a 1-D integer array"):
        validate_heads(bad)


def test_find_cycle_starts_at_smallest_word_in_head_order():
    # 5 -> 3 -> 4 -> 5 (the head of 5 is 3, of 3 is 4, of 4 is 5); word 1 and 2 hang off the cycle.
    heads = [-1, 0, 5, 4, 5, 3]
    assert find_cycle(heads) == [3, 4, 5]
    assert find_cycle([-1, 0, 1, 1]) is None


def test_find_cycle_agrees_with_validation_for_all_small_arrays():
    for n in range(1, 5):
        for heads in all_head_arrays(n):
            has_loop = np.any(heads[1:] == np.arange(1, n + 1))
            cycle = find_cycle(heads)
            if cycle is not None:
                # Following heads from the first word of the cycle walks the cycle in order.
                walk = [cycle[0]]
                while len(walk) < len(cycle):
                    walk.append(int(heads[walk[-1]]))
                assert walk == cycle and heads[walk[-1]] == cycle[0]
            assert is_tree(heads) == (cycle is None and not has_loop and n >= 1)


def test_root_children():
    assert root_children([-1, 2, 0, 2, 0]).tolist() == [2, 4]
    assert root_children([-1, 2, 0, 2, 0]).dtype == np.int64


def test_is_projective_examples():
    assert is_projective([-1, 2, 0, 2])
    # Arcs (1, 3) and (2, 4) cross.
    assert not is_projective([-1, 3, 4, 0, 3])
    # Root arcs count: the arc (0, 2) crosses the arc (3, 1); without it the tree would look projective.
    assert not is_projective([-1, 3, 0, 2])
    # Two root arcs share the endpoint 0 and do not cross.
    assert is_projective([-1, 0, 1, 0])


def test_is_projective_agrees_with_the_dominance_definition_on_all_trees_up_to_5_words():
    checked = 0
    for n in range(1, 6):
        for heads in all_head_arrays(n):
            if is_tree(heads):
                assert is_projective(heads) == descendants_cover_span(heads), heads
                checked += 1
    # 1 + 3 + 16 + 125 + 1296 rooted forests on n labelled nodes ((n + 1) ** (n - 1)).
    assert checked == 1 + 3 + 16 + 125 + 1296


def test_projectivize_lifts_crossing_arcs():
    heads = np.array([-1, 3, 0, 2, 2])          # 1 <- 3 crosses 0 -> 2
    assert not is_projective(heads)
    lifted = projectivize(heads)
    validate_heads(lifted)
    assert is_projective(lifted)
    assert lifted.tolist() == [-1, 2, 0, 2, 2]   # word 1 lifted from 3 to its grandparent 2
    projective = np.array([-1, 2, 0, 2])
    assert projectivize(projective).tolist() == projective.tolist()


def test_projectivize_on_ewt_dev():
    from vineparse.corpus import corpus_path, read_conllu
    nonprojective = [s for s in read_conllu(corpus_path("ud-english-ewt", "en_ewt-ud-dev.conllu"))
                     if not is_projective(s.heads)]
    assert len(nonprojective) > 10
    for sentence in nonprojective:
        lifted = projectivize(sentence.heads)
        validate_heads(lifted)
        assert is_projective(lifted)
        assert (lifted != sentence.heads).sum() >= 1
