"""The terminal summary of a plan: per task where it goes and why, resources, speedup.

Works from plan.json data only, so a saved plan prints the same table.
"""

from __future__ import annotations

import shlex
from typing import Any

from partition.boards import RESOURCES
from partition.fmt import RESOURCE_NAMES, fmt_s


def bar(frac: float, width: int = 20) -> str:
    frac = max(0.0, min(1.0, frac))
    full = round(frac * width)
    return "█" * full + "░" * (width - full)


def resource_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    res = data["resources"]
    rows = []
    for r in RESOURCES:
        avail = float(res["available"][r])
        used = float(res["used"][r]) + float(res["shell"][r])
        rows.append(
            {
                "name": RESOURCE_NAMES[r],
                "used": used,
                "kernels": float(res["used"][r]),
                "shell": float(res["shell"][r]),
                "budget": float(res["budget"][r]) + float(res["shell"][r]),
                "available": avail,
                "frac": used / avail if avail else 0.0,
            }
        )
    return rows


def sensitivity_lines(sens: dict[str, Any]) -> list[str]:
    """How far the CPU figures may be off before a decision changes, and whether one changes
    within their stated range."""
    tasks = sens.get("tasks") or []
    if not tasks:
        return []
    lo = max(t["holds_from"] for t in tasks)
    hi = min(t["holds_to"] for t in tasks)
    ms = sens["multipliers"]
    stated = sens["stated_range"]
    low = "any lower" if all(t["below_grid"] for t in tasks) else f"×{lo:.2g}"
    high = "any higher" if all(t["above_grid"] for t in tasks) else f"×{hi:.2g}"
    text = f"decisions: every placement holds for board CPU times from {low} to {high} of the figures used"
    edges = []
    if low != "any lower":
        who = ", ".join(sorted(t["name"] for t in tasks if t["holds_from"] == lo))
        edges.append(f"{who} changes between ×{max(m for m in ms if m < lo):.2g} and ×{lo:.2g}")
    if high != "any higher":
        who = ", ".join(sorted(t["name"] for t in tasks if t["holds_to"] == hi))
        edges.append(f"{who} changes between ×{hi:.2g} and ×{min(m for m in ms if m > hi):.2g}")
    text += f" ({'; '.join(edges)})" if edges else ""
    rng = f"×{stated[0]:.2g}–×{stated[1]:.2g}"
    moved = sorted(t["name"] for t in tasks if t["flips_within_range"])
    if moved:
        return [text, f"  {', '.join(moved)}: placement changes within the figures' range {rng}"]
    return [text, f"  no placement changes within the figures' range {rng}"]


def scaling_lines(sc: dict[str, Any]) -> list[str]:
    """How profiled CPU times became the board's: each class's ratio, its range, its source."""
    classes = sc.get("classes") or {}
    if not classes:
        return [
            f"CPU times: profiled here, scaled ×{sc['factor']:.1f} to the board's CPU ({sc.get('source', '')})"
        ]
    names = {
        "interp": "interpreter",
        "numpy_compute": "numpy (cached data)",
        "numpy_memory": "numpy (DDR-bound)",
    }
    parts = [
        f"{names.get(c, c)} ×{r['ratio']:.1f} (×{r['low']:.1f}–×{r['high']:.1f})" for c, r in classes.items()
    ]
    return [
        "CPU times: profiled here, scaled to the board's CPU: " + ", ".join(parts),
        f"  source: {sc['source']}; calibrate on the board (boards/<board>.calibrate.py) for measured figures",
    ]


def summary(data: dict[str, Any], out_dir: str | None = None) -> str:
    b = data["board"]
    sc = data["scaling"]
    lines = [f"partition plan: {data['app']} on {b['name']} ({b['part']}, PL {b['pl_mhz']:g} MHz)"]
    if sc["profiled_on_board"]:
        lines.append("CPU times: measured on the board")
    else:
        lines.extend(scaling_lines(sc))
    lines.append("")
    rows = [("task", "calls", "CPU (board)", "FPGA est.", "where", "why")]
    for t in sorted(data["tasks"], key=lambda t: (-t["cpu_s"], t["name"])):
        fpga = t.get("fpga")
        where = t["placement"].upper()
        if t["placement"] == "fpga" and len(fpga.get("variants") or []) > 1:
            where += f" ({t.get('variant', 'base')})"
        rows.append(
            (
                t["name"],
                f"{t['calls']:,}",
                fmt_s(t["cpu_s"]),
                fmt_s(chosen_fpga_s(t)) if fpga else "—",
                where,
                t["reason"],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]), r[3].rjust(widths[3])]
        cells.append(r[4].ljust(widths[4]))
        lines.append("  " + "  ".join(cells) + "  " + r[5])
        if k == 0:
            lines.append("  " + "-" * (sum(widths) + 8 + 4 + 20))
    lines.append("")
    lines.append(f"resources ({data['max_util']:.0%} utilisation cap; the overlay shell included):")
    for row in resource_rows(data):
        lines.append(
            f"  {row['name']:<6} {row['used']:>9,.0f} / {row['available']:>9,.0f}  {bar(row['frac'])} "
            f"{row['frac']:>4.0%}  (budget {row['budget']:,.0f})"
        )
    lines.extend(roofline_lines(data))
    for c in data.get("chains", []):
        lines.append(
            f"AXI-Stream chain: {c['src']} -> {c['dst']} (argument {c['param']}): saves {fmt_s(c['saving_s'])} "
            f"over all calls (stream {fmt_s(c['stream_s'])})"
        )
    if data.get("warnings"):
        lines.append("")
        lines.extend(f"warning: {w}" for w in data["warnings"])
    p = data["predicted"]
    lines.append("")
    speed = p["speedup"]
    obj = data.get("objective", "latency")
    what = {"latency": "", "makespan": " (makespan, one run)", "throughput": " (period per frame)"}[obj]
    lines.append(
        f"predicted{what}: all on the CPU {fmt_s(p['all_cpu_s'])} -> this plan {fmt_s(p['plan_s'])}"
        + (f"  ({speed:,.2f}× faster)" if speed else "")
    )
    lines.extend(sensitivity_lines((data.get("sensitivity") or {}).get("cpu") or {}))
    rng = p.get("range")
    if rng and all(r["speedup"] for r in rng.values()):
        fast, slow = rng["fast_cpu"], rng["slow_cpu"]
        lines.append(
            f"  over the board CPU figures' range: {fast['speedup']:,.2f}× (faster CPU) to "
            f"{slow['speedup']:,.2f}× (slower CPU)"
        )
    s = data["solver"]
    extra = f", solved in {s['solve_time_s']:.2f} s" if "solve_time_s" in s else ""
    if s.get("gap"):
        extra += f", gap {s['gap']:.2%}"
    lines.append(f"solver: {s['name']}, {s['status']}{extra}")
    model = data.get("model")
    if model:
        cores = f", {model['cpu_cores']} CPU core(s)" if obj != "latency" else ""
        lines.append(f"model ({obj}{cores}):")
        lines.extend(f"  - {a}" for a in model["assumptions"])
        if model.get("measured_estimates"):
            lines.append(
                f"  - {model['measured_estimates']} estimate(s) replaced by measured figures (--calibrate)"
            )
    lines.extend(schedule_lines(data))
    lines.extend(alternative_lines(data))
    lines.extend(sweep_lines(data))
    fpga = [t["name"] for t in data["tasks"] if t["placement"] == "fpga"]
    if out_dir:
        lines.append(f"build tree: {out_dir}")
        if fpga:
            lines.append(
                f"  make -C {shlex.quote(str(out_dir))} csim     # C-simulation of {len(fpga)} kernel(s) against Python"
            )
    return "\n".join(lines)


def roofline_lines(data: dict[str, Any]) -> list[str]:
    """Each FPGA kernel against its roofline: the fewest cycles the board's DSP slices, HP port
    and the kernel's true recurrences allow a call, the fraction its configuration reaches, and
    what limits that configuration."""
    kernels = [t for t in data["tasks"] if t["placement"] == "fpga" and (t.get("fpga") or {}).get("roofline")]
    if not kernels:
        return []
    lines = ["", "roofline (a call's fewest cycles on this board; the chosen configuration's share of it):"]
    for t in sorted(kernels, key=lambda t: t["name"]):
        rl = t["fpga"]["roofline"]
        c = rl["configuration"]
        lines.append(
            f"  {t['name']}: {c['cycles']:,} cycles, {c['fraction']:.1%} of the bound {rl['bound_cycles']:,} "
            f"({rl['why']})"
        )
        lines.append(f"    limited by {c['limited_by']}")
    return lines


def chosen_fpga_s(t: dict[str, Any]) -> float:
    """The FPGA time of a task's chosen variant (its base figures when it has none)."""
    for v in t["fpga"].get("variants") or []:
        if v["name"] == t.get("variant"):
            return v["total_s"]
    return t["fpga"]["total_s"]


def schedule_lines(data: dict[str, Any]) -> list[str]:
    sched = [e for e in data.get("schedule") or [] if e["resource"] and e["end_s"] > e["start_s"]]
    if not sched:
        return []
    title = "one period per resource" if data["objective"] == "throughput" else "schedule (solver's)"
    lines = ["", f"{title}:"]
    rows = [("resource", "start", "end", "job")]
    for e in sched:
        rows.append((e["resource"], fmt_s(e["start_s"]), fmt_s(e["end_s"]), f"{e['task']} ({e['kind']})"))
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        lines.append(f"  {r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:>{w[2]}}  {r[3]}")
    return lines


def _used_text(used: dict[str, Any] | None) -> str:
    if not used:
        return ""
    return " ".join(f"{used[r]:,.0f} {RESOURCE_NAMES[r]}" for r in ("lut", "dsp", "bram18"))


def alternative_lines(data: dict[str, Any]) -> list[str]:
    alts = data.get("alternatives")
    if alts is None:
        return []
    lines = ["", "alternatives (next-best distinct partitions):"]
    if not alts:
        lines.append("  none: no other partition is feasible")
    best = data["predicted"]["plan_s"]
    for a in alts:
        fpga = ", ".join(f"{n} ({a['variants'][n]})" if n in a.get("variants", {}) else n for n in a["fpga"])
        lines.append(
            f"  #{a['rank']}: {fmt_s(a['plan_s'])} (+{fmt_s(a['plan_s'] - best)})  "
            f"FPGA: {fpga or 'none'}  [{_used_text(a.get('used'))}]"
        )
    return lines


def sweep_lines(data: dict[str, Any]) -> list[str]:
    sw = data.get("sweep")
    if not sw:
        return []
    lines = [
        "",
        f"sweep ({sw.get('objective', data['objective'])}; * = Pareto-optimal: time vs LUT/DSP/BRAM18):",
    ]
    rows = [("", "board", "max-util", "predicted", "speedup", "LUT", "DSP", "BRAM18", "FPGA tasks")]
    for r in sw["rows"]:
        u = r.get("used") or {}
        rows.append(
            (
                "*" if r.get("pareto") else "",
                str(r["params"].get("board", data["board"]["name"])),
                f"{r['params'].get('max_util', data['max_util']):g}",
                fmt_s(r["plan_s"]) if r.get("plan_s") is not None else r.get("status", "—"),
                f"{r['speedup']:,.2f}×" if r.get("speedup") else "—",
                f"{u['lut']:,.0f}" if u else "—",
                f"{u['dsp']:,.0f}" if u else "—",
                f"{u['bram18']:,.0f}" if u else "—",
                ", ".join(r.get("fpga", [])) or "—",
            )
        )
    w = [max(len(x[i]) for x in rows) for i in range(8)]
    for x in rows:
        cells = [x[0].ljust(w[0]), x[1].ljust(w[1])] + [x[i].rjust(w[i]) for i in range(2, 8)]
        lines.append("  " + "  ".join(cells) + "  " + x[8])
    return lines


def explain_text(info: dict[str, Any], data: dict[str, Any]) -> str:
    """`partition explain`: why one function went where it went."""
    lines = [f"{info['task']} ({info['source']}, {info['calls']:,} call(s)) on {data['board']['name']}"]
    variant = info.get("variant")
    shown = variant and f"variant {variant}" not in info["reason"]  # the reason may name it already
    place = info["placement"].upper() + (f", variant {variant}" if shown else "")
    lines.append(f"  placement: {place} — {info['reason']}")
    lines.append(f"  CPU time on the board: {fmt_s(info['cpu_s'])} (all calls)")
    obj = info["objective"]
    lines.append(f"  objective {obj}: this plan {fmt_s(info['plan_s'])}")
    if "variants" not in info:
        lines.append("  no FPGA estimate: the function is not translatable (see the reason)")
        return "\n".join(lines)
    lines.append("  FPGA variants (all calls: compute + call overhead + copy-out):")
    name_w = max(len(v["name"]) for v in info["variants"])
    for v in info["variants"]:
        mark = "→" if v["chosen"] else " "
        res = ", ".join(f"{v['resources'][r]:,} {n}" for r, n in RESOURCE_NAMES.items())
        src = "" if v["source"] == "model" else f"  [measured: {', '.join(sorted(v['measured']))}]"
        lines.append(
            f"   {mark} {v['name']:<{name_w}} {fmt_s(v['total_s']):>10}  ({v['cycles']:,} cycles/call; "
            f"compute {fmt_s(v['compute_s'])}, overhead {fmt_s(v['overhead_s'])}, copy-out {fmt_s(v['copy_out_s'])})"
        )
        lines.append(f"       {res}; {v['describe']}{src}")
        limits = list(v["ii_limits"])
        if v["over_budget"]:
            limits.append("over the budget alone: " + ", ".join(r.upper() for r in v["over_budget"]))
        if limits:
            lines.append("       limited by: " + "; ".join(limits))
    for c in info.get("chains", []):
        if c["used"]:
            lines.append(f"  AXI-Stream chain {c['src']} -> {c['dst']}: used, saves {fmt_s(c['saving_s'])}")
        elif c["reason"]:
            lines.append(f"  AXI-Stream chain {c['src']} -> {c['dst']}: not possible: {c['reason']}")
        elif c.get("why_unused"):
            lines.append(
                f"  AXI-Stream chain {c['src']} -> {c['dst']}: possible, not used: {c['why_unused']}"
            )
        else:
            lines.append(
                f"  AXI-Stream chain {c['src']} -> {c['dst']}: possible, not used (both ends must be on the "
                "FPGA and the stream must save time)"
            )
    moves = info.get("transfers") or []
    if moves:
        lines.append("  transfers (copies into FPGA buffers), now -> if it moved to the other side:")
        for m in moves:
            lines.append(f"    {m['src']} -> {m['dst']}: {fmt_s(m['now_s'])} -> {fmt_s(m['moved_s'])}")
    b, u = info["budget"], info["used"]
    lines.append(
        "  budget used by the plan: "
        + ", ".join(f"{u[r]:,.0f}/{b[r]:,.0f} {n}" for r, n in RESOURCE_NAMES.items())
    )
    return "\n".join(lines)
