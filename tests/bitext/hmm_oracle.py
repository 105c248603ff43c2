"""Brute force for the HMM alignment model: enumerate every alignment of a generated sentence.

Written from the model's definition (vineparse/_kernels/hmm_align.pyx docstring), not from the chart: an
alignment gives each generated word a position of the generating sentence or NULL; NULL remembers the last
position aligned before it (-1 at the start). Fine for p, q <= 4.
"""
from itertools import product

import numpy as np

NULL = -1


def clamp(d, b):
    return max(-b, min(b, d))


def transition(i, m, p, jump, p0):
    """P(next state | memory m): a position i, or NULL (i == NULL)."""
    if i == NULL:
        return p0
    b = (len(jump) - 1) // 2
    buckets = [clamp(x - m, b) for x in range(p)]
    total = sum(jump[d + b] for d in set(buckets))
    if total == 0:
        return 0.0
    return (1 - p0) * jump[clamp(i - m, b) + b] / (buckets.count(clamp(i - m, b)) * total)


def alignments(log_emit, log_null, jump, p0):
    """[(alignment tuple, log weight, jump widths of the moves into positions)] of every alignment."""
    q, p = log_emit.shape
    b = (len(jump) - 1) // 2
    out = []
    for states in product([NULL] + list(range(p)), repeat=q):
        memory, weight, widths = -1, 0.0, []
        for k, s in enumerate(states):
            t = transition(s, memory, p, jump, p0)
            weight += (np.log(t) if t > 0 else -np.inf) + (log_null[k] if s == NULL else log_emit[k, s])
            if s != NULL:
                widths.append(clamp(s - memory, b))
                memory = s
        out.append((states, weight, widths))
    return out


def brute_force(log_emit, log_null, jump, p0):
    """Everything `hmm_align.posteriors` and `hmm_align.viterbi` return, by enumeration."""
    q, p = log_emit.shape
    b = (len(jump) - 1) // 2
    every = alignments(log_emit, log_null, jump, p0)
    weights = np.array([w for _, w, _ in every])
    log_z = np.logaddexp.reduce(weights) if np.isfinite(weights).any() else -np.inf
    post, null, jumps = np.zeros((q, p)), np.zeros(q), np.zeros(2 * b + 1)
    if np.isfinite(log_z):
        for states, w, widths in every:
            prob = np.exp(w - log_z)
            for k, s in enumerate(states):
                if s == NULL:
                    null[k] += prob
                else:
                    post[k, s] += prob
            for d in widths:
                jumps[d + b] += prob
    best = int(np.argmax(weights))
    return {"log_likelihood": log_z, "post": post, "null": null, "jumps": jumps,
            "best": weights[best], "viterbi": np.array(every[best][0])}
