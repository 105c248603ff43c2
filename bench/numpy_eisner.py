"""The numpy yardstick of bench/kernels.py: first-order Eisner best tree, vectorised over the
spans of one width, so O(n) Python steps of O(n^2) numpy work each (the way a careful
numpy or torch implementation is written, e.g. SuPar's and torch-struct's stripes).

Same model and conventions as `vineparse.kernels.eisner`: scores[h, m], positions 0..n,
single root by default (C[0, t] only for t = n).
"""
import numpy as np


def eisner_numpy(scores, single_root=True):
    """Heads (int64, heads[0] = -1) of the highest-scoring projective tree."""
    scores = np.asarray(scores, dtype=np.float64)
    N = scores.shape[0]
    n = N - 1
    heads = np.full(N, -1, dtype=np.int64)
    if n == 0:
        return heads
    # complete spans: cr[s, t] head s reaching t (s <= t), cl[t, s] head t reaching s
    cr = np.full((N, N), -np.inf)
    cl = np.full((N, N), -np.inf)
    ir = np.full((N, N), -np.inf)          # ir[s, t]: arc s -> t;  il[t, s]: arc t -> s
    il = np.full((N, N), -np.inf)
    back_j = np.zeros((N, N), dtype=np.int64)
    back_cr = np.zeros((N, N), dtype=np.int64)
    back_cl = np.zeros((N, N), dtype=np.int64)
    diag = np.arange(N)
    cr[diag, diag] = cl[diag, diag] = 0.0
    for w in range(1, N):
        s = np.arange(N - w)
        t = s + w
        r = s[:, None] + np.arange(w)[None, :]                       # split points s .. t - 1
        # J[s, t] = max_r C[s, r] + C[t, r + 1]
        halves = cr[s[:, None], r] + cl[t[:, None], r + 1]
        best = halves.argmax(axis=1)
        J = halves[np.arange(len(s)), best]
        back_j[s, t] = r[np.arange(len(s)), best]
        ir[s, t] = J + scores[s, t]
        il[t, s] = np.where(s > 0, J + scores[t, s], -np.inf)
        # C[s, t] = max_{r in s + 1 .. t} I[s, r] + C[r, t]
        r1 = r + 1
        right = ir[s[:, None], r1] + cr[r1, t[:, None]]
        best = right.argmax(axis=1)
        cr[s, t] = right[np.arange(len(s)), best]
        back_cr[s, t] = r1[np.arange(len(s)), best]
        if single_root and w < n:
            cr[0, w] = -np.inf
        # C[t, s] = max_{r in s .. t - 1} C[r, s] + I[t, r]
        left = cl[r, s[:, None]] + il[t[:, None], r]
        best = left.argmax(axis=1)
        cl[t, s] = np.where(s > 0, left[np.arange(len(s)), best], -np.inf)
        back_cl[t, s] = r[np.arange(len(s)), best]
    # follow the back pointers from C[0, n]
    stack = [("C", 0, n)]
    while stack:
        kind, h, e = stack.pop()
        if h == e:
            continue
        if kind == "C":
            if h < e:
                m = back_cr[h, e]
                stack += [("I", h, m), ("C", m, e)]
            else:
                m = back_cl[h, e]
                stack += [("C", m, e), ("I", h, m)]
        else:                               # I[h, m]: the arc h -> m, then J of its span
            heads[e] = h
            lo, hi = min(h, e), max(h, e)
            split = back_j[lo, hi]
            stack += [("C", lo, split), ("C", hi, split + 1)]
    return heads
