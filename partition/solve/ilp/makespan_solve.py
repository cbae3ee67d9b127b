"""Solving the makespan model: its ordering pairs added lazily, or beyond MAX_PAIRS its relaxation.

`solve` (k = 1) adds the ordering pairs lazily (`lazy_makespan`): the
first model has none, and each round adds the pairs whose jobs overlap on
one resource in the solver's point, until the point is a schedule of the
full model or the best schedule found (each round's choice, re-timed in
the solver's order or list-scheduled) meets the bound. Every round is a
relaxation of the full model, so its bound is valid and the gap at the
time limit is honest. `top_k` (k > 1) builds the full model at once.

Separate from the model's rows (`partition.solve.ilp.makespan`): this is the
loop that builds, solves and re-times one model after the other.
"""

from __future__ import annotations

import time

from partition.solve import heuristic
from partition.solve.ilp.builder import Builder, Lp, value
from partition.solve.ilp.choice import CHECK_REL, Eval, evaluate_choice, prefer_cpu, read_choice
from partition.solve.ilp.fold import Fold
from partition.solve.ilp.makespan import MJob, build_makespan, ilp_schedule
from partition.solve.ilp.solvers import run_solver
from partition.solve.ilp.warm import warm_values
from partition.solve.model import Problem, Solution, chosen, feasible, make_solution, no_solution
from partition.solve.schedule import schedule_length

_PROVEN_REL = 1e-9  # a schedule this close to the bound is optimal (lazy makespan)


def _overlaps(lp: Lp, values: dict, cores: int, subset: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Ordering pairs left out of the model that share a resource and overlap in the solver's point."""
    ex = lp.extra
    jobs: list[MJob] = ex["jobs"]
    H = ex["H"]
    s = [values.get(v, 0.0) / lp.scale for v in ex["S"]]
    d = [value(j.dur, values) for j in jobs]
    cpu = [value(j.on_cpu, values) > 0.5 for j in jobs]
    fpga = [value(j.on_fpga, values) > 0.5 for j in jobs]
    core = [int(values.get(ex["w"].get((k, 1)), 0.0) > 0.5) if cores == 2 else 0 for k in range(len(jobs))]
    tol = 1e-9 * H  # far above the solvers' tolerances (objective ~1e6 units)
    out = set()
    for j, k in ex["all_pairs"]:
        if (j, k) in subset:
            continue
        shared = (cpu[j] and cpu[k] and core[j] == core[k]) or (fpga[j] and fpga[k])
        if shared and min(s[j] + d[j], s[k] + d[k]) - max(s[j], s[k]) > tol:
            out.add((j, k))
    return out


def lazy_makespan(
    problem: Problem,
    fold: Fold,
    scale: float,
    solver: str,
    time_limit_s: float | None,
    msg: bool,
    greedy: heuristic.Choice | None,
    start: float,
    stats: dict[str, int],
) -> Solution:
    """The disjunctive makespan model with its ordering pairs added lazily (row generation).

    The first model has no ordering pair at all: choices, precedence, the load
    and flow bounds (a relaxation, usually within a few per cent). Its optimum
    is a lower bound; its choice, re-timed in the order of its start times,
    is a valid schedule and an upper bound. Every pair of jobs that overlaps on
    one resource in the solver's point gets its disjunction and the model is
    solved again (with the best schedule so far as its warm start and horizon).
    It stops when the bound meets the best schedule (Optimal), when the solver's
    point overlaps nowhere (then it is a schedule of the full model: Optimal),
    or at the time limit (the best schedule with the last bound: its gap).
    Every model is a relaxation of the full one, so the bound is always valid
    and the result is the full model's optimum.
    """
    deadline = None if time_limit_s is None else start + time_limit_s
    cores = problem.cpu_cores
    subset: set[tuple[int, int]] = set()
    best = (
        None if greedy is None else (greedy.objective_s, greedy.assignment, greedy.variant, greedy.schedule)
    )
    bound: float | None = None
    proven = False
    rounds = 0
    while True:
        horizon = None if best is None else (best[0] - problem.base_s) * (1 + 1e-6)
        b = Builder(problem, fold, scale)
        extra = build_makespan(b, horizon, False, subset)
        b.finish_ands()
        lp = Lp(b.prob, scale, b.z, b.x, problem.objective, extra, opts=fold.opts, ands=b.ands)
        if best is not None:
            warm_values(b, extra, heuristic.Choice(best[1], best[2], best[0], schedule=best[3]))
        rounds += 1
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0.05:
            break
        run = run_solver(lp, solver, remaining, msg, best is not None)
        if run.values is None:
            if run.status == "Infeasible" and best is None:
                return no_solution("Infeasible", solver, start, stats)
            break
        if run.bound_s is not None:
            bound = run.bound_s if bound is None else max(bound, run.bound_s)
        x, var = read_choice(problem, lp, run.values)
        if not feasible(problem, x, var):
            raise RuntimeError(f"{solver} returned a choice that violates the model: {x} {var}")
        sched = ilp_schedule(problem, lp, run.values, x, var)
        length = schedule_length(problem, x, var, sched)
        ls_len, ls_sched = heuristic.list_schedule(problem, chosen(problem, x, var))
        if ls_len < length:
            length, sched = ls_len, ls_sched
        if best is None or length < best[0]:
            best = (length, x, var, sched)
        if bound is not None and best[0] <= bound + _PROVEN_REL * best[0]:
            proven = True
            break
        if run.status != "Optimal":  # the time limit stopped this round
            break
        more = _overlaps(lp, run.values, cores, subset)
        if not more:  # the point is a schedule of the full model
            proven = True
            break
        subset |= more
    stats["lazy_pairs"] = len(subset)
    stats["rounds"] = rounds
    if best is None:
        return no_solution("Not Solved", solver, start, stats)
    length, x, var, sched = best
    # the exact search costs seconds on schedules it cannot finish: only for a proven optimum
    ev = evaluate_choice(problem, x, var, {"schedule": sched}) if proven else Eval(length, sched, False)
    if bound is not None and ev.objective_s < bound - CHECK_REL * max(abs(bound), ev.objective_s):
        raise RuntimeError(
            f"{solver}'s bound {bound!r} s exceeds the model's {ev.objective_s!r} s for {x} {var}"
        )
    if proven:
        x, var, ev = prefer_cpu(problem, fold, x, var, ev, set(), "choice")
    gap: float | None = 0.0
    if not proven:
        gap = None if bound is None else max(0.0, (ev.objective_s - bound) / max(ev.objective_s, 1e-300))
    return make_solution(
        problem,
        x,
        var,
        objective_s=ev.objective_s,
        status="Optimal" if proven else "Time limit",
        solver=solver,
        gap=gap,
        start=start,
        stats=stats,
        schedule=ev.schedule,
    )


def relaxed_makespan(
    problem: Problem,
    lp: Lp,
    solver: str,
    time_limit_s: float | None,
    msg: bool,
    greedy: heuristic.Choice | None,
    start: float,
    stats: dict[str, int],
) -> Solution:
    """Makespan beyond MAX_PAIRS: the relaxation's bound, the best list schedule, the gap."""
    run = run_solver(lp, solver, time_limit_s, msg, False)
    if run.values is None:
        return no_solution(run.status, solver, start, stats)
    bound = run.bound_s if run.status == "Time limit" else run.solver_obj_s
    x, var = read_choice(problem, lp, run.values)
    cands = []
    if feasible(problem, x, var):
        length, entries = heuristic.list_schedule(problem, chosen(problem, x, var))
        cands.append((length, 0, x, var, entries))
    if greedy is not None:
        cands.append((greedy.objective_s, 1, greedy.assignment, greedy.variant, greedy.schedule))
    length, _, x, var, entries = min(cands, key=lambda c: (c[0], c[1]))
    schedule_length(problem, x, var, entries)
    gap = None if bound is None else max(0.0, (length - bound) / max(length, 1e-300))
    status = "Optimal" if gap is not None and gap <= 1e-9 else "Feasible"
    return make_solution(
        problem,
        x,
        var,
        objective_s=length,
        status=status,
        solver=solver,
        gap=gap,
        start=start,
        stats=stats,
        schedule=entries,
    )
