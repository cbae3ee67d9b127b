"""report.html: the plan as one self-contained page (no network, no fonts, no scripts from elsewhere).

`render_html(plan_data, graph_json, verification)` turns plan.json, graph.json
and the verification results of the build tree into the page that
templates/report/report.html.j2 lays out: the task graph (inline SVG, laid out
here, deterministically), a table of every task, resource bars, the predicted
timeline as a Gantt chart, the alternatives and sweep tables when the plan has
them, and the verification status of every kernel.

Every figure is traceable
-------------------------
Each number on the page sits in an element with `data-path`, the place of its
raw value in the inputs ("plan.tasks.3.cpu_s", "verification.fir.rtl_sim.cycles"),
and `data-value`, that raw value as JSON (floats in Python's shortest
round-trip form, so `parseFloat` in a browser gives the identical double).
Figures the page derives (a task's speedup, a timeline segment's start) carry
`data-derived` instead of `data-path`, with the paths they come from in
`data-from`. The page only formats; it never rounds a value it stores.

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
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from partition.boards import RESOURCES
from partition.codegen import render
from partition.errors import PartitionError
from partition.fsutil import MANIFEST, write_bytes_atomic
from partition.graph import graph_from_json
from partition.report.terminal import fmt_bytes, fmt_s

RESULT_FORMAT = "partition-result/1"
STEPS = ("csim", "rtl_sim", "cosim", "yosys")
STEP_TITLES = {
    "csim": "C-simulation",
    "rtl_sim": "RTL simulation",
    "cosim": "co-simulation",
    "yosys": "yosys",
}
STATUSES = ("pass", "fail", "error", "skipped")
RES_NAMES = {"lut": "LUT", "ff": "FF", "dsp": "DSP", "bram18": "BRAM18"}
REPORT = "report.html"

# graph drawing (SVG user units)
NODE_W, NODE_H = 150, 44
NODE_GAP, LAYER_GAP = 22, 48  # between nodes of a layer, between layers (top to bottom)
BACK_RISE = 18  # edges against the flow enter their target from above
MARGIN = 16
# Gantt chart
GANTT_W, GANTT_LABEL_W, GANTT_ROW_H = 1120, 96, 30


# ----------------------------------------------------------------------------- figures


def raw(value: Any) -> str:
    """A value as JSON text: floats in shortest round-trip form, so a browser parses the same double."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value))
    return json.dumps(value, sort_keys=True)


@dataclass
class Fig:
    """One figure on the page: its text and where its raw value comes from."""

    text: str
    value: Any
    path: str = ""  # place of the raw value in the inputs ("plan.…" or "verification.…")
    derived_from: list[str] = field(default_factory=list)  # for derived figures

    @property
    def attrs(self) -> dict[str, str]:
        a = {"data-value": raw(self.value)}
        if self.path:
            a["data-path"] = self.path
        else:
            a["data-derived"] = "true"
            a["data-from"] = " ".join(self.derived_from)
        return a


def _seconds(value: float | None, path: str) -> Fig:
    return Fig(fmt_s(value), value, path)


def _count(value: float, path: str) -> Fig:
    return Fig(f"{value:,.0f}", value, path)


def _speedup(num: float, den: float, frm: list[str]) -> Fig | None:
    if den <= 0:
        return None
    s = num / den
    return Fig(f"{s:,.1f}×", s, derived_from=frm)


# ----------------------------------------------------------------------------- task graph


def _graph(graph_json: dict[str, Any]) -> nx.DiGraph:
    return graph_from_json(graph_json, "graph.json")


def layout_order(g: nx.DiGraph) -> tuple[list[str], set[tuple[str, str]]]:
    """A deterministic node order in which (almost) every edge points forward, and the edges that don't.

    Data edges can form cycles (a caller hands an array to a callee and gets
    the result back). A depth-first search that starts from callers before
    callees, then from sources, then by name, and visits successors by name,
    finds back edges; without them the graph is a DAG, and its topological
    order (ties by that search's discovery order) places the nodes.
    """

    def start_key(n: str) -> tuple[int, int, str]:
        return (len(g.nodes[n].get("ancestors", [])), 0 if g.in_degree(n) == 0 else 1, n)

    seen: dict[str, int] = {}
    back: set[tuple[str, str]] = set()
    for root in sorted(g.nodes, key=start_key):
        if root in seen:
            continue
        seen[root] = len(seen)
        on_stack = {root}
        stack = [(root, iter(sorted(g.successors(root))))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_stack.discard(node)
                continue
            if nxt in on_stack:
                back.add((node, nxt))
            elif nxt not in seen:
                seen[nxt] = len(seen)
                on_stack.add(nxt)
                stack.append((nxt, iter(sorted(g.successors(nxt)))))
    dag = nx.DiGraph()
    dag.add_nodes_from(g.nodes)
    dag.add_edges_from((u, v) for u, v in g.edges if (u, v) not in back and u != v)
    order = list(nx.lexicographical_topological_sort(dag, key=lambda n: seen[n]))
    return order, back


def layout_graph(g: nx.DiGraph) -> tuple[dict[str, tuple[float, float]], set[tuple[str, str]], int, int]:
    """Node positions (top-left corners): layers top to bottom by longest path, order in a layer by barycentres."""
    order, back = layout_order(g)
    fwd = [(u, v) for u, v in g.edges if (u, v) not in back and u != v]
    layer: dict[str, int] = {}
    for n in order:
        layer[n] = max((layer[u] + 1 for u, v in fwd if v == n), default=0)
    n_layers = max(layer.values(), default=-1) + 1
    rows: list[list[str]] = [[n for n in order if layer[n] == k] for k in range(n_layers)]
    preds = {n: [u for u, v in fwd if v == n] for n in g.nodes}
    succs = {n: [v for u, v in fwd if u == n] for n in g.nodes}
    for _sweep in range(4):
        for k in list(range(1, n_layers)) + list(range(n_layers - 2, -1, -1)):
            downward = _sweep % 2 == 0
            ref = rows[k - 1] if downward and k > 0 else rows[k + 1] if k + 1 < n_layers else None
            if ref is None:
                continue
            pos = {n: i for i, n in enumerate(ref)}
            current = {n: i for i, n in enumerate(rows[k])}

            def key(n: str, pos=pos, current=current, downward=downward) -> tuple[float, int]:
                nbrs = [pos[m] for m in (preds[n] if downward else succs[n]) if m in pos]
                return (sum(nbrs) / len(nbrs) if nbrs else current[n], current[n])

            rows[k] = sorted(rows[k], key=key)
    widest = max((len(r) for r in rows), default=0)
    width = 2 * MARGIN + widest * NODE_W + max(0, widest - 1) * NODE_GAP
    height = 2 * MARGIN + n_layers * NODE_H + max(0, n_layers - 1) * LAYER_GAP
    pos: dict[str, tuple[float, float]] = {}
    for k, row in enumerate(rows):
        span = len(row) * NODE_W + (len(row) - 1) * NODE_GAP
        left = MARGIN + (width - 2 * MARGIN - span) / 2
        for i, n in enumerate(row):
            pos[n] = (left + i * (NODE_W + NODE_GAP), MARGIN + k * (NODE_H + LAYER_GAP))
    return pos, back, width, height


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _edge_path(src: tuple[float, float], dst: tuple[float, float], back: bool, right: float) -> str:
    """An edge from layer to layer, downwards; one against the flow swings round the right-hand side."""
    (xs, ys), (xd, yd) = src, dst
    if src == dst:  # a task feeding itself: a loop on its right-hand side
        x0, y0 = xs + NODE_W, ys + NODE_H * 0.3
        return (
            f"M{_f(x0)},{_f(y0)} C{_f(x0 + 14)},{_f(y0)} {_f(x0 + 14)},{_f(y0 + 16)} {_f(x0)},{_f(y0 + 16)}"
        )
    if not back:
        x0, y0 = xs + NODE_W / 2, ys + NODE_H
        x1, y1 = xd + NODE_W / 2, yd
        dy = (y1 - y0) / 2
        return f"M{_f(x0)},{_f(y0)} C{_f(x0)},{_f(y0 + dy)} {_f(x1)},{_f(y1 - dy)} {_f(x1)},{_f(y1)}"
    # rounded right angles: out to the right, up the right-hand side, along the top, down into the target
    x0, y0 = xs + NODE_W, ys + NODE_H / 2
    x1, y1 = xd + NODE_W * 0.8, yd
    top = y1 - BACK_RISE
    return (
        f"M{_f(x0)},{_f(y0)} L{_f(right - 8)},{_f(y0)} Q{_f(right)},{_f(y0)} {_f(right)},{_f(y0 - 8)} "
        f"L{_f(right)},{_f(top + 8)} Q{_f(right)},{_f(top)} {_f(right - 8)},{_f(top)} "
        f"L{_f(x1 + 8)},{_f(top)} Q{_f(x1)},{_f(top)} {_f(x1)},{_f(top + 8)} L{_f(x1)},{_f(y1)}"
    )


def graph_view(plan_data: dict[str, Any], graph_json: dict[str, Any]) -> dict[str, Any]:
    """The task graph ready to draw: nodes with positions, colours (by placement) and titles; edges."""
    g = _graph(graph_json)
    main = plan_data.get("main", "<main>")
    tasks = {t["name"]: (i, t) for i, t in enumerate(plan_data["tasks"])}
    pos, back, width, height = layout_graph(g)
    n_back = sum(1 for u, v in back if u != v)
    if n_back:
        width += 16 + 6 * n_back
        height += BACK_RISE
        pos = {n: (x, y + BACK_RISE) for n, (x, y) in pos.items()}
    nodes = []
    for n in sorted(g.nodes):
        d = g.nodes[n]
        x, y = pos[n]
        if n == main:
            placement, sub = "main", f"own code {fmt_s(d['self_s'])}"
            title = [
                f"{n}: the app's own top-level code (always on the CPU)",
                f"run time {fmt_s(d['total_s'])}",
            ]
        elif n in tasks:
            i, t = tasks[n]
            placement = t["placement"]
            fpga = t.get("fpga")
            if placement == "fpga":
                sub = f"FPGA {fmt_s(fpga['total_s'])}"
            else:
                sub = f"CPU {fmt_s(t['cpu_s'])}"
            title = [
                f"{n} ({t['file']}:{t['line']}), {t['calls']:,} call(s)",
                f"placed on the {placement.upper()}: {t['reason']}",
                f"CPU (board): {fmt_s(t['cpu_s'])}",
            ]
            if fpga:
                title.append(
                    f"FPGA estimate: {fmt_s(fpga['total_s'])} (compute {fmt_s(fpga['compute_s'])}, "
                    f"overhead {fmt_s(fpga['overhead_s'])}, copy-out {fmt_s(fpga['copy_out_s'])})"
                )
        else:
            placement, sub, title = "unknown", "not in plan.json", [f"{n}: not a task of plan.json"]
        capable = n in tasks and bool(tasks[n][1].get("fpga"))
        label = n if len(n) <= 20 else n[:19] + "…"
        nodes.append(
            {
                "id": n,
                "x": _f(x),
                "y": _f(y),
                "cx": _f(x + NODE_W / 2),
                "label": label,
                "sub": sub,
                "placement": placement,
                "capable": capable,
                "title": "\n".join(title),
                "index": tasks[n][0] if n in tasks else None,
            }
        )
    plan_edges: dict[tuple[str, str], list[tuple[int, dict]]] = {}
    for i, e in enumerate(plan_data.get("edges", [])):
        plan_edges.setdefault((e["src"], e["dst"]), []).append((i, e))
    heaviest = max((d["bytes"] for _, _, d in g.edges(data=True)), default=0)
    edges = []
    k_back = 0
    for u, v in sorted(g.edges):
        d = g.edges[u, v]
        right = width - MARGIN / 2 - 6 * k_back  # each edge against the flow has its own lane
        k_back += int((u, v) in back and u != v)
        pe = plan_edges.get((u, v), [])
        crossing = any(e["crossing"] for _, e in pe)
        cost = sum(e["cost_s"] for _, e in pe)
        width_px = 1.0 + 5.0 * (math.log1p(d["bytes"]) / math.log1p(heaviest) if heaviest else 0.0)
        title = f"{u} → {v}: {fmt_bytes(d['bytes'])} in {d['count']:,} transfer(s)"
        if d.get("what"):
            title += f" ({d['what']})"
        if crossing:
            title += f"; crosses CPU/FPGA, copy cost {fmt_s(cost)}"
        edges.append(
            {
                "src": u,
                "dst": v,
                "d": _edge_path(pos[u], pos[v], (u, v) in back, right),
                "width": f"{width_px:.2f}",
                "bytes": d["bytes"],
                "crossing": crossing,
                "title": title,
                "plan_edges": " ".join(str(i) for i, _ in pe),
            }
        )
    return {
        "nodes": nodes,
        "edges": edges,
        "width": width,
        "height": height,
        "node_w": NODE_W,
        "node_h": NODE_H,
    }


# ----------------------------------------------------------------------------- tasks


def _variants(t: dict[str, Any]) -> list[dict[str, Any]]:
    """The FPGA variants of a task as (name, total_s, estimate, path, chosen)."""
    fpga = t["fpga"]
    base = f"plan.tasks.{t['_index']}.fpga"
    if fpga.get("variants"):
        out = []
        for k, v in enumerate(fpga["variants"]):
            # the base variant's time is the task's own fpga.total_s (the same value): cite that
            same = v["name"] == fpga["estimate"].get("variant") and v["total_s"] == fpga["total_s"]
            out.append(
                {
                    "name": v["name"],
                    "total": _seconds(
                        v["total_s"], f"{base}.total_s" if same else f"{base}.variants.{k}.total_s"
                    ),
                    "est": v["estimate"],
                    "path": f"{base}.variants.{k}.estimate",
                    "chosen": t["placement"] == "fpga" and v["name"] == t.get("variant"),
                }
            )
        return out
    est = fpga["estimate"]
    return [
        {
            "name": est.get("variant", "base"),
            "total": _seconds(fpga["total_s"], f"{base}.total_s"),
            "est": est,
            "path": f"{base}.estimate",
            "chosen": t["placement"] == "fpga",
        }
    ]


def _chosen_fpga_s(t: dict[str, Any]) -> tuple[float, str]:
    """The FPGA time of a task's chosen (or only) variant, and its path."""
    fpga = t["fpga"]
    base = f"plan.tasks.{t['_index']}.fpga"
    for k, v in enumerate(fpga.get("variants") or []):
        if v["name"] == t.get("variant"):
            return v["total_s"], f"{base}.variants.{k}.total_s"
    return fpga["total_s"], f"{base}.total_s"


def _measured(kernel: str | None, verification: dict[str, Any], clock_mhz: float | None) -> list[Fig]:
    """Measured figures of one call of a kernel: cycles from simulation, resources from yosys."""
    if not kernel or kernel not in verification:
        return []
    out = []
    v = verification[kernel]
    for step in ("cosim", "rtl_sim"):
        r = v.get(step) or {}
        if r.get("status") == "pass" and isinstance(r.get("cycles"), int):
            of = f", variant {r['variant']}" if r.get("variant", "base") != "base" else ""
            text = f"{r['cycles']:,} cycles ({STEP_TITLES[step]}{of})"
            if clock_mhz:
                text += f" = {fmt_s(r['cycles'] / (clock_mhz * 1e6))}/call"
            out.append(Fig(text, r["cycles"], f"verification.{kernel}.{step}.cycles"))
            break
    y = v.get("yosys") or {}
    if y.get("status") == "pass" and all(isinstance(y.get(r), int) for r in RESOURCES):
        text = ", ".join(f"{y[r]:,} {RES_NAMES[r]}" for r in RESOURCES) + " (yosys)"
        out.append(Fig(text, {r: y[r] for r in RESOURCES}, f"verification.{kernel}.yosys"))
    return out


def task_rows(plan_data: dict[str, Any], verification: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per task, heaviest CPU time first."""
    order = sorted(range(len(plan_data["tasks"])), key=lambda i: (-plan_data["tasks"][i]["cpu_s"], i))
    rows = []
    for i in order:
        t = dict(plan_data["tasks"][i], _index=i)
        p = f"plan.tasks.{i}"
        fpga = t.get("fpga")
        row: dict[str, Any] = {
            "name": t["name"],
            "index": i,
            "source": f"{t['file']}:{t['line']}",
            "calls": _count(t["calls"], f"{p}.calls"),
            "cpu": _seconds(t["cpu_s"], f"{p}.cpu_s"),
            "placement": t["placement"],
            "reason": Fig(t["reason"], t["reason"], f"{p}.reason"),
            "pin": t.get("pin"),
            "variants": [],
            "speedup": None,
            "measured": [],
        }
        if fpga:
            row["variants"] = _variants(t)
            fs, fpath = _chosen_fpga_s(t)
            row["speedup"] = _speedup(t["cpu_s"], fs, [f"{p}.cpu_s", fpath])
            row["measured"] = _measured(
                t.get("kernel"), verification, fpga["estimate"].get("clock_mhz") if fpga else None
            )
        rows.append(row)
    return rows


def kernel_details(plan_data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per FPGA-capable task: the estimate of one call in detail (loops, call overhead, notes)."""
    out = []
    for i, t in enumerate(plan_data["tasks"]):
        fpga = t.get("fpga")
        if not fpga:
            continue
        e = fpga["estimate"]
        p = f"plan.tasks.{i}.fpga"
        call_s = e["cycles"] / (e["clock_mhz"] * 1e6)
        loops = []
        for label, lp in sorted(e.get("loops", {}).items()):
            loops.append(
                {
                    "label": label,
                    "trip": _count(lp["trip"], f"{p}.estimate.loops.{label}.trip"),
                    "ii": Fig(str(lp["ii"]), lp["ii"], f"{p}.estimate.loops.{label}.ii")
                    if lp.get("pipelined")
                    else None,
                    "depth": Fig(str(lp["depth"]), lp["depth"], f"{p}.estimate.loops.{label}.depth"),
                    "cycles": _count(lp["cycles"], f"{p}.estimate.loops.{label}.cycles"),
                }
            )
        pc = fpga["per_call"]
        out.append(
            {
                "task": t["name"],
                "kernel": t.get("kernel", t["name"]),
                "placement": t["placement"],
                "cycles": _count(e["cycles"], f"{p}.estimate.cycles"),
                "clock": Fig(f"{e['clock_mhz']:g} MHz", e["clock_mhz"], f"{p}.estimate.clock_mhz"),
                "call_s": Fig(
                    fmt_s(call_s),
                    call_s,
                    derived_from=[f"{p}.estimate.cycles", f"{p}.estimate.clock_mhz"],
                ),
                "overhead": _seconds(pc["overhead_s"], f"{p}.per_call.overhead_s"),
                "mmio": f"{pc['mmio_writes']} register writes, {pc['mmio_reads']} reads, "
                f"{pc['buffers']} buffer syncs",
                "source": e.get("source", "model"),
                "resources": [(RES_NAMES[r], _count(e[r], f"{p}.estimate.{r}")) for r in RESOURCES],
                "loops": loops,
                "notes": list(t.get("notes", []))
                + [n for n in e.get("notes", []) if n not in t.get("notes", [])],
            }
        )
    return out


# ----------------------------------------------------------------------------- resources


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
                "name": RES_NAMES[r],
                "kernels": _count(kernels, f"plan.resources.used.{r}"),
                "shell": _count(shell, f"plan.resources.shell.{r}"),
                "budget": _count(budget, f"plan.resources.budget.{r}"),
                "available": _count(avail, f"plan.resources.available.{r}"),
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


# ----------------------------------------------------------------------------- timeline


def _segment(
    row: str, kind: str, label: str, start: float, dur: float, frm: list[str], title: str
) -> dict[str, Any]:
    return {
        "row": row,
        "kind": kind,
        "label": label,
        "start": start,
        "end": start + dur,
        "dur": dur,
        "from": frm,
        "title": title,
    }


def timeline(plan_data: dict[str, Any], order: list[str]) -> dict[str, Any] | None:
    """The predicted run as segments on rows, or None when the plan gives no way to draw one.

    With a "schedule" in the plan (a makespan solution) its jobs are drawn as
    they are. For the `latency` objective the run is sequential by the
    model's own assumption (blocking calls, T = base + each task on its side
    + copies into the FPGA), so the segments follow one another: first the
    rest of the app (all CPU time outside the tasks the ILP placed), then
    every FPGA-capable task in `order` (a topological order of the task
    graph), each preceded by the copies into it and, on the FPGA, split into
    its call overhead (CPU), compute (FPGA) and copy-out (transfers).
    """
    if plan_data.get("schedule"):
        segs = []
        for k, j in enumerate(plan_data["schedule"]):
            if j["end_s"] <= j["start_s"] or not j.get("resource"):
                continue
            p = f"plan.schedule.{k}"
            segs.append(
                {
                    "row": j["resource"],
                    "kind": j.get("kind", "task"),
                    "label": j["task"],
                    "start": j["start_s"],
                    "end": j["end_s"],
                    "dur": j["end_s"] - j["start_s"],
                    "start_path": f"{p}.start_s",
                    "end_path": f"{p}.end_s",
                    "from": [f"{p}.start_s", f"{p}.end_s"],
                    "title": f"{j['task']} ({j.get('kind', 'task')}) on {j['resource']}",
                }
            )
        rows = sorted({s["row"] for s in segs}, key=lambda r: (r.startswith("fpga"), r == "link", r))
        model = plan_data.get("model") or {}
        if plan_data.get("objective") == "throughput":
            lead = (
                "One period of the steady state: each resource's work per frame (each FPGA stage is its "
                "own IP, so the stages work at the same time); the period is the longest row."
            )
        else:
            lead = (
                "The schedule is the solver's: each job on the resource it was given, at the time it was "
                "given (CPU and FPGA overlap where the task graph allows)."
            )
        said = "; ".join(model.get("assumptions", []))
        return {
            "source": "schedule",
            "rows": rows,
            "segments": segs,
            "total": max((s["end"] for s in segs), default=0.0),
            "assumption": lead + (f" Model: {said}." if said else ""),
        }
    if plan_data.get("objective", "latency") != "latency":
        return None
    tasks = {t["name"]: (i, t) for i, t in enumerate(plan_data["tasks"])}
    capable = [n for n in order if n in tasks and tasks[n][1].get("fpga")]
    capable += sorted(n for n, (_, t) in tasks.items() if t.get("fpga") and n not in capable)
    all_cpu = plan_data["predicted"]["all_cpu_s"]
    base = all_cpu - sum(tasks[n][1]["cpu_s"] for n in capable)
    segs = []
    now = 0.0
    base_from = ["plan.predicted.all_cpu_s"] + [f"plan.tasks.{tasks[n][0]}.cpu_s" for n in capable]
    if base > 0:
        segs.append(
            _segment(
                "CPU",
                "main",
                "rest of the app",
                now,
                base,
                base_from,
                "the app's CPU time outside the tasks the plan could move",
            )
        )
        now += base
    for n in capable:
        i, t = tasks[n]
        for k, e in enumerate(plan_data.get("edges", [])):
            if e["dst"] == n and e["cost_s"] > 0:
                segs.append(
                    _segment(
                        "transfers",
                        "transfer",
                        f"{e['src']}→{n}",
                        now,
                        e["cost_s"],
                        [f"plan.edges.{k}.cost_s"],
                        f"copy {fmt_bytes(e['bytes'])} ({e['what']}) from {e['src']} into {n}'s buffers",
                    )
                )
                now += e["cost_s"]
        p = f"plan.tasks.{i}"
        if t["placement"] == "fpga":
            f, fpath = t["fpga"], f"{p}.fpga"
            for k, v in enumerate(f.get("variants") or []):
                if v["name"] == t.get("variant") and "compute_s" in v:
                    f, fpath = v, f"{p}.fpga.variants.{k}"  # the chosen variant's figures
            for row, kind, key, what in (
                (
                    "CPU",
                    "overhead",
                    "overhead_s",
                    "call overhead (register writes, start, poll, cache syncs)",
                ),
                ("FPGA", "fpga", "compute_s", "kernel compute (load, compute, store phases)"),
                ("transfers", "transfer", "copy_out_s", "copy of the results out of the buffers"),
            ):
                if f[key] > 0:
                    segs.append(
                        _segment(
                            row,
                            kind,
                            n,
                            now,
                            f[key],
                            [f"{fpath}.{key}"],
                            f"{n}: {what}, {t['calls']:,} call(s)",
                        )
                    )
                    now += f[key]
        elif t["cpu_s"] > 0:
            segs.append(
                _segment(
                    "CPU",
                    "cpu",
                    n,
                    now,
                    t["cpu_s"],
                    [f"{p}.cpu_s"],
                    f"{n} on the CPU, {t['calls']:,} call(s)",
                )
            )
            now += t["cpu_s"]
    chains = plan_data.get("chains") or []
    chained = ""
    if chains:
        saved = sum(c["saving_s"] for c in chains)
        names = ", ".join(f"{c['src']}→{c['dst']}" for c in chains)
        chained = (
            f" The AXI-Stream chains ({names}) are drawn as if each kernel moved its array through DDR; "
            f"streaming saves {fmt_s(saved)} of that in all (plan.chains), which the predicted time counts."
        )
    return {
        "source": "latency",
        "rows": ["CPU", "FPGA", "transfers"],
        "segments": segs,
        "total": now,
        "assumption": "Blocking calls (the latency objective): nothing overlaps, so the run is its parts one "
        "after the other. The profile does not record when between the tasks the app's own code runs, "
        "so that time is drawn as one block first; the tasks follow a topological order of the task graph. "
        "Per-call overheads and copies of a task are drawn as one block per task." + chained,
    }


def _ticks(total: float) -> list[float]:
    if total <= 0:
        return [0.0]
    step = 10 ** math.floor(math.log10(total / 5))
    for m in (1, 2, 5, 10):
        if total / (step * m) <= 6:
            step *= m
            break
    return [k * step for k in range(int(total / step + 1e-9) + 1)]


def gantt_view(tl: dict[str, Any], t0: float = 0.0) -> dict[str, Any]:
    """Pixel geometry of a timeline from time t0 on: one row per resource, segments at least 1 px wide.

    Tick labels count from t0 ("+2.00 ms") when t0 > 0, so a zoomed window keeps readable labels.
    """
    span = (tl["total"] - t0) or 1.0
    scale = (GANTT_W - GANTT_LABEL_W - 16) / span
    rows = {r: k for k, r in enumerate(tl["rows"])}
    segs = []
    for s in tl["segments"]:
        if s["end"] <= t0:
            continue
        start = max(s["start"], t0)
        segs.append(
            {
                "kind": s["kind"],
                "row": s["row"],
                "label": s["label"],
                "start": raw(s["start"]),
                "end": raw(s["end"]),
                "x": _f(GANTT_LABEL_W + (start - t0) * scale),
                "y": _f(8 + rows[s["row"]] * GANTT_ROW_H + 4),
                "w": _f(max(1.0, (s["end"] - start) * scale)),
                "h": _f(GANTT_ROW_H - 8),
                "title": f"{s['title']}: {fmt_s(s['start'])} – {fmt_s(s['end'])} ({fmt_s(s['dur'])})",
            }
        )
    ticks = []
    for t in _ticks(span):
        label = "0" if t == 0 else fmt_s(t)
        ticks.append({"x": _f(GANTT_LABEL_W + t * scale), "label": ("+" + label) if t0 and t else label})
    return {
        "t0": t0,
        "rows": [{"name": r, "y": _f(8 + k * GANTT_ROW_H + GANTT_ROW_H / 2)} for r, k in rows.items()],
        "segments": segs,
        "ticks": ticks,
        "width": GANTT_W,
        "height": 8 + len(tl["rows"]) * GANTT_ROW_H + 28,
        "axis_y": _f(8 + len(tl["rows"]) * GANTT_ROW_H),
        "label_w": GANTT_LABEL_W,
    }


def gantt_views(tl: dict[str, Any]) -> list[dict[str, Any]]:
    """The whole run, and, when the app's own code fills most of it, a zoom on what follows."""
    views = [dict(gantt_view(tl), title="")]
    segs = tl["segments"]
    if segs and segs[0]["kind"] == "main" and len(segs) > 1 and segs[0]["dur"] > 0.5 * tl["total"]:
        t0 = segs[0]["end"]
        views.append(dict(gantt_view(tl, t0), title=f"zoom: the tasks, from {fmt_s(t0)} on"))
    return views


def segment_rows(tl: dict[str, Any]) -> list[dict[str, Any]]:
    """The timeline's segments as table rows with traceable start, end and duration."""
    out = []
    for s in tl["segments"]:
        out.append(
            {
                "row": s["row"],
                "kind": s["kind"],
                "label": s["label"],
                "start": Fig(fmt_s(s["start"]), s["start"], s.get("start_path", ""), s["from"]),
                "end": Fig(fmt_s(s["end"]), s["end"], s.get("end_path", ""), s["from"]),
                "dur": Fig(fmt_s(s["dur"]), s["dur"], "", s["from"]),
            }
        )
    return out


# ----------------------------------------------------------------------------- alternatives, sweep


def _used_cells(used: dict[str, Any] | None, path: str) -> list[Fig | None]:
    if not used:
        return [None] * len(RESOURCES)
    return [_count(used[r], f"{path}.{r}") if r in used else None for r in RESOURCES]


def alternatives_view(plan_data: dict[str, Any]) -> list[dict[str, Any]]:
    best = plan_data["predicted"]["plan_s"]
    rows = []
    for k, a in enumerate(plan_data.get("alternatives") or []):
        p = f"plan.alternatives.{k}"
        variants = a.get("variants") or {}
        rows.append(
            {
                "rank": a.get("rank", k + 2),
                "fpga": [f"{n} ({variants[n]})" if n in variants else n for n in a.get("fpga", [])],
                "plan_s": _seconds(a["plan_s"], f"{p}.plan_s"),
                "speedup": Fig(f"{a['speedup']:,.2f}×", a["speedup"], f"{p}.speedup")
                if a.get("speedup")
                else None,
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
                "plan_s": _seconds(r["plan_s"], f"{p}.plan_s") if r.get("plan_s") is not None else None,
                "speedup": Fig(f"{r['speedup']:,.2f}×", r["speedup"], f"{p}.speedup")
                if r.get("speedup")
                else None,
                "fpga": list(r.get("fpga", [])),
                "used": _used_cells(r.get("used"), f"{p}.used"),
                "status": r.get("status", "") + (" · Pareto-optimal" if r.get("pareto") else ""),
            }
        )
    return {"parameters": params, "rows": rows}


# ----------------------------------------------------------------------------- verification


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
                    Fig(f"{r[q]:,} {RES_NAMES[q]}", r[q], f"{p}.{q}")
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
                est = _count(rtl["estimate_cycles"], f"plan.tasks.{i}.rtl.estimate_cycles")
            else:
                est = _count(t["fpga"]["estimate"]["cycles"], f"plan.tasks.{i}.fpga.estimate.cycles")
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


# ----------------------------------------------------------------------------- page


def render_html(
    plan_data: dict[str, Any], graph_json: dict[str, Any], verification: dict[str, Any] | None = None
) -> str:
    """The report page for plan.json data, graph.json data and verification results (see the module doc)."""
    verification = verification or {}
    g = _graph(graph_json)
    order, _ = layout_order(g)
    tl = timeline(plan_data, order)
    pred = plan_data["predicted"]
    summary = {
        "all_cpu": _seconds(pred["all_cpu_s"], "plan.predicted.all_cpu_s"),
        "plan": _seconds(pred["plan_s"], "plan.predicted.plan_s"),
        "speedup": Fig(f"{pred['speedup']:,.2f}×", pred["speedup"], "plan.predicted.speedup")
        if pred.get("speedup")
        else None,
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
            "count": _count(e["count"], f"plan.edges.{k}.count"),
            "crossing": e["crossing"],
            "cost": _seconds(e["cost_s"], f"plan.edges.{k}.cost_s"),
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
        sweep=sweep_view(plan_data),
        verification=verification_view(plan_data, verification),
        step_titles=STEP_TITLES,
        steps=STEPS,
        res_names=[RES_NAMES[r] for r in RESOURCES],
        edges=edges,
        chains=[
            dict(c, saving=_seconds(c["saving_s"], f"plan.chains.{k}.saving_s"))
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
