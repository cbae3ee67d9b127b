"""Kernel IR expressions as C++ expressions: the one place C++ text is built in Python.

Everything else about the generated C++ (statements, loops, pragmas, files)
lives in Jinja2 templates under templates/hls/. This module turns the pieces
that have no fixed shape into text: expressions, literals, identifiers and
string literals.

The printed expression computes exactly the IR's value (see `partition.ir`).
Operations whose C++ operator would differ from numpy go through the helpers
of hls/partition_ops.h, called with the element type spelled out
(`pt::add<int16_t>(a, b)`): C++ promotes an int16 sum to int, and the helper
wraps it back. Where an operator is exactly right it is used as is: float
+ - * /, comparisons (both operands have the same dtype, so promotion keeps
the values), bitwise and/or/xor (the result of two in-range operands is in
range), logical operators and selects. A C++ subexpression may therefore have
a wider C++ type than its IR dtype (uint8 `a & b` is an int), but always the
IR's value; every consumer (helper call, assignment, store, comparison) is
value-based, so that is enough. Math functions are Vitis HLS's `hls::` ones
(hls_math.h; hls/partition_math.h stands in for them on <cmath> in g++).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from partition import ir
from partition.dtypes import DType, wrap
from partition.errors import PartitionError
from partition.names import CPP_RESERVED

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_identifier(name: str, what: str) -> str:
    """`name` if it is usable as a C++ identifier in generated code, else PartitionError.

    The frontend already gives every kernel object a C++-safe name; this guards
    kernels read back from edited JSON.
    """
    if (
        not isinstance(name, str)
        or not _IDENT.match(name)
        or name in CPP_RESERVED
        or "__" in name
        or re.match(r"_[A-Z]", name)
    ):
        raise PartitionError(
            f"{what} {name!r} is not a usable C++ identifier (letters, digits and single underscores, "
            "not starting with a digit, not a C++ keyword); rename it in the kernel IR"
        )
    return name


def ctype(dt: DType) -> str:
    """The C++ spelling of a dtype (standard <stdint.h> types, float, double, bool)."""
    return dt.ctype


def literal(value: int | float | bool, dt: DType) -> str:
    """A C++ literal that denotes exactly `value` as a `dt`.

    Integer literals carry a suffix only where the plain literal would have the
    wrong signedness or be too wide for int (comparisons and selects must not
    mix signed and unsigned operands); floats print the shortest decimal text
    that reads back to the same float32/float64.
    """
    if dt.is_bool:
        return "true" if bool(value) else "false"
    if dt.is_int:
        v = wrap(int(value), dt)
        if dt.bits == 64:
            if dt.kind == "int":
                if v == dt.min:
                    return "(-INT64_C(9223372036854775807) - 1)"
                return f"INT64_C({v})" if not -(2**31) < v < 2**31 else str(v)
            return f"UINT64_C({v})" if v > 0xFFFFFFFF else f"{v}U"
        if dt.kind == "uint" and dt.bits == 32:
            return f"{v}U"
        if v == -(2**31):
            return "(-2147483647 - 1)"
        return str(v)
    # floating point
    f = float(value)
    scalar = np.float32(f) if dt.bits == 32 else np.float64(f)
    if math.isnan(f):
        return f"std::numeric_limits<{ctype(dt)}>::quiet_NaN()"
    if math.isinf(f):
        inf = f"std::numeric_limits<{ctype(dt)}>::infinity()"
        return inf if f > 0 else f"-{inf}"
    if math.isinf(float(scalar)):  # a float64 value beyond float32's range
        inf = f"std::numeric_limits<{ctype(dt)}>::infinity()"
        return inf if f > 0 else f"-{inf}"
    text = np.format_float_positional(scalar, unique=True, trim="0")
    if len(text) > 24:
        text = np.format_float_scientific(scalar, unique=True, trim="0")
    if text.endswith("."):
        text += "0"
    return text + ("f" if dt.bits == 32 else "")


def c_string(text: str) -> str:
    """A C++ string literal (ASCII only, everything else escaped)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= code < 127 and ch != "?":  # '?' escaped against trigraphs
            out.append(ch)
        elif ch == "?":
            out.append("\\?")
        else:
            for byte in ch.encode("utf-8"):
                out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class ArrayRef:
    """How an IR array appears in C++: a flat row-major buffer `cname` of `shape`."""

    cname: str
    shape: tuple[int, ...]
    dtype: DType


# IR op -> pt:: helper (integers) / C++ operator (where exact)
_INT_HELPERS = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "floordiv": "floordiv",
    "mod": "mod",
    "min": "min",
    "max": "max",
    "shl": "shl",
    "shr": "shr",
}
_FLOAT_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_FLOAT_HELPERS = {"floordiv": "floordiv", "mod": "mod", "min": "min", "max": "max"}
_BITWISE = {"and": "&", "or": "|", "xor": "^"}
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_LOGIC = {"land": "&&", "lor": "||"}


class ExprPrinter:
    """Prints IR expressions of one kernel.

    `arrays` maps every IR array name to its C++ buffer; `scalars` maps IR
    scalar names to C++ names (identity unless a name had to change).
    """

    def __init__(self, arrays: dict[str, ArrayRef], scalars: dict[str, str], where: str = ""):
        self.arrays = arrays
        self.scalars = scalars
        self.where = where

    # ------------------------------------------------------------ public

    def expr(self, e: ir.Expr) -> str:
        """The expression as a standalone C++ expression (no outer parentheses)."""
        text, compound = self._print(e)
        return text[1:-1] if compound and _balanced_outer(text) else text

    def operand(self, e: ir.Expr) -> str:
        """The expression wrapped so it can stand next to an operator."""
        text, _compound = self._print(e)
        return text

    def converted(self, e: ir.Expr, dt: DType) -> str:
        """The expression converted to `dt` with the IR's Cast semantics (if needed)."""
        if e.dtype == dt:
            return self.expr(e)
        return f"pt::cast<{ctype(dt)}>({self.expr(e)})"

    def element(self, array: str, index: tuple[ir.Expr, ...]) -> str:
        """`buf[flat index]` for a load or store (row-major linearisation)."""
        ref = self._array(array)
        if len(index) != len(ref.shape):
            raise PartitionError(
                f"{self.where}: array {array} has {len(ref.shape)} dimension(s) but is indexed with {len(index)}"
            )
        if len(index) == 1:
            return f"{ref.cname}[{self.expr(index[0])}]"
        flat = self.operand(index[0])
        for dim, ix in zip(ref.shape[1:], index[1:]):
            flat = f"({flat} * {dim} + {self.operand(ix)})"
        return f"{ref.cname}[{flat[1:-1]}]"

    # ----------------------------------------------------------- private

    def _array(self, name: str) -> ArrayRef:
        try:
            return self.arrays[name]
        except KeyError:
            raise PartitionError(f"{self.where}: unknown array {name!r} in the kernel IR") from None

    def _bad(self, e: ir.Expr, why: str) -> PartitionError:
        return PartitionError(f"{self.where}: cannot print {type(e).__name__} {why} in the kernel IR")

    def _print(self, e: ir.Expr) -> tuple[str, bool]:
        """(text, compound): compound texts are wrapped in parentheses."""
        if isinstance(e, ir.Const):
            text = literal(e.value, e.dtype)
            return (f"({text})", True) if text.startswith("-") else (text, False)
        if isinstance(e, ir.Var):
            name = self.scalars.get(e.name)
            if name is None:
                raise PartitionError(f"{self.where}: unknown scalar {e.name!r} in the kernel IR")
            return name, False
        if isinstance(e, ir.Load):
            return self.element(e.array, e.index), False
        if isinstance(e, ir.Bin):
            return self._bin(e)
        if isinstance(e, ir.Un):
            return self._un(e)
        if isinstance(e, ir.Cmp):
            if e.op not in _CMP:
                raise self._bad(e, f"op {e.op!r}")
            self._operand_types(e, e.rhs, same=e.lhs.dtype)
            return f"({self.operand(e.lhs)} {_CMP[e.op]} {self.operand(e.rhs)})", True
        if isinstance(e, ir.Logic):
            if e.op not in _LOGIC:
                raise self._bad(e, f"op {e.op!r}")
            return f"({self._truth(e.lhs)} {_LOGIC[e.op]} {self._truth(e.rhs)})", True
        if isinstance(e, ir.Cast):
            if e.operand.dtype == e.dtype:
                return self._print(e.operand)
            return f"pt::cast<{ctype(e.dtype)}>({self.expr(e.operand)})", False
        if isinstance(e, ir.Select):
            then = self._wrapped(e.then, e.dtype)
            orelse = self._wrapped(e.orelse, e.dtype)
            return f"({self._truth(e.cond)} ? {then} : {orelse})", True
        if isinstance(e, ir.Math):
            if ir.MATH_FUNCS.get(e.fn) != len(e.args) or not e.dtype.is_float:
                raise self._bad(e, f"{e.fn} of {len(e.args)} {e.dtype} operand(s)")
            self._operand_types(e, *e.args)
            return f"hls::{e.fn}({', '.join(self.expr(a) for a in e.args)})", False
        raise PartitionError(f"{self.where}: unknown expression {e!r} in the kernel IR")

    def _operand_types(self, e: ir.Expr, *operands: ir.Expr, same: DType | None = None) -> None:
        """The IR's typing rule: operands have the node's dtype (the frontend inserts Casts)."""
        want = same or e.dtype
        for x in operands:
            if x.dtype != want:
                raise PartitionError(
                    f"{self.where}: {type(e).__name__} {getattr(e, 'op', '')} of {want} has an operand of "
                    f"{x.dtype}; the kernel IR needs an explicit Cast there"
                )

    def _bin(self, e: ir.Bin) -> tuple[str, bool]:
        dt, op = e.dtype, e.op
        t = ctype(dt)
        self._operand_types(e, e.lhs, *(() if op in ("shl", "shr") else (e.rhs,)))
        if op in ("shl", "shr"):
            if not dt.is_int or not e.rhs.dtype.is_int:
                raise self._bad(e, f"{op} on {dt} by {e.rhs.dtype}")
            return f"pt::{op}<{t}>({self.expr(e.lhs)}, {self.expr(e.rhs)})", False
        lhs, rhs = self.expr(e.lhs), self.expr(e.rhs)
        if dt.is_float:
            if op in _FLOAT_OPERATORS:
                return f"({self.operand(e.lhs)} {_FLOAT_OPERATORS[op]} {self.operand(e.rhs)})", True
            if op in _FLOAT_HELPERS:
                return f"pt::{_FLOAT_HELPERS[op]}<{t}>({lhs}, {rhs})", False
        elif dt.is_bool:
            if op in _BITWISE:
                return f"({self.operand(e.lhs)} {_BITWISE[op]} {self.operand(e.rhs)})", True
            if op in ("min", "max"):
                return f"pt::{op}<bool>({lhs}, {rhs})", False
        else:
            if op in _BITWISE:
                return f"({self.operand(e.lhs)} {_BITWISE[op]} {self.operand(e.rhs)})", True
            if op in _INT_HELPERS:
                return f"pt::{_INT_HELPERS[op]}<{t}>({lhs}, {rhs})", False
        raise self._bad(e, f"op {op!r} on {dt}")

    def _un(self, e: ir.Un) -> tuple[str, bool]:
        dt, op = e.dtype, e.op
        if op == "not" or (op == "invert" and dt.is_bool):
            return f"(!{self._truth(e.operand)})", True
        self._operand_types(e, e.operand)
        x = self.expr(e.operand)
        if dt.is_float:
            if op == "neg":
                return f"(-{self.operand(e.operand)})", True
            if op == "abs":
                return f"pt::abs<{ctype(dt)}>({x})", False
        elif dt.is_int:
            helper = {"neg": "neg", "abs": "abs", "invert": "invert"}.get(op)
            if helper:
                return f"pt::{helper}<{ctype(dt)}>({x})", False
        raise self._bad(e, f"op {op!r} on {dt}")

    def _truth(self, e: ir.Expr) -> str:
        """An operand used as a truth value: bool as is, anything else `!= 0` (Python's bool())."""
        if e.dtype.is_bool:
            return self.operand(e)
        return f"pt::cast<bool>({self.expr(e)})"

    def _wrapped(self, e: ir.Expr, dt: DType) -> str:
        """A select arm: converted to the select's dtype if its dtype differs."""
        if e.dtype == dt:
            return self.operand(e)
        return f"pt::cast<{ctype(dt)}>({self.expr(e)})"


def _balanced_outer(text: str) -> bool:
    """True if the first '(' of `text` closes at its last character."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return depth == 0
