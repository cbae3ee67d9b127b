"""Reports of a plan: the terminal summary and report.md, both from plan.json data."""

from __future__ import annotations

from typing import Any

from partition.codegen import render
from partition.report.terminal import fmt_bytes, fmt_s, resource_rows, summary

__all__ = ["markdown", "summary"]


def markdown(data: dict[str, Any]) -> str:
    tasks = sorted(data["tasks"], key=lambda t: (-t["cpu_s"], t["name"]))
    kernels = [t for t in tasks if t.get("fpga") and t["placement"] == "fpga"]
    kernels += [t for t in tasks if t.get("fpga") and t["placement"] != "fpga"]
    return render(
        "report/report.md.j2",
        d=data,
        tasks=tasks,
        kernels=kernels,
        resources=resource_rows(data),
        fmt_s=fmt_s,
        fmt_bytes=fmt_bytes,
    )
