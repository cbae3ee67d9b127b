"""`partition plan --json`: the plan and a summary as one JSON document on stdout, for scripts and CI.

    {"format": "partition-plan-output/1", "plan": <plan.json>, "summary": {...}}

The summary is what the terminal summary says, as data: where every task went,
the predicted times, the resources against budget and device, the solver's
status, the files written and how long the steps took. Its JSON Schema is kept
in partition/schemas/plan-output.schema.json (`SCHEMA_PATH`); a test validates
real output against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from partition.boards import RESOURCES

FORMAT = "partition-plan-output/1"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "plan-output.schema.json"


def summary_data(
    plan_data: dict[str, Any], out_dir: str, timings: dict[str, float | None] | None = None
) -> dict[str, Any]:
    """The summary of a plan (see the module doc); figures are plan.json's, unrounded."""
    res = plan_data["resources"]
    resources = {}
    for r in RESOURCES:
        total = res["used"][r] + res["shell"][r]
        avail = res["available"][r]
        resources[r] = {
            "kernels": res["used"][r],
            "shell": res["shell"][r],
            "total": total,
            "cap": res["budget"][r] + res["shell"][r],
            "available": avail,
            "fraction": total / avail if avail else None,
        }
    out = Path(out_dir)
    return {
        "app": plan_data["app"],
        "board": plan_data["board"]["name"],
        "objective": plan_data["objective"],
        "fpga": [t["name"] for t in plan_data["tasks"] if t["placement"] == "fpga"],
        "cpu": [t["name"] for t in plan_data["tasks"] if t["placement"] != "fpga"],
        "variants": {t["name"]: t["variant"] for t in plan_data["tasks"] if t.get("variant")},
        "predicted": dict(plan_data["predicted"]),
        "resources": resources,
        "solver": {"name": plan_data["solver"]["name"], "status": plan_data["solver"]["status"]},
        "out": str(out),
        "files": {
            "plan": str(out / "plan.json"),
            "report_html": str(out / "report.html"),
            "report_md": str(out / "report.md"),
        },
        "timings": dict(timings or {}),
    }


def plan_output(
    plan_data: dict[str, Any], out_dir: str, timings: dict[str, float | None] | None = None
) -> str:
    """The --json document as text (sorted keys, one trailing newline)."""
    doc = {"format": FORMAT, "plan": plan_data, "summary": summary_data(plan_data, out_dir, timings)}
    return json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n"
