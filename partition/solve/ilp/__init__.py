"""The ILP: CPU or one FPGA variant per task, for the latency, makespan or throughput objective.

PuLP with CBC (bundled) or HiGHS; reference/partitioners.md §4. One module a job:

* `fold`: what is decided before solving, folded into constants;
* `builder`: the model every objective shares (choice variables, budgets,
  exclusive pairs, linearised edge costs, AXI-Stream chain variables);
* `latency`, `throughput`, `makespan`: each objective's rows;
* `warm`: the heuristic's choice as the solvers' start;
* `solvers`: which solvers exist here, running one, its status and bound;
* `choice`: the solver's point read back, checked against the model, the tie rule;
* `makespan_solve`: the makespan model with lazily added ordering pairs, or relaxed;
* `topk`: `solve` and `top_k` (no-good cuts), the entry points.
"""

from partition.solve.ilp.makespan import MAX_PAIRS
from partition.solve.ilp.solvers import CPSAT_MAX_TASKS, SOLVERS, available_solvers, default_solver
from partition.solve.ilp.topk import solve, top_k

__all__ = [
    "CPSAT_MAX_TASKS",
    "MAX_PAIRS",
    "SOLVERS",
    "available_solvers",
    "default_solver",
    "solve",
    "top_k",
]
