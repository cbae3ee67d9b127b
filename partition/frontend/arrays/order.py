"""np.median and np.percentile of small arrays: np.sort's loop nest, then reads.

The flattened array is sorted as np.sort sorts it (`Reordered.sort`: an odd-even
transposition network; sorting only moves values, so the sorted array equals numpy's, NaN
last; -0.0 and 0.0 compare equal and may come out in either order). np.median and np.percentile then read
the elements numpy reads after its partition, and combine them with numpy's own arithmetic:
the mean of the middle one or two (median), `_lerp` of the neighbours of numpy's virtual
index (percentile, method "linear"; the indices and weights are computed at compile time
by numpy's own helpers). A NaN anywhere makes the result NaN, as numpy's NaN check does.

np.percentile of integer arrays is refused: numpy subtracts the neighbours in the integer
dtype (wrapping for int8), which a kernel would have to reproduce bit for bit; np.argsort is
refused too (numpy's default sort is not stable, so the order of ties is its algorithm's).
"""

from __future__ import annotations

import ast

import numpy as np

from partition import ir
from partition.dtypes import FLOAT64, dtype
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Ix, View, has_dyn, ix_const
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP

ORDERED = ("median", "percentile")


class Ordering:
    """np.median and np.percentile (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def order_rank(self, node: ast.Call) -> int | None:
        """The rank of an np.percentile call with an array result (a list of q), None otherwise."""
        name = self.lw.numpy_attr(node.func)
        if name not in ORDERED or not node.args or self.rank_of(node.args[0]) is None:
            return None
        if name == "percentile" and len(node.args) == 2 and isinstance(node.args[1], (ast.List, ast.Tuple)):
            return 1
        return None

    def order_call(self, node: ast.Call) -> AV | None:
        """np.percentile(a, [q, ...]) as an array, None for other calls."""
        if self.order_rank(node) != 1:
            return None
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
        """np.median(a) or np.percentile(a, q) of one q: a scalar, None for other calls."""
        name = self.lw.numpy_attr(node.func)
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
