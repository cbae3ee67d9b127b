"""The report's CPU model section: how profiled times became the board's, and how far the
board's CPU may be from its figures before a decision of the plan changes."""

from __future__ import annotations

from typing import Any

from partition.report.figures import Fig, ratio_fig, seconds_fig

CLASS_NAMES = {
    "interp": "interpreter-bound Python",
    "numpy_compute": "numpy, data in the caches",
    "numpy_memory": "numpy, data beyond the caches",
}


def _times(value: float, path: str) -> Fig:
    return Fig(f"×{value:.3g}", value, path)


def cpu_model_view(plan_data: dict[str, Any]) -> dict[str, Any]:
    """Rows for the ratios per class of work, the speedup's range, and each task's decision range."""
    sc = plan_data.get("scaling") or {}
    classes = [
        {
            "name": CLASS_NAMES.get(c, c),
            "ratio": _times(r["ratio"], f"plan.scaling.classes.{c}.ratio"),
            "low": _times(r["low"], f"plan.scaling.classes.{c}.low"),
            "high": _times(r["high"], f"plan.scaling.classes.{c}.high"),
        }
        for c, r in (sc.get("classes") or {}).items()
    ]
    ends = []
    rng = (plan_data.get("predicted") or {}).get("range") or {}
    for key, label in (("fast_cpu", "the CPU at the fast end of its range"), ("slow_cpu", "at the slow end")):
        r = rng.get(key)
        if r:
            base = f"plan.predicted.range.{key}"
            ends.append(
                {
                    "label": label,
                    "all_cpu": seconds_fig(r["all_cpu_s"], f"{base}.all_cpu_s"),
                    "plan": seconds_fig(r["plan_s"], f"{base}.plan_s"),
                    "speedup": ratio_fig(r["speedup"], f"{base}.speedup"),
                }
            )
    sens = (plan_data.get("sensitivity") or {}).get("cpu") or {}
    decisions = []
    for i, t in enumerate(sens.get("tasks") or []):
        base = f"plan.sensitivity.cpu.tasks.{i}"
        decisions.append(
            {
                "name": t["name"],
                "placement": t["placement"],
                "from": _times(t["holds_from"], f"{base}.holds_from"),
                "below": t["below_grid"],
                "to": _times(t["holds_to"], f"{base}.holds_to"),
                "above": t["above_grid"],
                "flips": t["flips_within_range"],
            }
        )
    stated = sens.get("stated_range")
    return {
        "source": sc.get("source", ""),
        "classes": classes,
        "ends": ends,
        "decisions": decisions,
        "stated": [
            _times(stated[0], "plan.sensitivity.cpu.stated_range.0"),
            _times(stated[1], "plan.sensitivity.cpu.stated_range.1"),
        ]
        if stated
        else [],
        "kernel_sides": _kernel_sides(plan_data.get("sensitivity") or {}),
    }


def _kernel_sides(sens: dict[str, Any]) -> list[dict[str, Any]]:
    """For the kernels' time and resource estimates: the multipliers every decision survives."""
    out = []
    for side, what in (("fpga_time", "the kernels' FPGA times"), ("resources", "the kernels' resources")):
        s = sens.get(side)
        if not s or not s.get("tasks"):
            continue
        tasks = s["tasks"]
        lo_i = max(range(len(tasks)), key=lambda i: tasks[i]["holds_from"])
        hi_i = min(range(len(tasks)), key=lambda i: tasks[i]["holds_to"])
        out.append(
            {
                "what": what,
                "from": _times(tasks[lo_i]["holds_from"], f"plan.sensitivity.{side}.tasks.{lo_i}.holds_from"),
                "to": _times(tasks[hi_i]["holds_to"], f"plan.sensitivity.{side}.tasks.{hi_i}.holds_to"),
                "stated": [
                    _times(s["stated_range"][0], f"plan.sensitivity.{side}.stated_range.0"),
                    _times(s["stated_range"][1], f"plan.sensitivity.{side}.stated_range.1"),
                ],
                "flips": sorted(t["name"] for t in tasks if t["flips_within_range"]),
            }
        )
    return out
