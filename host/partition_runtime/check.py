"""--check: every accelerated call also runs through the original Python function on copies of
its arguments, and the two results are compared (integers exactly, floats within the spec's
tolerance); a mismatch is recorded and reported, and the CPU's result is used, in the caller's
own arrays. Separate from the call path, which only hands it the call's arguments and result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import marshal
from .errors import CallError
from .spec import KernelSpec
from .stats import KernelStats

MAX_MESSAGES = 3


class CallCheck:
    """The --check of one task's calls, counted on its `KernelStats`."""

    def __init__(self, spec: KernelSpec, stats: KernelStats, tolerance: float, say: Callable[[str], None]):
        self.spec = spec
        self.stats = stats
        self.tolerance = tolerance
        self.say = say
        self.written_args = [p.position for p in spec.params if p.origin == "arg" and p.direction != "in"]

    def __call__(self, fn: Callable | None, args: tuple, result: Any, ref_args: tuple) -> Any:
        """What the call returns: `result`, or the CPU's answer (`fn` on `ref_args`) on a mismatch."""
        st = self.stats
        st.checks += 1
        if fn is None:
            raise CallError(f"task {self.spec.task}: --check needs the Python function bound")
        want = fn(*ref_args)
        tol = self.tolerance
        problem = marshal.compare(result, want, tol)
        if problem is None:
            for pos in self.written_args:
                problem = marshal.compare(
                    args[pos], ref_args[pos], tol, f"argument {self.spec.py_params[pos]}"
                )
                if problem:
                    break
        if problem is None:
            return result
        st.mismatches += 1
        if len(st.mismatch_messages) < MAX_MESSAGES:
            st.mismatch_messages.append(problem)
        if st.mismatches <= MAX_MESSAGES:
            self.say(f"{self.spec.task}: CHECK MISMATCH (call {st.checks}): {problem}")
        # continue with the CPU's answer, in the caller's own arrays
        for pos in self.written_args:
            marshal.copy_into(args[pos], np.asarray(ref_args[pos]))
        return _swap_identity(want, ref_args, args)


def _swap_identity(value: Any, ref_args: tuple, args: tuple) -> Any:
    for r, a in zip(ref_args, args):
        if value is r:
            return a
    if isinstance(value, tuple):
        return tuple(_swap_identity(v, ref_args, args) for v in value)
    return value
