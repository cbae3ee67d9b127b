"""Exhaustive enumeration: the reference the ILP is checked against.

It shares nothing with the ILP but the cost model (`model.evaluate`,
`model.feasible`), so an agreement between the two on many random instances
says the linearisation, the constant folding and the status handling of the
ILP are right. Practical up to about twenty tasks (2^n assignments).

Tie rule: assignments are visited in lexicographic order of the task list
(all-CPU first, the first task is the most significant bit) and only a strictly
lower objective replaces the incumbent, so among equal optima the one that is
first in that order wins.
"""

from __future__ import annotations

import itertools
import math
import time

from partition.errors import PartitionError
from partition.solve.model import Problem, Solution, evaluate, feasible

MAX_TASKS = 22


def brute_force(problem: Problem) -> Solution:
    """The optimal assignment by trying all 2^n of them."""
    names = [t.name for t in problem.tasks]
    if len(names) > MAX_TASKS:
        raise PartitionError(
            f"exhaustive search over {len(names)} tasks means 2^{len(names)} assignments; "
            f"it is limited to {MAX_TASKS} tasks — use the ILP solver instead"
        )
    start = time.perf_counter()
    best: dict[str, int] | None = None
    best_obj = math.inf
    count = 0
    for bits in itertools.product((0, 1), repeat=len(names)):
        x = dict(zip(names, bits))
        if not feasible(problem, x):
            continue
        count += 1
        obj = evaluate(problem, x)
        if best is None or obj < best_obj:
            best, best_obj = x, obj
    elapsed = time.perf_counter() - start
    stats = {"assignments": 2 ** len(names), "feasible": count}
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
    return Solution(
        assignment=best,
        objective_s=best_obj,
        status="Optimal",
        solver="brute",
        gap=0.0,
        solve_time_s=elapsed,
        stats=stats,
    )
