"""Run every runtime scenario (scenarios.py) in this interpreter: selftest.py SPEC.json RUNTIME_DIR.

Used to check the runtime under the board's Python and numpy < 2, where partition
itself (Python >= 3.11) cannot be imported.
"""

import sys
import traceback
from pathlib import Path

spec, runtime_dir = Path(sys.argv[1]), sys.argv[2]
sys.path.insert(0, runtime_dir)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import scenarios  # noqa: E402

failed = 0
for name, fn in scenarios.SCENARIOS.items():
    try:
        fn(spec)
        print(f"ok {name}")
    except Exception:
        failed += 1
        print(f"FAIL {name}")
        traceback.print_exc(file=sys.stdout)
print(
    f"python {sys.version.split()[0]} numpy {np.__version__}: {len(scenarios.SCENARIOS) - failed} passed, {failed} failed"
)
sys.exit(1 if failed else 0)
