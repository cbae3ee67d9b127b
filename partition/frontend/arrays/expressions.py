"""Array-valued expressions: their rank, and their value as an `AV`, without emitting code.

`rank_of` tells an array expression from a scalar one before anything is
lowered (the scalar lowering asks it at every expression); `av` builds the
array value of names, views, slices, transposes and operators, and
`subscript` is numpy's basic indexing. Elementwise functions, products and
reductions are built by the other parts, which this one calls.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from partition import ir
from partition.dtypes import FLOAT64, INT32
from partition.frontend.arrays.reordered import FLATTENERS, ufunc_outer
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.unrolled import unrolled_sum
from partition.frontend.arrays.values import (
    AV,
    Comp,
    Dyn,
    Ix,
    Operand,
    ParamDyn,
    View,
    compose,
    full_view,
    ix_const,
    map_index,
)
from partition.frontend.mathcalls import NP_MATH
from partition.frontend.model import TE, ArrayInfo, Reject, Scope, cast, const
from partition.frontend.syntax import (
    BINOPS,
    CMPS,
    ELEMENTWISE_FUNCS,
    METHOD_REDUCTIONS,
    NUMPY_SCALAR_TYPES,
    REDUCTIONS,
    text,
)
from partition.frontend.types import NP, PyInt, range_of


class ArrayExpressions:
    """Array values of expressions (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def binding(self, name: str) -> ArrayInfo | View | None:
        view = self.lw.sc.views.get(name)
        if view is not None:
            return view
        return self.lw.lookup_array(name)

    def rank_of(self, node: ast.AST) -> int | None:
        """Rank of an array-valued expression, None for a scalar (decided without lowering it)."""
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            return len(b.shape) if b is not None else None
        if isinstance(node, ast.Subscript):
            r = self.rank_of(node.value)
            if r is None:
                return None
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if self.triangle_call(node.slice) is not None:
                return 1  # x[np.triu_indices(n)]: the triangle's elements in a row
            if len(parts) == 1 and not isinstance(parts[0], ast.Slice):
                ri = self.rank_of(parts[0])
                if ri is not None and self.is_mask(parts[0]):
                    return r - ri + 1  # a boolean mask's selection (`select` checks the shapes)
                if ri is not None:
                    return ri + r - 1  # integer-array indexing: a gather (`gather` checks the rest)
            ranks = [None if isinstance(p, ast.Slice) else self.rank_of(p) for p in parts]
            plain = not any(isinstance(p, (ast.Slice, ast.Constant)) and not _is_int(p) for p in parts)
            if len(parts) > 1 and plain and not any(_is_newaxis(p) for p in parts) and any(ranks):
                # index arrays (and integers) on the first k axes: the indices' broadcast shape first
                return max(x for x in ranks if x is not None) + r - len(parts)
            ints = news = 0
            for p in parts:
                if isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value is Ellipsis):
                    continue
                if _is_newaxis(p):
                    news += 1
                    continue
                if self.rank_of(p) is not None:
                    return max(r, 1)  # a fancy index: rejected by `subscript`
                ints += 1
            rest = r - ints + news
            return rest if rest > 0 else None
        if isinstance(node, ast.Attribute):
            return self.rank_of(node.value) if node.attr == "T" else None
        if isinstance(node, ast.BinOp):
            ra, rb = self.rank_of(node.left), self.rank_of(node.right)
            if isinstance(node.op, ast.MatMult):
                return _matmul_rank(ra, rb)
            return _max_rank(ra, rb)
        if isinstance(node, ast.UnaryOp):
            return self.rank_of(node.operand)
        if isinstance(node, ast.Compare):
            return _max_rank(*(self.rank_of(x) for x in [node.left, *node.comparators]))
        if isinstance(node, ast.IfExp):
            return _max_rank(self.rank_of(node.body), self.rank_of(node.orelse))
        if isinstance(node, ast.BoolOp):
            return _max_rank(*(self.rank_of(v) for v in node.values))
        if isinstance(node, ast.Call):
            return self.call_rank(node)
        return None

    def is_mask(self, node: ast.AST) -> bool:
        """Whether an array expression is boolean, told without lowering it (a comparison, a
        bool array's name, & | ^ ~ of those, np.logical_*, np.isnan/isinf/isfinite); `select`
        and `gather` check the dtype again when it is lowered."""
        if isinstance(node, ast.Compare):
            return True
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            return b is not None and b.dtype.is_bool
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self.is_mask(node.left) and self.is_mask(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return self.is_mask(node.operand)
        if isinstance(node, ast.Call):
            name = self.lw.numpy_attr(node.func)
            return name in (
                "logical_and",
                "logical_or",
                "logical_xor",
                "logical_not",
                "isnan",
                "isinf",
                "isfinite",
            )
        return False

    def call_rank(self, node: ast.Call) -> int | None:
        lw = self.lw
        f = node.func
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        np_name = lw.numpy_attr(f)
        rewritten = self.library_rewrite(node, typed=False)
        if rewritten is not None:
            return self.rank_of(rewritten)
        direct = self.library_rank(node)
        if direct is not None:
            return direct
        if np_name is None:
            helper = self.helper_rank(node)
            if helper is not None:
                return helper or None
        if np_name == "diff" and len(args) == 1:
            return self.rank_of(args[0])
        spelled = self.spelled_sum(node)
        if spelled is not None:
            return self.rank_of(spelled)
        scanned = self.scan_rank(node)
        if scanned is not None:
            return scanned
        if np_name is not None or ufunc_outer(f) is not None:
            made = self.created_rank(node)
            if made is None:
                made = self.reordered_rank(node)
            if made is not None:
                return made
            if np_name in ("dot", "matmul") and len(args) == 2:
                ra, rb = self.rank_of(args[0]), self.rank_of(args[1])
                if np_name == "dot" and (ra is None or rb is None):
                    return _max_rank(ra, rb)
                return _matmul_rank(ra, rb)
            if np_name in ELEMENTWISE_FUNCS or np_name in NUMPY_SCALAR_TYPES or np_name in NP_MATH:
                return _max_rank(*(self.rank_of(a) for a in args))
            if np_name in REDUCTIONS and args:
                return _reduced_rank(self.rank_of(args[0]), node, args[1:])
            return None  # reductions, and functions the scalar path rejects by name
        if isinstance(f, ast.Attribute):
            r = self.rank_of(f.value)
            if r is not None and f.attr in METHOD_REDUCTIONS:
                return _reduced_rank(r, node, args)
            if r is not None and f.attr in FLATTENERS:
                return self.reordered_rank(node)
            return r if r is not None and f.attr in ("astype", "copy", "clip", "transpose") else None
        if isinstance(f, ast.Name) and f.id == "abs" and len(args) == 1 and not lw.is_local_name(f.id):
            return self.rank_of(args[0])
        return None

    def spelled_sum(self, node: ast.Call) -> ast.expr | None:
        """`sum(genexp)` over constant displays, spelled out as additions (`unrolled.py`)."""
        if not isinstance(node.func, ast.Name) or node.func.id != "sum" or self.lw.is_local_name("sum"):
            return None
        return unrolled_sum(node)

    def helper_rank(self, node: ast.Call) -> int | None:
        """For a call of an app function: the rank of the array it returned in the profiled run
        (0 for anything but one array; None: not such a call). `helper_av` checks it."""
        f = node.func
        if not isinstance(f, (ast.Name, ast.Attribute)):
            return None
        if isinstance(f, ast.Attribute) and self.rank_of(f.value) is not None:
            return None  # a method of an array
        helper = self.lw.resolve_helper(f)
        if helper is None:
            return None
        if helper[0].calls == 0:  # not profiled on its own (a nested function): what it returns
            return self.returned_rank(node, *helper) or 0
        sig = helper[0].return_sig
        if sig.get("type") != "ndarray":
            return 0
        shapes = [sig["shape"]] if sig.get("shape") is not None else sig.get("shapes", [])
        ranks = {len(s) for s in shapes}
        return ranks.pop() if len(ranks) == 1 and 0 not in ranks else 0

    def returned_rank(self, call: ast.Call, fp: Any, src: Any) -> int | None:
        """The rank of `return expr`, a function's only statement, for the ranks of the call's
        arguments (None: a scalar, or a function of more statements)."""
        fdef = src.node
        body = fdef.body[1:] if fdef.body and isinstance(fdef.body[0], ast.Expr) else fdef.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            return None
        params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
        scope = Scope("@rank:", fp, src, fdef, local_names=set(params))
        for p, a in zip(params, call.args):
            r = self.rank_of(a)
            if r:
                scope.arrays[p] = ArrayInfo(p, "@rank", FLOAT64, (1,) * r, "local", NP(FLOAT64))
        lw = self.lw
        caller, lw.sc = lw.sc, scope
        try:
            return self.rank_of(body[0].value)
        finally:
            lw.sc = caller

    def helper_av(self, node: ast.Call) -> AV | None:
        """An app function returning an array, called inside an expression: inlined, its result
        read from the array (or view) it returns (as `tmp = f(...)` before the statement would)."""
        if not self.helper_rank(node):
            return None
        lw = self.lw
        line = node.lineno
        result = lw.inline(node, *lw.resolve_helper(node.func))
        if isinstance(result, ArrayInfo):
            result = self.whole(result, line)
        if not isinstance(result, View) or len(result.shape) != self.helper_rank(node):
            raise Reject(
                line, f"{text(node)}: the function returns other than the one array it returned when profiled"
            )
        return self.view_av(result)

    def needs_view(self, node: ast.Subscript) -> bool:
        """A subscript the scalar path cannot take: slices, a view or expression as base, or a rank mismatch."""
        count = 0
        cur: ast.expr = node
        while isinstance(cur, ast.Subscript):
            parts = cur.slice.elts if isinstance(cur.slice, ast.Tuple) else [cur.slice]
            if any(isinstance(p, ast.Slice) for p in parts):
                return True
            count += len(parts)
            cur = cur.value
        if not isinstance(cur, ast.Name):
            return self.rank_of(cur) is not None
        b = self.binding(cur.id)
        if isinstance(b, View):
            return True
        return isinstance(b, ArrayInfo) and count != len(b.shape)

    def operand(self, node: ast.expr) -> Operand:
        if self.rank_of(node) is not None:
            return self.av(node)
        return self.lw.expr(node)

    def av(self, node: ast.expr) -> AV:
        """The array value of an array-valued expression."""
        lw = self.lw
        line = lw.where(node)
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            if b is None:
                raise Reject(line, f"{node.id} is not an array")
            return self.view_av(b if isinstance(b, View) else self.whole(b, line))
        if isinstance(node, ast.Subscript):
            base = self.av(node.value)
            tri = self.triangle_call(node.slice)
            if tri is not None:
                return self.triangle(base, tri, node)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            indexed = self.indexed(base, parts, node)  # index arrays: a gather or a mask's selection
            if indexed is not None:
                return indexed
            shape, comps = self.subscript(base.shape, parts, node)
            return self.reindex(base, shape, comps)
        if isinstance(node, ast.Attribute):
            if node.attr == "T":
                a = self.av(node.value)
                if len(a.shape) < 2:
                    return a
                return self.transposed(a, tuple(reversed(range(len(a.shape)))), line)
            raise Reject(line, f"attribute .{node.attr} of an array in an array expression")
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return self.matmul(self.operand(node.left), self.operand(node.right), node, "@")
            op = BINOPS.get(type(node.op))
            if op is None:
                raise Reject(line, f"operator {type(node.op).__name__} on arrays")
            return self.binary(op, self.operand(node.left), self.operand(node.right), node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                raise Reject(
                    line, f"`not` of array {text(node.operand)} (numpy has no truth value of an array; use ~)"
                )
            op = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}[type(node.op)]
            return self.unary(op, self.av(node.operand), node)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise Reject(
                    line, f"chained comparison of arrays {text(node)} (numpy raises; combine with &)"
                )
            op = CMPS.get(type(node.ops[0]))
            if op is None:
                raise Reject(line, f"comparison {type(node.ops[0]).__name__} of arrays")
            return self.compare(op, self.operand(node.left), self.operand(node.comparators[0]), node)
        if isinstance(node, ast.Call):
            return self.call_av(node)
        if isinstance(node, ast.IfExp):
            raise Reject(line, f"conditional expression between arrays {text(node)} (use np.where)")
        if isinstance(node, ast.BoolOp):
            raise Reject(line, f"`and`/`or` on arrays {text(node)} (numpy raises; use & or |)")
        raise Reject(line, f"{type(node).__name__} in an array expression")

    def whole(self, info: ArrayInfo, line: int) -> View:
        if info.pytype != "ndarray" or not isinstance(info.elem, NP):
            what = "global tuple or list" if info.kind == "rom" else "Python list"
            raise Reject(
                line,
                f"{info.pyname} is a {what}, used as a whole (whole-array operations need a numpy array; "
                "on lists + concatenates and * repeats)",
            )
        return full_view(info)

    def view_av(self, v: View) -> AV:
        def at(idx: tuple[Ix, ...]) -> TE:
            v.base.loaded = True
            return TE(NP(v.base.dtype), ir.Load(v.base.name, v.index(idx), v.base.dtype))

        return AV(v.shape, v.base.dtype, at, view=v)

    def reindex(self, a: AV, shape: tuple[int, ...], comps: tuple[Comp, ...]) -> AV:
        if a.view is not None:
            return self.view_av(View(a.view.base, tuple(shape), compose(a.view.comps, comps)))
        return AV(tuple(shape), a.dtype, lambda idx: a.at(map_index(comps, idx)))

    def subscript(
        self, shape: tuple[int, ...], parts: list[ast.expr], node: ast.AST
    ) -> tuple[tuple[int, ...], tuple[Comp, ...]]:
        """numpy basic indexing of an array of `shape`: the result's shape and how it indexes the source."""
        line = self.lw.where(node)
        parts = self.expand_ellipsis(parts, len(shape), node)
        if sum(not _is_newaxis(p) for p in parts) > len(shape):
            raise Reject(line, f"{text(node)}: {len(parts)} indices for a {len(shape)}-D array")
        new_shape: list[int] = []
        comps: list[Comp] = []
        dims = iter(shape)
        for p in parts:
            if _is_newaxis(p):  # np.newaxis / None: a new dimension of size 1, no source axis
                new_shape.append(1)
                continue
            d = next(dims)
            if isinstance(p, ast.Slice):
                bounds = [self.slice_bound(x) for x in (p.lower, p.upper, p.step)]
                if any(b is False for b in bounds):
                    n, st, off = self.window(p, d, node, line)
                    comps.append(Comp(len(new_shape), 0, st, off=off))
                    new_shape.append(n)
                    continue
                start, stop, step = bounds
                if step == 0:
                    raise Reject(line, f"{text(node)}: slice step is zero")
                if isinstance(d, ParamDyn):  # constant bounds on a run-time length
                    n, c = run_time_window(d, start, stop, step or 1, text(node), line)
                    comps.append(dataclasses.replace(c, dim=len(new_shape)))
                    new_shape.append(n)
                    continue
                s, e, st = slice(start, stop, step).indices(d)
                n = len(range(s, e, st))
                if n == 0:
                    raise Reject(line, f"{text(node)} is empty (a kernel has no empty arrays)")
                comps.append(Comp(len(new_shape), s, st))
                new_shape.append(n)
                continue
            if isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis):
                raise Reject(line, f"{text(node)}: indexing with {'None' if p.value is None else '...'}")
            if self.rank_of(p) is not None:
                raise Reject(
                    line,
                    f"{text(node)}: indexing with an array (fancy indexing and boolean masks are not "
                    "supported; use np.where or a loop)",
                )
            comps.append(Comp(fixed=self.int_index(p, d, line)))
        for d in dims:
            comps.append(Comp(len(new_shape)))
            new_shape.append(d)
        return tuple(new_shape), tuple(comps)

    def expand_ellipsis(self, parts: list[ast.expr], rank: int, node: ast.AST) -> list[ast.expr]:
        """`...` as the full slices of the axes the other indices leave (one at most, as numpy)."""
        dots = [k for k, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis]
        if not dots:
            return parts
        if len(dots) > 1:
            raise Reject(self.lw.where(node), f"{text(node)}: more than one ... (numpy raises)")
        used = sum(not _is_newaxis(p) for p in parts) - 1
        k = dots[0]
        fill: list[ast.expr] = [ast.Slice() for _ in range(max(rank - used, 0))]
        return [*parts[:k], *fill, *parts[k + 1 :]]

    def slice_bound(self, node: ast.expr | None) -> int | bool | None:
        """A slice bound's constant value, None when absent, False when it is known only at run time."""
        if node is None:
            return None
        te = self.lw.expr(node)
        if isinstance(te.e, ir.Const) and te.e.dtype.is_int:
            return int(te.e.value)
        r = range_of(te.pt)
        if r is None or r[0] != r[1] or not isinstance(te.pt, PyInt):
            return False
        return r[0]

    def int_index(self, node: ast.expr, dim: int, line: int) -> Ix:
        te = self.lw.expr(node)
        if isinstance(dim, ParamDyn):  # proven below the run-time length, or checked
            e = self.lw.run_time_index(te, node, dim, line)
            return Ix(e, 0, dim.hi - 1)
        if isinstance(te.e, ir.Const) and te.e.dtype.is_int:
            k = int(te.e.value)
            if not -dim <= k < dim:
                raise Reject(line, f"index {k} is out of bounds for a dimension of size {dim}")
            return ix_const(k + dim if k < 0 else k)
        return Ix(self.lw.index_of(te, node, dim, line), 0, dim - 1)


def _is_int(p: ast.expr) -> bool:
    return isinstance(p, ast.Constant) and type(p.value) is int


def _is_newaxis(p: ast.expr) -> bool:
    """An index that inserts an axis: None or np.newaxis."""
    if isinstance(p, ast.Constant):
        return p.value is None
    return (
        isinstance(p, ast.Attribute)
        and p.attr == "newaxis"
        and isinstance(p.value, ast.Name)
        and p.value.id in ("np", "numpy")
    )


def _reduced_rank(rank: int | None, node: ast.Call, extra: list[ast.expr]) -> int | None:
    """The rank of a reduction's result: an array along an axis (or a tuple of axes) that
    leaves some axis of the array (or with keepdims=True), a scalar otherwise (also when the axis cannot be read: the scalar
    path then names what it does not take)."""
    if rank is None:
        return None
    axis = extra[0] if extra else next((k.value for k in node.keywords if k.arg == "axis"), None)
    keep = any(
        k.arg == "keepdims" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords
    )
    if axis is None or (isinstance(axis, ast.Constant) and axis.value is None):
        return None
    if keep:
        return rank
    gone = len(axis.elts) if isinstance(axis, ast.Tuple) else 1
    return rank - gone if rank > gone else None


def _max_rank(*ranks: int | None) -> int | None:
    known = [r for r in ranks if r is not None]
    return max(known) if known else None


def _matmul_rank(ra: int | None, rb: int | None) -> int | None:
    if ra is None or rb is None:
        return _max_rank(ra, rb)  # a scalar operand: rejected (or a product) by `matmul`
    if ra == 1 and rb == 1:
        return None
    return 2 if ra == 2 and rb == 2 else 1


WINDOW_CONSTANTS = 62  # constant slice bounds on a run-time length: |bound| below this


def run_time_window(d: ParamDyn, start: int | None, stop: int | None, step: int, what: str, line: int):
    """x[a:b] (step 1) or x[::-1] on a run-time length n with constant bounds, as Python clips
    them: (the result's length, how it indexes x). The length is x's own register where it is
    all of x; otherwise a run-time length (`Dyn`) whose key is its values for n = 1 .. 64,
    which tells two such lengths equal everywhere (both are linear in n past their constants)."""
    if step == -1 and start is None and stop is None:  # x[::-1]: n - 1 - i
        dt = INT32
        last = ir.Bin("sub", cast(d.e, dt), const(1, dt), dt)
        return d, Comp(0, 0, -1, off=Ix(last, 0, d.hi - 1))
    if step != 1:
        raise Reject(
            line, f"{what}: a slice with step {step} of an array whose length is known only at run time"
        )
    if start in (None, 0) and stop is None:
        return d, Comp(0)
    if (start is None or start >= 0) and (stop is None or stop < 0):  # max(n - a - b, 0) rows from a
        a, b = start or 0, stop or 0
        if a - b < WINDOW_CONSTANTS:
            dt = INT32
            s_e = ir.Bin("min", const(a, dt), cast(d.e, dt), dt) if a else const(0, dt)
            return d.shifted(b - a), Comp(0, 0, 1, off=Ix(s_e, min(a, d.lo), min(a, d.hi)))
    if any(b is not None and abs(b) >= WINDOW_CONSTANTS for b in (start, stop)):
        raise Reject(
            line,
            f"{what}: slice bounds beyond ±{WINDOW_CONSTANTS} on an array whose length is known only at run time",
        )

    def clip(b: int | None, n: int, default: int) -> int:
        if b is None:
            return default
        return min(max(b + n if b < 0 else b, 0), n)

    def length(n: int) -> int:
        return max(clip(stop, n, n) - clip(start, n, 0), 0)

    dt = INT32
    n_e = cast(d.e, dt)

    def clip_e(b: int | None, default: ir.Expr) -> ir.Expr:
        if b is None:
            return default
        e = ir.Bin("add", n_e, const(b, dt), dt) if b < 0 else const(b, dt)
        return ir.Bin("min", ir.Bin("max", e, const(0, dt), dt), n_e, dt)

    s_e, e_e = clip_e(start, const(0, dt)), clip_e(stop, n_e)
    len_e = ir.Bin("max", ir.Bin("sub", e_e, s_e, dt), const(0, dt), dt)
    starts = [clip(start, n, 0) for n in (d.lo, d.hi)]
    key = ("window", d.key, tuple(length(n) for n in range(1, min(d.hi, WINDOW_CONSTANTS + 2) + 1)))
    hi = max(length(n) for n in (*range(max(d.lo, 1), min(d.hi, WINDOW_CONSTANTS + 2) + 1), d.hi))
    if hi == 0:
        raise Reject(line, f"{what} is always empty (a kernel has no empty arrays)")
    return Dyn(len_e, hi, key), Comp(0, 0, 1, off=Ix(s_e, min(starts), max(starts)))
