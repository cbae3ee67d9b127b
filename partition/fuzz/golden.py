"""The golden model: run a generated kernel as Python and profile it as the profiler would.

The case's module is written into the fuzzer's app folder and imported; every call runs on
private copies of its inputs (numpy warnings off, as the profiled app may have them). From
those calls this module assembles the `FunctionProfile`s the frontend reads — argument
signatures (`SigAcc`, the profiler's own accumulator), the calls as samples with the arrays
they modified, module-level constants (the recorder's own collection), and local value
ranges (the profiler's replay, over every call) — for the kernel and for each helper it
calls, whose calls are recorded while the kernel runs. So the frontend sees exactly what a
`partition plan` of an app making these calls would give it.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import linecache
import sys
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from partition.fuzz.bounded import call_bounded
from partition.fuzz.parts import Case
from partition.profile import Task, local_ranges, record_globals, same_value
from partition.profile.model import FunctionProfile, Sample, encode_value
from partition.profile.signature import SigAcc

HELPER_SAMPLES = 3  # samples kept per helper (the profiler's default)
HELPER_RANGE_CALLS = 200  # helper calls replayed for local ranges


@dataclass
class Golden:
    """What Python computed: profiles by task name, or why the case is not a valid program."""

    functions: dict[str, FunctionProfile] = field(default_factory=dict)
    error: str = ""


def write_module(case: Case, app_dir: Path) -> Path:
    """The case's source as `<app_dir>/<name>.py`."""
    path = app_dir / f"{case.name.replace('.', '_')}.py"
    path.write_text(case.source)
    linecache.checkcache(str(path))
    return path


def import_module(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"partition_fuzz_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Calls:
    """Calls of one function: inputs before, results, and inputs after."""

    def __init__(self) -> None:
        self.before: list[list[Any]] = []
        self.after: list[list[Any]] = []
        self.results: list[Any] = []
        self.n = 0
        self.sigs: list[SigAcc] | None = None
        self.ret = SigAcc()

    def add(self, before: list[Any], after: list[Any], result: Any, keep: bool) -> None:
        self.n += 1
        if self.sigs is None:
            self.sigs = [SigAcc() for _ in before]
        for acc, v in zip(self.sigs, before):
            acc.observe(v, True)
        self.ret.observe(result, True)
        if keep:
            self.before.append(before)
            self.after.append(after)
            self.results.append(result)


def with_defaults(fn: Any, args: Any, kwargs: dict[str, Any] | None = None) -> list[Any]:
    """A call's value for every parameter, defaults applied (as the profiler records calls)."""
    try:
        sig = inspect.signature(fn)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in sig.parameters.values()):
            return list(args)
        bound = sig.bind(*args, **(kwargs or {}))
    except (TypeError, ValueError):
        return list(args)  # the call itself will raise
    bound.apply_defaults()
    return list(bound.arguments.values())


def _recording(fn: Any, calls: _Calls) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        args = with_defaults(fn, args, kwargs)
        keep = len(calls.before) < HELPER_RANGE_CALLS
        before = copy.deepcopy(list(args)) if keep else list(args)
        result = fn(*args)
        calls.add(before, list(args), result, keep)
        return result

    return wrapper


def _profile(fn: Any, rel: str, calls: _Calls, nsamples: int) -> FunctionProfile:
    code = fn.__code__
    kind = "method" if "." in fn.__qualname__ and "<locals>" not in fn.__qualname__ else "function"
    task = Task(fn.__name__, fn.__qualname__, rel, code.co_firstlineno, kind)
    task.set_function(fn)
    record_globals(task, fn)  # the recorder's own choice of module constants
    mutates = sorted(
        i
        for i in range(len(calls.before[0]) if calls.before else 0)
        if any(not same_value(b[i], a[i]) for b, a in zip(calls.before, calls.after))
    )
    samples = []
    for b, a, r in list(zip(calls.before, calls.after, calls.results))[:nsamples]:
        samples.append(
            Sample(
                args=[encode_value(v) for v in b],
                result=encode_value(r),
                outputs={str(i): encode_value(a[i]) for i in mutates},
            )
        )
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ranges = local_ranges(task, [copy.deepcopy(b) for b in calls.before])
    return FunctionProfile(
        name=fn.__qualname__,
        qualname=fn.__qualname__,
        file=rel,
        line=code.co_firstlineno,
        calls=calls.n,
        params=list(task.params),
        arg_sigs=[a.to_sig() for a in calls.sigs or []],
        return_sig=calls.ret.to_sig(),
        mutates=mutates,
        samples=samples,
        local_ranges=ranges,
        globals=dict(sorted(task.glob_values.items())),
        kind=kind,
    )


def run_golden(case: Case, app_dir: Path) -> Golden:
    """Run every call of the case under Python and profile the kernel and its helpers."""
    path = write_module(case, app_dir)
    rel = path.name
    try:
        module = import_module(path)
    except Exception as e:  # a generator bug: the module does not even import
        return Golden(error=f"import: {type(e).__name__}: {e}")
    fn: Any = module
    for part in case.name.split("."):  # Class.method: the function the class holds
        fn = getattr(fn, part)
    helpers = {name: _Calls() for name in case.helpers}
    originals = {name: getattr(module, name) for name in case.helpers}
    kernel = _Calls()
    try:
        for name, calls in helpers.items():
            setattr(module, name, _recording(originals[name], calls))
        for args in case.calls:
            try:
                before, work, result = _call(fn, args)
            except Exception as e:
                return Golden(error=f"{type(e).__name__}: {e}")
            kernel.add(before, work, result, True)
    finally:
        for name, f in originals.items():
            setattr(module, name, f)
    if _too_wide(kernel.results):
        return Golden(error="a Python int result beyond 64 bits")
    functions = {case.name: _profile(fn, rel, kernel, len(case.calls))}
    for name, calls in helpers.items():
        if calls.n:
            functions[name] = _profile(originals[name], rel, calls, HELPER_SAMPLES)
    wide = [
        f"{f}.{v}"
        for f, fp in functions.items()
        for v, r in fp.local_ranges.items()
        if r.get("kind") == "int" and "min" in r and not (r["min"] >= -(1 << 63) and r["max"] < (1 << 64))
    ]
    if wide:
        return Golden(error=f"Python int beyond 64 bits in {', '.join(wide)}")
    functions[case.name].samples += _unseen_samples(fn, case)
    sys.modules.pop(module.__name__, None)
    return Golden(functions)


UNSEEN_LIMIT_S = 2.0  # seconds Python may take for one unseen call (partition.fuzz.bounded)


def _unseen_samples(fn: Any, case: Case) -> list[Sample]:
    """Samples of the calls the profile did not see (`Case.unseen`), as edge vectors: those
    Python completes within UNSEEN_LIMIT_S with results of at most 64 bits (a call Python
    raises on has no result; one with a loop bound of 2**62 never ends)."""
    out = []
    for args in case.unseen:
        sample = call_bounded(lambda args=args: _unseen_sample(fn, args), UNSEEN_LIMIT_S)
        if sample is not None:
            out.append(sample)
    return out


def _call(fn: Any, args: tuple[Any, ...]) -> tuple[list[Any], list[Any], Any]:
    """fn on private copies of `args` (defaults filled in), numpy warnings off: (the arguments
    before, the same after the call, the result); raises what fn raises."""
    args = with_defaults(fn, args)
    before = copy.deepcopy(list(args))
    work = copy.deepcopy(list(args))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = fn(*work)
    return before, work, result


def _unseen_sample(fn: Any, args: tuple[Any, ...]) -> Sample | None:
    try:
        before, work, result = _call(fn, args)
    except Exception:
        return None
    if _too_wide([result]) or _too_wide([a for a in work if isinstance(a, list)]):
        return None
    outputs = {str(i): encode_value(a) for i, (b, a) in enumerate(zip(before, work)) if not same_value(b, a)}
    return Sample(
        args=[encode_value(v) for v in before], result=encode_value(result), outputs=outputs, edge=True
    )


def _too_wide(values: list[Any]) -> bool:
    for v in values:
        items = v if isinstance(v, (tuple, list)) else [v]
        for x in items:
            if type(x) is int and not -(1 << 63) <= x < (1 << 64):
                return True
    return False
