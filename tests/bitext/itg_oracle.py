"""Brute force for the bitext grammars: enumerate every derivation of a sentence pair.

Written from the grammar's definition (vineparse/_kernels/itg.pyx docstring), not from the chart: ternary
rules enumerate all four split points and permutations directly. Fine for p, q <= 3.
"""
from functools import lru_cache
from itertools import permutations

import numpy as np

PERMS = list(permutations(range(3)))          # (0,1,2), (0,2,1), (1,0,2), (1,2,0), (2,0,1), (2,1,0)
STRAIGHT, INVERTED, ATTACH, TERNARY = 0, 1, 2, 3


class Derivation:
    """One derivation: its parts (emissions, null emissions, rule applications) and bispans."""

    __slots__ = ("links", "null_src", "null_tgt", "rules", "bispans")

    def __init__(self, links=(), null_src=(), null_tgt=(), rules=(), bispans=()):
        self.links = tuple(links)            # (i, k)
        self.null_src = tuple(null_src)      # (i, k position)
        self.null_tgt = tuple(null_tgt)      # (k, i position)
        self.rules = tuple(rules)            # (kind, mismatch)
        self.bispans = tuple(bispans)

    def join(self, other, rule, bispan):
        return Derivation(self.links + other.links, self.null_src + other.null_src,
                          self.null_tgt + other.null_tgt, self.rules + other.rules + (rule,),
                          self.bispans + other.bispans + (bispan,))


def valid(a, c):
    return (a >= 1 and c >= 1) or (a, c) in ((1, 0), (0, 1))


def enumerate_derivations(p, q, keep=None, emit_allowed=None, ternary=False):
    """Every derivation of the pair, as Derivation objects.

    keep(i, j, k, l) -> bool: kept bispans (default: all); emit_allowed (bool (p, q)): allowed emissions.
    """
    keep = keep or (lambda i, j, k, l: True)

    def ok(i, j, k, l):
        return valid(j - i, l - k) and keep(i, j, k, l)

    @lru_cache(maxsize=None)
    def derive(i, j, k, l):
        a, c = j - i, l - k
        b = (i, j, k, l)
        out = []
        if (a, c) == (1, 0):
            return [Derivation(null_src=[(i, k)], bispans=[b])]
        if (a, c) == (0, 1):
            return [Derivation(null_tgt=[(k, i)], bispans=[b])]
        if (a, c) == (1, 1) and (emit_allowed is None or emit_allowed[i, k]):
            out.append(Derivation(links=[(i, k)], bispans=[b]))
        for m in range(i, j + 1):
            for n in range(k, l + 1):
                for kind, left, right in (("s", (i, m, k, n), (m, j, n, l)), ("i", (i, m, n, l), (m, j, k, n))):
                    if not (ok(*left) and ok(*right)):
                        continue
                    has_null = min(left[1] - left[0], left[3] - left[2], right[1] - right[0],
                                   right[3] - right[2]) == 0
                    if kind == "i" and has_null:
                        continue
                    if has_null:
                        rule = (ATTACH, 0.0)
                    else:
                        rule = (STRAIGHT if kind == "s" else INVERTED, mismatch(b, [left, right]))
                    for x in derive(*left):
                        for y in derive(*right):
                            out.append(x.join(y, rule, b))
        if ternary:
            for m1 in range(i + 1, j):
                for m2 in range(m1 + 1, j):
                    for t1 in range(k + 1, l):
                        for t2 in range(t1 + 1, l):
                            src = [(i, m1), (m1, m2), (m2, j)]
                            tgt = [(k, t1), (t1, t2), (t2, l)]
                            for r, perm in enumerate(PERMS):
                                kids = [src[s] + tgt[perm[s]] for s in range(3)]
                                if not all(ok(*kid) for kid in kids):
                                    continue
                                rule = (TERNARY + r, mismatch(b, kids))
                                for x in derive(*kids[0]):
                                    for y in derive(*kids[1]):
                                        for z in derive(*kids[2]):
                                            d = Derivation(x.links + y.links + z.links,
                                                           x.null_src + y.null_src + z.null_src,
                                                           x.null_tgt + y.null_tgt + z.null_tgt,
                                                           x.rules + y.rules + z.rules + (rule,),
                                                           x.bispans + y.bispans + z.bispans + (b,))
                                            out.append(d)
        return out

    if not ok(0, p, 0, q):
        return []
    return derive(0, p, 0, q)


def mismatch(parent, kids):
    i, j, k, l = parent
    return 0.5 * sum(abs((kj - ki) / (j - i) - (kl - kk) / (l - k)) for ki, kj, kk, kl in kids)


def statistics(d, p, q):
    """The sufficient statistics of a derivation, as the kernel reports their expectations."""
    emit = np.zeros((p, q))
    null_src = np.zeros(p)
    null_tgt = np.zeros(q)
    count = np.zeros(9)
    mis = np.zeros(9)
    for i, k in d.links:
        emit[i, k] += 1
    for i, _ in d.null_src:
        null_src[i] += 1
    for k, _ in d.null_tgt:
        null_tgt[k] += 1
    for kind, m in d.rules:
        count[kind] += 1
        mis[kind] += m
    return emit, null_src, null_tgt, count, mis


def score(d, emit, null_src, null_tgt, rule_w, mis_w):
    return (sum(emit[i, k] for i, k in d.links) + sum(null_src[i] for i, _ in d.null_src)
            + sum(null_tgt[k] for k, _ in d.null_tgt) + sum(rule_w[r] + mis_w[r] * m for r, m in d.rules))


def expectations(derivations, scores, p, q):
    """log Z and the expected statistics (emit, null_src, null_tgt, count, mismatch) over `derivations`."""
    scores = np.asarray(scores, dtype=float)
    log_z = np.logaddexp.reduce(scores)
    probs = np.exp(scores - log_z)
    totals = [np.zeros((p, q)), np.zeros(p), np.zeros(q), np.zeros(9), np.zeros(9)]
    for d, w in zip(derivations, probs):
        for total, part in zip(totals, statistics(d, p, q)):
            total += w * part
    return log_z, totals, probs
