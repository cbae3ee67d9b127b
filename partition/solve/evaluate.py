"""What a choice costs: `evaluate`, the objective every solver shares, and the chains a choice uses.

Separate from `partition.solve.model` (the problem and its choices) because it
draws on the makespan model (`partition.solve.schedule`) and the throughput
model (`partition.solve.period`), which both build on `model`.

Objective `latency` (one run of the app, blocking calls; the default)
---------------------------------------------------------------------
    T = base_s + sum_i [cpu_s(i) if on the CPU else fpga_s(i, v)] + sum_e cost_e(x_src, x_dst)

Everything runs one after the other; `cpu_cores` does not matter.

"""

from __future__ import annotations

import math

from partition.errors import PartitionError
from partition.solve.model import OBJECTIVES, ChainCost, Problem, chosen, side, streamable
from partition.solve.period import chain_stages, period
from partition.solve.schedule import optimal_schedule


def evaluate(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> float:
    """The objective of a choice under `problem.objective` (the reference every solver shares).

    +inf when a task on the FPGA has no FPGA implementation. Budgets, pins and
    exclusive pairs are `feasible`'s business, not this function's.
    """
    ch = chosen(problem, assignment, variant)
    if any(v == "missing" for v in ch.values()):
        return math.inf
    if problem.objective == "latency":
        return _latency(problem, ch)
    if problem.objective == "makespan":
        return problem.base_s + optimal_schedule(problem, ch)[0]
    if problem.objective == "throughput":
        return period(problem, ch)
    raise PartitionError(f"objective {problem.objective!r}: choose one of {', '.join(OBJECTIVES)}")


def _latency(problem: Problem, ch: dict) -> float:
    total = problem.base_s
    for t in problem.tasks:
        v = ch[t.name]
        total += t.cpu_s if v is None else v.fpga_s
    for e in problem.edges:
        total += e.cost(side(ch, e.src), side(ch, e.dst))
    for c in streamed(problem, ch):
        total -= c.saving(ch[c.src].name, ch[c.dst].name)
    return total


def streamed(problem: Problem, ch: dict) -> list[ChainCost]:
    """The chains a choice uses: for latency every streamable one; for throughput those of
    the best stages (`chain_stages`)."""
    if problem.objective == "throughput":
        return chain_stages(problem, ch)[1]
    return streamable(problem, ch)
