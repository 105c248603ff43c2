"""Compiled dynamic programs (Cython). Use them through `vineparse.kernels`."""
import os as _os

try:
    from . import hypergraph  # noqa: F401  (fails here if the extensions were never built)
except ImportError as _err:  # pragma: no cover - depends on how vineparse was installed
    raise ImportError(
        f"vineparse's compiled kernels are missing in {_os.path.dirname(__file__)}: this is an "
        "unbuilt source tree. Install the package (`make install` or `pip install .`) and run from "
        "outside the source folder, or build in place with `pip install -e .`."
    ) from _err
