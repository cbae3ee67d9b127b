"""The Python syntax and numpy names the frontend's subset knows.

Tables both the scalar and the whole-array lowering read: each operator's ast
node, name, source text (for messages) and Python function (numpy is asked
what an operation gives by applying it), numpy's scalar type names, the numpy
functions that make arrays, and the numpy functions and methods lowered on
whole arrays. They sit apart so that every lowering module reads one copy.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from partition.dtypes import DTYPES

SCALAR_ALIASES = {
    "bool_": "bool",
    "intc": "int32",
    "double": "float64",
    "single": "float32",
    "byte": "int8",
    "ubyte": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "longlong": "int64",
    "ulonglong": "uint64",
}
NUMPY_SCALAR_TYPES = set(DTYPES) | set(SCALAR_ALIASES)
ARRAY_MAKERS = {"zeros", "empty", "ones", "full", "zeros_like", "empty_like", "ones_like", "full_like"}

# numpy functions with an array result, elementwise
ELEMENTWISE_FUNCS = ("where", "clip", "minimum", "maximum", "abs", "absolute", "negative", "positive", "copy")
# numpy functions and array methods with a scalar result (no axis)
REDUCTIONS = ("sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std")
METHOD_REDUCTIONS = ("sum", "mean", "max", "min", "argmax", "argmin", "var", "std")
SUPPORTED_TEXT = (
    "the numpy subset: scalar types, + - * / // % ** & | ^ << >> ~ and comparisons on arrays, slices, @, "
    "np.where, np.clip, np.minimum, np.maximum, np.abs, np.negative, np.dot, np.copy, "
    "np.sum/mean/max/min/argmax/argmin, .astype, .copy, .T, np.zeros/ones/full/empty(_like), "
    "np.sqrt/exp/log/sin/cos/tanh/hypot/floor/rint/power and numpy's other math ufuncs, "
    "np.cumsum/cumprod and np.maximum/minimum/add/multiply.accumulate, np.sort/median/percentile, "
    "np.convolve, np.tensordot, np.einsum (products), np.cov, np.insert, np.array_equal, "
    "np.linalg.norm/solve/inv/cholesky"
)

BINOPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.LShift: "shl",
    ast.RShift: "shr",
    ast.Pow: "pow",
}
OP_TEXT = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "floordiv": "//",
    "mod": "%",
    "and": "&",
    "or": "|",
    "xor": "^",
    "shl": "<<",
    "shr": ">>",
    "pow": "**",
}
CMPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
CMP_TEXT = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
PY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "shl": operator.lshift,
    "shr": operator.rshift,
    "pow": operator.pow,
}
PY_IOPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.iadd,
    "sub": operator.isub,
    "mul": operator.imul,
    "div": operator.itruediv,
    "floordiv": operator.ifloordiv,
    "mod": operator.imod,
    "and": operator.iand,
    "or": operator.ior,
    "xor": operator.ixor,
    "shl": operator.ilshift,
    "shr": operator.irshift,
    "pow": operator.ipow,
}
PY_CMPS: dict[str, Callable[[Any, Any], Any]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}
PY_UN: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg,
    "pos": operator.pos,
    "invert": operator.invert,
    "abs": np.abs,
}


def text(node: ast.AST, limit: int = 48) -> str:
    """Source form of an expression for messages (shortened)."""
    s = ast.unparse(node)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def jumps(s: ast.stmt, kinds: tuple[type, ...]) -> bool:
    """A statement of `kinds` (break, continue) in `s` that belongs to the loop around `s`."""
    if isinstance(s, kinds):
        return True
    if isinstance(s, (ast.For, ast.While, ast.AsyncFor)):
        return any(jumps(b, kinds) for b in s.orelse)  # the loop's own body has its own jumps
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(
        jumps(b, kinds) for f in ("body", "orelse", "finalbody", "handlers") for b in getattr(s, f, []) or []
    )
