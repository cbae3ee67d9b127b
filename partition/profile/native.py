"""How much of a function's time runs in compiled code rather than in the interpreter.

Interpreter-bound Python and numpy's compiled loops do not scale alike from the profiling
host to a board's CPU (`partition.profile.bench`), so each function's time is split. numpy's
ufuncs and array operators are invisible to Python's profile hooks, so the split is made the
other way round: one sampled call is replayed with the interpreter counting the bytecode
instructions it executes, which cost what the interpreter benchmark's instructions cost on
average (`ns_per_instruction`); the rest of the call's profiled time was spent in compiled
code. Counting stops after `MAX_INSTRUCTIONS` (it is slow): a call whose counted instructions
already account for its time is all interpreter, any other is not split. Compiled code that
does little per instruction (numpy scalars in a Python loop: `np.int32(x[i]) * k`) is dispatch
overhead, which the board's core slows down like the interpreter: such time counts as the
interpreter's (`FINE_GRAIN_NS`).
"""

from __future__ import annotations

import copy
import sys
import warnings
from functools import lru_cache
from typing import Any

import numpy as np

MAX_INSTRUCTIONS = 1_000_000  # counting runs some 10x slower than the interpreter
# compiled-code time per bytecode instruction below which it counts as interpreter time: numpy
# scalar arithmetic and calls on a few elements cost a few hundred ns each in dispatch, a ufunc
# over a real array microseconds and more
FINE_GRAIN_NS = 1000.0


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


def native_fraction(fn: Any, args: list[Any], per_call_s: float) -> float | None:
    """The fraction of a call's time (`per_call_s`, as profiled) spent outside the interpreter,
    from the instructions `fn(*args)` executes on copies of the arguments; None when the call
    raises, or when it runs past `MAX_INSTRUCTIONS` without the count already covering its time."""
    if per_call_s <= 0:
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        count = count_instructions(fn, copy.deepcopy(args))
    ns = ns_per_instruction()
    if count is None:
        # past the cap: a call whose first MAX_INSTRUCTIONS already take its whole time is all
        # interpreter; otherwise the split is unknown
        return 0.0 if MAX_INSTRUCTIONS * ns * 1e-9 >= per_call_s else None
    interp_s = count * ns * 1e-9
    native_s = max(0.0, per_call_s - interp_s)
    if native_s * 1e9 < FINE_GRAIN_NS * max(count, 1):
        # compiled code entered for little work per instruction (numpy scalars, tiny arrays): its
        # time is dispatch overhead, branchy C that the board slows down like the interpreter
        return 0.0
    return round(min(1.0, native_s / per_call_s), 3)
