"""The optimisation problem the solver sees, independent of how it was measured.

`plan` turns profile, estimates and board constants into a `Problem`; the ILP
(`partition.solve.ilp`) and the brute-force reference (`partition.solve.brute`)
both consume only this, so they can be compared on random instances.

Time model of the `latency` objective (one run of the app, blocking calls):

    T = base_s
        + sum_i  [ cpu_s[i] * (1 - x_i) + fpga_s[i] * x_i ]
        + sum_e  cost_e(x_src, x_dst)

x_i = 1 puts task i on the FPGA. `cpu_s` is the task's inclusive CPU time on
the board (all its calls); `fpga_s` its total FPGA time (compute plus per-call
overhead) or None when it cannot run there. An edge's cost depends on where
both ends run: c[(a, b)] for x_src = a, x_dst = b (c00 is normally 0). The
<main> node is always on the CPU and is not a task; edges from/to it use
src/dst = "<main>" and only c[(0, 0)] / c[(0, 1)] (or c[(1, 0)]) matter.

`exclusive` lists pairs that may not both be on the FPGA (a task and a task it
calls: when the caller is a kernel the callee is inlined into it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

RESOURCES = ("lut", "ff", "dsp", "bram18")


@dataclass
class TaskCost:
    name: str
    cpu_s: float
    fpga_s: float | None
    resources: dict[str, float] = field(default_factory=dict)
    pin: str | None = None  # "cpu", "fpga" or None


@dataclass
class EdgeCost:
    src: str
    dst: str
    c00: float = 0.0
    c01: float = 0.0
    c10: float = 0.0
    c11: float = 0.0

    def cost(self, xs: int, xd: int) -> float:
        return (self.c00, self.c01, self.c10, self.c11)[2 * xs + xd]


@dataclass
class Problem:
    tasks: list[TaskCost]
    edges: list[EdgeCost]
    budget: dict[str, float]  # resource -> usable amount (after cap and shell)
    base_s: float = 0.0  # time not attributable to any task (main's own code)
    exclusive: list[tuple[str, str]] = field(default_factory=list)
    objective: str = "latency"


@dataclass
class Solution:
    assignment: dict[str, int]  # task -> 1 (FPGA) / 0 (CPU)
    objective_s: float
    status: str  # "Optimal", "Infeasible", "Not Solved", ...
    solver: str
    gap: float | None = 0.0
    solve_time_s: float = 0.0
    stats: dict[str, int] = field(default_factory=dict)  # variables, constraints


def evaluate(problem: Problem, assignment: dict[str, int]) -> float:
    """Objective of an assignment under the model (the reference both solvers share)."""
    x = dict(assignment)
    total = problem.base_s
    for t in problem.tasks:
        if x.get(t.name, 0):
            if t.fpga_s is None:
                return float("inf")
            total += t.fpga_s
        else:
            total += t.cpu_s
    for e in problem.edges:
        total += e.cost(x.get(e.src, 0), x.get(e.dst, 0))
    return total


def feasible(problem: Problem, assignment: dict[str, int]) -> bool:
    x = assignment
    for t in problem.tasks:
        if x.get(t.name, 0) and t.fpga_s is None:
            return False
        if t.pin == "cpu" and x.get(t.name, 0):
            return False
        if t.pin == "fpga" and not x.get(t.name, 0):
            return False
    for a, b in problem.exclusive:
        if x.get(a, 0) and x.get(b, 0):
            return False
    for r, cap in problem.budget.items():
        used = sum(t.resources.get(r, 0.0) for t in problem.tasks if x.get(t.name, 0))
        if used > cap + 1e-9:
            return False
    return True
