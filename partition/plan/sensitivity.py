"""How far the board's CPU may be from its figures before a decision of the plan changes.

The CPU side of every decision is a profiled time scaled to the board (`costs.Scaling`), and
the board's figures are estimates with a stated range. The plan is solved again with every
CPU time (the tasks' and the app's own) multiplied by each factor of `GRID` and by the ends
of the stated range; for each task the plan says over which multipliers its placement
stays the one chosen (at the grid's resolution: a flip lies between the last multiplier
that keeps it and the next one), and whether it flips inside the stated range. A decision
that holds across the range can be trusted without calibrating the board; one that flips
inside it needs the board's own figures (boards/<board>.calibrate.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from partition.plan.artefacts import Prepared
from partition.solve import Problem, Solution, top_k

GRID = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0, 16.0)
MAX_TASKS = 40  # beyond, the ten extra solves would cost more than the plan itself: not analysed


def scaled(problem: Problem, m: float) -> Problem:
    """`problem` with every CPU time multiplied by `m` (the FPGA side, copies included, unchanged)."""
    tasks = [dataclasses.replace(t, cpu_s=t.cpu_s * m) for t in problem.tasks]
    return dataclasses.replace(problem, tasks=tasks, base_s=problem.base_s * m)


def sensitivity(
    prep: Prepared, solution: Solution, solver: str, time_limit_s: float | None
) -> dict[str, Any]:
    """plan.json "sensitivity": per task (a list, in the problem's order), the CPU multipliers over
    which its placement holds."""
    problem = prep.problem
    if not problem.tasks:
        return {}
    if len(problem.tasks) > MAX_TASKS:
        return {
            "note": f"{len(problem.tasks)} FPGA-capable tasks: the sensitivity is analysed up to {MAX_TASKS}"
        }
    lo, hi = prep.scaling.spread()
    stated = (round(lo, 4), round(hi, 4))
    ms = sorted({*GRID, *stated})
    placements: dict[float, dict[str, int]] = {}
    for m in ms:
        if m == 1.0:
            placements[m] = dict(solution.assignment)
            continue
        sol = top_k(scaled(problem, m), 1, solver=solver, time_limit_s=time_limit_s, distinct="placement")[0]
        if sol.status not in ("Optimal", "Time limit", "Feasible"):
            return {"note": f"the plan at CPU times ×{m:g} has no solution ({sol.status}): no sensitivity"}
        placements[m] = dict(sol.assignment)
    tasks = []
    for t in problem.tasks:
        chosen = solution.assignment.get(t.name, 0)
        holds = [m for m in ms if placements[m].get(t.name, 0) == chosen]
        down = _reach([m for m in ms if m <= 1.0][::-1], holds)
        up = _reach([m for m in ms if m >= 1.0], holds)
        inside = [m for m in ms if stated[0] <= m <= stated[1]]
        tasks.append(
            {
                "name": t.name,
                "placement": "fpga" if chosen else "cpu",
                "holds_from": down,
                "holds_to": up,
                "below_grid": down == ms[0],
                "above_grid": up == ms[-1],
                "flips_within_range": any(m not in holds for m in inside),
            }
        )
    return {"multipliers": ms, "stated_range": list(stated), "tasks": tasks}


def _reach(path: list[float], holds: list[float]) -> float:
    """The farthest multiplier along `path` (from 1 outwards) up to which the placement holds."""
    last = path[0]
    for m in path:
        if m not in holds:
            break
        last = m
    return last


def flips(sens: dict[str, Any]) -> list[str]:
    """The tasks whose placement changes inside the stated range of the board's CPU figures."""
    return sorted(t["name"] for t in sens.get("tasks", []) if t["flips_within_range"])
