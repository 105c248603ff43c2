"""Input checks and output helpers shared by every kernel's Python entry points."""
import numpy as np


def square_scores(scores, name="scores"):
    """`scores` as a C-contiguous float64 (n + 1, n + 1) array, checked."""
    array = np.asarray(scores)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real-valued array, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n + 1, n + 1), got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.max() < np.inf:        # one pass, no temporaries: NaN and +inf both fail it
        return array
    if np.isnan(array).any():
        h, m = np.argwhere(np.isnan(array))[0]
        raise ValueError(f"{name} contains NaN (first at [{h}, {m}])")
    h, m = np.argwhere(np.isposinf(array))[0]
    raise ValueError(f"{name} contains +inf (first at [{h}, {m}])")


def allowed_arcs(scores, mask):
    """The uint8 (n + 1, n + 1) matrix of usable arcs: mask, finite score, no
    arc into the root, no self-loop."""
    allowed = np.isfinite(scores)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise ValueError(f"mask must be a boolean array, got dtype {mask.dtype}")
        if mask.shape != scores.shape:
            raise ValueError(f"mask has shape {mask.shape} but scores have shape {scores.shape}")
        allowed &= mask
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    return np.ascontiguousarray(allowed, dtype=np.uint8)


class NoStructureError(ValueError):
    """The mask (or the -inf scores) admit no structure at all."""


def no_tree_error(allowed, what="projective tree", otherwise=""):
    """The NoStructureError naming the first word without an allowed head, or else `otherwise`."""
    headless = np.flatnonzero(~allowed[:, 1:].any(axis=0)) + 1
    detail = f": word {headless[0]} has no allowed head" if len(headless) else otherwise
    return NoStructureError(f"the arc mask admits no {what}{detail}")


def sample_count(count):
    """`count` checked: an integer >= 0."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count!r}")
    return int(count)


def parts_size(mask, n, what):
    """n + 1 for a part layout (`what` names the caller): from `mask`, a square (n + 1, n + 1) arc mask, with `n`
    checked against it when given, or from `n` alone when `mask` is None. RAISES (ValueError): neither given,
    n < 0, a mask that is not square or disagrees with n."""
    if mask is None:
        if n is None:
            raise ValueError(f"{what} needs a mask or the sentence length n")
        if int(n) < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        return int(n) + 1
    shape = np.shape(mask)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise ValueError(f"mask must have shape (n + 1, n + 1), got {shape}")
    if n is not None and int(n) + 1 != shape[0]:
        raise ValueError(f"mask has shape {shape} but n = {n}")
    return shape[0]
