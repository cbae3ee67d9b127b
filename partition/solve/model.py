"""The optimisation problem the solver sees, independent of how it was measured.

`plan` turns profile, estimates and board constants into a `Problem`; the ILP
(`partition.solve.ilp`) and the brute-force reference (`partition.solve.brute`)
both consume only this, and `evaluate` (`partition.solve.evaluate`) is the one
definition of what a choice costs, so the two can be compared on random instances.

A choice is, for every task, the CPU or one FPGA implementation variant:
`assignment[name]` is 1 for the FPGA, 0 for the CPU, and `variant[name]`
names the variant of each FPGA task (when left out: the task's first one).

Tasks and variants
------------------
A task has an (inclusive) CPU time `cpu_s` and a list of FPGA `variants`
(HLS settings: pipeline on/off, unroll factor, array partitioning, burst
width), each with its total FPGA time `fpga_s` (compute plus per-call
overhead plus copy-out, all calls), its `resources` and, for streaming, its
initiation interval per frame `ii_s` (None: the same as `fpga_s`). A task
given with `fpga_s`/`resources` and no `variants` has that one variant, named
"default"; `fpga_s` None and no variants means the task cannot run on the
FPGA. A task pinned to the FPGA may use any of its variants.

Edges
-----
An edge's cost depends on where both ends run: c[(a, b)] for x_src = a,
x_dst = b (c00 is normally 0). The <main> node is always on the CPU and is not
a task; edges from/to it use src/dst = "<main>" and only c[(0, 0)] /
c[(0, 1)] (or c[(1, 0)]) matter. `exclusive` lists pairs that may not both be
on the FPGA (a task and a task it calls: when the caller is a kernel the
callee is inlined into it). Budgets bound the sum of the chosen variants'
resources.

Chains (latency and throughput)
-------------------------------
`chains` lists task pairs src -> dst whose kernels may run as one AXI-Stream
chain: src streams its result straight into dst (partition.frontend.chains says
when the app allows it). When both are on the FPGA, a chain saves
src_s[src variant] + dst_s[dst variant] - stream_s: each end's share of moving
the array through DDR (the producer's store phase and the consumer's load
phase, their buffers' cache maintenance and pointer registers) minus the
stream's own time, counted once because the two ends overlap. A chain is used
exactly when both ends are on the FPGA and that saving is positive; a task
is the src of at most one chain (it returns one array, all of it to dst), so
chains never compete and the saving of a choice is the sum over its chains.
The throughput model takes chains too (see `partition.solve.period`); the
makespan model runs one kernel at a time on the FPGA, which a chain's two
running ends contradict, so it takes none (`check_problem` rejects them).

Objectives
----------
Each is defined where it is computed: `latency` (one run of the app,
blocking calls; the default) in `partition.solve.evaluate`, `makespan` (one
run, CPU and FPGA overlap) in `partition.solve.schedule`, `throughput` (a loop
over frames, steady state) in `partition.solve.period`.

Pins, budgets and exclusive pairs are the same for every objective.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from partition.errors import PartitionError

OBJECTIVES = ("latency", "makespan", "throughput")
MAIN = "<main>"
DEFAULT_VARIANT = "default"

FEAS_ABS = 1e-9  # resource budgets are met within this slack


@dataclass
class Variant:
    """One FPGA implementation of a task (one set of HLS directives)."""

    name: str
    fpga_s: float
    resources: dict[str, float] = field(default_factory=dict)
    ii_s: float | None = None  # steady-state interval per frame; None: fpga_s

    @property
    def period_s(self) -> float:
        return self.fpga_s if self.ii_s is None else self.ii_s


@dataclass
class TaskCost:
    name: str
    cpu_s: float
    fpga_s: float | None = None  # single-variant shorthand (see `options`)
    resources: dict[str, float] = field(default_factory=dict)
    pin: str | None = None  # "cpu", "fpga" or None
    variants: list[Variant] = field(default_factory=list)

    def options(self) -> list[Variant]:
        """The FPGA variants of the task: `variants`, or the one given by fpga_s/resources."""
        if self.variants:
            return list(self.variants)
        if self.fpga_s is None:
            return []
        return [Variant(DEFAULT_VARIANT, self.fpga_s, dict(self.resources))]


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
class ChainCost:
    """Kernels src and dst may stream src's result over AXI-Stream (see Chains above)."""

    src: str
    dst: str
    src_s: dict[str, float] = field(default_factory=dict)  # src variant -> its end of the DDR round trip
    dst_s: dict[str, float] = field(default_factory=dict)  # dst variant -> its end
    stream_s: float = 0.0  # the stream itself (all calls)

    def saving(self, vs: str, vd: str) -> float:
        """Seconds the chain saves with src as variant `vs` and dst as `vd` (may be negative)."""
        return self.src_s.get(vs, 0.0) + self.dst_s.get(vd, 0.0) - self.stream_s


@dataclass
class Problem:
    tasks: list[TaskCost]
    edges: list[EdgeCost]
    budget: dict[str, float]  # resource -> usable amount (after cap and shell)
    base_s: float = 0.0  # time not attributable to any task (main's own code)
    exclusive: list[tuple[str, str]] = field(default_factory=list)
    objective: str = "latency"  # one of OBJECTIVES
    cpu_cores: int = 1  # cores for CPU tasks (makespan, throughput)
    precedence: list[tuple[str, str]] = field(default_factory=list)  # extra "a before b" (makespan)
    chains: list[ChainCost] = field(default_factory=list)  # AXI-Stream chains (latency, throughput)


@dataclass
class Solution:
    assignment: dict[str, int]  # task -> 1 (FPGA) / 0 (CPU)
    objective_s: float
    status: str  # "Optimal", "Time limit", "Feasible", "Infeasible", "Not Solved"
    solver: str
    gap: float | None = 0.0
    solve_time_s: float = 0.0
    stats: dict[str, int] = field(default_factory=dict)  # variables, constraints
    variant: dict[str, str] = field(default_factory=dict)  # FPGA task -> variant name
    # makespan: the jobs of one run; throughput: one period's load per resource
    # (entries: task, kind, resource, start_s, end_s; see `schedule_entries`)
    schedule: list[dict] = field(default_factory=list)


def make_solution(
    problem: Problem,
    x: dict[str, int],
    var: dict[str, str],
    *,
    objective_s: float,
    status: str,
    solver: str,
    gap: float | None,
    start: float,
    stats: dict[str, int],
    schedule: list[dict],
) -> Solution:
    """A solve's result for the choice (x, var): every task's placement and each FPGA task's
    variant, in task order; `start` is the solve's perf_counter start."""
    return Solution(
        assignment={t.name: int(x.get(t.name, 0)) for t in problem.tasks},
        objective_s=objective_s,
        status=status,
        solver=solver,
        gap=gap,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
        variant={t.name: var[t.name] for t in problem.tasks if x.get(t.name) and t.name in var},
        schedule=schedule,
    )


def no_solution(status: str, solver: str, start: float, stats: dict[str, int]) -> Solution:
    """A solve that ended without a choice (`status` says why); `start` is its perf_counter start."""
    return Solution(
        assignment={},
        objective_s=math.inf,
        status=status,
        solver=solver,
        gap=None,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
    )


# --------------------------------------------------------------------------- choices


def chosen(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> dict:
    """task name -> the chosen Variant (FPGA) or None (CPU); a missing variant means the first one.

    Raises PartitionError for a variant name the task does not have. A task on
    the FPGA without any variant maps to the string "missing" (infeasible).
    """
    out: dict[str, Variant | str | None] = {}
    variant = variant or {}
    for t in problem.tasks:
        if not assignment.get(t.name, 0):
            out[t.name] = None
            continue
        opts = t.options()
        if not opts:
            out[t.name] = "missing"
            continue
        want = variant.get(t.name)
        if want is None:
            out[t.name] = opts[0]
            continue
        match = next((v for v in opts if v.name == want), None)
        if match is None:
            raise PartitionError(
                f"task {t.name} has no variant {want!r}; its variants: {', '.join(v.name for v in opts)}"
            )
        out[t.name] = match
    return out


def feasible(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> bool:
    x = assignment
    ch = chosen(problem, assignment, variant)
    for t in problem.tasks:
        if ch[t.name] == "missing":
            return False
        if t.pin == "cpu" and x.get(t.name, 0):
            return False
        if t.pin == "fpga" and not x.get(t.name, 0):
            return False
    for a, b in problem.exclusive:
        if x.get(a, 0) and x.get(b, 0):
            return False
    for r, cap in problem.budget.items():
        used = 0.0
        for t in problem.tasks:
            v = ch[t.name]
            if isinstance(v, Variant):
                used += v.resources.get(r, 0.0)
        if used > cap + FEAS_ABS:
            return False
    return True


def side(ch: dict, name: str) -> int:
    """Where `name` runs under choice `ch` (from `chosen`): 1 on the FPGA, 0 on the CPU (`<main>` too)."""
    return 0 if name == MAIN else int(ch[name] is not None)


def streamable(problem: Problem, ch: dict) -> list[ChainCost]:
    """The chains a choice may use: both ends on the FPGA and a positive saving."""
    out = []
    for c in problem.chains:
        vs, vd = ch.get(c.src), ch.get(c.dst)
        if isinstance(vs, Variant) and isinstance(vd, Variant) and c.saving(vs.name, vd.name) > 0.0:
            out.append(c)
    return out
