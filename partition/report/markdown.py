"""report.md: the plan as a Markdown page (tasks, kernels, resources), from plan.json data only.

The text is templates/report/report.md.j2; this module only orders the tasks
and hands the template the resource rows the terminal summary uses too.
"""

from __future__ import annotations

from typing import Any

from partition.fmt import fmt_bytes, fmt_s
from partition.report.terminal import resource_rows
from partition.templating import render


def markdown(data: dict[str, Any]) -> str:
    """report.md for plan.json data: every task, heaviest CPU time first; FPGA kernels before the rest."""
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
