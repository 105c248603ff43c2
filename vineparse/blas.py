"""thinc CPU ops on scipy's BLAS, for machines where blis runs its slow reference kernels.

thinc's `NumpyOps` multiplies matrices with blis (`ops.gemm`, and the `CBlas` that spaCy's parser calls from
C). blis picks its kernels from the CPU it detects; where it does not recognise the CPU (a virtualised AMD
EPYC here) it falls back to reference kernels, 2.5x slower than OpenBLAS on the same matrices. That slows every
tok2vec and spaCy's own parser. `ScipyBlasOps` is `NumpyOps` with every float32 matrix product on the
OpenBLAS that numpy and scipy ship: `ops.gemm` through numpy, `ops.cblas()` through `scipy.linalg.cython_blas`.
The numbers are the same products (parses agree; float sums may differ in the last bits).

thinc gives a model the current ops when the model is built, so call `use_scipy_blas()` before
`spacy.load` or `spacy.blank`:

    from vineparse.blas import use_scipy_blas
    use_scipy_blas()
    nlp = spacy.load("en_vineparse_ewt")

`bench/spacy_compare.py` measures speed with both ops (`--blas`), so that neither parser is timed on a
reference kernel the other does not use.
"""
from thinc.api import NumpyOps, registry, set_current_ops

from ._kernels.scipy_cblas import scipy_cblas


@registry.ops("ScipyBlasOps")
class ScipyBlasOps(NumpyOps):
    """`NumpyOps` whose `gemm` is numpy's (OpenBLAS) and whose `cblas()` is scipy's BLAS."""

    name = "scipy_blas"

    def __init__(self, device_type: str = "cpu", device_id: int = -1, **kwargs) -> None:
        kwargs.pop("use_blis", None)
        super().__init__(device_type=device_type, device_id=device_id, use_blis=False, **kwargs)
        self._cblas = scipy_cblas()

    def cblas(self):
        return self._cblas


def use_scipy_blas() -> ScipyBlasOps:
    """Make `ScipyBlasOps` thinc's current ops (for models built from now on) and return it."""
    ops = ScipyBlasOps()
    set_current_ops(ops)
    return ops
