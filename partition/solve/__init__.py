"""Choosing CPU or FPGA for every task: the problem, what a choice costs, and the solvers.

* `model`: the problem the solvers see (tasks, variants, edges, chains,
  budgets) and the feasibility of a choice;
* `evaluate`: what a choice costs under each objective (`latency` there),
  with `schedule` (makespan) and `period` (throughput) for the other two;
* `check`: rejecting a malformed problem;
* `ilp`: the MILP (PuLP with CBC or HiGHS) and the k best choices;
* `cpsat` (with `cpsat_redundant`): the makespan objective with OR-tools' CP-SAT;
* `heuristic`: the greedy start and list scheduling; `brute`: exhaustive
  enumeration, the reference the solvers are tested against;
* `explain`: why a problem is infeasible, in words;
* `costs`: the problem built from a profile, estimates and a board;
  `random_problems`: random instances for the tests and the benchmark.
"""

from partition.solve.brute import brute_force
from partition.solve.check import check_problem
from partition.solve.evaluate import evaluate, streamed
from partition.solve.explain import explain_infeasible, infeasibility_reasons, no_kernel_fits
from partition.solve.ilp import MAX_PAIRS, SOLVERS, available_solvers, default_solver, solve, top_k
from partition.solve.model import (
    OBJECTIVES,
    ChainCost,
    EdgeCost,
    Problem,
    Solution,
    TaskCost,
    Variant,
    chosen,
    feasible,
    streamable,
)
from partition.solve.period import chain_stages, split_cores, throughput_entries
from partition.solve.schedule import ScheduleTooLarge, optimal_schedule, schedule_length

__all__ = [
    "MAX_PAIRS",
    "OBJECTIVES",
    "SOLVERS",
    "ChainCost",
    "EdgeCost",
    "Problem",
    "ScheduleTooLarge",
    "Solution",
    "TaskCost",
    "Variant",
    "available_solvers",
    "brute_force",
    "chain_stages",
    "check_problem",
    "chosen",
    "default_solver",
    "evaluate",
    "explain_infeasible",
    "feasible",
    "infeasibility_reasons",
    "no_kernel_fits",
    "optimal_schedule",
    "schedule_length",
    "solve",
    "split_cores",
    "streamable",
    "streamed",
    "throughput_entries",
    "top_k",
]
