"""`--sweep` and `--board all`: the same problem re-solved over utilisation caps and boards, a
Pareto table."""

from __future__ import annotations

import math
from typing import Any

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.plan.artefacts import (
    Options,
    Prepared,
)
from partition.plan.data import resources_used
from partition.plan.make import solve_prepared
from partition.plan.objective import all_cpu_objective
from partition.solve import (
    costs,
)


def parse_sweep(spec: str) -> dict[str, list[float]]:
    """'max-util=0.5:0.9:0.1' -> {'max_util': [0.5, 0.6, 0.7, 0.8, 0.9]} (also 'max-util=0.5,0.7')."""
    if "=" not in spec:
        raise PartitionError(f"--sweep {spec}: give NAME=START:STOP:STEP, e.g. max-util=0.5:0.9:0.1")
    name, _, values = spec.partition("=")
    if name.strip() not in ("max-util", "max_util"):
        raise PartitionError(f"--sweep {spec}: only max-util can be swept (boards: --board all)")
    try:
        if ":" in values:
            parts = [float(x) for x in values.split(":")]
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            start, stop, step = parts
            n = math.floor((stop - start) / step + 1e-9) + 1
            vals = [round(start + i * step, 10) for i in range(n)]
        else:
            vals = [float(x) for x in values.split(",")]
    except ValueError:
        raise PartitionError(
            f"--sweep {spec}: give START:STOP:STEP with STOP >= START and STEP > 0, or a comma list"
        ) from None
    for v in vals:
        if not 0.0 < v <= 1.0:
            raise PartitionError(f"--sweep {spec}: {v} is not a utilisation fraction in (0, 1]")
    if len(vals) > 50:
        raise PartitionError(f"--sweep {spec}: {len(vals)} values; give at most 50")
    return {"max_util": vals}


def sweep(preps: list[Prepared], utils: list[float], opts: Options) -> dict[str, Any]:
    """Plans over boards × utilisation caps, with the Pareto-optimal rows marked.

    A row is Pareto-optimal when no other row is at least as fast and uses at
    most as many LUT, DSP and BRAM18, being better in one of them.
    """
    rows: list[dict[str, Any]] = []
    for prep in preps:
        for u in utils:
            problem = prep.problem
            saved = problem.budget
            problem.budget = costs.budget(prep.board, u)
            row: dict[str, Any] = {"params": {"board": prep.board.name, "max_util": u}}
            try:
                o = Options(**{**opts.__dict__, "max_util": u, "top_k": 1})
                sol = solve_prepared(prep, o, 1)[0]
                all_cpu = all_cpu_objective(problem)
                fpga = sorted(n for n, v in sol.assignment.items() if v)
                used = resources_used(problem, sol)
                row.update(
                    plan_s=sol.objective_s,
                    speedup=all_cpu / sol.objective_s if sol.objective_s > 0 else None,
                    fpga=fpga,
                    variants={n: sol.variant[n] for n in fpga if n in sol.variant},
                    used=used,
                    used_fraction={
                        r: (used[r] + float(prep.board.shell.get(r, 0))) / float(prep.board.resources[r])
                        for r in RESOURCES
                    },
                    status=sol.status,
                )
            except PartitionError as e:
                row.update(plan_s=None, speedup=None, fpga=[], status=f"no plan: {e.message}")
            finally:
                problem.budget = saved
            rows.append(row)
    keys = ("lut", "dsp", "bram18")
    for r in rows:
        if r["plan_s"] is None:
            r["pareto"] = False
            continue
        me = (r["plan_s"], *(r["used"][k] for k in keys))
        r["pareto"] = not any(
            o is not r
            and o["plan_s"] is not None
            and all(a <= b for a, b in zip((o["plan_s"], *(o["used"][k] for k in keys)), me))
            and (o["plan_s"], *(o["used"][k] for k in keys)) != me
            for o in rows
        )
    params = ["board", "max_util"]
    return {"parameters": params, "objective": opts.objective, "rows": rows}
