"""Profiler overhead and `partition plan` wall time on the examples.

    python -m benchmarks.bench_pipeline            # what `make bench` runs
    python -m benchmarks.bench_pipeline --runs 3

Profiler overhead: each app runs plain and instrumented (replay off, so only
the timed run is compared), `--runs` times; the figure is the median of the
per-run ratios (instrumented / plain, both timed around the app inside the
child process). Beside it, cProfile's overhead measured in the same rounds. Target: <= 1.5x
and not above cProfile's.

CPU scale factors: the same profiles' ratios of the board's CPU figures to the host's, per
class of work; they must stay within ±10 % of their median from one profile to the next.

Plan wall time: from a saved profile, the whole `plan` stage without the app's
own run — frontend, estimates, ILP, code generation, writing the tree —
median of `--runs`. Target: < 5 s per example.

Writes benchmarks/results/pipeline.json and benchmarks/results/pipeline.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.codegen import build_tree  # noqa: E402
from partition.fsutil import write_tree  # noqa: E402
from partition.plan import Options, make_plan  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.solve.costs import cpu_scaling  # noqa: E402

OVERHEAD_APPS = [ROOT / "examples" / f"{e}.py" for e in EXAMPLES] + [
    ROOT / "tests" / "apps" / "conv2d.py",
    ROOT / "tests" / "apps" / "conv2d_pixel.py",
    # numeric apps of another style: plain Python, many small calls
    ROOT / "benchmarks" / "realpy" / "apps" / "app_sort_stats.py",
    ROOT / "benchmarks" / "realpy" / "apps" / "app_dp_puzzles.py",
    ROOT / "benchmarks" / "realpy" / "apps" / "app_audio_filters.py",
]
# the app run as `python APP`, timed around the app alone, plain or under cProfile
_TIMED_RUN = """import cProfile, os, runpy, sys, time
app, mode = sys.argv[1], sys.argv[2]
sys.argv = [app]
sys.path.insert(0, os.path.dirname(app))
prof = cProfile.Profile()
t = time.perf_counter()
if mode == "cprofile":
    prof.enable()
try:
    runpy.run_path(app, run_name="__main__")
except SystemExit:
    pass
prof.disable()
seconds = time.perf_counter() - t
sys.stdout.flush()
print(seconds, file=sys.stderr)
"""
OVERHEAD_TARGET = 1.5
PLAN_TARGET_S = 5.0
SCALE_TARGET = 0.10


def _timed(app: Path, mode: str) -> float:
    r = subprocess.run(
        [sys.executable, "-c", _TIMED_RUN, str(app), mode],
        cwd=app.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True,
    )  # fmt: skip
    return float(r.stderr.strip().splitlines()[-1])


def overhead(app: Path, runs: int, board_name: str) -> dict:
    ratios, plain, prof, scales, raw, cprof = [], [], [], {}, {}, []
    board = load_board(board_name)
    for _ in range(runs):
        p = run_profile(app, [], samples=3, baseline=True, replay=False)
        ratios.append(p.wall_s / p.plain_wall_s)
        plain.append(p.plain_wall_s)
        prof.append(p.wall_s)
        for cls, r in cpu_scaling(p, board).ratios.items():
            scales.setdefault(cls, []).append(r[0])
            f = p.host["bench"][cls]  # this profile's own measurement, before the best seen replaced it
            raw.setdefault(cls, []).append(r[0] * f["ns"] / f.get("measured", f["ns"]))
        cprof.append(_timed(app, "cprofile") / _timed(app, "plain"))  # in the same round
    return {
        "app": app.relative_to(ROOT).as_posix(),
        "plain_s": statistics.median(plain),
        "profiled_s": statistics.median(prof),
        "overhead": statistics.median(ratios),
        "cprofile": statistics.median(cprof),
        "runs": runs,
        "cpu_scale": {cls: _spread(v) for cls, v in scales.items()},
        "cpu_scale_measured": {cls: _spread(v) for cls, v in raw.items()},
    }


def _spread(values: list[float]) -> dict:
    """The CPU scale factors of successive profiles: their median and how far the extremes are from it."""
    med = statistics.median(values)
    return {
        "values": [round(v, 3) for v in values],
        "median": med,
        "max_dev": max(abs(v / med - 1) for v in values),
    }


def plan_time(example: str, runs: int, board_name: str) -> dict:
    app = ROOT / "examples" / f"{example}.py"
    profile = run_profile(app, [], samples=3, baseline=False)
    board = load_board(board_name)
    times = []
    fpga = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):
            t0 = time.perf_counter()
            plan = make_plan(profile, app.parent, board, Options())
            files, exe = build_tree(plan, profile, board, app.read_bytes())
            write_tree(Path(tmp) / f"t{k}", files, exe)
            times.append(time.perf_counter() - t0)
            fpga = plan.fpga_tasks
    return {
        "example": example,
        "board": board_name,
        "plan_s": statistics.median(times),
        "runs": runs,
        "fpga_tasks": fpga,
        "speedup": plan.data["predicted"]["speedup"],
    }


def markdown(over: list[dict], plans: list[dict], env: dict) -> str:
    lines = [
        "# Profiler overhead and plan time",
        "",
        f"Python {env['python']} on {env['machine']}, {env['cpus']} cores; medians of {env['runs']} runs. "
        "This machine is shared and noisy: read ratios, not absolute times.",
        "",
        f"## Profiler overhead (target <= {OVERHEAD_TARGET}x, and not above cProfile's)",
        "",
        "Overhead as `partition plan` prints it (the profiled run against the plain run, each timed around",
        "the app inside its child process); cProfile's the same way in the same round (`python -c` running",
        "the app with and without a `cProfile.Profile` enabled).",
        "",
        "| app | plain | profiled | overhead | cProfile | target |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in over:
        cp = r.get("cprofile")
        ok = "met" if r["overhead"] <= OVERHEAD_TARGET and (cp is None or r["overhead"] <= cp) else "MISSED"
        lines.append(
            f"| {r['app']} | {r['plain_s']:.3f} s | {r['profiled_s']:.3f} s | {r['overhead']:.2f}x | "
            f"{'—' if cp is None else f'{cp:.2f}x'} | {ok} |"
        )
    lines += [
        "",
        f"## CPU scale factors over {env['runs']} profiles in a row (target: within ±{SCALE_TARGET:.0%} of their median)",
        "",
        "The ratio of the board's figure to the profiling host's, per class of CPU work, as each profile",
        "used it (`partition.profile.bench`: minimum over repetitions on one pinned CPU, then the fastest",
        "figure this machine was seen at), and as each profile's own measurement alone gave it.",
        "",
        "| app | class | median | farthest from it | factors | measured alone: farthest | target |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for r in over:
        for cls, sc in r["cpu_scale"].items():
            ok = "met" if sc["max_dev"] <= SCALE_TARGET else "MISSED"
            alone = r["cpu_scale_measured"][cls]
            lines.append(
                f"| {r['app']} | {cls} | ×{sc['median']:.1f} | {100 * sc['max_dev']:.1f} % | "
                f"{', '.join(f'×{v:.1f}' for v in sc['values'])} | {100 * alone['max_dev']:.1f} % | {ok} |"
            )
    lines += [
        "",
        f"## `partition plan` without the app's run (target < {PLAN_TARGET_S:g} s)",
        "",
        "| example | board | plan time | FPGA tasks | predicted speedup | target |",
        "|---|---|---:|---|---:|---|",
    ]
    for r in plans:
        ok = "met" if r["plan_s"] < PLAN_TARGET_S else "MISSED"
        lines.append(
            f"| {r['example']} | {r['board']} | {r['plan_s']:.2f} s | {', '.join(r['fpga_tasks'])} | "
            f"{r['speedup']:,.1f}x | {ok} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--board", default="pynq-z2")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    over = [overhead(app, args.runs, args.board) for app in OVERHEAD_APPS]
    plans = [plan_time(e, args.runs, args.board) for e in EXAMPLES]
    env = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "runs": args.runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pipeline.json").write_text(
        json.dumps({"environment": env, "overhead": over, "plan": plans}, indent=2, sort_keys=True) + "\n"
    )
    (args.out / "pipeline.md").write_text(markdown(over, plans, env))
    print(f"wrote {args.out / 'pipeline.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
