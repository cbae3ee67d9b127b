"""The entry points: `solve` and `top_k`, the k best distinct choices by no-good cuts.

Numerics. The objective is handed to the solver in units of 1e-6 of the
greedy's objective (or of a cheap upper bound), the constant part carried by
a variable fixed to 1 (PuLP's HiGHS interface drops objective constants, and
relative gaps are only meaningful on the whole objective). Both solvers are
asked for a zero relative gap.

Each solution is read back, checked and put through the tie rule by
`partition.solve.ilp.choice`; makespan with k = 1 goes to
`partition.solve.ilp.makespan_solve`, and CP-SAT to `partition.solve.cpsat`.
"""

from __future__ import annotations

import time

import pulp

from partition.errors import PartitionError
from partition.solve import cpsat, heuristic
from partition.solve.check import check_problem
from partition.solve.ilp.builder import Builder, Lp
from partition.solve.ilp.choice import (
    CHECK_REL,
    evaluate_choice,
    prefer_cpu,
    read_choice,
    signature,
    solver_hint,
)
from partition.solve.ilp.fold import Fold, fold_problem
from partition.solve.ilp.latency import build_latency
from partition.solve.ilp.makespan import build_makespan
from partition.solve.ilp.makespan_solve import lazy_makespan, relaxed_makespan
from partition.solve.ilp.solvers import check_solver, run_solver
from partition.solve.ilp.throughput import build_throughput
from partition.solve.ilp.warm import warm_values
from partition.solve.model import Problem, Solution, feasible, make_solution, no_solution

_OBJ_UNITS = 1e6  # solver objective ~ 1e6 at the optimum (see Numerics)


def solve(
    problem: Problem, *, solver: str = "cbc", time_limit_s: float | None = None, msg: bool = False
) -> Solution:
    """Optimal choice for `problem` (see `partition.solve.ilp` for the model)."""
    return top_k(problem, 1, solver=solver, time_limit_s=time_limit_s, msg=msg)[0]


def top_k(
    problem: Problem,
    k: int,
    *,
    solver: str = "cbc",
    time_limit_s: float | None = None,
    msg: bool = False,
    distinct: str = "choice",
    warm_start: bool = True,
) -> list[Solution]:
    """The k best distinct choices, best first; the first is what `solve` returns.

    After each solution a no-good cut excludes it (reference/partitioners.md
    §4.6): sum_{z*=1} (1 - z) + sum_{z*=0} z >= 1 over the variant binaries
    (`distinct="choice"`: another placement or another variant), or over the
    placements x alone (`distinct="placement"`: another set of FPGA tasks, each
    with its best variant). The list stops early when no further feasible
    choice exists, or when a solve does not end with one. If the problem is
    infeasible the list holds one Solution with status "Infeasible".
    `time_limit_s` applies to each solve; after a "Time limit" solve the order
    is only as good as its gap.
    """
    if k < 1:
        raise PartitionError(f"top-k needs k >= 1, got {k}")
    if distinct not in ("choice", "placement"):
        raise PartitionError(f"distinct={distinct!r}: choose 'choice' or 'placement'")
    if time_limit_s is not None and not time_limit_s > 0:
        raise PartitionError(f"solver time limit {time_limit_s!r} s must be a positive number of seconds")
    check_problem(problem)
    check_solver(solver)
    if solver == "cpsat" and (problem.objective != "makespan" or k != 1):
        raise PartitionError(
            "solver 'cpsat' finds one plan for the makespan objective; use cbc or highs for "
            + ("the " + problem.objective + " objective" if problem.objective != "makespan" else "--top-k")
        )
    start = time.perf_counter()
    fold = fold_problem(problem)
    stats = {"variables": 0, "constraints": 0, "free_tasks": len(fold.free), "fixed_tasks": len(fold.fixed)}
    if fold.infeasible:
        return [no_solution("Infeasible", solver, start, stats)]

    greedy = heuristic.greedy(problem) if warm_start or problem.objective != "latency" else None
    if greedy is not None and not feasible(problem, greedy.assignment, greedy.variant):
        greedy = None  # cannot happen; keep the warm start honest
    if solver == "cpsat":
        sol = cpsat.solve_makespan(
            problem,
            fold.opts,
            fold.fixed,
            time_limit_s=time_limit_s,
            msg=msg,
            greedy=greedy,
            start=start,
            stats=stats,
        )
        if sol.status == "Optimal":
            ev = evaluate_choice(problem, sol.assignment, sol.variant, {"schedule": sol.schedule})
            x, var, ev = prefer_cpu(problem, fold, sol.assignment, sol.variant, ev, set(), "choice")
            sol.assignment, sol.variant, sol.objective_s, sol.schedule = x, var, ev.objective_s, ev.schedule
        return [sol]
    ref = greedy.objective_s if greedy is not None else _serial_bound(problem)
    scale = _OBJ_UNITS / max(ref, 1e-12)
    b = Builder(problem, fold, scale)
    horizon = None
    if problem.objective == "latency":
        extra = build_latency(b)
    elif problem.objective == "throughput":
        extra = build_throughput(b)
    else:
        if k == 1 and greedy is not None:
            horizon = (greedy.objective_s - problem.base_s) * (1 + 1e-6)  # a thin slab is numerically fragile
        extra = build_makespan(b, horizon, None, set() if k == 1 else None)
    b.finish_ands()
    lp = Lp(b.prob, scale, b.z, b.x, problem.objective, extra, opts=fold.opts, ands=b.ands)
    stats["variables"] = len(lp.prob.variables()) - 1  # without the constant carrier
    stats["constraints"] = lp.prob.numConstraints()
    if problem.objective == "makespan":
        stats["ordering_pairs"] = extra["pairs"]

    if problem.objective == "makespan" and extra["relaxed"]:
        return [relaxed_makespan(problem, lp, solver, time_limit_s, msg, greedy, start, stats)]
    if problem.objective == "makespan" and k == 1:
        return [lazy_makespan(problem, fold, scale, solver, time_limit_s, msg, greedy, start, stats)]

    out: list[Solution] = []
    seen: set[tuple] = set()
    while len(out) < k:
        t0 = time.perf_counter() if out else start
        warm = bool(greedy is not None and not out)
        if warm:
            warm_values(b, extra, greedy)  # type: ignore[arg-type]
        run = run_solver(lp, solver, time_limit_s, msg, warm)
        if run.values is None:
            if not out and run.status == "Not Solved" and time_limit_s is not None and greedy is not None:
                out.append(_from_heuristic(problem, greedy, solver, t0, stats))
            elif not out:
                out.append(no_solution(run.status, solver, t0, stats))
            break
        x, var = read_choice(problem, lp, run.values)
        if not feasible(problem, x, var):
            raise RuntimeError(f"{solver} returned a choice that violates the model: {x} {var}")
        hint = solver_hint(problem, lp, run.values, x, var)
        ev = evaluate_choice(problem, x, var, hint)
        assert run.solver_obj_s is not None
        tol = CHECK_REL * max(abs(ev.objective_s), abs(run.solver_obj_s)) + run.slack_s
        if problem.objective == "makespan":
            tol += CHECK_REL * extra["H"]
        too_high = ev.objective_s > run.solver_obj_s + tol
        too_low = run.status == "Optimal" and ev.objective_s < run.solver_obj_s - tol
        if too_high or too_low:
            raise RuntimeError(
                f"{solver} objective {run.solver_obj_s!r} s disagrees with the model's "
                f"{ev.objective_s!r} s for {x} {var}"
            )
        x, var, ev = prefer_cpu(problem, fold, x, var, ev, seen, distinct)
        seen.add(signature(fold, x, var, distinct))
        gap: float | None = 0.0
        status = run.status
        if status == "Time limit":
            gap = (
                None
                if run.bound_s is None
                else max(0.0, (ev.objective_s - run.bound_s) / max(ev.objective_s, 1e-300))
            )
        out.append(
            make_solution(
                problem,
                x,
                var,
                objective_s=ev.objective_s,
                status=status,
                solver=solver,
                gap=gap,
                start=t0,
                stats=stats,
                schedule=ev.schedule,
            )
        )
        if len(out) < k:
            _cut(lp, fold, x, var, distinct)
    return out


def _serial_bound(problem: Problem) -> float:
    """Every task at its slowest and every edge at its dearest, one after the other (> 0)."""
    total = abs(problem.base_s)
    for t in problem.tasks:
        total += max([t.cpu_s, *(v.fpga_s for v in t.options()), *(v.period_s for v in t.options())])
    for e in problem.edges:
        total += max(abs(e.c00), abs(e.c01), abs(e.c10), abs(e.c11))
    return total if total > 0 else 1.0


def _cut(lp: Lp, fold: Fold, x: dict[str, int], var: dict[str, str], distinct: str) -> None:
    terms = []
    ones = 0
    if distinct == "placement":
        for n in fold.free:
            for _, zv in lp.z[n]:
                terms.append((zv, -1.0 if x[n] else 1.0))
            ones += x[n]
    else:
        for n, zs in lp.z.items():
            for v, zv in zs:
                on = var.get(n) == v.name
                terms.append((zv, -1.0 if on else 1.0))
                ones += on
    lp.prob.addConstraint(pulp.LpAffineExpression(terms) >= 1 - ones, f"cut{lp.n_cuts:06d}")
    lp.n_cuts += 1


def _from_heuristic(
    problem: Problem, g: heuristic.Choice, solver: str, start: float, stats: dict[str, int]
) -> Solution:
    """The warm start as the answer when the solver found nothing better within its time limit."""
    ev = evaluate_choice(problem, g.assignment, g.variant, {"cores": g.cores, "schedule": g.schedule})
    return make_solution(
        problem,
        g.assignment,
        g.variant,
        objective_s=ev.objective_s,
        status="Time limit",
        solver=solver,
        gap=None,
        start=start,
        stats=stats,
        schedule=ev.schedule,
    )
