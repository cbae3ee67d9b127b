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

import ast
import contextlib
import copy
import inspect
import io
import json
import math
import os
import signal
import sys
import tempfile
import textwrap
import threading
import warnings
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from partition.dtypes import is_supported_numpy
from partition.profile.model import FunctionProfile, Sample, decode_value, encode_value
from partition.profile.recorder import Task
from partition.profile.signature import json_float

LINE_CAP = 2_000_000  # traced line events per function
RANGE_TIME_CAP = 5.0  # seconds of traced replay per function
DRIVER_MIN_S = 1.0  # per-call time above which a function that mostly calls tasks is not traced
DRIVER_SELF_FRACTION = 0.1
EDGE_TIME_MIN = 2.0  # seconds an edge vector may take (at least; else 3x the function's observed time)


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so the app's `except Exception` cannot swallow it."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _alarm(_sig: int, _frame: Any) -> None:
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class _Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


@contextlib.contextmanager
def quiet_sandbox() -> Iterator[None]:
    """Discard output, give no input, run in a scratch directory, silence numpy warnings."""
    cwd = os.getcwd()
    saved = sys.stdin
    with tempfile.TemporaryDirectory(prefix="partition-replay-") as scratch:
        try:
            os.chdir(scratch)
            sys.stdin = io.StringIO("")
            with (
                contextlib.redirect_stdout(_Null()),
                contextlib.redirect_stderr(_Null()),
                warnings.catch_warnings(),
                np.errstate(all="ignore"),
            ):
                warnings.simplefilter("ignore")
                yield
        finally:
            sys.stdin = saved
            os.chdir(cwd)


# ------------------------------------------------------------ local ranges

_NP_SCALARS = frozenset(
    np.dtype(n).type
    for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64")
)  # fmt: skip
_PY_SCALARS = frozenset((int, float, bool))


class _RangeTracer:
    """Line tracer of one code object: the range of every int/float/bool local it ever holds.

    The local trace function runs once per traced line, so it is a closure with
    everything it needs in local variables, and its loop over the frame's
    locals skips arrays first; Python numbers are compared as they are, numpy
    scalars as their Python value. Per name: [min, max, types seen, last type].
    """

    def __init__(self, code: Any, cap: int) -> None:
        self.code = code
        self.cap = cap
        self.cut = False
        self.ranges: dict[str, list[Any]] = {}
        self.nan: set[str] = set()  # names that held a NaN (not in any range)
        self.local_trace = self._make_local_trace()

    def global_trace(self, frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is self.code and not self.cut:
            return self.local_trace
        return None

    def _make_local_trace(self) -> Any:
        ranges = self.ranges
        nan = self.nan
        ndarray = np.ndarray
        np_scalars = _NP_SCALARS
        counter = [self.cap]
        tracer = self

        def local_trace(frame: Any, event: str, arg: Any) -> Any:
            if event != "line" and event != "return":
                return local_trace
            counter[0] -= 1
            if counter[0] < 0:
                tracer.cut = True
                return None
            for k, v in frame.f_locals.items():
                tp = type(v)
                if tp is ndarray:
                    continue
                if tp is int or tp is bool:
                    x = v
                elif tp is float:
                    if v != v:
                        nan.add(k)
                        continue
                    x = v
                elif tp in np_scalars:
                    x = v.item()
                    if x != x:
                        nan.add(k)
                        continue
                else:
                    continue
                r = ranges.get(k)
                if r is None:
                    ranges[k] = [x, x, {tp}, tp]
                    continue
                if x < r[0]:
                    r[0] = x
                elif x > r[1]:
                    r[1] = x
                if tp is not r[3]:
                    r[2].add(tp)
                    r[3] = tp
            return local_trace

        self._left = counter
        return local_trace

    @property
    def events(self) -> int:
        """Line events traced so far."""
        return min(self.cap, self.cap - self._left[0])

    def result(self, error: str | None) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in sorted(set(self.ranges) | self.nan):
            lo, hi, types, _ = self.ranges.get(name, [None, None, set(), None])
            names = {("bool" if t in (bool, np.bool_) else t.__name__) for t in types}
            if any(t is float or issubclass(t, np.floating) for t in types) or name in self.nan:
                kind = "float"
            elif any(t is int or issubclass(t, np.integer) for t in types):
                kind = "int"
            else:
                kind = "bool"
            d: dict[str, Any] = {"kind": kind, "pytypes": sorted(names)}
            if lo is not None:
                if kind == "float":
                    d["min"], d["max"] = json_float(float(lo)), json_float(float(hi))
                else:
                    d["min"], d["max"] = int(lo), int(hi)
            if name in self.nan:
                d["nan"] = True
            if self.cut:
                d["partial"] = True
            if error:
                d["error"] = error
            out[name] = d
        return out


def _replayable(v: Any) -> bool:
    if v is None or isinstance(v, np.ndarray | np.generic | int | float | bool):
        return True
    if isinstance(v, list | tuple):
        return all(_replayable(x) for x in v)
    return False


class _Cut(BaseException):
    """Raised by the recorder at its cap; a BaseException so the app cannot swallow it."""


class _Recorder(_RangeTracer):
    """The same ranges, recorded by calls the instrumented copy of the function makes itself.

    Cheaper than a line tracer by an order of magnitude: one call per assignment
    instead of a Python callback per line that walks every local.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.cut = False
        self.ranges = {}
        self.nan = set()
        ranges, nan, np_scalars = self.ranges, self.nan, _NP_SCALARS
        counter = [cap]
        self._left = counter

        def rec(k: str, v: Any) -> None:
            tp = type(v)
            if tp is int or tp is bool:
                x = v
            elif tp is float:
                if v != v:
                    nan.add(k)
                    return
                x = v
            elif tp in np_scalars:
                x = v.item()
                if x != x:
                    nan.add(k)
                    return
            else:
                return
            counter[0] -= 1
            if counter[0] < 0:
                raise _Cut()
            r = ranges.get(k)
            if r is None:
                ranges[k] = [x, x, {tp}, tp]
                return
            if x < r[0]:
                r[0] = x
            elif x > r[1]:
                r[1] = x
            if tp is not r[3]:
                r[2].add(tp)
                r[3] = tp

        self.rec = rec


_REC = "__partition_record__"


def _names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _record_calls(names: list[str], like: ast.AST) -> list[ast.stmt]:
    out = []
    for n in names:
        call = ast.Call(
            func=ast.Name(id=_REC, ctx=ast.Load()),
            args=[ast.Constant(n), ast.Name(id=n, ctx=ast.Load())],
            keywords=[],
        )
        out.append(ast.copy_location(ast.Expr(value=call), like))
    return out


class _Instrument(ast.NodeTransformer):
    """After every binding of a local name, record its value."""

    def _block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in body:
            new = self.visit(s)
            out.append(new)
            if isinstance(s, ast.Assign):
                out += _record_calls([n for t in s.targets for n in _names(t)], s)
            elif isinstance(s, (ast.AugAssign, ast.AnnAssign)) and s.__dict__.get("value", True) is not None:
                out += _record_calls(_names(s.target), s)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, self._block(block))
        if isinstance(node, (ast.For, ast.AsyncFor)):
            node.body = _record_calls(_names(node.target), node) + node.body
        for h in getattr(node, "handlers", []) or []:
            self.generic_visit(h)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested definitions keep their own locals

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]
    visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]
    visit_Lambda = visit_FunctionDef  # type: ignore[assignment]


def instrumented(fn: Any, rec: Any) -> Any | None:
    """A copy of `fn` that calls rec(name, value) after each assignment; None when not possible
    (no source, a closure, a generator)."""
    code = fn.__code__
    if code.co_freevars or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or code.co_filename
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != fn.__name__:
        return None
    fdef.decorator_list = []
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs]
    fdef = _Instrument().generic_visit(fdef)
    fdef.body = _record_calls(params, fdef) + fdef.body
    factory = ast.FunctionDef(
        name="__partition_factory__",
        args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=_REC)], kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
        type_params=[],
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, first - 1)
    try:
        compiled = compile(module, filename, "exec")
    except (SyntaxError, ValueError):
        return None
    ns: dict[str, Any] = {}
    exec(compiled, fn.__globals__, ns)
    new = ns["__partition_factory__"](rec)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def local_ranges(task: Task, inputs: list[list[Any]], *, cap: int = LINE_CAP,
                 time_cap: float = RANGE_TIME_CAP) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Value ranges of the function's local variables over the given calls.

    An instrumented copy of the function records its own assignments; when no
    copy can be made (a closure, no source), a line tracer watches the original.
    """
    fn = task.fn
    assert fn is not None
    recorder = _Recorder(cap)
    copy_fn = instrumented(fn, recorder.rec)
    if copy_fn is not None:
        error = None
        try:
            with _deadline(time_cap):
                for values in inputs:
                    try:
                        task.call_with(copy_fn, copy.deepcopy(values))
                    except (Exception, SystemExit) as e:
                        error = f"{type(e).__name__}: {e}"
                        break
        except (_Timeout, _Cut):
            recorder.cut = True
        return recorder.result(error)
    tracer = _RangeTracer(fn.__code__, cap)
    error = None
    old = sys.gettrace()
    try:
        with _deadline(time_cap):
            sys.settrace(tracer.global_trace)
            try:
                for values in inputs:
                    if tracer.cut:
                        break
                    try:
                        task.call_with(fn, copy.deepcopy(values))
                    except (Exception, SystemExit) as e:
                        error = f"{type(e).__name__}: {e}"
                        break
            finally:
                sys.settrace(old)
    except _Timeout:
        tracer.cut = True
    return tracer.result(error)


# ------------------------------------------------------------ edge vectors


def _dedup(xs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if not any(x == y and math.copysign(1, x) == math.copysign(1, y) for y in out):
            out.append(x)
    return out


def _sig_range(sig: dict[str, Any] | None, fallback: Any) -> tuple[float, float]:
    """Observed (min, max) from a signature, else from the value itself."""
    lo = hi = None
    if sig is not None:
        lo, hi = sig.get("min"), sig.get("max")
    if not isinstance(lo, int | float) or not isinstance(hi, int | float):
        lo = hi = None
    if lo is None and fallback is not None:
        a = np.asarray(fallback, dtype=np.float64) if not isinstance(fallback, np.ndarray) else fallback
        if a.size and a.dtype.kind in "biuf":
            with np.errstate(all="ignore"):
                finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
            if finite.size:
                lo, hi = finite.min().item(), finite.max().item()
    if lo is None or not math.isfinite(lo) or not math.isfinite(hi):
        return -1.0, 1.0
    return lo, hi


def _float_extremes(lo: float, hi: float, tiny: float) -> list[float]:
    return _dedup([float(lo), float(hi), 0.0, -0.0, tiny, -tiny])


def _float_random(rng: np.random.Generator, lo: float, hi: float, n: int, fmax: float) -> np.ndarray:
    width = hi - lo
    if width <= 0:
        width = max(abs(lo), 1.0)
    mid = (lo + hi) / 2
    a, b = max(mid - width, -fmax), min(mid + width, fmax)
    return rng.uniform(a, b, n)


def _int_extremes(lo: int, hi: int) -> list[int]:
    cand = [lo, hi, -1, 0, 1, lo + 1, hi - 1]
    return _dedup([c for c in cand if lo <= c <= hi])


def _synth_array(v: np.ndarray, sig: dict[str, Any], mode: str, rng: np.random.Generator) -> np.ndarray:
    dt = v.dtype
    n = v.size
    if dt.kind == "b":
        if mode == "extremes":
            flat = np.resize(np.array([False, True]), n)
        else:
            flat = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        if mode == "extremes":
            flat = np.resize(np.array(_int_extremes(int(info.min), int(info.max)), dtype=dt), n)
        else:
            flat = rng.integers(int(info.min), int(info.max), size=n, dtype=dt, endpoint=True)
    else:
        finfo = np.finfo(dt)
        lo, hi = _sig_range(sig, v)
        if mode == "extremes":
            flat = np.resize(np.array(_float_extremes(lo, hi, float(finfo.tiny)), dtype=dt), n)
        else:
            flat = _float_random(rng, lo, hi, n, float(finfo.max)).astype(dt)
    return flat.astype(dt, copy=False).reshape(v.shape)


def _leaves(v: Any) -> list[Any]:
    if isinstance(v, list):
        out: list[Any] = []
        for x in v:
            out.extend(_leaves(x))
        return out
    return [v]


def _refill(v: Any, it: Iterator[Any]) -> Any:
    if isinstance(v, list):
        return [_refill(x, it) for x in v]
    return next(it)


def _leaf_sig(sig: dict[str, Any] | None) -> dict[str, Any] | None:
    while sig is not None and sig.get("type") == "list":
        sig = sig.get("elem")
    return sig


def _synth_list(v: list, sig: dict[str, Any], mode: str, rng: np.random.Generator) -> list:
    leaves = _leaves(v)
    n = len(leaves)
    lo, hi = _sig_range(_leaf_sig(sig), leaves)
    if type(leaves[0]) is int:
        lo, hi = int(lo), int(hi)
        if mode == "extremes":
            cyc = _int_extremes(lo, hi)
            vals = [cyc[i % len(cyc)] for i in range(n)]
        else:
            vals = [int(x) for x in rng.integers(lo, hi, size=n, endpoint=True)]
    elif mode == "extremes":
        cyc = _float_extremes(lo, hi, float(np.finfo(np.float64).tiny))
        vals = [cyc[i % len(cyc)] for i in range(n)]
    else:
        vals = [float(x) for x in _float_random(rng, lo, hi, n, float(np.finfo(np.float64).max))]
    return _refill(v, iter(vals))


def _synth_scalar(v: Any, sig: dict[str, Any], mode: str) -> Any:
    if isinstance(v, bool | np.bool_):
        return v
    lo, hi = _sig_range(sig, v)
    x = lo if mode == "extremes" else hi
    if isinstance(v, np.generic):
        return v.dtype.type(x)
    return type(v)(x)


def _edge_kind(v: Any) -> str | None:
    """How an input can be synthesised, or None when it cannot."""
    if isinstance(v, np.ndarray):
        return "array" if is_supported_numpy(v.dtype) and v.size > 0 else None
    if isinstance(v, np.generic):
        return "scalar" if is_supported_numpy(v.dtype) else None
    if type(v) in (int, float, bool):
        return "scalar"
    if type(v) is list and v:
        leaves = _leaves(v)
        kinds = {type(x) for x in leaves}
        if len(kinds) == 1 and kinds <= {int, float}:
            return "list"
    return None


def edge_vectors(task: Task, fp: FunctionProfile, first: list[Any], time_limit: float) -> list[Sample]:
    """Up to two synthetic samples (extremes, random) the function accepts."""
    kinds = [_edge_kind(v) for v in first]
    if not kinds or any(k is None for k in kinds):
        return []
    fn = task.fn
    assert fn is not None
    rng = np.random.default_rng(zlib.crc32(task.name.encode()))
    seen = {json.dumps(s.args, sort_keys=True) for s in fp.samples}
    out = []
    for mode in ("extremes", "random"):
        args: list[Any] = []
        for v, kind, sig in zip(first, kinds, fp.arg_sigs):
            if kind == "array":
                args.append(_synth_array(v, sig, mode, rng))
            elif kind == "list":
                args.append(_synth_list(v, sig, mode, rng))
            else:
                args.append(_synth_scalar(v, sig, mode))
        try:
            encoded = [encode_value(a) for a in args]
        except Exception:
            continue
        key = json.dumps(encoded, sort_keys=True)
        if key in seen:
            continue  # nothing new (e.g. scalar inputs that never varied)
        seen.add(key)
        inputs = copy.deepcopy(args)
        try:
            with _deadline(time_limit):
                res = task.call_with(fn, inputs)
        except (Exception, SystemExit, _Timeout):
            continue
        try:
            out.append(
                Sample(
                    args=encoded,
                    result=encode_value(res),
                    outputs={str(i): encode_value(inputs[i]) for i in fp.mutates if i < len(inputs)},
                    edge=True,
                )
            )
        except Exception:
            continue
    return out


# ------------------------------------------------------------ both


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
            if not _driver(fp, per_call):
                fp.local_ranges = local_ranges(task, inputs)
            fp.samples.extend(edge_vectors(task, fp, inputs[0], max(EDGE_TIME_MIN, 3 * per_call)))


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
    if t in ("list", "tuple"):
        return any(_opaque(x) for x in enc["items"])
    return False
