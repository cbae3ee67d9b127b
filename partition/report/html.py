"""report.html: the plan as one self-contained page (no network, no fonts, no scripts from elsewhere).

`render_html(plan_data, graph_json, verification)` turns plan.json, graph.json
and the verification results of the build tree into the page that
templates/report/report.html.j2 lays out: the task graph (inline SVG, laid out
here, deterministically), a table of every task, resource bars, the predicted
timeline as a Gantt chart, the alternatives and sweep tables when the plan has
them, and the verification status of every kernel.

Every figure is traceable: it carries its raw value and the place of that
value in the inputs (partition.report.figures). Each part of the page is
prepared in its own module (graph_view, tasks, bars, timeline, alternatives,
verification); this one puts them together and writes the file.

Optional inputs (render nothing when absent)
--------------------------------------------
* FPGA variants of a task: `task["fpga"]["variants"]`, a list of
  `{"name": str, "total_s": float, "estimate": <Estimate JSON>}` (more keys
  allowed), and `task["variant"]`, the chosen one's name. The other figures
  of `task["fpga"]` (total_s, compute_s, overhead_s, copy_out_s, per_call,
  estimate) are the base variant's; `task["rtl"]` names the variant the
  built-in RTL built and its estimated cycles (what its simulation is
  compared with). Without variants the task has the
  one estimate in `task["fpga"]["estimate"]`.
* `plan_data["model"]["assumptions"]`: the objective's model in sentences;
  the timeline states them.
* `plan_data["schedule"]`: the jobs of one run as a makespan solution gives
  them (`partition.solve.model.schedule_entries`): a list of
  `{"task": str, "kind": "task" | "transfer" | "main", "resource": "cpu0" |
  "cpu1" | "fpga" | "", "start_s": float, "end_s": float}`. Drawn as it is.
  Without it, and for the `latency` objective, the timeline is derived from
  the plan (see `timeline`).
* `plan_data["alternatives"]`: the next-best distinct partitions, a list of
  `{"rank": int (optional; position + 2 when absent, the plan itself being
  rank 1), "plan_s": float, "speedup": float | None, "fpga": [task, ...],
  "variants": {task: variant} (optional), "used": {"lut", "ff", "dsp",
  "bram18"} (optional), "status": str (optional)}`.
* `plan_data["sweep"]`: plans over a grid of settings,
  `{"parameters": [name, ...], "rows": [{"params": {name: value}, "plan_s":
  float | None, "speedup": float | None, "fpga": [task, ...], "used": {...}
  (optional), "status": str}]}`; `plan_s` None for a setting without a plan.

The verification results (results/<kernel>/<step>.json, their format and
`load_verification`) are partition.report.verification's. `partition report
DIR` (`regenerate`) rewrites DIR/report.html from DIR/plan.json,
DIR/graph.json and DIR/results/.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.fmt import RESOURCE_NAMES, fmt_bytes, fmt_s
from partition.fsutil import MANIFEST, write_bytes_atomic
from partition.report.alternatives import alternatives_view, sweep_view
from partition.report.bars import resource_bars
from partition.report.cpu_model import cpu_model_view
from partition.report.figures import Fig, count_fig, ratio_fig, seconds_fig
from partition.report.graph_view import graph_view, layout_order, task_graph
from partition.report.tasks import kernel_details, task_rows
from partition.report.timeline import gantt_views, segment_rows, timeline
from partition.report.verification import STEP_TITLES, STEPS, load_verification, verification_view
from partition.templating import render

REPORT = "report.html"


def render_html(
    plan_data: dict[str, Any], graph_json: dict[str, Any], verification: dict[str, Any] | None = None
) -> str:
    """The report page for plan.json data, graph.json data and verification results (see the module doc)."""
    verification = verification or {}
    g = task_graph(graph_json)
    order, _ = layout_order(g)
    tl = timeline(plan_data, order)
    pred = plan_data["predicted"]
    summary = {
        "all_cpu": seconds_fig(pred["all_cpu_s"], "plan.predicted.all_cpu_s"),
        "plan": seconds_fig(pred["plan_s"], "plan.predicted.plan_s"),
        "speedup": ratio_fig(pred.get("speedup"), "plan.predicted.speedup"),
        "factor": Fig(
            f"×{plan_data['scaling']['factor']:.1f}", plan_data["scaling"]["factor"], "plan.scaling.factor"
        ),
        "max_util": Fig(f"{plan_data['max_util'] * 100:g} %", plan_data["max_util"], "plan.max_util"),
    }
    edges = [
        {
            "index": k,
            "src": e["src"],
            "dst": e["dst"],
            "what": e["what"],
            "bytes": Fig(fmt_bytes(e["bytes"]), e["bytes"], f"plan.edges.{k}.bytes"),
            "count": count_fig(e["count"], f"plan.edges.{k}.count"),
            "crossing": e["crossing"],
            "cost": seconds_fig(e["cost_s"], f"plan.edges.{k}.cost_s"),
        }
        for k, e in enumerate(plan_data.get("edges", []))
    ]
    return render(
        "report/report.html.j2",
        d=plan_data,
        summary=summary,
        graph=graph_view(plan_data, graph_json),
        tasks=task_rows(plan_data, verification),
        kernels=kernel_details(plan_data),
        bars=resource_bars(plan_data),
        timeline=tl,
        gantts=gantt_views(tl) if tl else [],
        segments=segment_rows(tl) if tl else [],
        alternatives=alternatives_view(plan_data),
        cpu=cpu_model_view(plan_data),
        sweep=sweep_view(plan_data),
        verification=verification_view(plan_data, verification),
        step_titles=STEP_TITLES,
        steps=STEPS,
        res_names=[RESOURCE_NAMES[r] for r in RESOURCES],
        edges=edges,
        chains=[
            dict(c, saving=seconds_fig(c["saving_s"], f"plan.chains.{k}.saving_s"))
            for k, c in enumerate(plan_data.get("chains") or [])
        ],
        fmt_s=fmt_s,
    )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise PartitionError(
            f"{path}: missing; give a build tree written by `partition plan` (it holds plan.json and graph.json)"
        ) from None
    except (OSError, ValueError) as e:
        raise PartitionError(f"{path}: not readable JSON ({e}); run `partition plan` again") from e


def regenerate(build_dir: Path, force: bool = False) -> Path:
    """Rewrite build_dir/report.html from its plan.json, graph.json and results/ (`partition report`).

    report.html is a generated file of the tree: its hash in the tree's
    manifest is updated, so the next `partition plan` does not take the new
    page for a user's edit; a page the user did edit is kept unless `force`.
    """
    build_dir = Path(build_dir)
    if not build_dir.is_dir():
        raise PartitionError(f"{build_dir}: no such folder; give a build tree written by `partition plan`")
    plan_data = _read_json(build_dir / "plan.json")
    if not isinstance(plan_data, dict) or plan_data.get("format") != "partition-plan/1":
        raise PartitionError(f"{build_dir / 'plan.json'}: not a partition plan; run `partition plan` again")
    graph_json = _read_json(build_dir / "graph.json")
    page = render_html(plan_data, graph_json, load_verification(build_dir)).encode()
    target = build_dir / REPORT
    manifest_path = build_dir / MANIFEST
    manifest = _read_json(manifest_path) if manifest_path.exists() else {"files": {}}
    files = manifest.setdefault("files", {})
    old = files.get(REPORT)
    if target.exists() and old and hashlib.sha256(target.read_bytes()).hexdigest() != old and not force:
        raise PartitionError(
            f"{target}: was changed since partition wrote it; move your changes away or pass --force"
        )
    write_bytes_atomic(target, page)
    files[REPORT] = hashlib.sha256(page).hexdigest()
    manifest["files"] = dict(sorted(files.items()))
    write_bytes_atomic(manifest_path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return target
