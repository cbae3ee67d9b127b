"""Reference interpreter for the kernel IR.

It executes a `Kernel` on numpy inputs with exactly the semantics documented in
`partition.ir`. It is slow and meant for checks: the frontend's tests compare
it with the original Python function, and the fuzzer uses it to triage which
side of a mismatch is wrong.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import DType, wrap


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _int(v: Any) -> int:
    return int(v)


def floordiv_int(a: int, b: int, dt: DType) -> int:
    if b == 0:
        return 0
    return wrap(a // b, dt)


def mod_int(a: int, b: int, dt: DType) -> int:
    if b == 0:
        return 0
    return wrap(a % b, dt)


def shl_int(a: int, s: int, dt: DType) -> int:
    if s < 0 or s >= dt.bits:
        return 0
    return wrap(a << s, dt)


def shr_int(a: int, s: int, dt: DType) -> int:
    if s < 0 or s >= dt.bits:
        return -1 if a < 0 else 0
    return wrap(a >> s, dt)


def float_floordiv(a: float, b: float, dt: DType) -> float:
    with np.errstate(all="ignore"):
        return dt.np.type(np.floor_divide(dt.np.type(a), dt.np.type(b)))


def float_mod(a: float, b: float, dt: DType) -> float:
    with np.errstate(all="ignore"):
        return dt.np.type(np.remainder(dt.np.type(a), dt.np.type(b)))


def cast_value(v: Any, src: DType, dst: DType) -> Any:
    """Convert a value of dtype `src` to `dst` with the IR's Cast semantics."""
    if dst.is_bool:
        return bool(v != 0)
    if dst.is_float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if src.is_int and not isinstance(v, float):
                # one rounding, as numpy's astype does (not int -> double -> float)
                return np.array([int(v)], dtype=src.np).astype(dst.np)[0]
            return dst.np.type(v)
    # integer destination
    if src.is_float:
        f = float(v)
        if math.isnan(f) or math.isinf(f):
            return 0  # undefined in numpy; 0 is our choice, the frontend warns
        return wrap(int(f), dst)
    return wrap(int(v), dst)


def _min(x: Any, y: Any, dt: DType) -> Any:
    return y if y < x else x


def _max(x: Any, y: Any, dt: DType) -> Any:
    return y if y > x else x


# binary operations on operands already converted to the operation's type: float (numpy
# scalars of that width) and integer (Python ints, the result wrapped to the width)
_FLOAT_BIN: dict[str, Callable[[Any, Any, DType], Any]] = {
    "add": lambda x, y, dt: dt.np.type(x + y),
    "sub": lambda x, y, dt: dt.np.type(x - y),
    "mul": lambda x, y, dt: dt.np.type(x * y),
    "div": lambda x, y, dt: dt.np.type(np.true_divide(x, y)),
    "floordiv": float_floordiv,
    "mod": float_mod,
    "min": _min,
    "max": _max,
}
_INT_BIN: dict[str, Callable[[int, int, DType], Any]] = {
    "add": lambda x, y, dt: wrap(x + y, dt),
    "sub": lambda x, y, dt: wrap(x - y, dt),
    "mul": lambda x, y, dt: wrap(x * y, dt),
    "floordiv": floordiv_int,
    "mod": mod_int,
    "and": lambda x, y, dt: wrap(x & y, dt),
    "or": lambda x, y, dt: wrap(x | y, dt),
    "xor": lambda x, y, dt: wrap(x ^ y, dt),
    "shl": shl_int,
    "shr": shr_int,
    "min": _min,
    "max": _max,
}


def eval_bin(op: str, a: Any, b: Any, dt: DType, rhs_dt: DType | None = None) -> Any:
    if dt.is_float:
        x, y = dt.np.type(a), dt.np.type(b)
        fn = _FLOAT_BIN.get(op)
        if fn is None:
            raise ValueError(f"op {op} on {dt}")
        with np.errstate(all="ignore"):
            return fn(x, y, dt)
    if dt.is_bool:
        x, y = bool(a), bool(b)
        if op in ("and", "min"):
            return x and y
        if op in ("or", "max"):
            return x or y
        if op == "xor":
            return x != y
        raise ValueError(f"op {op} on bool")
    x, y = _int(a), _int(b)
    fn = _INT_BIN.get(op)
    if fn is None:
        raise ValueError(f"op {op} on {dt}")
    return fn(x, y, dt)


def eval_un(op: str, a: Any, dt: DType) -> Any:
    if op == "not":
        return not bool(a)
    if dt.is_float:
        x = dt.np.type(a)
        if op == "neg":
            return dt.np.type(-x)
        if op == "abs":
            return dt.np.type(abs(x))
        raise ValueError(f"op {op} on {dt}")
    if dt.is_bool:
        if op == "invert":
            return not bool(a)
        raise ValueError(f"op {op} on bool")
    x = _int(a)
    if op == "neg":
        return wrap(-x, dt)
    if op == "invert":
        return wrap(~x, dt)
    if op == "abs":
        return wrap(abs(x), dt)
    raise ValueError(f"op {op} on {dt}")


# numpy's name of a Math function where it differs from C's
NUMPY_MATH = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2", "pow": "power"}


def eval_math(fn: str, args: list[Any], dt: DType) -> Any:
    """`fn` of `args` in `dt` with the IR's semantics (NaN and +-inf instead of errors).

    float64: the libm function Python's `math` module calls (glibc, as the C simulation),
    numpy's value where `math` would raise; float32: numpy's float32 loop, as np.* on
    float32 computes it. The exact functions are the same either way."""
    if dt.bits == 64 and fn not in ir.EXACT_MATH:
        try:
            return dt.np.type(getattr(math, fn)(*(float(a) for a in args)))
        except (ValueError, OverflowError):
            pass
    ufunc = getattr(np, NUMPY_MATH.get(fn, fn))
    with np.errstate(all="ignore"):
        return dt.np.type(ufunc(*(dt.np.type(a) for a in args)))


def eval_cmp(op: str, a: Any, b: Any) -> bool:
    if op == "lt":
        return bool(a < b)
    if op == "le":
        return bool(a <= b)
    if op == "gt":
        return bool(a > b)
    if op == "ge":
        return bool(a >= b)
    if op == "eq":
        return bool(a == b)
    if op == "ne":
        return bool(a != b)
    raise ValueError(op)


class StepLimit(Exception):
    """The run took more statements than the caller allowed (see `execute`)."""


class Interpreter:
    def __init__(self, kernel: ir.Kernel, max_steps: int | None = None):
        self.k = kernel
        self.steps_left = max_steps

    def run(self, args: dict[str, Any]) -> tuple[dict[str, np.ndarray], Any]:
        """Run on named inputs. Arrays are copied; returns (final arrays by param
        name, scalar return value or None)."""
        self.env: dict[str, Any] = {}
        self.arrays: dict[str, np.ndarray] = {}
        for p in self.k.params:
            if p.kind == "array":
                if p.name in args:
                    arr = np.array(args[p.name], dtype=p.dtype.np).reshape(p.shape).copy()
                else:
                    arr = np.zeros(p.shape, dtype=p.dtype.np)
                self.arrays[p.name] = arr
            else:
                self.env[p.name] = cast_value(args[p.name], p.dtype, p.dtype)
        for a in self.k.locals:
            if a.init is not None:
                self.arrays[a.name] = np.array(a.init, dtype=a.dtype.np).reshape(a.shape)
            else:
                self.arrays[a.name] = np.zeros(a.shape, dtype=a.dtype.np)
        self.ret: Any = None
        self.copies: list[tuple[str, int]] = []
        self.exec_block(self.k.body)
        outs = {p.name: self.arrays[p.name] for p in self.k.params if p.kind == "array"}
        return outs, self.ret

    def exec_block(self, body: list[ir.Stmt]) -> None:
        for s in body:
            self.exec(s)

    def exec(self, s: ir.Stmt) -> None:
        if self.steps_left is not None:
            self.steps_left -= 1
            if self.steps_left < 0:
                raise StepLimit()
        if isinstance(s, ir.Assign):
            dt = self.k.scalars[s.var]
            self.env[s.var] = cast_value(self.eval(s.value), s.value.dtype, dt)
        elif isinstance(s, ir.Store):
            idx = tuple(int(self.eval(i)) for i in s.index)
            arr = self.arrays[s.array]
            arr[idx] = cast_value(self.eval(s.value), s.value.dtype, self.k.array_dtype(s.array))
        elif isinstance(s, ir.For):
            start, stop = int(self.eval(s.start)), int(self.eval(s.stop))
            dt = self.k.scalars[s.var]
            for v in range(start, stop, s.step):
                self.env[s.var] = wrap(v, dt)
                try:
                    self.exec_block(s.body)
                except _Continue:
                    continue
                except _Break:
                    break
        elif isinstance(s, ir.If):
            if self.eval(s.cond):
                self.exec_block(s.then)
            else:
                self.exec_block(s.orelse)
        elif isinstance(s, ir.Break):
            raise _Break()
        elif isinstance(s, ir.Continue):
            raise _Continue()
        elif isinstance(s, ir.Copy):
            row, n = int(self.eval(s.row)), int(self.eval(s.count))
            dram, buf = self.arrays[s.array], self.arrays[s.buffer]
            self.copies.append((s.direction, n * (dram.nbytes // max(1, len(dram)))))
            if s.direction == "in":
                buf[:n] = dram[row : row + n]
            else:
                dram[row : row + n] = buf[:n]
        elif isinstance(s, ir.Return):
            if s.value is not None:
                self.ret = cast_value(self.eval(s.value), s.value.dtype, self.k.ret or s.value.dtype)
        else:  # pragma: no cover - exhaustive
            raise TypeError(s)

    @staticmethod
    def constant(e: ir.Expr) -> Any:
        """The value of an expression of constants (no variables or loads)."""
        return Interpreter(ir.Kernel("", [], {}, [], [])).eval(e)

    def eval(self, e: ir.Expr) -> Any:
        if isinstance(e, ir.Const):
            return cast_value(e.value, e.dtype, e.dtype)
        if isinstance(e, ir.Var):
            return self.env[e.name]
        if isinstance(e, ir.Load):
            idx = tuple(int(self.eval(i)) for i in e.index)
            v = self.arrays[e.array][idx]
            return v if e.dtype.is_float else (bool(v) if e.dtype.is_bool else int(v))
        if isinstance(e, ir.Bin):
            return eval_bin(e.op, self.eval(e.lhs), self.eval(e.rhs), e.dtype)
        if isinstance(e, ir.Un):
            return eval_un(e.op, self.eval(e.operand), e.dtype)
        if isinstance(e, ir.Cmp):
            return eval_cmp(e.op, self.eval(e.lhs), self.eval(e.rhs))
        if isinstance(e, ir.Logic):
            # pure operands, so evaluating the right one only when it decides gives the same
            # value; it also keeps a guarded load (`i < n and a[i] > 0`) from indexing past
            # the array as Python's short circuit does (the C++ has &&; the RTL reads some
            # address and the guard masks what it read)
            a = bool(self.eval(e.lhs))
            if a != (e.op == "land"):
                return a
            return bool(self.eval(e.rhs))
        if isinstance(e, ir.Cast):
            return cast_value(self.eval(e.operand), e.operand.dtype, e.dtype)
        if isinstance(e, ir.Select):
            return self.eval(e.then) if self.eval(e.cond) else self.eval(e.orelse)
        if isinstance(e, ir.Math):
            return eval_math(e.fn, [self.eval(a) for a in e.args], e.dtype)
        raise TypeError(e)


def run_kernel(kernel: ir.Kernel, args: dict[str, Any]) -> tuple[dict[str, np.ndarray], Any]:
    return Interpreter(kernel).run(args)


@dataclass
class Run:
    """Everything one call of a kernel produces: final arrays, scalar return, fallback status."""

    arrays: dict[str, np.ndarray]
    ret: Any
    status: int  # the kernel's fallback register (0 when it has none)
    copies: list[tuple[str, int]] = field(default_factory=list)  # (direction, bytes) of each Copy


def execute(kernel: ir.Kernel, args: dict[str, Any], max_steps: int | None = None) -> Run:
    """Run `kernel` on named inputs, with its fallback status (`Kernel.status`); raises
    `StepLimit` after `max_steps` statements (the interpreter is slow: a budget lets a
    caller check small calls and skip large ones)."""
    it = Interpreter(kernel, max_steps)
    arrays, ret = it.run(args)
    return Run(arrays, ret, int(it.env.get(kernel.status, 0)) if kernel.status else 0, it.copies)
