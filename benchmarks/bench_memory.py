"""Memory and disk of `partition plan` against the size of the app's data.

    python -m benchmarks.bench_memory                   # what `make bench` runs
    python -m benchmarks.bench_memory --sizes 1 10

benchmarks/memory/gain_clip.py scales a recording of SIZE MB three times. For each size the
app runs plain, then `partition plan` profiles and plans it into a build tree. Each run is a
child of a fresh Python process that reports its children's largest resident set
(`RUSAGE_CHILDREN` `ru_maxrss`: the biggest single process of the run, the app under the
profiler or partition itself), so the figures do not mix. Targets (issue: memory and disk
proportional to what matters): partition's peak at most about twice the app's own peak plus a
fixed amount; plan.json independent of the data's size.

Writes benchmarks/results/memory.md and benchmarks/results/memory.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.result_files import write_results

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "benchmarks" / "memory" / "gain_clip.py"
SIZES_MB = [1, 10, 50, 200]
BOARD = "pynq-z2"

_PEAK = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.stderr.write(r.stderr)\n"
)


def peak_mb(cmd: list[str], cwd: Path) -> tuple[int, float, str]:
    """(exit status, largest resident set of any process of `cmd` in MB, its stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, text=True, cwd=cwd, env=env)
    status, kb = r.stdout.split()
    return int(status), int(kb) / 1024, r.stderr


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def row(size: float, tmp: Path) -> dict:
    app_status, app_mb, err = peak_mb([sys.executable, str(APP), str(size)], tmp)
    if app_status != 0:
        raise SystemExit(f"bench_memory: the app failed at {size} MB:\n{err}")
    out = tmp / f"tree_{size:g}"
    cmd = [sys.executable, "-m", "partition", "plan", str(APP), "--board", BOARD, "--out", str(out), "--force",
           "--", str(size)]  # fmt: skip
    status, part_mb, err = peak_mb(cmd, tmp)
    if status != 0:
        raise SystemExit(f"bench_memory: partition plan failed at {size} MB:\n{err}")
    plan = json.loads((out / "plan.json").read_text())
    return {
        "size_mb": size,
        "app_peak_mb": round(app_mb, 1),
        "partition_peak_mb": round(part_mb, 1),
        "ratio": round(part_mb / app_mb, 2),
        "tree_mb": round(du_mb(out), 2),
        "plan_json_kb": round((out / "plan.json").stat().st_size / 1e3, 1),
        "profile_json_mb": round((out / "profile.json").stat().st_size / 1e6, 2),
        "fpga": sorted(t["name"] for t in plan["tasks"] if t["placement"] == "fpga"),
    }


def markdown(rows: list[dict], env: dict) -> str:
    base = rows[0]
    out = [
        "# Memory and disk against the size of the app's data",
        "",
        f"{env['machine']}, Python {env['python']}; board {BOARD}; app benchmarks/memory/gain_clip.py "
        "(three gain-and-clip passes over an int16 recording). Peak = the largest resident set of any "
        "process of the run (RUSAGE_CHILDREN). Produced by `benchmarks/bench_memory.py`.",
        "",
        "| recording | app alone, peak | partition plan, peak | ratio | peak beyond 2× the app | tree | plan.json | profile.json | on the FPGA |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        beyond = r["partition_peak_mb"] - 2 * r["app_peak_mb"]
        out.append(
            f"| {r['size_mb']:g} MB | {r['app_peak_mb']:.0f} MB | {r['partition_peak_mb']:.0f} MB | "
            f"{r['ratio']:.2f}× | {beyond:+.0f} MB | {r['tree_mb']:.2f} MB | {r['plan_json_kb']:.0f} kB | "
            f"{r['profile_json_mb']:.2f} MB | {', '.join(r['fpga']) or 'none'} |"
        )
    last = rows[-1]
    out += [
        "",
        f"From {base['size_mb']:g} MB to {last['size_mb']:g} MB of data, plan.json goes from "
        f"{base['plan_json_kb']:.0f} kB to {last['plan_json_kb']:.0f} kB and the tree from "
        f"{base['tree_mb']:.2f} MB to {last['tree_mb']:.2f} MB (recorded vectors are capped at "
        "16 MB of encoded data per call: larger calls keep their signature, not their data).",
    ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=float, default=SIZES_MB)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="partition-bench-memory-") as tmp:
        rows = [row(s, Path(tmp)) for s in args.sizes]
    env = {"machine": f"{platform.machine()} {platform.system()}", "python": platform.python_version()}
    write_results(args.out, "memory", {"env": env, "rows": rows}, markdown(rows, env))
    return 0


if __name__ == "__main__":
    sys.exit(main())
