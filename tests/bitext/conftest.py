import os
import sys

# The bitext tests import their brute-force oracle (itg_oracle.py) as a sibling module.
sys.path.insert(0, os.path.dirname(__file__))
