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
* `recorder`: the timing wrapper and what it records per call;
* `signature`, `dataflow`: argument/return signatures; producer -> consumer
  data edges;
* `replay`: local value ranges and edge-case vectors, after the run;
* `bench`: the interpreter micro-benchmark that scales CPU times to a board.
"""

from partition.profile.launch import run_profile

__all__ = ["run_profile"]
