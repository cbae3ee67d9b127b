"""The resource bars of report.html: per resource, the kernels and the shell against the cap and the device.

The only part of the page that turns figures into widths: the cap a bar marks
is the kernels' budget plus the overlay's fixed shell.
"""

from __future__ import annotations

from typing import Any

from partition.boards import RESOURCES
from partition.fmt import RESOURCE_NAMES
from partition.report.figures import Fig, count_fig


def resource_bars(plan_data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per resource: kernels and shell against the budget (the cap) and the device, as bar widths in %."""
    res = plan_data["resources"]
    bars = []
    for r in RESOURCES:
        kernels, shell = res["used"][r], res["shell"][r]
        budget, avail = res["budget"][r], res["available"][r]
        cap = budget + shell
        total = kernels + shell

        def pct(x: float, avail: float = avail) -> str:
            return f"{100.0 * max(0.0, min(x, avail)) / avail:.3f}" if avail else "0"

        bars.append(
            {
                "key": r,
                "name": RESOURCE_NAMES[r],
                "kernels": count_fig(kernels, f"plan.resources.used.{r}"),
                "shell": count_fig(shell, f"plan.resources.shell.{r}"),
                "budget": count_fig(budget, f"plan.resources.budget.{r}"),
                "available": count_fig(avail, f"plan.resources.available.{r}"),
                "total": Fig(
                    f"{total:,.0f}",
                    total,
                    derived_from=[f"plan.resources.used.{r}", f"plan.resources.shell.{r}"],
                ),
                "cap": Fig(
                    f"{cap:,.0f}",
                    cap,
                    derived_from=[f"plan.resources.budget.{r}", f"plan.resources.shell.{r}"],
                ),
                "use": Fig(
                    f"{100.0 * total / avail:.1f} %" if avail else "—",
                    total / avail if avail else None,
                    derived_from=[
                        f"plan.resources.used.{r}",
                        f"plan.resources.shell.{r}",
                        f"plan.resources.available.{r}",
                    ],
                ),
                "shell_pct": pct(shell),
                "kernels_pct": f"{float(pct(total)) - float(pct(shell)):.3f}",
                "cap_pct": pct(cap),
                "over": total > cap + 1e-9,
            }
        )
    return bars
