"""Frontend-only probe: which realpy functions partition accepts today, and why the others not.

    python benchmarks/realpy/_probe.py [--json out.json]

Each INPUTS case is profiled and translated the way benchmarks/bench_acceptance.py does it
(partition.fuzz.golden + partition.frontend.translate), without code generation or
simulation, and the result is compared with the module's SCOPE label.
"""

import argparse
import importlib.util
import inspect
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from partition.frontend import Rejected, translate  # noqa: E402
from partition.fuzz import golden  # noqa: E402
from partition.fuzz.gen import Case  # noqa: E402

SEED = 2024


def probe() -> list[dict]:
    rows = []
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"realpy_probe_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        source = path.read_text()
        functions = [
            n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__
        ]
        for k, (name, inputs) in enumerate(sorted(module.INPUTS.items())):
            calls = inputs(np.random.default_rng(SEED + k))
            helpers = [f for f in functions if f != name and not f.startswith("_")]
            case = Case(k, name, source, calls, False, helpers)
            with tempfile.TemporaryDirectory(prefix="realpy-probe-") as d:
                try:
                    g = golden.run_golden(case, Path(d))
                    if g.error:
                        status, reason = "invalid", g.error
                    else:
                        kernel = translate(g.functions[name], Path(d), g.functions)
                        rejected = isinstance(kernel, Rejected)
                        status, reason = ("rejected", kernel.reason) if rejected else ("accepted", "")
                except Exception as e:  # a crash of the tool is a finding too
                    status, reason = "crash", f"{type(e).__name__}: {e}"
            rows.append(
                {
                    "module": path.stem,
                    "function": name,
                    "scope": module.SCOPE[name],
                    "status": status,
                    "reason": reason,
                }
            )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = probe()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    per_module = {}
    for r in rows:
        c = per_module.setdefault(r["module"], Counter())
        c[("in" if r["scope"] == "in" else "out", r["status"])] += 1
    for module, c in per_module.items():
        print(f"{module}: " + ", ".join(f"{s} {st} {n}" for (s, st), n in sorted(c.items())))
    ins = [r for r in rows if r["scope"] == "in"]
    ok = sum(r["status"] == "accepted" for r in ins)
    print(
        f"labelled in: {len(ins)}, accepted {ok}; labelled out but accepted: "
        f"{[r['function'] for r in rows if r['scope'] != 'in' and r['status'] == 'accepted']}"
    )
    reasons = Counter()
    for r in ins:
        if r["status"] != "accepted":
            reason = re.sub(r"^\S+?\.py:\d+: ", "", r["reason"])
            reason = re.sub(r"\s*\(add `# partition.*", "", reason)
            reason = re.sub(r"argument \w+ is", "argument X is", reason)
            reasons[f"{r['status']}: {reason[:110]}"] += 1
    for reason, n in reasons.most_common():
        print(f"  x{n} {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
