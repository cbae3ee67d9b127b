"""Scalar expressions: names, constants, operators, comparisons and conditionals.

The type of each result is numpy's or Python's own (`partition.frontend.types`
asks numpy); Python ints carry intervals through the operators, so each gets
the narrowest type that holds it. An array-valued expression where a scalar
is needed is rejected here.
"""

from __future__ import annotations

import ast
import math
import sys
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, DTYPES, FLOAT64, INT64, DType, dtype, narrowest_signed
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.syntax import BINOPS, CMPS, OP_TEXT
from partition.frontend.types import (
    NP,
    PyBool,
    PyFloat,
    PyInt,
    PyType,
    describe,
    fits,
    ir_dtype,
    iv_bin,
    iv_un,
    range_of,
    result_kind,
    unary_kind,
)


class Expressions:
    """Scalar expressions (part of `Lowerer`)."""

    def numpy_attr(self, node: ast.expr) -> str | None:
        """'zeros' for np.zeros / numpy.zeros / a name imported from numpy."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.src.numpy_aliases
            and not self.is_local_name(node.value.id)
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in self.src.numpy_names and not self.is_local_name(node.id):
            return self.src.numpy_names[node.id]
        return None

    def is_local_name(self, name: str) -> bool:
        return name in self.local_names or name in self.scalar_params or name in self.sc.records

    def dim_te(self, d: Any, line: int) -> TE:
        """A length of an array's shape as the Python int it is: a constant, or the register of
        a run-time length (`ParamDyn`)."""
        te = getattr(d, "te", None)
        return te() if te is not None else self.const_te(d, line)

    def const_te(self, v: Any, line: int) -> TE:
        if isinstance(v, (bool, np.bool_)):
            if isinstance(v, np.bool_):
                return TE(NP(BOOL), ir.Const(bool(v), BOOL))
            return TE(PyBool(), ir.Const(bool(v), BOOL))
        if isinstance(v, np.generic):
            dt = dtype(v.dtype)
            return TE(NP(dt), const(v.item(), dt))
        if isinstance(v, int):
            dt = narrowest_signed(v, v)
            if dt is None:
                raise Reject(line, f"integer constant {v} does not fit in 64 bits")
            return TE(PyInt(v, v), ir.Const(v, dt))
        if isinstance(v, float):
            return TE(PyFloat(), ir.Const(v, FLOAT64))
        raise Reject(line, f"constant of type {type(v).__name__}")

    def int_expr(self, node: ast.expr) -> TE:
        te = self.expr(node)
        if (
            range_of(te.pt) is None
            or isinstance(te.pt, PyBool)
            or (isinstance(te.pt, NP) and not te.pt.dtype.is_int)
        ):
            raise Reject(self.where(node), f"range() bound of type {describe(te.pt)}")
        return te

    def name(self, node: ast.Name) -> TE:
        n = node.id
        line = node.lineno
        if n in self.consts:
            return self.consts[n]
        if n in self.scalar_params:
            irn, dt, pt, _, _ = self.scalar_params[n]
            if self.observed_mode:
                return TE(self.obs_params.get(n, pt), ir.Var(irn, dt))
            return TE(pt, ir.Var(irn, dt))
        if n in self.arrays or n in self.sc.views:
            raise Reject(line, f"array {n} used as a value where a scalar is needed")
        if n in self.sc.records:
            raise Reject(line, f"{self.sc.records[n].what} used as a value (its fields are read one by one)")
        if n in self.local_names:
            return self.read_var(n, node)
        if n in ("True", "False"):
            return TE(PyBool(), ir.Const(n == "True", BOOL))
        if n in self.global_values:
            g = self.global_ref(n, node)
            if isinstance(g, ArrayInfo):
                raise Reject(line, f"global array {n} used as a value")
            return g
        raise Reject(line, f"name {n} (not a parameter, a local or a numeric global)")

    def expr(self, node: ast.expr) -> TE:
        line = self.where(node)
        if not isinstance(node, ast.Name) and self.arr.rank_of(node) is not None:
            raise Reject(line, f"array {ast.unparse(node)[:48]} used as a value where a scalar is needed")
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, (bool, int, float)):
                return self.const_te(v, line)
            raise Reject(line, f"constant {v!r}")
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return self.arr.dot_scalar(node.left, node.right, node, "@")
            op = BINOPS.get(type(node.op))
            if op is None:
                raise Reject(line, f"operator {type(node.op).__name__}")
            return self.binop(op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            c = self.truth(self.expr(node.test), node.test)
            self.cond_depth += 1
            try:
                a, b = self.expr(node.body), self.expr(node.orelse)
            finally:
                self.cond_depth -= 1
            pt = self.join_values(a.pt, b.pt, line)
            dt = ir_dtype(pt)
            return TE(pt, ir.Select(c.e, cast(a.e, dt), cast(b.e, dt), dt))
        if isinstance(node, ast.Subscript):
            return self.load(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        names = {
            ast.List: "list",
            ast.Tuple: "tuple",
            ast.Dict: "dict",
            ast.Set: "set",
            ast.ListComp: "list comprehension",
            ast.GeneratorExp: "generator expression",
            ast.DictComp: "dict comprehension",
            ast.SetComp: "set comprehension",
            ast.Lambda: "lambda",
            ast.JoinedStr: "f-string",
            ast.Starred: "starred expression",
            ast.NamedExpr: "assignment expression (:=)",
            ast.Await: "await",
            ast.Yield: "yield",
            ast.YieldFrom: "yield",
        }
        raise Reject(line, names.get(type(node), type(node).__name__))

    def attribute(self, node: ast.Attribute) -> TE:
        line = node.lineno
        rec = self.record_of(node.value)
        if rec is not None:
            return self.record_attr(rec, node.attr, line)
        if isinstance(node.value, ast.Attribute) and self.record_of(node.value.value) is not None:
            self.record_attr(self.record_of(node.value.value), node.value.attr, line)  # `p.a.b`: why not a
        arr = self.array_of(node.value) if isinstance(node.value, ast.Name) else None
        if arr is not None:
            if node.attr == "size":
                n = 1
                for d in arr.shape[1:]:
                    n *= d
                if not isinstance(arr.shape[0], int):  # a run-time length times the other lengths
                    return self.binop("mul", self.dim_te(arr.shape[0], line), self.const_te(n, line), node)
                return self.const_te(n * arr.shape[0], line)
            if node.attr == "ndim":
                return self.const_te(len(arr.shape), line)
            raise Reject(line, f"attribute {arr.pyname}.{node.attr}")
        np_name = self.numpy_attr(node)
        if np_name in ("pi", "e", "inf", "nan"):
            return self.const_te(float(getattr(np, np_name)), line)
        constant = self.math_constant(node)
        if constant is not None:
            return constant
        module = self.module_of(node.value)
        if module == "math" and node.attr in ("pi", "e", "tau", "inf", "nan"):
            return self.const_te(float(getattr(math, node.attr)), line)
        if module == "sys" and node.attr == "maxsize":
            return self.const_te(sys.maxsize, line)
        raise Reject(line, f"attribute {self.callee_text(node)}")

    def module_of(self, node: ast.expr) -> str | None:
        """'math' or 'sys' when `node` names that module (and no local shadows it)."""
        if isinstance(node, ast.Name) and not self.is_local_name(node.id):
            return self.src.modules.get(node.id)
        return None

    def binop(self, op: str, a: TE, b: TE, node: ast.AST) -> TE:
        line = self.where(node)
        if op == "pow":
            return self.power(a, b, line)
        kind = result_kind(op, a.pt, b.pt)
        if kind is None:
            raise Reject(line, f"{describe(a.pt)} {OP_TEXT[op]} {describe(b.pt)}")
        if op in ("div", "floordiv", "mod"):
            self.check_divisor(a, b, line)
        python_ints = isinstance(a.pt, (PyInt, PyBool)) and isinstance(b.pt, (PyInt, PyBool))
        if op == "shr" and python_ints and range_of(b.pt)[0] < 0:
            # Python raises ValueError for a negative shift count
            self.fallback_if(ir.Cmp("lt", b.e, const(0, b.e.dtype)), line)
        if isinstance(kind, PyInt):
            ra, rb = range_of(a.pt), range_of(b.pt)
            iv = iv_bin(op, ra, rb)
            if iv is None or not fits(iv, INT64):
                if op in ("add", "sub", "mul", "shl", "floordiv"):
                    return self.checked_int(op, a, b, line)
                iv = (INT64.min, INT64.max)  # mod, shr, and, or, xor of int64 values stay in int64
            pt = PyInt(*iv)
            dt = ir_dtype(pt)
            if pt.lo == pt.hi and isinstance(a.e, ir.Const) and isinstance(b.e, ir.Const):
                return TE(pt, const(pt.lo, dt))
            if op not in ("add", "sub", "mul", "and", "or", "xor", "shl"):
                # //, % and >> do not commute with wrapping: compute them in a type that
                # holds the operands exactly, then narrow the (fitting) result
                wide = ir_dtype(PyInt(min(ra[0], rb[0], pt.lo), max(ra[1], rb[1], pt.hi)).clamp())
                rhs = b.e if op == "shr" else cast(b.e, wide)
                return TE(pt, cast(ir.Bin(op, cast(a.e, wide), rhs, wide), dt))
            if op == "shl":
                return TE(pt, ir.Bin(op, cast(a.e, dt), b.e, dt))
            return TE(pt, ir.Bin(op, cast(a.e, dt), cast(b.e, dt), dt))
        if isinstance(kind, PyBool):
            return TE(kind, ir.Bin(op, cast(a.e, BOOL), cast(b.e, BOOL), BOOL))
        dt = ir_dtype(kind)
        if dt.is_bool:
            bop = {"add": "or", "mul": "and", "and": "and", "or": "or", "xor": "xor"}.get(op)
            if bop is None:
                raise Reject(line, f"{describe(a.pt)} {OP_TEXT[op]} {describe(b.pt)}")
            return TE(kind, ir.Bin(bop, cast(a.e, BOOL), cast(b.e, BOOL), BOOL))
        if op == "div" and not dt.is_float:
            raise Reject(line, "true division with an integer result")
        if dt.is_float and op in ("and", "or", "xor", "shl", "shr"):
            raise Reject(line, f"bitwise {OP_TEXT[op]} on floats")
        # a Python int meeting a numpy integer must fit it (NumPy 2 raises OverflowError otherwise)
        x, y = (self.fitting(side, dt, line) if dt.is_int else cast(side.e, dt) for side in (a, b))
        return TE(kind, ir.Bin(op, x, y, dt))

    def power(self, a: TE, b: TE, line: int) -> TE:
        kind = result_kind("pow", a.pt, b.pt)
        if kind is not None and ir_dtype(kind).is_float:
            return self.float_power(a, b, kind, line)
        r = range_of(b.pt)
        if r is None or r[0] != r[1] or (isinstance(b.pt, NP) and not b.pt.dtype.is_int):
            raise Reject(line, "** with an exponent that is not a constant integer")
        k = r[0]
        if kind is None or k < 0:
            raise Reject(line, f"{describe(a.pt)} ** {k}")
        ra = range_of(a.pt)
        if (
            isinstance(kind, PyInt)
            and ra is not None
            and ra[0] == ra[1]
            and k > 16
            and (k <= 64 or abs(ra[0]) <= 1)
        ):
            v = ra[0] ** k  # a constant (2 ** 31): folded, as Python computes it exactly
            if fits((v, v), INT64):
                return TE(PyInt(v, v), const(v, ir_dtype(PyInt(v, v))))
        if k > 64:
            raise Reject(line, f"** {k} (exponent too large)")
        if isinstance(kind, PyInt):
            iv = iv_bin("pow", ra, (k, k))
            if iv is None or not fits(iv, INT64):  # multiply out, each product checked
                if k == 0:
                    return TE(PyInt(1, 1), const(1, ir_dtype(PyInt(1, 1))))
                acc = a
                for _ in range(k - 1):
                    acc = self.binop("mul", acc, a, ast.Constant(0, lineno=line))
                return acc
            pt: PyType = PyInt(*iv)
        else:
            pt = kind  # a numpy integer or bool (floats: `float_power`)
        dt = ir_dtype(pt)
        if k == 0:
            return TE(pt, const(1, dt))
        return TE(pt, _int_power(cast(a.e, dt), k, dt))

    def unary(self, node: ast.UnaryOp) -> TE:
        line = node.lineno
        a = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            t = self.truth(a, node.operand)
            return TE(PyBool(), ir.Un("not", t.e, BOOL))
        op = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}[type(node.op)]
        return self.unop(op, a, line)

    def unop(self, op: str, a: TE, line: int) -> TE:
        kind = unary_kind(op, a.pt)
        if kind is None:
            raise Reject(line, f"{op} of {describe(a.pt)}")
        if isinstance(kind, PyInt):
            iv = iv_un(op, range_of(a.pt))
            if op in ("neg", "abs") and not fits(iv, INT64):
                return self.checked_int(op, a, None, line)
            pt = PyInt(*iv)
            dt = ir_dtype(pt)
            if op == "pos":
                return TE(pt, cast(a.e, dt))
            if isinstance(a.e, ir.Const) and pt.lo == pt.hi:
                return TE(pt, const(pt.lo, dt))
            return TE(pt, ir.Un(op, cast(a.e, dt), dt))
        dt = ir_dtype(kind)
        if op == "pos":
            return TE(kind, cast(a.e, dt))
        if dt.is_bool:
            if op == "invert":
                return TE(kind, ir.Un("not", cast(a.e, BOOL), BOOL))
            return TE(kind, cast(a.e, BOOL))  # abs of a bool
        return TE(kind, ir.Un(op, cast(a.e, dt), dt))

    def truth(self, te: TE, node: ast.AST) -> TE:
        if te.e.dtype.is_bool:
            return te
        dt = te.e.dtype
        return TE(PyBool(), ir.Cmp("ne", te.e, const(0, dt)))

    def boolop(self, node: ast.BoolOp) -> TE:
        vals = [self.expr(node.values[0])]
        self.cond_depth += 1
        try:
            vals += [self.expr(v) for v in node.values[1:]]
        finally:
            self.cond_depth -= 1
        for v, n in zip(vals, node.values):
            if not v.e.dtype.is_bool:
                raise Reject(
                    n.lineno,
                    f"`{'and' if isinstance(node.op, ast.And) else 'or'}` on {describe(v.pt)} values "
                    "(Python returns an operand, not a bool; compare explicitly)",
                )
        op = "land" if isinstance(node.op, ast.And) else "lor"
        e = vals[0].e
        for v in vals[1:]:
            e = ir.Logic(op, e, v.e)
        pt = PyBool() if all(isinstance(v.pt, PyBool) for v in vals) else NP(BOOL)
        return TE(pt, e)

    def compare(self, node: ast.Compare) -> TE:
        if (
            len(node.ops) == 1
            and isinstance(node.left, ast.Tuple)
            and isinstance(node.comparators[0], ast.Tuple)
        ):
            return self.tuple_equal(node)
        left = self.expr(node.left)
        result: ir.Expr | None = None
        np_result = False
        for k, (op_node, right_node) in enumerate(zip(node.ops, node.comparators)):
            op = CMPS.get(type(op_node))
            if isinstance(op_node, (ast.Is, ast.IsNot)):
                op = self.identity_op(op_node, left, right_node, node.lineno)
            if op is None:
                raise Reject(node.lineno, f"comparison {type(op_node).__name__}")
            self.cond_depth += k > 0
            try:
                right = self.expr(right_node)
            finally:
                self.cond_depth -= k > 0
            dt = self.common_cmp_dtype(left.pt, right.pt, node.lineno)
            np_result = np_result or isinstance(left.pt, NP) or isinstance(right.pt, NP)
            c = ir.Cmp(op, cast(left.e, dt), cast(right.e, dt))
            result = c if result is None else ir.Logic("land", result, c)
            left = right
        assert result is not None
        return TE(NP(BOOL) if np_result else PyBool(), result)

    def tuple_equal(self, node: ast.Compare) -> TE:
        """`(a, b) == (c, d)` / `!=` of integers and bools: item by item (tuples of different
        lengths differ). Floats are refused: Python compares tuple items by identity first, so a
        NaN item equals itself there."""
        line = node.lineno
        op_node, left, right = node.ops[0], node.left, node.comparators[0]
        if not isinstance(op_node, (ast.Eq, ast.NotEq)):
            raise Reject(line, "ordering comparison of tuples")
        items = []
        for a, b in zip(left.elts, right.elts):
            ta, tb = self.expr(a), self.expr(b)
            for t in (ta, tb):
                if isinstance(t.pt, PyFloat) or (isinstance(t.pt, NP) and t.pt.dtype.is_float):
                    raise Reject(line, "comparison of tuples holding floats (Python tests identity first)")
            dt = self.common_cmp_dtype(ta.pt, tb.pt, line)
            items.append(ir.Cmp("eq", cast(ta.e, dt), cast(tb.e, dt)))
        result: ir.Expr = ir.Const(len(left.elts) == len(right.elts), BOOL)
        for c in items:
            result = c if isinstance(result, ir.Const) and result.value else ir.Logic("land", result, c)
        if isinstance(op_node, ast.NotEq):
            result = ir.Un("not", result, BOOL)
        return TE(PyBool(), result)

    def identity_op(self, op_node: ast.cmpop, left: TE, right_node: ast.expr, line: int) -> str:
        """`x is True`/`x is not False` of Python bools: True and False are single objects, so
        identity is equality (a numpy bool is never the Python singleton: rejected)."""
        if not (isinstance(right_node, ast.Constant) and type(right_node.value) is bool):
            raise Reject(line, "`is` comparison with something other than True or False")
        if not isinstance(left.pt, PyBool):
            raise Reject(
                line, f"`is {right_node.value}` of {describe(left.pt)} (only a Python bool is the singleton)"
            )
        return "eq" if isinstance(op_node, ast.Is) else "ne"

    def common_cmp_dtype(self, a: PyType, b: PyType, line: int) -> DType:
        ra, rb = range_of(a), range_of(b)
        fa = ra is None or (isinstance(a, NP) and a.dtype.is_float)
        fb = rb is None or (isinstance(b, NP) and b.dtype.is_float)
        if fa or fb:
            kind = result_kind("add", a, b)
            if kind is None:
                raise Reject(line, f"comparison of {describe(a)} and {describe(b)}")
            dt = ir_dtype(kind)
            return dt if dt.is_float else FLOAT64
        if isinstance(a, (NP, PyBool)) and isinstance(b, (NP, PyBool)) and ir_dtype(a) == ir_dtype(b):
            return ir_dtype(a)
        lo, hi = min(ra[0], rb[0]), max(ra[1], rb[1])
        if lo >= 0 and hi <= 1 and ir_dtype(a).is_bool and ir_dtype(b).is_bool:
            return BOOL
        dt = narrowest_signed(lo, hi)
        if dt is None:
            if lo >= 0:
                return DTYPES["uint64"]
            raise Reject(line, f"comparison of {describe(a)} and {describe(b)} (no common 64-bit type)")
        return dt


def _int_power(base: ir.Expr, k: int, dt: DType) -> ir.Expr:
    """base ** k (k >= 1) in the integer dtype `dt`: a chain of products for small k, squaring
    for larger ones. Products wrap modulo 2**bits, so every grouping gives numpy's result."""
    if k <= 16:
        e: ir.Expr = base
        for _ in range(k - 1):
            e = ir.Bin("mul", e, base, dt)
        return e
    half = _int_power(base, k // 2, dt)
    sq = ir.Bin("mul", half, half, dt)
    return ir.Bin("mul", sq, base, dt) if k % 2 else sq
