"""The tasks table and the kernel details of report.html.

One row per task (CPU time, FPGA estimate per variant, what simulation and
synthesis measured, speedup, placement and why), and per FPGA-capable task
the estimate of one call in detail (loops, call overhead, notes).
"""

from __future__ import annotations

from typing import Any

from partition.boards import RESOURCES
from partition.fmt import RESOURCE_NAMES, fmt_s
from partition.report.figures import Fig, count_fig, seconds_fig, speedup_fig
from partition.report.verification import STEP_TITLES


def _variants(t: dict[str, Any]) -> list[dict[str, Any]]:
    """The FPGA variants of a task as (name, total_s, estimate, path, chosen)."""
    fpga = t["fpga"]
    base = f"plan.tasks.{t['_index']}.fpga"
    if fpga.get("variants"):
        out = []
        for k, v in enumerate(fpga["variants"]):
            # the base variant's time is the task's own fpga.total_s (the same value): cite that
            same = v["name"] == fpga["estimate"].get("variant") and v["total_s"] == fpga["total_s"]
            out.append(
                {
                    "name": v["name"],
                    "total": seconds_fig(
                        v["total_s"], f"{base}.total_s" if same else f"{base}.variants.{k}.total_s"
                    ),
                    "est": v["estimate"],
                    "path": f"{base}.variants.{k}.estimate",
                    "chosen": t["placement"] == "fpga" and v["name"] == t.get("variant"),
                }
            )
        return out
    est = fpga["estimate"]
    return [
        {
            "name": est.get("variant", "base"),
            "total": seconds_fig(fpga["total_s"], f"{base}.total_s"),
            "est": est,
            "path": f"{base}.estimate",
            "chosen": t["placement"] == "fpga",
        }
    ]


def _chosen_fpga_s(t: dict[str, Any]) -> tuple[float, str]:
    """The FPGA time of a task's chosen (or only) variant, and its path."""
    fpga = t["fpga"]
    base = f"plan.tasks.{t['_index']}.fpga"
    for k, v in enumerate(fpga.get("variants") or []):
        if v["name"] == t.get("variant"):
            return v["total_s"], f"{base}.variants.{k}.total_s"
    return fpga["total_s"], f"{base}.total_s"


def _measured(kernel: str | None, verification: dict[str, Any], clock_mhz: float | None) -> list[Fig]:
    """Measured figures of one call of a kernel: cycles from simulation, resources from yosys."""
    if not kernel or kernel not in verification:
        return []
    out = []
    v = verification[kernel]
    for step in ("cosim", "rtl_sim"):
        r = v.get(step) or {}
        if r.get("status") == "pass" and isinstance(r.get("cycles"), int):
            of = f", variant {r['variant']}" if r.get("variant", "base") != "base" else ""
            text = f"{r['cycles']:,} cycles ({STEP_TITLES[step]}{of})"
            if clock_mhz:
                text += f" = {fmt_s(r['cycles'] / (clock_mhz * 1e6))}/call"
            out.append(Fig(text, r["cycles"], f"verification.{kernel}.{step}.cycles"))
            break
    y = v.get("yosys") or {}
    if y.get("status") == "pass" and all(isinstance(y.get(r), int) for r in RESOURCES):
        text = ", ".join(f"{y[r]:,} {RESOURCE_NAMES[r]}" for r in RESOURCES) + " (yosys)"
        out.append(Fig(text, {r: y[r] for r in RESOURCES}, f"verification.{kernel}.yosys"))
    return out


def task_rows(plan_data: dict[str, Any], verification: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per task, heaviest CPU time first."""
    order = sorted(range(len(plan_data["tasks"])), key=lambda i: (-plan_data["tasks"][i]["cpu_s"], i))
    rows = []
    for i in order:
        t = dict(plan_data["tasks"][i], _index=i)
        p = f"plan.tasks.{i}"
        fpga = t.get("fpga")
        row: dict[str, Any] = {
            "name": t["name"],
            "index": i,
            "source": f"{t['file']}:{t['line']}",
            "calls": count_fig(t["calls"], f"{p}.calls"),
            "cpu": seconds_fig(t["cpu_s"], f"{p}.cpu_s"),
            "placement": t["placement"],
            "reason": Fig(t["reason"], t["reason"], f"{p}.reason"),
            "pin": t.get("pin"),
            "variants": [],
            "speedup": None,
            "measured": [],
        }
        if fpga:
            row["variants"] = _variants(t)
            fs, fpath = _chosen_fpga_s(t)
            row["speedup"] = speedup_fig(t["cpu_s"], fs, [f"{p}.cpu_s", fpath])
            row["measured"] = _measured(
                t.get("kernel"), verification, fpga["estimate"].get("clock_mhz") if fpga else None
            )
        rows.append(row)
    return rows


def kernel_details(plan_data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per FPGA-capable task: the estimate of one call in detail (loops, call overhead, notes)."""
    out = []
    for i, t in enumerate(plan_data["tasks"]):
        fpga = t.get("fpga")
        if not fpga:
            continue
        e = fpga["estimate"]
        p = f"plan.tasks.{i}.fpga"
        call_s = e["cycles"] / (e["clock_mhz"] * 1e6)
        loops = []
        for label, lp in sorted(e.get("loops", {}).items()):
            loops.append(
                {
                    "label": label,
                    "trip": count_fig(lp["trip"], f"{p}.estimate.loops.{label}.trip"),
                    "ii": Fig(str(lp["ii"]), lp["ii"], f"{p}.estimate.loops.{label}.ii")
                    if lp.get("pipelined")
                    else None,
                    "depth": Fig(str(lp["depth"]), lp["depth"], f"{p}.estimate.loops.{label}.depth"),
                    "cycles": count_fig(lp["cycles"], f"{p}.estimate.loops.{label}.cycles"),
                }
            )
        pc = fpga["per_call"]
        rl = fpga.get("roofline")
        roof = None
        if rl:
            c = rl["configuration"]
            roof = {
                "bound": count_fig(rl["bound_cycles"], f"{p}.roofline.bound_cycles"),
                "why": rl["why"],
                "variant": c["variant"],
                "chosen": t["placement"] == "fpga",
                "cycles": count_fig(c["cycles"], f"{p}.roofline.configuration.cycles"),
                "fraction": Fig(
                    f"{c['fraction']:.1%}", c["fraction"], f"{p}.roofline.configuration.fraction"
                ),
                "limited_by": c["limited_by"],
            }
        out.append(
            {
                "task": t["name"],
                "kernel": t.get("kernel", t["name"]),
                "placement": t["placement"],
                "cycles": count_fig(e["cycles"], f"{p}.estimate.cycles"),
                "clock": Fig(f"{e['clock_mhz']:g} MHz", e["clock_mhz"], f"{p}.estimate.clock_mhz"),
                "call_s": Fig(
                    fmt_s(call_s),
                    call_s,
                    derived_from=[f"{p}.estimate.cycles", f"{p}.estimate.clock_mhz"],
                ),
                "overhead": seconds_fig(pc["overhead_s"], f"{p}.per_call.overhead_s"),
                "mmio": f"{pc['mmio_writes']} register writes a call "
                f"(the first {pc.get('mmio_writes_first', pc['mmio_writes'])}), {pc['mmio_reads']} reads, "
                f"{pc['buffers']} buffer syncs",
                "source": e.get("source", "model"),
                "resources": [(RESOURCE_NAMES[r], count_fig(e[r], f"{p}.estimate.{r}")) for r in RESOURCES],
                "loops": loops,
                "roofline": roof,
                "notes": list(t.get("notes", []))
                + [n for n in e.get("notes", []) if n not in t.get("notes", [])],
            }
        )
    return out
