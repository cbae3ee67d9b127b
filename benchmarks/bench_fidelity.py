"""Estimator fidelity: the plan's estimate of every example kernel against what the built-in
RTL measured — cycles from RTL simulation (cocotb + Verilator, at the board's DDR
latencies), LUT/FF/DSP/BRAM18 from yosys `synth_xilinx -family xc7`.

    python -m benchmarks.bench_fidelity            # what `make bench` runs

Targets (issue 3): cycles within ±10 %, LUT and FF within ±30 %, DSP and BRAM18 within ±1.
Also records the pipelining evidence: for every pipelined innermost loop without a
loop-carried recurrence, its II, and for kernels whose only loops are such pipelines,
cycles <= trip count + pipeline depth + burst transfer time.

Every kernel is measured twice: in the variant the plan's built-in RTL implements (the chosen
one, or base where the backend cannot build it) and in its `seq` variant
(innermost loops as FSM loops instead of pipelines), each against that variant's estimate.
The ends of an AXI-Stream chain are built, and estimated, as the plan builds them: with the
chained array as a stream port (`plan.streamed_kernels`).

Writes benchmarks/results/fidelity.md and benchmarks/results/fidelity.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.codegen import build_tree  # noqa: E402
from partition.estimate import candidate_directives, estimate_variant  # noqa: E402
from partition.fsutil import write_tree  # noqa: E402
from partition.plan import Options, build_rtl, make_plan, streamed_kernels  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.sim import flow  # noqa: E402

TARGETS = {"cycles": 0.10, "lut": 0.30, "ff": 0.30, "dsp": 1, "bram18": 1}


def _rel(est: float, meas: float) -> float:
    return (est - meas) / meas if meas else (0.0 if est == 0 else float("inf"))


def kernel_rows(
    tree: Path, data: dict, estimates: dict[str, dict] | None = None, only: set[str] | None = None
) -> list[dict]:
    """One row per kernel with built-in RTL (of the tasks `only` names, when given): its estimate
    (`estimates[task]`, else the plan's figures of the variant the RTL built) against simulation
    and yosys."""
    jobs = []
    tasks = [
        t
        for t in data["tasks"]
        if t["placement"] == "fpga"
        and t.get("rtl", {}).get("status") == "built"
        and (only is None or t["name"] in only)
    ]
    ests = {}
    for t in tasks:
        ests[t["name"]] = (estimates or {}).get(t["name"]) or next(
            (v["estimate"] for v in t["fpga"].get("variants", []) if v["name"] == t["rtl"]["variant"]),
            t["fpga"]["estimate"],
        )
        # a call may take its estimate's cycles (sequential variants run for millions)
        limit = max(5_000_000, 2 * ests[t["name"]]["cycles"])
        jobs += [
            (flow.sim_kernel, (tree, t["kernel"]), {"timeout_cycles": limit}),
            (flow.synth_kernel, (tree, t["kernel"], "xc7"), {}),
        ]
    got = {(r["kernel"], r["step"]): r for r in flow.run_jobs(jobs, 2)}
    rows = []
    for t in tasks:
        k = t["kernel"]
        built = t["rtl"]["variant"]
        est = ests[t["name"]]
        sim, syn = got[k, "rtl_sim"], got[k, "yosys"]
        if sim["status"] != "pass" or syn["status"] != "pass":
            rows.append({"kernel": k, "variant": built, "error": sim.get("detail") or syn.get("detail")})
            continue
        cycles = max(sim["cycles_per_vector"])
        row = {
            "kernel": k,
            "variant": built,
            "cycles_est": est["cycles"],
            "cycles_sim": cycles,
            "cycles_err": _rel(est["cycles"], cycles),
            "dynamic": len(set(sim["cycles_per_vector"])) > 1,
        }
        for r in ("lut", "ff", "dsp", "bram18"):
            row[f"{r}_est"] = est[r]
            row[f"{r}_yosys"] = syn[r]
        row["lut_err"] = _rel(est["lut"], syn["lut"])
        row["ff_err"] = _rel(est["ff"], syn["ff"])
        row["dsp_diff"] = est["dsp"] - syn["dsp"]
        row["bram18_diff"] = est["bram18"] - syn["bram18"]
        row["loops"] = {
            label: {k2: lp[k2] for k2 in ("trip", "ii", "depth", "pipelined", "cycles", "entries")}
            for label, lp in sorted(est["loops"].items())
        }
        row.update(_ii1_bound(est, cycles))
        row["meets"] = (
            abs(row["cycles_err"]) <= TARGETS["cycles"]
            and abs(row["lut_err"]) <= TARGETS["lut"]
            and abs(row["ff_err"]) <= TARGETS["ff"]
            and abs(row["dsp_diff"]) <= TARGETS["dsp"]
            and abs(row["bram18_diff"]) <= TARGETS["bram18"]
        )
        rows.append(row)
    return rows


def _ii1_bound(est: dict, sim_cycles: int) -> dict:
    """Where the simulated cycles of a kernel with II-1 pipelines go: every pipelined loop's
    (trip + depth) per entry, the burst transfers at the board's DDR latencies, the control
    cycles, and the rest (statements outside the pipelines, one bounds-check cycle per
    iteration and exit of each loop around them)."""
    loops = est["loops"].values()
    piped = [lp for lp in loops if lp["pipelined"]]
    if not piped or any(lp["ii"] != 1 for lp in piped):
        return {}
    b = est["breakdown"]
    transfer = b["load_cycles"] + b["store_cycles"]
    pipelines = sum(lp["entries"] * (lp["trip"] + lp["depth"]) for lp in piped)
    fixed = transfer + b["control_cycles"] + b["init_cycles"]
    return {
        "ii1_pipelines": pipelines,
        "ii1_transfer": transfer,
        "ii1_control": b["control_cycles"] + b["init_cycles"],
        "ii1_rest": sim_cycles - pipelines - fixed,
    }


def _table(rows: list[dict]) -> list[str]:
    out = [
        "| example | kernel | variant | cycles est / sim | err | LUT est / yosys | err | FF est / yosys | err "
        "| DSP est / yosys | BRAM18 est / yosys | targets |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if "error" in r:
            err = str(r["error"]).replace("|", "/").replace("\n", " ")[:300]
            out.append(f"| {r['example']} | {r['kernel']} | {r['variant']} | error: {err} |||||||||")
            continue
        out.append(
            f"| {r['example']} | {r['kernel']} | {r['variant']} | {r['cycles_est']:,} / {r['cycles_sim']:,}"
            f"{' (data-dependent)' if r['dynamic'] else ''} | {r['cycles_err']:+.1%} "
            f"| {r['lut_est']:,} / {r['lut_yosys']:,} | {r['lut_err']:+.1%} "
            f"| {r['ff_est']:,} / {r['ff_yosys']:,} | {r['ff_err']:+.1%} "
            f"| {r['dsp_est']} / {r['dsp_yosys']} | {r['bram18_est']} / {r['bram18_yosys']} "
            f"| {'met' if r['meets'] else 'MISSED'} |"
        )
    return out


def markdown(
    rows: list[dict], env: dict, seq_rows: list[dict] | None = None, tiled_rows: list[dict] | None = None
) -> str:
    out = [
        "# Estimator fidelity against the built-in RTL",
        "",
        f"{env['machine']}, Python {env['python']}; board pynq-z2 (100 MHz, DDR latencies from the board "
        "file). Cycles: RTL simulation of every profiled and edge vector (the largest), normalised to "
        "the board's DDR burst latencies. Resources: yosys `synth_xilinx -family xc7`.",
        "",
        "Targets: cycles ±10 %, LUT and FF ±30 %, DSP and BRAM18 ±1.",
        "",
        "Each kernel in the variant the plan's built-in RTL implements (*variant*: the chosen one, or"
        " base where the backend cannot build it and says why in `rtl.note`); the ends of an"
        " AXI-Stream chain as built, with the chained array as a stream port, against that build's"
        " estimate:",
        "",
        *_table(rows),
    ]
    if seq_rows:
        out += [
            "",
            "## The `seq` variant",
            "",
            "The same kernels built in their `seq` implementation variant (innermost loops as FSM loops,"
            " no pipelines: slower, fewer pipeline registers), each against the `seq` estimate. Outside"
            " pipelines an `if` costs its longer branch in the estimate (a bound); the RTL takes the"
            " branch the data or the indices choose, so kernels with branches in those loops simulate"
            " below their estimate:",
            "",
            *_table(seq_rows),
        ]
    if tiled_rows:
        out += [
            "",
            "## The `tiled` variant",
            "",
            "The kernels with a `tiled` variant built in it (partition.estimate.tiling: the arrays a"
            " loop passes over by rows move through DDR a tile at a time, copies started from the"
            " compute FSM on the burst engines), each against the `tiled` estimate:",
            "",
            *_table(tiled_rows),
        ]
    out += [
        "",
        "## Pipelined loops",
        "",
        "| kernel | loop | trip | II | depth | cycles |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        for label, lp in r.get("loops", {}).items():
            if lp["pipelined"]:
                out.append(
                    f"| {r['kernel']} | {label} | {lp['trip']:,} | {lp['ii']} | {lp['depth']} | {lp['cycles']:,} |"
                )
    out += [
        "",
        "## II = 1: cycles within trip count + pipeline depth + burst transfer time",
        "",
        "Every pipelined loop above with II 1 takes trip + depth cycles per entry (one bounds cycle, then"
        " one iteration a cycle, then the pipeline drains), and the simulated cycles of each kernel equal"
        " the estimate exactly (first table), so the RTL runs those loops at II 1. Per kernel whose"
        " pipelines all reach II 1, its simulated cycles split into: the pipelines' trip + depth, the"
        " burst transfers of its data at the board's DDR latencies, the control cycles, and the rest"
        " (statements outside the pipelines and one bounds-check cycle per iteration and exit of each"
        " loop around them).",
        "",
        "| kernel | simulated cycles | pipelines (trip + depth) | burst transfers | control | rest |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "ii1_pipelines" in r:
            out.append(
                f"| {r['kernel']} | {r['cycles_sim']:,} | {r['ii1_pipelines']:,} | {r['ii1_transfer']:,} "
                f"| {r['ii1_control']:,} | {r['ii1_rest']:,} |"
            )
    every = rows + (seq_rows or []) + (tiled_rows or [])
    met = sum(1 for r in every if r.get("meets"))
    out += ["", f"{met} of {len(every)} kernel builds meet every target."]
    return "\n".join(out) + "\n"


def variant_rows(ex: str, plan, profile, board, app: Path, tmp: Path, built: dict, name: str) -> list[dict]:
    """The plan's kernels that have variant `name`, their built-in RTL rebuilt in it, against
    that variant's estimate (the plan's RTL entries are replaced)."""
    ests = {}
    for t in plan.data["tasks"]:
        if t["name"] in plan.rtl:
            k = built[t["name"]]
            d = next((d for d in candidate_directives(k, board) if d.name == name), None)
            if d is not None:
                t["rtl"], plan.rtl[t["name"]] = build_rtl(k, board, d)
                ests[t["name"]] = estimate_variant(k, board, d).to_json()
    if not ests:
        return []
    files, exe = build_tree(plan, profile, board, app.read_bytes())
    tree = tmp / f"{ex}_{name}"
    write_tree(tree, files, exe)
    return [
        {"example": ex, **r}
        for r in kernel_rows(tree, plan.data, ests, set(ests))
        if r.get("variant") == name
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    board = load_board("pynq-z2")
    rows = []
    seq_rows: list[dict] = []
    tiled_rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="partition-fidelity-") as tmp:
        for ex in EXAMPLES:
            app = ROOT / "examples" / f"{ex}.py"
            profile = run_profile(app, [], samples=3, baseline=False)
            plan = make_plan(profile, app.parent, board, Options())
            files, exe = build_tree(plan, profile, board, app.read_bytes())
            tree = Path(tmp) / ex
            write_tree(tree, files, exe)
            # a chain's ends as built: the plan's figures are of the array in DDR
            built = streamed_kernels(plan.data, plan.kernels)
            chained = {c[end] for c in plan.data["chains"] for end in ("src", "dst")}
            est = {}
            for t in plan.data["tasks"]:
                if t["name"] in chained and t["name"] in plan.rtl:
                    k = built[t["name"]]
                    d = next(d for d in candidate_directives(k, board) if d.name == t["rtl"]["variant"])
                    est[t["name"]] = estimate_variant(k, board, d).to_json()
            for r in kernel_rows(tree, plan.data, est):
                rows.append({"example": ex, **r})
            # the same plan with every kernel's built-in RTL in its seq variant, then tiled
            seq_rows += variant_rows(ex, plan, profile, board, app, Path(tmp), built, "seq")
            tiled_rows += variant_rows(ex, plan, profile, board, app, Path(tmp), built, "tiled")
    env = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fidelity.json").write_text(
        json.dumps(
            {"environment": env, "kernels": rows, "seq": seq_rows, "tiled": tiled_rows},
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    (args.out / "fidelity.md").write_text(markdown(rows, env, seq_rows, tiled_rows))
    print(f"wrote {args.out / 'fidelity.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
