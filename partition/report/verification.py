"""Verification results of a build tree: reading results/<kernel>/<step>.json, and their table in report.html.

Verification results in the build tree
--------------------------------------
The make targets (csim, RTL simulation, co-simulation, yosys) write one JSON
file per kernel and step: `results/<kernel>/<step>.json` with `<step>` one of
`csim`, `rtl_sim`, `cosim`, `yosys` and `<kernel>` the kernel's name (the
folder name under hls/ and rtl/)::

    {
      "format": "partition-result/1",
      "kernel": "fir_q15",
      "step": "rtl_sim",
      "status": "pass",            # pass | fail | error | skipped
      "vectors": 3,                # optional: vector sets checked
      "cycles": 2270,              # optional: ap_start to ap_done of one call (max over vectors)
      "lut": 812, "ff": 900, "dsp": 1, "bram18": 3,    # optional (yosys)
      "tool": "verilator 5.048",   # optional
      "detail": "3/3 vectors equal Python's",          # optional, one line
      "kernel_sha256": "…"         # optional: sha256 of kernels/<kernel>.json it checked
    }

`load_verification(build_dir)` reads them into `{kernel: {step: {...}}}`
(the `verification` argument of `render_html`), marking an entry `"stale":
true` when its kernel_sha256 no longer matches kernels/<kernel>.json (the plan
changed since the step ran). `partition report DIR` (`regenerate`) rewrites
DIR/report.html from DIR/plan.json, DIR/graph.json and DIR/results/.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.fmt import RESOURCE_NAMES
from partition.report.figures import Fig, count_fig

RESULT_FORMAT = "partition-result/1"
STEPS = ("csim", "rtl_sim", "cosim", "yosys")
STEP_TITLES = {
    "csim": "C-simulation",
    "rtl_sim": "RTL simulation",
    "cosim": "co-simulation",
    "yosys": "yosys",
}
STATUSES = ("pass", "fail", "error", "skipped")


def verification_view(plan_data: dict[str, Any], verification: dict[str, Any]) -> list[dict[str, Any]]:
    """Per kernel (the plan's FPGA kernels, then any other kernel with results) and step: a status cell."""
    kernels: list[tuple[str, dict | None]] = []
    for t in plan_data["tasks"]:
        if t["placement"] == "fpga":
            kernels.append((t.get("kernel", t["name"]), t))
    known = {k for k, _ in kernels}
    kernels += [(k, None) for k in sorted(verification) if k not in known]
    rows = []
    for k, t in kernels:
        cells = []
        for step in STEPS:
            r = (verification.get(k) or {}).get(step)
            p = f"verification.{k}.{step}"
            if not r:
                cells.append(
                    {
                        "step": step,
                        "status": "not-run",
                        "stale": False,
                        "text": "not run",
                        "figs": [],
                        "title": "",
                    }
                )
                continue
            status = r.get("status", "error")
            figs = []
            if isinstance(r.get("vectors"), int):
                figs.append(Fig(f"{r['vectors']} vector set(s)", r["vectors"], f"{p}.vectors"))
            if isinstance(r.get("cycles"), int):
                figs.append(Fig(f"{r['cycles']:,} cycles", r["cycles"], f"{p}.cycles"))
            if step == "yosys":
                figs += [
                    Fig(f"{r[q]:,} {RESOURCE_NAMES[q]}", r[q], f"{p}.{q}")
                    for q in RESOURCES
                    if isinstance(r.get(q), int)
                ]
            title = " · ".join(x for x in (r.get("tool", ""), r.get("detail", "")) if x)
            text = status
            if r.get("stale"):
                text += " (stale: the kernel changed since)"
            cells.append(
                {
                    "step": step,
                    "status": status,
                    "stale": bool(r.get("stale")),
                    "text": text,
                    "figs": figs,
                    "title": title,
                }
            )
        est = None
        rtl = (t or {}).get("rtl") or {}
        if t and t.get("fpga"):
            i = plan_data["tasks"].index(t)
            if isinstance(rtl.get("estimate_cycles"), int):  # the variant the RTL built
                est = count_fig(rtl["estimate_cycles"], f"plan.tasks.{i}.rtl.estimate_cycles")
            else:
                est = count_fig(t["fpga"]["estimate"]["cycles"], f"plan.tasks.{i}.fpga.estimate.cycles")
        rows.append(
            {
                "kernel": k,
                "task": t["name"] if t else None,
                "cells": cells,
                "estimate": est,
                "rtl_status": rtl.get("status", "unknown"),
                "rtl_reason": rtl.get("reason", ""),
            }
        )
    return rows


def load_verification(build_dir: Path) -> dict[str, Any]:
    """The verification results under build_dir/results/ as {kernel: {step: result}} (see the module doc)."""
    out: dict[str, Any] = {}
    root = Path(build_dir) / "results"
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*/*.json")):
        kernel, step = path.parent.name, path.stem
        if step not in STEPS:
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise PartitionError(
                f"{path}: not a readable results file ({e}); delete it or run its step again"
            ) from e
        if not isinstance(data, dict) or data.get("format") != RESULT_FORMAT:
            raise PartitionError(
                f"{path}: not a {RESULT_FORMAT} results file; delete it or run its step again"
            )
        if data.get("status") not in STATUSES:
            raise PartitionError(
                f"{path}: status {data.get('status')!r} is not one of {', '.join(STATUSES)}; run its step again"
            )
        entry = {k: v for k, v in data.items() if k not in ("format", "kernel", "step")}
        want = entry.get("kernel_sha256")
        ir_file = Path(build_dir) / "kernels" / f"{kernel}.json"
        if want and (not ir_file.is_file() or hashlib.sha256(ir_file.read_bytes()).hexdigest() != want):
            entry["stale"] = True
        out.setdefault(kernel, {})[step] = entry
    return out
