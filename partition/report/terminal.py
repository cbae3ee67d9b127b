"""The terminal summary of a plan: per task where it goes and why, resources, speedup.

Works from plan.json data only, so a saved plan prints the same table.
"""

from __future__ import annotations

from typing import Any

from partition.solve.model import RESOURCES


def fmt_s(s: float | None) -> str:
    if s is None:
        return "—"
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} B"


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
                "name": {"lut": "LUT", "ff": "FF", "dsp": "DSP", "bram18": "BRAM18"}[r],
                "used": used,
                "kernels": float(res["used"][r]),
                "shell": float(res["shell"][r]),
                "budget": float(res["budget"][r]) + float(res["shell"][r]),
                "available": avail,
                "frac": used / avail if avail else 0.0,
            }
        )
    return rows


def summary(data: dict[str, Any], out_dir: str | None = None) -> str:
    b = data["board"]
    sc = data["scaling"]
    lines = [f"partition plan: {data['app']} on {b['name']} ({b['part']}, PL {b['pl_mhz']:g} MHz)"]
    if sc["profiled_on_board"]:
        lines.append("CPU times: measured on the board")
    else:
        lines.append(
            f"CPU times: profiled here, scaled ×{sc['factor']:.1f} to the board's CPU "
            "(micro-benchmark ratio; calibrate on the board for exact figures)"
        )
    lines.append("")
    rows = [("task", "calls", "CPU (board)", "FPGA est.", "where", "why")]
    for t in sorted(data["tasks"], key=lambda t: (-t["cpu_s"], t["name"])):
        fpga = t.get("fpga")
        rows.append(
            (
                t["name"],
                f"{t['calls']:,}",
                fmt_s(t["cpu_s"]),
                fmt_s(fpga["total_s"]) if fpga else "—",
                t["placement"].upper(),
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
    p = data["predicted"]
    lines.append("")
    speed = p["speedup"]
    lines.append(
        f"predicted: all on the CPU {fmt_s(p['all_cpu_s'])} -> this plan {fmt_s(p['plan_s'])}"
        + (f"  ({speed:,.2f}× faster)" if speed else "")
    )
    s = data["solver"]
    extra = f", solved in {s['solve_time_s']:.2f} s" if "solve_time_s" in s else ""
    lines.append(f"solver: {s['name']}, {s['status']}{extra}")
    fpga = [t["name"] for t in data["tasks"] if t["placement"] == "fpga"]
    if out_dir:
        lines.append(f"build tree: {out_dir}")
        if fpga:
            lines.append(
                f"  make -C {out_dir} csim     # C-simulation of {len(fpga)} kernel(s) against Python"
            )
    return "\n".join(lines)
