import numpy as np
import pytest

from vineparse.cascade.thresholds import arc_mask, gold_recall, kept_share, threshold, vine_mask


def test_threshold_interpolates_between_mean_and_best():
    values = np.array([1.0, 3.0, -np.inf, 5.0])
    assert threshold(5.0, values, 0.0) == pytest.approx(3.0)
    assert threshold(5.0, values, 1.0) == pytest.approx(5.0)
    assert threshold(5.0, values, 0.5) == pytest.approx(4.0)
    assert threshold(5.0, values, -1.0) == pytest.approx(1.0)


def test_arc_mask_keeps_the_best_tree_and_drops_unused_arcs():
    mm = np.full((3, 3), -np.inf)
    mm[0, 1], mm[1, 2], mm[0, 2], mm[2, 1] = 4.0, 4.0, 1.0, 1.0
    keep = arc_mask(mm, 4.0, 0.5)
    assert keep.tolist() == [[False, True, False], [False, False, True], [False, False, False]]
    assert kept_share(keep) == pytest.approx(2 / 4)
    assert gold_recall(keep, np.array([-1, 0, 1])) == (2, 2)
    assert gold_recall(keep, np.array([-1, 2, 0])) == (0, 2)


def test_vine_mask_lets_long_arcs_through_surviving_outer_arcs():
    n, band = 8, 2
    arc_mm = np.full((n + 1, n + 1), -np.inf)
    arc_mm[0, 1] = 10.0
    for m in range(2, n + 1):
        arc_mm[m - 1, m] = 10.0
    outer = np.full((n + 1, 2), -np.inf)
    outer[6, 0] = 10.0        # word 6 may take a head left of 6 - 2 = 4: heads 1, 2, 3
    outer[2, 1] = 0.0         # below the threshold
    mask = vine_mask(arc_mm, outer, 10.0, 0.5, band)
    assert np.flatnonzero(mask[:, 6]).tolist() == [1, 2, 3, 5]
    assert np.flatnonzero(mask[:, 2]).tolist() == [1]
    assert mask[0, 1] and not mask[0, 2:].any()
