"""The alternatives and sweep tables of report.html: other partitions of the same app, with their figures.

Both are optional parts of plan.json (`--top-k`, `--sweep`) with the
same columns (FPGA tasks, predicted time, speedup, resources); the page shows
them only when the plan has them.
"""

from __future__ import annotations

from typing import Any

from partition.boards import RESOURCES
from partition.fmt import fmt_s
from partition.report.figures import Fig, count_fig, ratio_fig, seconds_fig


def _used_cells(used: dict[str, Any] | None, path: str) -> list[Fig | None]:
    if not used:
        return [None] * len(RESOURCES)
    return [count_fig(used[r], f"{path}.{r}") if r in used else None for r in RESOURCES]


def alternatives_view(plan_data: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per next-best partition, with how much slower it is than the plan."""
    best = plan_data["predicted"]["plan_s"]
    rows = []
    for k, a in enumerate(plan_data.get("alternatives") or []):
        p = f"plan.alternatives.{k}"
        variants = a.get("variants") or {}
        rows.append(
            {
                "rank": a.get("rank", k + 2),
                "fpga": [f"{n} ({variants[n]})" if n in variants else n for n in a.get("fpga", [])],
                "plan_s": seconds_fig(a["plan_s"], f"{p}.plan_s"),
                "speedup": ratio_fig(a.get("speedup"), f"{p}.speedup"),
                "worse": Fig(
                    "+" + fmt_s(a["plan_s"] - best),
                    a["plan_s"] - best,
                    derived_from=[f"{p}.plan_s", "plan.predicted.plan_s"],
                ),
                "used": _used_cells(a.get("used"), f"{p}.used"),
                "status": a.get("status", ""),
            }
        )
    return rows


def sweep_view(plan_data: dict[str, Any]) -> dict[str, Any] | None:
    """The sweep's parameters and one row per setting (None without a sweep)."""
    sw = plan_data.get("sweep")
    if not sw:
        return None
    params = list(sw.get("parameters") or sorted({k for r in sw["rows"] for k in r.get("params", {})}))
    rows = []
    for k, r in enumerate(sw["rows"]):
        p = f"plan.sweep.rows.{k}"
        rows.append(
            {
                "params": [
                    Fig(str(r["params"][q]), r["params"][q], f"{p}.params.{q}") if q in r["params"] else None
                    for q in params
                ],
                "plan_s": seconds_fig(r["plan_s"], f"{p}.plan_s") if r.get("plan_s") is not None else None,
                "speedup": ratio_fig(r.get("speedup"), f"{p}.speedup"),
                "fpga": list(r.get("fpga", [])),
                "used": _used_cells(r.get("used"), f"{p}.used"),
                "status": r.get("status", "") + (" · Pareto-optimal" if r.get("pareto") else ""),
            }
        )
    return {"parameters": params, "rows": rows}
