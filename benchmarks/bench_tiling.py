"""Data larger than on-chip RAM (issue 19): apps planned on pynq-z2, kernels tiled through DDR.

    python -m benchmarks.bench_tiling            # what `make bench` runs

Each app under benchmarks/large_data is profiled and planned as a user would
(`--max-shape` where a loop is profiled on strips of the data it processes); for every
function the table states where the plan puts it, the variant, its resources against the
budget and the whole-array variant's BRAM (what the kernel would need without tiling), and
the predicted time. The build tree's C simulation (`make csim`: every profiled vector at its
real size) must pass; the built-in RTL is simulated (cocotb + Verilator) for the kernels
whose vectors the simulator runs in minutes (the three-length packets, the box filter's
strips), its cycles against the estimate.

Writes benchmarks/results/tiling.md and benchmarks/results/tiling.json.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.result_files import write_results  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.codegen import build_tree  # noqa: E402
from partition.fsutil import write_tree  # noqa: E402
from partition.plan import Options, make_plan  # noqa: E402
from partition.plan.shapes import parse_max_shape  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.sim import flow  # noqa: E402

APPS = {  # app -> (--max-shape options, kernels whose RTL is simulated)
    "sensor_stream": ([], []),
    "frame_filters": (["box3:img=1080x1920"], ["box3"]),
    "packets": ([], ["smooth"]),
}
SIM_CYCLES = 20_000_000


def app_rows(name: str, tmp: Path, board_name: str) -> tuple[list[dict], dict]:
    app = ROOT / "benchmarks" / "large_data" / f"{name}.py"
    shapes, simulated = APPS[name]
    board = load_board(board_name)
    profile = run_profile(app, [], samples=3, baseline=False, replay=False)
    plan = make_plan(profile, app.parent, board, Options(max_shapes=[parse_max_shape(s) for s in shapes]))
    files, exe = build_tree(plan, profile, board, app.read_bytes())
    tree = tmp / name
    write_tree(tree, files, exe)
    csim = subprocess.run(["make", "-C", str(tree), "csim"], capture_output=True, text=True, timeout=3600)
    rows = []
    for t in plan.data["tasks"]:
        if t["name"] == "main" or not t.get("fpga"):
            continue
        variants = t["fpga"].get("variants", [])
        whole = [v["estimate"]["bram18"] for v in variants if "tiled" not in v["name"]]
        chosen = next((v for v in variants if v["name"] == t.get("variant")), None)
        est = chosen["estimate"] if chosen else t["fpga"]["estimate"]
        row = {
            "app": name,
            "task": t["name"],
            "placement": t["placement"],
            "variant": t.get("variant", ""),
            "cycles": est["cycles"],
            "lut": est["lut"],
            "ff": est["ff"],
            "dsp": est["dsp"],
            "bram18": est["bram18"],
            "whole_bram18": min(whole) if whole else None,
            "tiled_offered": any("tiled" in v["name"] for v in variants),
            "cpu_s": t.get("cpu_s"),
            "fpga_s": t["fpga"].get("total_s"),
        }
        if t["placement"] == "fpga" and t["name"] in simulated and t.get("rtl", {}).get("status") == "built":
            sim = flow.sim_kernel(tree, t["kernel"], timeout_cycles=SIM_CYCLES)
            row["rtl"] = {
                "status": sim["status"],
                "variant": t["rtl"]["variant"],
                "vectors": sim.get("vectors"),
                "cycles": sim.get("cycles_per_vector"),
                "estimate": sim.get("estimate_cycles"),
            }
        rows.append(row)
    budget = plan.data["resources"].get("budget", {})
    return rows, {"csim": csim.returncode == 0, "csim_tail": csim.stdout[-600:], "budget": budget}


def markdown(rows: list[dict], apps: dict, env: dict) -> str:
    out = [
        "# Data larger than on-chip RAM: tiling through DDR",
        "",
        f"{env['machine']}, Python {env['python']}; board pynq-z2 (280 RAMB18, 80 % usable). Each app"
        " profiled and planned as a user would; *whole BRAM*: the least BRAM18 of the variants that"
        " buffer arrays whole (what the kernel needs without tiling).",
        "",
        "Figures of the chosen variant (of base for a function left on the CPU; *tiled offered*: whether"
        " a tiled variant exists for it).",
        "",
        "| app | function | placement | variant | cycles est. | LUT | FF | DSP | BRAM18 | whole BRAM18 | tiled offered |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['app']} | {r['task']} | {r['placement']} | {r['variant'] or '—'} | {r['cycles']:,} "
            f"| {r['lut']:,} | {r['ff']:,} | {r['dsp']} | {r['bram18']} | {r['whole_bram18']} "
            f"| {'yes' if r['tiled_offered'] else 'no'} |"
        )
    out += ["", "C simulation of each build tree (`make csim`, every profiled vector at its real size):", ""]
    for name, a in apps.items():
        out.append(f"- {name}: {'pass' if a['csim'] else 'FAIL'}")
    sims = [r for r in rows if "rtl" in r]
    if sims:
        out += [
            "",
            "RTL simulation (cocotb + Verilator: outputs, AXI protocol, the beats each tile's copies move):",
            "",
            "| app | function | variant | status | vectors | cycles simulated | estimate (typical call) |",
            "|---|---|---|---|---:|---|---:|",
        ]
        for r in sims:
            s = r["rtl"]
            cyc = ", ".join(f"{c:,}" for c in s["cycles"] or [])
            out.append(
                f"| {r['app']} | {r['task']} | {s['variant']} | {s['status']} | {s['vectors']} | {cyc} "
                f"| {s['estimate']:,} |"
            )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--board", default="pynq-z2")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    apps: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="partition-tiling-") as tmp:
        for name in APPS:
            r, a = app_rows(name, Path(tmp), args.board)
            rows += r
            apps[name] = a
    env = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    write_results(
        args.out, "tiling", {"environment": env, "rows": rows, "apps": apps}, markdown(rows, apps, env)
    )
    ok = all(a["csim"] for a in apps.values()) and all(
        r["rtl"]["status"] == "pass" for r in rows if "rtl" in r
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
