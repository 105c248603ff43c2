import os
import sys

from hypothesis import settings

# The kernel tests import their brute-force oracle as a sibling module.
sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("ci", max_examples=25, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
