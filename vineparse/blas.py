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

or, in a config (`spacy train` and every later `spacy.load` of the pipeline), the callback that
`vineparse.pipeline.registrations` registers:

    [nlp]
    before_creation = {"@callbacks": "vineparse.scipy_blas.v1"}

`bench/spacy_compare.py` measures speed with both ops (`--blas`), so that neither parser is timed on a
reference kernel the other does not use.
"""
from typing import Callable

from thinc.api import NumpyOps, get_current_ops, registry, set_current_ops

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


def scipy_blas_before_creation() -> Callable[[type], type]:
    """An `[nlp] before_creation` callback (registered as `vineparse.scipy_blas.v1`): before the pipeline's
    models are built, make `ScipyBlasOps` the current ops if they are thinc's `NumpyOps` (a GPU or another
    backend chosen with `--gpu-id` or `require_gpu` is left as it is). Returns the language class unchanged."""
    def before_creation(lang_cls: type) -> type:
        if type(get_current_ops()) is NumpyOps:
            use_scipy_blas()
        return lang_cls
    return before_creation
