"""Running a pruning cascade: levels in turn, each pruned by the max-marginals of the one before.

A `Cascade` holds `levels.Level`s (a structure driven by a scorer): `max_marginals(sent, mask) -> (best, arc
max-marginals, outer max-marginals or None)`, `prune_mask(best, arc_mm, outer_mm, alpha) -> arc mask` and
`decode(sent, mask) -> heads`, where `sent` is whatever the scorers read (hashed tokens for the sparse models
of `CascadeParser`, neural scores for the spaCy component). Masks are bool (n + 1, n + 1) arrays, None
meaning every arc. `run` is the per-sentence Python runner (training and tests); `runtime` the compiled one
that parsing uses.
"""
import threading
import time
import weakref
from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np

from .. import kernels
from .._kernels.cascade_runtime import CascadeRuntime
from ..kernels._checks import NoStructureError
from .structures import full_mask
from .thresholds import gold_recall


@dataclass
class CascadeStats:
    """What the cascade did over a run: per level, sentences, arcs kept and gold arcs kept."""

    names: List[str]
    kept: np.ndarray = None          # arcs surviving each level's pruning
    possible: np.ndarray = None      # n^2 per sentence, summed
    gold_kept: np.ndarray = None
    gold: np.ndarray = None
    fallbacks: np.ndarray = None     # sentences where a pruned mask admitted no tree
    seconds: np.ndarray = None
    sentences: int = 0
    bookkeeping_seconds: float = 0.0   # time spent filling these statistics (not parsing)

    def __post_init__(self):
        k = len(self.names)
        for name in ("kept", "possible", "gold_kept", "gold", "fallbacks", "seconds"):
            setattr(self, name, np.zeros(k))

    def add_table(self, table: np.ndarray, sentences: int) -> None:
        """Add the compiled runtime's statistics: (levels, 6) columns kept, possible, gold kept, gold,
        fallbacks, seconds (see `_kernels.cascade_runtime.Stats`)."""
        for column, name in enumerate(("kept", "possible", "gold_kept", "gold", "fallbacks", "seconds")):
            getattr(self, name)[:] += table[:, column]
        self.sentences += sentences

    def rows(self) -> List[dict]:
        """One dict per pruning level: kept share and gold-arc recall of the mask it leaves."""
        out = []
        for i, name in enumerate(self.names[:-1]):
            out.append({"level": name,
                        "kept_share": self.kept[i] / max(self.possible[i], 1),
                        "gold_recall": self.gold_kept[i] / max(self.gold[i], 1),
                        "fallbacks": int(self.fallbacks[i]),
                        "seconds": float(self.seconds[i])})
        return out


_RUNTIMES: "weakref.WeakKeyDictionary[Cascade, dict]" = weakref.WeakKeyDictionary()
_RUNTIMES_LOCK = threading.Lock()      # threads parsing with one cascade share its runtimes


class Cascade:
    """Levels run in turn; every level but the last prunes for the next.

    levels (Sequence): objects following the level protocol (see the module docstring).
    alphas (Sequence[float]): the pruning parameter a of each pruning level (len(levels) - 1 values).
    """

    def __init__(self, levels: Sequence, alphas: Optional[Sequence[float]] = None):
        self.levels = list(levels)
        self.alphas = list(alphas) if alphas is not None else [0.5] * (len(self.levels) - 1)
        if len(self.alphas) != len(self.levels) - 1:
            raise ValueError(f"{len(self.levels) - 1} pruning levels but {len(self.alphas)} alphas")

    def runtime(self, last_only: bool = False) -> CascadeRuntime:
        """The compiled runtime (`_kernels/cascade_runtime.pyx`) of these levels, thresholds, head caps and the
        vine's band, or with `last_only` of the last level alone (exact decoding over every arc). Kept while the cascade
        lives and beside it (so that the cascade still pickles), with its pool of workspaces, grown to the
        longest sentence seen and reused from call to call; up to 8 settings are kept (calibration tries many
        thresholds)."""
        band = next((level.structure.band for level in self.levels if level.is_vine), 1)
        if last_only:
            key = ((self.levels[-1].order,), (), (), band)
        else:
            caps = tuple(0 if level.is_vine else (level.head_cap or 0) for level in self.levels[:-1])
            key = (tuple(level.order for level in self.levels), tuple(self.alphas), caps, band)
        with _RUNTIMES_LOCK:
            runtimes = _RUNTIMES.setdefault(self, {})
            runtime = runtimes.get(key)
            if runtime is None:
                if len(runtimes) >= 8:
                    runtimes.clear()
                runtime = runtimes[key] = CascadeRuntime(*key)
        return runtime

    # -- running the cascade

    def prune(self, k: int, sent, mask, alpha: Optional[float] = None) -> np.ndarray:
        """The arc mask level k leaves for level k + 1, given its own input mask (None = all arcs)."""
        level = self.levels[k]
        best, arc_mm, outer_mm = level.max_marginals(sent, mask)
        return level.prune_mask(best, arc_mm, outer_mm, self.alphas[k] if alpha is None else alpha)

    def run(self, sent, gold: Optional[np.ndarray] = None, stats: Optional[CascadeStats] = None,
            upto: Optional[int] = None):
        """Run the cascade on one sentence: the best tree (heads), or with `upto`
        the arc mask that levels 0..upto-1 leave for level `upto`.

        A mask that admits no tree at the next level (rare: pruning keeps the
        best structure of each level, but a vine structure need not be a
        single-rooted tree) is replaced by the mask before it, and counted in
        `stats.fallbacks` of the level that pruned.
        """
        last = len(self.levels) - 1 if upto is None else upto
        inputs = [None]                       # inputs[k]: the mask level k runs on
        for k in range(last + 1):
            start = time.perf_counter()
            try:
                out = self._step(k, sent, inputs[k], k == last and upto is not None)
            except NoStructureError:
                if k == 0:
                    raise
                inputs[k] = inputs[k - 1]
                if stats is not None:
                    stats.fallbacks[k - 1] += 1
                out = self._step(k, sent, inputs[k], k == last and upto is not None)
            if stats is not None:
                stats.seconds[k] += time.perf_counter() - start
            inputs.append(out)
        if stats is not None:
            start = time.perf_counter()
            stats.sentences += 1
            for k in range(1, last + 1):
                mask = full_mask(sent.n) if inputs[k] is None else inputs[k]
                stats.kept[k - 1] += mask[:, 1:].sum()
                stats.possible[k - 1] += sent.n * sent.n
                if gold is not None:
                    kept, total = gold_recall(mask, gold)
                    stats.gold_kept[k - 1] += kept
                    stats.gold[k - 1] += total
            stats.bookkeeping_seconds += time.perf_counter() - start
        return inputs[last] if upto is not None else inputs[-1]

    def input_mask(self, sent, k: int):
        """The arc mask level k runs on inside the cascade (None for the first level), with the
        same fallback as `run` when a pruned mask admits no tree."""
        if k == 0:
            return None
        mask = self.run(sent, upto=k)
        try:
            kernels.eisner(np.zeros(mask.shape), mask)
        except NoStructureError:
            return self.input_mask(sent, k - 1)
        return mask

    def _step(self, k: int, sent, mask, is_target: bool):
        if is_target:
            return mask
        if k == len(self.levels) - 1:
            return self.levels[k].decode(sent, mask)
        return self.prune(k, sent, mask)

    def new_stats(self) -> CascadeStats:
        return CascadeStats([level.name for level in self.levels])
