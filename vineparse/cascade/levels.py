"""A level of a pruning cascade: a structure (`structures.py`) driven by a scorer.

The structure brings the dynamic program, the parts and the pruning; the scorer the scores of parts and
what training does with them: a `hashed.HashedScorer` for the sparse `CascadeParser` (its own weights per
level), or the spaCy component's neural scores (`vineparse.pipeline.parts.NeuralPartScorer`, one network
for every level). A scorer offers `part_scores(sent, kind, rows)`, `arc_scores(sent, mask)` (see
`structures.py`), `update(sent, parts, step)` (move the scores of `parts` by `step`: a perceptron step for
the hashed weights, a gradient for the neural scores), `tick()` and `average()` (the averaging clock of the
hashed weights; nothing for the neural scores, whose optimizer owns the parameters).
"""
from typing import Optional

import numpy as np

from .structures import Parts, Structure, Vine


class Level:
    """One level: `structure` scored by `scorer`.

    head_cap (int or None): as a pruning level, keep at most this many heads per word (those of highest
        max-marginal; ties kept, so the best structure survives; see `thresholds.cap_heads`). The vine is
        never capped.
    """

    def __init__(self, structure: Structure, scorer, head_cap: Optional[int] = None):
        self.structure = structure
        self.scorer = scorer
        self.head_cap = head_cap

    @property
    def name(self) -> str:
        return self.structure.name

    @property
    def order(self):
        return self.structure.order

    @property
    def is_vine(self) -> bool:
        return isinstance(self.structure, Vine)

    def max_marginals(self, sent, mask=None):
        """(best score, arc max-marginals (n + 1, n + 1), outer max-marginals (n + 1, 2) or None)."""
        return self.structure.max_marginals(self.scorer, sent, mask)

    def decode(self, sent, mask=None, force=None):
        """The best structure under `mask` (heads, or (heads, attach) for the vine); `force`: a part it must
        use."""
        return self.structure.decode(self.scorer, sent, mask, force)

    def prune_mask(self, best: float, arc_mm: np.ndarray, outer_mm: Optional[np.ndarray],
                   alpha: float) -> np.ndarray:
        """The arc mask this level leaves for the next at threshold parameter `alpha`."""
        return self.structure.prune_mask(best, arc_mm, outer_mm, alpha, self.head_cap)

    def tree_parts(self, heads: np.ndarray, attach: Optional[np.ndarray] = None) -> Parts:
        return self.structure.tree_parts(heads, attach)

    def score(self, sent, heads: np.ndarray, attach: Optional[np.ndarray] = None) -> float:
        """The score of a structure (the vine's with its attachment labels `attach`)."""
        return sum(float(self.scorer.part_scores(sent, kind, rows).sum())
                   for kind, rows in self.tree_parts(heads, attach))

    def update(self, sent, heads: np.ndarray, step: float, attach: Optional[np.ndarray] = None) -> None:
        """Move the scores of a structure's parts by `step` (see the module docstring)."""
        self.scorer.update(sent, self.tree_parts(heads, attach), step)

    def update_structure(self, sent, structure, step: float) -> None:
        """`update` for what `decode` returns: heads, or the vine's (heads, attach)."""
        if self.is_vine:
            heads, attach = structure
            self.update(sent, heads, step, attach)
        else:
            self.update(sent, structure, step)

    def tick(self) -> None:
        self.scorer.tick()

    def average(self) -> None:
        self.scorer.average()
