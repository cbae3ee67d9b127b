"""np.median and np.percentile of small arrays: np.sort's loop nest, then reads.

The flattened array is sorted as np.sort sorts it (`Reordered.sort`: an odd-even
transposition network; sorting only moves values, so the sorted array equals numpy's, NaN
last; -0.0 and 0.0 compare equal and may come out in either order). np.median and np.percentile then read
the elements numpy reads after its partition, and combine them with numpy's own arithmetic:
the mean of the middle one or two (median), `_lerp` of the neighbours of numpy's virtual
index (percentile, method "linear"; the indices and weights are computed at compile time
by numpy's own helpers). A NaN anywhere makes the result NaN, as numpy's NaN check does.

np.argsort(a) of a 1-D array sorts (value, index) pairs by the same network, which swaps
only pairs strictly out of order and so is stable: kind="stable" (or "mergesort") gives
numpy's order for every input. numpy's default kind is not stable (its SIMD sorts order
ties their own way), so without kind="stable" a tie (equal values, two NaNs, -0.0 and 0.0)
sets the fallback status and the call runs on the CPU; without ties the order is unique.

np.percentile of integer arrays is refused: numpy subtracts the neighbours in the integer
dtype (wrapping for int8), which a kernel would have to reproduce bit for bit.
"""

from __future__ import annotations

import ast

import numpy as np

from partition import ir
from partition.dtypes import BOOL, FLOAT64, INT64, UINT8, DType, dtype, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Ix, View, has_dyn, ix_const
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP, PyInt

ORDERED = ("median", "percentile", "argsort")


class Ordering:
    """np.median and np.percentile (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def order_rank(self, node: ast.Call) -> int | None:
        """The rank of an np.percentile call with an array result (a list of q), None otherwise."""
        name = self.lw.numpy_attr(node.func)
        if name not in ORDERED or not node.args or self.rank_of(node.args[0]) is None:
            return None
        if name == "argsort":
            return 1
        if name == "percentile" and len(node.args) == 2 and isinstance(node.args[1], (ast.List, ast.Tuple)):
            return 1
        return None

    def order_call(self, node: ast.Call) -> AV | None:
        """np.percentile(a, [q, ...]) or np.argsort(a) as an array, None for other calls."""
        if self.order_rank(node) != 1:
            return None
        if self.lw.numpy_attr(node.func) == "argsort":
            return self.argsort(node)
        qs, a, line = self.percentile_args(node)
        srt = self.sorted_flat(a, line)
        values = [self.percentile_value(srt, q, line) for q in qs]

        def at(idx: tuple[Ix, ...]) -> TE:
            i = idx[0]
            if i.lo == i.hi:
                return TE(NP(FLOAT64), values[i.lo])
            e = values[-1]
            for k in reversed(range(len(values) - 1)):
                e = ir.Select(ir.Cmp("eq", i.e, const(k, i.e.dtype)), values[k], e, FLOAT64)
            return TE(NP(FLOAT64), e)

        return AV((len(qs),), FLOAT64, at)

    def order_scalar(self, node: ast.Call) -> TE | None:
        """np.median(a), np.percentile(a, q) of one q or np.searchsorted(a, v) of one v: a
        scalar, None for other calls."""
        name = self.lw.numpy_attr(node.func)
        if name == "searchsorted" and node.args and self.rank_of(node.args[0]) is not None:
            return self.searchsorted(node)
        if name not in ("median", "percentile") or not node.args or self.rank_of(node.args[0]) is None:
            return None
        line = node.lineno
        if name == "percentile":
            if self.order_rank(node) is not None:
                return None
            qs, a, line = self.percentile_args(node)
            return TE(NP(FLOAT64), self.percentile_value(self.sorted_flat(a, line), qs[0], line))
        if len(node.args) != 1 or node.keywords:
            raise Reject(line, f"{text(node)}: np.median of a whole array (no axis= or other arguments)")
        a = self.ordered_operand(node.args[0], "np.median", line)
        rdt = dtype(np.median(np.ones(1, dtype=a.dtype.np)).dtype)
        srt = self.sorted_flat(a, line)
        n = srt.shape[0]
        mid = self.view_av(srt).at((ix_const(n // 2),)).e
        if n % 2:
            value: ir.Expr = cast(mid, rdt)  # numpy: the mean of the middle element
        else:
            low = self.view_av(srt).at((ix_const(n // 2 - 1),)).e
            value = ir.Bin("div", ir.Bin("add", cast(low, rdt), cast(mid, rdt), rdt), const(2, rdt), rdt)
        if a.dtype.is_float:
            last = self.view_av(srt).at((ix_const(n - 1),)).e
            value = ir.Select(ir.Cmp("ne", last, last), cast(last, rdt), value, rdt)
        return TE(NP(rdt), value)

    def searchsorted(self, node: ast.Call) -> TE:
        """np.searchsorted(a, v[, side]) of one scalar v: numpy's binary search itself (for an
        unsorted a numpy's answer is where its bisection ends, so the kernel bisects the same
        way), comparing in the dtype numpy gives a and v together, NaN ordered last."""
        lw = self.lw
        line = node.lineno
        kw = {k.arg: k.value for k in node.keywords}
        side_node = node.args[2] if len(node.args) == 3 else kw.pop("side", None)
        if len(node.args) not in (2, 3) or kw or (len(node.args) == 3 and node.keywords):
            raise Reject(
                line, f"{text(node)}: np.searchsorted(a, v[, side]) of one scalar v (sorter= is not taken)"
            )
        side = (
            "left"
            if side_node is None
            else (side_node.value if isinstance(side_node, ast.Constant) else None)
        )
        if side not in ("left", "right"):
            raise Reject(line, f"{text(node)}: side must be the constant 'left' or 'right'")
        if self.rank_of(node.args[1]) is not None:
            raise Reject(line, f"{text(node)}: np.searchsorted of an array of values (one scalar is taken)")
        a = self.av(node.args[0])
        if len(a.shape) != 1 or has_dyn(a.shape):
            raise Reject(line, f"{text(node)}: np.searchsorted of a 1-D array of constant length")
        key = lw.expr(node.args[1])
        if not hasattr(key.e, "dtype") or isinstance(key.pt, tuple):
            raise Reject(line, f"{text(node)}: the value must be one number")
        try:
            cdt = self.search_dtype(a.dtype, key, node)
        except (TypeError, KeyError):
            raise Reject(
                line, f"{text(node)}: no common dtype of a {a.dtype.name} array and its value"
            ) from None
        n = a.shape[0]
        idt = narrowest_signed(-1, n + 1) or INT64
        lo, hi = self.scalar_temp("lo", idt), self.scalar_temp("hi", idt)
        mid, k = self.scalar_temp("mid", idt), self.scalar_temp("key", cdt)

        def less(x: ir.Expr, y: ir.Expr) -> ir.Expr:
            lt: ir.Expr = ir.Cmp("lt", x, y)
            if cdt.is_float:  # numpy's order: NaN after every number
                lt = ir.Logic("lor", lt, ir.Logic("land", ir.Cmp("ne", y, y), ir.Cmp("eq", x, x)))
            return lt

        x = cast(self.view_av(self.materialised(a, line)).at((Ix(mid, 0, n - 1),)).e, cdt)
        go_right = less(x, k) if side == "left" else ir.Un("not", less(k, x), BOOL)

        def step(_: tuple[Ix, ...]) -> list[ir.Stmt]:
            half = ir.Bin("shr", ir.Bin("sub", hi, lo, idt), const(1, idt), idt)
            return [
                ir.If(
                    ir.Cmp("lt", lo, hi),
                    [
                        ir.Assign(mid.name, ir.Bin("add", lo, half, idt), line),
                        ir.If(
                            go_right,
                            [ir.Assign(lo.name, ir.Bin("add", mid, const(1, idt), idt), line)],
                            [ir.Assign(hi.name, mid, line)],
                            line,
                        ),
                    ],
                    [],
                    line,
                )
            ]

        stmts = [
            ir.Assign(k.name, cast(key.e, cdt), line),
            ir.Assign(lo.name, const(0, idt), line),
            ir.Assign(hi.name, const(n, idt), line),
            ir.Assign(mid.name, const(0, idt), line),
            *self.loop_nest((n.bit_length(),), line, step),
        ]
        self.emit(stmts, line, "np.searchsorted()")
        return TE(NP(INT64), cast(lo, INT64))

    def search_dtype(self, adt: DType, key: TE, node: ast.Call) -> DType:
        """The dtype numpy compares a and a scalar v in: the promotion of the two dtypes for a
        numpy scalar; for a Python int (numpy takes the smallest type holding its value) int64,
        which orders every such pair the same; for a Python float float64 (float32 refused:
        whether numpy rounds v to float32 first changes the order)."""
        line = node.lineno
        if isinstance(key.pt, NP):
            return dtype(np.result_type(adt.np, key.pt.dtype.np))
        if isinstance(key.pt, PyInt) and (adt.is_int or adt.is_bool):
            if adt.name == "uint64":
                raise Reject(
                    line, f"{text(node)}: a Python int into a uint64 array (numpy compares in float64)"
                )
            return INT64
        if adt == FLOAT64 or adt.is_int or adt.is_bool:
            return FLOAT64
        raise Reject(
            line,
            f"{text(node)}: a Python number into a {adt.name} array (a numpy scalar of its dtype is taken)",
        )

    def materialised(self, a: AV, line: int) -> View:
        """`a`'s elements in an array: its own view, or a temporary filled before the statement."""
        if a.view is not None:
            return a.view
        t = self.temp_view(a.dtype, a.shape)
        self.emit(self.store_loop(t, a, line), line, "np.searchsorted()")
        t.base.loaded = True
        return t

    def argsort(self, node: ast.Call) -> AV:
        lw = self.lw
        line = node.lineno
        kw = {k.arg: k.value for k in node.keywords}
        if len(node.args) != 1 or set(kw) - {"kind", "stable"}:
            raise Reject(
                line, f"{text(node)}: np.argsort(a[, kind=]) of a 1-D array (axis= and order= are not taken)"
            )
        kind = kw.get("kind")
        kind_v = None if kind is None else (kind.value if isinstance(kind, ast.Constant) else "?")
        st = kw.get("stable")
        stable_v = None if st is None else (st.value if isinstance(st, ast.Constant) else "?")
        if kind_v not in (None, "quicksort", "heapsort", "stable", "mergesort") or stable_v not in (
            None,
            True,
            False,
        ):
            raise Reject(line, f"{text(node)}: kind= and stable= must be constants numpy takes")
        stable = kind_v in ("stable", "mergesort") or stable_v is True
        a = self.ordered_operand(node.args[0], "np.argsort", line)
        if len(a.shape) != 1:
            raise Reject(line, f"{text(node)}: np.argsort of a {len(a.shape)}-D array (1-D is taken)")
        n, dt = a.shape[0], a.dtype
        idt = narrowest_signed(-1, n + 1) or INT64
        status = None if stable else lw.status_name()

        def fill(target: View) -> list[ir.Stmt]:
            vals = self.temp_view(dt, (n,))
            vals.base.loaded = target.base.loaded = target.base.stored = vals.base.stored = True
            stmts = self.loop_nest(
                (n,),
                line,
                lambda i: [
                    ir.Store(vals.base.name, vals.index(i), cast(a.at(i).e, dt), line),
                    ir.Store(target.base.name, target.index(i), cast(i[0].e, INT64), line),
                ],
            )
            if n < 2:
                return stmts
            x, y = self.scalar_temp("lo", dt), self.scalar_temp("hi", dt)
            ix, iy = self.scalar_temp("ilo", INT64), self.scalar_temp("ihi", INT64)

            def step(pj: tuple[Ix, ...]) -> list[ir.Stmt]:
                p, j = cast(pj[0].e, idt), cast(pj[1].e, idt)
                lo, hi = (pj[1],), (Ix(ir.Bin("add", j, const(1, idt), idt), 1, n - 1),)
                out_of_order: ir.Expr = ir.Cmp("lt", y, x)
                if dt.is_float:  # NaN goes last
                    out_of_order = ir.Logic(
                        "lor", out_of_order, ir.Logic("land", ir.Cmp("ne", x, x), ir.Cmp("eq", y, y))
                    )
                parity = ir.Cmp(
                    "eq", ir.Bin("and", j, const(1, idt), idt), ir.Bin("and", p, const(1, idt), idt)
                )
                swap = [
                    ir.Store(vals.base.name, vals.index(lo), y, line),
                    ir.Store(vals.base.name, vals.index(hi), x, line),
                    ir.Store(target.base.name, target.index(lo), iy, line),
                    ir.Store(target.base.name, target.index(hi), ix, line),
                ]
                read = [
                    ir.Assign(x.name, ir.Load(vals.base.name, vals.index(lo), dt), line),
                    ir.Assign(y.name, ir.Load(vals.base.name, vals.index(hi), dt), line),
                    ir.Assign(ix.name, ir.Load(target.base.name, target.index(lo), INT64), line),
                    ir.Assign(iy.name, ir.Load(target.base.name, target.index(hi), INT64), line),
                ]
                return [ir.If(parity, [*read, ir.If(out_of_order, swap, [], line)], [], line)]

            stmts += self.loop_nest((n, n - 1), line, step)
            if status is not None:  # a tie: numpy's default sort orders it its own way

                def tie(j: tuple[Ix, ...]) -> list[ir.Stmt]:
                    jj = cast(j[0].e, idt)
                    u = ir.Load(vals.base.name, vals.index(j), dt)
                    v = ir.Load(
                        vals.base.name, vals.index((Ix(ir.Bin("add", jj, const(1, idt), idt), 1, n - 1),)), dt
                    )
                    same: ir.Expr = ir.Cmp("eq", u, v)
                    if dt.is_float:
                        same = ir.Logic("lor", same, ir.Logic("land", ir.Cmp("ne", u, u), ir.Cmp("ne", v, v)))
                    return [ir.If(same, [ir.Assign(status, const(1, UINT8), line)], [], line)]

                stmts += self.loop_nest((n - 1,), line, tie)
            return stmts

        return self.produced((n,), INT64, fill, line)

    def ordered_operand(self, node: ast.expr, what: str, line: int) -> AV:
        a = self.av(node)
        if has_dyn(a.shape):
            raise Reject(line, f"{what} of a slice whose length is known only at run time")
        if not (a.dtype.is_int or a.dtype.is_float) or a.dtype.is_bool:
            raise Reject(line, f"{what} of a {a.dtype.name} array (numbers are taken)")
        if 0 in a.shape:
            raise Reject(line, f"{what} of an empty array")
        if int(np.prod(a.shape)) > 4096:
            raise Reject(
                line, f"{what} of {int(np.prod(a.shape))} elements (the sort loop nest takes up to 4096)"
            )
        return a

    def percentile_args(self, node: ast.Call) -> tuple[list[float], AV, int]:
        line = node.lineno
        if len(node.args) != 2 or node.keywords:
            raise Reject(
                line, f"{text(node)}: np.percentile(a, q) of a whole array, method 'linear' (no keywords)"
            )
        try:
            q = ast.literal_eval(node.args[1])
        except ValueError:
            raise Reject(line, f"{text(node)}: q must be a constant number or list of numbers") from None
        qs = list(q) if isinstance(q, (list, tuple)) else [q]
        if not qs or not all(type(x) in (int, float) and 0 <= x <= 100 for x in qs):
            raise Reject(line, f"{text(node)}: q must be numbers in 0..100 (numpy raises otherwise)")
        a = self.ordered_operand(node.args[0], "np.percentile", line)
        if a.dtype != FLOAT64:
            raise Reject(
                line,
                f"{text(node)}: np.percentile of a {a.dtype.name} array (float64 is taken; numpy interpolates "
                "integers after subtracting them in their own dtype, and float32 in float32)",
            )
        return [float(x) for x in qs], a, line

    def percentile_value(self, srt: View, q: float, line: int) -> ir.Expr:
        """numpy's linear percentile q of the sorted float64 `srt`: _lerp of the neighbours."""
        n = srt.shape[0]
        try:
            from numpy.lib import _function_base_impl as impl

            method = impl._QuantileMethods["linear"]
            quantiles = np.true_divide(np.asarray([q], dtype=np.float64), 100)
            virtual = np.asanyarray(method["get_virtual_index"](n, quantiles))
            prev, nxt = impl._get_indexes(np.zeros(n), virtual, n)
            gamma = float(impl._get_gamma(virtual, prev, method)[0])
        except (AttributeError, KeyError, TypeError, ImportError):  # pragma: no cover - another numpy
            raise Reject(
                line, "np.percentile: this numpy's interpolation helpers are not the known ones"
            ) from None
        at = self.view_av(srt).at
        a = at((ix_const(int(prev[0]) % n),)).e
        b = at((ix_const(int(nxt[0]) % n),)).e
        diff = ir.Bin("sub", b, a, FLOAT64)
        if gamma >= 0.5:
            value: ir.Expr = ir.Bin(
                "sub", b, ir.Bin("mul", diff, const(1 - gamma, FLOAT64), FLOAT64), FLOAT64
            )
        else:
            value = ir.Bin("add", a, ir.Bin("mul", diff, const(gamma, FLOAT64), FLOAT64), FLOAT64)
        last = at((ix_const(n - 1),)).e
        return ir.Select(ir.Cmp("ne", last, last), last, value, FLOAT64)

    def sorted_flat(self, a: AV, line: int) -> View:
        """The flattened `a` sorted into a temporary (np.sort's loop nest, emitted before the statement)."""
        if len(a.shape) != 1:
            a = self.flattened("flatten", a, ast.Call(ast.Name("flatten"), [], [], lineno=line))
        srt = self.sort(a, ast.Call(ast.Name("sort"), [], [], lineno=line))
        assert srt.view is not None
        return srt.view
