"""Conditional distributions smoothed by Witten-Bell back-off, shared by both lexicalized models.

``WittenBell`` estimates P(o | c_0, c_1, ..., c_{L-2}, g): an outcome o given a *group* g (always
conditioned on) and a chain of ever coarser contexts c_0 (most specific) .. c_{L-2}. With c(.) training
counts and T(.) the number of distinct outcomes seen in a context (Witten & Bell 1991; Collins 1999, 7.1):

    P_{L-1}(o | g)          = (c(g, o) + T(g) / V_g) / (c(g) + T(g))          (uniform floor over V_g outcomes)
    P_l(o | c_l .. , g)     = (c(c_l, g, o) + T(c_l, g) P_{l+1}(o | ...)) / (c(c_l, g) + T(c_l, g))
                              (= P_{l+1} when c(c_l, g) = 0)

so every probability is positive and each group's outcomes sum to one. ``prob`` answers one query in
O(L) dictionary look-ups; ``table`` gives the whole distribution over every outcome of every group at once
(the layout where group g owns outcomes ``ptr[g] .. ptr[g+1]``), in O(total outcomes + outcomes seen in the
contexts), caching the coarser levels. Counts serialise as plain lists (``to_list`` / ``from_list``).
"""
from typing import Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["WittenBell"]


class WittenBell:
    """P(outcome | contexts, group) with Witten-Bell interpolation (see the module docstring).

    levels (int): L >= 1, the number of levels including the group-only one; ``add`` and ``prob`` take
        L - 1 contexts, most specific first.
    group_ptr (Optional[np.ndarray]): for grouped outcomes, group g owns outcomes ptr[g] .. ptr[g+1] - 1
        (its floor size V_g is that range's length); needed by ``table``.
    vocabulary (Optional[int]): the floor size V shared by all groups when outcomes are not grouped.
    """

    def __init__(self, levels: int, *, group_ptr: Optional[np.ndarray] = None,
                 vocabulary: Optional[int] = None) -> None:
        if levels < 1:
            raise ValueError(f"a back-off chain needs at least one level, got {levels}")
        if (group_ptr is None) == (vocabulary is None):
            raise ValueError("give exactly one of group_ptr (grouped outcomes) or vocabulary (a shared floor size)")
        if vocabulary is not None and vocabulary < 1:
            raise ValueError(f"vocabulary must be positive, got {vocabulary}")
        self.levels = levels
        self.group_ptr = None if group_ptr is None else np.asarray(group_ptr, dtype=np.int64)
        self.vocabulary = vocabulary
        self._counts: List[Dict[Tuple[Hashable, Hashable], Dict[Hashable, float]]] = [{} for _ in range(levels)]
        self._raw: Dict[Tuple, float] = {}
        self._frozen: Optional[List[Dict]] = None
        self._by_context: Optional[List[Dict]] = None
        self._cache: Dict = {}

    def _floor(self, group: Hashable) -> float:
        if self.group_ptr is None:
            return 1.0 / self.vocabulary
        size = int(self.group_ptr[group + 1] - self.group_ptr[group])
        return 1.0 / max(size, 1)

    def add(self, contexts: Sequence[Hashable], group: Hashable, outcome: Hashable, count: float = 1.0) -> None:
        """Count one event (contexts most specific first, L - 1 of them)."""
        contexts = tuple(contexts)
        group = int(group) if isinstance(group, np.integer) else group
        outcome = int(outcome) if isinstance(outcome, np.integer) else outcome
        if len(contexts) != self.levels - 1:
            raise ValueError(f"expected {self.levels - 1} contexts, got {len(contexts)}")
        if self.group_ptr is not None and not (self.group_ptr[group] <= outcome < self.group_ptr[group + 1]):
            raise ValueError(f"outcome {outcome} does not belong to group {group}")
        self._frozen = None
        self._cache.clear()
        key = contexts + (group, outcome)
        self._raw[key] = self._raw.get(key, 0.0) + count
        for level in range(self.levels):
            context = contexts[level] if level < self.levels - 1 else ()
            table = self._counts[level].setdefault((context, group), {})
            table[outcome] = table.get(outcome, 0.0) + count

    def _freeze(self) -> None:
        """Totals and type counts per context, and the per-context lists that ``table`` walks."""
        self._frozen = []
        self._by_context = []
        for level in range(self.levels):
            frozen, by_context = {}, {}
            for (context, group), outcomes in self._counts[level].items():
                keys = np.fromiter(outcomes.keys(), dtype=np.int64) if self.group_ptr is not None else None
                values = np.fromiter(outcomes.values(), dtype=np.float64, count=len(outcomes))
                entry = (float(values.sum()), float(len(outcomes)), outcomes, keys, values)
                frozen[(context, group)] = entry
                by_context.setdefault(context, []).append((group, entry))
            self._frozen.append(frozen)
            self._by_context.append(by_context)

    def prob(self, contexts: Sequence[Hashable], group: Hashable, outcome: Hashable) -> float:
        """P(outcome | contexts, group), one query."""
        if self._frozen is None:
            self._freeze()
        p = self._floor(group)
        for level in range(self.levels - 1, -1, -1):
            context = contexts[level] if level < self.levels - 1 else ()
            entry = self._frozen[level].get((context, group))
            if entry is not None:
                total, types, outcomes = entry[0], entry[1], entry[2]
                p = (outcomes.get(outcome, 0.0) + types * p) / (total + types)
        return p

    def table(self, contexts: Sequence[Hashable]) -> np.ndarray:
        """P(o | contexts, group(o)) for every outcome o of every group (grouped outcomes only).

        RETURNS (np.ndarray): float64 of length ptr[-1]; the coarser levels are cached, so repeated
            contexts (the same tag) cost only their most specific level.
        """
        if self.group_ptr is None:
            raise ValueError("table needs grouped outcomes (group_ptr)")
        if self._frozen is None:
            self._freeze()
        contexts = tuple(contexts)
        return self._table_from(0, contexts).copy()

    def _table_from(self, level: int, contexts: Tuple) -> np.ndarray:
        key = (level, contexts[level:])
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if level == self.levels - 1:
            ptr = self.group_ptr
            sizes = np.diff(ptr)
            vec = np.repeat(1.0 / np.maximum(sizes, 1), sizes)
            context = ()
        else:
            vec = self._table_from(level + 1, contexts).copy()
            context = contexts[level]
        for group, (total, types, _, keys, values) in self._by_context[level].get(context, ()):
            lo, hi = self.group_ptr[group], self.group_ptr[group + 1]
            part = vec[lo:hi] * types
            np.add.at(part, keys - lo, values)
            vec[lo:hi] = part / (total + types)
        if level > 0:            # the most specific level (words) is too varied to be worth keeping
            self._cache[key] = vec
        return vec

    def group_totals(self) -> Dict[Hashable, float]:
        """The total count of each group's events (over all contexts)."""
        return {group: sum(outcomes.values()) for (_, group), outcomes in self._counts[self.levels - 1].items()}

    # ------------------------------------------------------------------------------------------------
    def to_list(self) -> List[list]:
        """The raw counts as ``[[context..., group, outcome, count], ...]`` (msgpack/JSON friendly)."""
        return [[_listed(x) for x in key] + [count] for key, count in self._raw.items()]

    def load_list(self, rows: Sequence[Sequence]) -> "WittenBell":
        """Add the counts of ``to_list`` (contexts given back as tuples). RETURNS (WittenBell): self."""
        for row in rows:
            *key, count = row
            if not (isinstance(count, (int, float)) and np.isfinite(count) and count > 0):
                raise ValueError(f"event counts must be positive and finite, got {count!r}")
            if len(key) != self.levels + 1:
                raise ValueError(f"expected {self.levels - 1} contexts, a group and an outcome per row, got {key!r}")
            key = [_tupled(x) for x in key]
            self.add(key[: self.levels - 1], key[-2], key[-1], count)
        return self


def _listed(x):
    return list(_listed(v) for v in x) if isinstance(x, tuple) else x


def _tupled(x):
    return tuple(_tupled(v) for v in x) if isinstance(x, list) else x
