"""How much of a function's time runs in compiled code rather than in the interpreter.

Interpreter-bound Python and numpy's compiled loops do not scale alike from the profiling
host to a board's CPU (`partition.profile.bench`), so each function's time is split. numpy's
ufuncs and array operators are invisible to Python's profile hooks, so the split is made the
other way round: one sampled call is replayed with the interpreter counting the bytecode
instructions it executes, which cost what the interpreter benchmark's instructions cost on
average (`ns_per_instruction`); the rest of the call's (untraced, fastest of three) time was
spent in compiled code. A call longer than `MAX_CALL_S`, or one executing more than
`MAX_INSTRUCTIONS`, is not split (counting is slow).
"""

from __future__ import annotations

import copy
import sys
import time
import warnings
from functools import lru_cache
from typing import Any

import numpy as np

MAX_CALL_S = 2.0  # per-call time above which no call is replayed for the split
MAX_INSTRUCTIONS = 3_000_000


class _TooMany(Exception):
    pass


def count_instructions(fn: Any, args: list[Any], limit: int = MAX_INSTRUCTIONS) -> int | None:
    """Bytecode instructions `fn(*args)` executes (its callees' included), or None past `limit`
    or when the call raises."""
    n = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal n
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            n += 1
            if n > limit:
                raise _TooMany
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*args)
    except Exception:
        return None
    finally:
        sys.settrace(old)
    return n


@lru_cache(maxsize=1)
def ns_per_instruction() -> float:
    """What one bytecode instruction of the interpreter benchmark costs on this machine."""
    from partition.profile import bench

    per_iteration = (count_instructions(bench._loop, [1000]) or 1) / 1000
    return bench.interp_figure().ns / per_iteration


def native_fraction(fn: Any, args: list[Any]) -> float | None:
    """The fraction of `fn(*args)`'s time (on copies of the arguments) spent outside the
    interpreter; None when the call raises or is too long to count."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        best = None
        for _ in range(3):
            work = copy.deepcopy(args)
            t0 = time.perf_counter()
            try:
                fn(*work)
            except Exception:
                return None
            t = time.perf_counter() - t0
            best = t if best is None else min(best, t)
            if t > MAX_CALL_S:
                return None
        count = count_instructions(fn, copy.deepcopy(args))
    if count is None or not best:
        return None
    interp_s = count * ns_per_instruction() * 1e-9
    return round(min(1.0, max(0.0, 1.0 - interp_s / best)), 3)
