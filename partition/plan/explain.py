"""`partition explain`: why one function went where it went, as data (the CLI prints it)."""

from __future__ import annotations

from typing import Any

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.plan.artefacts import (
    Plan,
    plan_assignment,
)
from partition.plan.reasons import fmt_time
from partition.profile.model import MAIN
from partition.solve import (
    chain_stages,
    chosen,
)


def explain_task(plan: Plan, name: str) -> dict[str, Any]:
    """Why `name` went where it went, as data (the CLI prints it): CPU time, every variant, transfers."""
    data = plan.data
    t = next((t for t in data["tasks"] if t["name"] == name), None)
    if t is None:
        known = ", ".join(x["name"] for x in data["tasks"])
        raise PartitionError(f"{name}: no such function in the profile; known: {known}")
    out: dict[str, Any] = {
        "task": name,
        "source": f"{t['file']}:{t['line']}",
        "calls": t["calls"],
        "cpu_s": t["cpu_s"],
        "placement": t["placement"],
        "variant": t.get("variant"),
        "reason": t["reason"],
        "objective": data["objective"],
        "plan_s": data["predicted"]["plan_s"],
        "budget": data["resources"]["budget"],
        "used": data["resources"]["used"],
        "edges_in": [e for e in data["edges"] if e["dst"] == name],
        "edges_out": [e for e in data["edges"] if e["src"] == name],
    }
    fpga = t.get("fpga")
    if fpga:
        rows = []
        for v in fpga["variants"]:
            est = v["estimate"]
            limits = []
            for label, lp in sorted(est.get("loops", {}).items()):
                if lp.get("pipelined") and lp.get("ii_reasons") and lp["ii"] > 1:
                    why = sorted(k for k, n in lp["ii_reasons"].items() if n == lp["ii"])
                    limits.append(f"loop {label}: II {lp['ii']} set by {' and '.join(why)}")
            over = [r for r in RESOURCES if est[r] > data["resources"]["budget"][r] + 1e-9]
            rows.append(
                {
                    "name": v["name"],
                    "describe": v["describe"],
                    "cycles": est["cycles"],
                    "total_s": v["total_s"],
                    "compute_s": v["compute_s"],
                    "overhead_s": v["overhead_s"],
                    "copy_out_s": v["copy_out_s"],
                    "resources": {r: est[r] for r in RESOURCES},
                    "source": est.get("source", "model"),
                    "measured": est.get("breakdown", {}).get("measured", {}),
                    "over_budget": over,
                    "ii_limits": limits,
                    "chosen": t.get("variant") == v["name"] and t["placement"] == "fpga",
                }
            )
        out["variants"] = rows
    prep = plan.prepared
    if prep is not None and any(x.name == name for x in prep.problem.tasks):
        x = plan_assignment(plan)
        moved = []
        for e in prep.problem.edges:
            if name not in (e.src, e.dst):
                continue
            xs = 0 if e.src == MAIN else x.get(e.src, 0)
            xd = 0 if e.dst == MAIN else x.get(e.dst, 0)
            here = e.cost(xs, xd)
            if e.src == name:
                there = e.cost(1 - xs, xd)
            else:
                there = e.cost(xs, 1 - xd)
            moved.append({"src": e.src, "dst": e.dst, "now_s": here, "moved_s": there})
        out["transfers"] = moved
        used = {(c["src"], c["dst"]): c for c in data.get("chains", [])}
        out["chains"] = [
            {
                "src": a,
                "dst": b,
                "used": (a, b) in used,
                "saving_s": used[(a, b)]["saving_s"] if (a, b) in used else 0.0,
                "reason": v.reason,
                **({} if (a, b) in used or v.reason else _chain_unused(plan, a, b)),
            }
            for (a, b), v in sorted(prep.chain_verdicts.items())
            if name in (a, b)
        ]
    return out


def _chain_unused(plan: Plan, src: str, dst: str) -> dict[str, Any]:
    """Why a chain the app allows is not used: an end on the CPU, no saving with the chosen
    variants, or (throughput) the joined stage slower than the kernels' own stages."""
    prep = plan.prepared
    assert prep is not None
    problem = prep.problem
    variant = {t["name"]: t["variant"] for t in plan.data["tasks"] if t.get("variant")}
    ch = chosen(problem, plan_assignment(plan), variant)
    vs, vd = ch.get(src), ch.get(dst)
    c = next((c for c in problem.chains if (c.src, c.dst) == (src, dst)), None)
    if c is None or vs is None or vd is None:
        return {"why_unused": "not both ends on the FPGA"}
    saving = c.saving(vs.name, vd.name)
    if saving <= 0:
        return {
            "why_unused": f"with variants {vs.name} and {vd.name} the stream saves nothing",
            "would_save_s": saving,
        }
    stages, used = chain_stages(problem, ch)
    now = {n: (members, secs) for members, secs in stages for n in members}
    members = sorted({*now[src][0], *now[dst][0]}, key=[t.name for t in problem.tasks].index)
    joined = sum(ch[n].fpga_s for n in members) - saving
    joined -= sum(u.saving(ch[u.src].name, ch[u.dst].name) for u in used if u.src in members)
    return {
        "why_unused": f"one stage of {' + '.join(members)} would take {fmt_time(joined)} per frame (their FPGA "
        f"times minus the chains' savings, this one {fmt_time(saving)}), their stages now "
        f"{fmt_time(max(now[src][1], now[dst][1]))}: separate stages are faster",
        "would_save_s": saving,
    }
