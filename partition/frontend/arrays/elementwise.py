"""Elementwise array operations with numpy's dtypes and broadcasting.

Operators, comparisons, np.where/clip/minimum/maximum/abs, astype and copy on
arrays: each gives an `AV` whose element is the scalar rule applied to the
operands' elements. numpy itself decides the result dtype (`probe` applies
the operation to samples of the operand dtypes) and `np.broadcast_shapes`
the shape, so both are numpy's own.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, DTYPES, DType, dtype
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import (
    AV,
    Ix,
    Operand,
    Selection,
    bcast,
    broadcast,
    describe_operand,
    numpy_sample,
)
from partition.frontend.mathcalls import NP_MATH
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import (
    ARRAY_MAKERS,
    CMP_TEXT,
    METHOD_REDUCTIONS,
    NUMPY_SCALAR_TYPES,
    OP_TEXT,
    PY_CMPS,
    PY_OPS,
    PY_UN,
    REDUCTIONS,
    SCALAR_ALIASES,
    SUPPORTED_TEXT,
    text,
)
from partition.frontend.types import NP, PyInt, fits, ir_dtype


class Elementwise:
    """Elementwise operations on arrays (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def probe(self, fn: Callable[..., Any], operands: list[Operand], what: str, line: int) -> DType:
        """The dtype numpy gives `fn` on these operands (or the error it raises, as a rejection)."""
        samples = [numpy_sample(x) for x in operands]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with np.errstate(all="ignore"):
                    r = fn(*samples)
            except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
                raise Reject(line, f"{what}: numpy raises {type(e).__name__} ({e})") from None
        try:
            return dtype(np.asarray(r).dtype)
        except KeyError:
            raise Reject(line, f"{what} gives numpy {np.asarray(r).dtype}") from None

    def shape_of(self, operands: list[Operand], line: int, what: str) -> tuple[int, ...]:
        shapes = [x.shape for x in operands if isinstance(x, AV)]
        out = broadcast(shapes)
        if out is None:
            raise Reject(
                line,
                f"{what}: shapes {', '.join(map(str, shapes))} do not broadcast (or their run-time lengths "
                "cannot be shown equal)",
            )
        return out

    def elementwise(
        self,
        operands: list[Operand],
        element: Callable[[list[TE]], TE],
        fn: Callable[..., Any],
        what: str,
        line: int,
    ) -> AV:
        """An array whose element is `element` of the operands' elements (numpy broadcasting)."""
        shape = self.shape_of(operands, line, what)
        rdt = self.probe(fn, operands, what, line)

        def at(idx: tuple[Ix, ...]) -> TE:
            tes = [x.at(bcast(idx, x.shape, shape)) if isinstance(x, AV) else x for x in operands]
            te = element(tes)
            if ir_dtype(te.pt) != rdt:
                raise Reject(
                    line, f"{what}: numpy gives {rdt.name} but the element rule gives {te.e.dtype.name}"
                )
            return te

        avs = [x for x in operands if isinstance(x, AV)]
        sel = None
        if avs and all(x.sel is not None and x.sel.key == avs[0].sel.key for x in avs):  # type: ignore[union-attr]
            first = avs[0].sel
            assert first is not None

            def value(idx: tuple[Ix, ...]) -> TE:  # one mask's selections: position by position
                return element([x.sel.value(idx) if isinstance(x, AV) and x.sel else x for x in operands])  # type: ignore[misc]

            sel = Selection(first.shape, first.mask, value, first.key)
        return AV(shape, rdt, at, sel=sel)

    def binary(self, op: str, a: Operand, b: Operand, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        what = f"{describe_operand(a)} {OP_TEXT[op]} {describe_operand(b)}"
        if op == "pow" and isinstance(b, AV):
            raise Reject(line, f"{text(node)}: ** with an array exponent")
        if op == "pow":
            rdt = self.probe(PY_OPS[op], [a, b], what, line)
            if rdt.is_float:  # numpy's fast paths for 0.5, -1, 1 and 2; its pow loop otherwise
                return self.elementwise(
                    [a, b], lambda t: lw.array_power(t[0], t[1], rdt, line), PY_OPS[op], what, line
                )
        return self.elementwise([a, b], lambda t: lw.binop(op, t[0], t[1], node), PY_OPS[op], what, line)

    def compare(self, op: str, a: Operand, b: Operand, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)

        def element(t: list[TE]) -> TE:
            dt = lw.common_cmp_dtype(t[0].pt, t[1].pt, line)
            return TE(NP(BOOL), ir.Cmp(op, cast(t[0].e, dt), cast(t[1].e, dt)))

        what = f"{describe_operand(a)} {CMP_TEXT[op]} {describe_operand(b)}"
        return self.elementwise([a, b], element, PY_CMPS[op], what, line)

    def unary(self, op: str, a: AV, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        what = f"{op} of a {a.dtype.name} array"
        return self.elementwise([a], lambda t: lw.unop(op, t[0], line), PY_UN[op], what, line)

    def note_weak(self, te: TE, rdt: DType, line: int) -> None:
        """A Python int meeting a numpy integer array must fit its dtype (NumPy 2 raises
        OverflowError otherwise): the call goes to the CPU when it does not."""
        if isinstance(te.pt, PyInt) and rdt.is_int and not fits((te.pt.lo, te.pt.hi), rdt):
            self.lw.fitting(te, rdt, line)

    def extremum(self, which: str, a: TE, b: TE, rdt: DType) -> TE:
        """np.maximum/np.minimum of two elements in `rdt`: NaN propagates, ties keep the first."""
        x, y = cast(a.e, rdt), cast(b.e, rdt)
        if rdt.is_bool:
            return TE(NP(rdt), ir.Bin("or" if which == "max" else "and", x, y, rdt))
        e: ir.Expr = ir.Bin(which, x, y, rdt)
        if rdt.is_float:
            e = ir.Select(ir.Cmp("ne", y, y), y, e, rdt)
        return TE(NP(rdt), e)

    def where_av(self, args: list[Operand], node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        rdt = self.probe(np.where, args, "np.where()", line)

        def element(t: list[TE]) -> TE:
            c = lw.truth(t[0], node)
            return TE(NP(rdt), ir.Select(c.e, cast(t[1].e, rdt), cast(t[2].e, rdt), rdt))

        return self.elementwise(args, element, np.where, "np.where()", line)

    def clip_parts(self, args: list[Operand | None], node: ast.AST) -> tuple[list[Operand], Callable]:
        """Operands and element rule of np.clip(a, lo, hi) (a bound may be None)."""
        line = self.lw.where(node)
        ops = [x for x in args if x is not None]
        rdt = self.probe(lambda *v: np.clip(*_with_nones(args, v)), ops, "np.clip()", line)
        bounds: list[TE | AV | None] = []
        for x in args[1:]:
            if isinstance(x, TE) and isinstance(x.pt, PyInt) and rdt.is_int:
                if isinstance(x.e, ir.Const):  # numpy clamps an out-of-range Python int bound
                    x = TE(x.pt, const(min(max(int(x.e.value), rdt.min), rdt.max), rdt))
                elif not fits((x.pt.lo, x.pt.hi), rdt):
                    raise Reject(
                        line,
                        f"np.clip() bound of type Python int that may fall outside {rdt.name} "
                        f"(give it the array's dtype, e.g. np.{rdt.name}(...))",
                    )
            bounds.append(x)
        lo, hi = bounds

        def element(t: list[TE]) -> TE:
            it = iter(t)
            v = next(it)
            lo_t = next(it) if lo is not None else None
            hi_t = next(it) if hi is not None else None
            r = TE(NP(rdt), cast(v.e, rdt))
            if lo_t is not None:
                r = self.extremum("max", r, lo_t, rdt)
            if hi_t is not None:
                r = self.extremum("min", r, hi_t, rdt)
            return r

        return [args[0], *(x for x in bounds if x is not None)], element

    def minmax_parts(self, which: str, args: list[Operand], node: ast.AST) -> tuple[DType, Callable]:
        line = self.lw.where(node)
        fn = np.maximum if which == "max" else np.minimum
        rdt = self.probe(fn, args, f"np.{fn.__name__}()", line)
        for x in args:
            if isinstance(x, TE):
                self.note_weak(x, rdt, line)
        return rdt, lambda t: self.extremum(which, t[0], t[1], rdt)

    def astype(self, a: AV, dt: DType, line: int) -> AV:
        lw = self.lw
        if a.dtype.is_float and dt.is_int:
            lw.note(f"line {line}: {a.dtype.name} to {dt.name} conversion truncates; NaN/overflow undefined")

        def at(idx: tuple[Ix, ...]) -> TE:
            te = a.at(idx)
            if dt.is_bool:
                return TE(NP(BOOL), lw.truth(te, None).e)
            return TE(NP(dt), cast(te.e, dt))

        return AV(a.shape, dt, at)

    def copy(self, a: AV) -> AV:
        return AV(a.shape, a.dtype, a.at)

    def diff_expr(self, node: ast.Call) -> ast.expr:
        """np.diff(a[, axis=k]) as numpy computes it: `a[..., 1:] - a[..., :-1]` along the axis
        (`!=` for bool arrays), once (n=1)."""
        line = node.lineno
        kw = {k.arg: k.value for k in node.keywords}
        if len(node.args) != 1 or set(kw) - {"axis", "n"} or isinstance(node.args[0], ast.Starred):
            raise Reject(line, f"{text(node)}: np.diff of one array, with n=1 and a constant axis")
        a = node.args[0]
        rank = self.rank_of(a)
        if rank is None:
            raise Reject(line, f"{text(node)}: np.diff of a scalar (numpy raises ValueError)")
        consts = {}
        for k, v in kw.items():
            te = self.lw.expr(v)
            if not isinstance(te.e, ir.Const) or not te.e.dtype.is_int:
                raise Reject(line, f"{text(node)}: {k} must be a constant int")
            consts[k] = int(te.e.value)
        if consts.get("n", 1) != 1:
            raise Reject(line, f"{text(node)}: np.diff with n other than 1")
        axis = consts.get("axis", -1)
        if not -rank <= axis < rank:
            raise Reject(line, f"{text(node)}: axis {axis} of a {rank}-D array (numpy raises)")
        axis %= rank

        def part(lo: int | None, hi: int | None) -> ast.expr:
            bound = [ast.Slice(None, None, None) for _ in range(rank)]
            bound[axis] = ast.Slice(
                None if lo is None else ast.Constant(lo), None if hi is None else ast.Constant(hi), None
            )
            sub = ast.Subscript(a, ast.Tuple(bound, ast.Load()) if rank > 1 else bound[0], ast.Load())
            return ast.fix_missing_locations(ast.copy_location(sub, node))

        is_bool = self.av(a).dtype.is_bool if isinstance(a, ast.Name) else False
        if is_bool:
            out: ast.expr = ast.Compare(part(1, None), [ast.NotEq()], [part(None, -1)])
        else:
            out = ast.BinOp(part(1, None), ast.Sub(), part(None, -1))
        return ast.fix_missing_locations(ast.copy_location(out, node))

    def call_av(self, node: ast.Call) -> AV:
        lw = self.lw
        line = node.lineno
        f = node.func
        rewritten = self.library_rewrite(node)
        if rewritten is not None:
            return self.av(rewritten)
        made = (
            self.library_call(node)
            or self.created_call(node)
            or self.reordered_call(node)
            or self.scan_call(node)
        )
        if made is not None:
            return made
        np_name = lw.numpy_attr(f)
        if np_name is None:
            inlined = self.helper_av(node)
            if inlined is not None:
                return inlined
        if np_name == "diff":
            return self.av(self.diff_expr(node))
        spelled = self.spelled_sum(node)
        if spelled is not None:
            return self.av(spelled)
        if np_name in REDUCTIONS and node.args and not isinstance(node.args[0], ast.Starred):
            kind = {"amax": "max", "amin": "min"}.get(np_name, np_name)
            return self.axis_reduce(kind, self.av(node.args[0]), node, node.args[1:], f"np.{np_name}()")
        if np_name is None and isinstance(f, ast.Attribute) and f.attr in METHOD_REDUCTIONS:
            return self.axis_reduce(f.attr, self.av(f.value), node, node.args, f".{f.attr}()")
        if isinstance(f, ast.Attribute) and f.attr == "astype" and self.rank_of(f.value) is not None:
            kw = {k.arg: k.value for k in node.keywords}
            extra = set(kw) - {"dtype", "copy", "casting"}
            if extra or (node.args and "dtype" in kw) or len(node.args) + ("dtype" in kw) != 1:
                raise Reject(line, f"{lw.callee_text(f)}() takes one dtype (and copy=)")
            cast_kw = kw.get("casting")
            if cast_kw is not None and not (isinstance(cast_kw, ast.Constant) and cast_kw.value == "unsafe"):
                raise Reject(line, f"{lw.callee_text(f)}() with casting= other than 'unsafe'")
            dt_node = node.args[0] if node.args else kw["dtype"]
            a, dt = self.av(f.value), lw.parse_dtype(dt_node, line)
            no_copy = isinstance(kw.get("copy"), ast.Constant) and kw["copy"].value is False
            if no_copy and dt == a.dtype:
                return a  # numpy returns the array itself: writes through it reach it
            return self.astype(a, dt, line)
        if node.keywords:
            raise Reject(line, f"{lw.callee_text(f)}() with keyword arguments on arrays")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Reject(line, f"{lw.callee_text(f)}() with *args")
        np_name = lw.numpy_attr(f)
        if np_name is not None:
            return self.numpy_call(np_name, node)
        if isinstance(f, ast.Attribute):
            a = self.av(f.value)
            if f.attr == "astype":
                lw.nargs(node, 1, "astype")
                return self.astype(a, lw.parse_dtype(node.args[0], line), line)
            if f.attr == "copy":
                lw.nargs(node, 0, "copy")
                return self.copy(a)
            if f.attr == "clip":
                if len(node.args) != 2:
                    raise Reject(line, ".clip() needs both bounds")
                args = [a, *(self.bound(x) for x in node.args)]
                ops, element = self.clip_parts(args, node)
                return self.elementwise(ops, element, _clip_fn(args), "clip()", line)
            raise Reject(line, f"array method .{f.attr}() ({SUPPORTED_TEXT})")
        if isinstance(f, ast.Name) and f.id == "abs":
            lw.nargs(node, 1, "abs")
            return self.unary("abs", self.av(node.args[0]), node)
        raise Reject(line, f"call to {lw.callee_text(f)}() with an array argument")

    def bound(self, node: ast.expr) -> Operand | None:
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        return self.operand(node)

    def numpy_call(self, name: str, node: ast.Call) -> AV:
        lw = self.lw
        line = node.lineno
        nargs = len(node.args)
        if name == "where":
            lw.nargs(node, 3, "np.where")
            args = [self.operand(a) for a in node.args]
            return self.where_av(args, node)
        if name == "clip":
            lw.nargs(node, 3, "np.clip")
            args = [self.operand(node.args[0]), *(self.bound(x) for x in node.args[1:])]
            if not isinstance(args[0], AV):
                raise Reject(line, "np.clip() of a scalar with array bounds")
            ops, element = self.clip_parts(args, node)
            return self.elementwise(ops, element, _clip_fn(args), "np.clip()", line)
        if name in ("minimum", "maximum"):
            lw.nargs(node, 2, f"np.{name}")
            args = [self.operand(a) for a in node.args]
            which = "max" if name == "maximum" else "min"
            _, element = self.minmax_parts(which, args, node)
            fn = np.maximum if which == "max" else np.minimum
            return self.elementwise(args, element, fn, f"np.{name}()", line)
        if name in ("abs", "absolute", "negative", "positive"):
            lw.nargs(node, 1, f"np.{name}")
            op = {"abs": "abs", "absolute": "abs", "negative": "neg", "positive": "pos"}[name]
            return self.unary(op, self.av(node.args[0]), node)
        if name == "copy":
            lw.nargs(node, 1, "np.copy")
            return self.copy(self.av(node.args[0]))
        if name in ("dot", "matmul"):
            lw.nargs(node, 2, f"np.{name}")
            return self.matmul(self.operand(node.args[0]), self.operand(node.args[1]), node, f"np.{name}()")
        if name in NP_MATH:
            args = [self.operand(a) for a in lw.numpy_math_args(name, node)]
            fn = getattr(np, name)
            rdt = self.probe(fn, args, f"np.{name}()", line)
            return self.elementwise(
                args, lambda t: lw.np_math_element(name, t, rdt, line), fn, f"np.{name}()", line
            )
        scalar_type = SCALAR_ALIASES.get(name, name)
        if name in NUMPY_SCALAR_TYPES and scalar_type in DTYPES and nargs == 1:
            return self.astype(self.av(node.args[0]), DTYPES[scalar_type], line)
        if name in ARRAY_MAKERS:
            raise Reject(line, f"np.{name}() inside an expression (assign it to a name first)")
        raise Reject(line, f"np.{name}() on arrays ({SUPPORTED_TEXT})")


def _with_nones(args: list[Any], values: tuple[Any, ...]) -> list[Any]:
    it = iter(values)
    return [None if a is None else next(it) for a in args]


def _clip_fn(args: list[Any]) -> Callable[..., Any]:
    return lambda *v: np.clip(*_with_nones(args, v))
