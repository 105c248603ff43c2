"""Build script: cythonize every kernel in vineparse/_kernels with numpy headers and -O3."""
import glob
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3", "-fno-math-errno"]
# OpenMP threads for batches (vineparse/_kernels/parallel.pyx), where gcc or clang can link it;
# elsewhere batches run on one thread. VINEPARSE_NO_OPENMP=1 turns it off.
OPENMP = sys.platform.startswith("linux") and not os.environ.get("VINEPARSE_NO_OPENMP")
MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}


def kernel_extensions():
    extensions = []
    for pyx in sorted(glob.glob(os.path.join("vineparse", "_kernels", "*.pyx"))):
        module = os.path.splitext(pyx)[0].replace(os.sep, ".")
        openmp = ["-fopenmp"] if OPENMP and module.endswith(".parallel") else []
        # the LSTM gates' clamps vectorize only where comparisons may not trap (lstm_gates.h); no value changes
        gates = ["-fno-trapping-math"] if module.endswith(".bilstm") and sys.platform != "win32" else []
        extensions.append(
            Extension(
                module,
                [pyx],
                include_dirs=[numpy.get_include(), os.path.join("vineparse", "_kernels")],
                extra_compile_args=COMPILE_ARGS + openmp + gates,
                extra_link_args=openmp,
                define_macros=MACROS,
                libraries=[] if sys.platform == "win32" else ["m"],
            )
        )
    return extensions


setup(ext_modules=cythonize(kernel_extensions(), compiler_directives=DIRECTIVES))
