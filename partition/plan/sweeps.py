"""`--sweep` and `--board all`: the same problem re-solved over utilisation caps and boards, a
Pareto table.

Each board's preparation (translation is shared; estimates are per board) and each solve are
independent: they run on the executor (`partition.executor`, Dask distributed) with the plan's
`workers` and `scheduler` options, one after another here with `workers=1`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from partition.boards import RESOURCES, Board
from partition.errors import PartitionError
from partition.executor import map_tasks
from partition.plan.artefacts import Options, Plan, Prepared
from partition.plan.data import resources_used
from partition.plan.make import make_plan, solve_prepared
from partition.plan.objective import all_cpu_objective
from partition.plan.preparation import prepare, translate_all
from partition.profile.model import Profile
from partition.solve import costs


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


def _sweep_row(case: tuple[Prepared, float, Options]) -> dict[str, Any]:
    """One row of a sweep: `prep`'s problem solved at utilisation cap `u`."""
    prep, u, opts = case
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
    return row


def sweep(preps: list[Prepared], utils: list[float], opts: Options) -> dict[str, Any]:
    """Plans over boards × utilisation caps, with the Pareto-optimal rows marked.

    A row is Pareto-optimal when no other row is at least as fast and uses at
    most as many LUT, DSP and BRAM18, being better in one of them.
    """
    cases = [(prep, u, opts) for prep in preps for u in utils]
    rows = map_tasks(
        _sweep_row,
        cases,
        keys=[f"solve-{prep.board.name}-{u:g}-{i}" for i, (prep, u, _) in enumerate(cases)],
        scheduler=opts.scheduler,
        workers=opts.workers,
    )
    for r in rows:
        if isinstance(r, BaseException):
            raise r
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


def _prepare_board(case: tuple) -> Prepared:
    profile, app_dir, board, opts, translated = case
    return prepare(profile, app_dir, board, opts, translated)


def plan_boards(
    profile: Profile, app_dir: Path, boards: list[Board], opts: Options, sweep_spec: str | None
) -> tuple[Plan, Board]:
    """The plan for one board, or with several boards or a `--sweep` spec the plan of the board
    with the best time at `opts.max_util`, carrying the sweep table of every board and cap (a
    board that cannot be planned is a row that says why)."""
    utils = parse_sweep(sweep_spec)["max_util"] if sweep_spec else [opts.max_util]
    if len(boards) == 1 and not sweep_spec:
        return make_plan(profile, app_dir, boards[0], opts), boards[0]
    translated = translate_all(profile, app_dir, opts.int_widths == "observed", opts.max_shapes)
    preps = []
    failed = []
    prepared = map_tasks(
        _prepare_board,
        [(profile, app_dir, b, opts, translated) for b in boards],
        keys=[f"prepare-{b.name}-{i}" for i, b in enumerate(boards)],
        scheduler=opts.scheduler,
        workers=opts.workers,
    )
    for b, r in zip(boards, prepared):
        if isinstance(r, PartitionError) and len(boards) > 1:
            failed.append((b.name, r.message))
        elif isinstance(r, BaseException):
            raise r
        else:
            preps.append(r)
    table = sweep(preps, utils, opts)
    for name, why in failed:
        for u in utils:
            table["rows"].append(
                {
                    "params": {"board": name, "max_util": u},
                    "plan_s": None,
                    "speedup": None,
                    "fpga": [],
                    "status": f"no plan: {why}",
                    "pareto": False,
                }
            )
    best = preps[0] if preps else None
    if len(preps) > 1:
        scored = [
            (r["plan_s"], i)
            for i, p in enumerate(preps)
            for r in table["rows"]
            if r["params"]["board"] == p.board.name
            and r["params"]["max_util"] == opts.max_util
            and r["plan_s"]
        ]
        if scored:
            best = preps[min(scored)[1]]
    if best is None:
        raise PartitionError("no board could be planned: " + "; ".join(f"{n}: {w}" for n, w in failed))
    plan = make_plan(profile, app_dir, best.board, opts, prepared=best)
    plan.data["sweep"] = table
    return plan, best.board
