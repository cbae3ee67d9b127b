"""Values accumulated over array elements: reductions and products.

np.sum/mean/max/min/argmax/argmin and their methods become a loop with an
accumulator whose value the expression then reads; np.dot and @ become loops
of sums of products (a scalar for two vectors, an array produced into its
target otherwise). The loops go before the statement being lowered (`emit`).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable

import numpy as np

from partition import ir
from partition.dtypes import UINT8, DType, dtype
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.selections import SELECTION_REDUCTIONS
from partition.frontend.arrays.values import AV, Dyn, Ix, Operand, ParamDyn, View, has_dyn, ix_const, static
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import METHOD_REDUCTIONS, REDUCTIONS, text
from partition.frontend.types import NP


class Reductions:
    """Reductions and products of arrays (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def matmul(self, a: Operand, b: Operand, node: ast.AST, what: str) -> AV:
        """a @ b with a 2-D operand: an array produced by loops (straight into the target when it can)."""
        lw = self.lw
        line = lw.where(node)
        if not isinstance(a, AV) or not isinstance(b, AV):
            if what == "@":
                raise Reject(line, f"{text(node)}: @ with a scalar operand (numpy raises)")
            return self.scaled(a, b, node, what)
        ra, rb = len(a.shape), len(b.shape)
        k = a.shape[-1]
        kb = b.shape[0] if rb == 1 else b.shape[-2]
        if k != kb:
            raise Reject(line, f"{what}: shapes {a.shape} and {b.shape} are not aligned")
        if ra >= 3 and rb >= 3 and ((what != "@" and what != "np.matmul()") or a.shape[:-2] != b.shape[:-2]):
            raise Reject(
                line,
                f"{what} of arrays of shapes {a.shape} and {b.shape} (stacks of matrices are taken by @ and "
                "np.matmul when their leading dimensions are equal)",
            )
        if ra == 2 and rb >= 3:
            raise Reject(line, f"{what} of a matrix and a stack of matrices (broadcast the matrix first)")
        if ra == 1 and rb >= 3 and what not in ("@", "np.matmul()"):
            raise Reject(line, f"{what} of a vector and an array of {rb} dimensions")
        rdt = self.probe(np.dot, [a, b], f"{what} of {a.dtype.name} and {b.dtype.name} arrays", line)
        self.note_float_order(rdt, what, "numpy uses BLAS", line)
        # numpy's result shape, and the elements multiplied for each result index
        if rb == 1:  # (..., k) @ (k,): the last axis contracted
            shape: tuple = a.shape[:-1]
        elif ra == 1:  # (k,) @ (..., k, m)
            shape = (*b.shape[:-2], b.shape[-1])
        elif rb == 2:  # (..., n, k) @ (k, m)
            shape = (*a.shape[:-1], b.shape[1])
        else:  # stacks of equal leading dimensions: (..., n, k) @ (..., k, m)
            shape = (*a.shape[:-1], b.shape[-1])

        def operands(idx: tuple[Ix, ...], kk: Ix) -> tuple[TE, TE]:
            if rb == 1:
                return a.at((*idx, kk)), b.at((kk,))
            if ra == 1:
                return a.at((kk,)), b.at((*idx[:-1], kk, idx[-1]))
            if rb == 2:
                return a.at((*idx[:-1], kk)), b.at((kk, idx[-1]))
            return a.at((*idx[:-1], kk)), b.at((*idx[:-2], kk, idx[-1]))

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                acc = self.accumulate(k, rdt, line, lambda kk: operands(idx, kk))
                value = lw.store_value(TE(NP(rdt), acc[1]), target.base, line)
                return [*acc[0], ir.Store(target.base.name, target.index(idx), value, line)]

            target.base.stored = True
            return self.loop_nest(shape, line, body)

        return self.produced(shape, rdt, fill, line)

    def scaled(self, a: Operand, b: Operand, node: ast.AST, what: str) -> AV:
        """np.dot with a scalar operand: a product in numpy's dtype for it (the scalar is not weak here)."""
        line = self.lw.where(node)

        def element(t: list[TE]) -> TE:
            return TE(NP(rdt), _mul(cast(t[0].e, rdt), cast(t[1].e, rdt), rdt))

        rdt = self.probe(np.dot, [a, b], what, line)
        return self.elementwise([a, b], element, np.dot, what, line)

    def accumulate(
        self, n: int, rdt: DType, line: int, pair: Callable[[Ix], tuple[TE, TE]]
    ) -> tuple[list[ir.Stmt], ir.Var]:
        """Statements leaving sum over k < n of pair(k)[0] * pair(k)[1] in an accumulator of `rdt`."""
        acc = self.scalar_temp("acc", rdt)

        def body(kk: tuple[Ix, ...]) -> list[ir.Stmt]:
            x, y = pair(kk[0])
            prod = _mul(cast(x.e, rdt), cast(y.e, rdt), rdt)
            return [ir.Assign(acc.name, _add(acc, prod, rdt), line)]

        return [ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest((n,), line, body)], acc

    def produced(
        self, shape: tuple[int, ...], rdt: DType, fill: Callable[[View], list[ir.Stmt]], line: int
    ) -> AV:
        """An AV made by loops: its elements are read from a temporary filled on first use."""
        temp: list[View] = []

        def at(idx: tuple[Ix, ...]) -> TE:
            if not temp:
                temp.append(self.temp_view(rdt, shape))
                self.emit(fill(temp[0]), line, "a matrix product")
            return self.view_av(temp[0]).at(idx)

        return AV(shape, rdt, at, fill=fill)

    def scalar_call(self, node: ast.Call) -> TE | None:
        """A call with a scalar result computed from arrays (reductions, dot of vectors), or None."""
        lw = self.lw
        f = node.func
        rewritten = self.library_rewrite(node)
        if rewritten is not None:
            return lw.expr(rewritten)
        ordered = self.order_scalar(node)
        if ordered is not None:
            return ordered
        np_name = lw.numpy_attr(f)
        line = node.lineno
        if np_name in REDUCTIONS:
            if not node.args or isinstance(node.args[0], ast.Starred):
                raise Reject(line, f"np.{np_name}() without an array")
            kind = {"amax": "max", "amin": "min"}.get(np_name, np_name)
            arg = node.args[0]
            if self.rank_of(arg) is None:
                raise Reject(line, f"np.{np_name}() of a scalar")
            if self.call_rank(node) is not None:
                return None  # along an axis: an array (call_av)
            return self.reduce(kind, self.av(arg), node, node.args[1:], f"np.{np_name}()")
        if (
            np_name == "count_nonzero"
            and len(node.args) == 1
            and not node.keywords
            and self.rank_of(node.args[0]) is not None
        ):
            return self.count_nonzero(self.av(node.args[0]), node)
        if np_name in ("dot", "matmul") and len(node.args) == 2 and not node.keywords:
            ra, rb = self.rank_of(node.args[0]), self.rank_of(node.args[1])
            if ra == 1 and rb == 1:
                return self.dot_scalar(node.args[0], node.args[1], node, f"np.{np_name}()")
            if ra is None and rb is None:
                raise Reject(line, f"np.{np_name}() of scalars")
            return None
        if np_name in ("minimum", "maximum", "clip") and not node.keywords:
            if any(self.rank_of(a) is not None for a in node.args):
                return None
            return self.scalar_extremum(np_name, node)
        if isinstance(f, ast.Attribute) and f.attr in METHOD_REDUCTIONS and self.rank_of(f.value) is not None:
            if self.call_rank(node) is not None:
                return None  # along an axis: an array (call_av)
            return self.reduce(f.attr, self.av(f.value), node, node.args, f".{f.attr}()")
        return None

    def scalar_extremum(self, name: str, node: ast.Call) -> TE:
        """np.maximum/np.minimum/np.clip of scalars: a numpy scalar, NaN propagating."""
        lw = self.lw
        if name == "clip":
            lw.nargs(node, 3, "np.clip")
            args: list[Operand | None] = [lw.expr(node.args[0]), *(self.bound(x) for x in node.args[1:])]
            ops, element = self.clip_parts(args, node)
        else:
            lw.nargs(node, 2, f"np.{name}")
            ops = [lw.expr(a) for a in node.args]
            _, element = self.minmax_parts("max" if name == "maximum" else "min", ops, node)
        return element(ops)  # type: ignore[arg-type]

    def reduce(self, kind: str, a: AV, node: ast.Call, extra: list[ast.expr], what: str) -> TE:
        """A reduction over every element: loops before the statement, the result a scalar."""
        line = node.lineno
        axes, keepdims, acc_dt, ddof = self.reduction_options(kind, node, extra, len(a.shape), what)
        if keepdims:
            raise Reject(line, f"{what} with keepdims=True of a whole array (give an axis)")
        if axes is not None and len(axes) < len(
            a.shape
        ):  # pragma: no cover - call_rank sends these to the array path
            raise Reject(line, f"{what} along an axis inside a scalar expression")
        rdt = self.reduction_dtype(kind, a, acc_dt, line, what)
        stmts, te = self.reduce_stmts(kind, a, rdt, line, what, ddof)
        self.emit(stmts, line, what)
        return te

    def reduction_options(
        self, kind: str, node: ast.Call, extra: list[ast.expr], rank: int, what: str
    ) -> tuple[tuple[int, ...] | None, bool, DType | None, int]:
        """(the axes, normalised to 0..rank-1 and sorted, or None; keepdims, dtype=, ddof=) of a
        reduction call. A tuple of axes is numpy's too: the reduction over all of them at once."""
        lw = self.lw
        line = node.lineno
        axis_node: ast.expr | None = extra[0] if extra else None
        if len(extra) > 1:
            raise Reject(line, f"{what} with more than an axis as positional arguments")
        keepdims = False
        acc_dt: DType | None = None
        ddof = 0
        for kw in node.keywords:
            if kw.arg == "axis" and axis_node is None:
                axis_node = kw.value
            elif kw.arg == "ddof" and kind in ("var", "std"):
                d = self.slice_bound(kw.value)
                if type(d) is not int:
                    raise Reject(line, f"{what}: ddof must be a constant int")
                ddof = d
            elif kw.arg == "dtype" and kind in ("sum", "mean"):
                acc_dt = lw.parse_dtype(kw.value, line)
            elif (
                kw.arg == "keepdims"
                and isinstance(kw.value, ast.Constant)
                and isinstance(kw.value.value, bool)
            ):
                keepdims = kw.value.value
            else:
                raise Reject(line, f"{what} with {kw.arg}=")
        if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            return None, keepdims, acc_dt, ddof
        if isinstance(axis_node, ast.Tuple) and kind in ("argmax", "argmin"):
            raise Reject(line, f"{what} with a tuple of axes (numpy raises)")
        nodes = axis_node.elts if isinstance(axis_node, ast.Tuple) else [axis_node]
        axes: list[int] = []
        for n in nodes:
            value = self.slice_bound(n)
            if type(value) is not int:
                raise Reject(line, f"{what}: the axis must be a constant int or a tuple of constant ints")
            if not -rank <= value < rank:
                raise Reject(line, f"{what}: axis {value} is out of bounds for an array of {rank} dimensions")
            if value % rank in axes:
                raise Reject(line, f"{what}: a repeated axis (numpy raises)")
            axes.append(value % rank)
        return tuple(sorted(axes)), keepdims, acc_dt, ddof

    def reduction_dtype(self, kind: str, a: AV, acc_dt: DType | None, line: int, what: str) -> DType:
        """numpy's result dtype for the reduction of an `a.dtype` array."""
        sample = np.ones(1, dtype=a.dtype.np)
        fn = getattr(np, kind)
        kwargs = {"dtype": acc_dt.np} if acc_dt is not None else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rdt = dtype(np.asarray(fn(sample, **kwargs)).dtype)
            except (TypeError, ValueError, KeyError) as e:
                raise Reject(line, f"{what} of a {a.dtype.name} array: {e}") from None
        if kind in ("sum", "mean") and (rdt.is_bool or (kind == "mean" and not rdt.is_float)):
            raise Reject(line, f"{what} accumulating in {rdt.name}")
        return rdt

    def axis_reduce(self, kind: str, a: AV, node: ast.Call, extra: list[ast.expr], what: str) -> AV:
        """A reduction along one axis (or a tuple of axes): an array of the other axes (numpy's
        dtype), each element the reduction of its line (or block) along the axes, made by loops
        like a matrix product."""
        line = node.lineno
        rank = len(a.shape)
        axes, keepdims, acc_dt, ddof = self.reduction_options(kind, node, extra, rank, what)
        assert axes is not None
        rdt = self.reduction_dtype(kind, a, acc_dt, line, what)
        inner = tuple(a.shape[k] for k in axes)
        kept = [k for k in range(rank) if k not in axes]
        if 0 in inner and kind not in ("sum", "mean"):
            raise Reject(line, f"{what} along an empty axis (numpy raises)")
        if keepdims:
            shape = tuple(1 if k in axes else a.shape[k] for k in range(rank))
        else:
            shape = tuple(a.shape[k] for k in kept)

        def line_of(idx: tuple[Ix, ...]) -> AV:
            rest = tuple(idx[k] for k in kept) if keepdims else idx
            if axes == (0,) and a.sel is not None and len(a.sel.shape) == rank:  # rows a mask selects
                return self.selected_line(a, rest)

            def at(kk: tuple[Ix, ...]) -> TE:
                full: list[Ix] = []
                it_rest, it_k = iter(rest), iter(kk)
                for k in range(rank):
                    full.append(next(it_k) if k in axes else next(it_rest))
                return a.at(tuple(full))

            return AV(inner, a.dtype, at)

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                stmts, te = self.reduce_stmts(kind, line_of(idx), rdt, line, what, ddof)
                value = self.lw.store_value(te, target.base, line)
                return [*stmts, ir.Store(target.base.name, target.index(idx), value, line)]

            target.base.stored = True
            return self.loop_nest(shape, line, body)

        return self.produced(shape, rdt, fill, line)

    def reduce_stmts(
        self, kind: str, a: AV, rdt: DType, line: int, what: str, ddof: int = 0
    ) -> tuple[list[ir.Stmt], TE]:
        """Statements reducing every element of `a`, and the expression of the result."""
        if a.sel is not None and kind in SELECTION_REDUCTIONS:  # a mask's selection: over the mask
            return self.reduce_selection(kind, a, rdt, line, what, ddof)
        held = all(not isinstance(d, Dyn) or (isinstance(d, ParamDyn) and d.lo >= 1) for d in a.shape)
        if has_dyn(a.shape) and kind != "sum" and not held:
            return self.reduce_run_time(kind, a, rdt, line, what)
        count = element_count(a.shape, rdt) if rdt.is_float else None
        if kind in ("var", "std"):
            # numpy: the mean, then the mean square deviation over n - ddof (sqrt for std)
            self.note_float_order(rdt, what, "numpy adds pairwise", line)
            total, dev = self.scalar_temp("acc", rdt), self.scalar_temp("acc", rdt)
            mean = self.scalar_temp("mean", rdt)

            def add(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(total.name, ir.Bin("add", total, cast(a.at(idx).e, rdt), rdt), line)]

            def square(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                d = ir.Bin("sub", cast(a.at(idx).e, rdt), mean, rdt)
                return [ir.Assign(dev.name, ir.Bin("add", dev, ir.Bin("mul", d, d, rdt), rdt), line)]

            stmts = [
                ir.Assign(total.name, const(0, rdt), line),
                *self.loop_nest(a.shape, line, add),
                ir.Assign(mean.name, ir.Bin("div", total, count, rdt), line),
                ir.Assign(dev.name, const(0, rdt), line),
                *self.loop_nest(a.shape, line, square),
            ]
            # numpy divides by max(n - ddof, 0)
            denom = ir.Bin("max", ir.Bin("sub", count, const(float(ddof), rdt), rdt), const(0.0, rdt), rdt)
            if isinstance(count, ir.Const):
                denom = const(float(max(count.value - ddof, 0)), rdt)
            var: ir.Expr = ir.Bin("div", dev, denom, rdt)
            if kind == "std":
                var = ir.Math("sqrt", (var,), rdt)
            return stmts, TE(NP(rdt), var)
        if kind in ("sum", "mean"):
            self.note_float_order(rdt, what, "numpy adds pairwise", line)
            acc = self.scalar_temp("acc", rdt)

            def add(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(acc.name, ir.Bin("add", acc, cast(a.at(idx).e, rdt), rdt), line)]

            stmts = [ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest(a.shape, line, add)]
            if kind == "mean":
                return stmts, TE(NP(rdt), ir.Bin("div", acc, count, rdt))
            return stmts, TE(NP(rdt), acc)
        first = a.at(tuple(ix_const(0) for _ in a.shape))
        if kind in ("max", "min"):
            acc = self.scalar_temp("acc", rdt)

            def keep(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(acc.name, self.extremum(kind, TE(NP(rdt), acc), a.at(idx), rdt).e, line)]

            return [ir.Assign(acc.name, cast(first.e, rdt), line), *self.loop_nest(a.shape, line, keep)], TE(
                NP(rdt), acc
            )
        # argmax / argmin: the first extreme element (the first NaN for floats)
        best = self.scalar_temp("best", a.dtype)
        pos = self.scalar_temp("pos", rdt)
        cmp = "gt" if kind == "argmax" else "lt"

        def pick(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            x = a.at(idx).e
            take: ir.Expr = ir.Cmp(cmp, x, best)
            if a.dtype.is_float:
                take = ir.Logic("land", ir.Cmp("eq", best, best), ir.Logic("lor", take, ir.Cmp("ne", x, x)))
            flat = _flat(idx, a.shape, rdt)
            return [ir.If(take, [ir.Assign(pos.name, flat, line), ir.Assign(best.name, x, line)], [], line)]

        stmts = [
            ir.Assign(best.name, first.e, line),
            ir.Assign(pos.name, const(0, rdt), line),
            *self.loop_nest(a.shape, line, pick),
        ]
        return stmts, TE(NP(rdt), pos)

    def reduce_run_time(self, kind: str, a: AV, rdt: DType, line: int, what: str) -> tuple[list[ir.Stmt], TE]:
        """max/min/argmax/argmin of a 1-D slice of run-time length: numpy raises ValueError for
        an empty one, so an empty one hands the call back to the CPU (the fallback status); the
        search starts from the dtype's far end (NaN still wins, ties keep the first)."""
        if len(a.shape) != 1 or not isinstance(a.shape[0], Dyn):
            raise Reject(line, f"{what} of an array with a run-time length in more than one dimension")
        if kind in ("mean", "var", "std"):
            raise Reject(line, f"{what} of a slice whose length is known only at run time")
        n = a.shape[0]
        empty = ir.If(
            ir.Cmp("eq", n.e, const(0, n.e.dtype)),
            [ir.Assign(self.lw.status_name(), const(1, UINT8), line)],
            [],
            line,
        )
        src = a.dtype
        far = (
            (-np.inf if kind in ("max", "argmax") else np.inf)
            if src.is_float
            else (src.min if kind in ("max", "argmax") else src.max)
        )
        if kind in ("max", "min"):
            acc = self.scalar_temp("acc", rdt)

            def keep(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(acc.name, self.extremum(kind, TE(NP(rdt), acc), a.at(idx), rdt).e, line)]

            return [
                empty,
                ir.Assign(acc.name, const(far, rdt), line),
                *self.loop_nest(a.shape, line, keep),
            ], TE(NP(rdt), acc)
        best = self.scalar_temp("best", src)
        pos = self.scalar_temp("pos", rdt)
        cmp = "gt" if kind == "argmax" else "lt"

        def pick(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            x = a.at(idx).e
            take: ir.Expr = ir.Cmp(cmp, x, best)
            if src.is_float:
                take = ir.Logic("land", ir.Cmp("eq", best, best), ir.Logic("lor", take, ir.Cmp("ne", x, x)))
            return [
                ir.If(
                    take,
                    [ir.Assign(pos.name, cast(idx[0].e, rdt), line), ir.Assign(best.name, x, line)],
                    [],
                    line,
                )
            ]

        stmts = [
            empty,
            ir.Assign(best.name, const(far, src), line),
            ir.Assign(pos.name, const(0, rdt), line),
            *self.loop_nest(a.shape, line, pick),
        ]
        return stmts, TE(NP(rdt), pos)

    def dot_scalar(self, left: ast.expr, right: ast.expr, node: ast.AST, what: str) -> TE:
        """1-D . 1-D: a scalar sum of products in numpy's result dtype."""
        line = self.lw.where(node)
        a, b = self.av(left), self.av(right)
        if len(a.shape) != 1 or len(b.shape) != 1:
            raise Reject(line, f"{what} of arrays of ranks {len(a.shape)} and {len(b.shape)}")
        if a.shape != b.shape:
            raise Reject(line, f"{what}: shapes {a.shape} and {b.shape} are not aligned")
        rdt = self.probe(np.dot, [a, b], f"{what} of {a.dtype.name} and {b.dtype.name} arrays", line)
        self.note_float_order(rdt, what, "numpy uses BLAS", line)
        stmts, acc = self.accumulate(a.shape[0], rdt, line, lambda kk: (a.at((kk,)), b.at((kk,))))
        self.emit(stmts, line, what)
        return TE(NP(rdt), acc)

    def emit(self, stmts: list[ir.Stmt], line: int, what: str) -> None:
        """Statements computing a value the current expression reads, placed before its statement.

        They run unconditionally: inside a conditional expression (or the right
        side of and/or) that is only safe when they read no element at an index
        the condition might guard.
        """
        if self.lw.cond_depth > 0:
            known = {s.var for s in ir.walk_stmts(stmts) if isinstance(s, ir.For)} | self.snapshots
            for s in ir.walk_stmts(stmts):
                for e in ir.stmt_exprs(s):
                    for x in ir.walk_expr(e):
                        if isinstance(x, ir.Load) and any(
                            isinstance(v, ir.Var) and v.name not in known
                            for i in x.index
                            for v in ir.walk_expr(i)
                        ):
                            raise Reject(
                                line,
                                f"{what} inside a conditional expression or and/or reads elements at an index "
                                "the condition may guard (compute it in a statement of its own)",
                            )
        self.lw.pending.extend(stmts)

    def note_float_order(self, rdt: DType, what: str, how: str, line: int) -> None:
        if rdt.is_float:
            self.lw.note(
                f"line {line}: {what} accumulates {rdt.name} in index order ({how}); the last bits may "
                "differ from numpy's"
            )


def _mul(x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
    return ir.Bin("and" if dt.is_bool else "mul", x, y, dt)


def _add(x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
    return ir.Bin("or" if dt.is_bool else "add", x, y, dt)


def _flat(idx: tuple[Ix, ...], shape: tuple[int, ...], dt: DType) -> ir.Expr:
    """Row-major flat position of idx in `shape`, in `dt` (what argmax returns)."""
    e: ir.Expr | None = None
    for i, n in zip(idx, shape):
        term = cast(i.e, dt)
        e = term if e is None else ir.Bin("add", ir.Bin("mul", e, const(n, dt), dt), term, dt)
    assert e is not None
    return e


def element_count(shape: tuple, dt: DType) -> ir.Expr:
    """The number of elements of `shape` as a `dt` (float) value: a constant, or the run-time
    leading length times the other lengths."""
    rest = int(np.prod(static(shape[1:]))) if len(shape) > 1 else 1
    if shape and isinstance(shape[0], ParamDyn):
        n = cast(shape[0].e, dt)
        return n if rest == 1 else ir.Bin("mul", n, const(float(rest), dt), dt)
    return const(float(rest * int(np.prod(static(shape[:1])))), dt)
