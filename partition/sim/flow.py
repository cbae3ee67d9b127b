"""Verifying a build tree's kernels: lint, RTL simulation and yosys synthesis.

The build tree's `make sim` / `make synth` run these through `partition sim DIR` and
`partition synth DIR`; the test suite calls them directly. Each step of each kernel
writes DIR/results/<kernel>/<step>.json in the format `partition.report.verification` reads
(`partition-result/1`), plus, for simulation, cocotb's JUnit XML beside it, so
`partition report DIR` shows what was verified.

Simulated cycles are reported twice: as measured against the AXI RAM model (whose
burst latencies are a few cycles), and normalised to the board's DDR latencies (the
burst latencies the plan assumed), which is the figure the estimate predicts.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from partition.errors import PartitionError

RESULT_FORMAT = "partition-result/1"


def _plan(tree: Path) -> dict[str, Any]:
    path = Path(tree) / "plan.json"
    try:
        return json.loads(path.read_text())
    except OSError as e:
        raise PartitionError(f"{path}: cannot read the plan ({e.strerror}); is {tree} a build tree?") from e
    except json.JSONDecodeError as e:
        raise PartitionError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from e


def rtl_kernels(tree: Path, only: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The plan's FPGA tasks with their RTL status, optionally just the named kernels."""
    tasks = [t for t in _plan(tree)["tasks"] if t["placement"] == "fpga"]
    if only:
        known = {t["kernel"] for t in tasks}
        missing = [k for k in only if k not in known]
        if missing:
            raise PartitionError(
                f"{tree}: no FPGA kernel {', '.join(missing)}; kernels: {', '.join(sorted(known)) or 'none'}"
            )
        tasks = [t for t in tasks if t["kernel"] in only]
    return tasks


def _kernel_hash(tree: Path, kernel: str) -> str | None:
    p = Path(tree) / "kernels" / f"{kernel}.json"
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


def write_result(tree: Path, kernel: str, step: str, record: dict[str, Any]) -> dict[str, Any]:
    out = {"format": RESULT_FORMAT, "kernel": kernel, "step": step, **record}
    digest = _kernel_hash(tree, kernel)
    if digest:
        out["kernel_sha256"] = digest
    path = Path(tree) / "results" / kernel / f"{step}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return out


def _sources(tree: Path, kernel: str) -> tuple[list[Path], str]:
    folder = Path(tree) / "rtl" / kernel
    manifest = folder / f"{kernel}_regmap.json"
    if not manifest.is_file():
        raise PartitionError(f"{folder}: no built-in RTL for kernel {kernel}")
    srcs = sorted(folder.glob("*.v"))
    top = kernel
    # the top module last, as Verilator's and yosys's -top need nothing else
    srcs.sort(key=lambda p: p.stem == top)
    return srcs, top


def normalised_cycles(run: dict[str, Any], read_latency: int, write_latency: int) -> int:
    """Cycles of one simulated call with the board's DDR latencies in place of the RAM model's."""
    return (
        int(run["cycles"])
        + sum(read_latency - lat for _beats, lat in run["read_bursts"])
        + sum(write_latency - lat for _beats, lat in run["write_bursts"])
    )


def lint_kernel(tree: Path, kernel: str) -> dict[str, Any]:
    from partition.sim import verilator

    srcs, top = _sources(tree, kernel)
    diags = verilator.lint(srcs, top)
    return write_result(
        tree,
        kernel,
        "lint",
        {
            "status": "pass" if not diags else "fail",
            "tool": "verilator --lint-only -Wall",
            "detail": diags[:20],
        },
    )


TIMEOUT_FLOOR_CYCLES = 5_000_000
TIMEOUT_MARGIN = 4  # × the estimate: the vectors include edge-case lengths, the estimate a typical call


def cycle_budget(estimate_cycles: int | None) -> int:
    """The cycles a testbench waits for ap_done before failing a call: a slow variant (a `seq`
    one, a big array) is not failed for being slow, a hung kernel still is."""
    return max(TIMEOUT_FLOOR_CYCLES, TIMEOUT_MARGIN * int(estimate_cycles or 0))


def simulate(
    srcs: list[Path],
    top: str,
    folder: Path,
    module_dir: Path,
    run_dir: Path,
    latencies: tuple[int, int],
    *,
    simulator: str = "verilator",
    waves: bool = False,
    timeout_cycles: int = TIMEOUT_FLOOR_CYCLES,
) -> dict[str, Any]:
    """Build (once, in `folder`/sim_build) and run the cocotb kernel testbench (`module_dir`/
    kernel_tb.py) on the vectors in `folder`; the result fields (status, cycles per vector
    with the board's DDR `latencies` (read, write), tests passed and failed, the detail of a
    failure). The JUnit XML and the run records stay in `run_dir`."""
    from partition.sim import icarus, verilator

    run_dir.mkdir(parents=True, exist_ok=True)
    runs_file = run_dir / "runs.jsonl"
    runs_file.unlink(missing_ok=True)
    if simulator == "verilator":
        tool = verilator
        model = verilator.build(srcs, top, folder / "sim_build", waves=waves)
    elif simulator == "icarus":
        if waves:
            raise PartitionError("waveforms come from the Verilator build: use --simulator verilator")
        tool = icarus
        model = icarus.build(srcs, top, folder / "sim_build_icarus")
    else:
        raise PartitionError(f"simulator {simulator!r}: use verilator or icarus")
    res = tool.run_test(
        model,
        "kernel_tb",
        run_dir,
        module_dir=module_dir,
        extra_env={
            "PARTITION_TB_DIR": str(folder),
            "PARTITION_RESULTS": str(runs_file),
            "PARTITION_TIMEOUT_CYCLES": str(timeout_cycles),
        },
        waves=waves,
    )
    runs = [json.loads(x) for x in runs_file.read_text().splitlines()] if runs_file.is_file() else []
    cycles = [normalised_cycles(r, *latencies) for r in runs]
    ok = not res.error and not res.failed and bool(res.passed)
    record: dict[str, Any] = {
        "status": "pass" if ok else ("error" if res.error else "fail"),
        "tool": f"cocotb + {simulator}",
        "vectors": len(runs),
        "cycles": cycles[0] if cycles else None,
        "cycles_per_vector": cycles,
        "cycles_measured": [int(r["cycles"]) for r in runs],
        "tests_passed": sorted(res.passed),
        "tests_failed": sorted(res.failed),
    }
    if not ok:
        record["detail"] = res.error or f"failed: {', '.join(res.failed)}\n{res.log_tail()}"
    return record


def sim_kernel(
    tree: Path,
    kernel: str,
    *,
    simulator: str = "verilator",
    waves: bool = False,
    timeout_cycles: int | None = None,
) -> dict[str, Any]:
    """Build (once) and run the kernel's testbench on its vectors; the result record.
    `timeout_cycles` defaults to `cycle_budget` of the estimate."""
    tree = Path(tree).resolve()
    plan = _plan(tree)
    task = next(t for t in plan["tasks"] if t.get("kernel") == kernel)
    # the estimate of the variant the RTL implements (trees from before variants: the base one)
    estimate = task.get("rtl", {}).get("estimate_cycles") or task["fpga"]["estimate"]["cycles"]
    if timeout_cycles is None:
        timeout_cycles = cycle_budget(estimate)
    srcs, top = _sources(tree, kernel)
    run_dir = tree / "results" / kernel / "rtl_sim"
    board = plan["board"]
    record = simulate(
        srcs,
        top,
        tree / "rtl" / kernel,
        tree / "tests",
        run_dir,
        (board["ddr_read_latency_cycles"], board["ddr_write_latency_cycles"]),
        simulator=simulator,
        waves=waves,
        timeout_cycles=timeout_cycles,
    )
    record["estimate_cycles"] = estimate
    record["variant"] = task.get("rtl", {}).get("variant", "base")
    record["junit"] = str((run_dir / "results.xml").relative_to(tree))
    if waves:
        dumps = sorted(p.name for p in run_dir.glob("dump.*"))
        record["waves"] = [str((run_dir / d).relative_to(tree)) for d in dumps]
    return write_result(tree, kernel, "rtl_sim", record)


def synth_kernel(tree: Path, kernel: str, family: str = "xc7") -> dict[str, Any]:
    from partition.sim import yosys

    tree = Path(tree).resolve()
    srcs, top = _sources(tree, kernel)
    counts = yosys.synth(srcs, top, family)
    record = {
        "status": "pass",
        "tool": f"yosys synth_xilinx -family {family}",
        **{k: counts[k] for k in ("lut", "ff", "dsp", "bram18", "lutram", "carry")},
    }
    return write_result(tree, kernel, "yosys", record)


def write_junit(tree: Path) -> Path | None:
    """Gather every cocotb JUnit file of the tree (each kernel's RTL simulation, the
    co-simulation) into DIR/results/junit.xml, one suite per kernel, for a CI system to
    read; None when nothing was simulated yet."""
    from xml.etree import ElementTree

    tree = Path(tree)
    results = tree / "results"
    found = sorted(results.glob("*/rtl_sim/results.xml"))
    if (results / "cosim" / "results.xml").is_file():
        found.append(results / "cosim" / "results.xml")
    if not found:
        return None
    root = ElementTree.Element("testsuites", name="partition")
    for xml in found:
        owner = xml.parent.parent.name if xml.parent.name == "rtl_sim" else "cosim"
        try:
            doc = ElementTree.parse(xml).getroot()
        except ElementTree.ParseError as e:
            raise PartitionError(f"{xml}: not valid JUnit XML ({e}); rerun the simulation") from e
        for suite in doc.iter("testsuite"):
            suite.set("name", owner)
            for case in suite.iter("testcase"):
                case.set("classname", f"{owner}.{case.get('classname', '')}".rstrip("."))
            root.append(suite)
    out = results / "junit.xml"
    ElementTree.indent(root)
    out.write_text(ElementTree.tostring(root, encoding="unicode") + "\n")
    return out


def _call(job: tuple[Callable[..., dict], tuple, dict]) -> dict[str, Any]:
    fn, args, kwargs = job
    try:
        return fn(*args, **kwargs)
    except PartitionError as e:
        tree, kernel = args[0], args[1]
        step = {"sim_kernel": "rtl_sim", "synth_kernel": "yosys", "lint_kernel": "lint"}[fn.__name__]
        return write_result(tree, kernel, step, {"status": "error", "detail": e.message})


def run_jobs(
    jobs: list[tuple[Callable[..., dict], tuple, dict]], workers: int | None = None
) -> list[dict[str, Any]]:
    """Run independent steps on `workers` processes (default: the machine's cores, at most 4)."""
    workers = workers or min(4, os.cpu_count() or 1)
    if workers <= 1 or len(jobs) <= 1:
        return [_call(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_call, jobs))
