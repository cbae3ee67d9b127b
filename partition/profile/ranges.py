"""Local value ranges: each replayed function's int/float/bool locals and the range of values
each held (the frontend needs these to give Python ints, which are width-less, a hardware
width).

The function runs again on copies of its sampled inputs, as an instrumented copy that
records its own assignments (`instrumented`), or, when no copy can be made (a closure, no
source), under a line tracer that watches only that function's own frames. Tracing stops
after `LINE_CAP` line events or `RANGE_TIME_CAP` seconds (the ranges are then marked
partial).
"""

from __future__ import annotations

import ast
import copy
import inspect
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np

from partition.profile.sandbox import Timeout, deadline
from partition.profile.signature import json_float
from partition.profile.tasks import Task

LINE_CAP = 2_000_000  # traced line events per function
RANGE_TIME_CAP = 5.0  # seconds of traced replay per function

_NP_SCALARS = frozenset(
    np.dtype(n).type
    for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64")
)  # fmt: skip


def _range_keeper(
    ranges: dict[str, list[Any]], nan: set[str], counter: list[int] | None
) -> Callable[[str, Any], None]:
    """`keep(name, value)`: widen `ranges[name]` by an int/float/bool value.

    Python numbers are compared as they are, numpy scalars as their Python value;
    a NaN goes to `nan` (it is in no range), any other value is ignored. Per name:
    [min, max, types seen, last type]. With `counter`, every value kept counts
    down from the cap, and the one past it raises `_Cut` instead of being kept.
    """
    np_scalars = _NP_SCALARS

    def keep(k: str, v: Any) -> None:
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
        if counter is not None:
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

    return keep


class _RangeTracer:
    """Line tracer of one code object: the range of every int/float/bool local it ever holds.

    The local trace function runs once per traced line, so it is a closure with
    everything it needs in local variables, and its loop over the frame's
    locals skips arrays first; the other values go to `_range_keeper`'s `keep`.
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
        keep = _range_keeper(self.ranges, self.nan, None)
        ndarray = np.ndarray
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
                if type(v) is not ndarray:
                    keep(k, v)
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
        counter = [cap]
        self._left = counter
        self.rec = _range_keeper(self.ranges, self.nan, counter)


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


def while_key(offset: int) -> str:
    """The name under which local ranges keep the iterations of the `while` loop `offset`
    lines below its function's `def` (not a Python name: it cannot clash with a local)."""
    return f"@while+{offset}"


class _Instrument(ast.NodeTransformer):
    """After every binding of a local name, record its value; in every `while` loop, record the
    number of iterations so far (the frontend bounds loops it cannot prove from them)."""

    def __init__(self, def_line: int) -> None:
        self.def_line = def_line

    def _block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in body:
            if isinstance(s, ast.While):
                counter = f"__partition_w{s.lineno}"
                out.append(
                    ast.copy_location(ast.Assign([ast.Name(counter, ast.Store())], ast.Constant(0)), s)
                )
                step = ast.AugAssign(ast.Name(counter, ast.Store()), ast.Add(), ast.Constant(1))
                call = ast.Call(
                    func=ast.Name(id=_REC, ctx=ast.Load()),
                    args=[ast.Constant(while_key(s.lineno - self.def_line)), ast.Name(counter, ast.Load())],
                    keywords=[],
                )
                s.body = [ast.copy_location(step, s), ast.copy_location(ast.Expr(call), s), *s.body]
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
    fdef = _Instrument(fdef.lineno).generic_visit(fdef)
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
            with deadline(time_cap):
                for values in inputs:
                    try:
                        task.call_with(copy_fn, copy.deepcopy(values))
                    except (Exception, SystemExit) as e:
                        error = f"{type(e).__name__}: {e}"
                        break
        except (Timeout, _Cut):
            recorder.cut = True
        return recorder.result(error)
    tracer = _RangeTracer(fn.__code__, cap)
    error = None
    old = sys.gettrace()
    try:
        with deadline(time_cap):
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
    except Timeout:
        tracer.cut = True
    return tracer.result(error)
