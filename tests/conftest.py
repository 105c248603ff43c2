import os
import sys

from hypothesis import settings

# The brute-force oracle (tests/kernels/oracle.py) is shared by the kernel and cascade tests.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "kernels"))

settings.register_profile("ci", max_examples=25, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
