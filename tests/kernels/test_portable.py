"""The kernels' portable paths, which CPUs without AVX2 + FMA run: the tests that reach `vexp.h`, `dense.h`,
`relu_dot.h` and `lstm_gates.h` rerun in a child process with VINEPARSE_NO_AVX2 set (each kernel module reads
it once, so it takes a fresh process)."""
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
# the BiLSTM (lstm_gates.h), first-order marginals and max-marginals on the dense charts (dense.h, vexp.h),
# second- and third-order marginals (the Log semiring's vexp.h) and the fused part kernel (relu_dot.h)
PORTABLE_TESTS = ["kernels/test_bilstm.py", "kernels/test_eisner.py", "kernels/test_second_order.py",
                  "kernels/test_third_order.py", "pipeline/test_scorers.py::test_fused_cpu_part_scores_equal_the_layer"]


def child(*args, no_avx2=True):
    env = {**os.environ, "VINEPARSE_NO_AVX2": "1" if no_avx2 else "0"}
    # run from tests/, where no source tree of the package shadows the installed one
    return subprocess.run([sys.executable, *args], env=env, cwd=TESTS, capture_output=True, text=True)


def test_the_switch_reaches_the_kernels():
    probe = "from vineparse._kernels.bilstm import uses_avx2; print(uses_avx2())"
    assert child("-c", probe).stdout.strip() == "False"
    from vineparse._kernels.bilstm import uses_avx2
    assert child("-c", probe, no_avx2=False).stdout.strip() == str(uses_avx2())


def test_the_portable_paths_pass_the_kernel_tests():
    run = child("-m", "pytest", "-q", "-p", "no:cacheprovider", *(str(TESTS / t) for t in PORTABLE_TESTS))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout
