"""Calls with a scalar result: Python builtins and numpy scalar functions.

min/max/abs/len/int/float/bool, numpy's scalar types (`np.int32(x)`) and
np.abs; calls to the app's own functions are inlined
(`partition.frontend.inlining`) and reductions of arrays are the array
lowering's. Any other call is rejected by name.
"""

from __future__ import annotations

import ast
import math

import numpy as np

from partition import ir
from partition.dtypes import BOOL, DTYPES, FLOAT64, dtype
from partition.frontend.mathcalls import NP_MATH
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.sequences import REDUCERS
from partition.frontend.syntax import ARRAY_MAKERS, NUMPY_SCALAR_TYPES, SCALAR_ALIASES, SUPPORTED_TEXT
from partition.frontend.types import (
    NP,
    PyBool,
    PyFloat,
    PyInt,
    PyType,
    describe,
    ir_dtype,
    iv_bin,
    range_of,
)
from partition.interp import Interpreter


class Calls:
    """Calls to builtins and numpy scalar functions (part of `Lowerer`)."""

    def callee_text(self, f: ast.expr) -> str:
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f"{self.callee_text(f.value)}.{f.attr}"
        return type(f).__name__

    def call(self, node: ast.Call) -> TE:
        line = node.lineno
        f = node.func
        text = self.callee_text(f)
        helper = self.resolve_helper(f)
        if helper is not None:
            result = self.inline(node, *helper)
            if isinstance(result, TE):
                return result
            if result is None:
                raise Reject(line, f"{text}() returns nothing, used as a value")
            raise Reject(
                line, f"{text}() returns an array or tuple inside an expression (assign it to a name first)"
            )
        reduced = self.arr.scalar_call(node)
        if reduced is not None:
            return reduced
        special = self.intrinsic(node)
        if special is not None:
            return special
        if (
            isinstance(f, ast.Name)
            and f.id in REDUCERS
            and not self.is_local_name(f.id)
            and not self.numpy_attr(f)
        ):
            one_record = len(node.args) == 1 and self.record_of(node.args[0]) is not None
            if f.id in ("min", "max") and (len(node.args) >= 2 or one_record):
                if node.keywords:
                    raise Reject(line, f"call to {text}() with keyword arguments")
                return self.minmax(f.id, node)
            return self.seq_call(f.id, node)
        if node.keywords:
            raise Reject(line, f"call to {text}() with keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Reject(line, f"call to {text}() with *args")
        np_name = self.numpy_attr(f)
        math_name = self.math_attr(f)
        if math_name is not None:
            return self.math_call(math_name, node)
        if isinstance(f, ast.Name) and np_name is None and not self.is_local_name(f.id):
            if f.id in ("min", "max"):
                return self.minmax(f.id, node)
            if f.id == "abs":
                self.nargs(node, 1, text)
                return self.unop("abs", self.expr(node.args[0]), line)
            if f.id == "len":
                self.nargs(node, 1, text)
                arg = node.args[0]
                rec = self.record_of(arg)
                if rec is not None:
                    return self.record_len(rec, line)
                arr = self.array_of(arg)
                if (
                    arr is None
                    and isinstance(arg, ast.Subscript)
                    and not isinstance(arg.slice, (ast.Slice, ast.Tuple))
                    and self.arr.rank_of(arg.slice) is None  # an index array: a gather or a selection
                ):
                    rows = self.array_of(arg.value)  # len(a[i]): the length of a row of a 2-D array or list
                    if rows is not None and len(rows.shape) == 2:
                        return self.dim_te(rows.shape[1], line)
                if arr is None:
                    return self.length_of(arg, line)
                return self.dim_te(arr.shape[0], line)
            if f.id == "int":
                self.nargs(node, 1, text)
                return self.to_int(self.expr(node.args[0]), line)
            if f.id == "float":
                self.nargs(node, 1, text)
                a = self.expr(node.args[0])
                return TE(PyFloat(), cast(a.e, FLOAT64))
            if f.id == "bool":
                self.nargs(node, 1, text)
                t = self.truth(self.expr(node.args[0]), node.args[0])
                return TE(PyBool(), t.e)
        if np_name is not None:
            name = SCALAR_ALIASES.get(np_name, np_name)
            if np_name in NUMPY_SCALAR_TYPES and name in DTYPES:
                self.nargs(node, 1, text)
                dt = DTYPES[name]
                lit = _int_literal(node.args[0])
                if lit is not None and dt.is_int and dt.min <= lit <= dt.max:
                    # e.g. np.uint64(2**64 - 1), whose literal is beyond a Python int's 64 bits
                    return TE(NP(dt), const(lit, dt))
                a = self.expr(node.args[0])
                if dt.is_bool:
                    return TE(NP(BOOL), self.truth(a, node.args[0]).e)
                if isinstance(a.pt, PyInt) and dt.is_int:
                    return TE(NP(dt), self.fitting(a, dt, line))  # NumPy 2 raises OverflowError beyond dt
                if a.e.dtype.is_float and dt.is_int:
                    self.note(f"line {line}: float to {dt.name} conversion truncates; NaN/overflow undefined")
                return TE(NP(dt), cast(a.e, dt))
            if np_name in ("abs", "absolute"):
                self.nargs(node, 1, text)
                a = self.expr(node.args[0])
                te = self.unop("abs", a, line)
                if not isinstance(a.pt, NP):  # a ufunc gives a numpy scalar (int64 for a Python int)
                    dt = dtype(
                        np.abs(
                            True if isinstance(a.pt, PyBool) else 1 if isinstance(a.pt, PyInt) else 1.0
                        ).dtype
                    )
                    te = TE(NP(dt), cast(te.e, dt))
                return te
            if np_name in NP_MATH:
                return self.numpy_math(np_name, node)
            if np_name in ARRAY_MAKERS:
                raise Reject(line, f"np.{np_name}() outside a plain assignment")
            raise Reject(line, f"call to {text}() (not supported; {SUPPORTED_TEXT})")
        raise Reject(line, f"call to {text}()")

    def length_of(self, arg: ast.expr, line: int) -> TE:
        """len() of a range (its length from its bounds) or of a slice, row or tuple display."""
        if (
            isinstance(arg, ast.Call)
            and isinstance(arg.func, ast.Name)
            and arg.func.id == "range"
            and not self.is_local_name("range")
        ):
            start, stop, step = self.range_parts(arg, line)
            n = self.range_length(start, stop, step)[0]
            return self.expr(ast.fix_missing_locations(ast.copy_location(n, arg)))
        if isinstance(arg, ast.Subscript) and self.arr.rank_of(arg) is not None:
            parts = arg.slice.elts if isinstance(arg.slice, ast.Tuple) else [arg.slice]
            if any(not isinstance(p, ast.Slice) and self.arr.rank_of(p) is not None for p in parts):
                return self.arr.length(self.arr.av(arg))  # a gather's or a mask's selection
            return self.const_te(self.static_shape(arg, line)[0], line)
        if isinstance(arg, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in arg.elts):
            return self.const_te(len(arg.elts), line)
        raise Reject(line, "len() of something that is not an array, a list or a range")

    def nargs(self, node: ast.Call, n: int, text: str) -> None:
        if len(node.args) != n:
            raise Reject(node.lineno, f"{text}() with {len(node.args)} arguments")

    def to_int(self, a: TE, line: int) -> TE:
        if isinstance(a.pt, PyInt):
            return a
        if a.e.dtype.is_float and not any(isinstance(x, (ir.Var, ir.Load)) for x in ir.walk_expr(a.e)):
            # int() of a float known when compiling (`int(mask / 2)` of a specialised mask): Python's value
            v = float(Interpreter.constant(a.e))
            if not math.isfinite(v):
                raise Reject(line, f"int() of {v} (Python raises)")
            return self.const_te(int(v), line)
        r = range_of(a.pt)
        if r is not None:
            pt = PyInt(*r)
            return TE(pt, cast(a.e, ir_dtype(pt)))
        return self.float_to_int(a, line)

    def minmax(self, which: str, node: ast.Call) -> TE:
        line = node.lineno
        rec = self.record_of(node.args[0]) if len(node.args) == 1 else None
        if rec is not None:  # of a record's items: as of the items given one by one
            vals = self.record_items(rec, line, f"{which}() of")
            if not vals:
                raise Reject(line, f"{which}() of the empty {rec.what}")
        elif len(node.args) < 2:
            raise Reject(line, f"{which}() of one iterable (give the values as arguments)")
        else:
            vals = [self.expr(a) for a in node.args]
        acc = vals[0]
        for b in vals[1:]:
            ra, rb = range_of(acc.pt), range_of(b.pt)
            if isinstance(acc.pt, PyInt) and isinstance(b.pt, PyInt):
                pt: PyType = PyInt(*iv_bin(which, ra, rb))
                # compare the operands exactly (the result's range can be narrower than theirs)
                wide = ir_dtype(PyInt(min(ra[0], rb[0]), max(ra[1], rb[1])).clamp())
                acc = TE(pt, cast(ir.Bin(which, cast(acc.e, wide), cast(b.e, wide), wide), ir_dtype(pt)))
                continue
            else:
                try:
                    pt = self.join_values(acc.pt, b.pt, line)
                except Reject:
                    raise Reject(line, f"{which}() of {describe(acc.pt)} and {describe(b.pt)}") from None
            dt = ir_dtype(pt)
            acc = TE(pt, ir.Bin(which, cast(acc.e, dt), cast(b.e, dt), dt))
        return acc


def _int_literal(node: ast.expr) -> int | None:
    """The value of an integer literal (`7`, `-7`), or None."""
    neg = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    c = node.operand if neg else node
    if isinstance(c, ast.Constant) and type(c.value) is int:
        return -c.value if neg else c.value
    return None
