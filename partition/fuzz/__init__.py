"""Differential fuzzing of the translation: random kernels run as Python, as C simulation and
as RTL simulation must agree (`python -m partition.fuzz`, `make fuzz`).

How it is split:

* `gen`: `generate(seed)`, a random kernel and its calls as a `Case`, built by the parts
  `typed` (typed expressions), `parts` (arrays, parameters, variables, loops, `Case`),
  `builder` (the generator's state), `exprs`, `stmts`, `wholearray` (whole-array numpy)
  and `inputs` (the calls' arguments);
* `features`: `describe(case)`, the constructs a case uses;
* `draw`: where the random choices come from (a seed or Hypothesis);
* `golden`, `csim`, `rtlsim`: running a case as Python, C simulation and RTL simulation;
* `run`: batches of cases and their summary; `__main__`: the command line.
"""

from partition.fuzz.features import describe
from partition.fuzz.gen import generate
from partition.fuzz.parts import Case

__all__ = ["Case", "describe", "generate"]
