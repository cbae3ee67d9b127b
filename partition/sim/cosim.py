"""Co-simulation of a build tree: the generated host code runs the app against the RTL.

`partition cosim DIR` (the tree's `make cosim`) builds `rtl/cosim_top.v` — every FPGA
kernel with built-in RTL side by side — with Verilator, runs the app through
`host/run_app.py`'s machinery with the runtime's `sim` backend inside a cocotb test
(`tests/cosim_tb.py`), and compares the app's output with a plain run of the app on the
CPU. The two kernels of an AXI-Stream chain both run in RTL, the producer streaming straight
into the consumer inside `cosim_top`. Kernels without built-in RTL (floating point) run on the
CPU in co-simulation, and so does a chained kernel whose partner has none (its stream would
have no other end); the result says which. The result lands in DIR/results/cosim.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from partition.errors import PartitionError
from partition.sim import verilator

COSIM_TOP = "cosim_top"


def _plan(tree: Path) -> dict[str, Any]:
    try:
        return json.loads((tree / "plan.json").read_text())
    except (OSError, ValueError) as e:
        raise PartitionError(f"{tree}/plan.json: cannot read the plan ({e}); is {tree} a build tree?") from e


def _spec(tree: Path) -> tuple[Path, dict[str, Any]]:
    specs = sorted((tree / "host").glob("*_kernels.json"))
    if len(specs) != 1:
        raise PartitionError(f"{tree}/host: no kernel spec; the plan has no FPGA kernels to co-simulate")
    return specs[0], json.loads(specs[0].read_text())


def _simulated(plan: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The kernels co-simulated in RTL: those with built-in RTL, less a chained kernel whose
    chain partner runs on the CPU (repeatedly, along a longer chain); and why each other FPGA
    task runs on the CPU."""
    tasks = {t["name"]: t for t in plan["tasks"] if t["placement"] == "fpga"}
    sim = {n for n, t in tasks.items() if t.get("rtl", {}).get("status") == "built"}
    why = {n: "no built-in RTL" for n in tasks if n not in sim}
    changed = True
    while changed:
        changed = False
        for c in plan.get("chains", []):
            for end, partner in ((c["src"], c["dst"]), (c["dst"], c["src"])):
                if end in sim and partner not in sim:
                    sim.discard(end)
                    why[end] = f"chained to {partner}, which runs on the CPU"
                    changed = True
    return [t["kernel"] for n, t in tasks.items() if n in sim], dict(sorted(why.items()))


def plain_run(tree: Path, app: str, args: list[str], timeout: float) -> subprocess.CompletedProcess:
    """The app alone, on the CPU, from the host folder (the reference output)."""
    return subprocess.run(
        [sys.executable, app, *args],
        cwd=tree / "host",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def cosim(
    tree: Path, *, args: list[str] | None = None, waves: bool = False, timeout: float = 3600
) -> dict[str, Any]:
    tree = Path(tree).resolve()
    plan = _plan(tree)
    spec_path, spec = _spec(tree)
    built, on_cpu_why = _simulated(plan)
    on_cpu = list(on_cpu_why)
    if not built:
        raise PartitionError(f"{tree}: no FPGA kernel has built-in RTL, so there is nothing to co-simulate")
    app_args = list(plan["argv"] if args is None else args)
    run_dir = tree / "results" / "cosim"
    run_dir.mkdir(parents=True, exist_ok=True)
    # the spec the simulated runtime uses: the kernels that exist in the simulation
    sim_spec = dict(spec, kernels=[k for k in spec["kernels"] if k["name"] in built])
    tasks = {k["task"] for k in sim_spec["kernels"]}
    if "chains" in spec:  # both ends are simulated (`_simulated`)
        sim_spec["chains"] = [c for c in spec["chains"] if {c["producer"], c["consumer"]} <= tasks]
    sim_spec_path = tree / "host" / "cosim" / spec_path.name
    sim_spec_path.parent.mkdir(parents=True, exist_ok=True)
    sim_spec_path.write_text(json.dumps(sim_spec, indent=1, sort_keys=True) + "\n")
    sources = sorted(p for k in built for p in (tree / "rtl" / k).glob("*.v"))
    sources.append(tree / "rtl" / f"{COSIM_TOP}.v")
    t0 = time.perf_counter()
    model = verilator.build(sources, COSIM_TOP, tree / "rtl" / "cosim_build", waves=waves)
    built_s = time.perf_counter() - t0
    out = run_dir / "app_stdout.txt"
    stats = run_dir / "run_app_stats.json"
    for p in (out, stats):
        p.unlink(missing_ok=True)
    t1 = time.perf_counter()
    res = verilator.run_test(
        model,
        "cosim_tb",
        run_dir,
        module_dir=tree / "tests",
        extra_env={
            "PARTITION_COSIM_TREE": str(tree),
            "PARTITION_COSIM_SPEC": str(sim_spec_path),
            "PARTITION_COSIM_OUT": str(out),
            "PARTITION_COSIM_STATS": str(stats),
            "PARTITION_COSIM_ARGS": json.dumps(app_args),
        },
        waves=waves,
    )
    sim_s = time.perf_counter() - t1
    ref = plain_run(tree, spec["app"]["file"], app_args, timeout)
    got = out.read_text() if out.is_file() else ""
    same = ref.returncode == 0 and got == ref.stdout
    st = json.loads(stats.read_text()) if stats.is_file() else {}
    ok = not res.error and not res.failed and bool(res.passed) and same
    record: dict[str, Any] = {
        "format": "partition-result/1",
        "step": "cosim",
        "status": "pass" if ok else ("error" if res.error else "fail"),
        "kernels": built,
        "on_cpu": on_cpu,
        "on_cpu_why": on_cpu_why,
        "app_args": app_args,
        "output_matches_cpu_run": same,
        "build_s": round(built_s, 3),
        "sim_s": round(sim_s, 3),
        "run_app": st,
        "junit": str((run_dir / "results.xml").relative_to(tree)),
    }
    if not ok:
        detail = res.error or ""
        if res.failed:
            detail += f"\ntest failed:\n{res.log_tail()}"
        if ref.returncode != 0:
            detail += f"\nthe plain CPU run failed ({ref.returncode}): {ref.stderr[-2000:]}"
        elif not same:
            detail += "\nthe app's output differs from the plain CPU run:\n" + _diff(ref.stdout, got)
        record["detail"] = detail.strip()
    (tree / "results").mkdir(exist_ok=True)
    (tree / "results" / "cosim.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def _diff(want: str, got: str, limit: int = 30) -> str:
    import difflib

    lines = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "cpu", "cosim", lineterm="", n=1))
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")
