"""`consecutive_rows` (`_kernels/row_blocks.pyx`): the array that views are consecutive row blocks of, and None
for anything else."""
import numpy as np
import pytest

from vineparse._kernels.row_blocks import consecutive_rows

BASE = np.arange(36, dtype=np.float32).reshape(9, 4).copy()          # owns its rows
RESHAPED = np.arange(36, dtype=np.float32).reshape(9, 4)             # a view of a 1-d array


def test_consecutive_views_give_the_rows_they_cover_without_a_copy():
    for views, rows in (([BASE[0:2], BASE[2:7], BASE[7:9]], slice(0, 9)),
                        ([BASE[1:3], BASE[3:4]], slice(1, 4)),
                        ([BASE[4:9]], slice(4, 9))):
        found = consecutive_rows(views)
        assert found.base is BASE and np.array_equal(found, BASE[rows])


@pytest.mark.parametrize("views", [
    [BASE[2:7], BASE[0:2], BASE[7:9]],                  # out of order
    [BASE[0:2], BASE[3:7]],                             # a gap
    [BASE[0:2], BASE[0:2]],                             # the same rows twice
    [BASE[0:2, :3], BASE[2:4, :3]],                     # column blocks
    [BASE[0:2], BASE[2:4].copy()],                      # another array
    [BASE[0:2], BASE[2:4].astype(np.float64)],          # another dtype
    [BASE[0:2], BASE[2:4].tolist()],                    # not an array
    [BASE[::2]],                                        # not contiguous
    [RESHAPED[0:2], RESHAPED[2:4]],                     # their base is not 2-d
    [],
])
def test_anything_else_gives_none(views):
    assert consecutive_rows(views) is None


def test_an_array_without_a_base_gives_none():
    assert consecutive_rows([BASE]) is None
