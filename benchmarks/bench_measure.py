"""`partition measure` on the examples: serial against a Dask LocalCluster, and what measuring changes.

    python -m benchmarks.bench_measure                  # what `make bench` runs
    python -m benchmarks.bench_measure --examples fir_pipeline --tools yosys

Each example is profiled and planned for pynq-z2 into a build tree; every variant of every
FPGA-capable kernel (`--variants all`) is then measured twice without a cache: one job after
another in this process (`--workers 1`) and on a LocalCluster of one worker process per core
(this machine's). The records must be identical. The tree is then re-planned with
`--calibrate` (every measured variant's cycles and resources in place of the estimates) and
the decisions compared: which functions are on the FPGA, in which variant, and the predicted
time.

Writes benchmarks/results/measure.md and benchmarks/results/measure.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.result_files import write_results  # noqa: E402
from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.codegen import build_tree  # noqa: E402
from partition.fsutil import write_tree  # noqa: E402
from partition.measure import TOOLS, jobs_for_tree, passed, run_jobs  # noqa: E402
from partition.measure import result_files as measure_result_files  # noqa: E402
from partition.plan import Options, make_plan  # noqa: E402
from partition.profile import run_profile  # noqa: E402

BOARD = "pynq-z2"


def _placements(plan) -> dict[str, str]:
    return {t["name"]: t.get("variant", "base") for t in plan.data["tasks"] if t["placement"] == "fpga"}


def example_row(name: str, tmp: Path, tools: tuple[str, ...], workers: int) -> dict:
    app = ROOT / "examples" / f"{name}.py"
    board = load_board(BOARD)
    profile = run_profile(app, [], samples=3, baseline=False)
    plan = make_plan(profile, app.parent, board, Options())
    files, exe = build_tree(plan, profile, board, app.read_bytes())
    tree = tmp / name
    write_tree(tree, files, exe)
    jobs, skipped = jobs_for_tree(tree, tools=tools)
    load = [os.getloadavg()[0]]  # other work on the machine skews the ratio: recorded beside it
    t0 = time.perf_counter()
    serial, _ = run_jobs(jobs, workers=1, cache=None, progress=sys.stderr)
    serial_s = time.perf_counter() - t0
    load.append(os.getloadavg()[0])
    t1 = time.perf_counter()
    cluster, _ = run_jobs(jobs, workers=workers, cache=None, progress=sys.stderr)
    cluster_s = time.perf_counter() - t1
    load.append(os.getloadavg()[0])
    for path, data in measure_result_files(tree, cluster).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    calibrated = make_plan(profile, app.parent, board, Options(calibrate=tree))
    before, after = _placements(plan), _placements(calibrated)
    return {
        "example": name,
        "kernels": len({j.kernel for j in jobs}),
        "jobs": len(jobs),
        "skipped": skipped,
        "failed": [f"{r['kernel']} {r['variant']}" for r in cluster if not passed(r)],
        "serial_s": serial_s,
        "cluster_s": cluster_s,
        "load": load,
        "identical": serial == cluster,
        "estimated": {"fpga": before, "predicted_s": plan.data["predicted"]["plan_s"]},
        "calibrated": {
            "fpga": after,
            "predicted_s": calibrated.data["predicted"]["plan_s"],
            "measured_estimates": calibrated.data["model"]["measured_estimates"],
        },
        "changed": sorted(
            f"{t}: {before.get(t, 'CPU')} -> {after.get(t, 'CPU')}"
            for t in set(before) | set(after)
            if before.get(t) != after.get(t)
        ),
    }


def markdown(rows: list[dict], env: dict) -> str:
    out = [
        "# partition measure: every kernel variant through the tools, serial and on Dask",
        "",
        f"{env['machine']} ({env['cores']} cores), Python {env['python']}; tools {', '.join(env['tools'])}; "
        f"board {BOARD}. Each example's build tree measured with `--variants all`, no cache: one job after "
        f"another in one process, then on a Dask LocalCluster of {env['workers']} single-threaded worker "
        "processes, both with ccache disabled. A ratio is only meaningful with the machine otherwise idle (load about 0 before the "
        "runs). Produced by `benchmarks/bench_measure.py`.",
        "",
        "| example | kernels | variants measured | skipped | failed | serial | LocalCluster | ratio | records identical | load (1-min average: before, between, after) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['example']} | {r['kernels']} | {r['jobs']} | {len(r['skipped'])} | {len(r['failed'])} | "
            f"{r['serial_s']:.0f} s | {r['cluster_s']:.0f} s | {r['serial_s'] / r['cluster_s']:.2f}× | "
            f"{'yes' if r['identical'] else 'NO'} | {', '.join(f'{x:.1f}' for x in r['load'])} |"
        )
    out += [
        "",
        "Plans re-made with `--calibrate` (measured cycles and resources of every variant):",
        "",
        "| example | estimates replaced | predicted (estimated) | predicted (calibrated) | decisions changed |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['example']} | {r['calibrated']['measured_estimates']} | {r['estimated']['predicted_s']:.4g} s | "
            f"{r['calibrated']['predicted_s']:.4g} s | {'; '.join(r['changed']) or 'none'} |"
        )
    skipped = [f"{r['example']}: {s}" for r in rows for s in r["skipped"]]
    if skipped:
        out += ["", "Variants the built-in RTL does not build (not measured):", ""]
        out += [f"- {s}" for s in skipped]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", nargs="*", default=list(EXAMPLES))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    tools = tuple(t for t in args.tools.split(",") if t)
    # the serial run would fill ccache and the LocalCluster run after it would compile from it:
    # both compile from scratch instead (the workers inherit this environment)
    os.environ["CCACHE_DISABLE"] = "1"
    with tempfile.TemporaryDirectory(prefix="partition-bench-measure-") as tmp:
        rows = [example_row(name, Path(tmp), tools, args.workers) for name in args.examples]
    env = {
        "machine": f"{platform.machine()} {platform.processor() or platform.system()}",
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "tools": list(tools),
        "workers": args.workers,
    }
    write_results(args.out, "measure", {"env": env, "rows": rows}, markdown(rows, env))
    return 0 if all(r["identical"] and not r["failed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
