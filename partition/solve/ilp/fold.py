"""What is decided before solving: fixed placements and the variants left per task.

Everything decided before solving is folded into constants: `<main>` is
x = 0; tasks without a variant or pinned to the CPU are on the CPU; the
partner of a task pinned to the FPGA in an exclusive pair is on the CPU; a
variant whose resources alone exceed what the pinned tasks leave of a budget
is dropped (a task with no variant left goes to the CPU). If that already
proves infeasibility the solver is not called.

Separate from the model building: every objective's model, the CP-SAT model
and the no-good cuts of `top_k` start from the same fold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from partition.solve.model import FEAS_ABS, Problem, Variant


@dataclass
class Fold:
    """What is decided before solving: fixed placements and the variants left per task."""

    names: list[str]
    fixed: dict[str, int]  # placement fixed: 0 CPU, 1 FPGA
    opts: dict[str, list[Variant]]  # variants still allowed (tasks that may be on the FPGA)
    free: list[str]  # placement free, problem order
    rows: list[tuple[str, float]] = field(default_factory=list)  # resources that can bind
    pairs: list[tuple[str, str]] = field(default_factory=list)  # exclusive, both free
    infeasible: bool = False


def fold_problem(problem: Problem) -> Fold:
    names = [t.name for t in problem.tasks]
    order = {n: i for i, n in enumerate(names)}
    fixed: dict[str, int] = {}
    opts = {t.name: t.options() for t in problem.tasks}
    infeasible = False
    for t in problem.tasks:
        if t.pin == "fpga":
            fixed[t.name] = 1
            infeasible |= not opts[t.name]
        elif t.pin == "cpu" or not opts[t.name]:
            fixed[t.name] = 0

    pairs: set[tuple[str, str]] = set()
    for a, b in problem.exclusive:
        a, b = sorted((a, b), key=order.__getitem__)
        fa, fb = fixed.get(a), fixed.get(b)
        if a == b:
            if fa == 1:
                infeasible = True
            fixed.setdefault(a, 0)
        elif fa == 1 and fb == 1:
            infeasible = True
        elif fa == 1:
            fixed.setdefault(b, 0)
        elif fb == 1:
            fixed.setdefault(a, 0)
        elif fa is None and fb is None:
            pairs.add((a, b))

    budgets = {r: cap for r, cap in sorted(problem.budget.items()) if cap != math.inf}
    changed = True
    while changed and not infeasible:  # drop variants that cannot fit beside the pinned tasks
        changed = False
        for r, cap in budgets.items():
            pinned_min = {
                n: min(v.resources.get(r, 0.0) for v in opts[n]) for n in names if fixed.get(n) == 1
            }
            total_min = sum(pinned_min.values())
            if total_min > cap + FEAS_ABS:
                infeasible = True
                break
            for n in names:
                if fixed.get(n) == 0 or not opts[n]:
                    continue
                room = cap - (total_min - pinned_min.get(n, 0.0))
                keep = [v for v in opts[n] if v.resources.get(r, 0.0) <= room + FEAS_ABS]
                if len(keep) != len(opts[n]):
                    changed = True
                    opts[n] = keep
                    if not keep:
                        if fixed.get(n) == 1:
                            infeasible = True
                        fixed[n] = 0
    for n in names:
        if fixed.get(n) == 0:
            opts[n] = []
    free = [n for n in names if n not in fixed]
    free_set = set(free)
    rows = []
    for r, cap in budgets.items():
        most = sum(max((v.resources.get(r, 0.0) for v in opts[n]), default=0.0) for n in names)
        if most > cap + FEAS_ABS:
            rows.append((r, cap))
    pair_list = sorted(
        (p for p in pairs if p[0] in free_set and p[1] in free_set),
        key=lambda p: (order[p[0]], order[p[1]]),
    )
    return Fold(names, fixed, opts, free, rows, pair_list, infeasible)
