"""The `plan` stage: profile + board -> kernels, variant estimates, the ILP's choice, a `Plan`.

`make_plan` is a plain function over artefacts: it translates every profiled
function it can, estimates every implementation variant of each kernel on
the board (partition.estimate.variants; measured figures replace estimated
ones with --calibrate), builds the problem for the chosen objective, solves
it (the k best distinct partitions with --top-k), and explains every
placement. `sweep` re-solves the same problem over utilisation caps and
boards for a Pareto table; `explain_task` says why one function went where it
went. Writing the build tree is `partition.codegen.tree`'s job.

plan.json per FPGA-capable task: `fpga` holds the base variant's figures,
`fpga.variants` every variant's (name, directives, times, estimate), and
`variant` the one the plan chose (FPGA tasks); `rtl` says which variant the
built-in RTL built (the chosen one; base, with a `note`, where the backend lacks its m_axi width)
and its `estimate_cycles`, what simulation is compared with.

Modules: `artefacts` (Options, Prepared, Plan), `preparation` (translation, variant estimates,
chains, the problem), `make` (solving and assembling the plan), `data` (plan.json),
`reasons` (why each task went where it went), `objective` (the model's objective of a
choice), `sweeps` (utilisation caps and boards), `explain` (`partition explain`).
"""

from partition.plan.artefacts import (
    CHAIN_OBJECTIVES,
    FORMAT,
    Options,
    Plan,
    Prepared,
    chosen_directives,
    plan_assignment,
)
from partition.plan.data import streamed_kernels
from partition.plan.explain import explain_task
from partition.plan.make import build_rtl, make_plan, solve_prepared
from partition.plan.objective import all_cpu_objective, objective_of
from partition.plan.preparation import cores_for, prepare, translate_all
from partition.plan.sweeps import parse_sweep, plan_boards, sweep

__all__ = [
    "CHAIN_OBJECTIVES",
    "FORMAT",
    "Options",
    "Plan",
    "Prepared",
    "all_cpu_objective",
    "build_rtl",
    "chosen_directives",
    "cores_for",
    "explain_task",
    "make_plan",
    "objective_of",
    "parse_sweep",
    "plan_assignment",
    "plan_boards",
    "prepare",
    "solve_prepared",
    "streamed_kernels",
    "sweep",
    "translate_all",
]
