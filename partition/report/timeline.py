"""The predicted timeline of report.html: the run as segments on rows, and its Gantt chart.

`timeline` draws a makespan solution's schedule as it is, or, for the
`latency` objective, the run the model assumes (blocking calls, one part after
the other); `gantt_views` turns it into pixel geometry and `segment_rows` into
a table of traceable figures.
"""

from __future__ import annotations

import math
from typing import Any

from partition.fmt import fmt_bytes, fmt_s
from partition.report.figures import Fig, px, raw

# Gantt chart (SVG user units)
GANTT_W, GANTT_LABEL_W, GANTT_ROW_H = 1120, 96, 30


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
                "x": px(GANTT_LABEL_W + (start - t0) * scale),
                "y": px(8 + rows[s["row"]] * GANTT_ROW_H + 4),
                "w": px(max(1.0, (s["end"] - start) * scale)),
                "h": px(GANTT_ROW_H - 8),
                "title": f"{s['title']}: {fmt_s(s['start'])} – {fmt_s(s['end'])} ({fmt_s(s['dur'])})",
            }
        )
    ticks = []
    for t in _ticks(span):
        label = "0" if t == 0 else fmt_s(t)
        ticks.append({"x": px(GANTT_LABEL_W + t * scale), "label": ("+" + label) if t0 and t else label})
    return {
        "t0": t0,
        "rows": [{"name": r, "y": px(8 + k * GANTT_ROW_H + GANTT_ROW_H / 2)} for r, k in rows.items()],
        "segments": segs,
        "ticks": ticks,
        "width": GANTT_W,
        "height": 8 + len(tl["rows"]) * GANTT_ROW_H + 28,
        "axis_y": px(8 + len(tl["rows"]) * GANTT_ROW_H),
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
