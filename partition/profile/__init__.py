"""Profile stage: run the app under a lightweight instrumenting profiler (DESIGN.md §2).

`run_profile(app, argv)` returns a `Profile` (see `partition.profile.model`):
per function calls, inclusive/exclusive time, argument and return signatures,
sample vectors, local value ranges, and the data edges between functions.

How it is split:

* `launch`: `run_profile` itself: checks the app, runs the child processes,
  reads their results;
* `runner`: the child process: runs the app as `__main__`, instrumented or
  plain;
* `instrument`: the AST rewrite that wraps the app's functions, and the
  import hook for its local modules;
* `recorder`: the timing wrapper and what it records per call; `tasks`: its
  records per function (`Task`) and per call site; `values`: what it asks of
  a sampled call's values; `calibration`: the wrapper's own cost, measured
  at start-up;
* `signature`, `dataflow`: argument/return signatures; producer -> consumer
  data edges;
* `replay`: after the run, `ranges` (local value ranges) and `edgecases`
  (edge-case vectors), in the `sandbox`;
* `bench`: the interpreter micro-benchmark that scales CPU times to a board.

The fuzzer's golden model records a function as the profiler would: `Task`,
`record_globals`, `same_value`, `local_ranges`.
"""

from partition.profile.edgecases import edge_vectors
from partition.profile.launch import run_profile
from partition.profile.ranges import local_ranges
from partition.profile.recorder import record_globals
from partition.profile.tasks import Task
from partition.profile.values import same_value

__all__ = ["Task", "edge_vectors", "local_ranges", "record_globals", "run_profile", "same_value"]
