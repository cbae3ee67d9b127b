"""After the run: replay sampled calls to learn local value ranges and make edge-case vectors.

Both run in the profiled process once the app has finished, outside the timed
region, on copies of the recorded inputs and with recording off.

* Local ranges: each function with numeric sample inputs runs again under a
  line tracer that watches only that function's own frames and keeps, per
  local variable, the range of int/float/bool values it held. The frontend
  needs these to give Python ints (width-less) a hardware width.
* Edge vectors: functions whose inputs are all numeric arrays, scalars or
  numeric lists get up to two synthetic samples built from the first one's
  shapes and dtypes: "extremes" (dtype limits, signed zeros, tiny values) and
  "random" (seeded, full dtype range / twice the observed float range). A
  vector is kept only if the function accepts it (returns without exception in
  time); testbenches then exercise corner cases the app's data never hit.

Costs are bounded: tracing a function stops after `LINE_CAP` line events or
`RANGE_TIME_CAP` seconds (its ranges are then marked partial), a driver that
spends its time in the tasks it calls is not traced, and an edge vector may
take at most max(`EDGE_TIME_MIN`, 3x the function's observed time per call).

The replayed functions may print or write files: their output goes nowhere,
and they run in a scratch working directory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from partition.profile.edgecases import edge_vectors
from partition.profile.model import FunctionProfile, decode_value
from partition.profile.native import native_fraction
from partition.profile.ranges import local_ranges
from partition.profile.records import instance_fields, record_kind, record_values
from partition.profile.sandbox import quiet_sandbox
from partition.profile.tasks import Task

DRIVER_MIN_S = 1.0  # per-call time above which a function that mostly calls tasks is not traced
DRIVER_SELF_FRACTION = 0.1
EDGE_TIME_MIN = 2.0  # seconds an edge vector may take (at least; else 3x the function's observed time)


def _replayable(v: Any) -> bool:
    if v is None or isinstance(v, np.ndarray | np.generic | int | float | bool):
        return True
    if isinstance(v, list | tuple):
        return all(_replayable(x) for x in v)
    desc = record_kind(type(v))  # a decoded namedtuple or dataclass (a stand-in of the app's class)
    if desc is not None:
        return all(_replayable(x) for x in record_values(v, *desc))
    attrs = instance_fields(v)  # a method's self, decoded
    if attrs is not None:
        return all(_replayable(getattr(v, a)) for a in attrs)
    return False


def replay(tasks: dict[str, Task], functions: dict[str, FunctionProfile]) -> None:
    """Fill `local_ranges` and append edge-vector samples, in place."""
    with quiet_sandbox():
        for name in sorted(functions):
            fp = functions[name]
            task = tasks.get(name)
            observed = [s for s in fp.samples if not s.edge]
            if task is None or task.fn is None or task.signature is None or not observed or not fp.params:
                continue  # (a function without parameters is a driver: nothing to vary, much to re-run)
            try:
                inputs = [[decode_value(a) for a in s.args] for s in observed]
            except Exception:
                continue
            if any(len(vals) != len(fp.params) for vals in inputs):
                continue
            if not all(_replayable(v) and not _opaque(s) for vals, smp in zip(inputs, observed)
                       for v, s in zip(vals, smp.args)):  # fmt: skip
                continue
            per_call = fp.total_s / max(fp.calls, 1)
            if fp.kind == "method":  # self decoded as a stand-in: an object of the app's class again
                inputs = [_real_self(task, vals) for vals in inputs]
                if any(vals is None for vals in inputs):
                    continue
            fp.native_fraction = native_fraction(task.fn, inputs[0], per_call)
            if not _driver(fp, per_call):
                fp.local_ranges = local_ranges(task, inputs)
            if fp.kind != "method":  # (edge vectors vary numbers and arrays, not objects)
                fp.samples.extend(edge_vectors(task, fp, inputs[0], max(EDGE_TIME_MIN, 3 * per_call)))


def _real_self(task: Task, vals: list[Any]) -> list[Any] | None:
    """A method's decoded arguments with self an object of the method's class (made without
    calling __init__, its attributes those recorded), or None when the class is not found."""
    fn = task.fn
    parts = getattr(fn, "__qualname__", "").split(".")
    cls: Any = getattr(fn, "__globals__", {}).get(parts[0]) if len(parts) == 2 else None
    if not isinstance(cls, type) or not vals or instance_fields(vals[0]) is None:
        return None
    try:
        obj = cls.__new__(cls)
        obj.__dict__.update(vars(vals[0]))
    except Exception:
        return None
    return [obj, *vals[1:]]


def _driver(fp: FunctionProfile, per_call: float) -> bool:
    """A long call that spends its time in the tasks it calls (a `main`).

    Tracing it would re-run all of them for the few lines of its own; its
    locals are orchestration, not datapath.
    """
    return per_call > DRIVER_MIN_S and fp.self_s < DRIVER_SELF_FRACTION * fp.total_s


def _opaque(enc: dict[str, Any]) -> bool:
    t = enc.get("t")
    if t == "opaque":
        return True
    if t in ("list", "tuple", "namedtuple", "dataclass", "instance"):
        return any(_opaque(x) for x in enc["items"])
    return False
