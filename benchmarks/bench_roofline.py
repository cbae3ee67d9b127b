"""Kernels against their roofline, and against the same loops compiled for the board's CPU.

    python -m benchmarks.bench_roofline            # what `make bench` runs
    python -m benchmarks.bench_roofline --board kv260 --kernels fir32_q15 matmul_f32

Every function of benchmarks/roofline/kernels.py (signal and image processing, PolyBench-style
linear algebra and stencils; loops and NumPy; integer and float) is profiled, translated and
estimated in every implementation variant as `partition plan` does. For each kernel the table
gives the fastest variant that fits the board's budget on its own, its roofline
(`partition.estimate.roofline`: the DSP, memory-port and recurrence bounds), the fraction of the
bound it reaches and what limits it, and its resources.

Beside them, the kernel's alternative on the board: the same loops compiled. The kernel's C++
(the HLS source `partition` generates, the base variant) is built with g++ -O2 and timed on the
profiling host over the recorded call (the testbench's `-DPARTITION_TB_TIME` mode, which also
checks the results against Python's), then scaled to the board's CPU by its `[cpu]
compiled_factor` (a sourced estimate with a range, see boards/). *FPGA / compiled* is the
board's compiled time over the kernel's time per call on the FPGA, call cost included: above 1
the FPGA wins.

Writes benchmarks/results/roofline.md and benchmarks/results/roofline.json.
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.result_files import write_results  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.codegen import csim_command, generate_hls  # noqa: E402
from partition.codegen.hls.analysis import uses_math  # noqa: E402
from partition.estimate.roofline import configuration, roofline  # noqa: E402
from partition.plan import Options, prepare  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.resources import resource_dir  # noqa: E402

APP = ROOT / "benchmarks" / "roofline" / "kernels.py"
REPEATS = 21  # timed calls of the compiled kernel; the median is kept
RESOURCES = ("lut", "ff", "dsp", "bram18")
_TIME = re.compile(r"time (\d+) ns per call")


def _fits(resources: dict[str, float], budget: dict[str, float]) -> bool:
    return all(resources.get(r, 0) <= budget[r] for r in budget)


def compiled_ns(kernel, vectors, board, tmp: Path) -> float:
    """Median ns of one call of `kernel`'s C++ built with g++ -O2 on this host, over its first
    recorded call; the testbench checks the results against Python's first."""
    folder = tmp / kernel.name
    files = {
        f"{kernel.name}/{rel}": data
        for rel, data in generate_hls(kernel, vectors[:1], part=board.part, clock_mhz=board.pl_mhz).items()
    }
    for header in ("partition_ops.h", "partition_math.h") if uses_math(kernel) else ("partition_ops.h",):
        files[f"include/{header}"] = (resource_dir("hls") / header).read_bytes()
    for rel, data in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(data)
    argv = csim_command(kernel.name, "../include", ("-O2", f"-DPARTITION_TB_TIME={REPEATS}"))
    subprocess.run(argv, cwd=folder, check=True, capture_output=True, text=True)
    run = subprocess.run(["./csim"], cwd=folder, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{kernel.name}: compiled testbench failed:\n{run.stdout}{run.stderr}")
    times = [float(m.group(1)) for m in _TIME.finditer(run.stdout)]
    if not times:
        raise RuntimeError(f"{kernel.name}: the testbench printed no time:\n{run.stdout}")
    return times[0]


def rows(board_name: str, only: list[str] | None, tmp: Path) -> tuple[list[dict], dict]:
    board = load_board(board_name)
    profile = run_profile(APP, [], samples=1, baseline=False, replay=False)
    prep = prepare(profile, APP.parent, board, Options())
    budget = prep.problem.budget
    factor = float(board.cpu["compiled_factor"])
    lo, hi = (float(x) for x in board.cpu["compiled_factor_range"])
    out = []
    names = sorted(n for n in profile.functions if n != "main" and (not only or n in only))
    for name in names:
        if name not in prep.kernels:
            reason = prep.rejected[name].reason if name in prep.rejected else "not translated"
            out.append({"kernel": name, "rejected": reason})
            continue
        k = prep.kernels[name]
        vs = prep.variants[name]
        fitting = [v for v in vs if _fits(v.estimate.resources, budget)] or vs[:1]
        best = min(fitting, key=lambda v: (v.estimate.cycles, v.name))
        rl = roofline(k, board, int(budget["dsp"]))
        conf = configuration(best.estimate, rl)
        fig = prep.figures[name][best.name]
        calls = max(1, fig.calls)
        host_ns = compiled_ns(k, prep.vectors[name], board, tmp)
        fpga_call_s = fig.fpga_s / calls
        board_compiled_s = host_ns * 1e-9 * factor
        out.append(
            {
                "kernel": name,
                "style": "NumPy" if name.startswith("np_") else "loops",
                "arith": "float" if "_f32" in name else "integer",
                "variant": best.name,
                "variants": len(vs),
                "cycles": best.estimate.cycles,
                "bound_cycles": rl.bound_cycles,
                "fraction": conf["fraction"],
                "limit": rl.limit,
                "why": rl.why(),
                "limited_by": conf["limited_by"],
                "resources": {r: int(best.estimate.resources.get(r, 0)) for r in RESOURCES},
                "kernel_us": best.estimate.cycles / board.pl_mhz,
                "fpga_call_us": fpga_call_s * 1e6,
                "cpython_call_us": fig.cpu_s / calls * 1e6,
                "host_compiled_us": host_ns / 1e3,
                "board_compiled_us": board_compiled_s * 1e6,
                "board_compiled_us_range": [host_ns * lo / 1e3, host_ns * hi / 1e3],
                "fpga_over_compiled": board_compiled_s / fpga_call_s,
                "fpga_over_compiled_range": [
                    host_ns * 1e-9 * lo / fpga_call_s,
                    host_ns * 1e-9 * hi / fpga_call_s,
                ],
            }
        )
        r = out[-1]
        print(
            f"  {name}: {best.name} {r['cycles']:,} cycles, bound {r['bound_cycles']:,} ({r['fraction']:.1%}, "
            f"{r['limit']}); compiled {r['host_compiled_us']:.1f} us here, ~{r['board_compiled_us']:.0f} us on the "
            f"board against {r['fpga_call_us']:.0f} us a call on the FPGA",
            flush=True,
        )
    meta = {
        "board": board.name,
        "budget": {r: int(budget[r]) for r in RESOURCES},
        "pl_mhz": board.pl_mhz,
        "compiled_factor": factor,
        "compiled_factor_range": [lo, hi],
        "compiled_factor_source": board.source("cpu", "compiled_factor"),
        "host": f"{platform.machine()} {platform.processor() or platform.system()}",
        "gxx": subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
    }
    return out, meta


def _us(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def markdown(rows_: list[dict], meta: dict) -> str:
    done = [r for r in rows_ if "rejected" not in r]
    fractions = [r["fraction"] for r in done]
    half = sum(f >= 0.5 for f in fractions)
    wins = sum(r["fpga_over_compiled"] > 1 for r in done)
    sure = sum(r["fpga_over_compiled_range"][0] > 1 for r in done)
    limits = {k: sum(r["limit"] == k for r in done) for k in ("dsp", "memory", "recurrence")}
    lo, hi = meta["compiled_factor_range"]
    out = [
        "# Kernels against their roofline and against compiled code",
        "",
        f"Board {meta['board']} (PL at {meta['pl_mhz']:g} MHz; budget at the default cap: "
        + ", ".join(f"{v:,} {k.upper()}" for k, v in meta["budget"].items())
        + f"). Kernels: benchmarks/roofline/kernels.py, profiled once. Compiled code: {meta['gxx']}, -O2, on "
        f"{meta['host']}, scaled to the board by compiled_factor {meta['compiled_factor']:g} (range {lo:g}-{hi:g}): "
        f"{meta['compiled_factor_source'].split('. Not measured')[0]}. Produced by `benchmarks/bench_roofline.py`.",
        "",
        f"**{len(done)} kernels. Median fraction of the roofline: {statistics.median(fractions):.1%}; {half} of "
        f"{len(done)} at 50 % or more.** Bounds: {limits['memory']} memory, {limits['dsp']} DSP, "
        f"{limits['recurrence']} recurrence. **The FPGA beats the same loops compiled for the board's CPU on "
        f"{wins} of {len(done)} kernels** ({sure} even at the low end of compiled_factor's range).",
        "",
        "| kernel | style | arith | variant (of) | cycles | bound | fraction | bound by | what limits the variant | "
        "LUT | FF | DSP | BRAM18 | FPGA µs/call | CPython µs/call | -O2 here µs | -O2 board µs | FPGA / compiled |",
        "|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows_:
        if "rejected" in r:
            out.append(f"| {r['kernel']} | rejected: {r['rejected']} |" + " |" * 16)
            continue
        res = r["resources"]
        a, b = r["fpga_over_compiled_range"]
        out.append(
            f"| {r['kernel']} | {r['style']} | {r['arith']} | {r['variant']} ({r['variants']}) | {r['cycles']:,} | "
            f"{r['bound_cycles']:,} | {r['fraction']:.1%} | {r['why']} | {r['limited_by']} | {res['lut']:,} | "
            f"{res['ff']:,} | {res['dsp']} | {res['bram18']} | {_us(r['fpga_call_us'])} | {_us(r['cpython_call_us'])} | "
            f"{_us(r['host_compiled_us'])} | {_us(r['board_compiled_us'])} | {r['fpga_over_compiled']:.2f} "
            f"({a:.2f}-{b:.2f}) |"
        )
    out += [
        "",
        "*cycles*: the estimate of one typical call of the variant (the fastest that fits the budget alone); "
        "*bound*: the roofline's cycles; *fraction* = bound / cycles. *FPGA µs/call*: the kernel's time a call "
        "on the board with its call cost (register writes, buffer copies and syncs); *CPython µs/call*: the "
        "profiled Python scaled to the board as `partition plan` scales it; *-O2 board*: the compiled time here "
        "times compiled_factor; *FPGA / compiled*: above 1 the FPGA call is faster (in brackets at the two ends "
        "of compiled_factor's range).",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="pynq-z2")
    ap.add_argument("--kernels", nargs="*", help="only these functions of kernels.py (default: all)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="partition-roofline-") as tmp:
        rows_, meta = rows(args.board, args.kernels, Path(tmp))
    write_results(args.out, "roofline", {"meta": meta, "rows": rows_}, markdown(rows_, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
