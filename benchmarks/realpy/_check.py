"""Run every realpy module's _selfcheck and every app, and print the in/out counts.

python benchmarks/realpy/_check.py
"""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = [
    "sorting",
    "dynamic_programming",
    "bits_and_numbers",
    "image_filters",
    "edge_detection",
    "dsp",
    "activations_ml",
    "matrix_and_geometry",
    "out_of_scope",
]


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"realpy_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    total_in = total = 0
    for name in MODULES:
        module = load(name)
        module._selfcheck()
        assert set(module.INPUTS) == set(module.SCOPE), name
        n_in = sum(1 for label in module.SCOPE.values() if label == "in")
        bad = [k for k, v in module.SCOPE.items() if v != "in" and not v.startswith("out: ")]
        assert not bad, (name, bad)
        total_in += n_in
        total += len(module.SCOPE)
        print(f"  {name}: {len(module.SCOPE)} functions, {n_in} in, {len(module.SCOPE) - n_in} out")
    print(
        f"corpus: {total} functions, {total_in} in ({100 * total_in / total:.1f} %), {total - total_in} out"
    )
    failed = 0
    for app in sorted((HERE / "apps").glob("app_*.py")):
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, str(app)], capture_output=True, text=True, timeout=60)
        seconds = time.monotonic() - t0
        ok = run.returncode == 0 and seconds < 5.0
        failed += not ok
        print(f"app {app.name}: {'OK' if ok else 'FAIL'} in {seconds:.2f} s")
        if run.returncode:
            print(run.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
