"""One measurement job per kernel variant of a build tree, and what a job does.

A job carries everything its tools read: the variant's Verilog, register map and test
vectors as the built-in RTL backend generates them, the generic cocotb testbench, the board's
DDR latencies and yosys family, and (for Vitis HLS csynth, where `vitis_hls` or `vitis-run`
is on PATH) the variant's HLS C++ project; the tools to run and their versions. It is built on the
client (`jobs_for_tree`: fast, it needs the tree) and run anywhere (`run_job`: slow, it needs
only the tools), and it is a pure function of those inputs, so its content hash (`Job.key`)
names its result: a cache hit skips it, and whichever worker runs it writes the same record.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from partition import __version__, ir_json
from partition.boards import load_board
from partition.errors import PartitionError

TOOLS = ("verilator", "yosys", "vitis")
DEFAULT_TOOLS = ("verilator", "yosys")  # vitis only when asked: its runs take minutes to hours
VITIS_HOURS = 4  # a csynth run longer than this is reported as failed
RECORD_FORMAT = "partition-measure/1"
STEPS = ("rtl_sim", "yosys", "vitis")  # a record's entry per tool
_TB = Path(__file__).resolve().parents[1] / "sim"


@dataclass(frozen=True)
class Job:
    """The inputs of one kernel variant's measurement."""

    kernel: str
    variant: str
    top: str
    sources: tuple[str, ...]  # Verilog files under rtl/, compile order, top last
    files: tuple[tuple[str, bytes], ...]  # relative path -> content: rtl/... and tests/...
    tools: tuple[str, ...]
    family: str  # yosys synth_xilinx family
    latencies: tuple[int, int]  # the board's DDR read and write latencies (cycles)
    timeout_cycles: int  # a call not done by then fails (`flow.cycle_budget` of the estimate)
    versions: tuple[tuple[str, str], ...]  # partition and each tool

    @property
    def key(self) -> str:
        h = hashlib.sha256()
        head = {
            "kernel": self.kernel,
            "variant": self.variant,
            "top": self.top,
            "sources": list(self.sources),
            "tools": list(self.tools),
            "family": self.family,
            "latencies": list(self.latencies),
            "timeout_cycles": self.timeout_cycles,
            "versions": [list(v) for v in self.versions],
        }
        h.update(json.dumps(head, sort_keys=True).encode())
        for rel, data in self.files:
            h.update(f"\0{rel}\0{len(data)}\0".encode())
            h.update(data)
        return h.hexdigest()


@cache
def tool_versions(tools: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """partition's version and each tool's, as part of every job's key (a new yosys is a new
    measurement)."""
    out = [("partition", __version__)]
    if "verilator" in tools:
        out.append(("verilator", importlib.metadata.version("verilator")))
        out.append(("cocotb", importlib.metadata.version("cocotb")))
    if "yosys" in tools:
        from partition.sim.yosys import yosys_path

        r = subprocess.run([yosys_path(), "-V"], capture_output=True, text=True, timeout=60)
        out.append(("yosys", r.stdout.strip() or r.stderr.strip()))
    if "vitis" in tools:
        cmd = vitis_command()
        out.append(
            ("vitis", str(Path(cmd[0]).resolve()) if cmd else "none")
        )  # the install path names the release
    return tuple(out)


def vitis_command() -> list[str] | None:
    """argv that runs run_hls.tcl in the current folder (vitis_hls, else vitis-run), or None."""
    if exe := shutil.which("vitis_hls"):
        return [exe, "-f", "run_hls.tcl"]
    if exe := shutil.which("vitis-run"):
        return [exe, "--mode", "hls", "--tcl", "run_hls.tcl"]
    return None


VITIS_MISSING = (
    "vitis: neither vitis_hls nor vitis-run is on PATH, so no Vitis HLS csynth was run; install AMD Vitis "
    "(2022.2 or later) and source its settings64.sh"
)


def read_tree_plan(tree: Path) -> dict[str, Any]:
    """plan.json of build tree `tree`, checked to be one this version of partition measures."""
    from partition.plan.artefacts import FORMAT

    path = Path(tree) / "plan.json"
    if not Path(tree).is_dir():
        raise PartitionError(f"{tree}: no such folder; give the build tree `partition plan --out` wrote")
    try:
        plan = json.loads(path.read_text())
    except OSError:
        raise PartitionError(
            f"{path}: not found; is {tree} a build tree written by `partition plan`?"
        ) from None
    except json.JSONDecodeError as e:
        raise PartitionError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(plan, dict) or plan.get("format") != FORMAT:
        got = plan.get("format") if isinstance(plan, dict) else None
        raise PartitionError(
            f"{path}: plan format {got!r}, this partition reads {FORMAT!r}; the tree was written by another "
            "version: re-run `partition plan` for it"
        )
    return plan


def jobs_for_tree(
    tree: Path, *, variants: str = "all", tools: Sequence[str] = DEFAULT_TOOLS, kernels: Sequence[str] = ()
) -> tuple[list[Job], list[str]]:
    """Every job of `tree` (its FPGA-capable kernels' variants, or with `variants="chosen"` its
    FPGA kernels' chosen ones), and what was skipped and why (one line each)."""
    from partition.estimate import Directives
    from partition.plan.preparation import checked_vectors
    from partition.profile.model import load_profile
    from partition.rtl import RtlUnsupported, RtlVariantUnsupported, generate_rtl, vector_files
    from partition.sim import flow

    tree = Path(tree)
    plan = read_tree_plan(tree)
    board = load_board(plan["board"]["name"])
    family = "xcup" if plan["board"]["family"] == "xczu" else "xc7"
    latencies = (
        int(plan["board"]["ddr_read_latency_cycles"]),
        int(plan["board"]["ddr_write_latency_cycles"]),
    )
    tools = tuple(t for t in TOOLS if t in tools)
    skipped: list[str] = []
    if "vitis" in tools and vitis_command() is None:
        skipped.append(VITIS_MISSING)
        tools = tuple(t for t in tools if t != "vitis")
    tasks = [t for t in plan["tasks"] if t.get("kernel") and t.get("fpga")]
    if variants == "chosen":
        tasks = [t for t in tasks if t.get("placement") == "fpga"]
    known = sorted(t["kernel"] for t in tasks)
    missing = [k for k in kernels if k not in known]
    if missing:
        raise PartitionError(
            f"{tree}: no kernel {', '.join(missing)} to measure; kernels: {', '.join(known)}"
        )
    profile = load_profile(tree / "profile.json")
    testbench = tuple((f"tests/{n}", (_TB / n).read_bytes()) for n in ("kernel_tb.py", "axi_monitor.py"))
    jobs: list[Job] = []
    if not tools:
        return jobs, skipped
    for t in sorted(tasks, key=lambda t: t["kernel"]):
        name = t["kernel"]
        if kernels and name not in kernels:
            continue
        path = tree / "kernels" / f"{name}.json"
        try:
            k = ir_json.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise PartitionError(f"{path}: cannot read the kernel ({e}); re-run `partition plan`") from None
        vectors = checked_vectors(profile, {t["name"]: k}, {}).get(t["name"])
        if not vectors:
            skipped.append(f"{name}: its recorded calls do not fit the kernel (see plan.json)")
            continue
        chosen = [v for v in t["fpga"]["variants"] if variants == "all" or v["name"] == t.get("variant")]
        for v in chosen:
            job_tools, files, top, sources = tools, {}, name, ()
            if "verilator" in tools or "yosys" in tools:
                try:
                    rtl = generate_rtl(k, board, Directives.from_json(v["directives"]))
                except (RtlUnsupported, RtlVariantUnsupported) as e:
                    job_tools = tuple(x for x in tools if x == "vitis")  # csynth needs no built-in RTL
                    also = "; Vitis HLS csynth still runs" if job_tools else ""
                    skipped.append(f"{name} {v['name']}: {e.message}{also}")
                else:
                    top, sources = rtl.top, tuple(rtl.sources)
                    files = {f"rtl/{rel}": data for rel, data in rtl.files.items()}
                    built = vector_files(k, vectors, rtl.built, rtl.data_bits)
                    files.update({f"rtl/{rel}": data for rel, data in built.items()})
            if not job_tools:
                continue
            if "vitis" in job_tools:
                files.update(_hls_files(k, vectors, board, v["directives"]))
            jobs.append(
                Job(
                    kernel=name,
                    variant=v["name"],
                    top=top,
                    sources=sources,
                    files=tuple(sorted(files.items())) + testbench,
                    tools=job_tools,
                    family=family,
                    latencies=latencies,
                    timeout_cycles=flow.cycle_budget(v["estimate"]["cycles"]),
                    versions=tool_versions(job_tools),
                )
            )
    return jobs, skipped


def _hls_files(k: Any, vectors: list, board: Any, directives: dict[str, Any]) -> dict[str, bytes]:
    """hls/<kernel>/ of the variant (its C++, testbench, vectors and run_hls.tcl) and hls/include/."""
    from partition.codegen import generate_hls
    from partition.codegen.hls.analysis import uses_math
    from partition.estimate import Directives
    from partition.resources import resource_dir

    d = Directives.from_json(directives)
    files = generate_hls(
        k,
        vectors,
        part=board.part,
        clock_mhz=board.pl_mhz,
        directives=directives,
        bus_bits=d.bus(board),
        steps=("csynth",),
    )
    out = {f"hls/{k.name}/{rel}": data for rel, data in files.items()}
    for header in ("partition_ops.h", "partition_math.h") if uses_math(k) else ("partition_ops.h",):
        out[f"hls/include/{header}"] = (resource_dir("hls") / header).read_bytes()
    return out


def _csynth(job: Job, root: Path) -> dict[str, Any]:
    """Vitis HLS csynth of the job's HLS project: its report's figures, or why there are none."""
    from partition.codegen.hls.files import csynth_report
    from partition.estimate.calibrate import read_csynth

    cmd = vitis_command()
    if cmd is None:
        return {"status": "error", "tool": "Vitis HLS", "detail": VITIS_MISSING}
    folder = root / "hls" / job.kernel
    try:
        r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=VITIS_HOURS * 3600)
    except subprocess.TimeoutExpired:
        return {
            "status": "fail",
            "tool": "Vitis HLS csynth",
            "detail": f"csynth ran longer than {VITIS_HOURS} h",
        }
    report = folder / csynth_report(job.kernel)
    if r.returncode != 0 or not report.is_file():
        return {"status": "fail", "tool": "Vitis HLS csynth", "detail": (r.stdout + r.stderr)[-6000:]}
    try:
        figures = read_csynth(report)
    except PartitionError as e:
        return {"status": "fail", "tool": "Vitis HLS csynth", "detail": e.message}
    return {
        "status": "pass",
        "tool": "Vitis HLS csynth",
        "cycles": figures["cycles"],
        "ii": figures["ii"],
        "clock_mhz": figures["clock_mhz"],
        **figures["resources"],
    }


def run_job(job: Job) -> dict[str, Any]:
    """Run the job's tools in a folder of its own; its record (deterministic: no paths, no times).

    A tool that fails gives that tool's entry status "fail" or "error" with its log's tail;
    the job itself only raises for a bug."""
    from partition.sim import flow, yosys

    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "kernel": job.kernel,
        "variant": job.variant,
        "key": job.key,
    }
    with tempfile.TemporaryDirectory(prefix="partition-measure-") as tmp:
        root = Path(tmp)
        for rel, data in job.files:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        srcs = [root / "rtl" / s for s in job.sources]

        def scrub(text: str) -> str:
            return text.replace(str(root), "<job>")

        if "verilator" in job.tools:
            try:
                sim = flow.simulate(
                    srcs, job.top, root / "rtl", root / "tests", root / "run", job.latencies,
                    timeout_cycles=job.timeout_cycles,
                )  # fmt: skip
            except PartitionError as e:
                sim = {"status": "error", "tool": "cocotb + verilator", "detail": e.message}
            if "detail" in sim:
                sim["detail"] = scrub(str(sim["detail"]))[-6000:]
            record["rtl_sim"] = sim
        if "yosys" in job.tools:
            try:
                counts = yosys.synth(srcs, job.top, job.family)
                record["yosys"] = {
                    "status": "pass",
                    "tool": f"yosys synth_xilinx -family {job.family}",
                    **{k: counts[k] for k in ("lut", "ff", "dsp", "bram18", "lutram", "carry")},
                }
            except PartitionError as e:
                record["yosys"] = {"status": "error", "tool": "yosys", "detail": scrub(e.message)[-6000:]}
        if "vitis" in job.tools:
            record["vitis"] = _csynth(job, root)
            if "detail" in record["vitis"]:
                record["vitis"]["detail"] = scrub(record["vitis"]["detail"])
        shutil.rmtree(root / "rtl" / "sim_build", ignore_errors=True)
    return record


def passed(record: dict[str, Any]) -> bool:
    """Whether every tool of a record passed (only such records are cached)."""
    steps = [record[s] for s in STEPS if s in record]
    return bool(steps) and all(s.get("status") == "pass" for s in steps)
