"""The bundled examples' build trees and the RTL verification of their kernels, shared by
the test session (see conftest.py).

Run as a program (`python example_trees.py DIR`), it builds the trees under DIR, writes
DIR/trees.json, then lints, simulates and synthesizes every kernel with built-in RTL one
job at a time and writes DIR/rtl_results.json. The test session starts it in the
background when it will need those results: the RTL jobs are the suite's longest work and
mostly run while the other tests keep the second core busy.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a program: the checkout's examples/ (and partition/)
    sys.path.insert(0, str(ROOT))

from examples import NAMES as EXAMPLES  # noqa: E402


def build_examples(base: Path) -> dict[str, Path]:
    """Profile, plan and write the build tree of every example (pynq-z2) under `base`."""
    from partition.boards import load_board
    from partition.codegen import build_tree
    from partition.fsutil import write_tree
    from partition.plan import Options, make_plan
    from partition.profile import run_profile

    board = load_board("pynq-z2")
    out = {}
    for name in EXAMPLES:
        app = ROOT / "examples" / f"{name}.py"
        profile = run_profile(app, [], samples=3, baseline=False)
        plan = make_plan(profile, app.parent, board, Options())
        files, exe = build_tree(plan, profile, board, app.read_bytes())
        write_tree(base / name, files, exe)
        out[name] = base / name
    return out


def rtl_jobs(trees: dict[str, Path]) -> list:
    """lint, sim and synth of every example kernel that has built-in RTL."""
    from partition.sim import flow

    jobs = []
    for tree in trees.values():
        data = json.loads((tree / "plan.json").read_text())
        for t in data["tasks"]:
            if t["placement"] != "fpga" or t.get("rtl", {}).get("status") != "built":
                continue
            k = t["kernel"]
            jobs += [
                (flow.sim_kernel, (tree, k), {}),
                (flow.synth_kernel, (tree, k, "xc7"), {}),
                (flow.lint_kernel, (tree, k), {}),
            ]
    return jobs


def rtl_results(trees: dict[str, Path], workers: int) -> dict[str, dict]:
    """{"kernel/step": result record} of every job."""
    from partition.sim import flow

    return {f"{r['kernel']}/{r['step']}": r for r in flow.run_jobs(rtl_jobs(trees), workers)}


def main(base: Path) -> int:
    base.mkdir(parents=True, exist_ok=True)
    try:
        trees = build_examples(base)
        (base / "trees.json").write_text(json.dumps({k: str(v) for k, v in trees.items()}))
        from partition.sim import verilator

        verilator.setup_environment()
        results = rtl_results(trees, 1)
        (base / "rtl_results.json").write_text(json.dumps(results, sort_keys=True))
    except BaseException:
        (base / "error.txt").write_text(traceback.format_exc())
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))
