"""The model's objective value of a choice (the definition the baselines and reasons share)."""

from __future__ import annotations

from partition.solve import (
    Problem,
    ScheduleTooLarge,
    chosen,
    evaluate,
    heuristic,
)


def objective_of(problem: Problem, x: dict[str, int], var: dict[str, str] | None = None) -> float:
    """The model's objective of a choice; for a makespan too large to search exactly, list scheduling.

    (Only where the exact search gives up; the value is then an upper bound.)
    """
    try:
        return evaluate(problem, x, var)
    except ScheduleTooLarge:
        return heuristic.list_schedule(problem, chosen(problem, x, var))[0]


def all_cpu_objective(problem: Problem) -> float:
    return objective_of(problem, {t.name: 0 for t in problem.tasks})
