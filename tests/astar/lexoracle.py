"""Brute force for the A* tests: tiny random grammars and costs, and every derivation of a sentence.

``enumerate_derivations`` lists every lexicalized derivation (two layers, as in vineparse.astar.treebank)
of a sentence under a grammar by plain recursion, with the cost of each computed from the rule-cost
definition written out again here (not the kernels' code). From the full list it gives the optimum, the
inside cost of every lexicalized item (best sub-derivation) and its max-marginal (best complete derivation
containing it), hence true outside costs. Fine for n <= 4 with the grammars of ``random_grammar``.

``dependency_oracle`` enumerates every projective dependency tree (via tests/kernels/oracle.py) with the
dependency projection's cost, for the projection chart's best cost, inside and max-marginal values; its
items are a head's partial spans (after its p closest left and q closest right dependents), which is what
the chart's items D(h, i, j) are.
"""
import importlib.util
import os
from functools import lru_cache

import numpy as np

from vineparse.astar.grammar import Grammar
from vineparse.astar.model import SentenceCosts
from vineparse.astar.treebank import BAR, HEAD_LEFT, PHRASE, ROOT_SYMBOL, TAG

# The kernels' brute force of projective trees, loaded by path under its own name (both test folders are
# on sys.path, so a plain `import oracle` would pick whichever came first).
_spec = importlib.util.spec_from_file_location(
    "vineparse_kernels_oracle", os.path.join(os.path.dirname(__file__), "..", "kernels", "oracle.py"))
_kernels_oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels_oracle)
projective_trees = _kernels_oracle.projective_trees

EXAMPLES = 8 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 25


def random_grammar(rng, n_phrases=2, n_tags=2, density=0.2):
    """A small grammar: tags T0.., phrases P0.. and one intermediate symbol, random binary and unary rules,
    every identity, and ROOT over every phrase (so most tag sequences parse)."""
    tags = [(TAG, f"T{k}", "", ()) for k in range(n_tags)]
    phrases = [(PHRASE, f"P{k}", "", ()) for k in range(n_phrases)] + [(BAR, "P0", "", ("x",))]
    symbols = tags + phrases + [ROOT_SYMBOL]
    index = {s: i for i, s in enumerate(symbols)}
    children = tags + phrases
    binary = set()
    for parent in phrases:
        for left in children:
            for right in children:
                for side in (0, 1):
                    if rng.random() < density:
                        binary.add((index[parent], index[left], index[right], side))
    unary = {(index[s], index[s], None) for s in children}
    for top in phrases:
        for bottom in children:
            if top != bottom and rng.random() < density:
                unary.add((index[top], index[bottom], ()))
    for phrase in phrases:
        unary.add((index[ROOT_SYMBOL], index[phrase], ()))
    if rng.random() < 0.5:                                  # a chain with an interior symbol
        unary.add((index[phrases[0]], index[tags[0]], (index[phrases[-1]],)))
    return Grammar(symbols, sorted(binary), sorted(unary))


def random_costs(rng, grammar, n, factored=False, scale=3.0):
    """Random non-negative sentence costs; factored ones split into CFG and dependency parts."""
    R, U = grammar.n_binary, grammar.n_unary
    if factored:
        cfg_b, cfg_u = rng.random(R) * scale, rng.random(U) * scale
        return SentenceCosts(np.repeat(cfg_b[:, None], n, 1), np.repeat(cfg_u[:, None], n, 1),
                             rng.random((1, n, n, 2)) * scale, rng.random((n, 2, 2)) * scale, rng.random(n) * scale,
                             np.zeros(R, dtype=np.int32), cfg_binary=cfg_b, cfg_unary=cfg_u)
    K = 3
    return SentenceCosts(rng.random((R, n)) * scale, rng.random((U, n)) * scale, rng.random((K, n, n, 2)) * scale,
                         rng.random((n, 2, 2)) * scale, rng.random(n) * scale,
                         rng.integers(0, K, size=R).astype(np.int32))


def _close(c, a, s, e):
    return c.stop_cost[a, 0, int(s == a)] + c.stop_cost[a, 1, int(e == a + 1)]


def enumerate_derivations(grammar, costs, tag_ids):
    """Every derivation of ROOT over the sentence.

    RETURNS (dict): "best" (inf if none), "count", "inside" {item: best inside cost}, "maxmarg" {item: best
        total through it}, "costs" (sorted totals); an item is (symbol, head, start, end, layer).
    """
    n = len(tag_ids)
    g = grammar

    @lru_cache(maxsize=None)
    def subs(X, i, j, layer):
        """[(inside cost, head, frozenset of items)] for every sub-derivation of X[i, j] in layer."""
        out = []
        if layer == 0:
            if j - i == 1:
                if tag_ids[i] == X:
                    out.append((0.0, i, frozenset({(X, i, i, j, 0)})))
                return out
            for r in range(g.binary_ptr[X], g.binary_ptr[X + 1]):
                Y, Z, side = g.binary_left[r], g.binary_right[r], g.binary_side[r]
                for k in range(i + 1, j):
                    for lc, lh, litems in subs(Y, i, k, 1):
                        for rc, rh, ritems in subs(Z, k, j, 1):
                            if side == HEAD_LEFT:
                                h, a, adj, span = lh, rh, int(k == lh + 1), (k, j)
                            else:
                                h, a, adj, span = rh, lh, int(k == rh), (i, k)
                            w = (costs.rule_cost[r, h] + costs.arc_cost[costs.rule_key[r], h, a, adj]
                                 + _close(costs, a, *span))
                            out.append((lc + rc + w, h, litems | ritems | {(X, h, i, j, 0)}))
            return out
        if X == g.root and (i, j) != (0, n):
            return out
        for u in range(g.unary_ptr[X], g.unary_ptr[X + 1]):
            for cc, h, items in subs(g.unary_child[u], i, j, 0):
                w = costs.unary_cost[u, h]
                if X == g.root:
                    w += costs.root_cost[h] + _close(costs, h, 0, n)
                out.append((cc + w, h, items | {(X, h, i, j, 1)}))
        return out

    full = subs(g.root, 0, n, 1)
    inside, maxmarg = {}, {}
    for X in range(g.n_symbols):
        for i in range(n):
            for j in range(i + 1, n + 1):
                for layer in (0, 1):
                    for cost, h, _ in subs(X, i, j, layer):
                        key = (X, h, i, j, layer)
                        inside[key] = min(inside.get(key, np.inf), cost)
    for cost, _, items in full:
        for item in items:
            maxmarg[item] = min(maxmarg.get(item, np.inf), cost)
    totals = sorted(c for c, _, _ in full)
    return {"best": totals[0] if totals else np.inf, "count": len(totals), "inside": inside,
            "maxmarg": maxmarg, "costs": totals}


def dependency_oracle(arc, stop, root):
    """Every projective single-rooted tree under dependency-projection costs (arc[h, a, adj], stop[w, side,
    adj], root[h]; 0-based words): best cost, and for each item (h, i, j) = "h with the dependents that make
    its span [i, j)" its inside cost (those arcs, their subtrees and closing costs) and max-marginal."""
    n = root.shape[0]
    inside, maxmarg, best = {}, {}, np.inf
    for heads in projective_trees(n, single_root=True):
        parent = [int(x) - 1 for x in heads[1:]]             # 0-based, -1 for the root
        kids = [[a for a in range(n) if parent[a] == h] for h in range(n)]
        lo, hi = list(range(n)), [w + 1 for w in range(n)]

        def span(h):
            s, e = h, h + 1
            for a in kids[h]:
                cs, ce = span(a)
                s, e = min(s, cs), max(e, ce)
            lo[h], hi[h] = s, e
            return s, e

        r = parent.index(-1)
        span(r)

        def attach(h, a, closest):
            return arc[h, a, int(closest)] + _stop_close(stop, a, lo[a], hi[a]) + cost_below(a)

        def cost_below(h):
            return sum(attach(h, a, a == max(b for b in kids[h] if b < h) if a < h
                              else a == min(b for b in kids[h] if b > h)) for a in kids[h])

        total = cost_below(r) + root[r] + _stop_close(stop, r, 0, n)
        best = min(best, total)
        for h in range(n):
            # h's partial spans: after attaching its p closest left and q closest right dependents.
            left = sorted((a for a in kids[h] if a < h), reverse=True)
            right = sorted(a for a in kids[h] if a > h)
            for p in range(len(left) + 1):
                for q in range(len(right) + 1):
                    i = lo[left[p - 1]] if p else h
                    j = hi[right[q - 1]] if q else h + 1
                    below = (sum(attach(h, a, k == 0) for k, a in enumerate(left[:p]))
                             + sum(attach(h, a, k == 0) for k, a in enumerate(right[:q])))
                    key = (h, i, j)
                    inside[key] = min(inside.get(key, np.inf), below)
                    maxmarg[key] = min(maxmarg.get(key, np.inf), total)
    return best, inside, maxmarg


def _stop_close(stop, a, s, e):
    return stop[a, 0, int(s == a)] + stop[a, 1, int(e == a + 1)]
