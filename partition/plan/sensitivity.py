"""How far the cost model's figures may be off before a decision of the plan changes.

Three sides of every decision are estimates: the CPU time (a profiled time scaled to the
board, `costs.Scaling`, by board figures with a stated range), each kernel's FPGA time (its
cycle estimate, call overhead and copies) and its resources. For each side (`DIMENSIONS`) the
plan is solved again with those figures multiplied by each factor of a grid and by the ends
of the side's stated range; for each task the plan says over which multipliers its placement
stays the one chosen (at the grid's resolution: a flip lies between the last multiplier that
keeps it and the next one), and whether it flips inside the stated range. A decision that
holds across the ranges can be trusted as it is; one that flips needs measured figures (the
board's calibration script for the CPU, `partition measure`/--calibrate for the kernels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from partition.plan.artefacts import Prepared
from partition.solve import Problem, Solution, top_k

GRID = (1 / 4, 1 / 2, 1.0, 2.0, 4.0)
KERNEL_GRID = (1 / 2, 1.0, 2.0)
# the estimates' stated uncertainty: the fidelity targets against RTL simulation (cycles) and
# yosys (resources) of benchmarks/results/fidelity.md (some kernels miss the resource target)
FPGA_TIME_RANGE = (0.9, 1.1)
RESOURCE_RANGE = (0.7, 1.3)
MAX_TASKS = 40  # beyond, the fourteen extra solves would cost more than the plan itself: not analysed


def scaled(problem: Problem, m: float) -> Problem:
    """`problem` with every CPU time multiplied by `m` (the FPGA side, copies included, unchanged)."""
    tasks = [dataclasses.replace(t, cpu_s=t.cpu_s * m) for t in problem.tasks]
    return dataclasses.replace(problem, tasks=tasks, base_s=problem.base_s * m)


def _variants(problem: Problem, time_m: float, res_m: float) -> Problem:
    tasks = []
    for t in problem.tasks:
        vs = [
            dataclasses.replace(
                v,
                fpga_s=v.fpga_s * time_m,
                ii_s=None if v.ii_s is None else v.ii_s * time_m,
                resources={r: x * res_m for r, x in v.resources.items()},
            )
            for v in t.options()
        ]
        tasks.append(dataclasses.replace(t, variants=vs, fpga_s=None, resources={}))
    chains = [  # a chain's savings are parts of its ends' FPGA times: they scale with them
        dataclasses.replace(
            c,
            src_s={v: x * time_m for v, x in c.src_s.items()},
            dst_s={v: x * time_m for v, x in c.dst_s.items()},
            stream_s=c.stream_s * time_m,
        )
        for c in problem.chains
    ]
    return dataclasses.replace(problem, tasks=tasks, chains=chains)


def fpga_timed(problem: Problem, m: float) -> Problem:
    """`problem` with every kernel variant's FPGA time multiplied by `m`."""
    return _variants(problem, m, 1.0)


def resourced(problem: Problem, m: float) -> Problem:
    """`problem` with every kernel variant's resources multiplied by `m` (the budget unchanged)."""
    return _variants(problem, 1.0, m)


def sensitivity(
    prep: Prepared, solution: Solution, solver: str, time_limit_s: float | None
) -> dict[str, Any]:
    """plan.json "sensitivity": per side of the cost model ("cpu", "fpga_time", "resources"), per
    task (a list, in the problem's order), the multipliers over which its placement holds."""
    problem = prep.problem
    if not problem.tasks:
        return {}
    if len(problem.tasks) > MAX_TASKS:
        return {
            "note": f"{len(problem.tasks)} FPGA-capable tasks: the sensitivity is analysed up to {MAX_TASKS}"
        }
    sides = [
        ("cpu", scaled, GRID, prep.scaling.spread()),
        ("fpga_time", fpga_timed, KERNEL_GRID, FPGA_TIME_RANGE),
        ("resources", resourced, KERNEL_GRID, RESOURCE_RANGE),
    ]
    out: dict[str, Any] = {}
    for name, scale, grid, (lo, hi) in sides:
        side = _side(problem, solution, scale, grid, (round(lo, 4), round(hi, 4)), solver, time_limit_s)
        if "note" in side:
            return side
        out[name] = side
    return out


def _side(
    problem: Problem,
    solution: Solution,
    scale: Callable[[Problem, float], Problem],
    grid: tuple[float, ...],
    stated: tuple[float, float],
    solver: str,
    time_limit_s: float | None,
) -> dict[str, Any]:
    ms = sorted({*grid, *stated, 1.0})
    placements: dict[float, dict[str, int]] = {}
    for m in ms:
        if m == 1.0:
            placements[m] = dict(solution.assignment)
            continue
        sol = top_k(scale(problem, m), 1, solver=solver, time_limit_s=time_limit_s, distinct="placement")[0]
        if sol.status not in ("Optimal", "Time limit", "Feasible"):
            return {"note": f"the plan with figures ×{m:g} has no solution ({sol.status}): no sensitivity"}
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


def flips(sens: dict[str, Any], side: str = "cpu") -> list[str]:
    """The tasks whose placement changes inside the stated range of one side's figures."""
    return sorted(t["name"] for t in (sens.get(side) or {}).get("tasks", []) if t["flips_within_range"])
