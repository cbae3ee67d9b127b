"""A solver's point as a choice: read back, evaluated against the model, and the tie rule.

The rounded choice is re-checked with `model.feasible` and re-evaluated:
`evaluate.evaluate` where that is exact and affordable (always for latency;
throughput with one core or at most period.EXACT_SPLIT_TASKS CPU tasks;
makespan while the exact search stays within schedule.EXACT_STATES states),
otherwise the solver's own core split or schedule, re-timed and checked with
`schedule.schedule_length`. The solver's
objective must agree with that or the result is rejected. So ILP and brute
force report the same optimum and the same kind of schedule.

Tie rule (determinism). Both solvers are deterministic for the same model,
which is built in task order with index-based names, so the same Problem
always yields the same choice. On top of that, ties are broken towards the
CPU: after solving, each task on the FPGA that is not pinned is moved back
to the CPU, in task order and repeatedly until nothing changes, whenever that
does not make the objective worse (within 1e-12 relative) — for makespan only
where the exact schedule search is affordable. An FPGA kernel that buys
nothing is not worth building.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from partition.solve import heuristic
from partition.solve.evaluate import evaluate
from partition.solve.ilp.builder import Lp
from partition.solve.ilp.fold import Fold
from partition.solve.ilp.makespan import ilp_schedule
from partition.solve.model import Problem, chosen
from partition.solve.period import EXACT_SPLIT_TASKS, split_cores, throughput_entries, throughput_loads
from partition.solve.schedule import ScheduleTooLarge, optimal_schedule, schedule_length

_TIE_REL = 1e-12  # "not worse" for the tie rule
CHECK_REL = 1e-6  # solver objective vs the model on the rounded choice


@dataclass
class Eval:
    """A choice's objective and schedule (and core split, throughput) as the model computes them."""

    objective_s: float
    schedule: list[dict]
    exact: bool  # computed by evaluate.evaluate's exact method
    cores: dict[str, int] = field(default_factory=dict)


def evaluate_choice(
    problem: Problem, x: dict[str, int], var: dict[str, str], hint: dict | None = None
) -> Eval:
    """The objective and schedule of a choice: exact where affordable, else from `hint`.

    hint (from the solver): "cores" (task -> core, throughput) or "schedule"
    (entries, makespan); a list schedule is the fallback for makespan.
    """
    ch = chosen(problem, x, var)
    if problem.objective == "latency":
        return Eval(evaluate(problem, x, var), [], True)
    if problem.objective == "throughput":
        cpu = {t.name: t.cpu_s for t in problem.tasks if ch[t.name] is None}
        if problem.cpu_cores == 1 or len(cpu) <= EXACT_SPLIT_TASKS:
            cores = split_cores(problem.base_s, cpu, problem.cpu_cores)
            return Eval(evaluate(problem, x, var), throughput_entries(problem, ch, cores), True, cores)
        cores = {n: (hint or {}).get("cores", {}).get(n, 0) for n in cpu}
        _, fpga, link = throughput_loads(problem, ch)
        loads = [problem.base_s, 0.0]
        for n, c in cpu.items():
            loads[cores[n]] += c
        return Eval(max(*loads, fpga, link), throughput_entries(problem, ch, cores), False, cores)
    try:
        length, entries = optimal_schedule(problem, ch)
        return Eval(problem.base_s + length, entries, True)
    except ScheduleTooLarge:
        pass
    best = heuristic.list_schedule(problem, ch)
    sched = (hint or {}).get("schedule")
    if sched is not None:
        length = schedule_length(problem, x, var, sched)
        if length < best[0]:
            best = (length, sched)
    schedule_length(problem, x, var, best[1])
    return Eval(best[0], best[1], False)


def read_choice(problem: Problem, lp: Lp, values: dict) -> tuple[dict[str, int], dict[str, str]]:
    """(placement, variant) of every task in the solver's point `values`."""
    x: dict[str, int] = {}
    var: dict[str, str] = {}
    for t in problem.tasks:
        n = t.name
        if n in lp.z:
            picked = [v for v, zv in lp.z[n] if values.get(zv, 0.0) > 0.5]
            x[n] = int(bool(picked))
            if picked:
                var[n] = picked[0].name
        else:
            x[n] = int(bool(lp.x[n]))
            if x[n]:  # on the FPGA with the one variant left after folding
                var[n] = lp.opts[n][0].name
    return x, var


def solver_hint(problem: Problem, lp: Lp, values: dict, x: dict[str, int], var: dict[str, str]) -> dict:
    """The solver's own core split (throughput) or schedule (makespan) for `evaluate_choice`."""
    if problem.objective == "throughput":
        return {"cores": {n: int(values.get(w, 0.0) > 0.5) for n, w in lp.extra["w"].items()}}
    if problem.objective == "makespan" and not lp.extra["relaxed"]:
        return {"schedule": ilp_schedule(problem, lp, values, x, var)}
    return {}


def signature(fold: Fold, x: dict[str, int], var: dict[str, str], distinct: str) -> tuple:
    """What tells two choices apart for `top_k` (`distinct`: "choice" or "placement")."""
    if distinct == "placement":
        return tuple(x[n] for n in fold.free)
    return tuple(var.get(n) for n in fold.names)


def prefer_cpu(
    problem: Problem,
    fold: Fold,
    x: dict[str, int],
    var: dict[str, str],
    ev: Eval,
    avoid: set[tuple],
    distinct: str,
) -> tuple[dict[str, int], dict[str, str], Eval]:
    """The tie rule: move free FPGA tasks back to the CPU while that costs nothing.

    Moving a task to the CPU keeps every budget, exclusive pair and pin
    satisfied, so only the objective needs checking. Only where the objective
    is evaluated exactly (a heuristic schedule could look worse than the
    solver's own and hide a tie).
    """
    if not ev.exact:
        return x, var, ev
    limit = ev.objective_s + _TIE_REL * abs(ev.objective_s)
    x, var = dict(x), dict(var)
    changed = True
    while changed:
        changed = False
        for n in fold.free:
            if not x[n]:
                continue
            x2 = {**x, n: 0}
            var2 = {m: v for m, v in var.items() if m != n}
            if avoid and signature(fold, x2, var2, distinct) in avoid:
                continue
            try:
                value = evaluate(problem, x2, var2)
            except ScheduleTooLarge:
                return x, var, evaluate_choice(problem, x, var)
            if value <= limit:
                x, var = x2, var2
                changed = True
    return x, var, evaluate_choice(problem, x, var)
