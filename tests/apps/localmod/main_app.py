"""Imports its own helper modules and a package (profiler tests)."""

import helpers
import numpy as np
from pkg import ops

if __name__ == "__main__":
    a = np.arange(8, dtype=np.int32)
    b = helpers.double(a)
    c = ops.inc(b)
    helpers.bump()
    helpers.bump()
    print(int(c.sum()), helpers.COUNTER)
