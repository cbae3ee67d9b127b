"""Arrays indexed by arrays: integer-array gathers and boolean-mask selections.

* `lut[idx]` with an integer array `idx` (numpy's integer-array indexing along
  the first axis): a new array of shape idx.shape + lut.shape[1:]; with k index
  arrays `a[i0, i1]` (`log_probs[np.arange(n), labels]`) the indices broadcast
  together and index the first k axes: shape broadcast(i0, i1) + a.shape[k:].
  numpy counts negative indices from the end and raises IndexError for one
  outside [-n, n). Where the index dtype's range lies inside [-n, n) (uint8 into
  256 entries) no check is needed; otherwise every index is checked before the
  statement, and one outside sets the kernel's fallback status (the call then
  runs on the CPU, where numpy raises), the load reading element 0 instead so
  the kernel never reads outside its array.
* `x[mask]` with a boolean array `mask` of x's shape: the selected elements in
  row-major order, a 1-D array whose length (the number of true elements) is
  known only at run time; with a mask of x's leading axes (`X[labels == c]`),
  the selected rows. A reduction of it (`np.sum(x[mask])`,
  `x[mask].mean()`) loops over the mask and takes the selected elements in
  that same order, storing nothing; selections by one mask combine
  elementwise (`np.sum(f[mask] * p[mask])`). Anything else reads the elements
  packed into a temporary of x's size. Empty selections: a sum is 0, a mean,
  var or std NaN (numpy's result, with its RuntimeWarning), max and min hand
  the call to the CPU (numpy raises ValueError). A selection cannot outlive
  its statement (be kept under a name or returned): a kernel's arrays have a
  fixed length.
"""

from __future__ import annotations

import ast
import math

import numpy as np

from partition import ir
from partition.dtypes import INT64, UINT8, DType, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, CountDyn, Dyn, Ix, Selection, bcast, broadcast, has_dyn
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP, PyInt

SELECTION_REDUCTIONS = ("sum", "mean", "var", "std", "max", "min")


class Selections:
    """Gathers and boolean-mask selections (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    # ------------------------------------------------------------ dispatch

    def indexed(self, base: AV, parts: list[ast.expr], node: ast.Subscript) -> AV | None:
        """base[parts] when an index is an array (a gather or a selection), None otherwise."""
        line = self.lw.where(node)
        arrays = [p for p in parts if not isinstance(p, ast.Slice) and self.rank_of(p) is not None]
        if not arrays:
            return None
        if len(parts) == 1:
            index = self.av(parts[0])
            if index.dtype.is_bool:
                if not self.is_mask(parts[0]) and len(base.shape) != 1:  # `rank_of` took it for a gather
                    raise Reject(
                        line, f"{text(node)}: a boolean mask that is not a comparison or a bool array's name"
                    )
                return self.select(base, index, node)
            return self.gather(base, [index], node)
        if any(
            isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value in (None, Ellipsis))
            for p in parts
        ):
            raise Reject(
                line,
                f"{text(node)}: index arrays mixed with slices (numpy's mixed advanced indexing is not "
                "supported; index the leading axes with arrays and integers, or use a loop)",
            )
        if len(parts) > len(base.shape):
            raise Reject(line, f"{text(node)}: {len(parts)} indices for a {len(base.shape)}-D array")
        # integers among index arrays broadcast with them (numpy): a fixed index of their axis
        indices = [
            self.av(p) if p in arrays else self.int_index(p, n, line) for p, n in zip(parts, base.shape)
        ]
        if any(isinstance(i, AV) and i.dtype.is_bool for i in indices):
            raise Reject(line, f"{text(node)}: a boolean mask among several indices")
        return self.gather(base, indices, node)

    # ------------------------------------------------------------ gathers

    def gather(self, base: AV, indices: list[AV | Ix], node: ast.AST) -> AV:
        """base[i0, i1, ...] for integer arrays i_k (or in-bounds integer indices among them):
        numpy's integer-array indexing of the first axes."""
        line = self.lw.where(node)
        k = len(indices)
        if k > len(base.shape):
            raise Reject(line, f"{text(node)}: {k} index arrays for a {len(base.shape)}-D array")
        arrays = [i for i in indices if isinstance(i, AV)]
        for index in arrays:
            if not index.dtype.is_int:
                raise Reject(
                    line,
                    f"{text(node)}: indexing with a {index.dtype.name} array (numpy takes integer arrays "
                    "and boolean masks)",
                )
        if any(has_dyn(i.shape) for i in arrays) or has_dyn(base.shape):
            raise Reject(
                line, f"{text(node)}: an index array or array whose length is known only at run time"
            )
        ishape = broadcast([i.shape for i in arrays])
        if ishape is None:
            raise Reject(line, f"{text(node)}: index arrays whose shapes do not broadcast (numpy raises)")
        for index, n in zip(indices, base.shape):
            if isinstance(index, AV):
                self.check_indices(index, n, line, text(node))
        r = len(ishape)
        shape = (*ishape, *base.shape[k:])

        def at(idx: tuple[Ix, ...]) -> TE:
            pos = [
                in_bounds(index.at(bcast(idx[:r], index.shape, ishape)).e, n)
                if isinstance(index, AV)
                else index
                for index, n in zip(indices, base.shape)
            ]
            return base.at((*pos, *idx[r:]))

        return AV(shape, base.dtype, at)

    def check_indices(self, index: AV, n: int, line: int, what: str) -> None:
        """Before the statement: the fallback status set when an element of `index` lies outside
        [-n, n) (numpy raises IndexError); nothing when its dtype cannot hold such a value."""
        dt = index.dtype
        if dt.min >= -n and dt.max <= n - 1:
            return
        if n == 0:
            raise Reject(line, f"{what}: indexing an empty axis (numpy raises IndexError)")

        def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            e = index.at(idx).e
            out: ir.Expr = ir.Cmp("gt", e, const(n - 1, dt))
            if dt.min < -n:
                out = ir.Logic("lor", ir.Cmp("lt", e, const(-n, dt)), out)
            return [ir.If(out, [ir.Assign(self.lw.status_name(), const(1, UINT8), line)], [], line)]

        self.emit(self.loop_nest(index.shape, line, body), line, what)

    # ------------------------------------------------------------ boolean masks

    def select(self, base: AV, mask: AV, node: ast.AST) -> AV:
        """base[mask] for a boolean array `mask` of base's shape (the selected elements,
        row-major) or of its leading axes (the selected rows, `X[labels == c]`)."""
        line = self.lw.where(node)
        what = text(node)
        if has_dyn(base.shape) or has_dyn(mask.shape):
            raise Reject(line, f"{what}: a boolean mask of a slice whose length is known only at run time")
        k = len(mask.shape)
        if k > len(base.shape) or base.shape[:k] != mask.shape:
            raise Reject(
                line,
                f"{what}: a boolean mask of shape {mask.shape} for an array of shape {base.shape} (numpy raises)",
            )
        full, rest = base.shape, base.shape[k:]
        rows = math.prod(mask.shape)
        key = mask_key(mask)
        sel = Selection(full, lambda idx: mask.at(idx[:k]).e, base.at, (key, full))
        cdt = narrowest_signed(0, rows) or INT64

        def count() -> ir.Expr:
            cnt = self.scalar_temp("cnt", cdt)

            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.If(mask.at(idx).e, [ir.Assign(cnt.name, _inc(cnt), line)], [], line)]

            self.emit(
                [ir.Assign(cnt.name, const(0, cdt), line), *self.loop_nest(mask.shape, line, body)],
                line,
                what,
            )
            return cnt

        length = CountDyn(count, rows, key)
        packed: list[AV] = []

        def at(idx: tuple[Ix, ...]) -> TE:
            if not packed:
                tmp = self.temp_view(base.dtype, (length, *rest))
                cnt = self.scalar_temp("cnt", cdt)

                def body(row: tuple[Ix, ...]) -> list[ir.Stmt]:
                    def copy(r: tuple[Ix, ...]) -> list[ir.Stmt]:
                        value = self.lw.store_value(base.at((*row, *r)), tmp.base, line)
                        return [ir.Store(tmp.base.name, (cnt, *(i.e for i in r)), value, line)]

                    then = [*self.loop_nest(rest, line, copy), ir.Assign(cnt.name, _inc(cnt), line)]
                    return [ir.If(mask.at(row).e, then, [], line)]

                tmp.base.stored = True
                stmts = [ir.Assign(cnt.name, const(0, cdt), line), *self.loop_nest(mask.shape, line, body)]
                self.emit(stmts, line, what)
                packed.append(self.view_av(tmp))
            return packed[0].at(idx)

        return AV((length, *rest), base.dtype, at, sel=sel)

    def selected_line(self, a: AV, rest: tuple[Ix, ...]) -> AV:
        """Axis 0 of a row selection at the other indices `rest` (`X[m].sum(axis=0)`'s line for
        one column): itself a selection, reduced over the mask without packing."""
        s = a.sel
        assert s is not None
        n = s.shape[0]

        def value(k: tuple[Ix, ...]) -> TE:
            return s.value((k[0], *rest))

        line_sel = Selection((n,), lambda k: s.mask((k[0], *rest)), value, ("line", s.key))
        return AV((a.shape[0],), a.dtype, lambda k: a.at((k[0], *rest)), sel=line_sel)

    def length(self, a: AV) -> TE:
        """len(a): a Python int, the first dimension (a selection's counted at run time)."""
        n = a.shape[0]
        if isinstance(n, Dyn):
            return TE(PyInt(0, n.hi), cast(n.e, narrowest_signed(0, n.hi) or INT64))
        return TE(PyInt(n, n), const(n, narrowest_signed(n, n) or INT64))

    def count_nonzero(self, a: AV, node: ast.Call) -> TE:
        """np.count_nonzero(a) of a whole array: a Python int, the number of non-zero elements
        (of true ones for a mask; of selected non-zero ones for a selection)."""
        line = node.lineno
        sel = a.sel
        shape = sel.shape if sel is not None else a.shape
        if has_dyn(shape):
            raise Reject(line, "np.count_nonzero() of a slice whose length is known only at run time")
        size = math.prod(shape)
        cdt = narrowest_signed(0, size) or INT64
        cnt = self.scalar_temp("cnt", cdt)

        def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            x = (sel.value if sel is not None else a.at)(idx).e
            cond: ir.Expr = ir.Cmp("ne", x, const(0, x.dtype)) if not x.dtype.is_bool else x
            if sel is not None:
                cond = ir.Logic("land", sel.mask(idx), cond)
            return [ir.If(cond, [ir.Assign(cnt.name, _inc(cnt), line)], [], line)]

        self.emit(
            [ir.Assign(cnt.name, const(0, cdt), line), *self.loop_nest(shape, line, body)],
            line,
            "np.count_nonzero()",
        )
        return TE(PyInt(0, size), cnt)

    def reduce_selection(
        self, kind: str, a: AV, rdt: DType, line: int, what: str, ddof: int = 0
    ) -> tuple[list[ir.Stmt], TE]:
        """Statements reducing the elements a mask selects (loops over the mask, in numpy's
        order), and the expression of the result."""
        s = a.sel
        assert s is not None and kind in SELECTION_REDUCTIONS
        size = math.prod(s.shape)
        cdt = narrowest_signed(0, size) or INT64
        acc, cnt = self.scalar_temp("acc", rdt), self.scalar_temp("cnt", cdt)

        def value(idx: tuple[Ix, ...]) -> ir.Expr:
            return cast(s.value(idx).e, rdt)

        def masked(update: ir.Var, new: ir.Expr, idx: tuple[Ix, ...], counting: bool) -> list[ir.Stmt]:
            then: list[ir.Stmt] = [ir.Assign(update.name, new, line)]
            if counting:
                then.append(ir.Assign(cnt.name, _inc(cnt), line))
            return [ir.If(s.mask(idx), then, [], line)]

        start = [ir.Assign(cnt.name, const(0, cdt), line)]
        if kind in ("max", "min"):
            src = a.dtype
            far = (
                (-np.inf if kind == "max" else np.inf)
                if src.is_float
                else (src.min if kind == "max" else src.max)
            )

            def keep(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                best = self.extremum(kind, TE(NP(rdt), acc), s.value(idx), rdt).e
                return masked(acc, best, idx, True)

            empty = ir.If(
                ir.Cmp("eq", cnt, const(0, cdt)),
                [ir.Assign(self.lw.status_name(), const(1, UINT8), line)],
                [],
                line,
            )
            stmts = [
                *start,
                ir.Assign(acc.name, const(far, rdt), line),
                *self.loop_nest(s.shape, line, keep),
                empty,
            ]
            return stmts, TE(NP(rdt), acc)
        self.note_float_order(rdt, what, "numpy adds pairwise", line)

        def add(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            return masked(acc, ir.Bin("add", acc, value(idx), rdt), idx, kind != "sum")

        stmts = [*start, ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest(s.shape, line, add)]
        if kind == "sum":
            return stmts, TE(NP(rdt), acc)
        mean: ir.Expr = ir.Bin("div", acc, cast(cnt, rdt), rdt)  # 0 / 0 is NaN: numpy's empty mean
        if kind == "mean":
            return stmts, TE(NP(rdt), mean)
        # var / std as numpy computes them: the mean, then the squared deviations over max(n - ddof, 0)
        mvar, dev = self.scalar_temp("mean", rdt), self.scalar_temp("acc", rdt)

        def square(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            d = ir.Bin("sub", value(idx), mvar, rdt)
            return masked(dev, ir.Bin("add", dev, ir.Bin("mul", d, d, rdt), rdt), idx, False)

        stmts += [
            ir.Assign(mvar.name, mean, line),
            ir.Assign(dev.name, const(0, rdt), line),
            *self.loop_nest(s.shape, line, square),
        ]
        wide = INT64
        left = ir.Bin("sub", cast(cnt, wide), const(ddof, wide), wide)
        denom = ir.Select(ir.Cmp("gt", left, const(0, wide)), left, const(0, wide), wide)
        var: ir.Expr = ir.Bin("div", dev, cast(denom, rdt), rdt)
        if kind == "std":
            var = ir.Math("sqrt", (var,), rdt)
        return stmts, TE(NP(rdt), var)


def mask_key(mask: AV) -> tuple:
    """What identifies a mask within one statement: its shape and the IR of its element at a
    symbolic index (two masks with equal keys select the same elements)."""
    probe = tuple(Ix(ir.Var(f"@probe{d}", INT64), 0, max(n - 1, 0)) for d, n in enumerate(mask.shape))
    return ("mask", mask.shape, mask.at(probe).e)


def in_bounds(e: ir.Expr, n: int) -> Ix:
    """The position numpy's index `e` names in an axis of length n (negative ones from the end),
    0 where `e` lies outside [-n, n) (the kernel's status then sends the call to the CPU)."""
    dt = e.dtype
    idt = narrowest_signed(0, n) or INT64
    if dt.min >= 0 and dt.max <= n - 1:
        return Ix(e, 0, dt.max)
    if dt.min >= -n and dt.max <= n - 1:
        sdt = narrowest_signed(dt.min, n) or INT64
        v = cast(e, sdt)
        wrapped = ir.Bin("add", v, const(n, sdt), sdt)
        return Ix(ir.Select(ir.Cmp("lt", v, const(0, sdt)), wrapped, v, sdt), 0, n - 1)
    inside: ir.Expr = ir.Cmp("lt", e, const(n, dt))
    pos: ir.Expr = e
    if dt.min < 0:
        pos = ir.Select(ir.Cmp("lt", e, const(0, dt)), ir.Bin("add", e, const(n, dt), dt), e, dt)
        inside = ir.Logic("land", ir.Cmp("ge", pos, const(0, dt)), ir.Cmp("lt", pos, const(n, dt)))
    return Ix(cast(ir.Select(inside, pos, const(0, dt), dt), idt), 0, n - 1)


def _inc(v: ir.Var) -> ir.Expr:
    return ir.Bin("add", v, const(1, v.dtype), v.dtype)
