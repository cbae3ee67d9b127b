"""Exhaustive enumeration: the reference the ILP is checked against.

It shares nothing with the ILP but the cost model (`evaluate.evaluate`,
`model.feasible`), so an agreement between the two on many random instances
says the linearisation, the scheduling constraints, the constant folding and
the status handling of the ILP are right. Every task takes each of its
options in turn: the CPU, then each FPGA variant in order — prod_i (1 + |V_i|)
choices, practical up to a few hundred thousand.

For makespan and throughput a choice whose cheap lower bound (critical path
and resource loads; busiest resource) already reaches the incumbent is not
evaluated: it cannot be strictly better, so the result is unchanged.

Tie rule: choices are visited in lexicographic order of the task list (the
first task is the most significant; the CPU before the variants in their
order) and only a strictly lower objective replaces the incumbent, so among
equal optima the one that is first in that order wins.
"""

from __future__ import annotations

import itertools
import math
import time

from partition.errors import PartitionError
from partition.solve.evaluate import evaluate
from partition.solve.model import Problem, Solution, chosen, feasible
from partition.solve.period import split_cores, throughput_entries, throughput_loads
from partition.solve.schedule import makespan_jobs, optimal_schedule, task_order

MAX_CHOICES = 1 << 22


def brute_force(problem: Problem) -> Solution:
    """The optimal choice by trying all of them."""
    options = [[None, *(v.name for v in t.options())] for t in problem.tasks]
    count_all = math.prod(len(o) for o in options)
    if count_all > MAX_CHOICES:
        raise PartitionError(
            f"exhaustive search over {len(options)} tasks means {count_all:,} choices; "
            f"it is limited to {MAX_CHOICES:,} — use the ILP solver instead"
        )
    if problem.objective == "makespan":
        task_order(problem)  # a cyclic graph is an error, not an infeasible problem
    names = [t.name for t in problem.tasks]
    start = time.perf_counter()
    best: tuple[dict[str, int], dict[str, str]] | None = None
    best_obj = math.inf
    count = 0
    for combo in itertools.product(*options):
        x = {n: int(v is not None) for n, v in zip(names, combo)}
        var = {n: v for n, v in zip(names, combo) if v is not None}
        if not feasible(problem, x, var):
            continue
        count += 1
        if best is not None and _lower_bound(problem, x, var) >= best_obj:
            continue
        if problem.objective == "makespan":  # only a strictly shorter schedule is of interest
            obj = (
                problem.base_s
                + optimal_schedule(problem, chosen(problem, x, var), below=best_obj - problem.base_s)[0]
            )
        else:
            obj = evaluate(problem, x, var)
        if best is None or obj < best_obj:
            best, best_obj = (x, var), obj
    elapsed = time.perf_counter() - start
    stats = {"assignments": count_all, "feasible": count}
    if best is None:
        return Solution(
            assignment={},
            objective_s=math.inf,
            status="Infeasible",
            solver="brute",
            gap=None,
            solve_time_s=elapsed,
            stats=stats,
        )
    x, var = best
    return Solution(
        assignment=x,
        objective_s=best_obj,
        status="Optimal",
        solver="brute",
        gap=0.0,
        solve_time_s=elapsed,
        stats=stats,
        variant=var,
        schedule=_schedule(problem, x, var),
    )


def _lower_bound(problem: Problem, x: dict[str, int], var: dict[str, str]) -> float:
    """A bound the objective of this choice cannot go below (-inf for latency: no pruning)."""
    ch = chosen(problem, x, var)
    if problem.objective == "throughput":
        cpu, fpga, link = throughput_loads(problem, ch)
        total = problem.base_s + sum(cpu)
        return max(fpga, link, problem.base_s, max(cpu, default=0.0), total / problem.cpu_cores)
    if problem.objective == "makespan":
        jobs = makespan_jobs(problem, ch)
        finish = [0.0] * len(jobs)  # longest path, by relaxation (jobs are in no topological order)
        changed = True
        while changed:
            changed = False
            for j, job in enumerate(jobs):
                f = max((finish[p] for p in job.preds), default=0.0) + job.duration
                if f > finish[j]:
                    finish[j], changed = f, True
        cpu = sum(j.duration for j in jobs if j.resource == "cpu")
        fpga = sum(j.duration for j in jobs if j.resource == "fpga")
        return problem.base_s + max(max(finish, default=0.0), cpu / problem.cpu_cores, fpga)
    return -math.inf


def _schedule(problem: Problem, x: dict[str, int], var: dict[str, str]) -> list[dict]:
    ch = chosen(problem, x, var)
    if problem.objective == "makespan":
        return optimal_schedule(problem, ch)[1]
    if problem.objective == "throughput":
        cpu = {t.name: t.cpu_s for t in problem.tasks if ch[t.name] is None}
        return throughput_entries(problem, ch, split_cores(problem.base_s, cpu, problem.cpu_cores))
    return []
